"""How replies are read (``paradigms.base.read_choice`` and each paradigm's choice finder).

One named test per adversarial case, for every paradigm where the case applies. The
shared rules: the last ``Answer:`` marker, to the end of its line, wins; NFKC first;
``direct`` needs exactly one distinct choice in the whole reply; ``free``/``cot`` without
an answer line accept only a sole choice of the reply or of its last sentence; every
trial records how it was read (``parse``) and every task reports ``fallback_share``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from lm_eval_cog.paradigms import arms, available, get_paradigm, igt, is_game, nback, wpt
from lm_eval_cog.paradigms.base import (
    AMBIGUOUS,
    FALLBACK_SHARE,
    NO_ANSWER,
    ParseFailure,
    ParsePath,
    Reading,
    Strategy,
    answer_text,
    last_sentence_start,
)
from lm_eval_cog.paradigms.measures import fallback_share
from lm_eval_cog.paradigms.wcst import KEY_CARDS, WCSTParams, read_reply as wcst_read_reply
from lm_eval_cog.paradigms.wcst.env import WCSTEnv

#: Paradigms that read choices from replies (the dialogue games read moves in their own formats).
CHOICE_PARADIGMS = [n for n in available() if not is_game(n)]

COT, FREE, DIRECT = Strategy.COT, Strategy.FREE, Strategy.DIRECT


@dataclass(frozen=True)
class Reader:
    """A paradigm's reader and two of its choices, as (reply text, value read)."""

    read: Callable[[str, Strategy], Reading]
    a: tuple[str, Any]
    b: tuple[str, Any]


READERS: dict[str, Reader] = {
    "wcst": Reader(lambda r, s: wcst_read_reply(r, s, KEY_CARDS), ("3", 2), ("1", 0)),
    "nback": Reader(nback.read_reply, ("no", "no"), ("yes", "yes")),
    "wpt": Reader(wpt.read_reply, ("sunny", "sunny"), ("rainy", "rainy")),
    "igt": Reader(igt.read_reply, ("AAA", "AAA"), ("CCC", "CCC")),
    "arms": Reader(arms.read_reply, ("left", "left"), ("right", "right")),  # PRLT and MBT
}
PARADIGMS = pytest.mark.parametrize("name", sorted(READERS))


def wcst(reply: str, strategy: Strategy = DIRECT) -> Any:
    return wcst_read_reply(reply, strategy, KEY_CARDS).value


def code(reading: Reading) -> str | None:
    return reading.value.code if isinstance(reading.value, ParseFailure) else None


def full_width(text: str) -> str:
    """ASCII -> full-width forms (what NFKC folds back)."""
    return "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# ------------------------------------------------------------------ the answer line


@PARADIGMS
@pytest.mark.parametrize("strategy", list(Strategy))
def test_last_answer_marker_wins_when_two_answers_share_a_line(name, strategy):
    """'My answer: I think 3. Answer: 1' -> 1: the text after the LAST marker decides."""
    r = READERS[name]
    reading = r.read(f"My answer: I think {r.a[0]}. Answer: {r.b[0]}", strategy)
    assert reading == Reading(r.b[1], ParsePath.ANSWER_LINE)


@PARADIGMS
def test_answer_text_ends_at_the_end_of_its_line(name):
    """What follows the answer line on later lines does not make it ambiguous."""
    r = READERS[name]
    reading = r.read(f"Answer: {r.a[0]}\nThough {r.b[0]} was tempting.", COT)
    assert reading == Reading(r.a[1], ParsePath.ANSWER_LINE)


@PARADIGMS
def test_answer_on_the_line_after_a_bare_marker_is_read(name):
    """'Answer:' then a line break then the choice: blank lines after the marker are skipped."""
    r = READERS[name]
    assert r.read(f"Let me think.\nAnswer:\n\n{r.a[0]}\n", COT) == Reading(r.a[1], ParsePath.ANSWER_LINE)


