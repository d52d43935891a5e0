"""Static WCST inference: pinned items, the rule recomputed from the feedback, perseveration."""

from __future__ import annotations

import math
import re

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

WCST = get_probe("wcst_inference")
HEAD = (
    "Card sorting. There are four key cards:\n{keys}\n"
    "Each new card goes to one key card by a rule: the same colour, the same shape, or the same number of symbols. "
    "The rule is only ever one of these three, never a combination. The rule is not told: after each sort the "
    'feedback says "correct" or "wrong". The rule can change without warning.\nSorts so far:\n'
)
TAIL = "Which key card does the next card go to? Answer with its number: 1, 2, 3 or 4."


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand.
    # Item 0: sort 1 went by colour (blue -> card 2) and was wrong; sorts 2-3 by number were
    #   correct: rule number, so three green circles -> card 3 (index 2).
    # Item 1: sort 1 by shape wrong, 2-3 by number correct, sort 4 by number wrong (the change),
    #   sort 5 by shape wrong, 6-7 by colour correct: rule colour, three green crosses -> card 4
    #   (four green triangles, index 3); the old rule (number) points to card 3 (index 2).
    # Item 2: colour and shape wrong, number correct twice, then number wrong (the change) and
    #   shape wrong (triangle -> card 1): only colour is left, so three green circles -> card 2
    #   (two green stars, index 1); number points to card 3 (index 2).
    docs = WCST.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        HEAD.format(keys="Card 1: one yellow triangle\nCard 2: two blue circles\nCard 3: three red stars\nCard 4: four green crosses")
        + "1. four blue stars -> Card 2: wrong\n2. three yellow crosses -> Card 3: correct\n"
        "3. two yellow stars -> Card 2: correct\nNext card: three green circles.\n" + TAIL,
        HEAD.format(keys="Card 1: one red cross\nCard 2: two blue stars\nCard 3: three yellow circles\nCard 4: four green triangles")
        + "1. three red triangles -> Card 4: wrong\n2. two yellow triangles -> Card 2: correct\n"
        "3. two green crosses -> Card 2: correct\n4. three red stars -> Card 3: wrong\n5. one green circle -> Card 3: wrong\n"
        "6. three blue triangles -> Card 2: correct\n7. two red circles -> Card 1: correct\nNext card: three green crosses.\n" + TAIL,
        HEAD.format(keys="Card 1: one red triangle\nCard 2: two green stars\nCard 3: three yellow crosses\nCard 4: four blue circles")
        + "1. four green crosses -> Card 2: wrong\n2. one blue star -> Card 2: wrong\n3. two blue triangles -> Card 2: correct\n"
        "4. one blue cross -> Card 1: correct\n5. three red circles -> Card 3: wrong\n6. three green triangles -> Card 1: wrong\n"
        "Next card: three green circles.\n" + TAIL,
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["1", "2", "3", "4"], 2, "before_switch", -1),
        (["1", "2", "3", "4"], 3, "after_switch", 2),
        (["1", "2", "3", "4"], 1, "just_switched", 2),
    ]


# -- an independent solver: parse the text, explain the feedback with the fewest rule changes --
RULES = ("colour", "shape", "number")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
_CARD = r"(one|two|three|four) (\w+?) (triangle|star|cross|circle)(?:s|es)?"
_KEY = re.compile(rf"^Card (\d): {_CARD}$", re.MULTILINE)
_SORT = re.compile(rf"^\d+\. {_CARD} -> Card (\d): (correct|wrong)$", re.MULTILINE)
_NEXT = re.compile(rf"^Next card: {_CARD}\.$", re.MULTILINE)


def _card(count: str, colour: str, shape: str) -> dict:
    return {"number": _WORDS[count], "colour": colour, "shape": shape}


def _matches(card: dict, key: dict) -> set[str]:
    return {r for r in RULES if card[r] == key[r]}


def _parse(prompt: str):
    keys = {int(n): _card(*rest) for n, *rest in _KEY.findall(prompt)}
    sorts = [(_card(*m[:3]), int(m[3]), m[4]) for m in _SORT.findall(prompt)]
    return keys, sorts, _card(*_NEXT.search(prompt).groups())


def _consistent(rule: str, sort, keys) -> bool:
    card, chosen, feedback = sort
    return (feedback == "correct") == (rule in _matches(card, keys[chosen]))


def _final_rules_with_fewest_changes(sorts, keys) -> tuple[int, set[str]]:
    """Dynamic programming over rule sequences: the fewest changes explaining every
    feedback, and the rules in force at the end of the sequences that achieve it."""
    cost = {r: 0 if _consistent(r, sorts[0], keys) else math.inf for r in RULES}
    for sort in sorts[1:]:
        cost = {
            r: min(cost[r], min(cost[q] + 1 for q in RULES if q != r)) if _consistent(r, sort, keys) else math.inf
            for r in RULES
        }
    best = min(cost.values())
    return best, {r for r in RULES if cost[r] == best}


