"""Hayling sentence completion: the frame bank, pinned items, a key re-derived from the
prompt and the bank, effects by hand, and the completer who cannot hold back."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from rapidfuzz.distance import Levenshtein

from lm_eval_cog.probes._hayling_bank import BLANK, DOMAINS, FRAMES, unconnected
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.hayling import INSTRUCTIONS, draw_weights, lenders, lent_words
from lm_eval_cog.probes.reference import aggregate, play

HAYLING = get_probe("hayling")
WORD = re.compile(r"^[a-z]+$")
PROMPT = re.compile(r'^(.+)\nSentence: "(.+)"\nOptions: ([a-z]+(?:, [a-z]+)*)\.$')
BY_TEXT = {f.text: f for f in FRAMES}
OWNER = {w: f for f in FRAMES for w in (f.prepotent, f.related)}  # the frame each word belongs to
ENDINGS = {f.prepotent for f in FRAMES}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _after_a(text: str) -> bool:
    return text.endswith(f" a {BLANK}.")


# -- the bank -------------------------------------------------------------------------
def test_bank_has_at_least_100_distinct_frames_with_one_final_blank():
    assert len(FRAMES) >= 100
    assert len({f.text.lower() for f in FRAMES}) == len(FRAMES)
    for frame in FRAMES:
        assert frame.text.count(BLANK) == 1 and frame.text.endswith(f" {BLANK}."), frame.text
        assert "_" not in frame.text.replace(BLANK, ""), frame.text


def test_every_word_is_one_lowercase_word_of_one_frame_and_its_two_words_differ_in_length():
    words = [w for f in FRAMES for w in (f.prepotent, f.related)]
    assert len(set(words)) == len(words), [w for w, n in Counter(words).items() if n > 1]
    for frame in FRAMES:
        assert WORD.match(frame.prepotent) and WORD.match(frame.related), frame
        # Equal lengths would tie the key's length rank; an ending in its sentence would give it away.
        assert len(frame.prepotent) != len(frame.related), frame
        assert not {frame.prepotent, frame.related} & _words(frame.text), frame
        assert frame.domains and len(set(frame.domains)) == len(frame.domains), frame
        assert set(frame.domains) <= set(DOMAINS), frame


def test_frames_lend_words_only_to_frames_of_other_domains_whose_sentences_do_not_name_them():
    for frame in FRAMES:
        others = lenders(frame)
        assert len(others) >= 12, frame
        assert frame not in others
        for other in others:
            assert not set(frame.domains) & set(other.domains), (frame, other)
            assert not {other.prepotent, other.related} & _words(frame.text), (frame, other)
            assert unconnected(other, frame)  # the rule is symmetric
    assert not unconnected(FRAMES[0], FRAMES[0])


def test_the_article_before_the_blank_never_tells_the_answer():
    for frame in FRAMES:
        assert not frame.text.endswith(f" an {BLANK}.") and not frame.text.startswith(f"An {BLANK}")
        if _after_a(frame.text):
            assert frame.prepotent[0] not in "aeiou" and frame.related[0] not in "aeiou", frame
    for related_foil in (True, False):
        docs = HAYLING.generate(1, 600, HAYLING.make_params({"related_foil": related_foil}))
        lent_after_a = [d["unrelated"] for d in docs if _after_a(d["frame"])]
        assert lent_after_a and all(w[0] not in "aeiou" for w in lent_after_a)
        assert any(d["unrelated"][0] in "aeiou" for d in docs)  # vowel-initial words are lent elsewhere


# -- items ----------------------------------------------------------------------------
def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: instruction of each condition, the frame, the options, key and lure. Items
    # 0 and 1 (j = 0): the key ("pond", "bib") is the shortest option, first in alphabetical
    # order and the least like the others in spelling (summed edit similarity: pond 0.29 <
    # thimble 0.43 < tadpole 0.71; bib 0.00 < nest 0.29 = feather 0.29, a tie the key is not in).
    # "thimble" is lent by the tailor frame (clothing, tools, people) to the frog frame (animal,
    # land, home, kitchen); "bib" by the baby-bottle frame to the bird frame, after "a" a
    # consonant. Item 2 (j = 1): the key "gold" is at option 1, the shortest, second
    # alphabetically (carrot, gold, goldsmith) and second by similarity (carrot 0.11 < gold
    # 0.44 < goldsmith 0.56).
    docs = HAYLING.generate(0, 3)
    initiate, suppress = INSTRUCTIONS["initiation"], INSTRUCTIONS["suppression"]
    assert initiate == "Complete the sentence with the word that fits best."
    assert suppress == (
        "Complete the sentence with a word that does NOT fit: the word must make no sense in the "
        "sentence and be unconnected to it in every way."
    )
    assert [d["prompt"] for d in docs] == [
        f'{initiate}\nSentence: "The frog jumped into the ___."\nOptions: pond, thimble, tadpole.',
        f'{suppress}\nSentence: "High in the tree, the bird built a ___."\nOptions: bib, nest, feather.',
        f'{initiate}\nSentence: "All that glitters is not ___."\nOptions: goldsmith, gold, carrot.',
    ]
    assert [d["choices"] for d in docs] == [
        ["pond", "thimble", "tadpole"], ["bib", "nest", "feather"], ["goldsmith", "gold", "carrot"]
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("initiation", 0, -1), ("suppression", 0, 1), ("initiation", 1, -1)
    ]
    assert [d["unrelated"] for d in docs] == ["thimble", "bib", "carrot"]


@pytest.mark.parametrize("related_foil", [True, False])
def test_the_key_follows_from_the_instruction_and_the_bank(related_foil):
    # Independent of the generator: read the instruction and sentence off the prompt, look the
    # sentence up in the bank, and pick the option the instruction asks for. The unrelated option
    # is a word of another frame that shares no domain with this one: in suppression its ending or
    # its related word, in initiation its related word.
    params = HAYLING.make_params({"related_foil": related_foil})
    seen, lent_endings = set(), Counter()
    for doc in HAYLING.generate(5, 400, params):
        instruction, sentence, options = PROMPT.match(doc["prompt"]).groups()
        options = options.split(", ")
        frame = BY_TEXT[sentence]
        seen.add(sentence)
        assert options == doc["choices"] and len(options) == (3 if related_foil else 2)
        assert frame.prepotent in options and (frame.related in options) == related_foil
        (other,) = [w for w in options if w not in (frame.prepotent, frame.related)]
        lender = OWNER[other]
        assert lender != frame and not set(lender.domains) & set(frame.domains), (frame, other)
        if instruction == INSTRUCTIONS["initiation"]:
            assert (doc["condition"], doc["lure"]) == ("initiation", -1)
            assert options[doc["gold"]] == frame.prepotent and other == lender.related
        else:
            assert instruction == INSTRUCTIONS["suppression"] and doc["condition"] == "suppression"
            assert options[doc["gold"]] == other and options[doc["lure"]] == frame.prepotent
            lent_endings[other == lender.prepotent] += 1
    assert len(seen) > 120  # the draws reach across the bank
    assert min(lent_endings.values()) > 70  # suppression keys: endings and related words alike


def test_draws_give_every_frame_and_every_lent_word_the_same_share_in_every_rank_cell():
    # Exact, before sampling: within each condition every rank cell is a 1/cells share of the items
    # (the index cycles through them), every frame is the sentence of 1/frames of the items, and
    # every word a frame can lend is lent in the same share.
    for related_foil in (True, False):
        for condition in ("initiation", "suppression"):
            weights = draw_weights(related_foil, condition)
            assert len(weights) == (27 if related_foil else 4)
            frames, words = Counter(), Counter()
            for members in weights.values():
                assert sum(p for *_, p in members) == pytest.approx(1.0)
                for frame, word, p in members:
                    frames[frame] += p / len(weights)
                    words[word] += p / len(weights)
                    assert OWNER[word] in lenders(frame) and word in lent_words(OWNER[word], condition)
            lendable = {w for f in FRAMES for w in lent_words(f, condition)}
            assert len(lendable) == (2 if condition == "suppression" else 1) * len(FRAMES)
            assert set(frames) == set(FRAMES) and set(words) == lendable
            assert all(v == pytest.approx(1 / len(FRAMES)) for v in frames.values())
            assert all(v == pytest.approx(1 / len(lendable)) for v in words.values())


def test_no_option_text_is_a_key_more_often_elsewhere_than_the_key():
    # The answer-text prior the shortcut audit's majority_text looks for: how often an option's
    # text is the key in items of other prompts (items of the same instruction and sentence share
    # its ending: knowing that is knowing the sentence). The key is no more often a key elsewhere
    # than the options beside it, in either condition, and in suppression an ending and a related
    # word are each the key in a third of the items that offer them. Pinned on 2,400 items.
    docs = HAYLING.generate(0, 2400)
    keys = Counter(d["choices"][d["gold"]] for d in docs)
    same = Counter((d["condition"], d["frame"], d["choices"][d["gold"]]) for d in docs)
    for condition in ("initiation", "suppression"):
        cell = [d for d in docs if d["condition"] == condition]
        elsewhere = [[keys[c] - same[(condition, d["frame"], c)] for c in d["choices"]] for d in cell]
        key = sum(e[d["gold"]] for e, d in zip(elsewhere, cell)) / len(cell)
        other = sum(sum(e) - e[d["gold"]] for e, d in zip(elsewhere, cell)) / (2 * len(cell))
        assert key == pytest.approx(other, rel=0.12), (condition, key, other)
    offered, chosen = Counter(), Counter()
    for d in docs:
        if d["condition"] == "suppression":
            for i, c in enumerate(d["choices"]):
                offered[c in ENDINGS] += 1
                chosen[c in ENDINGS] += i == d["gold"]
    assert all(chosen[t] / offered[t] == pytest.approx(1 / 3, abs=0.03) for t in (True, False))


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
    doc = HAYLING.generate(0, 2)[1]  # bib (gold), nest (lure), feather
    scores = HAYLING.score_mc(doc, [-2.5, -1.0, -4.0])
    assert scores["acc"] == 0.0 and scores["lure_margin_suppression"] == -1.5
    assert scores["prepotent_error_share"] == (True, 1.0) and scores["suppression_cost"] == (-1, 0.0)


@pytest.mark.parametrize(("answer", "expected"), [("bib", 0), ("Bib.", 0), ("**bib**", 0), ('"nest"', 1)])
def test_read_accepts_one_option_with_decoration(answer, expected):
    assert HAYLING.read(HAYLING.generate(0, 2)[1], answer) == expected


@pytest.mark.parametrize(
    "answer", ["", "bib or feather", "High in the tree, the bird built a bib.", "a bib", "banana"]
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
