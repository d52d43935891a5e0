"""Wason's 2-4-6 with a metacognition turn after the stated rule: params, messages, env.

Pure Python + numpy. The querying play is :class:`~lm_eval_cog.paradigms.wason246.env.Wason246Env`
unchanged; where it would end (a readable rule), the reflection request of
:mod:`lm_eval_cog.metacognition` is asked in the same conversation. See ``README.md`` here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog import metacognition
from lm_eval_cog.paradigms.base import ParsePath, join_message
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.env import (
    BAD_RULE,
    MAX_CHARS,
    QUERY,
    WASON1960,
    BadMove,
    Move,
    Wason246Env,
    Wason246Params,
    last_move_text,
    normalize,
    opening_message,
    read_rule_text,
)
from lm_eval_cog.paradigms.wason246.equivalence import UndecidedError, difference
from lm_eval_cog.paradigms.wason246.rules import parse_rule
from lm_eval_cog.paradigms.wason246.scoring import RuleScore, evaluation_extra, score_rule

#: Modes: ``conversation`` (our request, a further turn of the same conversation) and
#: ``cogprobe`` (CogProbe's single-turn template, the task and the rule reply pasted in).
MODES: tuple[str, ...] = ("conversation", "cogprobe")
#: The ``kind`` of the reflection's log record (the play's records are ``query``/``rule``/None).
REFLECTION = "reflection"
#: Invalid code of a reflection without any readable field.
NO_REFLECTION = "no_reflection"
#: What precedes our request: the play's closing, minus "The task is over".
RECORDED = "Your rule has been recorded."
CLOSING = "Your reflection has been recorded. The task is over."


@dataclass(frozen=True)
class Wason246ReflectParams(Wason246Params):
    """The 2-4-6 protocol (every :class:`Wason246Params` field) plus the metacognition turn.

    Attributes:
        mode: ``conversation`` (default) or ``cogprobe`` (see :data:`MODES`).
    """

    mode: str = "conversation"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode not in MODES:
            raise ValueError(f"wason246_reflect parameter 'mode' must be one of {', '.join(MODES)}, got {self.mode!r}")

    @property
    def max_turns(self) -> int:
        """The play's replies (``play_turns``), then the reflection."""
        return self.play_turns + 1


PRESETS: Mapping[str, Wason246ReflectParams] = {
    "cogprobe6": Wason246ReflectParams(),
    "wason1960": Wason246ReflectParams(rule_set=WASON1960),
}


# --------------------------------------------------------------------------- #
# Messages and the new rule
# --------------------------------------------------------------------------- #


def reflection_message(params: Wason246ReflectParams, task: str, rule_reply: str) -> str:
    """The metacognition turn: "Your rule has been recorded." and our request, or CogProbe's template
    around the task (instructions and the initial triple) and the reply that stated the rule."""
    if params.mode == "cogprobe":
        return metacognition.cogprobe_request(task, rule_reply)
    return join_message(RECORDED, metacognition.conversation_request())


def read_new_rule(text: str, query_bound: int) -> Move | BadMove:
    """A reflection's ``new_response`` as a rule: the text of its last ``Answer:`` line if it has
    one (the request asks for "the text after Answer:"), then its last ``RULE:`` line, else the
    whole text as a bare expression; read by the play's checked rule reader. A ``QUERY:`` line is
    no rule.

    >>> read_new_rule("RULE: x < y < z", 1000).text, read_new_rule("Answer: lambda x, y, z: z == x + y", 1000).text
    ('RULE: x < y < z', 'RULE: z == x + y')
    >>> read_new_rule("the rule is increasing", 1000).code
    'bad_rule'
    """
    if not isinstance(text, str):
        return BadMove(BAD_RULE, "no text")
    body = normalize(text)[: 2 * MAX_CHARS]
    body = metacognition.last_answer_line(body) or body
    found = last_move_text(body)
    if found is not None:
        kind, body = found
        if kind == QUERY:
            return BadMove(BAD_RULE, "a QUERY line is no rule")
    return read_rule_text(body, query_bound)


