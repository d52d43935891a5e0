"""Rebuilding an episode's instance from what its published transcript shows.

Each clembench game has a :class:`Rebuild`: our game's name, the parameters the episode needs
(its experiment), the instance read from the game master's messages (target and related words,
grids, slot values, the target word), and which clembench player is which of our roles. A transcript
that does not show what is needed raises :class:`~lm_eval_cog.replay.clembench.TranscriptError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lm_eval_cog.games.grids import Grid, parse_grid
from lm_eval_cog.replay.clembench import PublishedEpisode, TranscriptError

_EXPERIMENT_NUMBER = re.compile(r"^\d+_")


@dataclass(frozen=True)
class Rebuild:
    """How one published episode is played by our game master.

    Attributes:
        game: Our game's name (``taboo``, ``reference``, ...).
        overrides: Parameters of the episode (its experiment, the rules' bounds it states).
        instance: What our game master plays instead of drawing (its own instance type).
        roles: clembench player (1, 2) -> our role.
        programmatic: clembench players played by code (their messages are not model replies).
    """

    game: str
    overrides: Mapping[str, Any]
    instance: Any
    roles: Mapping[int, str]
    programmatic: frozenset[int] = field(default_factory=frozenset)


def experiment_name(folder: str) -> str:
    """``0_high_en`` -> ``high_en``: clembench numbers its experiment folders."""
    return _EXPERIMENT_NUMBER.sub("", folder)


def _first(ep: PublishedEpisode, player: int, what: str) -> str:
    messages = ep.messages_to(player)
    if not messages:
        raise TranscriptError(f"no message to Player {player}: cannot read {what}")
    return messages[0]


def _search(pattern: str, text: str, what: str, flags: int = 0) -> re.Match[str]:
    found = re.search(pattern, text, flags)
    if found is None:
        raise TranscriptError(f"the transcript does not show {what}")
    return found


def _grid(text: str, what: str) -> Grid:
    grid = parse_grid(text)
    if isinstance(grid, str):
        raise TranscriptError(f"{what} is not a 5x5 grid ({grid})")
    return grid


# ------------------------------------------------------------------ Taboo
def taboo(ep: PublishedEpisode) -> Rebuild:
    from lm_eval_cog.games.taboo.instances import EXPERIMENTS, TabooWord

    band = experiment_name(ep.experiment).removesuffix("_en")
    if band not in EXPERIMENTS:
        raise TranscriptError(f"taboo experiment {ep.experiment!r} is none of {', '.join(EXPERIMENTS)}")
    prompt = _first(ep, 1, "the target word")
    # The target is the one line between the announcement and "Related words are:".
    target = _search(r"needs to guess:[ \t]*\n\s*([^\n:]+?)[ \t]*\n\s*Related words are:", prompt, "the target word")[1]
    related_block = _search(r"Related words are:\s*\n((?:\s*- [^\n]*\n?)+)", prompt, "the related words")[1]
    related = tuple(line.strip()[2:].strip() for line in related_block.strip().splitlines() if line.strip())
    tries = re.search(r"guess the target word in (\d+) tries|guess it in (\d+) tries", prompt + "\n".join(ep.messages_to(2)))
    overrides: dict[str, Any] = {"experiment": band}
    if tries:
        overrides["max_clues"] = int(tries[1] or tries[2])
    return Rebuild("taboo", overrides, TabooWord(target, related), {1: "describer", 2: "guesser"})


# ------------------------------------------------------------------ Reference Game
def reference(ep: PublishedEpisode) -> Rebuild:
    from lm_eval_cog.games.reference.instances import CATEGORIES, Instance

    category = experiment_name(ep.experiment)
    if category not in CATEGORIES:
        raise TranscriptError(f"reference experiment {ep.experiment!r} is none of {', '.join(CATEGORIES)}")
    giver = _first(ep, 1, "the grids")
    grid = r"\s*\n\n((?:[^\n]+\n){4}[^\n]+)"
    target = _grid(_search(r"Target grid:" + grid, giver, "the target grid")[1], "the target grid")
    distractors = tuple(
        _grid(_search(rf"Distractor grid {i}:" + grid, giver, f"distractor grid {i}")[1], f"distractor grid {i}")
        for i in (1, 2)
    )
    followers = ep.messages_to(2)
    if followers:
        # The follower's order decides what its answer means: the distractors as it saw them.
        shown = [_grid(_search(rf"{name}:" + grid, followers[0], f"the follower's {name.lower()} grid")[1], name)
                 for name in ("First", "Second", "Third")]  # fmt: skip
        if shown.count(target) != 1:
            raise TranscriptError("the follower's grids do not hold the target grid exactly once")
        position = shown.index(target)
        distractors = tuple(g for i, g in enumerate(shown) if i != position)
    else:
        position = 0  # the giver's reply ended the game: the follower never saw the grids
    instance = Instance(category, target, distractors, position)  # type: ignore[arg-type]
    return Rebuild("reference", {"experiment": category}, instance, {1: "giver", 2: "follower"})


# ------------------------------------------------------------------ Image Game
def image(ep: PublishedEpisode) -> Rebuild:
    from lm_eval_cog.games.grids import filled_cells
    from lm_eval_cog.games.image.instances import EXPERIMENTS, Instance

    experiment = experiment_name(ep.experiment)
    if experiment not in EXPERIMENTS:
        raise TranscriptError(f"image experiment {ep.experiment!r} is none of {', '.join(EXPERIMENTS)}")
    giver = _first(ep, 1, "the target grid")
    text = _search(r"(?:for the following example|following grid)[^\n]*\n((?:[^\n]+\n){4}[^\n]+)", giver,
                   "the target grid")[1]  # fmt: skip
    target = _grid(text, "the target grid")
    marks = sorted({target[r][c] for r, c in filled_cells(target)})
    letter = marks[0] if len(marks) == 1 else ""
    return Rebuild("image", {"experiment": experiment}, Instance(experiment, target, letter), {1: "giver", 2: "drawer"})


# ------------------------------------------------------------------ Wordle family
_WORDLE_GAMES = {"wordle": "wordle", "wordle_withclue": "wordle_clue", "wordle_withcritic": "wordle_critic"}


def wordle(ep: PublishedEpisode) -> Rebuild:
    from lm_eval_cog.games.wordle.params import EXPERIMENT_CYCLE
    from lm_eval_cog.games.wordle.words import Target

    game = _WORDLE_GAMES[ep.game]
    infos = [e["action"].get("game_info") for e in ep.events
             if isinstance(e.get("action"), Mapping) and isinstance(e["action"].get("game_info"), Mapping)]  # fmt: skip
    words = {i.get("target_word") for i in infos if i.get("target_word")}
    if len(words) != 1:
        raise TranscriptError("the transcript does not show one target word (game_info target_word)")
    word = str(words.pop()).strip().lower()
    band = _search(r"^(\w+?)_frequency", experiment_name(ep.experiment), "the frequency band")[1]
    if band not in EXPERIMENT_CYCLE:
        raise TranscriptError(f"wordle experiment {ep.experiment!r}: band {band!r} is none of {', '.join(EXPERIMENT_CYCLE)}")
    clue = ""
    if game != "wordle":
        # The last "clue:" line: the rules' example ("clue: \"snowy white\"") comes first.
        clues = re.findall(r"^clue:\s*(.+)$", _first(ep, 1, "the clue"), re.MULTILINE)
        if not clues:
            raise TranscriptError("the transcript does not show the clue")
        clue = clues[-1].strip()
    roles = {1: "guesser", 2: "critic"} if game == "wordle_critic" else {1: "guesser"}
    # Wordle's evaluator is code (Player 2 of the two games without a critic).
    programmatic = frozenset() if game == "wordle_critic" else frozenset({2})
    return Rebuild(game, {"experiment": band}, Target(word, clue), roles, programmatic)


#: clembench's game folder name -> the rebuild of its episodes.
REBUILDS: Mapping[str, Callable[[PublishedEpisode], Rebuild]] = {
    "taboo": taboo,
    "referencegame": reference,
    "imagegame": image,
    "wordle": wordle,
    "wordle_withclue": wordle,
    "wordle_withcritic": wordle,
}


def rebuild(ep: PublishedEpisode) -> Rebuild:
    """The episode's :class:`Rebuild`; an unknown game or an unreadable instance raises TranscriptError."""
    make = REBUILDS.get(ep.game)
    if make is None:
        raise TranscriptError(f"unknown game {ep.game!r} (known: {', '.join(sorted(REBUILDS))})")
    return make(ep)


# ------------------------------------------------------------------ Private/Shared
_SLOT_LINE = re.compile(r"^([A-Z][A-Z-]*): *(\S[^\n]*)$", re.MULTILINE)
_PROBED_SLOT = re.compile(r"^Answer for (\S+) valid after")


def _probing_rounds(ep: PublishedEpisode) -> list[dict[str, tuple[str, bool | None]]]:
    """Each probing round: slot -> (the probe's question, whether the slot was then known: the
    answer read, corrected by the game master's check; None when unchecked)."""
    rounds: list[dict[str, tuple[str, bool | None]]] = []
    question = parsed = None
    for e in ep.events:
        action = e.get("action") if isinstance(e.get("action"), Mapping) else {}
        kind, content = action.get("type"), str(action.get("content", ""))
        if kind == "info" and content == "Begin probing":
            rounds.append({})
        elif kind == "probe question" and rounds:
            question, parsed = content, None
        elif kind == "parse" and question is not None:
            parsed = content.strip().lower()
        elif kind == "metadata" and question is not None and _PROBED_SLOT.match(content):
            slot = _PROBED_SLOT.match(content)[1].lower()
            rounds[-1].setdefault(slot, (question, None))
            rounds[-1][slot] = (rounds[-1][slot][0], None if parsed not in ("yes", "no") else parsed == "yes")
        elif kind == "check" and question is not None and rounds:
            for slot, (text, said_yes) in list(rounds[-1].items())[-1:]:
                if said_yes is not None:
                    rounds[-1][slot] = (text, said_yes == (content == "Answer is correct."))
            question = None
    return rounds


def _probe_text(message: str) -> str:
    """A probe as the instance holds it: without the "ME:" tag and the closing instruction."""
    from lm_eval_cog.games.privateshared.prompts import PROBE_CODA

    text = message.strip().removeprefix("ME:").strip()
    return text.replace(PROBE_CODA, "").strip()


def privateshared(ep: PublishedEpisode) -> Rebuild:
    from lm_eval_cog.games.privateshared.experiments import EXPERIMENTS
    from lm_eval_cog.games.privateshared.instances import Instance

    name = experiment_name(ep.experiment)
    experiment = EXPERIMENTS.get(name)
    if experiment is None:
        raise TranscriptError(f"privateshared experiment {ep.experiment!r} is none of {', '.join(EXPERIMENTS)}")
    names = [slot.name for slot in experiment.slots]
    shown = {k.lower(): v.strip() for k, v in _SLOT_LINE.findall(_first(ep, 1, "the slot values")) if k != "WHAT"}
    if sorted(shown) != sorted(names):
        raise TranscriptError(f"the transcript's slots ({', '.join(shown) or 'none'}) are not {name}'s ({', '.join(names)})")
    requests_made = [r.text for r in ep.replies() if r.player == 2]
    rounds = _probing_rounds(ep)
    # Which slot each request asked for: the slot first known in the probing round after it.
    order: list[str] = []
    for r, text in enumerate(requests_made, 1):
        if r >= len(rounds):
            break
        known = {s for s, (_, k) in rounds[r].items() if k}
        new = known - set(order)
        if len(new) != 1:
            raise TranscriptError(f"cannot tell which slot request {r} ({text[:40]!r}) asked for")
        order.append(new.pop())
    order += [s for s in names if s not in order]  # requests the game never reached
    requests = {s: (requests_made[i] if i < len(requests_made) else experiment.slots[names.index(s)].requests[0])
                for i, s in enumerate(order)}  # fmt: skip
    probes = tuple(
        {s: _probe_text(rounds[i][s][0]) if i < len(rounds) and s in rounds[i] else slot.probes[0]
         for s, slot in zip(names, experiment.slots)}
        for i in range(len(names) + 1)
    )  # fmt: skip
    instance = Instance(experiment.name, {s: shown[s] for s in names}, tuple(order), requests, probes)
    return Rebuild("privateshared", {"experiment": name}, instance, {1: "answerer"}, frozenset({2}))


REBUILDS = {**REBUILDS, "privateshared": privateshared}
#: Our games a replay plays.
GAMES: tuple[str, ...] = ("taboo", "reference", "image", "privateshared", "wordle", "wordle_clue", "wordle_critic")
