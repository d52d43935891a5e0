"""Text Stroop: pinned cards, keys read off the card, the counterbalancing that removes the
blind shortcuts, the word reader's effects and its chance headline, the declared heuristic."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from probe_strategies import accuracy_by_condition

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
    # Checked by hand: a congruent card, then incongruent ones (word i names the ink of word i + s, s
    # drawn per card), word 1 asked with the key at options 0, 1, 2, 3; the lure of item 1 is its word,
    # GREEN, last. Item 7 closes the block of 8 with a neutral card.
    docs = STROOP.generate(0, 17)
    head = "A card shows 4 words, each printed in coloured ink.\n"
    assert [d["prompt"] for d in docs[:2]] == [
        head + 'Word 1 reads "ORANGE" and is printed in orange ink.\nWord 2 reads "BROWN" and is printed in brown ink.\n'
        'Word 3 reads "RED" and is printed in red ink.\nWord 4 reads "PINK" and is printed in pink ink.\n'
        "What colour is the ink of word 1? Options: orange, brown, pink, red.",
        head + 'Word 1 reads "GREEN" and is printed in yellow ink.\nWord 2 reads "PINK" and is printed in green ink.\n'
        'Word 3 reads "RED" and is printed in pink ink.\nWord 4 reads "YELLOW" and is printed in red ink.\n'
        "What colour is the ink of word 1? Options: yellow, pink, red, green.",
    ]
    assert docs[7]["prompt"] == (
        head + 'Word 1 reads "CLOCK" and is printed in yellow ink.\nWord 2 reads "PENCIL" and is printed in orange ink.\n'
        'Word 3 reads "RIVER" and is printed in red ink.\nWord 4 reads "TABLE" and is printed in purple ink.\n'
        "What colour is the ink of word 1? Options: yellow, purple, red, orange."
    )
    assert [(d["condition"], d["gold"], d["lure"], d["word"], d["ink"]) for d in docs[:3]] == [
        ("congruent", 0, -1, "ORANGE", "orange"), ("incongruent", 0, 3, "GREEN", "yellow"),
        ("incongruent", 1, 0, "PURPLE", "pink"),
    ]
    assert [d["condition"] for d in docs[:8]] == ["congruent"] + ["incongruent"] * 6 + ["neutral"]
    # Item 5 (the fifth incongruent card, j = 4): word 2 asked, its ink yellow at option 0, the lure BROWN.
    assert (docs[5]["position"], docs[5]["gold"], docs[5]["ink"], docs[5]["word"]) == (2, 0, "yellow", "BROWN")
    assert docs[5]["choices"][docs[5]["lure"]] == "brown"


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


def test_asked_word_key_position_and_phrasing_are_balanced_and_the_alphabetical_rank_and_lure_are_tied_to_neither():
    # 4 colours: key position x asked word x phrasing repeat every 32 items of a condition; 2048 items
    # hold 256 congruent, 1536 incongruent and 256 neutral cards (8, 48 and 8 full cycles).
    docs = STROOP.generate(9, 2048)
    for condition, n in (("congruent", 64), ("incongruent", 384), ("neutral", 64)):
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: n for k in range(4)}  # key position uniform
        assert Counter(d["position"] for d in cell) == {k: n for k in range(1, 5)}  # first / middle / last
        assert Counter(d["phrasing"] for d in cell) == {"word_first": 2 * n, "ink_first": 2 * n}
        # Drawn per card (version 2 tied them by a Latin square, which a classifier learned): every
        # (key position, asked word) cell holds several alphabetical ranks, and each rank about a quarter.
        ranks = Counter(sorted(d["choices"]).index(d["ink"]) for d in cell)
        assert all(abs(ranks[r] - n) < 4 * math.sqrt(n) for r in range(4))
        by_cell: dict = {}
        for d in cell:
            by_cell.setdefault((d["gold"], d["position"]), set()).add(sorted(d["choices"]).index(d["ink"]))
        assert all(len(r) >= 2 for r in by_cell.values())
    incong = [d for d in docs if d["condition"] == "incongruent"]
    offsets = Counter((d["lure"] - d["gold"]) % 4 for d in incong)
    assert all(abs(offsets[o] - 512) < 4 * math.sqrt(512) for o in (1, 2, 3))
    # The lure's offset says nothing of the shift (word i names the ink of word i + s): they cross.
    shifts = {((d["lure"] - d["gold"]) % 4, [c for _, c in d["card"]].index(d["card"][0][0].lower())) for d in incong}
    assert shifts == {(o, s) for o in (1, 2, 3) for s in (1, 2, 3)}


def test_the_ink_is_named_before_and_after_its_word_equally_often():
    docs = STROOP.generate(2, 512)  # 64 congruent, 384 incongruent, 64 neutral
    for doc in docs:
        card, asked, _, phrasing = read_card(doc["prompt"])
        line = doc["prompt"].split("\n")[asked]
        ink_at, word_at = line.index(f" {doc['ink']} ink"), line.index(f'"{doc["word"]}"')
        assert (ink_at < word_at) == (phrasing == "ink_first")
    assert Counter(d["phrasing"] for d in docs) == {"word_first": 256, "ink_first": 256}


def test_1200_items_are_distinct_up_to_option_order():
    docs = STROOP.generate(0, 1200)
    assert len({STROOP.identity(d) for d in docs}) == 1200
    assert len({(d["prompt"].rsplit("Options", 1)[0]) for d in docs}) == 1200  # distinct stimuli, not just options


def test_a_word_reader_shows_full_interference_and_no_facilitation_and_scores_chance_on_the_headline():
    scores = play(STROOP, "prepotent", STROOP.generate(0, 320), "gen")
    assert scores["acc_congruent"] == scores["acc_neutral"] == 1.0 and scores["acc_incongruent"] == 0.0
    assert scores["acc"] == 0.25  # 40 congruent + 40 neutral cards of 320: chance
    assert scores["interference"] == 1.0 and scores["congruency_effect"] == 1.0
    assert scores["facilitation"] == 0.0 and scores["word_error_share"] == 1.0


def test_random_player_shows_no_effect_beyond_noise():
    scores = play(STROOP, "random", STROOP.generate(0, 3000), "gen")
    se = math.sqrt(0.25 * 0.75 * (1 / 375 + 1 / 2250))  # 375 congruent and neutral, 2250 incongruent
    assert abs(scores["interference"]) < 3.5 * se and abs(scores["congruency_effect"]) < 3.5 * se
    # A random error names the word in 1 of the 3 wrong options.
    assert scores["word_error_share"] == pytest.approx(1 / 3, abs=0.06)


@pytest.mark.parametrize("colours", [1, 9, "4"])
def test_bad_palette_size_names_the_parameter(colours):
    with pytest.raises(ValueError, match="'colours'"):
        STROOP.make_params({"colours": colours})


# -- declared heuristic and issue 28's strategy -------------------------------------------------------


def _word_or_row(stem: str, options) -> list[float]:
    """Issue 28's strategy, as its table writes it: the word itself where it is an option, else the
    option on the asked word's line (its ink)."""
    asked = re.search(r"ink of word (\d+)\?", stem).group(1)
    line = re.search(rf"^Word {asked} (.*)$", stem, re.MULTILINE).group(1)
    word = re.search(r'"([A-Z]+)"', line).group(1).lower()
    pick = {word} if word in options else {o for o in options if re.search(rf"\b{o}\b", line)}
    return [float(o in pick) for o in options]


