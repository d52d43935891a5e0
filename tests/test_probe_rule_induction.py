"""Rule induction (static 2-4-6): pinned items, keys re-derived from the shown triples, effect by hand."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter

import pytest

from lm_eval_cog.audit.probes import doc_item
from lm_eval_cog.audit.strategies import credit, majority_text_scores
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from lm_eval_cog.probes.rule_induction import lure_of, offers, wordings

INDUCTION = get_probe("rule_induction")
TRIPLE = r"\((\d+), (\d+), (\d+)\)"


# The rules as this test reads them, written independently of the generator: from the
# option's words (choose_rule) or from the spec a document stores (apply_rule).
def _multiple(t, k):
    return all(v % k == 0 for v in t)


#: Every wording of every family, read independently of the generator's templates.
_ASC = lambda t: t[0] < t[1] < t[2]  # noqa: E731
_STEP = lambda t, k: t[1] - t[0] == k == t[2] - t[1]  # noqa: E731
_RATIO = lambda t, k: t[1] == k * t[0] and t[2] == k * t[1]  # noqa: E731
_X2X3X = lambda t: t[1] == 2 * t[0] and t[2] == 3 * t[0]  # noqa: E731
_SUM = lambda t: t[2] == t[0] + t[1]  # noqa: E731
_LAST = lambda t: t[2] > max(t[0], t[1])  # noqa: E731
_ODD = lambda t: all(v % 2 for v in t)  # noqa: E731
_MULT = r"(?:even|(?:a )?multiples? of (\d+))"
_EVEN_NOUN = r"(?:even numbers|multiples of (\d+))"
WORDED = [
    (r"the numbers increase from left to right", _ASC),
    (r"the numbers increase", _ASC),
    (r"each number is larger than the number before it", _ASC),
    (r"from left to right each number is strictly larger than the one before it", _ASC),
    (r"numbers increase from left to right", _ASC),
    (r"as you read from left to right the numbers increase", _ASC),
    (r"each number is (\d+) more than the one before", _STEP),
    (r"the numbers rise by (\d+) each time", _STEP),
    (r"adding (\d+) to each number gives the next one", _STEP),
    (r"from left to right each number is exactly (\d+) more than the number before it", _STEP),
    (r"numbers go up by exactly (\d+) at every step", _STEP),
    (r"each number is (\d+) times the one before", _RATIO),
    (r"the numbers keep doubling", lambda t: _RATIO(t, 2)),
    (r"the numbers keep tripling", lambda t: _RATIO(t, 3)),
    (r"multiplying each number by (\d+) gives the next one", _RATIO),
    (r"from left to right each number is exactly (\d+) times the number before it", _RATIO),
    (r"as you read from left to right the numbers grow (\d+)-fold each time", _RATIO),
    (r"the second number is twice the first and the third is three times the first", _X2X3X),
    (r"the numbers are x then 2x then 3x", _X2X3X),
    (r"doubling the first number gives the second and tripling it the third", _X2X3X),
    (r"after a first number x come 2x and then 3x", _X2X3X),
    (r"if the first number is x then the second is 2x and the third 3x", _X2X3X),
    (r"the third number is the sum of the first two", _SUM),
    (r"the numbers are x then y then x \+ y", _SUM),
    (r"adding the first two numbers gives the third", _SUM),
    (r"if you add the first two numbers you get the third", _SUM),
    (r"first plus second equals third", _SUM),
    (rf"the numbers increase from left to right and are all {_MULT}", lambda t, k=2: _ASC(t) and _multiple(t, k)),
    (rf"increasing {_EVEN_NOUN}", lambda t, k=2: _ASC(t) and _multiple(t, k)),
    (rf"all are {_MULT} and each is larger than the one before", lambda t, k=2: _ASC(t) and _multiple(t, k)),
    (rf"numbers that are {_MULT} in increasing order", lambda t, k=2: _ASC(t) and _multiple(t, k)),
    (rf"each number is {_MULT} and larger than the one before", lambda t, k=2: _ASC(t) and _multiple(t, k)),
    (rf"all three numbers are {_MULT}", lambda t, k=2: _multiple(t, k)),
    (rf"all are {_MULT}", lambda t, k=2: _multiple(t, k)),
    (rf"each of the three numbers is {_MULT}", lambda t, k=2: _multiple(t, k)),
    (rf"every one of the three numbers is {_MULT}", lambda t, k=2: _multiple(t, k)),
    (rf"the numbers are all {_MULT}", lambda t, k=2: _multiple(t, k)),
    (rf"there are only {_EVEN_NOUN} among the three", lambda t, k=2: _multiple(t, k)),
    (r"each number is divisible by (\d+)", _multiple),
    (r"all three numbers are odd", _ODD),
    (r"all are odd", _ODD),
    (r"none of the three numbers is even", _ODD),
    (r"each number leaves a remainder of 1 when divided by 2", _ODD),
    (r"the numbers are all odd", _ODD),
    (r"every one of the three numbers is odd", _ODD),
    (r"the last number is larger than each of the first two", _LAST),
    (r"the third exceeds the other two", _LAST),
    (r"no other number is as large as the last one", _LAST),
    (r"both the first and the second number are smaller than the third", _LAST),
    (r"each of the first two numbers is smaller than the last", _LAST),
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
            given = [g for g in m.groups() if g is not None]
            return functools.partial(rule, k=int(given[0])) if given else rule
    raise AssertionError(f"unknown rule wording: {text!r}")


def _from_spec(spec: str):
    family, _, k = spec.partition(":")
    return lambda t: SPECS[family](t, int(k or 0))


def _salients(t) -> list[str]:
    """The surface patterns the triple shows, most salient first: equal steps (1-10), equal ratios (2, 3),
    x 2x 3x, sum."""
    x, y, z = t
    out = [f"step:{y - x}"] if y - x == z - y and 1 <= y - x <= 10 else []
    out += [f"ratio:{r}" for r in (2, 3) if (y, z) == (r * x, r * r * x)]
    out += ["x2x3x"] if (y, z) == (2 * x, 3 * x) else []
    return out + (["sum"] if z == x + y else [])


def _salient(t) -> str:
    """The first surface pattern the triple shows."""
    return (_salients(t) or ["none"])[0]


def _shown(prompt: str):
    start = tuple(int(v) for v in re.search(rf"The triple {TRIPLE} fits the rule", prompt).groups())
    labelled = [
        (tuple(int(v) for v in m[:3]), m[3] == "fits") for m in re.findall(rf"^{TRIPLE}: (fits|does not fit)$", prompt, re.MULTILINE)
    ]
    return start, labelled


def test_first_items_of_seed_0_are_pinned():
    head = "A hidden rule decides which triples of positive integers fit it.\n"
    ask = "Which of these rules is the hidden rule? Answer with the rule, copied word for word.\nOptions:\n"
    docs = INDUCTION.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        (head + "The triple (1, 2, 3) fits the rule. Here are further triples, labelled by the rule:\n"
        "(42, 20, 63): does not fit\n(68, 82, 81): does not fit\n(40, 90, 45): does not fit\n(15, 72, 85): fits\n"
        "(45, 63, 90): fits\n(11, 34, 87): fits\n(41, 17, 12): does not fit\n(30, 19, 80): does not fit\n"
        "(18, 73, 87): fits\n(4, 27, 77): fits\n" + ask +
        "- the numbers increase from left to right\n- each number is 1 more than the one before\n"
        "- the third number is the sum of the first two\n"
        "- the second number is twice the first and the third is three times the first"),
        (head + "The triple (8, 18, 28) fits the rule. Here are further triples, labelled by the rule:\n"
        "(1, 86, 4): does not fit\n(25, 54, 62): fits\n(21, 23, 98): fits\n(17, 38, 77): fits\n"
        "(12, 5, 34): does not fit\n(62, 57, 80): does not fit\n"
        "Does the triple (66, 72, 96) fit the hidden rule? Answer yes or no."),
        (head + "The triple (1, 2, 3) fits the rule. Here are further triples, labelled by the rule:\n"
        "(38, 70, 76): does not fit\n(91, 92, 93): fits\n(87, 95, 93): does not fit\n(78, 17, 41): does not fit\n"
        "(17, 35, 66): does not fit\n(31, 32, 33): fits\n" + ask +
        "- each number is 1 more than the one before\n"
        "- the second number is twice the first and the third is three times the first\n"
        "- the numbers increase from left to right\n- the third number is the sum of the first two"),
    ]
    # Checked by hand. 0 and 2 are the first group of choose_rule items: the same four rules in the same
    # words, for (1, 2, 3), whose salient patterns are "1 more", x 2x 3x and "sum". 0: (15, 72, 85) fits,
    # which only "increase" allows, and every label agrees with it: key "increase" (the shortest option,
    # 39 characters and 7 words: group 0, length rank 0; its place drawn), lure "1 more" (1). 2: (91, 92,
    # 93) fits, which neither "increase"-only nor x 2x 3x nor "sum" explains alone, and (38, 70, 76), an
    # increasing triple, does not: key "1 more" (length rank 1), lure x, 2x, 3x (the next salient pattern).
    # 1: (8, 18, 28) shows "10 more"; the fitting triples all increase, the others do not, and
    # (62, 57, 80) refutes "last largest": the rule is "increase"; (66, 72, 96) increases but not by
    # 10: key "yes", lure "no".
    assert [(d["condition"], d["gold"], d["lure"], d["hidden"], d["obvious"]) for d in docs] == [
        ("choose_rule", 0, 1, "ascending", "step:1"),
        ("apply_rule", 0, 1, "ascending", "step:10"),
        ("choose_rule", 0, 1, "step:1", "x2x3x"),
    ]
    assert docs[1]["choices"] == ["yes", "no"]


#: The rule space the instructions allow: every family with every parameter the probe uses.
SPACE = [
    (family, k) for family, ks in (
        ("ascending", [0]), ("step", range(1, 11)), ("ratio", [2, 3]), ("x2x3x", [0]), ("sum", [0]),
        ("multiples_ascending", [2, 3, 4, 5]), ("multiples", [2, 3, 4, 5]), ("odd", [0]), ("last_largest", [0]),
    ) for k in ks
]


def test_items_that_had_a_second_fitting_rule_now_have_one_answer():
    # The reviewer's items 39, 105 and 109 of seed 1234 (and every apply item around them): every rule of the
    # space that fits the initial triple and every label gives the key's answer for the new triple.
    docs = INDUCTION.generate(1234, 120)
    for doc in docs:
        if doc["condition"] != "apply_rule":
            continue
        start, labelled = _shown(doc["prompt"])
        query = tuple(int(v) for v in re.search(rf"Does the triple {TRIPLE} fit", doc["prompt"]).groups())
        fitting = [
            (f, k) for f, k in SPACE
            if SPECS[f](start, k) and all(SPECS[f](t, k) == fits for t, fits in labelled)
        ]
        assert fitting and {SPECS[f](query, k) for f, k in fitting} == {doc["gold"] == 0}, (doc["index"], fitting)


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
            options = re.findall(r"^- (.+)$", prompt.split("\nOptions:\n")[1], re.MULTILINE)
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
            assert start[1:] == (2 * start[0], 3 * start[0])  # an (x, 2x, 3x) triple, as 2-4-6
            # The lure is the initial triple's most salient pattern other than the key, read back from its words.
            probes = [start, *triples, *((a, b, c) for a in (1, 2, 3, 6) for b in range(1, 40) for c in range(1, 80))]
            key_rule = rules[consistent[0]]
            others = [s for s in _salients(start) if not all(_from_spec(s)(t) == key_rule(t) for t in probes)]
            obvious = _from_spec(others[0])
            assert all(rules[doc["lure"]](t) == obvious(t) for t in probes)
        else:
            query = tuple(int(v) for v in re.search(rf"Does the triple {TRIPLE} fit", prompt).groups())
            assert query not in triples
            hidden_says, obvious_says = rules[consistent[0]](query), obvious(query)
            assert hidden_says != obvious_says
            assert doc["gold"] == (0 if hidden_says else 1) and doc["lure"] == (0 if obvious_says else 1)
            # The key is unique in the whole rule space, not only among the candidates.
            fitting = [(f, k) for f, k in SPACE if SPECS[f](start, k) and all(SPECS[f](t, k) == v for t, v in labelled)]
            assert {SPECS[f](query, k) for f, k in fitting} == {hidden_says}
    apply_golds = [d["gold"] for d in docs if d["condition"] == "apply_rule"]
    assert apply_golds.count(0) == apply_golds.count(1)  # yes and no alternate
    families = {c: {d["hidden"].split(":")[0] for d in docs if d["condition"] == c} for c in INDUCTION.conditions}
    assert families["apply_rule"] == {"ascending", "x2x3x", "sum", "multiples_ascending", "multiples", "odd"}
    assert families["choose_rule"] == {
        "ascending", "step", "x2x3x", "sum", "multiples_ascending", "multiples", "last_largest"
    }


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
    assert INDUCTION.read(doc, "The numbers increase from left to right.") == 0
    assert INDUCTION.read(doc, "**the third number is the sum of the first two**") == 2
    for answer in ["D", "the numbers go up", "the third number is the sum or the numbers increase", ""]:
        assert INDUCTION.read(doc, answer) is None
    apply = INDUCTION.generate(0, 2)[1]
    assert INDUCTION.read(apply, "No.") == 1 and INDUCTION.read(apply, "yes or no") is None


def test_choose_rule_key_length_and_alphabetical_rank_cycle_and_its_place_is_drawn():
    # 192 choose_rule items (384 items): the key's rank by length (characters and words alike) and its
    # rank in alphabetical order among the options each take the four values 48 times: neither the
    # shortest, the longest, the first nor the last option is the key more than a quarter of the time.
    # Its place is drawn per item (about 48 each).
    docs = [d for d in INDUCTION.generate(8, 384) if d["condition"] == "choose_rule"]

    def rank(values, at):
        assert values.count(values[at]) == 1  # no tie with the key
        return sorted(values).index(values[at])

    def natural(text):
        return [(0, int(p)) if p.isdigit() else (1, p.casefold()) for p in re.split(r"(\d+)", text) if p]

    places, lengths, words, orders = Counter(), Counter(), Counter(), Counter()
    for d in docs:
        texts, key = d["choices"], d["gold"]
        places[key] += 1
        lengths[rank([len(t) for t in texts], key)] += 1
        words[rank([len(re.findall(r"\w+", t)) for t in texts], key)] += 1
        orders[rank([natural(t) for t in texts], key)] += 1
    for counts in (lengths, words, orders):
        assert counts == {r: 48 for r in range(4)}
    assert all(abs(places[p] - 48) < 4 * math.sqrt(36) for p in range(4))


def test_the_keys_place_is_drawn_at_each_seed_not_set_by_the_index():
    # Version 2 set the key's place by the index, and the plan (offer, wording, key text) is the same at
    # every seed: each option text stood at its key place at every seed, and a surface classifier
    # trained on two seeds found the key on others (0.44 vs 0.25). Now the same item index puts its key
    # at the same place at two seeds about a quarter of the time, as chance would.
    one, two = ([d for d in INDUCTION.generate(seed, 400) if d["condition"] == "choose_rule"] for seed in (8, 9))
    assert [d["choices"][d["gold"]] for d in one] == [d["choices"][d["gold"]] for d in two]  # the plan's key text
    same = sum(a["gold"] == b["gold"] for a, b in zip(one, two)) / len(one)
    assert abs(same - 0.25) < 0.1  # 200 items: 3 standard errors


def test_no_two_items_are_the_same_up_to_option_order():
    docs = INDUCTION.generate(3, 1200)
    assert len({INDUCTION.identity(d) for d in docs}) == 1200
    assert len({(d["prompt"].split("Which")[0].split("Does")[0], d["condition"]) for d in docs}) == 1200


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


def test_every_option_text_is_the_key_a_quarter_of_the_times_it_is_offered():
    # 600 choose_rule items (1200 items): the answer texts carry no prior. Each group of four items offers
    # the same four rule texts and makes each of them the key once, so over the condition every text is the
    # key exactly a quarter of the times it is offered, and the audit's cross-fitted "most frequent key
    # text" strategy is at chance (it was 0.47 when some rule wordings were keys far more often).
    docs = [d for d in INDUCTION.generate(2, 1200) if d["condition"] == "choose_rule"]
    offered = Counter(c for d in docs for c in d["choices"])
    keyed = Counter(d["choices"][d["gold"]] for d in docs)
    assert len(offered) > 60 and all(4 * keyed[text] == n for text, n in offered.items())
    for g in range(0, len(docs), 4):
        group = docs[g : g + 4]
        assert len({frozenset(d["choices"]) for d in group}) == 1
        assert {d["choices"][d["gold"]] for d in group} == set(group[0]["choices"])
    items = [doc_item(d) for d in docs]
    scores = majority_text_scores(items)
    blind = [0.25 if s is None else credit(s, item.gold) for s, item in zip(scores, items)]
    assert sum(blind) / len(blind) < 0.25 + 0.03


@pytest.mark.parametrize("max_value", [30, 99])
def test_every_offer_fits_its_triples_and_shows_their_obvious_rule_whatever_the_key(max_value):
    for offer, starts in offers(max_value):
        assert len(set(offer)) == 4 and wordings(offer) and starts and 3 * max(starts) <= max_value
        for x in starts:
            start = (x, 2 * x, 3 * x)
            assert all(_from_spec(s)(start) for s in offer)
            assert all(lure_of(start, key) in offer and lure_of(start, key) != key for key in offer)
