"""Rule induction (static 2-4-6): pinned items, keys re-derived from the shown triples, effect by hand."""

from __future__ import annotations

import functools
import math
import re

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

INDUCTION = get_probe("rule_induction")
TRIPLE = r"\((\d+), (\d+), (\d+)\)"


# The rules as this test reads them, written independently of the generator: from the
# option's words (choose_rule) or from the spec a document stores (apply_rule).
def _multiple(t, k):
    return all(v % k == 0 for v in t)


WORDED = [
    (r"the numbers increase from left to right", lambda t: t[0] < t[1] < t[2]),
    (r"each number is (\d+) more than the one before", lambda t, k: t[1] - t[0] == k == t[2] - t[1]),
    (r"each number is (\d+) times the one before", lambda t, k: t[1] == k * t[0] and t[2] == k * t[1]),
    (r"the second number is twice the first and the third is three times the first", lambda t: t[1] == 2 * t[0] and t[2] == 3 * t[0]),
    (r"the third number is the sum of the first two", lambda t: t[2] == t[0] + t[1]),
    (r"the numbers increase from left to right and are all even", lambda t: t[0] < t[1] < t[2] and _multiple(t, 2)),
    (r"the numbers increase from left to right and are all multiples of (\d+)", lambda t, k: t[0] < t[1] < t[2] and _multiple(t, k)),
    (r"all three numbers are even", lambda t: _multiple(t, 2)),
    (r"all three numbers are multiples of (\d+)", _multiple),
    (r"all three numbers are odd", lambda t: all(v % 2 for v in t)),
    (r"the last number is larger than each of the first two", lambda t: t[2] > max(t[0], t[1])),
]
SPECS = {
    "ascending": lambda t, k: t[0] < t[1] < t[2],
    "step": lambda t, k: (t[1] - t[0], t[2] - t[1]) == (k, k),
    "ratio": lambda t, k: (t[1], t[2]) == (k * t[0], k * k * t[0]),
    "x2x3x": lambda t, k: (t[1], t[2]) == (2 * t[0], 3 * t[0]),
    "sum": lambda t, k: t[0] + t[1] == t[2],
    "multiples_ascending": lambda t, k: sorted(set(t)) == list(t) and _multiple(t, k),
    "multiples": lambda t, k: _multiple(t, k),
    "odd": lambda t, k: _multiple([v + 1 for v in t], 2),
    "last_largest": lambda t, k: t[2] > t[0] and t[2] > t[1],
}


def _from_words(text: str):
    for pattern, rule in WORDED:
        if m := re.fullmatch(pattern, text):
            return functools.partial(rule, k=int(m.group(1))) if m.groups() else rule
    raise AssertionError(f"unknown rule wording: {text!r}")


def _from_spec(spec: str):
    family, _, k = spec.partition(":")
    return lambda t: SPECS[family](t, int(k or 0))


def _salient(t) -> str:
    """The first surface pattern the triple shows: equal steps (1-10), equal ratios (2, 3), x 2x 3x, sum."""
    x, y, z = t
    if y - x == z - y and 1 <= y - x <= 10:
        return f"step:{y - x}"
    for r in (2, 3):
        if (y, z) == (r * x, r * r * x):
            return f"ratio:{r}"
    return "x2x3x" if (y, z) == (2 * x, 3 * x) else "sum" if z == x + y else "none"


def _shown(prompt: str):
    start = tuple(int(v) for v in re.search(rf"The triple {TRIPLE} fits the rule", prompt).groups())
    labelled = [
        (tuple(int(v) for v in m[:3]), m[3] == "fits") for m in re.findall(rf"^{TRIPLE}: (fits|does not fit)$", prompt, re.MULTILINE)
    ]
    return start, labelled


