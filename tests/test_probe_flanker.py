"""Letter flanker: pinned cards, a key re-derived from the asked row, the counterbalancing that removes
the blind shortcuts, effects by hand, the majority reader."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

FLANKER = get_probe("flanker")
ROW = re.compile(r"^Row (\d+): ([A-Z](?: [A-Z])*)$")
QUESTION = re.compile(r"^What is the middle letter of row (\d+)\? Options: ([A-Z](?:, [A-Z])*)\.$")


def read_card(prompt: str) -> tuple[list[list[str]], int, list[str]]:
    """The letters of each row, the asked row's number and the listed options, parsed from the prompt alone."""
    head, *lines, question = prompt.split("\n")
    assert head == "Rows of letters:"
    rows = []
    for number, line in enumerate(lines, 1):
        n, letters = ROW.match(line).groups()
        assert int(n) == number
        rows.append(letters.split(" "))
    asked, options = QUESTION.match(question).groups()
    return rows, int(asked), options.split(", ")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: a congruent, an incongruent (row r flanked by row r + 1's target) and a
    # neutral card (all rows flanked by F, outside the response set), row 1 asked, key first.
    docs = FLANKER.generate(0, 14)
    assert [d["prompt"] for d in docs[:3]] == [
        "Rows of letters:\nRow 1: J J J J J\nRow 2: P P P P P\nRow 3: N N N N N\n"
        "What is the middle letter of row 1? Options: J, P, N.",
        "Rows of letters:\nRow 1: Z Z J Z Z\nRow 2: X X Z X X\nRow 3: J J X J J\n"
        "What is the middle letter of row 1? Options: J, Z, X.",
        "Rows of letters:\nRow 1: F F B F F\nRow 2: F F G F F\nRow 3: F F D F F\n"
        "What is the middle letter of row 1? Options: B, G, D.",
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs[:3]] == [
        ("congruent", 0, -1), ("incongruent", 0, 1), ("neutral", 0, -1)
    ]
    # Item 13 (incongruent, j = 4): row 2 asked, its target Z last in alphabetical order (B, C, Z),
    # the key at option 1 and the lure B (row 2's flanker) one place after it.
    assert docs[13]["prompt"] == (
        "Rows of letters:\nRow 1: Z Z C Z Z\nRow 2: B B Z B B\nRow 3: C C B C C\n"
        "What is the middle letter of row 2? Options: C, Z, B."
    )
    assert (docs[13]["gold"], docs[13]["lure"], docs[13]["target"], docs[13]["flanker"]) == (1, 2, "Z", "B")


@pytest.mark.parametrize("params", [{}, {"flankers": 1, "options": 4}, {"flankers": 5, "options": 6}])
def test_the_key_is_the_middle_of_the_asked_row(params):
    # Independent of the generator: parse the card, take the asked row's middle letter, classify the flankers.
    p = FLANKER.make_params(params)
    for doc in FLANKER.generate(11, 300, p):
        rows, asked, options = read_card(doc["prompt"])
        assert options == doc["choices"] and len(rows) == p.options == len(options)
        middles = [row[p.flankers] for row in rows]
        assert sorted(middles) == sorted(options)  # each option is the target of one row
        kinds = set()
        for row, middle in zip(rows, middles):
            assert len(row) == 2 * p.flankers + 1
            (flank,) = set(row[: p.flankers] + row[p.flankers + 1:])  # one flanker letter, on both sides
            kinds.add("congruent" if flank == middle else "incongruent" if flank in options else "neutral")
        assert kinds == {doc["condition"]}  # a card is homogeneous
        row = rows[asked - 1]
        middle, flank = row[p.flankers], row[0]
        assert doc["choices"][doc["gold"]] == middle and (doc["target"], doc["flanker"]) == (middle, flank)
        # The key is unique under the other readings: any other row's middle is another option.
        assert middles.count(middle) == 1
        assert doc["lure"] == (options.index(flank) if doc["condition"] == "incongruent" else -1)


def test_no_option_is_the_unique_or_the_majority_letter_of_the_card():
    # "The letter that occurs once" or "the most frequent letter" names no option: on every card
    # the options occur equally often (each a row's target, and on an incongruent card a row's flankers).
    for doc in FLANKER.generate(3, 300):
        rows, _, options = read_card(doc["prompt"])
        counts = Counter(letter for row in rows for letter in row)
        expected = 1 if doc["condition"] == "neutral" else 5
        assert {counts[o] for o in options} == {expected}


def test_asked_row_key_position_alphabetical_rank_and_lure_position_are_balanced_within_each_condition():
    # 3 options: key position x asked row (a Latin square gives the alphabetical rank) repeat every
    # 9 items of a condition, the lure offset every 18; 540 items hold 10 full cycles.
    docs = FLANKER.generate(8, 540)
    for condition in ("congruent", "incongruent", "neutral"):
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: 60 for k in range(3)}
        assert Counter(d["row_number"] for d in cell) == {k: 60 for k in range(1, 4)}
        assert Counter(sorted(d["choices"]).index(d["target"]) for d in cell) == {k: 60 for k in range(3)}
        if condition == "incongruent":
            assert Counter((d["lure"] - d["gold"]) % 3 for d in cell) == {1: 90, 2: 90}


def test_1200_items_are_distinct_stimuli():
    docs = FLANKER.generate(0, 1200)
    assert len({FLANKER.identity(d) for d in docs}) == 1200
    assert len({d["prompt"].split(" Options:")[0] for d in docs}) == 1200


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
    doc = FLANKER.generate(0, 2)[1]  # row 1 Z Z J Z Z, options J, Z, X
    assert FLANKER.score_gen(doc, "J or Z")["flanker_error_share"] == (True, 0.0)
    assert FLANKER.score_gen(doc, "Z")["flanker_error_share"] == (True, 1.0)
    assert FLANKER.score_gen(doc, "**j**")["flanker_error_share"] == (False, 0.0)


@pytest.mark.parametrize(("answer", "expected"), [("J", 0), ("j.", 0), ("**J**", 0), ("'J'", 0), ("Z", 1), ("X", 2)])
def test_read_accepts_one_option_with_decoration(answer, expected):
    assert FLANKER.read(FLANKER.generate(0, 2)[1], answer) == expected


@pytest.mark.parametrize("answer", ["", "J or Z", "the middle letter is J", "J Z", "Q", "3"])
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
