"""Static WCST inference: pinned items, the rule recomputed from the feedback, perseveration."""

from __future__ import annotations

import math
import re
from collections import Counter

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
    # Checked by hand (the first item of each condition has its key at card 1, rule colour).
    # Item 0: sort 1 by number (four -> card 4) and sort 2 by shape (cross -> card 4) were wrong,
    #   sorts 3-5 by colour correct: rule colour, three yellow circles -> card 1 (index 0).
    # Item 1: number and colour wrong, shape correct five times, then shape wrong (three blue crosses
    #   -> card 1: the change), number wrong (four -> card 4), colour correct (yellow -> card 3): rule
    #   colour, four red stars -> card 1; the old rule (shape: stars) points to card 2 (index 1).
    # Item 2: number and colour wrong, shape correct five times, then shape wrong (one yellow circle
    #   -> card 4: the change) and number wrong (three -> card 3): only colour is left, so three red
    #   stars -> card 1 (one red triangle, index 0); shape points to card 2 (two green stars, index 1).
    docs = WCST.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        HEAD.format(keys="Card 1: one yellow triangle\nCard 2: two blue circles\nCard 3: three red stars\nCard 4: four green crosses")
        + "Sort 1: four blue stars -> Card 4: wrong\nSort 2: two yellow crosses -> Card 4: wrong\n"
        "Sort 3: two yellow stars -> Card 1: correct\nSort 4: three yellow crosses -> Card 1: correct\n"
        "Sort 5: four red circles -> Card 3: correct\nNext card: three yellow circles.\n" + TAIL,
        HEAD.format(keys="Card 1: one red cross\nCard 2: two blue stars\nCard 3: three yellow circles\nCard 4: four green triangles")
        + "Sort 1: three red triangles -> Card 3: wrong\nSort 2: two yellow triangles -> Card 3: wrong\n"
        "Sort 3: two green crosses -> Card 1: correct\nSort 4: three red stars -> Card 2: correct\n"
        "Sort 5: two red circles -> Card 3: correct\nSort 6: three blue triangles -> Card 4: correct\n"
        "Sort 7: three green crosses -> Card 1: correct\nSort 8: three blue crosses -> Card 1: wrong\n"
        "Sort 9: four blue crosses -> Card 4: wrong\nSort 10: two yellow crosses -> Card 3: correct\n"
        "Next card: four red stars.\n" + TAIL,
        HEAD.format(keys="Card 1: one red triangle\nCard 2: two green stars\nCard 3: three yellow crosses\nCard 4: four blue circles")
        + "Sort 1: four green crosses -> Card 4: wrong\nSort 2: one blue star -> Card 4: wrong\n"
        "Sort 3: two blue triangles -> Card 1: correct\nSort 4: one blue cross -> Card 3: correct\n"
        "Sort 5: three red circles -> Card 4: correct\nSort 6: three green triangles -> Card 1: correct\n"
        "Sort 7: three green circles -> Card 4: correct\nSort 8: one yellow circle -> Card 4: wrong\n"
        "Sort 9: three blue stars -> Card 3: wrong\nNext card: three red stars.\n" + TAIL,
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["1", "2", "3", "4"], 0, "before_switch", -1),
        (["1", "2", "3", "4"], 0, "after_switch", 1),
        (["1", "2", "3", "4"], 0, "just_switched", 1),
    ]


def test_key_card_rule_and_lure_card_are_counterbalanced_within_each_condition():
    # 432 items = 144 per condition: 4 key cards x 3 rules x (after a change) 3 lure cards x 2 old rules.
    docs = WCST.generate(1, 432)
    for condition in WCST.conditions:
        cell = [d for d in docs if d["condition"] == condition]
        assert Counter(d["gold"] for d in cell) == {k: 36 for k in range(4)}
        assert Counter(d["rule"] for d in cell) == {r: 48 for r in RULES}
        assert Counter((d["gold"], d["rule"]) for d in cell) == {(k, r): 12 for k in range(4) for r in RULES}
        # Items of even and of odd index see the same key distribution (two items per key card in a row).
        for parity in (0, 1):
            assert Counter(d["gold"] for d in cell if d["index"] % 2 == parity) == {k: 18 for k in range(4)}
        if condition == "before_switch":
            assert all(d["lure"] == -1 for d in cell)
        else:
            assert Counter((d["lure"] - d["gold"]) % 4 for d in cell) == {1: 48, 2: 48, 3: 48}
            assert Counter(d["lure"] for d in cell) == {k: 36 for k in range(4)}
            assert Counter((d["rule"], d["previous_rule"]) for d in cell) == {
                (r, q): 24 for r in RULES for q in RULES if q != r
            }


def test_history_sends_cards_to_the_key_card_as_often_as_to_the_others():
    # The history is drawn before the next card, so the key card's class (the cards the rule sends to it)
    # is not a card short in it: the correct sorts before a switch go to the key card a quarter of the time
    # (drawing the next card first made it 5 in 23, and the least recently named card the key too often).
    docs = [d for d in WCST.generate(5, 2400) if d["condition"] == "before_switch"]
    sorts = [(chosen - 1, d["gold"]) for d in docs for _, chosen, fb in _parse(d["prompt"])[1] if fb == "correct"]
    share = sum(chosen == gold for chosen, gold in sorts) / len(sorts)
    assert abs(share - 0.25) < 3 * math.sqrt(0.25 * 0.75 / len(sorts)) and abs(share - 5 / 23) > 0.03


def test_no_two_items_are_the_same():
    docs = WCST.generate(0, 1200)
    assert len({d["prompt"] for d in docs}) == len({WCST.identity(d) for d in docs}) == 1200


# -- an independent solver: parse the text, explain the feedback with the fewest rule changes --
RULES = ("colour", "shape", "number")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
_CARD = r"(one|two|three|four) (\w+?) (triangle|star|cross|circle)(?:s|es)?"
_KEY = re.compile(rf"^Card (\d): {_CARD}$", re.MULTILINE)
_SORT = re.compile(rf"^Sort \d+: {_CARD} -> Card (\d): (correct|wrong)$", re.MULTILINE)
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
