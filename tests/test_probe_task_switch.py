"""Cued letter-number task switching: pinned items, a key recomputed from the prompt, effects."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from probe_strategies import accuracy_by_condition

SWITCH = get_probe("task_switch")
RULES = (
    'Task switching. Each trial shows a cue and a letter-number pair.\n'
    'If the cue is LETTER, classify the letter: a vowel (A, E, I, U) -> "{v}", a consonant (G, K, M, R) -> "{c}".\n'
    'If the cue is NUMBER, classify the number: an even number (2, 4, 6, 8) -> "{e}", an odd number (3, 5, 7, 9) -> "{o}".\n'
    "Earlier trials of this block, with their correct responses:\n"
)


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. Item 0 (single, all LETTER): A is a vowel -> lemon; 5 is odd -> lemon
    # too, so congruent. Item 1 (repeat, predictable runs L|NN|LL|NN): NUMBER U6, 6 is even
    # -> apple (U vowel -> apple: congruent). No history trial shows U or 6 (nor A or 5 in item 0,
    # A or 4 in item 2). Item 2 (switch, runs LL|NN|LL|NN|LL then N):
    # NUMBER A4, even -> lemon (A vowel -> lemon: congruent, so no lure). In items 0-11 (block
    # t = 0) the key is the first option, the first word the rules name, the last history
    # response, the more frequent history response and the first in alphabetical order. Every
    # history response checked against its cue's rule.
    docs = SWITCH.generate(0, 14)
    assert [d["prompt"] for d in docs[:3]] == [
        RULES.format(v="lemon", c="maple", e="maple", o="lemon")
        + "Trial 1: LETTER G7 -> maple\nTrial 2: LETTER U4 -> lemon\nTrial 3: LETTER G4 -> maple\n"
        "Trial 4: LETTER U9 -> lemon\nTrial 5: LETTER I2 -> lemon\nTrial 6: LETTER E7 -> lemon\n"
        "Trial 7: LETTER M9 -> maple\nTrial 8: LETTER I3 -> lemon\nTrial 9: LETTER U7 -> lemon\n"
        "Trial 10: LETTER A5 -> ?\nWhat is the correct response to trial 10? Options: lemon, maple.",
        RULES.format(v="apple", c="piano", e="apple", o="piano")
        + "Trial 1: LETTER I7 -> apple\nTrial 2: NUMBER M4 -> apple\nTrial 3: NUMBER R8 -> apple\n"
        "Trial 4: LETTER M2 -> piano\nTrial 5: LETTER A8 -> apple\nTrial 6: NUMBER I4 -> apple\n"
        "Trial 7: NUMBER U6 -> ?\nWhat is the correct response to trial 7? Options: apple, piano.",
        RULES.format(v="lemon", c="tiger", e="lemon", o="tiger")
        + "Trial 1: LETTER E3 -> lemon\nTrial 2: LETTER I9 -> lemon\nTrial 3: NUMBER U2 -> lemon\n"
        "Trial 4: NUMBER K8 -> lemon\nTrial 5: LETTER U6 -> lemon\nTrial 6: LETTER M3 -> tiger\n"
        "Trial 7: NUMBER R8 -> lemon\nTrial 8: NUMBER E2 -> lemon\nTrial 9: LETTER U5 -> lemon\n"
        "Trial 10: LETTER I8 -> lemon\nTrial 11: NUMBER A4 -> ?\nWhat is the correct response to trial 11? Options: lemon, tiger.",
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs[:3]] == [
        (["lemon", "maple"], 0, "single", -1),
        (["apple", "piano"], 0, "repeat", -1),
        (["lemon", "tiger"], 0, "switch", -1),
    ]
    assert [(d["congruency"], d["cueing"]) for d in docs[:3]] == [
        ("congruent", "none"), ("congruent", "predictable"), ("congruent", "predictable")
    ]
    # Item 13 (block t = 1): every property flipped. LETTER G3: G is a consonant -> south, the
    # second option, the second word named, not the last response (river), 3 of 9 responses,
    # after river alphabetically.
    assert docs[13]["prompt"].endswith(
        "Trial 9: LETTER E8 -> river\nTrial 10: LETTER G3 -> ?\n"
        "What is the correct response to trial 10? Options: river, south."
    )
    assert (docs[13]["gold"], docs[13]["condition"], docs[13]["congruency"]) == (1, "repeat", "congruent")


_RULE = re.compile(r'a vowel \(([A-Z, ]+)\) -> "(\w+)", a consonant \(([A-Z, ]+)\) -> "(\w+)"')
_NUM_RULE = re.compile(r'an even number \(([\d, ]+)\) -> "(\w+)", an odd number \(([\d, ]+)\) -> "(\w+)"')
_TRIAL = re.compile(r"^Trial (\d+): (LETTER|NUMBER) ([A-Z])(\d) -> (\w+|\?)$", re.MULTILINE)


def _respond(prompt: str, cue: str, letter: str, digit: str) -> str:
    """The response a cue's rule gives, read from the rules as the prompt states them."""
    vowels, vowel_word, consonants, consonant_word = _RULE.search(prompt).groups()
    evens, even_word, odds, odd_word = _NUM_RULE.search(prompt).groups()
    if cue == "LETTER":
        assert (letter in vowels) != (letter in consonants)
        return vowel_word if letter in vowels else consonant_word
    assert (digit in evens) != (digit in odds)
    return even_word if digit in evens else odd_word


