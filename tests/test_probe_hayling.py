"""Hayling sentence completion: the frame bank, pinned items, a key re-derived from the
prompt and the bank, effects by hand, and the completer who cannot hold back."""

from __future__ import annotations

import math
import re

import pytest

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
    # Checked by hand: instruction of each condition, the frame, the options, key and lure.
    docs = HAYLING.generate(0, 3)
    initiate, suppress = INSTRUCTIONS["initiation"], INSTRUCTIONS["suppression"]
    assert initiate == "Complete the sentence with the word that fits best."
    assert suppress == (
        "Complete the sentence with a word that does NOT fit: the word must make no sense in the "
        "sentence and be unconnected to it in every way."
    )
    assert [d["prompt"] for d in docs] == [
        f'{initiate}\nSentence: "The eagle spread its ___."\nOptions: beak, violin, wings.',
        f'{suppress}\nSentence: "She screamed when she was stung by a ___."\nOptions: bee, kettle, honey.',
        f'{initiate}\nSentence: "The pen is mightier than the ___."\nOptions: sword, ink, sandal.',
    ]
    assert [d["choices"] for d in docs] == [["beak", "violin", "wings"], ["bee", "kettle", "honey"], ["sword", "ink", "sandal"]]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("initiation", 2, -1), ("suppression", 1, 0), ("initiation", 0, -1)
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
    doc = HAYLING.generate(0, 2)[1]  # bee (lure), kettle (gold), honey
    scores = HAYLING.score_mc(doc, [-1.0, -2.5, -4.0])
    assert scores["acc"] == 0.0 and scores["lure_margin_suppression"] == -1.5
    assert scores["prepotent_error_share"] == (True, 1.0) and scores["suppression_cost"] == (-1, 0.0)


@pytest.mark.parametrize(("answer", "expected"), [("kettle", 1), ("Kettle.", 1), ("**kettle**", 1), ('"bee"', 0)])
def test_read_accepts_one_option_with_decoration(answer, expected):
    assert HAYLING.read(HAYLING.generate(0, 2)[1], answer) == expected


@pytest.mark.parametrize(
    "answer", ["", "kettle or honey", "She screamed when she was stung by a kettle.", "a kettle", "banana"]
)
def test_read_rejects_hedged_sentence_or_foreign_answers(answer):
    assert HAYLING.read(HAYLING.generate(0, 2)[1], answer) is None


@pytest.mark.parametrize("related_foil", [True, False])
def test_a_completer_who_cannot_hold_back_pays_the_full_cost(related_foil):
    docs = HAYLING.generate(0, 300, HAYLING.make_params({"related_foil": related_foil}))
    for form in ("gen", "mc"):
        scores = play(HAYLING, "prepotent", docs, form)
        assert scores["acc_initiation"] == 1.0 and scores["acc_suppression"] == 0.0
        assert scores["suppression_cost"] == 1.0 and scores["prepotent_error_share"] == 1.0


def test_random_player_shows_no_cost_beyond_noise():
    scores = play(HAYLING, "random", HAYLING.generate(0, 3000), "gen")
    se = math.sqrt(2 * (1 / 3) * (2 / 3) / 1500)
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
