"""Taboo's game master: parameters and the describer/guesser dialogue (protocol: README.md)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.games import paper
from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, VIOLATION, GameEnv, strip_reply
from lm_eval_cog.games.taboo import instances, prompts
from lm_eval_cog.games.taboo.rules import (
    CLUE_TAG,
    GUESS_TAG,
    normalise_clue,
    normalise_guess,
    paper_hits,
    read_tagged,
    strict_hits,
)
from lm_eval_cog.games.taboo.stopwords import STOPWORD_LISTS, stopword_list
from lm_eval_cog.paradigms.base import Strategy, require_int, unknown_name_message

DESCRIBER, GUESSER = "describer", "guesser"
TABOO_RULES = ("paper", "strict")


@dataclass(frozen=True)
class TabooParams:
    """Parameters of a Taboo game (defaults: the paper's).

    Attributes:
        strategy: Only ``"direct"``: the game fixes its own reply formats (``CLUE:``, ``GUESS:``).
        experiment: The target's frequency band (``high``, ``medium``, ``low``), or ``all``
            (episode i plays band i mod 3).
        max_clues: Turns (one clue, then one guess) before the game is lost (3 in the paper).
        taboo_rule: The check that decides whether a clue loses the game: ``paper`` (clembench's
            stem check, the default) or ``strict`` (ours: the paper's, plus the stem check on
            accent-folded, split and joined forms). Both are computed and logged on every clue.
    """

    strategy: str = "direct"
    experiment: str = "all"
    max_clues: int = 3
    taboo_rule: str = "paper"
    stopwords: str = "nltk"
    instances: str = "ours"
    messages: str = "ours"

    def __post_init__(self) -> None:
        strategy = self.strategy.value if isinstance(self.strategy, Strategy) else self.strategy
        if strategy != "direct":
            raise ValueError(
                f"taboo parameter 'strategy' must be 'direct' (the game asks for its own reply formats, "
                f"'{CLUE_TAG}' and '{GUESS_TAG}'), got {self.strategy!r}"
            )
        object.__setattr__(self, "strategy", strategy)
        if self.experiment != "all" and self.experiment not in instances.EXPERIMENTS:
            message = unknown_name_message("experiment", self.experiment, [*instances.EXPERIMENTS, "all"])
            raise ValueError(f"taboo parameter 'experiment': {message}")
        object.__setattr__(self, "max_clues", require_int("taboo", "max_clues", self.max_clues, 1))
        if self.taboo_rule not in TABOO_RULES:
            message = unknown_name_message("taboo rule", self.taboo_rule, TABOO_RULES)
            raise ValueError(f"taboo parameter 'taboo_rule': {message}")
        if self.stopwords not in STOPWORD_LISTS:
            message = unknown_name_message("stop word list", self.stopwords, STOPWORD_LISTS)
            raise ValueError(f"taboo parameter 'stopwords': {message}")
        paper.check_choice("taboo", "instances", self.instances)
        paper.check_choice("taboo", "messages", self.messages)

    @property
    def max_turns(self) -> int:
        """Safety bound on model calls: one more than the rules allow (a clue and a guess per turn).

        A property, not a field, so that changing ``max_clues`` can never leave a stale bound."""
        return 2 * self.max_clues + 1




class TabooEnv(GameEnv):
    """Taboo (clembench, as Momentè et al. 2025 ran it).

    Description:
        The describer sees a target word and three related words and gives clues without using
        any of them (nor a word sharing a stem); the guesser guesses the word.

    Reply format:
        Describer: ``CLUE: <clue>``; guesser: ``GUESS: <word>`` (the tag at the start of the
        stripped reply, case-sensitive). A reply without its tag aborts the game.

    Messages:
        Describer: the rules and the words, then each wrong guess (``GUESS: ...``). Guesser:
        its rules, a blank line and the first clue (``CLUE: ...``), then each new clue.

    Scoring:
        Won at turn t: 100 / t. Lost (``max_clues`` wrong guesses, or a taboo clue): 0.
        Aborted: None. See ``scoring.taboo_metrics``.

    Episode end:
        A correct guess, the last wrong guess, a taboo clue, or a reply without its tag.

    Arguments:
        params: :class:`TabooParams`.

    References:
        clembench ``games/taboo/master.py`` (v1.5 / Dec-2024 snapshot); Momentè et al. (2025).

    Version history:
        v1: first version.
        v2: the default taboo rule is clembench's (``paper``); ``strict`` no longer matches
        substrings (*train* for *rain* is fair) and catches split, accented and joined forms.
    """

    name = "taboo"
    roles = (DESCRIBER, GUESSER)

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: TabooParams = self.params
        index = int(options.get("index", 0))
        given = options.get("instance")  # a replayed transcript's instance (lm_eval_cog.replay)
        if given is not None:
            self.experiment = instances.experiment_for(p.experiment, index) if p.instances != "paper" else p.experiment
            self.instance = given
        elif p.instances == "paper":
            self.experiment, chosen = paper.pick("taboo", p.experiment, index)
            self.instance = instances.TabooWord(chosen["target"], tuple(chosen["related"]))
        else:
            self.experiment = instances.experiment_for(p.experiment, index)
            self.instance = instances.draw_word(self.rng, self.experiment)
        self.turn = 1  # the current turn: clue ``turn`` then guess ``turn``
        self.said: dict[str, set[str]] = {DESCRIBER: set(), GUESSER: set()}  # for the repetition counts
        self.due = DESCRIBER
        if p.messages == "paper":
            exp = paper.experiment("taboo", self.experiment)
            first = prompts.paper_describer_prompt(exp["describer_prompt"], self.target, self.related, p.max_clues)
            self.guesser_rules = prompts.paper_guesser_prompt(exp["guesser_prompt"], p.max_clues)
        else:
            first = prompts.describer_prompt(self.target, self.related, p.max_clues)
            self.guesser_rules = prompts.guesser_prompt(p.max_clues)
        return first, self._info()

    @property
    def target(self) -> str:
        return self.instance.word

    @property
    def related(self) -> tuple[str, ...]:
        return self.instance.related

    def _info(self) -> dict[str, Any]:
        # Read by scripted players only, never shown to a model.
        return {"role": self.due, "experiment": self.experiment, "target": self.target,
                "related": list(self.related), "turn": self.turn, "max_clues": self.params.max_clues}  # fmt: skip

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        return self._clue(reply) if self.due == DESCRIBER else self._guess(reply)

    def _clue(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        clue = read_tagged(reply, CLUE_TAG)
        if clue is None:
            self.record_move("clue", INVALID, strip_reply(reply), f"no '{CLUE_TAG}' at the start", turn=self.turn)
            return self._end(ABORTED, prompts.ABORTED_CLUE)
        taboo, stop = (self.target, *self.related), self.stop_words()
        hits = {"paper": paper_hits(clue, taboo, stop), "strict": strict_hits(clue, taboo, stop)}
        broken = bool(hits[self.params.taboo_rule])
        self.record_move(
            "clue", VIOLATION if broken else VALID, clue, _summary(hits[self.params.taboo_rule]),
            turn=self.turn, taboo_paper=bool(hits["paper"]), taboo_strict=bool(hits["strict"]),
            repeat=self._repeats(normalise_clue(clue)),
        )  # fmt: skip
        if broken:
            return self._end(LOSE, prompts.LOST_TABOO)
        self.due = GUESSER
        said = strip_reply(reply)
        # The guesser's first message: its rules, a blank line and the first clue (as clembench).
        message = f"{self.guesser_rules}\n\n{said}" if self.turn == 1 else said
        return message, False, self._info()

    def _guess(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        text = read_tagged(reply, GUESS_TAG)
        if text is None:
            self.record_move("guess", INVALID, strip_reply(reply), f"no '{GUESS_TAG}' at the start", turn=self.turn)
            return self._end(ABORTED, prompts.ABORTED_GUESS)
        guess = normalise_guess(text)
        correct = guess == normalise_guess(self.target)
        self.record_move("guess", VALID, guess, "", turn=self.turn, correct=correct, repeat=self._repeats(guess))
        if correct:
            return self._end(SUCCESS, prompts.WON)
        if self.turn >= self.params.max_clues:
            return self._end(LOSE, prompts.LOST_GUESSES)
        self.turn += 1
        self.due = DESCRIBER
        return strip_reply(reply), False, self._info()

    def stop_words(self) -> Collection[str]:
        """The stop words the paper rule skips (and the strict rule's paper hits): the list the
        ``stopwords`` parameter names (:func:`~lm_eval_cog.games.taboo.stopwords.stopword_list`)."""
        return stopword_list(self.params.stopwords)

    def _repeats(self, said: str) -> bool:
        """Has the role due already said this (normalised) in this episode? Then remember it."""
        seen = self.said[self.due]
        repeat = said in seen
        seen.add(said)
        return repeat

    def _end(self, outcome: str, why: str) -> tuple[str, bool, dict[str, Any]]:
        main = None if outcome == ABORTED else 100.0 / self.turn if outcome == SUCCESS else 0.0
        self.finish(outcome, main, turn=self.turn, experiment=self.experiment, target=self.target,
                    related=list(self.related))  # fmt: skip
        return prompts.closing(why, self.target), True, self._info()


def _summary(hits: list[str], shown: int = 5) -> str:
    """The first hits of a clue for the log (a long clue can have thousands)."""
    more = f"; and {len(hits) - shown} more" if len(hits) > shown else ""
    return "; ".join(hits[:shown]) + more
