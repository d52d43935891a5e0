"""Digit / letter span: pinned items, keys re-derived from the prompt, span scores by hand."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from lm_eval_cog.probes.span import span_score

SPAN = get_probe("span")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 2 7 3 forward; 9 1 8 backward = 8 1 9 (lure 9 1 8, as presented);
    # 5 9 7 sorted = 5 7 9 (lure 5 9 7). Options: the list as presented, reversed and sorted.
    docs = SPAN.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        "Here is a list of 3 digits: 2 7 3\nRepeat the digits in the same order. Write only the digits, separated by spaces.",
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
        (["2 7 3", "2 3 7", "3 7 2"], 0, "forward", -1),
        (["8 1 9", "1 8 9", "9 1 8"], 0, "backward", 2),
        (["5 7 9", "5 9 7", "7 9 5"], 0, "sorted", 1),
    ]


def _shown(doc):
    return re.search(r"list of \d+ \w+: ([0-9A-Z ]+)\n", doc["prompt"]).group(1).split(" ")


@pytest.mark.parametrize("overrides", [{}, {"symbols": "letters", "min_length": 5, "max_length": 12}])
def test_keys_re_derived_from_the_prompt(overrides):
    params = SPAN.make_params(overrides)
    docs = SPAN.generate(2, 300, params)
    for doc in docs:
        shown = _shown(doc)
        text = doc["prompt"]
        if "same order" in text:
            key, condition = shown, "forward"
        elif "reverse order" in text:
            key, condition = shown[::-1], "backward"
        else:
            key, condition = sorted(shown), "sorted"
        assert condition == doc["condition"] and len(set(shown)) == len(shown) == doc["length"]
        assert doc["choices"][doc["gold"]].split(" ") == key
        order_foil = shown[::-1] if condition == "forward" else shown
        assert doc["lure"] == (-1 if condition == "forward" else doc["choices"].index(" ".join(shown)))
        assert " ".join(order_foil) in doc["choices"]
    # Every (condition, length) pair equally often: 300 / (3 x 7) or 300 / (3 x 8) +- 1.
    lengths = range(params.min_length, params.max_length + 1)
    counts = [sum(d["condition"] == c and d["length"] == n for d in docs) for c in SPAN.conditions for n in lengths]
    assert max(counts) - min(counts) <= 1


def test_every_condition_offers_the_same_three_orders_of_a_never_monotone_list():
    # The options never tell the condition (only the instruction does), and no option is a
    # one-edit variant of the key: the three orders of the list, all different.
    for doc in SPAN.generate(5, 600):
        shown = _shown(doc)
        assert shown not in (sorted(shown), sorted(shown, reverse=True))
        expected = {" ".join(shown), " ".join(shown[::-1]), " ".join(sorted(shown))}
        assert set(doc["choices"]) == expected and len(doc["choices"]) == 3
        orders = {"presented": shown, "reversed": shown[::-1], "sorted": sorted(shown)}
        assert [" ".join(orders[k]) for k in doc["option_orders"]] == doc["choices"]


def test_key_position_is_uniform_within_each_condition():
    docs = SPAN.generate(0, 900)
    for condition in SPAN.conditions:
        positions = Counter(d["gold"] for d in docs if d["condition"] == condition)
        assert positions == {0: 100, 1: 100, 2: 100}


def test_the_pooled_audit_cell_has_each_order_as_the_key_in_a_third_of_the_items():
    # Each condition fixes which order is the key; pooled, no order is favoured, and the list is
    # drawn the same way in every condition (same lengths, never monotone).
    assert {SPAN.audit_cell(c) for c in SPAN.conditions} == {"pooled"}
    docs = SPAN.generate(0, 900)
    assert Counter(d["option_orders"][d["gold"]] for d in docs) == {"presented": 300, "reversed": 300, "sorted": 300}
    by_condition = {c: Counter(d["length"] for d in docs if d["condition"] == c) for c in SPAN.conditions}
    assert by_condition["forward"] == by_condition["backward"] == by_condition["sorted"]


def test_twelve_hundred_items_are_distinct():
    docs = SPAN.generate(0, 1200)
    assert len({SPAN.identity(d) for d in docs}) == 1200


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
     ("", None), ("2-1-4", 0), ("2 - 1 - 4", 0), ("2,,1,4", None), ("2--1-4", None), ("2 1 B", None)],
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
    [({"min_length": 2}, "min_length"), ({"min_length": 0}, "min_length"), ({"max_length": 11}, "max_length"),
     ({"symbols": "letters", "max_length": 21}, "max_length"), ({"min_length": 6, "max_length": 5}, "min_length"),
     ({"symbols": "hex"}, "symbols"), ({"max_length": 7.0}, "max_length"), ({"length": 5}, "length")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        SPAN.make_params(overrides)


def test_longest_lists_are_drawn():
    # Every symbol of the set, never monotone: the three orders differ.
    for symbols, most in (("letters", 20), ("digits", 10)):
        params = SPAN.make_params({"symbols": symbols, "min_length": most, "max_length": most})
        docs = SPAN.generate(0, 6, params)
        assert all(len(set(d["choices"])) == 3 and len(d["shown"].split(" ")) == most for d in docs)
