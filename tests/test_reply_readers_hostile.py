"""Hostile replies through every reader: never an exception, never a reading, never slow.

A corpus of pathological replies (long runs of Markdown marks, blanks and line breaks,
repeated markers, huge digit runs, deep brackets and JSON, random text, an integer that
overflows a float) goes through each reader of model replies:

* every paradigm's ``env.step`` (envs built through the registry, each strategy), and for
  the reflect paradigms the metacognition turn too;
* every probe's ``_gen`` scoring path (:meth:`Probe.score_reply`) on generated documents;
* :func:`lm_eval_cog.metacognition.parse_reflection` and :func:`read_judgement_value`;
* the Wason 2-4-6 move reader (:func:`read_move`, whose rules go through ``parse_rule``).

Each call must not raise, must read nothing (invalid / missing), and must take under
:data:`LIMIT` seconds. The security review found quadratic regular expressions (8,000 "*"
took 15 s in the reflection reader, "RULE" + 100,000 "*" took 44 s in Wason's) and an
``OverflowError`` that failed reflection episodes; these tests keep them out. Then the rule
layouts Wason's reader must accept (next line, fenced block, trailing comment, zero-width
space) are read as the right rule.
"""

from __future__ import annotations

import math
import random
import string
import time
from collections.abc import Callable
from typing import Any

import pytest

from lm_eval_cog import metacognition
from lm_eval_cog.paradigms import available, get_paradigm, is_game
from lm_eval_cog.paradigms.base import ParsePath, Strategy
from lm_eval_cog.paradigms.wason246.env import read_move
from lm_eval_cog.paradigms.wason246.rules import parse_rule
from lm_eval_cog.probes.core import REGISTRY, get_probe

#: Seconds per reply and reader: generous (the readers take milliseconds), so that a busy
#: shared machine does not fail the test, yet far below the quadratic cases' seconds.
LIMIT = 1.0

_RANDOM = random.Random(20_251_126)
OVERFLOW = '{"confidence_score": 1' + "0" * 400 + "}"
HOSTILE: dict[str, str] = {
    "stars": "*" * 100_000,
    "underscores": "_" * 100_000,
    "hashes": "#" * 100_000,
    "backticks": "`" * 100_000,
    "spaces": " " * 100_000,
    "line breaks": "\n" * 100_000,
    "markers": "Answer:" * 20_000,
    "nines": "9" * 5000,
    "answer nines": "Answer: " + "9" * 5000,
    "card nines": "card " + "9" * 5000,
    "answer card nines": "Answer: card " + "9" * 5000,
    "open brackets": "(" * 50_000,
    "random text": "".join(_RANDOM.choice(string.printable) for _ in range(100_000)),
    "deep json": '{"confidence_score": ' * 10_000 + '"high"' + "}" * 10_000,
    "deep json list": '{"new_response": ' + "[" * 10_000 + "]" * 10_000 + "}",
    "confidence overflow": OVERFLOW,
    "reasonable run": "reasonable " * 1800,
    "rule stars": "RULE" + "*" * 100_000,
    "query underscores": "QUERY" + "_" * 100_000,
    "rule line stars": "\n".join("RULE" + "*" * 1000 for _ in range(100)),
    "key stars": "confidence" + "*" * 20_000,
}


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """(result, seconds) of one call; a second try only when the first is over the limit
    (a busy machine), keeping the faster."""
    result, best = None, math.inf
    for _ in range(2):
        begin = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - begin)
        if best < LIMIT:
            break
    return result, best


# --------------------------------------------------------------------------- #
# Probes: the _gen scoring path
# --------------------------------------------------------------------------- #


def _probe_docs() -> list[tuple[str, dict[str, Any]]]:
    """Two generated documents of every registered probe (every question type seen early)."""
    return [(name, doc) for name in sorted(REGISTRY) for doc in get_probe(name).generate(0, 2)]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_probe_scores_a_hostile_reply_invalid_quickly(name):
    reply = HOSTILE[name]
    for probe_name, doc in _probe_docs():
        scores, seconds = _timed(get_probe(probe_name).score_reply, doc, reply)
        assert seconds < LIMIT, (probe_name, seconds)
        assert scores["invalid_rate"] == 1.0, probe_name