@PARADIGMS
def test_answer_line_naming_two_choices_is_ambiguous_never_the_last_one(name):
    """'Answer: 1 or 2' names two choices: invalid, whatever the rest of the reply says."""
    r = READERS[name]
    reading = r.read(f"I pick {r.a[0]}.\nAnswer: {r.a[0]} or {r.b[0]}", COT)
    assert code(reading) == AMBIGUOUS and reading.path is ParsePath.INVALID


@PARADIGMS
def test_bold_answer_marker_is_a_marker(name):
    """'**Answer**: 3' and '**Answer:** 3' (Markdown) are answer lines."""
    r = READERS[name]
    assert r.read(f"{r.b[0]} is tempting.\n**Answer**: {r.a[0]}", COT) == Reading(r.a[1], ParsePath.ANSWER_LINE)
    assert r.read(f"{r.b[0]} is tempting.\n**Answer:** {r.a[0]}", COT) == Reading(r.a[1], ParsePath.ANSWER_LINE)


@PARADIGMS
def test_answer_line_naming_no_choice_is_ignored_and_the_reply_is_read(name):
    """'Answer: unsure' says nothing: the whole reply decides (here its sole choice)."""
    r = READERS[name]
    assert r.read(f"I pick {r.a[0]}.\nAnswer: unsure", COT) == Reading(r.a[1], ParsePath.FALLBACK)
    assert r.read(f"I pick {r.a[0]}.\nAnswer: unsure", DIRECT) == Reading(r.a[1], ParsePath.WHOLE_REPLY)


def test_answer_text_is_from_the_last_marker_to_the_end_of_its_line():
    """The helper itself: last marker, blanks skipped, one line; None without a marker."""
    assert answer_text("My answer: I think 3. Answer: 1") == "1"
    assert answer_text("answer is = 2 then\n3") == "2 then"
    assert answer_text("Answer:\n\n4\n5") == "4"
    assert answer_text("the answers: 1") is None
    assert answer_text("no marker") is None


# ------------------------------------------------------------------ WCST card numbers


@pytest.mark.parametrize(
    "reply",
    ["-2", "+2", "\u22122", "1-4", "4-5", "1\u20134", "2:30", "0.3", ".3", "1,2", "1/4", "\u00bd", "3rd", "2%", "12"],
)
def test_wcst_number_expressions_are_not_card_choices(reply):
    """Signs, ranges, times, decimals, lists, fractions, ordinals, percentages are not cards 1-4."""
    assert wcst(reply) == ParseFailure(NO_ANSWER, "no choice found in reply")
    assert wcst(f"Answer: {reply}", COT) == ParseFailure(NO_ANSWER, "no choice found in reply")


def test_wcst_range_in_prose_is_not_card_4_smollm2_case():
    """SmolLM2 replied 'The key card that matches is 4-5.'; it was logged as card 4. Now invalid."""
    for strategy in Strategy:
        assert wcst("The key card that matches is 4-5.", strategy) == ParseFailure(NO_ANSWER, "no choice found in reply")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("2", 1),
        ("Card 3", 2),
        ("**4**", 3),
        ("(3)", 2),
        ("2.", 1),
        ("Card 2:", 1),
        ("Answer: 1", 0),
        ("card two", 1),
        ("card #three", 2),
        ("card-2", 1),
        ("two green stars", 1),
        ("blue circles", 3),
        ("Card 2: two green stars", 1),
        ("I match it with card 1 - 2 is wrong", ParseFailure(AMBIGUOUS, "reply names 2 different choices")),
    ],
)
def test_wcst_legitimate_card_forms_still_read(reply, expected):
    """Digits, 'Card N', Markdown, brackets, number words after 'card', colour + shape descriptions."""
    assert wcst(reply) == expected


def test_wcst_count_inside_a_decimal_is_no_count():
    """'0.2 green stars': the 2 is part of 0.2, the description alone names card 2."""
    assert wcst("0.2 green stars") == 1


