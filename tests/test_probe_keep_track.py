"""Keep-track: pinned items, keys re-derived from the word list, hand-computed effects."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from lm_eval_cog.probes._keep_track_words import CATEGORIES
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from probe_strategies import accuracy_by_condition

KEEP = get_probe("keep_track")
#: word -> singular category name, from the bank (each word in one category).
KIND = {w: singular for _, singular, words in CATEGORIES for w in words}


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. Item 0 (load 2, no option after the key): the animals end "dog, zebra, (Norway,)
    # wolf": the key is wolf, the options before it the overwritten animals zebra (the lure), dog and
    # tiger, latest first. Item 4 (load 2, one option after the key): the tools end "hammer, (mouse,
    # sheep,) axe": the key is axe, then frog, eagle, dog, shark (no tool after it); the options are
    # the overwritten hammer (the lure) and chisel, and dog, named after axe.
    docs = KEEP.generate(0, 5)
    head = "Read the list of words below. Each word is one of these kinds: "
    mid = ". Keep track of the most recent word of each kind.\nWords: "
    assert docs[0]["prompt"] == (
        head + "animal, country" + mid + "mouse, goat, India, France, Chile, rabbit, tiger, Egypt, Kenya, Spain, dog, "
        "zebra, Norway, wolf, Canada\nWhat was the last animal in the list? Answer with that word only."
    )
    assert docs[4]["prompt"] == (
        head + "animal, tool" + mid + "horse, trowel, drill, rabbit, wrench, shovel, chisel, hammer, mouse, sheep, axe, "
        "frog, eagle, dog, shark\nWhat was the last tool in the list? Answer with that word only."
    )
    assert [(d["choices"], d["gold"], d["condition"], d["lure"], d["later_options"]) for d in docs] == [
        (["wolf", "zebra", "dog", "tiger"], 0, "load2", 1, 0),
        (["banjo", "trumpet", "clarinet", "violin"], 0, "load3", 1, 0),
        (["Spain", "Japan", "Chile", "Egypt"], 0, "load4", 2, 0),
        (["banjo", "black", "clarinet", "drum"], 0, "load5", 3, 0),
        (["hammer", "axe", "chisel", "dog"], 1, "load2", 0, 1),
    ]


def _parsed(doc):
    words = re.search(r"Words: (.+)\n", doc["prompt"]).group(1).split(", ")
    asked = re.search(r"What was the last (.+) in the list\?", doc["prompt"]).group(1)
    return words, asked


@pytest.mark.parametrize("length", [15, 10, 24])
def test_keys_re_derived_from_the_word_list(length):
    docs = KEEP.generate(3, 200, KEEP.make_params({"list_length": length}))
    for doc in docs:
        words, asked = _parsed(doc)
        kinds = [KIND[w] for w in words]
        assert len(words) == length == len(set(words))  # each word once: the key is unique
        counts = Counter(kinds)
        assert len(counts) == int(doc["condition"][-1]) and max(counts.values()) - min(counts.values()) <= 1
        mine = [w for w in reversed(words) if KIND[w] == asked]  # the asked kind, latest first
        key = doc["choices"][doc["gold"]]
        assert key == mine[0]  # the asked kind's last word (the list's final word or not)
        after = [c for c in doc["choices"] if words.index(c) > words.index(key)]
        assert len(after) == doc["later_options"] and all(KIND[c] != asked for c in after)
        # Before the key: the asked kind's overwritten words, latest first, then other kinds if too few.
        before = sorted((c for c in doc["choices"] if words.index(c) < words.index(key)), key=words.index, reverse=True)
        overwritten = [c for c in before if KIND[c] == asked]
        assert overwritten == mine[1 : 1 + len(overwritten)]
        assert len(overwritten) == min(len(before), len(mine) - 1)
        if doc["later_options"] < 3:
            assert doc["choices"][doc["lure"]] == mine[1]
        else:
            assert doc["lure"] == -1 and mine[1] not in doc["choices"]
    assert Counter(d["condition"] for d in docs) == {c: 50 for c in KEEP.conditions}


def test_key_is_each_recency_rank_among_the_options_equally_often_at_every_load():
    # The r-th most recently named option (also the (5-r)-th first named) is the key 1/4 of the time.
    docs = KEEP.generate(4, 4 * 64)
    for condition in KEEP.conditions:
        ranks = Counter()
        for doc in (d for d in docs if d["condition"] == condition):
            words, _ = _parsed(doc)
            last = [words.index(c) for c in doc["choices"]]
            ranks[sorted(last, reverse=True).index(last[doc["gold"]])] += 1
        assert ranks == {r: 16 for r in range(4)}


def test_key_position_is_uniform_within_each_load():
    docs = KEEP.generate(5, 4 * 64)
    for condition in KEEP.conditions:
        assert Counter(d["gold"] for d in docs if d["condition"] == condition) == {p: 16 for p in range(4)}


def test_items_are_distinct_at_1200():
    docs = KEEP.generate(0, 1200)
    assert len({KEEP.identity(d) for d in docs}) == 1200


def _doc(condition):
    return {"choices": ["Japan", "Mexico", "tiger", "zebra"], "gold": 0, "condition": condition, "lure": 1}


def test_metrics_on_hand_scored_answers():
    no_lure = {**_doc("load5"), "lure": -1}  # three options after the key: no overwritten word offered
    answers = [
        (_doc("load2"), "Japan"), (_doc("load2"), "**japan**"),  # load 2: 2/2
        (_doc("load3"), "Mexico"),  # load 3: an update error
        (_doc("load5"), "Mexico."),  # load 5: an update error
        (_doc("load5"), "tiger"),  # load 5: a recency error
        (_doc("load5"), "Japan or Mexico"),  # load 5: invalid (an error, not an update error)
        (_doc("load5"), "Japan"),  # load 5: right
        (no_lure, "tiger"),  # load 5: an error where no update error was possible: not in the share
    ]
    scores = aggregate(KEEP, [KEEP.score_gen(doc, text) for doc, text in answers])
    assert scores["acc_load2"] == 1.0 and scores["acc_load3"] == 0.0 and scores["acc_load5"] == 0.2
    assert scores["load_cost"] == 0.8  # 2/2 - 1/5
    assert scores["update_error_share"] == 0.5  # 4 errors on items with a lure, 2 name the previous country
    assert scores["invalid_rate"] == pytest.approx(1 / 8) and scores["acc"] == pytest.approx(3 / 8)


def test_a_memory_that_misses_the_last_update_makes_only_update_errors():
    # It answers the previous word where it is offered (3 items in 4), the key elsewhere.
    scores = play(KEEP, "prepotent", KEEP.generate(0, 320), "mc")
    assert all(scores[f"acc_{c}"] == 0.25 for c in KEEP.conditions)
    assert scores["update_error_share"] == 1.0 and scores["load_cost"] == 0.0
    assert scores["lure_margin"] == -1.0  # the lure scored 0, the key -1 in reference.play


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("Japan", 0), ("japan.", 0), ("'Japan'", 0), ("Tiger", 2), ("apple", -1), ("France", -1),
     ("Japan or Mexico", None), ("The last country was Japan", None), ("", None), ("Atlantis", None)],
)
def test_read_takes_one_word_of_the_bank(answer, expected):
    assert KEEP.read(_doc("load3"), answer) == expected


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"list_length": 9}, "list_length"), ({"list_length": 25}, "list_length"), ({"list_length": 0}, "list_length"),
     ({"list_length": "15"}, "list_length"), ({"length": 15}, "length")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        KEEP.make_params(overrides)


def test_bank_words_are_unique_and_unambiguous():
    words = [w.casefold() for _, _, ws in CATEGORIES for w in ws]
    assert len(words) == len(set(words)) == 6 * 12
    # Words that name things of two kinds (a fruit or an animal that is also a colour, a fruit that
    # is also a bird, a country that is also an animal, a tool that is also an instrument) are out.
    two_kinds = {"orange", "lime", "cherry", "lemon", "plum", "peach", "apricot", "kiwi", "camel", "salmon",
                 "olive", "turkey", "file", "organ", "chocolate", "coral", "jade", "amber", "lavender", "rose"}
    assert not two_kinds & set(words)


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in KEEP.heuristics}
HAND = (
    "Read the list of words below. Each word is one of these kinds: animal, fruit. Keep track of the most "
    "recent word of each kind.\nWords: dog, apple, horse, pear, tiger, mango\n"
    "What was the last animal in the list? Answer with that word only.\nAnswer:"
)


def test_recency_and_primacy_pick_the_option_named_last_and_first():
    # Named at 0 (dog), 2 (horse), 4 (tiger), 5 (mango): recency picks mango, primacy dog.
    options = ["horse", "tiger", "mango", "dog"]
    assert max(range(4), key=HEURISTICS["recency"].scores(HAND, options).__getitem__) == 2
    assert max(range(4), key=HEURISTICS["primacy"].scores(HAND, options).__getitem__) == 3
    assert HEURISTICS["recency"].scores(HAND, ["horse", "zebra"]) is None  # an option not in the list


def test_declared_heuristics_are_at_chance_in_each_condition():
    for heuristic in KEEP.heuristics:
        accuracy = accuracy_by_condition("keep_track", heuristic, (11, 12), 400)
        assert max(accuracy[c] for c in KEEP.conditions) <= 0.25 + 0.05, (heuristic.name, accuracy)


def _words_and_asked(stem):
    words = re.search(r"Words: (.+)\n", stem).group(1).split(", ")
    return words, re.search(r"What was the last (.+) in the list\?", stem).group(1)


def _rule_out_the_final_word(stem, options):
    """Issue 28: the key was never the list's final word, a foil in 287 of 300 items."""
    words, _ = _words_and_asked(stem)
    return [float(o != words[-1]) for o in options]