def test_word_reading_picks_the_asked_words_word_on_hand_built_cards():
    (heuristic,) = STROOP.heuristics
    assert heuristic.name == "word_reading" and "Stroop 1935" in heuristic.citation
    card = ('A card shows 2 words, each printed in coloured ink.\nWord 1 reads "RED" and is printed in blue ink.\n'
            'Word 2 is printed in red ink and reads "BLUE".\nWhat colour is the ink of word {}?')
    assert heuristic.scores(card.format(1), ["blue", "red"]) == [0.0, 1.0]  # the word RED, not the ink blue
    assert heuristic.scores(card.format(2), ["blue", "red"]) == [1.0, 0.0]  # either phrasing
    congruent = 'Word 1 reads "RED" and is printed in red ink.\nWhat colour is the ink of word 1?'
    assert heuristic.scores(congruent, ["blue", "red"]) == [0.0, 1.0]  # right by design on a congruent card
    neutral = 'Word 1 reads "TABLE" and is printed in red ink.\nWhat colour is the ink of word 1?'
    assert heuristic.scores(neutral, ["blue", "red"]) is None  # a word that names no colour: a guess
    assert heuristic.scores("What colour is this?", ["blue", "red"]) is None


@pytest.mark.parametrize("strategy", ["word_reading", "word_or_row"])
def test_reading_the_word_is_at_chance_on_the_headline_at_a_fresh_seed(strategy):
    played = STROOP.heuristics[0] if strategy == "word_reading" else _word_or_row
    acc = accuracy_by_condition("stroop", played, 21, 640)
    assert acc["all"] <= 0.25 + 0.05, acc
    assert acc["incongruent"] == 0.0  # where reading and the task disagree it is always wrong
