"""Digit / letter span: pinned items, keys re-derived from the prompt, span scores by hand."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from scipy.stats import chisquare

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from lm_eval_cog.probes.span import ORDINALS, sorted_length, span_score
from probe_strategies import accuracy_by_condition

SPAN = get_probe("span")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. Item 0: 0 9 5 forward = 0 9 5, in a mirror set (5 9 0, and 9 5 0 its
    # transposition). Item 1: 9 1 8 backward = 8 1 9; its copy 9 1 8 is offered (the lure), and 8 9 1
    # transposes the key's last two. Item 2: 7 6 3 2 5 sorted = 2 3 5 6 7, the third is 5 (the smallest
    # option; the copy, 3 at place 3 of the list, is not offered). Item 5: 3 7 1 2 5 sorted = 1 2 3 5 7,
    # the third is 3 (the smallest option: value rank 0 for the first 3 sorted items, then 1). Item 11:
    # 5 1 3 6 9 4 sorted = 1 3 4 5 6 9, the third is 4 (the middle option); the copy 3 (place 3 as shown)
    # is offered (the lure).
    docs = SPAN.generate(0, 12)
    assert [d["prompt"] for d in docs[:3]] == [
        "Here is a list of 3 digits: 0, 9, 5\nRepeat the digits in the same order. Write only the digits, separated by spaces.",
        (
            "Here is a list of 3 digits: 9, 1, 8\nRepeat the digits in reverse order, from the last digit to the first. "
            "Write only the digits, separated by spaces."
        ),
        (
            "Here is a list of 5 digits: 7, 6, 3, 2, 5\nPut the digits in ascending order, from the smallest to the "
            "largest. Which digit is then in the third position? Write only the digit."
        ),
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs[:6]] == [
        (["0 9 5", "5 9 0", "9 5 0"], 0, "forward", -1),
        (["8 9 1", "9 1 8", "8 1 9"], 2, "backward", 1),
        (["6", "5", "7"], 1, "sorted", -1),
        (["4 7 1 6", "4 7 6 1", "7 4 6 1"], 2, "forward", -1),
        (["6 0 1 8", "6 0 8 1", "0 6 1 8"], 0, "backward", -1),
        (["7", "5", "3"], 2, "sorted", -1),
    ]
    assert (docs[11]["shown"], docs[11]["choices"], docs[11]["gold"], docs[11]["lure"]) == (
        "5 1 3 6 9 4", ["3", "5", "4"], 2, 0)


def _shown(doc):
    return re.search(r"list of \d+ \w+: ([0-9A-Z, ]+)\n", doc["prompt"]).group(1).split(", ")


def _place(doc):
    """The asked place of a sorted item, 1-based, read off the prompt's ordinal word."""
    return ORDINALS.index(re.search(r"in the (\w+) position\?", doc["prompt"]).group(1)) + 1


