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
    # Checked by hand: item 0's countries end "Mexico, rabbit, frog, Japan" -> Japan (lure Mexico),
    # then tiger and camel are the latest other words; item 1's instruments end "violin, piano";
    # item 2's animals end "frog, dog", followed by Peru and green.
    docs = KEEP.generate(0, 3)
    head = "Read the list of words below. Each word is one of these kinds: "
    mid = ". Keep track of the most recent word of each kind.\nWords: "
    assert [d["prompt"] for d in docs] == [
        head + "animal, country" + mid + "Brazil, shark, France, Norway, India, Chile, eagle, Canada, Mexico, "
        "rabbit, frog, Japan, horse, camel, tiger\nWhat was the last country in the list? Answer with that word only.",
        head + "musical instrument, animal, tool" + mid + "clarinet, shark, eagle, mouse, harp, guitar, saw, pliers, "
        "violin, piano, crowbar, camel, chisel, dog, wrench\nWhat was the last musical instrument in the list? "
        "Answer with that word only.",
        head + "tool, country, animal, colour" + mid + "Canada, wrench, pliers, red, Spain, saw, goat, rabbit, grey, "
        "Mexico, yellow, frog, dog, Peru, green\nWhat was the last animal in the list? Answer with that word only.",
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["camel", "Mexico", "Japan", "tiger"], 2, "load2", 1),
        (["wrench", "piano", "dog", "violin"], 1, "load3", 3),
        (["dog", "frog", "Peru", "green"], 0, "load4", 1),
    ]


@pytest.mark.parametrize("length", [15, 10, 24])
def test_keys_re_derived_from_the_word_list(length):
    docs = KEEP.generate(3, 200, KEEP.make_params({"list_length": length}))
    for doc in docs:
        words = re.search(r"Words: (.+)\n", doc["prompt"]).group(1).split(", ")
        asked = re.search(r"What was the last (.+) in the list\?", doc["prompt"]).group(1)
        kinds = [KIND[w] for w in words]
        assert len(words) == length == len(set(words))
        counts = Counter(kinds)
        assert len(counts) == int(doc["condition"][-1]) and max(counts.values()) - min(counts.values()) <= 1
        mine = [w for w in reversed(words) if KIND[w] == asked]  # the asked kind, latest first
        assert doc["choices"][doc["gold"]] == mine[0] and doc["choices"][doc["lure"]] == mine[1]
        assert kinds[-1] != asked  # another kind follows the key
        rest = [w for w in reversed(words) if KIND[w] != asked][:2]
        assert sorted(doc["choices"]) == sorted([mine[0], mine[1], *rest])
    assert Counter(d["condition"] for d in docs) == {c: 50 for c in KEEP.conditions}


def _doc(condition):
    return {"choices": ["Japan", "Mexico", "tiger", "camel"], "gold": 0, "condition": condition, "lure": 1}


def test_metrics_on_hand_scored_answers():
    answers = [
        (_doc("load2"), "Japan"), (_doc("load2"), "**japan**"),  # load 2: 2/2
        (_doc("load3"), "Mexico"),  # load 3: an update error
        (_doc("load5"), "Mexico."),  # load 5: an update error
        (_doc("load5"), "tiger"),  # load 5: a recency error
        (_doc("load5"), "Japan or Mexico"),  # load 5: invalid (an error, not an update error)
        (_doc("load5"), "Japan"),  # load 5: right -> 1/4
    ]
    scores = aggregate(KEEP, [KEEP.score_gen(doc, text) for doc, text in answers])
    assert scores["acc_load2"] == 1.0 and scores["acc_load3"] == 0.0 and scores["acc_load5"] == 0.25
    assert scores["load_cost"] == 0.75  # 2/2 - 1/4
    assert scores["update_error_share"] == 0.5  # 4 errors, 2 name the previous country
    assert scores["invalid_rate"] == pytest.approx(1 / 7) and scores["acc"] == pytest.approx(3 / 7)


def test_a_memory_that_misses_the_last_update_makes_only_update_errors():
    scores = play(KEEP, "prepotent", KEEP.generate(0, 300), "mc")
    assert scores["acc"] == 0.0 and scores["update_error_share"] == 1.0 and scores["load_cost"] == 0.0
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