def seen_triples(play: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """The triples of the episode: the initial one and every answered query (as the scorer's)."""
    return [list(play[0]["initial"]), *(list(r["triple"]) for r in play if r["kind"] == "query")]


def same_rule(a: str, b: str, hidden: str, seen: Sequence[Sequence[int]], grid: int, query_bound: int) -> bool:
    """Two readable rules give the same answer on every triple of the domain ``[-query_bound,
    query_bound]^3``, decided as the scorer decides correctness: a difference on its evaluation
    set E (the grid, the far sample, the seen triples) says no; without one, two rules that are
    both exactly right are the same, and otherwise z3 decides. A pair z3 cannot decide in time
    counts as the same (no difference is known; the earlier, E-only definition)."""
    ra, rb = parse_rule(a, query_bound), parse_rule(b, query_bound)
    if ra.canonical == rb.canonical:
        return True
    extra = evaluation_extra(hidden, seen, grid, query_bound)
    xs, ys, zs = hyp.grid(grid)
    if not np.array_equal(ra.evaluate(xs, ys, zs), rb.evaluate(xs, ys, zs)):
        return False
    if not np.array_equal(ra.evaluate(*extra.T), rb.evaluate(*extra.T)):
        return False
    if all(_exact(score_rule(r, hidden, seen, grid, query_bound)) for r in (a, b)):
        return True
    try:
        return difference(ra, rb, query_bound) is None
    except UndecidedError:
        return True


def _exact(score: RuleScore | None) -> bool:
    return score is not None and score.exact


def _counterexample(score: RuleScore | None) -> dict[str, Any] | None:
    return None if score is None or score.counterexample is None else score.counterexample.record()


def outcome(
    play: Sequence[Mapping[str, Any]], record: Mapping[str, Any], grid: int, query_bound: int
) -> dict[str, Any]:
    """First and final rule and their exact correctness, from the play's log and the reflection
    record's ``new_response`` alone (the env stores it; the metrics recompute it).

    The first rule is the play's last stated rule; the final rule is the new rule when one is
    given, else the first; a new rule that cannot be read, or whose correctness the solver cannot
    decide in time, is wrong (``revision`` ``unreadable``, the reason in ``new_rule_detail``), never
    replaced by the first. ``same``/``changed``: the new rule is (not) the first one on the domain
    (:func:`same_rule`). A wrong first or final rule's counterexample (triple, the rule's and the
    hidden rule's answers) is kept in ``first_counterexample``/``final_counterexample``.
    """
    hidden, seen = play[0]["hidden"], seen_triples(play)
    first = [r for r in play if r["kind"] == "rule"][-1]["rule"]
    first_score = score_rule(first, hidden, seen, grid, query_bound)
    new_rule, detail = None, None
    if record["new_response"] is None:
        final, revision = first, metacognition.KEPT
    else:
        move = read_new_rule(record["new_response"], query_bound)
        if isinstance(move, BadMove):
            final, revision, detail = None, metacognition.REVISION_UNREADABLE, move.detail
        else:
            assert move.rule is not None
            new_rule = move.rule.text
            new_score = score_rule(new_rule, hidden, seen, grid, query_bound)
            if new_score is not None and new_score.undecided:
                final, revision, detail = None, metacognition.REVISION_UNREADABLE, new_score.undecided
            else:
                final = new_rule
                same = same_rule(first, final, hidden, seen, grid, query_bound)
                revision = metacognition.SAME if same else metacognition.CHANGED
    final_score = None if final is None else score_rule(final, hidden, seen, grid, query_bound)
    return {
        "first_rule": first,
        "first_correct": _exact(first_score),
        "first_invalid": first_score is None,
        "first_counterexample": _counterexample(first_score),
        "new_rule": new_rule,
        "new_rule_detail": detail,
        "final_rule": final,
        "final_correct": _exact(final_score),
        "final_counterexample": _counterexample(final_score),
        "revision": revision,
    }


# --------------------------------------------------------------------------- #
# Environment
# --------------------------------------------------------------------------- #


class Wason246ReflectEnv(Wason246Env):
    """Wason's 2-4-6 (:class:`Wason246Env`), then a reflection on the stated rule (CogProbe).

    Description:
        The play is the 2-4-6 task unchanged (same params, stimuli, messages and records). Where
        a readable rule would end it, the model is asked, in the same conversation, to judge its
        rule (Reasonable / Not reasonable), state a confidence 0-100, explain, and give a new
        rule or "None" (:mod:`lm_eval_cog.metacognition`). No feedback on the rule is ever given.

    Reply format:
        Play: one ``QUERY:``/``RULE:`` line (as ``wason246``). Reflection: a JSON object (read
        leniently; every unreadable field counted, none defaulted); its ``new_response`` is read
        as a rule (:func:`read_new_rule`).

    Scoring:
        ``wason246`` metrics on the play's records; :func:`lm_eval_cog.metacognition.episode_values`
        with first and final correctness from the play's exact scorer.

    Episode end:
        ``terminated`` after the reflection; ``truncated`` when the play's ``play_turns`` replies
        pass without a readable rule (no reflection is asked).

    References:
        Wason (1960); Cui et al., *Measuring the Unmeasurable* (CogProbe), reflection protocol and
        CQS; Brier (1950).

    Version history:
        v1: first version.
        v2: ``wason246`` v2 (exact scoring on the domain, stated in the instructions); the outcome
            keeps the first and final rules' counterexamples; a new rule the solver cannot decide
            in time is unreadable.

    Example:
        >>> env = Wason246ReflectEnv(Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,)))
        >>> message, info = env.reset(seed=0)
        >>> message, terminated, truncated, info = env.step("RULE: x < y < z")
        >>> terminated, info["phase"], message.startswith("Your rule has been recorded.")
        (False, 'reflection', True)
        >>> _ = env.step('{"rationality_judgement": "Not reasonable", "confidence_score": 40, '
        ...              '"new_response": "RULE: z - y == 2 and y - x == 2"}')
        >>> env.log[-1]["kind"], env.log[-1]["first_correct"], env.log[-1]["final_correct"], env.log[-1]["revision"]
        ('reflection', True, False, 'changed')
    """

    name = "wason246_reflect"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self._rule_record: Mapping[str, Any] | None = None
        self._reflected = False
        self._last_reply = ""
        message, info = super()._reset(options)
        self._task = join_message(self.system_prompt, opening_message(self.initial, self.params.max_queries))
        return message, info

    def _info(self, record: Mapping[str, Any] | None) -> dict[str, Any]:
        """The play's info plus the ``phase`` (``play``, ``reflection``, ``done``) and, once
        stated, the rule read (``first_rule``): what the model itself wrote."""
        phase = "done" if self._reflected else ("reflection" if self._rule_record is not None else "play")
        first = None if self._rule_record is None else self._rule_record["rule"]
        return {**super()._info(record), "phase": phase, "first_rule": first}

    def step(self, reply: str) -> tuple[str, bool, bool, dict[str, Any]]:
        message, terminated, truncated, info = super().step(reply)
        if not (terminated or truncated) and self._rule_record is None and self.turns >= self.params.play_turns:
            # The play's cap without a rule (its message is the play's cut): no reflection.
            truncated = True
            self._done = True
        return message, terminated, truncated, info

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        if self._rule_record is None:
            self._last_reply = reply if isinstance(reply, str) else ""
            return super()._step(reply)
        return self._reflect(reply)

    def _finish(self, record: Mapping[str, Any]) -> tuple[str, bool]:
        self._rule_record = record
        return reflection_message(self.params, self._task, self._last_reply), False

    def _reflect(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: Wason246ReflectParams = self.params
        parsed = metacognition.parse_reflection(reply)
        play = [r for r in self.log if r["kind"] != REFLECTION]
        fields = {
            "judgement": parsed.judgement,
            "confidence": parsed.confidence,
            "reflection": parsed.reflection,
            "new_response": parsed.new_response,
            "fields": dict(parsed.fields),
            "source": parsed.source,
            "reflection_invalid": parsed.invalid,
        }
        result = outcome(play, fields, p.grid, p.query_bound)
        readable = not parsed.invalid
        record = {
            # The play's fields (so every record has them), empty for the reflection.
            "turn": self.turns,
            "hidden": self._hidden,
            "initial": list(self._initial),
            "kind": REFLECTION,
            "choice": reflection_line(fields, result) if readable else None,
            "triple": None,
            "expect": None,
            "answer": None,
            "rule": None,
            "queries_left": self._queries_left,
            "invalid": None if readable else NO_REFLECTION,
            "detail": None if readable else "no field of the reflection could be read",
            "parse": (ParsePath.ANSWER_LINE if readable else ParsePath.INVALID).value,
            "correct": None,
            "counterexample": None,
            **fields,
            **result,
        }
        self.log.append(record)
        self._reflected = True
        return CLOSING, True, self._info(None)


def reflection_line(fields: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    """The reflection as one canonical line (the record's ``choice``)."""
    confidence = "?" if fields["confidence"] is None else f"{fields['confidence']:g}"
    final = "none (unreadable)" if result["final_rule"] is None else result["final_rule"]
    return f"REFLECTION: {fields['judgement'] or '?'}, confidence {confidence}, {result['revision']}, final RULE: {final}"


__all__ = [
    "CLOSING",
    "MODES",
    "PRESETS",
    "REFLECTION",
    "Wason246ReflectEnv",
    "Wason246ReflectParams",
    "outcome",
    "read_new_rule",
    "reflection_message",
    "same_rule",
]
