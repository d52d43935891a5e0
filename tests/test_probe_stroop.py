"""Text Stroop: pinned cards, keys read off the card, the counterbalancing that removes the
blind shortcuts, and the word reader's effects."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import play

STROOP = get_probe("stroop")
# Written out again here (not imported) so that the checks are independent of the module.
COLOURS = {"red", "blue", "green", "yellow", "purple", "orange", "brown", "pink"}
WORD_FIRST = re.compile(r'^Word (\d+) reads "([A-Z]+)" and is printed in ([a-z]+) ink\.$')
INK_FIRST = re.compile(r'^Word (\d+) is printed in ([a-z]+) ink and reads "([A-Z]+)"\.$')
QUESTION = re.compile(r"^What colour is the ink of word (\d+)\? Options: ([a-z, ]+)\.$")


def read_card(prompt: str) -> tuple[list[tuple[str, str]], int, list[str], str]:
    """(word, ink) per card entry, the asked word's number, the listed options and the phrasing,
    parsed from the prompt alone."""
    head, *entries, question = prompt.split("\n")
    assert head == f"A card shows {len(entries)} words, each printed in coloured ink."
    card, phrasings = [], set()
    for number, line in enumerate(entries, 1):
        if match := WORD_FIRST.match(line):
            n, word, ink = match.groups()
            phrasings.add("word_first")
        else:
            n, ink, word = INK_FIRST.match(line).groups()
            phrasings.add("ink_first")
        assert int(n) == number
        card.append((word, ink))
    assert len(phrasings) == 1  # one phrasing per card
    asked, options = QUESTION.match(question).groups()
    return card, int(asked), options.split(", "), phrasings.pop()


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: a congruent, an incongruent (each word names the next word's ink) and a
    # neutral card, word 1 asked; the key is word 1's ink, first among the options; the lure of
    # the incongruent item is its word, YELLOW, one place after the key.
    docs = STROOP.generate(0, 3)
    head = "A card shows 4 words, each printed in coloured ink.\n"
    assert [d["prompt"] for d in docs] == [
        head + 'Word 1 reads "BROWN" and is printed in brown ink.\nWord 2 reads "ORANGE" and is printed in orange ink.\n'
        'Word 3 reads "RED" and is printed in red ink.\nWord 4 reads "PINK" and is printed in pink ink.\n'
        "What colour is the ink of word 1? Options: brown, red, pink, orange.",
        head + 'Word 1 reads "YELLOW" and is printed in green ink.\nWord 2 reads "PINK" and is printed in yellow ink.\n'
        'Word 3 reads "RED" and is printed in pink ink.\nWord 4 reads "GREEN" and is printed in red ink.\n'
        "What colour is the ink of word 1? Options: green, yellow, pink, red.",
        head + 'Word 1 reads "TABLE" and is printed in green ink.\nWord 2 reads "STONE" and is printed in pink ink.\n'
        'Word 3 reads "SHOE" and is printed in purple ink.\nWord 4 reads "RIVER" and is printed in red ink.\n'
        "What colour is the ink of word 1? Options: green, red, purple, pink.",
    ]
    assert [(d["condition"], d["gold"], d["lure"], d["word"], d["ink"]) for d in docs] == [
        ("congruent", 0, -1, "BROWN", "brown"), ("incongruent", 0, 1, "YELLOW", "green"), ("neutral", 0, -1, "TABLE", "green")
    ]
    # Item 16 (incongruent, j = 5): the ink named first, word 2 asked, key green at option 1 and
    # third in alphabetical order (blue, brown, green, purple), lure PURPLE one place after it.
    doc = STROOP.generate(0, 17)[16]
    assert doc["prompt"] == (
        head + 'Word 1 is printed in blue ink and reads "GREEN".\nWord 2 is printed in green ink and reads "PURPLE".\n'
        'Word 3 is printed in purple ink and reads "BROWN".\nWord 4 is printed in brown ink and reads "BLUE".\n'
        "What colour is the ink of word 2? Options: brown, green, purple, blue."
    )
    assert (doc["gold"], doc["lure"], doc["position"], doc["phrasing"]) == (1, 2, 2, "ink_first")


@pytest.mark.parametrize("colours", [2, 4, 6, 8])
def test_the_key_is_the_asked_words_ink_and_the_lure_its_word(colours):
    # Independent of the generator: read the card off the prompt and apply every reading of it.
    for doc in STROOP.generate(3, 150, STROOP.make_params({"colours": colours})):
        card, asked, options, _ = read_card(doc["prompt"])
        words, inks = [w for w, _ in card], [c for _, c in card]
        assert options == doc["choices"] and len(card) == colours and sorted(options) == sorted(inks)
        word, ink = card[asked - 1]
        assert doc["choices"][doc["gold"]] == ink and (doc["word"], doc["ink"], doc["position"]) == (word, ink, asked)
        # Key unique under the rule space: the inks are distinct, so no other word's ink is the key;
        # word reading gives the key only on congruent cards, the lure on incongruent ones.
        assert len(set(inks)) == colours
        if all(w.lower() == c for w, c in card):
            assert doc["condition"] == "congruent" and doc["lure"] == -1
        elif all(w.lower() in COLOURS and w.lower() != c for w, c in card):
            assert doc["condition"] == "incongruent" and doc["choices"][doc["lure"]] == word.lower() != ink
        else:
            assert doc["condition"] == "neutral" and doc["lure"] == -1
            assert not {w.lower() for w in words} & COLOURS and len(set(words)) == colours


def test_on_a_colour_word_card_every_colour_is_once_an_ink_and_once_a_word():
    # The card is a Latin square of words and inks, so each option is named exactly twice (once on
    # a neutral card): mention counts single out no option.
    for doc in STROOP.generate(5, 300):
        card, _, options, _ = read_card(doc["prompt"])
        stem = doc["prompt"].rsplit("\n", 1)[0].lower()
        named = Counter(re.findall(r"[a-z]+", stem))
        expected = 1 if doc["condition"] == "neutral" else 2
        assert all(named[colour] == expected for colour in options), doc["prompt"]
        if doc["condition"] != "neutral":
            assert sorted(w.lower() for w, _ in card) == sorted(c for _, c in card)


def test_asked_word_key_lure_alphabetical_rank_and_phrasing_are_balanced_within_each_condition():
    # 4 colours: key position x asked word x lure offset x phrasing repeat every 96 items of a
    # condition; 576 items hold two full cycles, so each count is exact.
    docs = STROOP.generate(9, 576)
    for condition in ("congruent", "incongruent", "neutral"):
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: 48 for k in range(4)}  # key position uniform
        assert Counter(d["position"] for d in cell) == {k: 48 for k in range(1, 5)}  # first / middle / last
        assert Counter(sorted(d["choices"]).index(d["ink"]) for d in cell) == {k: 48 for k in range(4)}
        assert Counter(d["phrasing"] for d in cell) == {"word_first": 96, "ink_first": 96}
        if condition == "incongruent":
            offsets = Counter((d["lure"] - d["gold"]) % 4 for d in cell)
            assert offsets == {1: 64, 2: 64, 3: 64}  # the lure's position balanced around the key's


def test_the_ink_is_named_before_and_after_its_word_equally_often():
    for doc in STROOP.generate(2, 384):
        card, asked, _, phrasing = read_card(doc["prompt"])
        line = doc["prompt"].split("\n")[asked]
        ink_at, word_at = line.index(f" {doc['ink']} ink"), line.index(f'"{doc["word"]}"')
        assert (ink_at < word_at) == (phrasing == "ink_first")
    assert Counter(d["phrasing"] for d in STROOP.generate(2, 384)) == {"word_first": 192, "ink_first": 192}


def test_1200_items_are_distinct_up_to_option_order():
    docs = STROOP.generate(0, 1200)
    assert len({STROOP.identity(d) for d in docs}) == 1200
    assert len({(d["prompt"].rsplit("Options", 1)[0]) for d in docs}) == 1200  # distinct stimuli, not just options


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