def test_first_items_of_seed_0_are_pinned():
    docs = INDUCTION.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        ("A hidden rule decides which triples of whole numbers fit it.\n"
        "The triple (4, 12, 36) fits the rule. Here are more triples, labelled by the rule:\n"
        "(45, 57, 87): fits\n(1, 34, 94): fits\n(90, 38, 98): does not fit\n(18, 39, 47): fits\n"
        "(58, 65, 66): fits\n(9, 19, 70): fits\n(26, 47, 74): fits\n"
        "Which of these rules is the hidden rule?\n"
        "- the numbers increase from left to right and are all even\n- each number is 3 times the one before\n"
        "- the last number is larger than each of the first two\n- the numbers increase from left to right\n"
        "Answer with the rule, copied exactly as written."),
        ("A hidden rule decides which triples of whole numbers fit it.\n"
        "The triple (5, 15, 45) fits the rule. Here are more triples, labelled by the rule:\n"
        "(19, 75, 47): fits\n(57, 37, 97): fits\n(27, 69, 33): fits\n(42, 86, 14): does not fit\n"
        "(29, 82, 62): does not fit\n(85, 57, 78): does not fit\n"
        "Does the triple (8, 24, 72) fit the hidden rule? Answer yes or no."),
        ("A hidden rule decides which triples of whole numbers fit it.\n"
        "The triple (47, 53, 59) fits the rule. Here are more triples, labelled by the rule:\n"
        "(41, 65, 21): fits\n(22, 95, 3): does not fit\n(25, 67, 36): does not fit\n(1, 61, 59): fits\n"
        "(53, 1, 73): fits\n(47, 60, 32): does not fit\n"
        "Which of these rules is the hidden rule?\n"
        "- all three numbers are odd\n- the numbers increase from left to right\n"
        "- the last number is larger than each of the first two\n- each number is 6 more than the one before\n"
        "Answer with the rule, copied exactly as written."),
    ]
    # Checked by hand. 0: (4, 12, 36) shows "times 3" (steps 8, 24 differ); (45, 57, 87) fits,
    # so neither "even" nor "times 3" can be the rule; (90, 38, 98) does not fit although 98 is
    # the largest; every label agrees with "increase": key 3, lure "times 3" (1).
    # 1: (5, 15, 45) shows "times 3"; the fitting triples are all odd, the others all hold an even
    # number: the rule is "odd"; (8, 24, 72) is "times 3" but even: key "no", lure "yes".
    # 2: (47, 53, 59) shows "6 more"; (41, 65, 21) fits, which only "odd" allows: key 0, lure 3.
    assert [(d["condition"], d["gold"], d["lure"], d["hidden"], d["obvious"]) for d in docs] == [
        ("choose_rule", 3, 1, "ascending", "ratio:3"),
        ("apply_rule", 1, 0, "odd", "ratio:3"),
        ("choose_rule", 0, 3, "odd", "step:6"),
    ]
    assert docs[1]["choices"] == ["yes", "no"]


def test_every_key_and_lure_rederived_from_the_shown_triples():
    params = INDUCTION.make_params()
    docs = INDUCTION.generate(9, 400)
    for doc in docs:
        prompt = doc["prompt"]
        start, labelled = _shown(prompt)
        triples = [start] + [t for t, _ in labelled]
        assert params.min_labels <= len(labelled) <= params.max_labels and len(set(triples)) == len(triples)
        assert all(1 <= v <= params.max_value for t in triples for v in t)
        assert {fits for _, fits in labelled} == {True, False}  # both verdicts are shown
        if doc["condition"] == "choose_rule":
            options = re.findall(r"^- (.+)$", prompt, re.MULTILINE)
            assert options == doc["choices"]
            rules = [_from_words(o) for o in options]
        else:
            rules = [_from_spec(s) for s in doc["candidates"]]
        assert all(rule(start) for rule in rules)  # every candidate fits the initial triple
        consistent = [k for k, rule in enumerate(rules) if all(rule(t) == fits for t, fits in labelled)]
        assert len(consistent) == 1  # exactly one candidate fits every label
        obvious = _from_spec(_salient(start))
        if doc["condition"] == "choose_rule":
            assert doc["gold"] == consistent[0]
            # The lure is the initial triple's salient pattern, read back from its words.
            lure_rule = rules[doc["lure"]]
            probes = [start, *triples, *((a, b, c) for a in (1, 2, 3, 6) for b in range(1, 40) for c in range(1, 80))]
            assert all(lure_rule(t) == obvious(t) for t in probes)
        else:
            query = tuple(int(v) for v in re.search(rf"Does the triple {TRIPLE} fit", prompt).groups())
            assert query not in triples
            hidden_says, obvious_says = rules[consistent[0]](query), obvious(query)
            assert hidden_says != obvious_says
            assert doc["gold"] == (0 if hidden_says else 1) and doc["lure"] == (0 if obvious_says else 1)
    apply_golds = [d["gold"] for d in docs if d["condition"] == "apply_rule"]
    assert 0.4 < apply_golds.count(0) / len(apply_golds) < 0.6  # yes and no equally likely
    assert {d["hidden"].split(":")[0] for d in docs} == {"ascending", "x2x3x", "sum", "multiples_ascending", "multiples", "odd"}