# ------------------------------------------------------------------ Unicode


@PARADIGMS
def test_full_width_answer_line_reads_as_ascii_for_every_paradigm(name):
    """NFKC once, before any parsing: 'Answer：２' and full-width choice words read as ASCII."""
    r = READERS[name]
    for strategy in Strategy:
        assert r.read(full_width(f"Answer: {r.a[0]}"), strategy) == Reading(r.a[1], ParsePath.ANSWER_LINE)
        assert r.read(full_width(r.a[0]), DIRECT) == Reading(r.a[1], ParsePath.WHOLE_REPLY)


def test_full_width_colon_and_digit_read_as_card_2():
    """The issue's example, verbatim."""
    assert wcst("Answer\uff1a\uff12", COT) == 1


@PARADIGMS
def test_lone_surrogates_from_undecodable_bytes_never_crash(name):
    """The runner decodes bad bytes with surrogateescape: such replies are read, never raise."""
    r = READERS[name]
    assert r.read(f"\udcff\udc80 Answer: {r.a[0]} \ud800", COT) == Reading(r.a[1], ParsePath.ANSWER_LINE)
    assert code(r.read("\udcff\udc80", COT)) == NO_ANSWER


def test_env_keeps_no_normalised_copy_of_the_reply():
    """The log holds the parse result, never a rewritten reply (the transcript keeps the raw one)."""
    env = WCSTEnv(WCSTParams(strategy="cot", trials=2))
    env.reset(seed=0)
    env.step("Answer\uff1a\uff12")
    assert env.log[0]["choice"] == 1 and env.log[0]["parse"] == "answer_line"
    assert "Answer" not in str(env.log[0])


# ------------------------------------------------------------------ the free/cot fallback


@pytest.mark.parametrize("strategy", [FREE, COT])
def test_nback_yes_then_no_doubt_is_invalid_never_no(strategy):
    """'Yes, the letters match, no doubt.' read 'no' under 'last choice mentioned'."""
    reading = nback.read_reply("Yes, the letters match, no doubt.", strategy)
    assert code(reading) == AMBIGUOUS and reading.path is ParsePath.INVALID


@pytest.mark.parametrize("strategy", [FREE, COT])
def test_bandit_pick_right_since_left_paid_nothing_is_invalid_never_left(strategy):
    """'I will pick right, since left has paid nothing.' read 'left' under 'last choice mentioned'."""
    reading = arms.read_reply("I will pick right, since left has paid nothing.", strategy)
    assert code(reading) == AMBIGUOUS and reading.path is ParsePath.INVALID


@pytest.mark.parametrize("strategy", [FREE, COT])
def test_wpt_rainy_although_sunny_days_is_invalid_never_sunny(strategy):
    """'Rainy, although sunny days are common.' read 'sunny' under 'last choice mentioned'."""
    reading = wpt.read_reply("Rainy, although sunny days are common.", strategy)
    assert code(reading) == AMBIGUOUS and reading.path is ParsePath.INVALID


@pytest.mark.parametrize("strategy", [FREE, COT])
def test_igt_two_decks_in_one_closing_sentence_is_invalid(strategy):
    """'I take BBB over AAA.' names two decks in its only sentence: invalid."""
    assert code(igt.read_reply("I take BBB over AAA.", strategy)) == AMBIGUOUS


@pytest.mark.parametrize("strategy", [FREE, COT])
def test_wcst_two_cards_in_the_last_sentence_is_invalid(strategy):
    """'Card 1 matches by colour, so card 4 is wrong.' names two cards in its only sentence."""
    assert wcst("Card 1 matches by colour, so card 4 is wrong.", strategy).code == AMBIGUOUS


