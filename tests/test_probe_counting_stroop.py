"""Counting Stroop: pinned items, a key recounted from the prompt, hand-computed effects."""

from __future__ import annotations

import math
import re

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

PROBE = get_probe("counting_stroop")
# Written out again here (not imported) so that the recount is independent of the module.
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: "three" x3 is congruent (3 words, the key "3" is option 0);
    # "four" x1 is incongruent (1 word: key "1" at index 1, lure "4" at index 0);
    # "mouse" x4 is neutral (4 words: key "4" at index 1).
    docs = PROBE.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        'How many words are in this list: "three three three"? Options: 3, 2, 1, 4.',
        'How many words are in this list: "four"? Options: 4, 1, 2, 3.',
        'How many words are in this list: "mouse mouse mouse mouse"? Options: 1, 4, 3, 2.',
    ]
    assert [d["choices"] for d in docs] == [["3", "2", "1", "4"], ["4", "1", "2", "3"], ["1", "4", "3", "2"]]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("congruent", 0, -1), ("incongruent", 1, 0), ("neutral", 1, -1)
    ]


@pytest.mark.parametrize("counts", [4, 6])
def test_key_and_lure_recounted_from_the_prompt(counts):
    # Recount the quoted list's words and read their meaning from the surface string alone.
    for doc in PROBE.generate(11, 300, PROBE.make_params({"counts": counts})):
        listed, options = re.fullmatch(r'How many words are in this list: "([a-z ]+)"\? Options: ([0-9, ]+)\.', doc["prompt"]).groups()
        words = listed.split(" ")
        assert options.split(", ") == doc["choices"]
        assert sorted(doc["choices"], key=int) == [str(k) for k in range(1, counts + 1)]
        assert len(set(words)) == 1 and 1 <= len(words) <= counts
        assert doc["choices"][doc["gold"]] == str(len(words))
        named = NUMBERS.get(words[0])
        expected = "neutral" if named is None else "congruent" if named == len(words) else "incongruent"
        assert doc["condition"] == expected
        if expected == "incongruent":
            assert doc["choices"][doc["lure"]] == str(named)
        else:
            assert doc["lure"] == -1
        if expected == "neutral":  # neutral words are about as long as the number words
            assert 3 <= len(words[0]) <= 5


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
        ("4", 3), ("5", -1), ("zero", -1), ("12", -1),  # well-formed counts: 5, 0, 12 are wrong
        ("2 or 3", None), ("about 2", None), ("There are 2 words.", None), ("", None), ("II", None),
        ("twelve", None), ("2.5", None), ("2 and 2", None),
    ],
)
def test_read_accepts_a_count_as_digits_or_a_word(answer, expected):
    assert PROBE.read(_doc("neutral", 2, 0), answer) == expected


@pytest.mark.parametrize(("value", "name"), [({"counts": 1}, "counts"), ({"counts": 10}, "counts"), ({"counts": "4"}, "counts")])
def test_bad_parameters_name_themselves(value, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        PROBE.make_params(value)


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="Unknown counting_stroop parameter 'count'"):
        PROBE.make_params({"count": 4})
