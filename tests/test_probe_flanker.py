"""Letter flanker: pinned items, a key re-derived from the row, effects by hand, the majority reader."""

from __future__ import annotations

import math
import re

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

FLANKER = get_probe("flanker")
ROW = re.compile(r"^What is the middle letter of: ([A-Z](?: [A-Z])*)\? Options: ([A-Z](?:, [A-Z])*)\.$")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: the middle of each row, its flankers, the options and the key.
    docs = FLANKER.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        "What is the middle letter of: P P P P P? Options: N, P, J.",
        "What is the middle letter of: Z Z X Z Z? Options: Z, X, J.",
        "What is the middle letter of: F F D F F? Options: B, G, D.",
    ]
    assert [d["choices"] for d in docs] == [["N", "P", "J"], ["Z", "X", "J"], ["B", "G", "D"]]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("congruent", 1, -1), ("incongruent", 1, 0), ("neutral", 2, -1)
    ]


@pytest.mark.parametrize("params", [{}, {"flankers": 1, "options": 4}, {"flankers": 5, "options": 6}])
def test_the_key_is_the_middle_of_the_printed_row(params):
    # Independent of the generator: parse the prompt, take the middle letter, classify the flankers.
    p = FLANKER.make_params(params)
    for doc in FLANKER.generate(11, 300, p):
        row, options = ROW.match(doc["prompt"]).groups()
        letters, options = row.split(" "), options.split(", ")
        assert options == doc["choices"] and len(options) == p.options
        assert len(letters) == 2 * p.flankers + 1
        middle = letters[p.flankers]
        outer = set(letters[: p.flankers] + letters[p.flankers + 1:])
        assert len(outer) == 1  # one flanker letter, on both sides
        (flank,) = outer
        assert doc["choices"][doc["gold"]] == middle
        if flank == middle:
            expected, lure = "congruent", -1
        elif flank in options:
            expected, lure = "incongruent", options.index(flank)
        else:
            expected, lure = "neutral", -1
        assert (doc["condition"], doc["lure"]) == (expected, lure)


def test_conditions_cycle_so_a_limit_keeps_them_balanced():
    assert [d["condition"] for d in FLANKER.generate(2, 7)] == ["congruent", "incongruent", "neutral"] * 2 + ["congruent"]


def test_effects_on_hand_built_answers():
    docs = FLANKER.generate(0, 9)  # conditions: c, i, n, c, i, n, c, i, n
    cong, incong, neut = docs[0::3], docs[1::3], docs[2::3]
    other = next(c for k, c in enumerate(incong[1]["choices"]) if k not in (incong[1]["gold"], incong[1]["lure"]))
    answers = [
        (cong[0], cong[0]["target"]), (cong[1], cong[1]["target"]), (cong[2], cong[2]["choices"][cong[2]["gold"] - 1]),
        (incong[0], incong[0]["target"]),            # right
        (incong[1], other),                          # wrong, not the flanker
        (incong[2], incong[2]["flanker"]),           # wrong: the flanker
        (neut[0], neut[0]["target"]), (neut[1], neut[1]["target"].lower()), (neut[2], "maybe " + neut[2]["target"]),
    ]
    rows = [FLANKER.score_gen(d, a) for d, a in answers]
    scores = aggregate(FLANKER, rows)
    # acc: congruent 2/3, incongruent 1/3, neutral 2/3 (the hedged answer is invalid, hence wrong).
    assert scores["acc_congruent"] == pytest.approx(2 / 3) and scores["acc_incongruent"] == pytest.approx(1 / 3)
    assert scores["acc_neutral"] == pytest.approx(2 / 3) and scores["invalid_rate"] == pytest.approx(1 / 9)
    # flanker_effect = 2/3 - 1/3 = 1/3; interference = 2/3 - 1/3 = 1/3.
    assert scores["flanker_effect"] == pytest.approx(1 / 3) and scores["interference"] == pytest.approx(1 / 3)
    # Incongruent errors: "other" and the flanker -> 1 of 2 names the flanker.
    assert scores["flanker_error_share"] == pytest.approx(1 / 2)


def test_an_invalid_incongruent_answer_is_an_error_that_names_no_flanker():
    doc = FLANKER.generate(0, 2)[1]  # Z Z X Z Z, options Z, X, J
    assert FLANKER.score_gen(doc, "X or Z")["flanker_error_share"] == (True, 0.0)
    assert FLANKER.score_gen(doc, "Z")["flanker_error_share"] == (True, 1.0)
    assert FLANKER.score_gen(doc, "**x**")["flanker_error_share"] == (False, 0.0)


@pytest.mark.parametrize(("answer", "expected"), [("X", 1), ("x.", 1), ("**X**", 1), ("'X'", 1), ("Z", 0), ("J", 2)])
def test_read_accepts_one_option_with_decoration(answer, expected):
    assert FLANKER.read(FLANKER.generate(0, 2)[1], answer) == expected


@pytest.mark.parametrize("answer", ["", "X or Z", "the middle letter is X", "X Z", "Q", "3"])
def test_read_rejects_hedged_empty_or_foreign_answers(answer):
    assert FLANKER.read(FLANKER.generate(0, 2)[1], answer) is None


def test_a_majority_reader_shows_the_full_flanker_effect():
    for form in ("gen", "mc"):
        scores = play(FLANKER, "prepotent", FLANKER.generate(0, 300), form)
        assert scores["acc_congruent"] == scores["acc_neutral"] == 1.0 and scores["acc_incongruent"] == 0.0
        assert scores["flanker_effect"] == scores["interference"] == scores["flanker_error_share"] == 1.0
        assert scores["acc"] == pytest.approx(2 / 3)


def test_random_player_shows_no_effect_beyond_noise():
    scores = play(FLANKER, "random", FLANKER.generate(0, 3000), "gen")
    se = math.sqrt(2 * (1 / 3) * (2 / 3) / 1000)
    assert abs(scores["flanker_effect"]) < 3.5 * se and abs(scores["interference"]) < 3.5 * se
    # A random error names the flanker in 1 of the 2 wrong options.
    assert scores["flanker_error_share"] == pytest.approx(1 / 2, abs=0.06)


@pytest.mark.parametrize(
    ("params", "name"),
    [({"flankers": 0}, "flankers"), ({"flankers": 9}, "flankers"), ({"flankers": 2.0}, "flankers"),
     ({"options": 2}, "options"), ({"options": 7}, "options"), ({"options": True}, "options")],
)
def test_bad_parameters_name_themselves(params, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        FLANKER.make_params(params)


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="Unknown flanker parameter 'flanker'.*Did you mean: flankers"):
        FLANKER.make_params({"flanker": 2})
