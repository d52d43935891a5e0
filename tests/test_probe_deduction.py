"""Deduction: pinned items, labels and depths re-derived from the printed theory by backward
chaining and by truth tables, depth and closed-world effects."""

from __future__ import annotations

import re
from collections import Counter
from itertools import product

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

DED = get_probe("deduction")
HEAD = "Here are facts and rules about made-up people and properties.\n"
TAIL = (
    "Answer True if the statement follows from the facts and rules, False if its negation follows from them, "
    "and Unknown if neither follows. Use only the facts and rules given: something that is not stated or "
    "derivable is not thereby false. Options: "
)
FACT = re.compile(r"^(?:- |Statement: )([A-Z]\w+) is (not )?(\w+)\.$")
RULE = re.compile(r"^- (?:If someone is (.+) then they are (.+)|Everyone who is (.+?) is (.+))\.$")


def _literal(text: str) -> tuple[str, bool]:
    return (text[4:], False) if text.startswith("not ") else (text, True)


def parse(prompt: str):
    """(facts {(person, property): sign}, rules [(body, head)], (person, statement literal))."""
    facts, rules, statement = {}, [], None
    for line in prompt.splitlines():
        if m := FACT.match(line):
            person, lit = m.group(1), (m.group(3), m.group(2) is None)
            if line.startswith("Statement"):
                statement = (person, lit)
            else:
                assert (person, lit[0]) not in facts
                facts[(person, lit[0])] = lit[1]
        elif m := RULE.match(line):
            body, head = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            rules.append(([_literal(b) for b in body.split(" and ")], _literal(head)))
    return facts, rules, statement


def proof_height(facts, rules, person, goal, limit=8):
    """Smallest h such that backward chaining proves ``goal`` with proofs of height <= h; None if none."""

    def provable(lit, h):
        if facts.get((person, lit[0])) == lit[1]:
            return True
        return h > 0 and any(head == lit and all(provable(b, h - 1) for b in body) for body, head in rules)

    return next((h for h in range(limit + 1) if provable(goal, h)), None)


def models(facts, rules, person, props):
    """Every assignment of ``props`` satisfying the person's facts and every rule."""
    for values in product((False, True), repeat=len(props)):
        world = dict(zip(props, values))
        if all(world[q] == s for (who, q), s in facts.items() if who == person) and all(
            world[head[0]] == head[1] or not all(world[q] == s for q, s in body) for body, head in rules
        ):
            yield world


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 0 "Drabul is zofom" is a fact (depth 0); 1 Nela is trimon and not tikak,
    # so kisnil by one rule (the kresem rule does not apply: Nela is not kresem); 2 Vikron is
    # fetik and fuglin -> zoblik, zoblik and renan -> not sneki: two rules (not momit blocks
    # the "momit -> sneki" rule).
    docs = DED.generate(0, 3)
    bodies = [
        ("Facts:\n- Gladok is not zofom.\n- Drabul is not mosnan.\n- Drabul is zofom.\n- Zwikek is fotrok.\n"
        "Rules:\n- Everyone who is zofom is fotrok.\n- Everyone who is mosnan is not zofom.\n"
        "Statement: Drabul is zofom.\n"),
        ("Facts:\n- Nela is not kresem.\n- Nela is trimon.\n- Nela is not tikak.\n- Musnam is not tikak.\n"
        "- Drazak is not zukro.\nRules:\n- If someone is trimon and not tikak then they are kisnil.\n"
        "- Everyone who is kresem is not kisnil.\n- Everyone who is not tikak is zukro.\nStatement: Nela is kisnil.\n"),
        ("Facts:\n- Pozu is sneki.\n- Vikron is fetik.\n- Pozu is not zwezwup.\n- Geblak is not sneki.\n"
        "- Vikron is renan.\n- Vikron is not momit.\n- Vikron is fuglin.\nRules:\n- Everyone who is momit is sneki.\n"
        "- If someone is zoblik and renan then they are not sneki.\n- Everyone who is fetik and fuglin is zoblik.\n"
        "- Everyone who is zoblik is zwezwup.\nStatement: Vikron is not sneki.\n"),
    ]
    # The first items of each (depth, label) cell have the key first: True, False, Unknown.
    options = ["True, False, Unknown."] * 3
    assert [d["prompt"] for d in docs] == [HEAD + b + TAIL + o for b, o in zip(bodies, options)]
    assert [(d["condition"], d["label"], d["gold"], d["lure"]) for d in docs] == [
        ("d0", "True", 0, -1), ("d1", "True", 0, -1), ("d2", "True", 0, -1)
    ]


def test_key_place_cycles_within_every_depth_and_label():
    # 540 items: 6 depths x 3 labels x 3 places x 10, the options a rotation of True, False, Unknown.
    docs = DED.generate(3, 540)
    cells = Counter((d["condition"], d["label"], d["gold"]) for d in docs)
    assert cells == {(f"d{k}", lab, g): 10 for k in range(6) for lab in ("True", "False", "Unknown") for g in range(3)}
    rotations = [["True", "False", "Unknown"], ["False", "Unknown", "True"], ["Unknown", "True", "False"]]
    assert all(d["choices"] in rotations for d in docs)
    # So every option text is the key in a third of each depth's items, at every place.
    for k in range(6):
        keys = Counter(d["choices"][d["gold"]] for d in docs if d["depth"] == k)
        assert keys == {"True": 30, "False": 30, "Unknown": 30}


def test_no_two_items_are_the_same_up_to_option_order():
    docs = DED.generate(0, 1200)
    assert len({DED.identity(d) for d in docs}) == 1200
    assert len({d["prompt"].split("Options:")[0] for d in docs}) == 1200


