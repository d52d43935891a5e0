"""Letter flanker: pinned cards, a key re-derived from the asked row, the counterbalancing that removes
the blind shortcuts, effects by hand, the row reader at chance on the headline, the declared heuristic."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from probe_strategies import accuracy_by_condition

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
    # Checked by hand: a congruent card, then incongruent ones (row r flanked by row r + 1's target,
    # the shift drawn per item), row 1 asked with the key at options 0, 1, 2; then row 2 asked; then a
    # neutral card (every row flanked by X, outside the response set).
    docs = FLANKER.generate(0, 8)
    assert [d["prompt"] for d in docs[:3]] == [
        "Rows of letters:\nRow 1: P P P P P\nRow 2: J J J J J\nRow 3: N N N N N\n"
        "What is the middle letter of row 1? Options: P, N, J.",
        "Rows of letters:\nRow 1: J J X J J\nRow 2: X X Z X X\nRow 3: Z Z J Z Z\n"
        "What is the middle letter of row 1? Options: X, J, Z.",
        "Rows of letters:\nRow 1: B B D B B\nRow 2: G G B G G\nRow 3: D D G D D\n"
        "What is the middle letter of row 1? Options: B, D, G.",
    ]
    assert docs[5]["prompt"] == (
        "Rows of letters:\nRow 1: X X G X X\nRow 2: X X N X X\nRow 3: X X J X X\n"
        "What is the middle letter of row 1? Options: G, J, N."
    )
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs[:6]] == [
        ("congruent", 0, -1), ("incongruent", 0, 1), ("incongruent", 1, 0), ("incongruent", 2, 0),
        ("incongruent", 0, 1), ("neutral", 0, -1),
    ]
    # Item 4 (the fourth incongruent, j = 3): row 2 asked, its target S at option 0, the lure L (row 2's
    # flanker, row 3's target) one place after it.
    assert docs[4]["prompt"] == (
        "Rows of letters:\nRow 1: S S K S S\nRow 2: L L S L L\nRow 3: K K L K K\n"
        "What is the middle letter of row 2? Options: S, L, K."
    )
    assert (docs[4]["target"], docs[4]["flanker"]) == ("S", "L")


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


def test_key_position_and_asked_row_are_balanced_and_the_alphabetical_rank_and_lure_are_tied_to_neither():
    # 3 options: key position x asked row repeat every 9 items of a condition; 1080 items hold 180
    # congruent, 720 incongruent and 180 neutral cards (20, 80 and 20 full cycles).
    docs = FLANKER.generate(8, 1080)
    for condition, n in (("congruent", 60), ("incongruent", 240), ("neutral", 60)):
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: n for k in range(3)}
        assert Counter(d["row_number"] for d in cell) == {k: n for k in range(1, 4)}
        # Drawn per item (version 2 tied them by a Latin square, which a classifier learned): every
        # (key position, asked row) cell holds several alphabetical ranks, and each rank about a third.
        ranks = Counter(sorted(d["choices"]).index(d["target"]) for d in cell)
        assert all(abs(ranks[r] - n) < 4 * math.sqrt(n) for r in range(3))
        by_cell = {}
        for d in cell:
            by_cell.setdefault((d["gold"], d["row_number"]), set()).add(sorted(d["choices"]).index(d["target"]))
        assert all(len(r) >= 2 for r in by_cell.values())
    incong = [d for d in docs if d["condition"] == "incongruent"]
    offsets = Counter((d["lure"] - d["gold"]) % 3 for d in incong)
    assert abs(offsets[1] - 360) < 4 * math.sqrt(180)
    # The lure's offset says nothing of the shift (which row flanks which): both cross.
    shifts = {((d["lure"] - d["gold"]) % 3, _shift(d)) for d in incong}
    assert shifts == {(1, 1), (1, 2), (2, 1), (2, 2)}


def _shift(doc: dict) -> int:
    """The shift s of an incongruent card, read off it: row 1 is flanked by the target of row 1 + s."""
    rows, _, _ = read_card(doc["prompt"])
    return [row[len(row) // 2] for row in rows].index(rows[0][0])


def test_1200_items_are_distinct_stimuli():
    docs = FLANKER.generate(0, 1200)
    assert len({FLANKER.identity(d) for d in docs}) == 1200
    assert len({d["prompt"].split(" Options:")[0] for d in docs}) == 1200


def test_conditions_cycle_in_blocks_of_twice_the_response_set_so_a_limit_keeps_a_reader_at_chance():
    conditions = [d["condition"] for d in FLANKER.generate(2, 7)]
    assert conditions == ["congruent"] + ["incongruent"] * 4 + ["neutral", "congruent"]
    four = Counter(d["condition"] for d in FLANKER.generate(2, 16, FLANKER.make_params({"options": 4})))
    assert four == {"congruent": 2, "incongruent": 12, "neutral": 2}


def test_effects_on_hand_built_answers():
    docs = FLANKER.generate(0, 18)  # conditions: c, i, i, i, i, n (x 3)
    cong, incong, neut = ([d for d in docs if d["condition"] == c][:3] for c in ("congruent", "incongruent", "neutral"))
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
    doc = FLANKER.generate(0, 2)[1]  # row 1 J J X J J, options X, J, Z
    assert FLANKER.score_gen(doc, "X or J")["flanker_error_share"] == (True, 0.0)
    assert FLANKER.score_gen(doc, "J")["flanker_error_share"] == (True, 1.0)
    assert FLANKER.score_gen(doc, "**x**")["flanker_error_share"] == (False, 0.0)


@pytest.mark.parametrize(("answer", "expected"), [("J", 1), ("j.", 1), ("**J**", 1), ("'J'", 1), ("Z", 2), ("X", 0)])
def test_read_accepts_one_option_with_decoration(answer, expected):
    assert FLANKER.read(FLANKER.generate(0, 2)[1], answer) == expected


@pytest.mark.parametrize("answer", ["", "J or Z", "the middle letter is J", "J Z", "Q", "3"])
def test_read_rejects_hedged_empty_or_foreign_answers(answer):
    assert FLANKER.read(FLANKER.generate(0, 2)[1], answer) is None


def test_a_row_reader_shows_the_full_flanker_effect_and_scores_chance_on_the_headline():
    # The prepotent player reads the asked row: its flankers where they are an option, else its letter.
    for form in ("gen", "mc"):
        scores = play(FLANKER, "prepotent", FLANKER.generate(0, 300), form)
        assert scores["acc_congruent"] == scores["acc_neutral"] == 1.0 and scores["acc_incongruent"] == 0.0
        assert scores["flanker_effect"] == scores["interference"] == scores["flanker_error_share"] == 1.0
        assert scores["acc"] == pytest.approx(1 / 3)  # 50 congruent + 50 neutral of 300: chance


# -- declared heuristics and issue 28's strategy ------------------------------------------------------


def _row_or_majority(stem: str, options) -> list[float] | None:
    """Issue 28's strategy, as its table writes it: an option on the target row, the majority (the
    flankers) where it is one."""
    asked = re.search(r"middle letter of row (\d+)\?", stem).group(1)
    row = re.search(rf"^Row {asked}: (.*)$", stem, re.MULTILINE).group(1).split()
    majority = Counter(row).most_common(1)[0][0]
    pick = {majority} if majority in options else set(row)
    return [float(o in pick) for o in options]


def test_flanker_reading_picks_the_majority_of_the_asked_row_on_hand_built_cards():
    (heuristic,) = FLANKER.heuristics
    assert heuristic.name == "flanker_reading" and "Eriksen & Eriksen 1974" in heuristic.citation
    card = ("Rows of letters:\nRow 1: K K S K K\nRow 2: S S H S S\nRow 3: H H K H H\n"
            "What is the middle letter of row {}?")
    assert heuristic.scores(card.format(2), ["K", "H", "S"]) == [0.0, 0.0, 1.0]  # the flanker S, not the key H
    assert heuristic.scores(card.format(3), ["K", "H", "S"]) == [0.0, 1.0, 0.0]
    congruent = "Rows of letters:\nRow 1: K K K K K\nRow 2: S S S S S\nWhat is the middle letter of row 1?"
    assert heuristic.scores(congruent, ["S", "K"]) == [0.0, 1.0]  # right by design on a congruent card
    neutral = "Rows of letters:\nRow 1: X X K X X\nRow 2: X X S X X\nWhat is the middle letter of row 2?"
    assert heuristic.scores(neutral, ["S", "K"]) is None  # X is no option: a guess
    assert heuristic.scores("What is this?", ["S", "K"]) is None


@pytest.mark.parametrize("strategy", ["flanker_reading", "row_or_majority"])
def test_reading_the_row_is_at_chance_on_the_headline_at_a_fresh_seed(strategy):
    played = FLANKER.heuristics[0] if strategy == "flanker_reading" else _row_or_majority
    acc = accuracy_by_condition("flanker", played, 21, 600)
    assert acc["all"] <= 1 / 3 + 0.05, acc
    assert acc["incongruent"] <= 1 / 3  # where reading and the task disagree it is wrong or a guess


def test_random_player_shows_no_effect_beyond_noise():
    scores = play(FLANKER, "random", FLANKER.generate(0, 3000), "gen")
    se = math.sqrt((1 / 3) * (2 / 3) * (1 / 500 + 1 / 2000))  # 500 congruent and neutral, 2000 incongruent
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
