"""Trail-making analogue: pinned items, the next element recomputed from the sequence, balanced
options, switching cost."""

from __future__ import annotations

import itertools
import math
import re
import string
from collections import Counter

import pytest

from probe_strategies import accuracy_by_condition

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

TRAIL = get_probe("trail_making")
RULE = (
    "Each sequence counts one step at a time, up or down: through numbers only (1 2 3 ... or 3 2 1 ...), through "
    "letters only (A B C ... or C B A ...), or alternating between a number and a letter, the numbers and the "
    "letters each counting on their own in the same direction (1 A 2 B ... or 3 C 2 B ...).\n"
)
SEQUENCE = re.compile(r"^Sequence: (.*) \?$", re.MULTILINE)


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 104..113 -> 114 (103 counts the wrong way from the start; O, D: the ends of a
    # letter series E..N, as long, not shown); 938 T 939 U 940 V ends on a letter -> the number 941;
    # the letter series would go on with W (the lure), S before its start, 937 before the numbers'
    # start; 690 U .. Y 695 ends on a number -> the letter Z (T before the letters' start; 696 the
    # lure, 689).
    docs = TRAIL.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        RULE + "Sequence: 104 105 106 107 108 109 110 111 112 113 ?\nWhich element comes next? Options: 114, 103, O, D.",
        RULE + "Sequence: 938 T 939 U 940 V ?\nWhich element comes next? Options: 941, S, 937, W.",
        RULE + "Sequence: 690 U 691 V 692 W 693 X 694 Y 695 ?\nWhich element comes next? Options: Z, T, 696, 689.",
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["114", "103", "O", "D"], 0, "part_a", -1),
        (["941", "S", "937", "W"], 0, "part_b", 3),
        (["Z", "T", "696", "689"], 0, "part_b", 2),
    ]


def _value(token: str) -> tuple[str, int]:
    return ("number", int(token)) if token.isdigit() else ("letter", string.ascii_uppercase.index(token) + 1)


def _text(kind: str, value: int) -> str:
    return str(value) if kind == "number" else string.ascii_uppercase[value - 1]


def _solve(doc: dict) -> tuple[str, str, int, dict]:
    """(key, the single-series continuation, step, the series by kind) from the shown sequence alone."""
    seq = [_value(t) for t in SEQUENCE.search(doc["prompt"]).group(1).split()]
    series = {kind: [v for k, v in seq if k == kind] for kind in ("number", "letter")}
    kinds = [k for k, _ in seq]
    shown_series = [values for values in series.values() if values]
    steps = {b - a for values in shown_series for a, b in itertools.pairwise(values)}
    assert len(steps) == 1 and steps <= {1, -1}  # every series counts by one, all in one direction
    (step,) = steps
    if len(set(kinds)) == 1:
        next_kind = kinds[-1]
    else:
        assert kinds[0] == "number" and all(a != b for a, b in itertools.pairwise(kinds))
        assert min(len(v) for v in series.values()) >= 2
        next_kind = "letter" if kinds[-1] == "number" else "number"
    key = _text(next_kind, series[next_kind][-1] + step)
    single = _text(kinds[-1], series[kinds[-1]][-1] + step)
    return key, single, step, series


@pytest.mark.parametrize("params", [{}, {"min_length": 4, "max_length": 16}])
def test_next_element_recomputed_from_the_shown_sequence(params):
    for doc in TRAIL.generate(3, 400, TRAIL.make_params(params)):
        key, single, step, _ = _solve(doc)
        assert doc["choices"][doc["gold"]] == key and doc["step"] == step
        assert _value(key)[0] == doc["answer_kind"]
        assert doc["lure"] == (doc["choices"].index(single) if doc["condition"] == "part_b" else -1)
        assert len(doc["choices"]) == 4
        assert params.get("min_length", 6) <= len(doc["sequence"].split()) <= params.get("max_length", 12)


