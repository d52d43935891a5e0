"""Counting Stroop: pinned cards, a key recounted from the prompt, the counterbalancing that removes
the blind shortcuts, hand-computed effects."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.audit.table import to_text
from lm_eval_cog.probes.reference import aggregate, play
from probe_strategies import accuracy_by_condition

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
    # Checked by hand. Item 0 (incongruent, the first of a 12-item block): list A "two" x1, key "1"
    # at option 0, lure "2" one place after it; each length has one word, never its own number
    # (1 -> two, 2 -> three, 3 -> four, 4 -> one), every count 1..4 is on the card. Item 1 (neutral):
    # "mouse" x1. Item 2 (congruent): "one" x1, key "1" at 0.
    docs = PROBE.generate(0, 5)
    assert [d["prompt"] for d in docs[:3]] == [
        'Word lists:\nList A: "two"\nList B: "three three"\nList C: "four four four"\nList D: "one one one one"\n'
        'List E: "four four four"\nList F: "two"\nHow many words are in list A? Options: 1, 2, 3, 4.',
        'Word lists:\nList A: "mouse"\nList B: "bear bear bear bear"\nList C: "horse horse horse horse"\n'
        'List D: "duck"\nList E: "cat cat"\nList F: "sheep sheep sheep"\nHow many words are in list A? Options: 1, 2, 3, 4.',
        'Word lists:\nList A: "one"\nList B: "four four four four"\nList C: "three three three"\n'
        'List D: "four four four four"\nList E: "two two"\nList F: "three three three"\n'
        "How many words are in list A? Options: 1, 3, 4, 2.",
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs[:3]] == [
        ("incongruent", 0, 1), ("neutral", 0, -1), ("congruent", 0, -1)
    ]
    # Item 3 (the second incongruent item, rank 1): list B asked, "one" x2: key "2" at option 0, lure "1" at 1.
    assert docs[3]["prompt"].endswith('List B: "one one"\nList C: "two two two"\nList D: "three three three three"\n'
                                      'List E: "three three three three"\nList F: "four"\n'
                                      "How many words are in list B? Options: 2, 1, 4, 3.")
    assert (docs[3]["gold"], docs[3]["lure"], docs[3]["count"], docs[3]["word_number"]) == (0, 1, 2, 1)


@pytest.mark.parametrize(("counts", "lists"), [(4, 4), (4, 6), (3, 6), (9, 9)])
def test_key_and_lure_recounted_from_the_prompt(counts, lists):
    # Recount the asked list's words and read every list's meaning from the surface string alone.
    for doc in PROBE.generate(11, 300, PROBE.make_params({"counts": counts, "lists": lists})):
        card, asked, options = read_card(doc["prompt"])
        assert options == doc["choices"] and len(card) == lists
        assert sorted(doc["choices"], key=int) == [str(k) for k in range(1, counts + 1)]
        kinds = set()
        word_of_length: dict[int, set[str]] = {}
        for _, words in card:
            assert len(set(words)) == 1 and 1 <= len(words) <= counts  # one word repeated
            word_of_length.setdefault(len(words), set()).add(words[0])
            named = NUMBERS.get(words[0])
            kinds.add("neutral" if named is None else "congruent" if named == len(words) else "incongruent")
            if named is not None:
                assert named <= counts  # the word's number is an option
            else:  # neutral words are about as long as the number words
                assert 3 <= len(words[0]) <= 5
        assert kinds == {doc["condition"]}  # a card is homogeneous
        assert set(word_of_length) == set(range(1, counts + 1))  # every count is on every card
        if doc["condition"] == "incongruent":  # one word per length, every count's word once
            assert all(len(w) == 1 for w in word_of_length.values())
            assert {NUMBERS[w] for ws in word_of_length.values() for w in ws} == set(range(1, counts + 1))
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
    # counts = 4, lists = 6: blocks of 12 items (2 congruent, 6 incongruent, 4 neutral); within a
    # condition key count x key position repeat every 16 items, the asked list every 6, the lure
    # offset every 48; 576 items hold 96 / 288 / 192 items of the three conditions.
    docs = PROBE.generate(6, 576)
    sizes = {"congruent": 96, "incongruent": 288, "neutral": 192}
    for condition, n in sizes.items():
        cell = [d for d in docs if d["condition"] == condition]
        assert len(cell) == n
        assert Counter(d["gold"] for d in cell) == {k: n // 4 for k in range(4)}  # key position uniform
        assert Counter(d["count"] for d in cell) == {k: n // 4 for k in range(1, 5)}  # key's rank among the options
        assert Counter(d["list"] for d in cell) == {label: n // 6 for label in "ABCDEF"}  # its place on the card
        assert Counter((d["gold"], d["count"]) for d in cell) == {(g, c): n // 16 for g in range(4) for c in range(1, 5)}
        if condition == "incongruent":
            assert Counter((d["lure"] - d["gold"]) % 4 for d in cell) == {1: 96, 2: 96, 3: 96}


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
     ({"lists": 1}, "lists"), ({"lists": 11}, "lists"), ({"lists": 4.0}, "lists"), ({"lists": 3}, "lists"),
     ({"counts": 7, "lists": 6}, "lists")],
)
def test_bad_parameters_name_themselves(value, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        PROBE.make_params(value)


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="Unknown counting_stroop parameter 'count'"):
        PROBE.make_params({"count": 4})


# -- the declared heuristic and the cheap strategies of issue 28 ---------------------------------
WORD_READING = {h.name: h for h in PROBE.heuristics}["word_reading"]
HAND = 'Word lists:\nList A: "two"\nList B: "four four four"\nList C: "one one"\nList D: "three three three three"\n'


@pytest.mark.parametrize(("asked", "expected"), [("A", [0.0, 1.0, 0.0, 0.0]), ("B", [0.0, 0.0, 0.0, 1.0]),
                                                 ("C", [1.0, 0.0, 0.0, 0.0])])
def test_word_reading_answers_the_number_the_asked_word_names_not_the_count(asked, expected):
    # List B has 3 words that say "four": word reading answers 4 (Stroop's prepotent reading response).
    stem = HAND + f"How many words are in list {asked}?"
    assert WORD_READING.scores(stem, ["1", "2", "3", "4"]) == expected


def test_word_reading_has_nothing_to_read_on_a_neutral_card():
    stem = 'Word lists:\nList A: "goat goat"\nList B: "dog"\nHow many words are in list A?'
    assert WORD_READING.scores(stem, ["1", "2"]) is None


def test_word_reading_scores_chance_on_the_headline_and_reports_its_interference_in_the_conditions():
    # Per 12 items, 2 congruent (word reading right), 6 incongruent (wrong), 4 neutral (a guess):
    # (2 + 4 / 4) / 12 = 1/4, exactly chance; the conditions show the Stroop pattern.
    accuracy = accuracy_by_condition("counting_stroop", WORD_READING, 11, 600)
    assert accuracy["all"] == pytest.approx(0.25)
    assert (accuracy["congruent"], accuracy["incongruent"], accuracy["neutral"]) == (1.0, 0.0, 0.25)


def _bag_of_words(docs):
    """One row per (item, option): the prompt's words before the options, each also paired with the
    option's text, so a linear model can learn "the word two on the card -> option 2"."""
    rows, labels = [], []
    for doc in docs:
        words = re.findall(r"[a-z]+", doc["prompt"].split(" Options:")[0].lower())
        for j, option in enumerate(doc["choices"]):
            rows.append(" ".join([f"o{option}", *words, *(f"o{option}_{w}" for w in words)]))
            labels.append(int(j == doc["gold"]))
    return rows, labels