# --------------------------------------------------------------------------- #
# Paradigms: env.step
# --------------------------------------------------------------------------- #

# IGT's record has two readings (first and final choice); the others one.
PARSE_FIELDS = {"igt": (("first_parse", "first_invalid"), ("final_parse", "final_invalid"))}
# The metacognition pass's first turn is a static probe's _gen prompt (free form only).
STRATEGIES = {"reflect": (Strategy.FREE,)}
# A first reply that leads the reflect paradigms to their metacognition turn.
BEFORE_REFLECTION = {"reflect": "Answer: 3", "wason246_reflect": "RULE: x < y < z"}


def _env(name: str, strategy: Strategy) -> tuple[Any, Any, Any]:
    paradigm = get_paradigm(name)
    params = paradigm.make_params(None, strategy.value)
    env = paradigm.env_cls(params)
    env.reset(seed=0)
    return paradigm, params, env


#: Replies that may hold a choice word by chance: 100 kB of random characters contain an
#: isolated "no" or "1", which a free or cot reply's fallback reads by design. For these only
#: the reading's consistency is asserted (valid with a choice, or invalid without one).
MAY_NAME_A_CHOICE = {"random text"}


def _assert_invalid(name: str, record: dict[str, Any], reply_name: str) -> None:
    """A logged reading of a hostile reply: invalid (no choice), or a missing reflection."""
    if record.get("phase") == "reflection" or record.get("kind") == "reflection":
        assert record["confidence"] is None and record["judgement"] is None, reply_name
        return
    for parse, invalid in PARSE_FIELDS.get(name, (("parse", "invalid"),)):
        assert record[parse] in {p.value for p in ParsePath}, (reply_name, record)
        if reply_name in MAY_NAME_A_CHOICE:
            if invalid in record:
                assert (record[parse] == ParsePath.INVALID.value) == (record[invalid] is not None)
            continue
        assert record[parse] == ParsePath.INVALID.value, (reply_name, record)
        if invalid in record:
            assert record[invalid] is not None


def _cases() -> list[tuple[str, Strategy]]:
    return [(name, s) for name in available() if not is_game(name) for s in STRATEGIES.get(name, tuple(Strategy))]


@pytest.mark.parametrize(("paradigm", "strategy"), _cases(), ids=lambda v: getattr(v, "value", v))
def test_every_paradigm_steps_through_hostile_replies_quickly_reading_nothing(paradigm, strategy):
    for name, reply in HOSTILE.items():
        _, _, env = _env(paradigm, strategy)
        for _ in range(2):  # IGT logs a trial after its second reading
            (message, terminated, truncated, _), seconds = _timed(env.step, reply)
            assert isinstance(message, str)
            assert seconds < LIMIT, (name, seconds)
            if terminated or truncated or env.log:
                break
        for record in env.log:
            _assert_invalid(paradigm, record, name)


@pytest.mark.parametrize("paradigm", sorted(BEFORE_REFLECTION))
def test_reflection_turns_read_hostile_replies_as_missing_fields(paradigm):
    for name, reply in HOSTILE.items():
        _, _, env = _env(paradigm, Strategy.FREE)
        env.step(BEFORE_REFLECTION[paradigm])
        (message, _, _, _), seconds = _timed(env.step, reply)
        assert isinstance(message, str) and seconds < LIMIT, (name, seconds)
        _assert_invalid(paradigm, env.log[-1], name)


@pytest.mark.parametrize("paradigm", sorted(BEFORE_REFLECTION))
def test_an_overflowing_confidence_is_missing_and_the_episode_scores(paradigm):
    """``1`` and 400 zeros overflows a float: the confidence is missing, the episode is not
    failed (acc_first/acc_final stay numbers)."""
    model, params, env = _env(paradigm, Strategy.FREE)
    env.step(BEFORE_REFLECTION[paradigm])
    env.step(OVERFLOW)
    record = env.log[-1]
    assert record["confidence"] is None and record["fields"]["confidence"] == metacognition.UNREADABLE
    scores = model.metrics(env.log, params)
    assert not math.isnan(scores["acc_first"]) and not math.isnan(scores["acc_final"])