def test_labels_and_depths_match_an_independent_backward_prover_and_truth_tables():
    docs = DED.generate(5, 240)
    assert {(d["condition"], d["label"]) for d in docs} == {(f"d{k}", lab) for k in range(6) for lab in ("True", "False", "Unknown")}
    for doc in docs:
        facts, rules, (person, lit) = parse(doc["prompt"])
        assert doc["statement"] == f"{person} is {'' if lit[1] else 'not '}{lit[0]}."
        props = sorted({q for _, q in facts} | {q for body, head in rules for q, _ in [*body, head]})
        people = {who for who, _ in facts}
        # Every person's theory has a model (else everything would follow).
        assert all(next(models(facts, rules, who, props), None) is not None for who in people)
        values = {world[lit[0]] == lit[1] for world in models(facts, rules, person, props)}
        classical = "True" if values == {True} else "False" if values == {False} else "Unknown"
        yes, no = proof_height(facts, rules, person, lit), proof_height(facts, rules, person, (lit[0], not lit[1]))
        chained = "True" if yes is not None else "False" if no is not None else "Unknown"
        assert classical == chained == doc["label"] == doc["choices"][doc["gold"]], doc["prompt"]
        if doc["label"] != "Unknown":
            assert (yes if yes is not None else no) == doc["depth"] == int(doc["condition"][1:])
            assert doc["lure"] == -1
        else:
            # The closed-world (negation as failure) answer: False for "is p", True for "is not p".
            assert doc["choices"][doc["lure"]] == ("False" if lit[1] else "True")


def test_unknown_items_hold_a_chain_of_their_depth_to_the_statement():
    # The broken chain: walking rule heads back to bodies, `depth` steps from the statement's
    # property reach a stated property.
    for doc in DED.generate(2, 120):
        if doc["label"] != "Unknown" or doc["depth"] == 0:
            continue
        facts, rules, (_, lit) = parse(doc["prompt"])
        level = {lit[0]}
        for _ in range(doc["depth"]):
            level = {q for body, head in rules if head[0] in level for q, _ in body}
        assert level & {q for _, q in facts}, doc["prompt"]


def test_statement_sign_is_balanced_within_each_label():
    docs = DED.generate(0, 300)
    for label in ("True", "False", "Unknown"):
        signs = [" is not " in d["statement"] for d in docs if d["label"] == label]
        assert 0.3 < sum(signs) / len(signs) < 0.7


def _doc(condition, label, gold=0, lure=-1):
    return {"choices": ["True", "False", "Unknown"], "gold": gold, "condition": condition, "lure": lure,
            "label": label, "depth": int(condition[1:])}


def test_effects_on_hand_built_answers():
    rows = [
        (_doc("d0", "True", 0), 0),               # right
        (_doc("d0", "Unknown", 2, 1), 2),         # right
        (_doc("d5", "False", 1), 1),              # right
        (_doc("d5", "Unknown", 2, 1), 1),         # the closed-world error
        (_doc("d3", "Unknown", 2, 0), None),      # invalid
    ]
    scores = aggregate(DED, [DED.score(d, p) for d, p in rows])
    assert scores["depth_cost"] == pytest.approx(1.0 - 0.5)  # acc(d0) = 2/2, acc(d5) = 1/2
    # x = 0, 0, 5, 5, 3 (mean 2.6), y = 1, 1, 1, 0, 0 (mean 0.6): sum dx*dy = -1.04 - 1.04 + 0.96
    # - 1.44 - 0.24 = -2.8, sum dx^2 = 6.76 + 6.76 + 5.76 + 5.76 + 0.16 = 25.2: slope -1/9.
    assert scores["depth_slope"] == pytest.approx(-1 / 9)
    assert scores["closed_world_rate"] == pytest.approx(1 / 3)  # 1 of the 3 Unknown items


def test_a_closed_world_reasoner_fails_every_unknown_item_at_every_depth():
    scores = play(DED, "prepotent", DED.generate(0, 300), "gen")
    # Per depth 50 items, labels T, F, U rotating: 17 + 17 right, 16 Unknown wrong.
    assert all(scores[f"acc_d{k}"] == pytest.approx(34 / 50) for k in range(6))
    assert scores["depth_cost"] == 0.0 and scores["depth_slope"] == pytest.approx(0.0, abs=1e-12)
    assert scores["closed_world_rate"] == 1.0


@pytest.mark.parametrize(("answer", "expected"), [("True", 0), ("**unknown**", 2), ("False.", 1), ("'TRUE'", 0)])
def test_decorated_answers_are_read(answer, expected):
    assert DED.read(_doc("d1", "True"), answer) == expected


@pytest.mark.parametrize("answer", ["True or Unknown", "probably true", "", "yes", "Neither"])
def test_hedged_or_other_answers_are_invalid(answer):
    assert DED.read(_doc("d1", "True"), answer) is None


@pytest.mark.parametrize(("overrides", "name"), [({"second_premise_rate": 1.5}, "second_premise_rate"),
                                                  ({"second_premise_rate": "x"}, "second_premise_rate"),
                                                  ({"depth": 3}, "depth")])
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        DED.make_params(overrides)


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_extreme_second_premise_rates_still_generate(rate):
    docs = DED.generate(1, 36, DED.make_params({"second_premise_rate": rate}))
    has_and = [" and " in d["prompt"].split("Rules:")[1].split("Statement")[0] for d in docs if d["depth"] >= 2]
    assert all(has_and) if rate == 1.0 else not any(has_and)