@PARADIGMS
def test_fallback_reads_the_sole_choice_of_the_last_sentence(name):
    """Several choices in the reasoning, one in the closing sentence: that one, via the fallback."""
    r = READERS[name]
    reply = f"{r.a[0].capitalize()} did badly before. So I choose {r.b[0]}."
    assert r.read(reply, COT) == Reading(r.b[1], ParsePath.FALLBACK)
    assert r.read(reply + " :)\n", FREE) == Reading(r.b[1], ParsePath.FALLBACK)  # trailing emoji is no sentence


@PARADIGMS
def test_fallback_reads_the_sole_choice_of_the_whole_reply(name):
    """One distinct choice anywhere in the reply (repeats fine), no answer line: that one, via the fallback."""
    r = READERS[name]
    reply = f"I pick {r.a[0]}. Yes, {r.a[0]}. Hope this helps!"
    if name == "nback":  # 'Yes' is a choice there
        reply = f"I pick {r.a[0]}. Really, {r.a[0]}. Hope this helps!"
    assert r.read(reply, COT) == Reading(r.a[1], ParsePath.FALLBACK)


@PARADIGMS
def test_fallback_with_a_choice_free_last_sentence_is_invalid(name):
    """Two choices in the reasoning and none at the end: nothing to read."""
    r = READERS[name]
    reply = f"{r.a[0].capitalize()} or maybe {r.b[0]}. Hard to say."
    assert code(r.read(reply, COT)) == AMBIGUOUS


@PARADIGMS
def test_direct_keeps_the_whole_reply_rule(name):
    """direct: exactly one distinct choice in the whole reply; the last-sentence rule does not apply."""
    r = READERS[name]
    assert r.read(r.a[0], DIRECT) == Reading(r.a[1], ParsePath.WHOLE_REPLY)
    assert code(r.read(f"{r.a[0].capitalize()} did badly. So {r.b[0]}.", DIRECT)) == AMBIGUOUS
    assert code(r.read("", DIRECT)) == NO_ANSWER


def test_last_sentence_starts_after_the_last_sentence_end():
    """Sentence ends: . ! ? followed by a blank (after closing brackets, quotes, emphasis), or a line break."""
    text = "Card 1 is red. Card 2? Well!** I pick 3"
    assert text[last_sentence_start(text):].strip() == "I pick 3"
    assert last_sentence_start("0.3 and 1.5 cards") == 0  # decimals do not end a sentence
    tail = "Left paid. I pick right. :)"
    assert tail[last_sentence_start(tail):].strip() == "I pick right. :)"
    assert last_sentence_start("one line\nsecond line") == len("one line\n")


# ------------------------------------------------------------------ parse path and fallback_share


def _one_step_each(name: str, strategy: str, reply: str) -> dict[str, Any]:
    paradigm = get_paradigm(name)
    env = paradigm.env_cls(paradigm.make_params(None, strategy))
    env.reset(seed=0)
    steps = 2 if name == "igt" else 1  # IGT logs a trial after its first and final choice
    for _ in range(steps):
        env.step(reply)
    return env.log[-1]


CLEAN = {"wcst": "2", "nback": "no", "wpt": "sunny", "igt": "BBB", "prlt": "left", "mbt": "right", "lnt": "even"}
# Paradigms whose replies are not one word of a few: their own cases (no fallback reading there).
OWN_CASES = {
    "wason246": [
        ("direct", "QUERY: 1, 2, 3 (expect yes)", "answer_line"),
        ("cot", "Answer: RULE: x < y < z", "answer_line"),
        ("cot", "I cannot tell.", "invalid"),
        ("direct", "", "invalid"),
    ],
    # The play is wason246's (the reflection record, after a rule: tests/test_wason246_reflect.py).
    "wason246_reflect": [
        ("direct", "QUERY: 1, 2, 3 (expect yes)", "answer_line"),
        ("cot", "Answer: RULE: x < y < z", "answer_line"),
        ("cot", "I cannot tell.", "invalid"),
        ("direct", "", "invalid"),
    ],
    # The first turn is a static probe's _gen prompt: an answer line or nothing (the `free` strategy only).
    "reflect": [("free", "Answer: True", "answer_line"), ("free", "True", "invalid"), ("free", "", "invalid")],
}