# --------------------------------------------------------------------------- #
# The reflection reader
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_reflection_reader_reads_nothing_from_a_hostile_reply_quickly(name):
    reply = HOSTILE[name]
    parsed, seconds = _timed(metacognition.parse_reflection, reply)
    assert seconds < LIMIT
    assert parsed.confidence is None and parsed.judgement is None
    _, seconds = _timed(metacognition.read_judgement_value, reply)
    assert seconds < LIMIT


def test_the_overflowing_confidence_is_unreadable_not_an_error():
    parsed = metacognition.parse_reflection(OVERFLOW)
    assert parsed.confidence is None and parsed.fields[metacognition.CONFIDENCE] == metacognition.UNREADABLE
    assert metacognition.read_confidence_value(10**400) == (None, False)
    assert metacognition.read_new_response_value(10**400) == (str(10**400), True)  # a new answer, as written
    assert metacognition.parse_reflection('{"confidence_score": 1e400}').confidence is None  # inf


def test_a_hedge_before_a_label_still_makes_the_judgement_unreadable():
    assert metacognition.read_judgement_value("not entirely reasonable") == (None, False)
    assert metacognition.read_judgement_value("Not reasonable") == (metacognition.NOT_REASONABLE, True)
    assert metacognition.read_judgement_value("reasonable " * 1800) == (metacognition.REASONABLE, True)
    assert metacognition.read_judgement_value("reasonable, not reasonable") == (None, False)


def test_key_lines_with_markdown_are_still_read():
    parsed = metacognition.parse_reflection("**Reasonableness:** Not reasonable\n**Confidence level**: 85\n"
                                         "Confidence\n: 70")  # fmt: skip
    assert (parsed.judgement, parsed.confidence) == (metacognition.NOT_REASONABLE, 85.0)


# --------------------------------------------------------------------------- #
# Wason 2-4-6: the move reader
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_wason_reader_reads_no_move_from_a_hostile_reply_quickly(name):
    move, seconds = _timed(read_move, HOSTILE[name], 1000)
    assert seconds < LIMIT
    assert getattr(move, "code", None) is not None, move  # a BadMove, never a Move


LAYOUTS = {
    "next line": "I have enough evidence.\nRULE:\nx < y < z",
    "next line after blanks": "RULE:\n\n   x < y < z  \n",
    "fenced": "RULE:\n```\nx < y < z\n```",
    "fenced python": "**RULE:**\n```python\nx < y < z\n```\nThat is my rule.",
    "trailing comment": "RULE: x < y < z (strictly increasing)",
    "trailing comment and stop": "RULE: x < y < z (strictly increasing).",
    "zero-width space": "RULE: x < y < z\u200b",
    "zero-width inside": "RULE: x <\u200b y < z",
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_a_correct_rule_is_read_whatever_its_layout(name):
    move, seconds = _timed(read_move, LAYOUTS[name], 1000)
    assert seconds < LIMIT
    assert getattr(move, "rule", None) is not None, move
    assert move.rule.canonical == parse_rule("x < y < z").canonical


@pytest.mark.parametrize(
    ("reply", "canonical"),
    [
        ("RULE: x < (y + z)", "x < y + z"),  # a closing bracket that belongs to the rule is kept
        ("RULE: abs(x) < abs(y)", None),  # a call the parser allows: never cut
        ("RULE: x + y == z (the sum)", "x + y == z"),
    ],
)
def test_a_trailing_comment_is_cut_only_when_the_whole_does_not_parse(reply, canonical):
    move = read_move(reply, 1000)
    expected = canonical or parse_rule(reply.split(":", 1)[1]).canonical
    assert move.rule is not None and move.rule.canonical == expected


@pytest.mark.parametrize(
    "reply",
    [
        "RULE:\n\n\n",  # nothing below the marker
        "RULE:\n```\n```",  # an empty fence
        "RULE: __import__('os') (a comment)",  # still the checked parser: no call but abs
        "RULE: (strictly increasing)",  # a comment and no rule
        "RULE:\nnot a rule at all",
    ],
)
def test_layouts_without_a_readable_rule_stay_bad(reply):
    move = read_move(reply, 1000)
    assert getattr(move, "code", None) is not None, move