def _place(stem, options):
    """Each option's (distance from the end of the list, recency rank among the options)."""
    words, _ = _words_and_asked(stem)
    where = [words.index(o) for o in options]
    return [(len(words) - 1 - w, sorted(where, reverse=True).index(w)) for w in where]


def _serial_position_learned_on_other_seeds():
    """Issue 28: serial position learned on other seeds (0.46 on version 2): how often an option at each
    (distance from the end, recency rank) is the key on seeds 4 and 5 (400 items each, smoothed)."""
    seen: dict = {}
    for seed in (4, 5):
        for doc in KEEP.generate(seed, 400):
            for j, place in enumerate(_place(doc["prompt"], doc["choices"])):
                hits, total = seen.get(place, (0, 0))
                seen[place] = (hits + (j == doc["gold"]), total + 1)

    def play(stem, options):
        return [(seen.get(p, (0, 0))[0] + 1) / (seen.get(p, (0, 0))[1] + 4) for p in _place(stem, options)]

    return play


def test_where_an_option_stands_in_the_list_tells_nothing_of_the_key():
    # The options stand at four places drawn among the last 15 - (quota - 1) of the list (quota: the asked
    # kind's number of words, 3..8): the final word is an option in 4/13 (load 5) .. 4/8 (load 2) of the
    # items, and the key in a quarter of those.
    docs = KEEP.generate(11, 2000)
    final = [d for d in docs if _words_and_asked(d["prompt"])[0][-1] in d["choices"]]
    assert 0.3 < len(final) / len(docs) < 0.45
    assert sum(d["choices"][d["gold"]] == _words_and_asked(d["prompt"])[0][-1] for d in final) / len(final) == (
        pytest.approx(0.25, abs=0.04))
    for strategy in (_rule_out_the_final_word, _serial_position_learned_on_other_seeds()):
        # 500 items per load (a learned table is noisy: sd 0.05 per 100 items over seeds 11-30, mean 0.25).
        accuracy = accuracy_by_condition("keep_track", strategy, (11, 12, 13, 14, 15), 400)
        assert max(accuracy[c] for c in KEEP.conditions) <= 0.25 + 0.05, accuracy


def _asked_kind(stem, options):
    """Issue 28: the option of the asked category, without tracking (0.52 on version 2)."""
    _, asked = _words_and_asked(stem)
    return [float(KIND[o] == asked) for o in options]


def test_the_asked_kind_heuristic_is_bound_to_recency():
    # Not removable, and pinned so that a change shows: the options after the key are of other kinds by
    # definition, so the asked kind fills at most the 3 - later places before it, and "an option of the
    # asked kind" earns 1 / (4 - later) where the kind has the words (1/4, 1/3, 1/2, 1: 0.52 pooled).
    # Filling more places with it would make the key the most recent option more often (recency, at
    # chance above, would pay instead).
    for doc in KEEP.generate(12, 400):
        _, asked = _words_and_asked(doc["prompt"])
        mine = sum(KIND[c] == asked for c in doc["choices"])
        words = _words_and_asked(doc["prompt"])[0]
        assert mine == min(4 - doc["later_options"], sum(KIND[w] == asked for w in words))
    accuracy = accuracy_by_condition("keep_track", _asked_kind, 12, 400)
    assert 0.5 <= accuracy["all"] <= 0.56
