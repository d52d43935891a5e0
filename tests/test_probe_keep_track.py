"""Keep-track: pinned items, keys re-derived from the word list, hand-computed effects."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from lm_eval_cog.probes._keep_track_words import CATEGORIES
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

KEEP = get_probe("keep_track")
#: word -> singular category name, from the bank (each word in one category).
KIND = {w: singular for _, singular, words in CATEGORIES for w in words}


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: item 0's countries end "Mexico, rabbit, frog, Japan" -> Japan; no option follows
    # it (its cycle starts at 0), so the options are the overwritten countries Canada (before Mexico),
    # Mexico (the lure, the previous country) and Chile. Item 4 (load 2 again, one option after the
    # key): the last tool is drill; the lure is pliers, the tool before it, then axe (before pliers),
    # and zebra, an animal named after drill.
    docs = KEEP.generate(0, 5)
    head = "Read the list of words below. Each word is one of these kinds: "
    mid = ". Keep track of the most recent word of each kind.\nWords: "
    assert docs[0]["prompt"] == (
        head + "animal, country" + mid + "Brazil, shark, France, Norway, India, Chile, eagle, Canada, Mexico, "
        "rabbit, frog, Japan, horse, zebra, tiger\nWhat was the last country in the list? Answer with that word only."
    )
    assert docs[4]["prompt"] == (
        head + "animal, tool" + mid + "mouse, hammer, trowel, chisel, saw, dog, axe, pliers, frog, horse, shark, "
        "drill, wolf, rabbit, zebra\nWhat was the last tool in the list? Answer with that word only."
    )
    assert [(d["choices"], d["gold"], d["condition"], d["lure"], d["later_options"]) for d in docs] == [
        (["Japan", "Canada", "Mexico", "Chile"], 0, "load2", 2, 0),
        (["piano", "violin", "harp", "guitar"], 0, "load3", 1, 0),
        (["dog", "frog", "rabbit", "goat"], 0, "load4", 1, 0),
        (["grape", "coconut", "papaya", "mouse"], 0, "load5", 2, 0),
        (["pliers", "drill", "zebra", "axe"], 1, "load2", 0, 1),
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
        assert key == mine[0] and kinds[-1] != asked  # another kind follows the key
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
