"""Digit / letter span: pinned items, keys re-derived from the prompt, span scores by hand."""

from __future__ import annotations

import math
import re

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from lm_eval_cog.probes.span import span_score

SPAN = get_probe("span")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 9 6 0 forward; 9 1 8 backward = 8 1 9 (lure 9 1 8, as presented);
    # 5 9 7 sorted = 5 7 9 (lure 5 9 7). Foils: one adjacent swap, one substitution, one omission.
    docs = SPAN.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        "Here is a list of 3 digits: 9 6 0\nRepeat the digits in the same order. Write only the digits, separated by spaces.",
        (
            "Here is a list of 3 digits: 9 1 8\nRepeat the digits in reverse order, from the last digit to the first. "
            "Write only the digits, separated by spaces."
        ),
        (
            "Here is a list of 3 digits: 5 9 7\nRepeat the digits in ascending order, from the smallest to the largest. "
            "Write only the digits, separated by spaces."
        ),
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["9 2 0", "9 6 0", "0 6 9", "9 0 6", "9 0"], 1, "forward", -1),
        (["8 1 2", "1 9", "9 1 8", "1 8 9", "8 1 9"], 4, "backward", 2),
        (["3 7 9", "5 7", "7 5 9", "5 7 9", "5 9 7"], 3, "sorted", 4),
    ]


def _foil_kinds(key, seq, shown):
    """Which foil ``seq`` is, from its surface: swap of two adjacent symbols, one symbol
    replaced by one absent from the list, or one symbol dropped."""
    if len(seq) == len(key) - 1 and any(key[:j] + key[j + 1:] == seq for j in range(len(key))):
        return "omission"
    if len(seq) == len(key):
        diff = [j for j in range(len(key)) if key[j] != seq[j]]
        if len(diff) == 1 and seq[diff[0]] not in shown:
            return "substitution"
        if len(diff) == 2 and diff[1] == diff[0] + 1 and (seq[diff[0]], seq[diff[1]]) == (key[diff[1]], key[diff[0]]):
            return "transposition"
    return "other"


@pytest.mark.parametrize("overrides", [{}, {"symbols": "letters", "min_length": 5, "max_length": 12}])
def test_keys_re_derived_from_the_prompt(overrides):
    params = SPAN.make_params(overrides)
    docs = SPAN.generate(2, 300, params)
    for doc in docs:
        shown = re.search(r"list of \d+ \w+: ([0-9A-Z ]+)\n", doc["prompt"]).group(1).split(" ")
        text = doc["prompt"]
        if "same order" in text:
            key, condition = shown, "forward"
        elif "reverse order" in text:
            key, condition = shown[::-1], "backward"
        else:
            key, condition = sorted(shown), "sorted"
        assert condition == doc["condition"] and len(set(shown)) == len(shown) == doc["length"]
        assert shown != sorted(shown)
        assert doc["choices"][doc["gold"]].split(" ") == key
        others = [c.split(" ") for k, c in enumerate(doc["choices"]) if k != doc["gold"]]
        order_foil = shown[::-1] if condition == "forward" else shown
        assert order_foil in others
        assert doc["lure"] == (-1 if condition == "forward" else doc["choices"].index(" ".join(shown)))
        others.remove(order_foil)
        assert sorted(_foil_kinds(key, seq, shown) for seq in others) == ["omission", "substitution", "transposition"]
    # Every (condition, length) pair equally often: 300 / (3 x 7) or 300 / (3 x 8) +- 1.
    lengths = range(params.min_length, params.max_length + 1)
    counts = [sum(d["condition"] == c and d["length"] == n for d in docs) for c in SPAN.conditions for n in lengths]
    assert max(counts) - min(counts) <= 1


def test_span_score_follows_the_two_of_three_rule_with_discontinue():
    # Lengths 3: 3/3, 4: 2/3, 5: 1/3 (fails), 6: 3/3 (after a failure: not counted) -> 4.
    items = [(True, 3, 1.0)] * 3 + [(True, 4, 1.0), (True, 4, 0.0), (True, 4, 1.0)]
    items += [(True, 5, 0.0), (True, 5, 1.0), (True, 5, 0.0)] + [(True, 6, 1.0)] * 3 + [(False, 5, 1.0)] * 9
    assert span_score(items) == 4.0
    # 2 of 4 right is below 2/3: the shortest length fails -> span 3 - 1 = 2.
    assert span_score([(True, 3, 1.0), (True, 3, 0.0), (True, 3, 1.0), (True, 3, 0.0)]) == 2.0
    # Exactly 2/3 passes (4 of 6), every length passing -> the longest.
    assert span_score([(True, 3, 1.0)] * 4 + [(True, 3, 0.0)] * 2 + [(True, 7, 1.0)]) == 7.0
    assert math.isnan(span_score([(False, 3, 1.0)]))