def test_options_are_the_two_unshown_neighbours_of_a_series_of_each_kind():
    # The key's kind: the key and the element before the series' first (counting the wrong way); the
    # other kind likewise (part B: the single-series continuation and the element before that series'
    # first; part A: a series as long, not shown). No option is shown, none is named by the examples.
    for doc in TRAIL.generate(4, 600):
        key, single, step, series = _solve(doc)
        shown = doc["sequence"].split()
        options = [_value(c) for c in doc["choices"]]
        assert not set(doc["choices"]) & set(shown)
        assert not set(doc["choices"]) & {"1", "2", "3", "A", "B", "C"}
        kind, value = _value(key)
        by_kind = {k: sorted(v for kk, v in options if kk == k) for k in ("number", "letter")}
        assert [len(v) for v in by_kind.values()] == [2, 2]
        assert by_kind[kind] == sorted([value, series[kind][0] - step])
        other = "letter" if kind == "number" else "number"
        assert by_kind[other][1] - by_kind[other][0] == len(series[other] or series[kind]) + 1
        if doc["condition"] == "part_b":
            assert by_kind[other] == sorted([_value(single)[1], series[other][0] - step])
        assert all(len(c) == 3 for c in doc["choices"] if c.isdigit())


def test_key_position_value_rank_kind_and_direction_are_uniform_within_each_part():
    docs = TRAIL.generate(0, 1024)  # 256 part-A and 768 part-B items
    for part, n in (("part_a", 64), ("part_b", 192)):
        cell = [d for d in docs if d["condition"] == part]
        positions = Counter(d["gold"] for d in cell)
        ranks = Counter(sorted(d["choices"], key=_value).index(d["choices"][d["gold"]]) for d in cell)
        assert positions == ranks == {0: n, 1: n, 2: n, 3: n}
        assert Counter(d["answer_kind"] for d in cell) == {"number": 2 * n, "letter": 2 * n}
        assert Counter(d["step"] for d in cell) == {1: 2 * n, -1: 2 * n}


def test_where_the_options_lie_tells_nothing_of_the_direction():
    # Version 2's foil was the element two steps on, and a long letter series fits in D..Z only near
    # its end: the place of the key's pair in its range told the direction, hence the key, in 74% of
    # part-A letter items (a surface classifier found it). Now each pair is the two ends of a range
    # drawn apart from the direction: "counting up if the pair lies above the middle" is at chance.
    docs = [d for seed in (21, 22) for d in TRAIL.generate(seed, 800)]  # a seed holds ~1,400 distinct questions
    for part in TRAIL.conditions:
        for kind, middle in (("number", 54.5), ("letter", 15.0)):
            cell = [d for d in docs if (d["condition"], d["answer_kind"]) == (part, kind)]
            values = [sum(_value(c)[1] for c in d["choices"] if _value(c)[0] == kind) / 2 for d in cell]
            right = sum((v > middle) == (d["step"] == 1) for v, d in zip(values, cell) if v != middle)
            assert abs(right / len(cell) - 0.5) < 0.05, (part, kind, right / len(cell))


def test_parts_and_answer_kinds_are_balanced_by_index():
    docs = TRAIL.generate(0, 8)
    assert [(d["condition"], d["answer_kind"], d["step"]) for d in docs] == [
        ("part_a", "number", 1), ("part_b", "number", 1), ("part_b", "letter", 1), ("part_b", "number", -1),
        ("part_a", "letter", 1), ("part_b", "letter", -1), ("part_b", "number", 1), ("part_b", "letter", 1),
    ]


def test_twelve_hundred_items_are_distinct():
    docs = TRAIL.generate(0, 1200)
    assert len({TRAIL.identity(d) for d in docs}) == 1200
    # Distinct sequences too (the letter runs of part A are the scarcest): most items show their own.
    assert len({d["sequence"] for d in docs}) > 900


def _doc(condition, gold=0, lure=-1):
    return {"choices": ["5", "E", "6", "4"], "gold": gold, "lure": lure, "condition": condition}


