"""Digit / letter span: pinned items, keys re-derived from the prompt, span scores by hand."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from lm_eval_cog.probes.span import span_score
from probe_strategies import accuracy_by_condition

SPAN = get_probe("span")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. Item 0: 0 9 5 forward = 0 9 5, in a mirror set (5 9 0, and 9 5 0 its
    # transposition). Item 1: 9 1 8 backward = 8 1 9; its copy 9 1 8 is offered (the lure), and 8 9 1
    # transposes the key's last two. Item 2: 7 5 9 sorted = 5 7 9 (lure 7 5 9; 5 9 7 transposes the key's
    # last two). Item 5: 9 5 2 8 sorted = 2 5 8 9 (lure 9 5 2 8; 2 5 9 8 transposes the key's 8 and 9).
    docs = SPAN.generate(0, 6)
    assert [d["prompt"] for d in docs[:3]] == [
        "Here is a list of 3 digits: 0, 9, 5\nRepeat the digits in the same order. Write only the digits, separated by spaces.",
        (
            "Here is a list of 3 digits: 9, 1, 8\nRepeat the digits in reverse order, from the last digit to the first. "
            "Write only the digits, separated by spaces."
        ),
        (
            "Here is a list of 3 digits: 7, 5, 9\nRepeat the digits in ascending order, from the smallest to the largest. "
            "Write only the digits, separated by spaces."
        ),
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["0 9 5", "5 9 0", "9 5 0"], 0, "forward", -1),
        (["8 1 9", "8 9 1", "9 1 8"], 0, "backward", 2),
        (["5 7 9", "7 5 9", "5 9 7"], 0, "sorted", 1),
        (["4 7 1 6", "7 4 6 1", "4 7 6 1"], 1, "forward", -1),
        (["6 0 8 1", "6 0 1 8", "0 6 1 8"], 1, "backward", -1),
        (["2 5 9 8", "2 5 8 9", "9 5 2 8"], 1, "sorted", 2),
    ]


def _shown(doc):
    return re.search(r"list of \d+ \w+: ([0-9A-Z, ]+)\n", doc["prompt"]).group(1).split(", ")


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
        copy = " ".join(shown)
        offered = copy in doc["choices"] and condition != "forward"
        assert doc["lure"] == (doc["choices"].index(copy) if offered else -1)
        # Every option is an order of the list's own symbols, and the three differ.
        assert all(sorted(c.split(" ")) == sorted(shown) for c in doc["choices"]) and len(set(doc["choices"])) == 3
    # Every (condition, length) pair equally often: 300 / (3 x 7) or 300 / (3 x 8) +- 1.
    lengths = range(params.min_length, params.max_length + 1)
    counts = [sum(d["condition"] == c and d["length"] == n for d in docs) for c in SPAN.conditions for n in lengths]
    assert max(counts) - min(counts) <= 1


def test_sorted_items_offer_the_copy_and_one_plausible_sorting_error():
    for doc in (d for d in SPAN.generate(5, 900) if d["condition"] == "sorted"):
        shown = _shown(doc)
        key = sorted(shown)
        assert shown not in (key, key[::-1])  # never monotone: the copy and the descending order are foils
        assert doc["choices"][doc["lure"]] == " ".join(shown)
        other = next(c.split(" ") for k, c in enumerate(doc["choices"]) if k not in (doc["gold"], doc["lure"]))
        one_swap = lambda a, b: sum(x != y for x, y in zip(a, b)) == 2 and sorted(a) == sorted(b)  # noqa: E731
        assert other == key[::-1] or one_swap(other, key) or one_swap(other, shown)


def test_key_position_is_uniform_within_each_condition():
    docs = SPAN.generate(0, 900)
    for condition in SPAN.conditions:
        positions = Counter(d["gold"] for d in docs if d["condition"] == condition)
        assert positions == {0: 100, 1: 100, 2: 100}


def test_option_set_kinds_and_key_roles_cycle_within_forward_and_backward():
    # 100 items per condition: 5 cycles of 20 sets (35 chains, 35 stars, 20 mirror sets, 10 with the
    # ascending order); in a mirror set the copy is offered (backward) two times in three.
    docs = SPAN.generate(3, 300)
    for condition in ("forward", "backward"):
        mine = [d for d in docs if d["condition"] == condition]
        mirrored = [d for d in mine if any(" ".join(c.split(" ")[::-1]) in d["choices"] for c in d["choices"])]
        assert len(mirrored) == 30
        with_copy = [d for d in mirrored if " ".join(_shown(d)) in d["choices"] and d["condition"] == "backward"]
        assert condition == "forward" or len(with_copy) == 20


def test_each_condition_is_its_own_audit_cell():
    assert [SPAN.audit_cell(c) for c in SPAN.conditions] == list(SPAN.conditions)


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
    # The prepotent player repeats the list where the copy is offered: every sorted item, the backward
    # items whose option set holds the key's mirror image (20 of 100: 6 mirror sets in 20, 2 of 3 with the key
    # in the pair); the key elsewhere.
    docs = SPAN.generate(0, 300)
    scores = play(SPAN, "prepotent", docs, "gen")
    lured = sum(d["condition"] == "backward" and d["lure"] != -1 for d in docs)
    assert lured == 20 and scores["acc_backward"] == pytest.approx(1 - lured / 100)
    assert scores["acc_forward"] == 1.0 and scores["acc_sorted"] == 0.0
    assert scores["sorted_cost"] == 1.0 and scores["backward_cost"] == pytest.approx(lured / 100)
    assert scores["order_error_share"] == 1.0
    assert scores["span_forward"] == 9.0 and scores["span_sorted"] == 2.0


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


def test_order_errors_count_only_where_the_copy_is_offered():
    offered, not_offered = _doc("backward"), {**_doc("backward"), "lure": -1}
    scores = aggregate(SPAN, [SPAN.score_gen(offered, "4 1 2"), SPAN.score_gen(not_offered, "1 2 4")])
    assert scores["order_error_share"] == 1.0  # the second error had no copy to give


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in SPAN.heuristics}
BACKWARD = ("Here is a list of 4 digits: 3, 8, 1, 5\nRepeat the digits in reverse order, from the last digit to the "
            "first. Write only the digits, separated by spaces.\nAnswer:")


def test_repetition_picks_the_list_as_presented():
    assert HEURISTICS["repetition"].scores(BACKWARD, ["5 1 8 3", "3 8 1 5", "1 3 5 8"]) == [0.0, 1.0, 0.0]
    assert HEURISTICS["repetition"].scores(BACKWARD, ["5 1 8 3", "5 8 1 3", "1 3 5 8"]) is None
    assert HEURISTICS["repetition"].conditions == ("backward", "sorted")


def test_declared_heuristics_are_at_or_below_chance_in_their_conditions():
    for heuristic in SPAN.heuristics:
        accuracy = accuracy_by_condition("span", heuristic, 11, 1200)
        assert max(accuracy[c] for c in heuristic.conditions) <= 1 / 3 + 0.05, (heuristic.name, accuracy)


def _list(stem):
    return re.search(r"list of \d+ \w+: ([^\n]+)\n", stem).group(1).split(", ")


def _rule_out_the_copy_and_the_ascending_order(stem, options):
    """Issue 28: 1.00 on version 2's backward items (the options were always copy, reversed, sorted)."""
    shown = _list(stem)
    return [float(o.split(" ") not in (shown, sorted(shown))) for o in options]