def _doc(condition, shown="4 1 2"):
    seq = shown.split(" ")
    key = {"forward": seq, "backward": seq[::-1], "sorted": sorted(seq)}[condition]
    order = seq[::-1] if condition == "forward" else seq
    choices = [" ".join(key), " ".join(order), "9 9 9", " ".join(key[:-1])]
    return {"choices": choices, "gold": 0, "condition": condition, "lure": -1 if condition == "forward" else 1,
            "length": len(seq), "symbols": "digits"}


def test_metrics_on_hand_scored_answers():
    f3, f4 = _doc("forward"), _doc("forward", "4 1 2 7")
    b3, s3 = _doc("backward"), _doc("sorted")
    answers = [
        (f3, "4 1 2"), (f3, "4,1,2"), (f3, "4 2 1"),  # forward length 3: 2/3 right
        (f4, "4127"), (f4, "4 1 2"), (f4, "no idea"),  # forward length 4: 1/3 right (one invalid)
        (b3, "4 1 2"), (b3, "2 4 1"),  # backward length 3: 0/2 (an order error, a wrong -1 answer)
        (s3, "1 2 4"),  # sorted length 3: 1/1
    ]
    scores = aggregate(SPAN, [SPAN.score_gen(doc, text) for doc, text in answers])
    assert scores["acc_forward"] == 0.5 and scores["acc_backward"] == 0.0 and scores["acc_sorted"] == 1.0
    assert scores["invalid_rate"] == pytest.approx(1 / 9)
    assert scores["span_forward"] == 3.0  # 3 passes (2/3), 4 fails (1/3)
    assert scores["span_backward"] == 2.0  # 3 fails
    assert scores["span_sorted"] == 3.0
    assert scores["backward_cost"] == 0.5  # 3/6 - 0/2
    assert scores["sorted_cost"] == -0.5  # 3/6 - 1/1
    assert scores["order_error_share"] == 0.5  # backward/sorted errors: "4 1 2" (order), "2 4 1" (other)


def test_repeating_as_presented_shows_the_reordering_costs():
    scores = play(SPAN, "prepotent", SPAN.generate(0, 300), "gen")
    assert scores["acc_forward"] == 1.0 and scores["acc_backward"] == scores["acc_sorted"] == 0.0
    assert scores["backward_cost"] == scores["sorted_cost"] == 1.0 and scores["order_error_share"] == 1.0
    assert scores["span_forward"] == 9.0 and scores["span_backward"] == scores["span_sorted"] == 2.0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("2 1 4", 0), ("2,1,4", 0), ("2, 1, 4", 0), ("214", 0), ("**2 1 4**", 0), ("[2, 1, 4]", 0), ("2 1 4.", 0),
     ("4 1 2", 1), ("2 1", 3), ("2 1 4 7", -1), ("1 2 4", -1), ("2 1 4 or 4 1 2", None), ("two one four", None),
     ("", None), ("2-1-4", None), ("2,,1,4", None), ("2 1 B", None)],
)
def test_read_digit_sequences_strictly(answer, expected):
    assert SPAN.read(_doc("backward"), answer) == expected


def test_read_letter_sequences_case_blind_and_rejects_words():
    doc = {**_doc("forward", "K B T"), "symbols": "letters"}
    assert SPAN.read(doc, "k, b, t") == 0 and SPAN.read(doc, "KBT") == 0 and SPAN.read(doc, "K B") == 3
    assert SPAN.read(doc, "B K T") == -1
    assert SPAN.read(doc, "the answer") is None and SPAN.read(doc, "K B 7") is None


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"min_length": 2}, "min_length"), ({"min_length": 0}, "min_length"), ({"max_length": 10}, "max_length"),
     ({"symbols": "letters", "max_length": 20}, "max_length"), ({"min_length": 6, "max_length": 5}, "min_length"),
     ({"symbols": "hex"}, "symbols"), ({"max_length": 7.0}, "max_length"), ({"length": 5}, "length")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        SPAN.make_params(overrides)


def test_longest_letter_lists_are_drawn():
    params = SPAN.make_params({"symbols": "letters", "min_length": 19, "max_length": 19})
    assert all(len(d["shown"].split(" ")) == 19 for d in SPAN.generate(0, 6, params))