@pytest.mark.parametrize("name", CHOICE_PARADIGMS)
def test_every_trial_record_says_how_its_reply_was_read(name):
    """parse: answer_line / whole_reply (direct) / fallback (free, cot) / invalid, for every paradigm."""
    fields = ("first_parse", "final_parse") if name == "igt" else ("parse",)
    choice = CLEAN.get(name)
    cases = OWN_CASES.get(name) or [
        ("direct", f"Answer: {choice}", "answer_line"),
        ("cot", f"Answer: {choice}", "answer_line"),
        ("direct", choice, "whole_reply"),
        ("cot", choice, "fallback"),
        ("free", choice, "fallback"),
        ("cot", "I cannot tell.", "invalid"),
        ("direct", "", "invalid"),
    ]
    for strategy, reply, expected in cases:
        record = _one_step_each(name, strategy, reply)
        assert [record[f] for f in fields] == [expected] * len(fields), (strategy, reply)


@pytest.mark.parametrize("name", CHOICE_PARADIGMS)
def test_every_paradigm_reports_fallback_share(name):
    """fallback_share is in every paradigm's metric specs (so in lm-eval's results) and lower is better."""
    paradigm = get_paradigm(name)
    spec = {s.name: s for s in paradigm.metric_specs}[FALLBACK_SHARE]
    assert spec.higher_is_better is False


def test_fallback_share_is_the_share_of_fallback_replies():
    """Hand-computed: 2 fallback replies out of 5 -> 0.4; IGT counts both replies of a trial."""
    log = [{"parse": p} for p in ("answer_line", "fallback", "whole_reply", "fallback", "invalid")]
    assert fallback_share(log) == pytest.approx(0.4)
    igt_log = [
        {"first_parse": "fallback", "final_parse": "answer_line"},
        {"first_parse": "invalid", "final_parse": "answer_line"},
    ]
    assert fallback_share(igt_log, ("first_parse", "final_parse")) == pytest.approx(0.25)


def test_fallback_share_is_nan_for_an_empty_log_or_one_without_parse_paths():
    """Nothing measured: an empty log, or a transcript written before parse paths were recorded."""
    assert math.isnan(fallback_share([]))
    assert math.isnan(fallback_share([{"parse": "fallback"}, {"choice": 1}]))


def test_wcst_metrics_report_the_fallback_share_of_an_episode():
    """Through the env and the scorer: cot replies, 2 of 4 read by the fallback -> 0.5."""
    paradigm = get_paradigm("wcst")
    params = paradigm.make_params("wcst64", "cot", {"trials": 4})
    env = paradigm.env_cls(params)
    env.reset(seed=0)
    for reply in ("Answer: 1", "2", "Card 1 is red. I pick card 3.", "no idea"):
        env.step(reply)
    assert [r["parse"] for r in env.log] == ["answer_line", "fallback", "fallback", "invalid"]
    assert paradigm.metrics(env.log, params)[FALLBACK_SHARE] == pytest.approx(0.5)


def test_igt_fallback_share_counts_first_and_final_replies():
    """IGT: 1 fallback among the 2 x 2 replies -> 0.25 (the denominator of invalid_rate too)."""
    paradigm = get_paradigm("igt")
    params = paradigm.make_params("easy", "cot", {"trials": 2})
    env = paradigm.env_cls(params)
    env.reset(seed=0)
    for reply in ("I choose CCC.", "Answer: CCC", "Answer: DDD", "Answer: DDD"):
        env.step(reply)
    assert [(r["first_parse"], r["final_parse"]) for r in env.log] == [
        ("fallback", "answer_line"),
        ("answer_line", "answer_line"),
    ]
    assert paradigm.metrics(env.log, params)[FALLBACK_SHARE] == pytest.approx(0.25)
