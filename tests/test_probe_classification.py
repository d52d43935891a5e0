"""Classification by stated rules: pinned items, keys and conditions re-derived by evaluating
the prompt's rules and feature distances from its text, effects by hand, the exemplar player."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

CLASS = get_probe("classification")

HEADER = (
    "Four kinds of made-up objects are defined by rules. Every object has a colour (red, blue or green), a shape "
    "(round, square or triangular), a surface (spiky, furry or smooth) and a pattern (striped, spotted or plain).\n"
)


def _prompt(rules: list[str], shown: list[str], new: str, names: list[str]) -> str:
    return (
        HEADER + "".join(f"- A {r}.\n" for r in rules)
        + "Every object below fits exactly one of these rules. Some objects already sorted by the rules:\n"
        + "".join(f"- {s}\n" for s in shown)
        + f"New object: {new}.\nWhich kind is the new object? Answer with one word: {', '.join(names[:-1])} or {names[-1]}."
    )


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand (the first items of each (condition, rule type) cell have the key first):
    # 0: red, square, spiky, striped: square -> tulver; not triangular (zav, tufa), neither plain nor
    #    furry (gazzer). Every exemplar differs from it in >= 2 features (the tulvers: 3 and 2, the
    #    zavs: shape+pattern, colour+shape): rule_only, no lure.
    # 1: blue, round, furry, plain: plain -> yim; not red (gazzer), not green (modi), neither spotted
    #    nor smooth (dax). It differs only in shape from "blue, square, furry, plain: yim" and in >= 2
    #    from the others: positive_match.
    # 2: blue, round, smooth, spotted: blue -> sorf; not square (modi), not red (gorp), neither furry nor
    #    plain (wug). It differs only in colour from "red, round, smooth, spotted: gorp", which the rule
    #    "round and red" no longer fits: negative_match, the lure is gorp (index 2).
    docs = CLASS.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        _prompt(
            ["tulver is any object that is square", "zav is any object that is triangular and not smooth",
             "tufa is any object that is triangular and blue", "gazzer is any object that is plain or furry (or both)"],
            ["blue, triangular, smooth, striped: tufa", "green, square, smooth, spotted: tulver",
             "red, triangular, spiky, spotted: zav", "green, triangular, spiky, striped: zav",
             "blue, triangular, smooth, spotted: tufa", "green, round, furry, spotted: gazzer",
             "green, round, smooth, plain: gazzer", "blue, square, spiky, spotted: tulver"],
            "red, square, spiky, striped", ["tulver", "zav", "tufa", "gazzer"],
        ),
        _prompt(
            ["yim is any object that is plain", "gazzer is any object that is red and not spotted",
             "modi is any object that is green and round", "dax is any object that is spotted or smooth (or both)"],
            ["blue, square, smooth, striped: dax", "green, round, furry, striped: modi",
             "red, triangular, spiky, striped: gazzer", "green, triangular, furry, plain: yim",
             "blue, square, furry, plain: yim", "green, square, furry, spotted: dax",
             "red, round, furry, striped: gazzer", "green, round, spiky, striped: modi"],
            "blue, round, furry, plain", ["yim", "gazzer", "modi", "dax"],
        ),
        _prompt(
            ["sorf is any object that is blue", "modi is any object that is square and not plain",
             "gorp is any object that is round and red", "wug is any object that is furry or plain (or both)"],
            ["red, round, smooth, spotted: gorp", "red, square, smooth, plain: wug",
             "red, round, spiky, striped: gorp", "blue, triangular, spiky, striped: sorf",
             "red, triangular, furry, striped: wug", "blue, triangular, smooth, striped: sorf",
             "red, square, smooth, striped: modi", "green, square, spiky, spotted: modi"],
            "blue, round, smooth, spotted", ["sorf", "modi", "gorp", "wug"],
        ),
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"], d["rule_type"]) for d in docs] == [
        (["tulver", "zav", "tufa", "gazzer"], 0, "rule_only", -1, "single_feature"),
        (["yim", "gazzer", "modi", "dax"], 0, "positive_match", -1, "single_feature"),
        (["sorf", "modi", "gorp", "wug"], 0, "negative_match", 2, "single_feature"),
    ]


def test_key_place_cycles_within_every_condition_and_rule_type():
    # 480 items = 3 conditions x 4 rule types x 4 places x 10: the key's rule is listed at each place
    # equally often in every (condition, rule type) cell.
    docs = CLASS.generate(2, 480)
    cells = Counter((d["condition"], d["rule_type"], d["gold"]) for d in docs)
    assert cells == {(c, t, g): 10 for c in CLASS.conditions for t in CLASS_RULE_TYPES for g in range(4)}
    # The lure (negative_match) is never the key and sits at each of the other places.
    lures = Counter((d["gold"] - d["lure"]) % 4 for d in docs if d["condition"] == "negative_match")
    assert set(lures) == {1, 2, 3} and min(lures.values()) > 25


def test_no_two_items_are_the_same_up_to_option_order():
    docs = CLASS.generate(0, 1200)
    assert len({CLASS.identity(d) for d in docs}) == 1200
    # Up to option order also means up to the order the rules (and the exemplars) are listed in; the
    # last line names the options in their order.
    canonical = {("\n".join(sorted(d["prompt"].splitlines()[:-1])), d["choices"][d["gold"]]) for d in docs}
    assert len(canonical) == 1200


# -- an independent reading of the prompt: rules as predicates over sets of feature words ------------

RULE_FORMS = [
    (re.compile(r"^(\w+) or (\w+) \(or both\)$"), "disjunctive", lambda a, b, f: a in f or b in f),
    (re.compile(r"^(\w+) and not (\w+)$"), "negation", lambda a, b, f: a in f and b not in f),
    (re.compile(r"^(\w+) and (\w+)$"), "conjunctive", lambda a, b, f: a in f and b in f),
    (re.compile(r"^(\w+)()$"), "single_feature", lambda a, _b, f: a in f),
]


def _rules(prompt: str) -> dict[str, tuple[str, object]]:
    out = {}
    for name, body in re.findall(r"^- A (\w+) is any object that is (.+)\.$", prompt, re.MULTILINE):
        for pattern, kind, test in RULE_FORMS:
            match = pattern.match(body)
            if match:
                a, b = match.groups()
                out[name] = (kind, lambda f, a=a, b=b, test=test: test(a, b, f))
                break
        else:
            raise AssertionError(body)
    return out


def _fitting(rules, features: list[str]) -> list[str]:
    return [name for name, (_, holds) in rules.items() if holds(set(features))]


@pytest.mark.parametrize("overrides", [{}, {"exemplars": 1}, {"exemplars": 3}])
def test_keys_and_conditions_re_derived_from_the_prompt(overrides):
    params = CLASS.make_params(overrides)
    docs = CLASS.generate(5, 240, params)
    domains = re.search(r"a colour \((.+?)\), a shape \((.+?)\), a surface \((.+?)\) and a pattern \((.+?)\)",
                        docs[0]["prompt"]).groups()
    domains = [set(re.split(r", | or ", d)) for d in domains]
    assert sorted(len(d) for d in domains) == [3, 3, 3, 3]
    for doc in docs:
        prompt = doc["prompt"]
        rules = _rules(prompt)
        assert list(rules) == doc["choices"]
        assert sorted(kind for kind, _ in rules.values()) == sorted(CLASS_RULE_TYPES)  # one rule of each type
        shown = [(s.split(", "), label) for s, label in re.findall(r"^- ([a-z, ]+): (\w+)$", prompt, re.MULTILINE)]
        new = re.search(r"^New object: (.+)\.$", prompt, re.MULTILINE).group(1).split(", ")
        for features in [new] + [f for f, _ in shown]:
            assert all(value in domain for value, domain in zip(features, domains))
        # Every exemplar fits exactly its label's rule; the new object fits exactly one rule: the key.
        assert all(_fitting(rules, f) == [label] for f, label in shown)
        assert len(shown) == 4 * params.exemplars == doc["exemplar_count"]
        assert all(sum(label == n for _, label in shown) == params.exemplars for n in rules)
        assert _fitting(rules, new) == [doc["choices"][doc["gold"]]]
        assert rules[doc["choices"][doc["gold"]]][0] == doc["rule_type"]
        # The condition from the distances to the exemplars.
        dist = [(sum(a != b for a, b in zip(new, f)), label) for f, label in shown]
        near = [label for d, label in dist if d == 1]
        assert all(d >= 1 for d, _ in dist)
        gold_name = doc["choices"][doc["gold"]]
        if doc["condition"] == "rule_only":
            assert not near and doc["lure"] == -1
        elif doc["condition"] == "positive_match":
            assert near == [gold_name] and doc["lure"] == -1
        else:
            assert len(near) == 1 and near[0] != gold_name and doc["choices"][doc["lure"]] == near[0]
    # (condition, rule type) balanced: 240 items = 3 x 4 x 20.
    counts = [sum(d["condition"] == c and d["rule_type"] == t for d in docs) for c in CLASS.conditions
              for t in CLASS_RULE_TYPES]
    assert counts == [20] * 12


CLASS_RULE_TYPES = ("single_feature", "conjunctive", "disjunctive", "negation")


def _doc(condition: str, rule_type: str) -> dict:
    return {"choices": ["blicket", "toma", "wug", "dax"], "gold": 0, "condition": condition,
            "lure": 1 if condition == "negative_match" else -1, "rule_type": rule_type}


def test_metrics_on_hand_scored_answers():
    answers = [
        (_doc("rule_only", "single_feature"), "blicket"), (_doc("rule_only", "disjunctive"), "wug"),
        (_doc("positive_match", "conjunctive"), "Blicket."), (_doc("positive_match", "disjunctive"), "a blicket"),
        (_doc("positive_match", "negation"), "dax"),
        (_doc("negative_match", "single_feature"), "toma"), (_doc("negative_match", "conjunctive"), "blicket"),
        (_doc("negative_match", "disjunctive"), "blicket or toma"), (_doc("negative_match", "negation"), "toma"),
    ]
    scores = aggregate(CLASS, [CLASS.score_gen(doc, text) for doc, text in answers])
    assert scores["acc_rule_only"] == 0.5 and scores["acc_positive_match"] == pytest.approx(2 / 3)
    assert scores["acc_negative_match"] == 0.25 and scores["invalid_rate"] == pytest.approx(1 / 9)
    assert scores["similarity_effect"] == pytest.approx(2 / 3 - 1 / 4)  # positive 2/3 - negative 1/4
    # negative_match errors: toma (lure), invalid, toma (lure) -> 2/3.
    assert scores["exemplar_error_share"] == pytest.approx(2 / 3)
    # single-feature keys: right, wrong (toma) -> 1/2; two-literal keys: wug x, Blicket ok, a blicket ok,
    # dax x, blicket ok, invalid x, toma x -> 3/7.
    assert scores["complexity_cost"] == pytest.approx(1 / 2 - 3 / 7)
    # conjunctive: 2/2; disjunctive: wug x, a blicket ok, invalid x -> 1/3.
    assert scores["disjunction_cost"] == pytest.approx(1 - 1 / 3)


def test_choosing_the_near_exemplars_category_shows_the_similarity_effect():
    docs = CLASS.generate(0, 300)
    for form in ("gen", "mc"):
        scores = play(CLASS, "prepotent", docs, form)
        assert [scores[f"acc_{c}"] for c in CLASS.conditions] == [1.0, 1.0, 0.0]
        assert scores["similarity_effect"] == 1.0 and scores["exemplar_error_share"] == 1.0
        assert scores["complexity_cost"] == 0.0 and scores["disjunction_cost"] == 0.0  # rule types balanced


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("toma", 1), ("Toma", 1), ("**toma**", 1), ("toma.", 1), ("a toma", 1), ("The toma", 1), ("'dax'", 3),
     ("an wug", 2), ("toma or dax", None), ("tomas", None), ("it is a toma", None), ("", None), ("a", None),
     ("blue", None), ("toma, dax", None), ("[invalid]", None), ("a a toma", None)],
)
def test_read_one_category_name(answer, expected):
    assert CLASS.read(_doc("negative_match", "negation"), answer) == expected


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"exemplars": 0}, "exemplars"), ({"exemplars": 4}, "exemplars"), ({"exemplars": 2.0}, "exemplars"),
     ({"exemplars": "2"}, "exemplars"), ({"categories": 3}, "categories")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        CLASS.make_params(overrides)
