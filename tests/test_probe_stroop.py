"""Text Stroop: pinned items, conditions, and the word reader's effects."""

from __future__ import annotations

import math

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import play

STROOP = get_probe("stroop")


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: the word, the ink, the options and the key of each condition.
    docs = STROOP.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        'The word "ORANGE" is printed in orange ink. What colour is the ink? Options: orange, red, brown, pink.',
        'The word "GREEN" is printed in yellow ink. What colour is the ink? Options: green, pink, red, yellow.',
        'The word "TABLE" is printed in pink ink. What colour is the ink? Options: green, pink, red, purple.',
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("congruent", 0, -1), ("incongruent", 3, 0), ("neutral", 1, -1)
    ]


def test_every_item_keys_the_ink_and_lures_with_the_word():
    for doc in STROOP.generate(3, 90, STROOP.make_params({"colours": 6})):
        assert doc["choices"][doc["gold"]] == doc["ink"] and len(doc["choices"]) == 6
        word = doc["word"].lower()
        if doc["condition"] == "congruent":
            assert word == doc["ink"]
        elif doc["condition"] == "incongruent":
            assert word != doc["ink"] and doc["choices"][doc["lure"]] == word
        else:
            assert word not in doc["choices"]


def test_a_word_reader_shows_full_interference_and_no_facilitation():
    scores = play(STROOP, "prepotent", STROOP.generate(0, 300), "gen")
    assert scores["acc_congruent"] == scores["acc_neutral"] == 1.0 and scores["acc_incongruent"] == 0.0
    assert scores["interference"] == 1.0 and scores["congruency_effect"] == 1.0
    assert scores["facilitation"] == 0.0 and scores["word_error_share"] == 1.0


def test_random_player_shows_no_effect_beyond_noise():
    scores = play(STROOP, "random", STROOP.generate(0, 3000), "gen")
    se = math.sqrt(2 * 0.25 * 0.75 / 1000)
    assert abs(scores["interference"]) < 3.5 * se and abs(scores["congruency_effect"]) < 3.5 * se
    # A random error names the word in 1 of the 3 wrong options.
    assert scores["word_error_share"] == pytest.approx(1 / 3, abs=0.06)


@pytest.mark.parametrize("colours", [1, 9, "4"])
def test_bad_palette_size_names_the_parameter(colours):
    with pytest.raises(ValueError, match="'colours'"):
        STROOP.make_params({"colours": colours})
