"""Trail-making analogue: pinned items, the next element recomputed from the sequence, switching cost."""

from __future__ import annotations

import itertools
import math
import re
import string

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

TRAIL = get_probe("trail_making")
RULE = (
    "Each sequence counts up one step at a time: through numbers only (1 2 3 ...), through letters only "
    "(A B C ...), or alternating between a number and a letter, the numbers and the letters each counting up "
    "on their own (1 A 2 B ...).\n"
)


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 1..10 -> 11 (K is the 11th letter, 12 skips, 10 repeats); 9 H 10 I 11 J
    # ends on a letter -> the number 12, the letter series would go on with K (the lure);
    # I..T -> U (21 is U's position, V skips, T repeats).
    docs = TRAIL.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        RULE + "Sequence: 1 2 3 4 5 6 7 8 9 10 ?\nWhich element comes next? Options: 11, K, 12, 10.",
        RULE + "Sequence: 9 H 10 I 11 J ?\nWhich element comes next? Options: 11, 13, 12, K.",
        RULE + "Sequence: I J K L M N O P Q R S T ?\nWhich element comes next? Options: U, 21, V, T.",
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["11", "K", "12", "10"], 0, "part_a", -1),
        (["11", "13", "12", "K"], 2, "part_b", 3),
        (["U", "21", "V", "T"], 0, "part_a", -1),
    ]


def _value(token: str) -> tuple[str, int]:
    return ("number", int(token)) if token.isdigit() else ("letter", string.ascii_uppercase.index(token) + 1)


def _text(kind: str, value: int) -> str:
    return str(value) if kind == "number" else string.ascii_uppercase[value - 1]


@pytest.mark.parametrize("params", [{}, {"min_length": 4, "max_length": 16}])
def test_next_element_recomputed_from_the_shown_sequence(params):
    for doc in TRAIL.generate(3, 400, TRAIL.make_params(params)):
        tokens = re.search(r"^Sequence: (.*) \?$", doc["prompt"], re.MULTILINE).group(1).split()
        seq = [_value(t) for t in tokens]
        series = {kind: [v for k, v in seq if k == kind] for kind in ("number", "letter")}
        for values in series.values():  # each series counts up by one
            assert all(b == a + 1 for a, b in itertools.pairwise(values))
        kinds = [k for k, _ in seq]
        if doc["condition"] == "part_a":
            assert len(set(kinds)) == 1
            next_kind = kinds[-1]
        else:
            assert kinds[0] == "number" and all(a != b for a, b in itertools.pairwise(kinds))
            assert min(len(v) for v in series.values()) >= 2
            next_kind = "letter" if kinds[-1] == "number" else "number"
        key = _text(next_kind, series[next_kind][-1] + 1)
        assert doc["choices"][doc["gold"]] == key and next_kind == doc["answer_kind"]
        if doc["condition"] == "part_b":
            assert doc["choices"][doc["lure"]] == _text(kinds[-1], series[kinds[-1]][-1] + 1)
        else:
            assert doc["lure"] == -1
        assert len(doc["choices"]) == 4 and params.get("min_length", 6) <= len(tokens) <= params.get("max_length", 12)


def test_parts_and_answer_kinds_are_balanced_by_index():
    docs = TRAIL.generate(0, 8)
    assert [(d["condition"], d["answer_kind"]) for d in docs] == [
        ("part_a", "number"), ("part_b", "number"), ("part_a", "letter"), ("part_b", "letter")
    ] * 2


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


def test_a_single_series_player_fails_every_part_b_item():
    scores = play(TRAIL, "prepotent", TRAIL.generate(0, 300), "gen")
    assert scores["acc_part_a"] == 1.0 and scores["acc_part_b"] == 0.0
    assert scores["switching_cost"] == 1.0 and scores["lure_share"] == 1.0


def test_random_player_shows_no_switching_cost():
    scores = play(TRAIL, "random", TRAIL.generate(0, 3000), "gen")
    assert abs(scores["switching_cost"]) < 3.5 * math.sqrt(2 * 0.25 * 0.75 / 1500)
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