@pytest.mark.parametrize("seed", [0, 11])
def test_key_condition_congruency_and_lure_recomputed_from_the_prompt(seed):
    for doc in SWITCH.generate(seed, 300):
        trials = _TRIAL.findall(doc["prompt"])
        *history, target = trials
        assert [int(t[0]) for t in trials] == list(range(1, len(trials) + 1)) and target[4] == "?"
        for _, cue, letter, digit, response in history:  # the history's responses are right
            assert _respond(doc["prompt"], cue, letter, digit) == response
        _, cue, letter, digit, _ = target
        answer = _respond(doc["prompt"], cue, letter, digit)
        other = _respond(doc["prompt"], "NUMBER" if cue == "LETTER" else "LETTER", letter, digit)
        previous = _respond(doc["prompt"], history[-1][1], letter, digit)
        assert doc["choices"][doc["gold"]] == answer and {answer, other} <= set(doc["choices"])
        assert len(doc["choices"]) == 2
        cues = [t[1] for t in trials]
        expected = "single" if len(set(cues)) == 1 else "repeat" if cues[-2] == cues[-1] else "switch"
        assert doc["condition"] == expected
        assert doc["condition"] == "single" or len(set(cues[:-1])) == 2  # a mixed block shows both tasks
        assert doc["congruency"] == ("congruent" if answer == other else "incongruent")
        assert doc["lure"] == (doc["choices"].index(previous) if previous != answer else -1)
        assert f"{letter}{digit}" not in {t[2] + t[3] for t in history}
        if doc["cueing"] == "predictable":
            # Runs of two: whether the cue changes alternates from trial to trial (AABB...).
            changes = [a != b for a, b in itertools.pairwise(cues)]
            assert all(x != y for x, y in itertools.pairwise(changes))
        assert (doc["cueing"] == "none") == (doc["condition"] == "single")


def test_conditions_congruency_and_cueing_are_balanced_by_index():
    docs = SWITCH.generate(0, 12)
    assert [d["condition"] for d in docs] == ["single", "repeat", "switch"] * 4
    assert [d["congruency"] for d in docs] == (["congruent"] * 3 + ["incongruent"] * 3) * 2
    assert [d["cueing"] for d in docs if d["condition"] != "single"] == ["predictable"] * 4 + ["random"] * 4


def test_key_position_naming_order_recency_frequency_and_alphabetical_rank_are_balanced_within_each_condition():
    # Read off the prompt: each property holds for the key in exactly half of each condition's
    # items (384 items: 32 blocks of 12, one full cycle), so "first option", "first named",
    # "last mentioned", "most / least mentioned" and "first in alphabetical order" score 1/2.
    docs = SWITCH.generate(4, 384)
    for condition in ("single", "repeat", "switch"):
        properties: dict[str, Counter] = {}
        for doc in (d for d in docs if d["condition"] == condition):
            key, other = doc["choices"][doc["gold"]], doc["choices"][1 - doc["gold"]]
            said = [t[4] for t in _TRIAL.findall(doc["prompt"])][:-1]
            first_named = _RULE.search(doc["prompt"]).group(2)
            assert said.count(key) != said.count(other)  # never a tie
            for name, holds in {
                "first option": doc["gold"] == 0,
                "first named": first_named == key,
                "last response": said[-1] == key,
                "more responses": said.count(key) > said.count(other),
                "first alphabetically": key < other,
            }.items():
                properties.setdefault(name, Counter())[holds] += 1
        assert all(counts == {True: 64, False: 64} for counts in properties.values()), properties


def test_every_response_word_has_five_letters_so_length_tells_nothing():
    for doc in SWITCH.generate(1, 300):
        assert [len(c) for c in doc["choices"]] == [5, 5]


def test_1200_items_are_distinct():
    docs = SWITCH.generate(0, 1200)
    assert len({SWITCH.identity(d) for d in docs}) == 1200


def _doc(condition, congruency, gold=0, lure=-1):
    return {"choices": ["lamp", "river"], "gold": gold, "lure": lure, "condition": condition, "congruency": congruency}


