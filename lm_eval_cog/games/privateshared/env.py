"""Private/Shared's game master: parameters and the environment.

Protocol, scoring and differences from clembench: ``README.md`` in this folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lm_eval_cog.games import paper
from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, GameEnv, strip_reply
from lm_eval_cog.games.privateshared import prompts
from lm_eval_cog.games.privateshared.experiments import EXPERIMENT_NAMES, EXPERIMENTS
from lm_eval_cog.games.privateshared.instances import draw_instance, paper_instance
from lm_eval_cog.games.privateshared.parse import YES, mentions, read_answer, read_aside
from lm_eval_cog.games.privateshared.scoring import game_scores, is_success
from lm_eval_cog.paradigms.base import join_message, require_int, unknown_name_message

ALL = "all"
ANSWERER = "answerer"
PROBE, ANSWER, END = "probe", "answer", "end"


def max_calls(n_slots: int) -> int:
    """Model calls of the longest game the rules allow: every answer, and every probe of rounds
    0..n on its last try."""
    return n_slots + prompts.PROBE_TRIES * n_slots * (n_slots + 1)


#: Default bound on model calls: above the longest game of every experiment (things-places: 1215).
MAX_TURNS = max(max_calls(len(e.slots)) for e in EXPERIMENTS.values()) + 1


@dataclass(frozen=True)
class PrivateSharedParams:
    """Parameters of Private/Shared.

    Attributes:
        strategy: Must be ``direct``: the game prescribes its own reply formats.
        experiment: One experiment (``travel-booking``, ``job-interview``, ``restaurant``,
            ``things-places``, ``letter-number``), or ``all``: episode i plays experiment i mod 5.
        max_turns: Safety bound on model calls per episode (the rules never reach the default).
        instances: ``ours`` (values and wordings drawn per episode) or ``paper`` (the paper's 50
            instances, :mod:`lm_eval_cog.games.paper`).
        messages: ``ours`` (our wording) or ``paper`` (clembench's: its initial prompt, requests
            without a closing instruction, its probe retry wording).
    """

    strategy: str = "direct"
    experiment: str = ALL
    max_turns: int = MAX_TURNS
    instances: str = "ours"
    messages: str = "ours"

    def __post_init__(self) -> None:
        strategy = getattr(self.strategy, "value", self.strategy)
        if strategy != "direct":
            raise ValueError(
                f"privateshared parameter 'strategy' must be 'direct' (the game prescribes its own reply formats, "
                f"'ANSWER: ...' and 'ASIDE: ...'), got {self.strategy!r}"
            )
        object.__setattr__(self, "strategy", "direct")
        if self.experiment != ALL and self.experiment not in EXPERIMENTS:
            raise ValueError("privateshared parameter 'experiment': "
                             + unknown_name_message("experiment", str(self.experiment), [ALL, *EXPERIMENT_NAMES]))
        object.__setattr__(self, "max_turns", require_int("privateshared", "max_turns", self.max_turns, 1))
        paper.check_choice("privateshared", "instances", self.instances)
        paper.check_choice("privateshared", "messages", self.messages)
        if self.messages == "paper" and self.instances != "paper":
            # The paper's initial prompts name the values of its own instances.
            raise ValueError("privateshared parameter 'messages': 'paper' needs instances 'paper' (the paper's "
                             "initial prompts are part of its instances)")




def experiment_for(params: PrivateSharedParams, index: int) -> str:
    """The experiment episode ``index`` plays: the one chosen, or with ``all`` the experiments in turn."""
    if params.experiment != ALL:
        return params.experiment
    return EXPERIMENT_NAMES[index % len(EXPERIMENT_NAMES)]


class PrivateSharedEnv(GameEnv):
    """Private/Shared (clembench): answer a questioner's requests from private information, and
    say, when asked aside, which pieces of it the questioner already knows.

    Description:
        The model is the answerer; the questioner (one request per slot, in the instance's
        request order) and the probes are the game master's. Probing round 0 comes before the
        first request and round r after the r-th answer; each round asks, slot by slot in the
        experiment's fixed order, whether the questioner already knows that slot.

    Reply format:
        To a request: one line starting with ``ANSWER:``; anything else aborts the game. To a
        probe: one line ``ASIDE: yes ...`` / ``ASIDE: no ...``; anything else is asked again,
        up to 5 tries, then the game aborts.

    Messages:
        Round 0 probes and the first request carry the instructions (the round-0 probes are
        dropped from later prompts). Requests: ``<TAG>: <request>`` and the request coda.
        Probes: ``ME: <question> Answer this question with yes or no and then stop.``, marked
        ``info["ephemeral"]``.

    Episode end:
        After probing round n (win: every probe right and every slot filled; else lost), or at
        the first reply not in the required form (aborted).

    References:
        clembench Private/Shared (Chalamalasetti et al., 2023), as run by Momentè et al. (2025).
    """

    name = "privateshared"
    roles = (ANSWERER,)

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        index = int(options.get("index", 0))
        row = None
        given = options.get("instance")  # a replayed transcript's instance (lm_eval_cog.replay)
        if self.params.instances == "paper" and given is None:
            name, row = paper.pick("privateshared", self.params.experiment, index)
            self.experiment = EXPERIMENTS[name]
            self.instance = paper_instance(paper.experiment("privateshared", name), row)
        else:
            self.experiment = EXPERIMENTS[experiment_for(self.params, index)]
            self.instance = given or draw_instance(self.rng, self.experiment)
        self.slot_names = tuple(self.instance.slots)
        if self.params.messages == "paper" and row is not None:
            self.instructions = row["initial_prompt"]
        else:
            self.instructions = prompts.instructions(self.experiment, self.instance)
        #: Slot -> the index of the answer that first gave it away: shared in every later round.
        self.shared_after = {slot: i for i, slot in enumerate(self.instance.request_order)}
        self.round = 0  # probing round, = answers given so far
        self.probe_index = 0  # the slot probed, in the fixed slot order
        self.attempt = 1
        self.phase = PROBE
        self.due = ANSWERER
        return self._probe_message(), self._info()

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        text = strip_reply(reply)
        if self.phase == PROBE:
            return self._on_probe(text)
        return self._on_answer(text)

    # ------------------------------------------------------------------ turns
    def _on_probe(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        said, reason = read_aside(text)
        slot = self.slot_names[self.probe_index]
        truth = self._shared(slot)
        where = {"round": self.round, "slot": slot, "attempt": self.attempt, "truth": truth}
        if said is None:
            self.record_move(PROBE, INVALID, text, reason, said=None, correct=None, **where)
            if self.attempt == prompts.PROBE_TRIES:
                return self._end(ABORTED)
            self.attempt += 1
            return self._probe_message(), False, self._info()
        self.record_move(PROBE, VALID, text, "", said=said, correct=(said == YES) == truth, **where)
        self.attempt = 1
        self.probe_index += 1
        if self.probe_index < len(self.slot_names):
            return self._probe_message(), False, self._info()
        self.probe_index = 0
        if self.round == len(self.slot_names):
            return self._end(None)
        self.phase = ANSWER
        return self._request_message(), False, self._info()

    def _on_answer(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        answer, reason = read_answer(text)
        slot = self.instance.request_order[self.round]
        where = {"slot": slot, "position": self.round}
        if answer is None:
            self.record_move(ANSWER, INVALID, text, reason, filled=False, anticipated=[], **where)
            return self._end(ABORTED)
        filled = mentions(text, self.instance.slots[slot])
        self.record_move(ANSWER, VALID, answer, "", filled=filled, anticipated=self._anticipate(text), **where)
        self.round += 1
        self.phase = PROBE
        return self._probe_message(), False, self._info()

    def _anticipate(self, text: str) -> list[str]:
        """Slots not yet requested whose value this answer gives: shared from the next round on."""
        early = [s for s, v in self.instance.slots.items() if self.round < self.shared_after[s] and mentions(text, v)]
        for slot in early:
            self.shared_after[slot] = self.round
        return early

    def _shared(self, slot: str) -> bool:
        """Ground truth of a probe in the current round: has the questioner been told ``slot``?"""
        return self.round > self.shared_after[slot]

    def _end(self, outcome: str | None) -> tuple[str, bool, dict[str, Any]]:
        """Finish: ``ABORTED``, or (None) a played game scored from the log."""
        record = {"experiment": self.experiment.name, "slots": dict(self.instance.slots),
                  "request_order": list(self.instance.request_order), "shared_after": dict(self.shared_after)}
        if outcome == ABORTED:
            self.finish(ABORTED, None, **record)
            closing = prompts.CLOSING_ABORTED
        else:
            scores = game_scores(self.log, len(self.slot_names))
            self.finish(SUCCESS if is_success(scores) else LOSE, scores["main_score"], **record)
            closing = prompts.CLOSING
        self.phase = END
        return closing, True, self._info()

    # ------------------------------------------------------------------ messages
    def _probe_message(self) -> str:
        slot = self.slot_names[self.probe_index]
        question = self.instance.probes[self.round][slot]
        if self.params.messages == "paper":
            message = prompts.paper_probe(question, self.attempt, paper.load("privateshared")["retry_suffixes"])
        else:
            message = prompts.probe(question, self.attempt)
        # Round-0 probes are dropped from later prompts, so each carries the instructions itself.
        return join_message(self.instructions, message) if self.round == 0 else message

    def _request_message(self) -> str:
        slot = self.instance.request_order[self.round]
        if self.params.messages == "paper":
            message = prompts.paper_request(self.experiment, self.instance.requests[slot])
        else:
            message = prompts.request(self.experiment, self.instance.requests[slot])
        # The first kept message: the instructions, then the first request (no fake "Ok." turn).
        return join_message(self.instructions, message) if self.round == 0 else message

    def _info(self) -> dict[str, Any]:
        """What scripted players may read (never shown to a model)."""
        info: dict[str, Any] = {"role": ANSWERER, "phase": self.phase, "ephemeral": self.phase == PROBE,
                                "experiment": self.experiment.name, "round": self.round}
        if self.phase == PROBE:
            slot = self.slot_names[self.probe_index]
            info.update(slot=slot, attempt=self.attempt, truth=self._shared(slot))
        elif self.phase == ANSWER:
            slot = self.instance.request_order[self.round]
            info.update(slot=slot, value=self.instance.slots[slot])
        return info