def test_effects_on_hand_built_answers():
    rows = [
        (_doc("part_a"), 0), (_doc("part_a"), 2), (_doc("part_a"), 0),  # A: right, wrong, right
        (_doc("part_b", lure=1), 0),  # right
        (_doc("part_b", lure=1), 1),  # the single-series continuation
        (_doc("part_b", lure=1), -1),  # another element
        (_doc("part_b", lure=1), None),  # invalid
    ]
    scores = aggregate(TRAIL, [TRAIL.score(doc, pred) for doc, pred in rows])
    # acc A = 2/3, acc B = 1/4 -> 5/12; B errors: lure, other, invalid -> 1/3 lures.
    assert scores["switching_cost"] == pytest.approx(2 / 3 - 1 / 4)
    assert scores["lure_share"] == pytest.approx(1 / 3)


def test_a_single_series_player_fails_every_part_b_item_and_scores_chance_on_the_headline():
    scores = play(TRAIL, "prepotent", TRAIL.generate(0, 300), "gen")
    assert scores["acc_part_a"] == 1.0 and scores["acc_part_b"] == 0.0
    assert scores["switching_cost"] == 1.0 and scores["lure_share"] == 1.0
    assert scores["acc"] == 0.25  # 75 part-A items of 300 (version 2: half, 0.50 against a chance of 0.25)


def test_single_series_continues_the_series_the_sequence_ended_on():
    (heuristic,) = TRAIL.heuristics
    assert heuristic.name == "single_series" and "Reitan 1958" in heuristic.citation
    assert heuristic.conditions == ("part_b",)  # in part A it is the task
    assert heuristic.scores("Sequence: 13 K 14 L 15 M 16 ?", ["17", "N", "O", "12"]) == [1.0, 0.0, 0.0, 0.0]
    assert heuristic.scores("Sequence: 41 W 40 V 39 U ?", ["38", "T", "42", "X"]) == [0.0, 1.0, 0.0, 0.0]
    assert heuristic.scores("Sequence: 14 15 16 ?", ["17", "18", "D", "E"]) == [1.0, 0.0, 0.0, 0.0]
    assert heuristic.scores("Sequence: 14 ?", ["15", "D"]) is None  # one element: no series to continue
    acc = accuracy_by_condition("trail_making", heuristic, 21, 400)
    assert acc == {"part_a": 1.0, "part_b": 0.0, "all": 0.25}


def test_random_player_shows_no_switching_cost():
    scores = play(TRAIL, "random", [d for seed in (0, 1, 2) for d in TRAIL.generate(seed, 1000)], "gen")
    assert abs(scores["switching_cost"]) < 3.5 * math.sqrt(0.25 * 0.75 * (1 / 750 + 1 / 2250))
    assert scores["lure_share"] == pytest.approx(1 / 3, abs=0.05)


@pytest.mark.parametrize(("answer", "expected"), [("5.", 0), ("e", 1), ("**E**", 1), ("'6'", 2), (" 4 ", 3)])
def test_decorated_choices_are_read(answer, expected):
    assert TRAIL.read(_doc("part_b"), answer) == expected


@pytest.mark.parametrize("answer", ["Z", "42", "7", "b"])
def test_another_single_element_is_wrong_not_invalid(answer):
    assert TRAIL.read(_doc("part_b"), answer) == -1


@pytest.mark.parametrize("answer", ["5 or E", "5 E", "", "the next is 5", "E5", "five", "5, 6"])
def test_hedged_or_unreadable_answers_are_invalid(answer):
    assert TRAIL.read(_doc("part_b"), answer) is None


@pytest.mark.parametrize(
    ("overrides", "name"),
    [({"min_length": 3}, "min_length"), ({"max_length": 17}, "max_length"), ({"min_length": 8, "max_length": 8}, "max_length"),
     ({"length": 8}, "length"), ({"max_length": 9.0}, "max_length")],
)
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        TRAIL.make_params(overrides)