def _ascending(stem, options):
    return [float(o.split(" ") == sorted(o.split(" "))) for o in options]


def _descending(stem, options):
    return [float(o.split(" ") == sorted(o.split(" "), reverse=True)) for o in options]


def _in_a_mirror_pair(stem, options):
    """An option whose reverse is offered too (version 2's backward key and its copy always were)."""
    return [float(" ".join(o.split(" ")[::-1]) in options) for o in options]


def _out_of_a_mirror_pair(stem, options):
    return [1.0 - s for s in _in_a_mirror_pair(stem, options)]


def _central(stem, options):
    """The option fewest symbols away from the others (a key with one-edit foils is central)."""
    def apart(a, b):
        return sum(x != y for x, y in zip(a.split(" "), b.split(" ")))
    return [-sum(apart(o, p) for p in options) for o in options]


def test_issue_28_row_rule_out_the_copy_and_the_ascending_order_is_at_chance_on_backward_items():
    # The copy is a backward foil only where the option set holds the key's mirror image (~20%):
    # ruling it out gains ~0.03; ruling out the ascending order gains nothing (it is the key a third
    # of the times it is offered).
    accuracy = accuracy_by_condition("span", _rule_out_the_copy_and_the_ascending_order, 11, 1200)
    assert accuracy["backward"] <= 1 / 3 + 0.05, accuracy


@pytest.mark.parametrize("rule", [_ascending, _descending, _in_a_mirror_pair, _out_of_a_mirror_pair, _central])
def test_no_rule_over_the_option_texts_finds_the_forward_or_backward_key(rule):
    # The option set is drawn before its key: each of its orders is the key a third of the time.
    accuracy = accuracy_by_condition("span", rule, 11, 1200)
    assert max(accuracy["forward"], accuracy["backward"]) <= 1 / 3 + 0.05, accuracy


def test_the_sorted_key_is_the_one_ascending_option():
    # Not removable in the MC form: among orders of the same symbols one is ascending; ascending foils
    # would have to change the symbols, which the stem tells apart. Pinned, so that a change shows.
    assert accuracy_by_condition("span", _ascending, 11, 600)["sorted"] == 1.0


def test_question_stems_are_distinct_within_a_seed_and_rarely_shared_between_seeds():
    one, two = SPAN.generate(1, 300), SPAN.generate(2, 300)
    assert len({d["prompt"] for d in one}) == 300
    shared = {(d["prompt"], tuple(d["choices"]), d["gold"]) for d in one} & {
        (d["prompt"], tuple(d["choices"]), d["gold"]) for d in two}
    assert len(shared) < 3