@pytest.mark.parametrize("seed", [0, 5])
def test_exactly_one_rule_explains_the_feedback_and_it_is_the_key(seed):
    for doc in WCST.generate(seed, 300, WCST.make_params({"min_run": 1, "max_run": 6})):
        keys, sorts, target = _parse(doc["prompt"])
        assert sorted(keys) == [1, 2, 3, 4] and len(sorts) == doc["sorts"]
        # Every card shown is unambiguous: each sort reveals one dimension, and the three
        # rules send the next card to three different key cards (the fourth matches nothing).
        for card, chosen, _ in sorts:
            assert len(_matches(card, keys[chosen])) == 1
        owners = {r: next(k for k in keys if target[r] == keys[k][r]) for r in RULES}
        assert len(set(owners.values())) == 3
        assert len({(c["number"], c["colour"], c["shape"]) for c, _, _ in sorts} | {tuple(target.values())}) == len(sorts) + 1
        # The last change: the first "wrong" after a "correct" (none before the switch).
        feedback = [f for _, _, f in sorts]
        change = next((t for t in range(1, len(sorts)) if feedback[t] == "wrong" and "correct" in feedback[:t]), 0)
        since = [r for r in RULES if all(_consistent(r, s, keys) for s in sorts[change:])]
        assert len(since) == 1, (doc["prompt"], since)
        changes, finals = _final_rules_with_fewest_changes(sorts, keys)
        assert finals == set(since) and changes == (0 if doc["condition"] == "before_switch" else 1)
        assert doc["gold"] == owners[since[0]] - 1
        if doc["condition"] == "before_switch":
            assert change == 0 and doc["lure"] == -1
        else:
            before = [r for r in RULES if all(_consistent(r, s, keys) for s in sorts[:change])]
            assert len(before) == 1 and doc["lure"] == owners[before[0]] - 1
            corrects_since = feedback[change:].count("correct")
            assert (corrects_since == 0) == (doc["condition"] == "just_switched")


def _doc(condition, gold=0, lure=-1):
    return {"choices": ["1", "2", "3", "4"], "gold": gold, "lure": lure, "condition": condition,
            "key_cards": ["one red triangle", "two green stars", "three yellow crosses", "four blue circles"]}


def test_effects_on_hand_built_answers():
    rows = [
        (_doc("before_switch"), 0),  # right
        (_doc("before_switch"), 2),  # wrong
        (_doc("after_switch", lure=1), 1),  # perseverative
        (_doc("after_switch", lure=1), 0),  # right
        (_doc("just_switched", lure=2), 2),  # perseverative
        (_doc("just_switched", lure=2), 3),  # wrong, not perseverative
        (_doc("just_switched", lure=2), None),  # invalid: wrong, not perseverative
    ]
    scores = aggregate(WCST, [WCST.score(doc, pred) for doc, pred in rows])
    # After-change items: 5, of which 2 chose the previous rule's card.
    assert scores["perseverative_choice_rate"] == pytest.approx(2 / 5)
    # acc before 1/2; after 1/5 (only the second after_switch item) -> 3/10.
    assert scores["shift_cost"] == pytest.approx(1 / 2 - 1 / 5)
    assert scores["acc_after_switch"] == 0.5 and scores["acc_just_switched"] == 0.0


def test_a_perseverating_player_keeps_the_old_rule():
    scores = play(WCST, "prepotent", WCST.generate(0, 300), "mc")
    assert scores["acc_before_switch"] == 1.0 and scores["acc_after_switch"] == scores["acc_just_switched"] == 0.0
    assert scores["perseverative_choice_rate"] == 1.0 and scores["shift_cost"] == 1.0


def test_random_player_perseverates_on_a_quarter_of_after_change_items():
    scores = play(WCST, "random", WCST.generate(0, 3000), "gen")
    assert scores["perseverative_choice_rate"] == pytest.approx(0.25, abs=3.5 * math.sqrt(0.25 * 0.75 / 2000))
    assert abs(scores["shift_cost"]) < 3.5 * math.sqrt(0.25 * 0.75 * (1 / 1000 + 1 / 2000))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("2", 1), ("Card 3", 2), ("**card 4.**", 3), ("card two", 1), ("Key card #1", 0), ("(3)", 2),
     ("two green stars", 1), ("Four blue circles.", 3), ("5", -1), ("card 7", -1), ("0", -1)],
)
def test_card_numbers_and_key_card_names_are_read(answer, expected):
    assert WCST.read(_doc("after_switch"), answer) == expected


@pytest.mark.parametrize(
    "answer", ["2 or 3", "1, 2", "card", "", "I think 2", "green stars", "two red stars", "three green circles", "2-3"]
)
def test_hedged_partial_or_foreign_answers_are_invalid(answer):
    assert WCST.read(_doc("after_switch"), answer) is None


@pytest.mark.parametrize(
    ("overrides", "name"),
    [({"min_run": 0}, "min_run"), ({"max_run": 11}, "max_run"), ({"min_run": 4, "max_run": 3}, "max_run"),
     ({"run": 3}, "run"), ({"max_run": "5"}, "max_run")],
)
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        WCST.make_params(overrides)