def test_effects_on_hand_built_answers():
    rows = [
        (_doc("single", "congruent"), 0),  # right
        (_doc("single", "incongruent"), 1),  # wrong
        (_doc("repeat", "congruent"), 0),  # right
        (_doc("repeat", "incongruent"), 0),  # right
        (_doc("repeat", "incongruent"), 1),  # wrong
        (_doc("switch", "congruent"), 1),  # wrong, no lure
        (_doc("switch", "incongruent", lure=1), 1),  # the previous task's response
        (_doc("switch", "incongruent", lure=1), 0),  # right
        (_doc("switch", "incongruent", lure=1), None),  # invalid: an error, not the lure
    ]
    scores = aggregate(SWITCH, [SWITCH.score(doc, pred) for doc, pred in rows])
    # acc: single 1/2, repeat 2/3, switch 1/4; congruent 2/3 (1, 1, 0); incongruent 2/6 (0, 1, 0, 0, 1, 0).
    assert scores["switch_cost"] == pytest.approx(2 / 3 - 1 / 4)  # 5/12
    assert scores["mixing_cost"] == pytest.approx(1 / 2 - 2 / 3)  # -1/6
    assert scores["congruency_effect"] == pytest.approx(2 / 3 - 1 / 3)
    # Switch errors: congruent (no lure), lure, invalid -> 1 of 3.
    assert scores["lure_share"] == pytest.approx(1 / 3)
    assert scores["acc"] == pytest.approx(4 / 9)


def test_a_player_of_the_previous_task_shows_a_switch_cost_and_no_mixing_cost():
    scores = play(SWITCH, "prepotent", SWITCH.generate(0, 300), "gen")
    # Only incongruent switch items (50 of 100 switch, 50 of 150 incongruent) are lost.
    assert scores["acc_single"] == scores["acc_repeat"] == 1.0 and scores["acc_switch"] == 0.5
    assert scores["switch_cost"] == 0.5 and scores["mixing_cost"] == 0.0
    assert scores["congruency_effect"] == pytest.approx(1 / 3) and scores["lure_share"] == 1.0


def test_random_player_shows_no_switch_cost_and_half_its_switch_errors_are_lures():
    scores = play(SWITCH, "random", SWITCH.generate(0, 3000), "mc")
    se = math.sqrt(2 * 0.25 / 1000)
    assert abs(scores["switch_cost"]) < 3.5 * se and abs(scores["mixing_cost"]) < 3.5 * se
    assert scores["lure_share"] == pytest.approx(0.5, abs=0.08)


@pytest.mark.parametrize(("answer", "expected"), [("River.", 1), ("**lamp**", 0), ('"LAMP"', 0)])
def test_decorated_answers_read_as_the_choice(answer, expected):
    assert SWITCH.read(_doc("repeat", "congruent"), answer) == expected


@pytest.mark.parametrize("answer", ["lamp or river", "lamp, river", "the response is lamp", "", "north", "0"])
def test_hedged_empty_or_foreign_answers_are_invalid(answer):
    assert SWITCH.read(_doc("repeat", "congruent"), answer) is None


@pytest.mark.parametrize(
    ("overrides", "name"),
    [({"min_history": 2}, "min_history"), ({"max_history": 21}, "max_history"),
     ({"min_history": 8, "max_history": 7}, "max_history"), ({"history": 5}, "history"), ({"min_history": 3.0}, "min_history")],
)
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        SWITCH.make_params(overrides)


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in SWITCH.heuristics}
HAND = RULES.format(v="lemon", c="maple", e="maple", o="lemon") + (
    "Trial 1: LETTER G7 -> maple\nTrial 2: NUMBER U4 -> maple\nTrial 3: LETTER A5 -> ?\n"
)


def test_response_repetition_gives_the_previous_response():
    assert HEURISTICS["response_repetition"].scores(HAND, ["lemon", "maple"]) == [0.0, 1.0]


def test_episodic_retrieval_gives_the_response_of_the_last_trial_sharing_a_letter_or_number():
    # A5 shares nothing with G7 or U4: no basis; G4 shares G with trial 1 and 4 with trial 2 (the later one).
    assert HEURISTICS["episodic_retrieval"].scores(HAND, ["lemon", "maple"]) is None
    shared = HAND.replace("A5 -> ?", "G4 -> ?")
    assert HEURISTICS["episodic_retrieval"].scores(shared, ["lemon", "maple"]) == [0.0, 1.0]


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_no_earlier_response_can_be_copied_by_letter_or_number(seed):
    # Issue 28: "copy the answer of the last earlier trial with the same letter" scored 0.61 on version 2.
    # The target now shares neither letter nor number with the history: the strategy has no basis, and the
    # declared heuristics stay at chance in every condition.
    for doc in SWITCH.generate(seed, 400):
        *history, target = _TRIAL.findall(doc["prompt"])
        assert all(h[2] != target[2] and h[3] != target[3] for h in history)
    for heuristic in SWITCH.heuristics:
        accuracy = accuracy_by_condition("task_switch", heuristic, seed, 400)
        assert max(accuracy[c] for c in SWITCH.conditions) <= 0.5 + 0.05, (heuristic.name, accuracy)
