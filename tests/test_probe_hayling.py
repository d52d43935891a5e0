"""Hayling sentence completion: the frame bank, pinned items, a key re-derived from the
prompt and the bank, effects by hand, and the completer who cannot hold back."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from rapidfuzz.distance import Levenshtein

from lm_eval_cog.probes._hayling_bank import BLANK, FRAMES, UNRELATED
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.hayling import INSTRUCTIONS, unrelated_words
from lm_eval_cog.probes.reference import aggregate, play

HAYLING = get_probe("hayling")
WORD = re.compile(r"^[a-z]+$")
PROMPT = re.compile(r'^(.+)\nSentence: "(.+)"\nOptions: ([a-z]+(?:, [a-z]+)*)\.$')
POOL = [word for words in UNRELATED.values() for word in words]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


# -- the bank -------------------------------------------------------------------------
def test_bank_has_at_least_100_distinct_frames_with_one_final_blank():
    assert len(FRAMES) >= 100
    assert len({f.text.lower() for f in FRAMES}) == len(FRAMES)
    for frame in FRAMES:
        assert frame.text.count(BLANK) == 1 and frame.text.endswith(f" {BLANK}."), frame.text
        assert "_" not in frame.text.replace(BLANK, ""), frame.text


def test_every_word_is_one_lowercase_word_and_the_endings_differ():
    for frame in FRAMES:
        assert WORD.match(frame.prepotent) and WORD.match(frame.related), frame
        assert frame.prepotent != frame.related, frame
        # An ending that appears in its sentence would give the item away.
        assert not {frame.prepotent, frame.related} & _words(frame.text), frame
        assert set(frame.avoid) <= set(UNRELATED), frame
    assert all(WORD.match(word) for word in POOL) and len(set(POOL)) == len(POOL)


def test_no_unrelated_word_is_an_ending_or_related_word_of_any_frame():
    endings = {f.prepotent for f in FRAMES} | {f.related for f in FRAMES}
    assert not set(POOL) & endings
    for frame in FRAMES:
        allowed = unrelated_words(frame)
        assert len(allowed) >= 10, frame
        assert frame.prepotent not in allowed and frame.related not in allowed
        assert not set(allowed) & _words(frame.text), frame
        assert not any(word in UNRELATED[d] for d in frame.avoid for word in allowed)


def test_the_article_before_the_blank_never_tells_the_answer():
    for frame in FRAMES:
        assert not frame.text.endswith(f" an {BLANK}.") and not frame.text.startswith(f"An {BLANK}")
        if frame.text.endswith(f" a {BLANK}."):
            assert frame.prepotent[0] not in "aeiou" and frame.related[0] not in "aeiou", frame
    assert all(word[0] not in "aeiou" for word in POOL)


# -- items ----------------------------------------------------------------------------
def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: instruction of each condition, the frame, the options, key and lure. Items
    # 0 and 1 (j = 0): the key ("brush", "bin") is the shortest option, first in alphabetical
    # order and the least like the others in spelling (summed edit similarity: brush 0.14 <
    # canvas 0.43 < cabbage 0.57; bin 0.37 < throne 0.50 < crown 0.53). Item 2 (j = 1): the key
    # "dogs" is at option 1, the shortest, second alphabetically (boulder, dogs, umbrella) and
    # second by similarity (umbrella 0.13 < dogs 0.14 < boulder 0.27).
    docs = HAYLING.generate(0, 3)
    initiate, suppress = INSTRUCTIONS["initiation"], INSTRUCTIONS["suppression"]
    assert initiate == "Complete the sentence with the word that fits best."
    assert suppress == (
        "Complete the sentence with a word that does NOT fit: the word must make no sense in the "
        "sentence and be unconnected to it in every way."
    )
    assert [d["prompt"] for d in docs] == [
        f'{initiate}\nSentence: "The artist painted the picture with a ___."\nOptions: brush, cabbage, canvas.',
        f'{suppress}\nSentence: "The king wore a golden ___."\nOptions: bin, crown, throne.',
        f'{initiate}\nSentence: "It is raining cats and ___."\nOptions: umbrella, dogs, boulder.',
    ]
    assert [d["choices"] for d in docs] == [["brush", "cabbage", "canvas"], ["bin", "crown", "throne"], ["umbrella", "dogs", "boulder"]]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("initiation", 0, -1), ("suppression", 0, 1), ("initiation", 1, -1)
    ]


@pytest.mark.parametrize("related_foil", [True, False])
def test_the_key_follows_from_the_instruction_and_the_bank(related_foil):
    # Independent of the generator: read the instruction and sentence off the prompt, look the
    # sentence up in the bank, and pick the option the instruction asks for.
    by_text = {f.text: f for f in FRAMES}
    domain_of = {word: d for d, words in UNRELATED.items() for word in words}
    params = HAYLING.make_params({"related_foil": related_foil})
    seen = set()
    for doc in HAYLING.generate(5, 400, params):
        instruction, sentence, options = PROMPT.match(doc["prompt"]).groups()
        options = options.split(", ")
        frame = by_text[sentence]
        seen.add(sentence)
        assert options == doc["choices"] and len(options) == (3 if related_foil else 2)
        assert frame.prepotent in options and (frame.related in options) == related_foil
        (other,) = [w for w in options if w not in (frame.prepotent, frame.related)]
        assert domain_of[other] not in frame.avoid
        if instruction == INSTRUCTIONS["initiation"]:
            assert (doc["condition"], doc["lure"]) == ("initiation", -1)
            assert options[doc["gold"]] == frame.prepotent
        else:
            assert instruction == INSTRUCTIONS["suppression"] and doc["condition"] == "suppression"
            assert options[doc["gold"]] == other and options[doc["lure"]] == frame.prepotent
    assert len(seen) > 90  # the draws reach across the bank


def test_effects_on_hand_built_answers():
    docs = HAYLING.generate(0, 8)  # conditions: i, s, i, s, i, s, i, s
    init, supp = docs[0::2], docs[1::2]
    answers = [
        (init[0], init[0]["prepotent"]), (init[1], init[1]["prepotent"].upper()),
        (init[2], init[2]["related"]), (init[3], init[3]["unrelated"]),
        (supp[0], supp[0]["unrelated"]), (supp[1], supp[1]["prepotent"]),
        (supp[2], supp[2]["related"]), (supp[3], "I cannot think of one"),
    ]
    scores = aggregate(HAYLING, [HAYLING.score_gen(d, a) for d, a in answers])
    # acc: initiation 2/4, suppression 1/4 -> suppression_cost = 1/2 - 1/4 = 1/4.
    assert scores["acc_initiation"] == 0.5 and scores["acc_suppression"] == 0.25
    assert scores["suppression_cost"] == pytest.approx(0.25)
    # Suppression errors: prepotent, related, invalid -> 1 of 3 is the prepotent ending.
    assert scores["prepotent_error_share"] == pytest.approx(1 / 3)
    assert scores["invalid_rate"] == pytest.approx(1 / 8) and scores["acc"] == pytest.approx(3 / 8)


def test_mc_reports_the_margin_against_the_prepotent_ending():
    doc = HAYLING.generate(0, 2)[1]  # bin (gold), crown (lure), throne
    scores = HAYLING.score_mc(doc, [-2.5, -1.0, -4.0])
    assert scores["acc"] == 0.0 and scores["lure_margin_suppression"] == -1.5
    assert scores["prepotent_error_share"] == (True, 1.0) and scores["suppression_cost"] == (-1, 0.0)


@pytest.mark.parametrize(("answer", "expected"), [("bin", 0), ("Bin.", 0), ("**bin**", 0), ('"crown"', 1)])
def test_read_accepts_one_option_with_decoration(answer, expected):
    assert HAYLING.read(HAYLING.generate(0, 2)[1], answer) == expected


@pytest.mark.parametrize(
    "answer", ["", "bin or throne", "The king wore a golden bin.", "a bin", "banana"]
)
def test_read_rejects_hedged_sentence_or_foreign_answers(answer):
    assert HAYLING.read(HAYLING.generate(0, 2)[1], answer) is None


def _ranks(key: str, options: list[str]) -> tuple[int, int, int]:
    """The key's rank among the options by length, alphabetically and by summed edit similarity to
    the others (rapidfuzz: independent of the module's own Levenshtein); no option ties with the key."""
    typicality = {o: sum(Levenshtein.normalized_similarity(o, x) for x in options if x != o) for o in options}
    out = []
    for measure in (len, str, typicality.__getitem__):
        others = [measure(o) for o in options if o != key]
        assert measure(key) not in others, options  # the key's rank is well defined
        out.append(sum(v < measure(key) for v in others))
    return tuple(out)


def test_the_keys_length_alphabetical_and_typicality_ranks_are_balanced_within_each_condition():
    # Length rank x option position (Latin squares give the alphabetical and typicality ranks)
    # repeat every 27 items of a condition, the other answer's offset every 18: 540 items hold
    # 5 full cycles of 54, so every count is exact.
    docs = HAYLING.generate(2, 540)
    for condition in ("initiation", "suppression"):
        cell = [d for d in docs if d["condition"] == condition]
        ranks = [_ranks(d["choices"][d["gold"]], d["choices"]) for d in cell]
        assert Counter(ranks) == {(a, b, c): 10 for a in range(3) for b in range(3) for c in range(3)}
        assert Counter(d["gold"] for d in cell) == {k: 90 for k in range(3)}
        other = "unrelated" if condition == "initiation" else "prepotent"  # the other instruction's answer
        offsets = Counter((d["choices"].index(d[other]) - d["gold"]) % 3 for d in cell)
        assert offsets == {1: 135, 2: 135}


def test_without_the_related_foil_the_key_is_the_longer_and_the_earlier_word_half_the_time():
    docs = HAYLING.generate(4, 400, HAYLING.make_params({"related_foil": False}))
    for condition in ("initiation", "suppression"):
        cell = [d for d in docs if d["condition"] == condition]
        key_longer = Counter(len(d["choices"][d["gold"]]) > len(d["choices"][1 - d["gold"]]) for d in cell)
        key_first = Counter(d["choices"][d["gold"]] < d["choices"][1 - d["gold"]] for d in cell)
        assert key_longer == key_first == {True: 100, False: 100}
        assert Counter(d["gold"] for d in cell) == {0: 100, 1: 100}


@pytest.mark.parametrize("related_foil", [True, False])
def test_1200_items_are_distinct(related_foil):
    docs = HAYLING.generate(0, 1200, HAYLING.make_params({"related_foil": related_foil}))
    assert len({HAYLING.identity(d) for d in docs}) == 1200


@pytest.mark.parametrize("related_foil", [True, False])
def test_a_completer_who_cannot_hold_back_pays_the_full_cost(related_foil):
    docs = HAYLING.generate(0, 300, HAYLING.make_params({"related_foil": related_foil}))
    for form in ("gen", "mc"):
        scores = play(HAYLING, "prepotent", docs, form)
        assert scores["acc_initiation"] == 1.0 and scores["acc_suppression"] == 0.0
        assert scores["suppression_cost"] == 1.0 and scores["prepotent_error_share"] == 1.0


def test_random_player_shows_no_cost_beyond_noise():
    scores = play(HAYLING, "random", HAYLING.generate(0, 1500), "gen")
    se = math.sqrt(2 * (1 / 3) * (2 / 3) / 750)
    assert abs(scores["suppression_cost"]) < 3.5 * se
    # A random error is the prepotent ending in 1 of the 2 wrong options.
    assert scores["prepotent_error_share"] == pytest.approx(1 / 2, abs=0.06)


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_bad_related_foil_names_itself(value):
    with pytest.raises(ValueError, match="'related_foil'"):
        HAYLING.make_params({"related_foil": value})


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="Unknown hayling parameter 'foil'.*Allowed: related_foil"):
        HAYLING.make_params({"foil": True})
