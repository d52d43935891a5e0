"""Counting Stroop: pinned cards, a key recounted from the prompt, the counterbalancing that removes
the blind shortcuts, hand-computed effects."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

PROBE = get_probe("counting_stroop")
# Written out again here (not imported) so that the recount is independent of the module.
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def read_card(prompt: str) -> tuple[list[tuple[str, list[str]]], str, list[str]]:
    """(label, words) per list, the asked label and the listed options, parsed from the prompt alone."""
    head, *lists, question = prompt.split("\n")
    assert head == "Word lists:"
    card = []
    for line in lists:
        label, listed = re.fullmatch(r'List ([A-Z]): "([a-z ]+)"', line).groups()
        card.append((label, listed.split(" ")))
    asked, options = re.fullmatch(r"How many words are in list ([A-Z])\? Options: ([0-9, ]+)\.", question).groups()
    return card, asked, options.split(", ")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: a congruent card ("one" x1 asked: key "1", option 0), an incongruent card
    # ("two" x1 asked: key "1" at 0, lure "2" one place after it) and a neutral card ("goat" x1).
    docs = PROBE.generate(0, 5)
    assert [d["prompt"] for d in docs[:3]] == [
        'Word lists:\nList A: "one"\nList B: "one"\nList C: "one"\nList D: "four four four four"\n'
        "How many words are in list A? Options: 1, 4, 3, 2.",
        'Word lists:\nList A: "two"\nList B: "one one one one"\nList C: "three three three three"\nList D: "one one"\n'
        "How many words are in list A? Options: 1, 2, 3, 4.",
        'Word lists:\nList A: "goat"\nList B: "dog dog dog"\nList C: "bird bird bird bird"\nList D: "sheep"\n'
        "How many words are in list A? Options: 1, 3, 4, 2.",
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs[:3]] == [
        ("congruent", 0, -1), ("incongruent", 0, 1), ("neutral", 0, -1)
    ]
    # Item 4 (incongruent, j = 1): list B asked, "four" x1: key "1" at option 1, lure "4" at 2.
    assert docs[4]["prompt"] == (
        'Word lists:\nList A: "four"\nList B: "four"\nList C: "one one one one"\nList D: "three"\n'
        "How many words are in list B? Options: 2, 1, 4, 3."
    )
    assert (docs[4]["gold"], docs[4]["lure"], docs[4]["count"], docs[4]["word_number"]) == (1, 2, 1, 4)


@pytest.mark.parametrize(("counts", "lists"), [(4, 4), (6, 3), (9, 6)])
def test_key_and_lure_recounted_from_the_prompt(counts, lists):
    # Recount the asked list's words and read every list's meaning from the surface string alone.
    for doc in PROBE.generate(11, 300, PROBE.make_params({"counts": counts, "lists": lists})):
        card, asked, options = read_card(doc["prompt"])
        assert options == doc["choices"] and len(card) == lists
        assert sorted(doc["choices"], key=int) == [str(k) for k in range(1, counts + 1)]
        kinds = set()
        for _, words in card:
            assert len(set(words)) == 1 and 1 <= len(words) <= counts  # one word repeated
            named = NUMBERS.get(words[0])
            kinds.add("neutral" if named is None else "congruent" if named == len(words) else "incongruent")
            if named is not None:
                assert named <= counts  # the word's number is an option
            else:  # neutral words are about as long as the number words
                assert 3 <= len(words[0]) <= 5
        assert kinds == {doc["condition"]}  # a card is homogeneous
        words = dict(card)[asked]
        assert doc["choices"][doc["gold"]] == str(len(words)) and doc["list"] == asked
        if doc["condition"] == "incongruent":
            assert doc["choices"][doc["lure"]] == str(NUMBERS[words[0]]) != str(len(words))
        else:
            assert doc["lure"] == -1


def test_no_digit_in_the_stem_names_an_option():
    for doc in PROBE.generate(4, 300):
        stem = doc["prompt"].split(" Options:")[0]
        assert not re.search(r"\d", stem)


def test_key_count_key_position_lure_position_and_asked_list_are_balanced_within_each_condition():
    # counts = lists = 4: key position x key count (a Latin square gives the asked list) repeat every
    # 16 items of a condition, the lure offset every 48; 576 items hold 4 full cycles.
    docs = PROBE.generate(6, 576)
    for condition in ("congruent", "incongruent", "neutral"):
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: 48 for k in range(4)}  # key position uniform
        assert Counter(d["count"] for d in cell) == {k: 48 for k in range(1, 5)}  # key's rank among the options
        assert Counter(d["list"] for d in cell) == {label: 48 for label in "ABCD"}  # first / middle / last list
        assert Counter((d["gold"], d["count"]) for d in cell) == {(g, c): 12 for g in range(4) for c in range(1, 5)}
        if condition == "incongruent":
            assert Counter((d["lure"] - d["gold"]) % 4 for d in cell) == {1: 64, 2: 64, 3: 64}


def test_1200_items_are_distinct_stimuli():
    docs = PROBE.generate(0, 1200)
    assert len({PROBE.identity(d) for d in docs}) == 1200
    assert len({d["prompt"].split(" Options:")[0] for d in docs}) == 1200  # new lists, not just new option orders


def _doc(condition, count, named, choices=("1", "2", "3", "4")):
    choices = list(choices)
    return {
        "probe": "counting_stroop", "index": 0, "seed": 1, "prompt": "p", "choices": choices,
        "gold": choices.index(str(count)), "condition": condition,
        "lure": choices.index(str(named)) if condition == "incongruent" else -1,
        "word": "w", "count": count, "word_number": named,
    }


def test_effects_on_hand_built_answers():
    answered = [
        (_doc("congruent", 2, 2), "2"), (_doc("congruent", 3, 3), "three"),  # both right
        (_doc("neutral", 1, 0), "1"), (_doc("neutral", 4, 0), "2"),  # 1 of 2 right
        (_doc("incongruent", 2, 3), "2"),  # right
        (_doc("incongruent", 1, 4), "four"),  # the word's number: a word error
        (_doc("incongruent", 3, 1), "5"),  # well formed, no option: wrong, not the word
        (_doc("incongruent", 2, 4), "2 or 4"),  # hedged: invalid, an error that is no word reading
    ]
    scores = aggregate(PROBE, [PROBE.score_gen(doc, answer) for doc, answer in answered])
    # acc: congruent 2/2 = 1, neutral 1/2, incongruent 1/4; all 4/8; 1 invalid of 8.
    assert scores["acc_congruent"] == 1.0 and scores["acc_neutral"] == 0.5 and scores["acc_incongruent"] == 0.25
    assert scores["acc"] == 0.5 and scores["invalid_rate"] == 0.125 and scores["acc_chance"] == 0.25
    assert scores["interference"] == pytest.approx(0.5 - 0.25)  # neutral - incongruent
    assert scores["facilitation"] == pytest.approx(1.0 - 0.5)  # congruent - neutral
    assert scores["congruency_effect"] == pytest.approx(1.0 - 0.25)  # congruent - incongruent
    assert scores["word_error_share"] == pytest.approx(1 / 3)  # 3 incongruent errors, 1 names the word


def test_mc_reports_the_lure_margin_of_incongruent_items():
    # choices 1..4, count 1 written as "four": gold index 0, lure index 3; log p 1: -2, 4: -0.5.
    scores = PROBE.score_mc(_doc("incongruent", 1, 4), [-2.0, -3.0, -4.0, -0.5])
    assert scores["acc"] == 0.0 and scores["lure_margin_incongruent"] == -1.5
    assert scores["word_error_share"] == (True, 1.0)


def test_a_word_reader_shows_full_interference_and_no_facilitation():
    for form in ("gen", "mc"):
        scores = play(PROBE, "prepotent", PROBE.generate(0, 300), form)
        assert scores["acc_congruent"] == scores["acc_neutral"] == 1.0 and scores["acc_incongruent"] == 0.0
        assert scores["interference"] == 1.0 and scores["congruency_effect"] == 1.0
        assert scores["facilitation"] == 0.0 and scores["word_error_share"] == 1.0


def test_random_player_shows_no_effect_beyond_noise():
    scores = play(PROBE, "random", PROBE.generate(0, 3000), "gen")
    se = math.sqrt(2 * 0.25 * 0.75 / 1000)
    assert abs(scores["interference"]) < 3.5 * se and abs(scores["congruency_effect"]) < 3.5 * se
    assert scores["word_error_share"] == pytest.approx(1 / 3, abs=0.06)  # 1 of the 3 wrong options


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("2", 1), ("two", 1), ("**Two.**", 1), ("`2`", 1), ("2 words", 1), ("Two words.", 1), ("02", 1),
        ("4", 3), ("5", -1), ("zero", -1), ("12", -1), ("twelve", -1),  # well-formed counts: 5, 0, 12 are wrong
        ("2 or 3", None), ("about 2", None), ("There are 2 words.", None), ("", None), ("II", None),
        ("2.5", None), ("2 and 2", None), ("9" * 5000, None),  # a 5000-digit run is no count (never raises)
    ],
)
def test_read_accepts_a_count_as_digits_or_a_word(answer, expected):
    assert PROBE.read(_doc("neutral", 2, 0), answer) == expected


@pytest.mark.parametrize(
    ("value", "name"),
    [({"counts": 1}, "counts"), ({"counts": 10}, "counts"), ({"counts": "4"}, "counts"),
     ({"lists": 1}, "lists"), ({"lists": 7}, "lists"), ({"lists": 4.0}, "lists")],
)
def test_bad_parameters_name_themselves(value, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        PROBE.make_params(value)


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="Unknown counting_stroop parameter 'count'"):
        PROBE.make_params({"count": 4})