@pytest.mark.parametrize("overrides", [{}, {"symbols": "letters", "min_length": 5, "max_length": 12}])
def test_keys_re_derived_from_the_prompt(overrides):
    params = SPAN.make_params(overrides)
    docs = SPAN.generate(2, 300, params)
    for doc in docs:
        shown = _shown(doc)
        text = doc["prompt"]
        if "same order" in text:
            key, condition, copy = shown, "forward", " ".join(shown)
        elif "reverse order" in text:
            key, condition, copy = shown[::-1], "backward", " ".join(shown)
        else:
            key, condition, copy = [sorted(shown)[_place(doc) - 1]], "sorted", shown[_place(doc) - 1]
        assert condition == doc["condition"] and len(set(shown)) == len(shown) == doc["length"]
        assert doc["choices"][doc["gold"]].split(" ") == key and len(set(doc["choices"])) == 3
        offered = copy in doc["choices"] and condition != "forward"
        assert doc["lure"] == (doc["choices"].index(copy) if offered else -1)
        if condition == "sorted":
            # Three symbols of the list; the asked place is an inner one.
            assert all(c in shown for c in doc["choices"]) and 3 <= _place(doc) <= len(shown) - 2
        else:
            # Every option is an order of the list's own symbols.
            assert all(sorted(c.split(" ")) == sorted(shown) for c in doc["choices"])
    # Every (condition, length) pair equally often: 300 / (3 x 7) or 300 / (3 x 8) +- 1 (sorted lengths
    # clamped to 5 .. number of symbols - 2).
    lengths = range(params.min_length, params.max_length + 1)
    counts = Counter((d["condition"], d["length"] if d["condition"] != "sorted" else n) for d, n in
                     zip(docs, [lengths[(i // 3) % len(lengths)] for i in range(300)]))
    assert max(counts.values()) - min(counts.values()) <= 1 and len(counts) == 3 * len(lengths)
    clamped = {n: sorted_length(n, params.symbols) for n in lengths}
    assert all(d["length"] == clamped[lengths[(i // 3) % len(lengths)]] for i, d in enumerate(docs) if d["condition"] == "sorted")


def test_sorted_lengths_are_clamped_to_leave_two_symbols_each_side_of_an_inner_place():
    assert [sorted_length(n, "digits") for n in range(3, 11)] == [5, 5, 5, 6, 7, 8, 8, 8]
    assert sorted_length(3, "letters") == 5 and sorted_length(20, "letters") == 18


def test_sorted_items_offer_the_copy_in_a_fifth_of_the_items_and_symbols_of_the_list_otherwise():
    docs = [d for d in SPAN.generate(5, 2400) if d["condition"] == "sorted"]
    offered = [d for d in docs if d["lure"] != -1]
    assert 0.17 <= len(offered) / len(docs) <= 0.23, len(offered) / len(docs)
    for doc in docs:
        shown, k = _shown(doc), _place(doc)
        assert shown[k - 1] != doc["choices"][doc["gold"]]  # the key is never where the copy stands
        assert (shown[k - 1] in doc["choices"]) == (doc["lure"] != -1)


def _roles(doc):
    """(role, value rank among the options, order of mention among the options) of each option."""
    shown, choices = _shown(doc), doc["choices"]
    mention = sorted(choices, key=shown.index)
    role = {doc["gold"]: "key", doc["lure"]: "copy"}
    return [(role.get(j, "other"), sorted(choices).index(c), mention.index(c)) for j, c in enumerate(choices)]


def test_sorted_key_value_rank_cycles_evenly_and_is_independent_of_the_asked_place():
    # The key's value rank among the options: 0, 1, 2 in turn (9 items per cycle: 300 sorted items of 900
    # hold 33 or 34 of each); and at each inner place k, each rank a third of the time (k drawn after it).
    docs = [d for d in SPAN.generate(6, 2700) if d["condition"] == "sorted"]
    ranks = Counter(next(r for role, r, _ in _roles(d) if role == "key") for d in docs)
    assert ranks == {0: 300, 1: 300, 2: 300}
    by_place = Counter((_place(d), next(r for role, r, _ in _roles(d) if role == "key")) for d in docs)
    for k in {k for k, _ in by_place}:
        n = sum(by_place[(k, r)] for r in range(3))
        assert all(abs(by_place[(k, r)] / n - 1 / 3) < 0.1 for r in range(3)), (k, by_place)


def test_sorted_roles_are_alike_in_value_rank_and_order_of_mention():
    # Each (value rank, mention rank) cell holds each role's options equally often (within sampling noise,
    # 900 items): no surface cue of the options' ranks or places tells the key, the copy or the third.
    docs = [d for d in SPAN.generate(7, 2700) if d["condition"] == "sorted"]
    cells = Counter((role, v, m) for d in docs for role, v, m in _roles(d))
    for role in ("key", "other"):
        total = sum(cells[(role, v, m)] for v in range(3) for m in range(3))
        assert all(abs(cells[(role, v, m)] / total - 1 / 9) < 0.035 for v in range(3) for m in range(3)), (role, cells)


def test_key_position_is_uniform_within_each_condition():
    # Drawn per item since version 3.2 (cycled by index with the length and the option set's kind, it
    # could be read off them): a guess's spread.
    docs = SPAN.generate(0, 900)
    for condition in SPAN.conditions:
        positions = Counter(d["gold"] for d in docs if d["condition"] == condition)
        assert set(positions) == {0, 1, 2} and chisquare(list(positions.values())).pvalue > 1e-3, positions


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
    key = {"forward": seq, "backward": seq[::-1]}[condition]
    order = seq[::-1] if condition == "forward" else seq
    choices = [" ".join(key), " ".join(order), "9 9 9", " ".join(key[:-1])]
    return {"choices": choices, "gold": 0, "condition": condition, "lure": -1 if condition == "forward" else 1,
            "length": len(seq), "symbols": "digits"}


def _sorted_doc(shown="6 3 7 0 4", choices=("7", "6", "4"), lure=0):
    """Sorted, third place: 0 3 4 6 7 -> 4 (gold 2); the copy, 7 at place 3 as shown, is choice 0."""
    return {"choices": list(choices), "gold": 2, "condition": "sorted", "lure": lure,
            "length": len(shown.split(" ")), "symbols": "digits", "shown": shown, "place": 3}


def test_metrics_on_hand_scored_answers():
    f3, f4 = _doc("forward"), _doc("forward", "4 1 2 7")
    b3, s5 = _doc("backward"), _sorted_doc()
    answers = [
        (f3, "4 1 2"), (f3, "4,1,2"), (f3, "4 2 1"),  # forward length 3: 2/3 right
        (f4, "4127"), (f4, "4 1 2"), (f4, "no idea"),  # forward length 4: 1/3 right (one invalid)
        (b3, "4 1 2"), (b3, "2 4 1"),  # backward length 3: 0/2 (an order error, a wrong -1 answer)
        (s5, "4"), (s5, "**4**"), (s5, "7"), (s5, "3"),  # sorted length 5: 2/4 (the copy 7, a wrong 3)
        (s5, "0 3 4 6 7"),  # the whole sorted list: invalid (one symbol asked)
    ]
    scores = aggregate(SPAN, [SPAN.score_gen(doc, text) for doc, text in answers])
    assert scores["acc_forward"] == 0.5 and scores["acc_backward"] == 0.0 and scores["acc_sorted"] == 0.4
    assert scores["invalid_rate"] == pytest.approx(2 / 13)
    assert scores["span_forward"] == 3.0  # 3 passes (2/3), 4 fails (1/3)
    assert scores["span_backward"] == 2.0  # 3 fails
    assert scores["span_sorted"] == 4.0  # its only length, 5, fails (2/5 < 2/3)
    assert scores["backward_cost"] == 0.5  # 3/6 - 0/2
    assert scores["sorted_cost"] == pytest.approx(0.1)  # 3/6 - 2/5
    # backward/sorted errors where the order foil is offered: "4 1 2" (order), "2 4 1", "7" (order), "3",
    # and the invalid whole list (an error, not an order error): 2 of 5.
    assert scores["order_error_share"] == pytest.approx(0.4)


def test_repeating_as_presented_shows_the_reordering_costs():
    # The prepotent player repeats the list where the copy is offered: the backward items whose option set
    # holds the key's mirror image (20 of 100: 6 mirror sets in 20, 2 of 3 with the key in the pair), the
    # sorted items that offer the symbol at the asked place as shown (~20%); the key elsewhere.
    docs = SPAN.generate(0, 300)
    scores = play(SPAN, "prepotent", docs, "gen")
    lured = sum(d["condition"] == "backward" and d["lure"] != -1 for d in docs)
    copied = sum(d["condition"] == "sorted" and d["lure"] != -1 for d in docs)
    assert lured == 20 and scores["acc_backward"] == pytest.approx(1 - lured / 100)
    assert copied == 19 and scores["acc_sorted"] == pytest.approx(1 - copied / 100)
    assert scores["acc_forward"] == 1.0
    assert scores["sorted_cost"] == pytest.approx(copied / 100) and scores["backward_cost"] == pytest.approx(lured / 100)
    assert scores["order_error_share"] == 1.0
    assert scores["span_forward"] == 9.0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("2 1 4", 0), ("2,1,4", 0), ("2, 1, 4", 0), ("214", 0), ("**2 1 4**", 0), ("[2, 1, 4]", 0), ("2 1 4.", 0),
     ("4 1 2", 1), ("2 1", 3), ("2 1 4 7", -1), ("1 2 4", -1), ("2 1 4 or 4 1 2", None), ("two one four", None),
     ("", None), ("2-1-4", 0), ("2 - 1 - 4", 0), ("2,,1,4", None), ("2--1-4", None), ("2 1 B", None)],
)
def test_read_digit_sequences_strictly(answer, expected):
    assert SPAN.read(_doc("backward"), answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("4", 2), ("4.", 2), ("**4**", 2), (" 7 ", 0), ("3", -1), ("0 3 4 6 7", None), ("4 6", None), ("46", None),
     ("four", None), ("", None), ("4 or 6", None), ("B", None)],
)
def test_read_one_symbol_on_sorted_items(answer, expected):
    assert SPAN.read(_sorted_doc(), answer) == expected


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
        lengths = [len(d["shown"].split(" ")) for d in docs]
        assert all(len(set(d["choices"])) == 3 for d in docs)
        # Sorted lists keep two symbols of the set out (sorted_length): the options' symbols are drawn
        # among those that can be the smallest, middle or largest option at the asked place.
        assert lengths == [most if d["condition"] != "sorted" else most - 2 for d in docs]


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
    assert HEURISTICS["repetition"].conditions == ("backward",)


SORTED = ("Here is a list of 5 digits: 6, 3, 7, 0, 4\nPut the digits in ascending order, from the smallest to the "
          "largest. Which digit is then in the third position? Write only the digit.\nAnswer:")


def test_copy_position_picks_the_symbol_at_the_asked_place_of_the_list_as_shown():
    # Third place as shown: 7 (the key, the third smallest, is 4).
    copy = HEURISTICS["copy_position"]
    assert copy.scores(SORTED, ["7", "6", "4"]) == [1.0, 0.0, 0.0]
    assert copy.scores(SORTED, ["3", "6", "4"]) is None  # the copy is no option
    assert copy.scores(SORTED.replace("third", "fifth"), ["0", "4", "6"]) == [0.0, 1.0, 0.0]  # fifth as shown: 4
    assert copy.scores(SORTED.replace("third", "sixth"), ["4", "0", "6"]) is None  # no sixth place in 5
    assert copy.scores(BACKWARD, ["5 1 8 3", "3 8 1 5", "1 3 5 8"]) is None  # no place asked
    assert copy.conditions == ("sorted",)


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


def _place_in_options(stem, options):
    """The option whose rank among the options matches the asked place's share of the list (the k-th
    smallest of a list is, among three of its symbols, likely the smallest when k is small): 0.82 on
    sorted items whose k could be 1 or the length (measured while redesigning, version 3.1)."""
    if "position?" not in stem:
        return None
    n = int(re.search(r"list of (\d+)", stem).group(1))
    k = ORDINALS.index(re.search(r"in the (\w+) position\?", stem).group(1)) + 1
    ranks = sorted(options)
    return [float(ranks.index(o) == round((k - 1) / (n - 1) * 2)) for o in options]


def _not_the_copy(stem, options):
    """Rule out the symbol at the asked place of the list as shown (offered in ~20% of the items)."""
    return [1.0 - s for s in (HEURISTICS["copy_position"].scores(stem, options) or [0.0] * len(options))]


@pytest.mark.parametrize("rule", [_ascending, _place_in_options, _not_the_copy, _central])
def test_no_cheap_rule_finds_the_sorted_key(rule):
    # Issue 28: "pick the ascending option" was 1.00 on version 3.0's sorted items (three orders of the list).
    accuracy = accuracy_by_condition("span", rule, 11, 1800)
    assert accuracy["sorted"] <= 1 / 3 + 0.05, accuracy