def test_a_bag_of_words_classifier_trained_on_another_seed_is_at_chance_in_every_condition():
    # Issue 28: on version 2 this classifier, trained on seed 21, found the congruent key at 0.445 on seed 22
    # (chance 0.25): the key's number word was always on a congruent card, and the card grew with the key.
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = CountVectorizer(token_pattern=r"\S+")
    rows, labels = _bag_of_words(PROBE.generate(11, 600))
    model = LogisticRegression(max_iter=3000).fit(vectorizer.fit_transform(rows), labels)
    test = PROBE.generate(12, 600)
    scores = model.decision_function(vectorizer.transform(_bag_of_words(test)[0])).reshape(len(test), 4)
    by_condition: dict[str, list[float]] = {}
    for doc, row in zip(test, scores):
        best = [j for j, s in enumerate(row) if s == row.max()]
        by_condition.setdefault(doc["condition"], []).append((doc["gold"] in best) / len(best))
    accuracy = {c: sum(v) / len(v) for c, v in by_condition.items()}
    assert max(accuracy.values()) <= 0.25 + 0.05, accuracy


def test_no_blind_strategy_beats_chance_in_any_condition_but_word_reading_where_it_is_the_manipulation():
    # The audit pools congruent and incongruent cards (word reading is right / wrong there by design);
    # here every condition is its own cell: surface strategies, word reading, and the learned detectors
    # trained on seeds 14-15.
    from lm_eval_cog.audit.probes import doc_item
    from lm_eval_cog.audit.run import audit_task
    from lm_eval_cog.audit.table import flag

    def items(seeds, n):
        return [doc_item(d) for seed in seeds for d in PROBE.generate(seed, n)]

    rows = flag(audit_task("cog_counting_stroop_mc", items((11, 12, 13), 400), train=items((14, 15), 200))[0])
    flagged = {(r.condition, r.strategy) for r in rows if r.flagged}
    assert flagged == {("congruent", "heuristic:word_reading")}, to_text([r for r in rows if r.flagged])