def _doc(condition: str, gold: int, lure: int) -> dict:
    choices = ["r1", "r2", "r3", "r4"] if condition == "choose_rule" else ["yes", "no"]
    return {"condition": condition, "gold": gold, "lure": lure, "choices": choices}


def test_obvious_rule_share_on_hand_built_answers():
    rows = [
        (_doc("choose_rule", 0, 1), 1),  # error: the obvious rule
        (_doc("choose_rule", 2, 3), 0),  # error: another rule
        (_doc("choose_rule", 1, 2), None),  # error: invalid
        (_doc("choose_rule", 3, 0), 3),  # right
        (_doc("apply_rule", 0, 1), 1),  # an apply error: not counted in the share
    ]
    scores = aggregate(INDUCTION, [INDUCTION.score(doc, pred) for doc, pred in rows])
    assert scores["obvious_rule_share"] == pytest.approx(1 / 3)  # 1 of the 3 choose_rule errors
    assert scores["acc_choose_rule"] == 0.25 and scores["acc_apply_rule"] == 0.0 and scores["acc"] == 0.2
    assert scores["acc_chance"] == pytest.approx((4 * 0.25 + 0.5) / 5)  # 0.3


def test_a_first_pattern_holder_fails_both_conditions():
    docs = INDUCTION.generate(0, 300)
    scores = play(INDUCTION, "prepotent", docs, "gen")
    assert scores["acc_choose_rule"] == 0.0 and scores["acc_apply_rule"] == 0.0
    assert scores["obvious_rule_share"] == 1.0
    assert play(INDUCTION, "prepotent", docs, "mc")["lure_margin_choose_rule"] == -1.0


def test_random_player_picks_the_obvious_rule_in_a_third_of_its_errors():
    scores = play(INDUCTION, "random", INDUCTION.generate(1, 800), "gen")
    se = math.sqrt((1 / 3) * (2 / 3) / (400 * 0.75))
    assert abs(scores["obvious_rule_share"] - 1 / 3) < 3.5 * se


def test_options_read_exactly_as_written():
    doc = INDUCTION.generate(0, 1)[0]
    assert INDUCTION.read(doc, "The numbers increase from left to right.") == 3
    assert INDUCTION.read(doc, "**each number is 3 times the one before**") == 1
    for answer in ["D", "the numbers go up", "each number is 3 times the one before or the numbers increase", ""]:
        assert INDUCTION.read(doc, answer) is None
    apply = INDUCTION.generate(0, 2)[1]
    assert INDUCTION.read(apply, "No.") == 1 and INDUCTION.read(apply, "no, it does not") is None


@pytest.mark.parametrize(
    ("overrides", "param"),
    [
        ({"min_labels": 3}, "min_labels"), ({"max_labels": 5}, "max_labels"), ({"max_value": 29}, "max_value"),
        ({"max_value": 0}, "max_value"), ({"min_labels": 6.5}, "min_labels"), ({"labels": 6}, "labels"),
    ],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        INDUCTION.make_params(overrides)


def test_small_ranges_still_generate():
    params = INDUCTION.make_params({"min_labels": 4, "max_labels": 4, "max_value": 30})
    for doc in INDUCTION.generate(5, 60, params):
        assert len(doc["labelled"]) == 4 and max(max(t[:3]) for t in doc["labelled"]) <= 30
