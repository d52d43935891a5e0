"""Causal ladder: pinned items, keys re-derived by enumerating the stated joint, effects by hand."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

LADDER = get_probe("causal_ladder")
CPT_LINE = re.compile(r"P\((\w+) = 1(?: \| (.+))?\) = (\d\.\d\d)")
QUESTIONS = {
    "rung1": re.compile(r"Is (\w+) = 1 more likely among units observed with (\w+) = 1 than among units observed with \2 = 0\?"),
    "rung2": re.compile(r"If (\w+) were set to 1 by an intervention, would (\w+) = 1 be more likely than if \1 were set to 0"),
    "rung3": re.compile(r"Consider the units that actually have (\w+) = 1\. For these units, is (\w+) = 1 more likely"),
}


def test_first_items_of_seed_0_are_pinned():
    docs = LADDER.generate(0, 3)
    head = "Four binary variables (each 0 or 1) describe the units of a population: "
    links = " There are no other causal links and no hidden common causes.\nProbabilities:\n"
    assert [d["prompt"] for d in docs] == [
        (head + "blistid, depim, troglub and zekrak.\nCausal structure: troglub causes blistid; blistid causes "
        "zekrak; zekrak causes depim; troglub causes depim." + links + "P(troglub = 1) = 0.17\n"
        "P(blistid = 1 | troglub = 0) = 0.20\nP(blistid = 1 | troglub = 1) = 0.81\nP(zekrak = 1 | blistid = 0) = 0.16\n"
        "P(zekrak = 1 | blistid = 1) = 0.80\nP(depim = 1 | zekrak = 0, troglub = 0) = 0.56\n"
        "P(depim = 1 | zekrak = 0, troglub = 1) = 0.90\nP(depim = 1 | zekrak = 1, troglub = 0) = 0.45\n"
        "P(depim = 1 | zekrak = 1, troglub = 1) = 0.82\nQuestion: Is depim = 1 more likely among units observed "
        "with blistid = 1 than among units observed with blistid = 0? Answer yes or no."),
        (head + "madrax, gufim, volir and glelup.\nCausal structure: volir causes madrax; madrax causes glelup; "
        "glelup causes gufim; volir causes gufim." + links + "P(volir = 1) = 0.49\nP(madrax = 1 | volir = 0) = 0.84\n"
        "P(madrax = 1 | volir = 1) = 0.12\nP(glelup = 1 | madrax = 0) = 0.76\nP(glelup = 1 | madrax = 1) = 0.12\n"
        "P(gufim = 1 | glelup = 0, volir = 0) = 0.31\nP(gufim = 1 | glelup = 0, volir = 1) = 0.77\n"
        "P(gufim = 1 | glelup = 1, volir = 0) = 0.18\nP(gufim = 1 | glelup = 1, volir = 1) = 0.59\n"
        "Question: If madrax were set to 1 by an intervention, would gufim = 1 be more likely than if madrax "
        "were set to 0 by an intervention? Answer yes or no."),
        (head + "gezat, lugim, drirum and vodrob.\nCausal structure: drirum causes gezat; gezat causes vodrob; "
        "vodrob causes lugim; drirum causes lugim." + links + "P(drirum = 1) = 0.13\nP(gezat = 1 | drirum = 0) = 0.19\n"
        "P(gezat = 1 | drirum = 1) = 0.74\nP(vodrob = 1 | gezat = 0) = 0.88\nP(vodrob = 1 | gezat = 1) = 0.05\n"
        "P(lugim = 1 | vodrob = 0, drirum = 0) = 0.85\nP(lugim = 1 | vodrob = 0, drirum = 1) = 0.42\n"
        "P(lugim = 1 | vodrob = 1, drirum = 0) = 0.78\nP(lugim = 1 | vodrob = 1, drirum = 1) = 0.30\n"
        "Question: Consider the units that actually have gezat = 1. For these units, is lugim = 1 more likely "
        "than it would have been had their gezat been set to 0? Answer yes or no."),
    ]
    # Checked by hand for item 1 (a chain: Z = volir confounds X = madrax and Y = gufim; X acts on Y
    # only through W = glelup). P(Y | w, z) averaged over w ~ P(W | x): x = 1 (P(W=1) = .12): z = 0
    # .88*.31 + .12*.18 = .2944, z = 1 .88*.77 + .12*.59 = .7484; x = 0 (P(W=1) = .76): z = 0 .2112,
    # z = 1 .6332. ATE = .51*(.2944 - .2112) + .49*(.7484 - .6332) = +.0989 -> "yes". Association:
    # P(X=1) = .51*.84 + .49*.12 = .4872, P(Z=1 | X=1) = .0588/.4872 = .1207, P(Z=1 | X=0) =
    # .4312/.5128 = .8409; P(Y | X=1) = .8793*.2944 + .1207*.7484 = .3492, P(Y | X=0) = .1591*.2112 +
    # .8409*.6332 = .5661: -.2169 -> the lure is "no". Items 0 and 2 are chains with reversals too:
    # item 0 association +.079 (rung 1: "yes"; ATE -.067, ETT -.062), item 2 association -.079, ATE
    # +.063, ETT +.073 (rung 3: "yes", the lure "no"); the enumeration test recomputes every item.
    assert [(d["condition"], d["gold"], d["lure"], d["structure"], d["reversal"]) for d in docs] == [
        ("rung1", 0, -1, "chain", True), ("rung2", 0, 1, "chain", True), ("rung3", 0, 1, "chain", True)
    ]
    assert all(d["choices"] == ["yes", "no"] for d in docs)


def _parse(prompt: str) -> tuple[dict[str, tuple[str, ...]], dict[str, dict[tuple[int, ...], float]], str, str, str]:
    """Parents, stated probabilities, rung, treatment and outcome, read from the prompt alone."""
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, dict[tuple[int, ...], float]] = {}
    for var, given, p in CPT_LINE.findall(prompt):
        pairs = [g.split(" = ") for g in given.split(", ")] if given else []
        parents[var] = tuple(name for name, _ in pairs)
        cpts.setdefault(var, {})[tuple(int(v) for _, v in pairs)] = float(p)
    links = re.search(r"Causal structure: (.+?)\. There are no other", prompt).group(1).split("; ")
    stated = {tuple(link.split(" causes ")) for link in links}
    assert stated == {(p, v) for v, ps in parents.items() for p in ps}  # the words and the tables agree
    assert all(len(table) == 2 ** len(parents[v]) for v, table in cpts.items())
    [(rung, match)] = [(r, m) for r, q in QUESTIONS.items() if (m := q.search(prompt))]
    x, y = (match.group(2), match.group(1)) if rung == "rung1" else match.groups()
    return parents, cpts, rung, x, y


def _p_y(parents, cpts, x, y, *, seen=None, do=None) -> float:
    """P(Y=1) by summing the full joint over all 2^k assignments. ``seen``: condition on
    the factual X; ``do``: X's children read ``do`` instead of X (and X's own factor
    becomes the point mass when nothing is seen). seen + do is the twin network of the
    counterfactual Y_{X=do} given X = seen, collapsed: the evidence is on X alone, so
    the factual copies of X's descendants sum out."""
    names = sorted(parents)
    num = den = 0.0
    for values in itertools.product((0, 1), repeat=len(names)):
        v = dict(zip(names, values))
        if seen is not None and v[x] != seen:
            continue
        weight = 1.0
        for var in names:
            if var == x and seen is None and do is not None:
                weight *= float(v[x] == do)
                continue
            row = tuple(do if (p == x and do is not None) else v[p] for p in parents[var])
            p1 = cpts[var][row]
            weight *= p1 if v[var] else 1 - p1
        num += weight * v[y]
        den += weight
    return num / den


def test_every_key_matches_exact_enumeration_of_the_stated_joint():
    margin = LADDER.make_params().margin
    docs = LADDER.generate(11, 300)
    for doc in docs:
        parents, cpts, rung, x, y = _parse(doc["prompt"])
        assert rung == doc["condition"] and len(parents) == (3 if doc["structure"] == "confounder" else 4)
        assoc = _p_y(parents, cpts, x, y, seen=1) - _p_y(parents, cpts, x, y, seen=0)
        ate = _p_y(parents, cpts, x, y, do=1) - _p_y(parents, cpts, x, y, do=0)
        assert _p_y(parents, cpts, x, y, seen=1, do=1) == pytest.approx(_p_y(parents, cpts, x, y, seen=1))  # consistency
        ett = _p_y(parents, cpts, x, y, seen=1, do=1) - _p_y(parents, cpts, x, y, seen=1, do=0)
        assert min(abs(assoc), abs(ate), abs(ett)) >= margin - 1e-12
        asked = {"rung1": assoc, "rung2": ate, "rung3": ett}[rung]
        assert doc["gold"] == (0 if asked > 0 else 1)
        assert doc["associational"] == (0 if assoc > 0 else 1)
        # Every structure has a backdoor path: a parent of X that is also an ancestor of Y.
        ancestors_of_y, frontier = set(), {y}
        while frontier:
            frontier = {p for v in frontier for p in parents[v]} - ancestors_of_y
            ancestors_of_y |= frontier
        assert set(parents[x]) & ancestors_of_y
        if doc["reversal"]:
            assert (assoc > 0) != (ate > 0) and (assoc > 0) != (ett > 0)
        else:
            assert (assoc > 0) == (ate > 0) == (ett > 0)
        disagree = doc["associational"] != doc["gold"]
        assert doc["lure"] == (doc["associational"] if disagree and rung != "rung1" else -1)
    assert {d["structure"] for d in docs} == {"chain", "fork", "collider", "mediator", "confounder"}
    # Reversals are spread evenly: exactly half of each rung's 100 items.
    for rung in ("rung1", "rung2", "rung3"):
        assert sum(d["reversal"] for d in docs if d["condition"] == rung) == 50
    golds = [d["gold"] for d in docs]
    assert golds.count(0) == golds.count(1)  # yes and no alternate


def _doc(condition: str, gold: int, associational: int, reversal: bool) -> dict:
    lure = associational if condition != "rung1" and associational != gold else -1
    return {
        "condition": condition, "gold": gold, "lure": lure, "choices": ["yes", "no"],
        "associational": associational, "reversal": reversal,
    }


def test_effects_on_hand_built_answers():
    rows = [  # (doc, pred): pred None is an invalid answer
        (_doc("rung1", 0, 0, False), 0),  # right
        (_doc("rung1", 1, 0, True), 1),  # right
        (_doc("rung1", 0, 0, False), 1),  # wrong
        (_doc("rung2", 1, 0, True), 0),  # wrong: the associational answer
        (_doc("rung2", 0, 0, False), 0),  # right
        (_doc("rung2", 1, 1, False), None),  # wrong: invalid
        (_doc("rung2", 1, 1, False), 0),  # wrong, not associational (association agrees with the key)
        (_doc("rung3", 0, 1, True), 0),  # right
        (_doc("rung3", 1, 0, True), 0),  # wrong: the associational answer
        (_doc("rung3", 0, 0, False), 0),  # right
    ]
    scores = aggregate(LADDER, [LADDER.score(doc, pred) for doc, pred in rows])
    # acc: rung1 2/3, rung2 1/4, rung3 2/3; overall 5/10.
    assert scores["acc"] == 0.5 and scores["acc_chance"] == 0.5
    assert scores["acc_rung1"] == pytest.approx(2 / 3)
    assert scores["acc_rung2"] == 0.25 and scores["acc_rung3"] == pytest.approx(2 / 3)
    assert scores["ladder_drop"] == pytest.approx(2 / 3 - 1 / 4)  # 5/12
    assert scores["counterfactual_drop"] == pytest.approx(0.0)
    # rung 2-3 items where association agrees: 1, 0, 0, 1 -> 1/2; reversal items: 0, 1, 0 -> 1/3.
    assert scores["confounding_effect"] == pytest.approx(1 / 2 - 1 / 3)
    # rung 2-3 errors: associational, invalid, not associational, associational -> 2/4.
    assert scores["confounding_error_share"] == 0.5


def test_an_associational_reader_climbs_no_rung():
    docs = LADDER.generate(0, 300)
    scores = play(LADDER, "prepotent", docs, "gen")
    # Half of each rung's items are reversals, on which it gives the associational answer.
    assert scores["acc_rung1"] == 1.0 and scores["acc_rung2"] == 0.5 and scores["acc_rung3"] == 0.5
    assert scores["ladder_drop"] == 0.5 and scores["counterfactual_drop"] == 0.5
    assert scores["confounding_effect"] == 1.0 and scores["confounding_error_share"] == 1.0
    mc = play(LADDER, "prepotent", docs, "mc")
    assert mc["lure_margin_rung2"] == mc["lure_margin_rung3"] == -1.0
    assert play(LADDER, "optimal", docs, "gen")["ladder_drop"] == 0.0


def test_random_player_errors_split_as_the_reversals_do():
    scores = play(LADDER, "random", LADDER.generate(0, 3000), "gen")
    se = math.sqrt(2 * 0.25 / 1000)
    assert abs(scores["ladder_drop"]) < 3.5 * se and abs(scores["confounding_effect"]) < 3.5 * se
    assert scores["confounding_error_share"] == pytest.approx(0.5, abs=0.05)


def test_reversal_share_is_exact_per_rung():
    for share, expected in ((0.0, 0), (0.3, 9), (1.0, 30)):
        docs = LADDER.generate(2, 90, LADDER.make_params({"reversal_share": share}))
        for rung in ("rung1", "rung2", "rung3"):
            assert sum(d["reversal"] for d in docs if d["condition"] == rung) == expected
        if 0 < share < 1:  # reversals in every structure, not in one kind of graph
            assert {d["structure"] for d in docs if d["reversal"]} == set(LADDER_STRUCTURES)


LADDER_STRUCTURES = ("chain", "fork", "collider", "mediator", "confounder")


def test_neither_the_structure_nor_the_association_predicts_a_causal_key():
    # 600 items per rung: in every structure of rungs 2 and 3, the associational answer is right on exactly
    # half the items (the reversals are the other half), and so is flipping it on that structure; the key is
    # yes on half the reversals and half the agreements; a constant answer scores 1/2 in every cell.
    docs = LADDER.generate(7, 1800)
    for rung in ("rung2", "rung3"):
        cell = [d for d in docs if d["condition"] == rung]
        assert sum(d["associational"] == d["gold"] for d in cell) == len(cell) // 2
        for structure in LADDER_STRUCTURES:
            items = [d for d in cell if d["structure"] == structure]
            assert len(items) == 120
            assert sum(d["associational"] == d["gold"] for d in items) == 60  # association and its flip: 1/2
            assert Counter((d["reversal"], d["gold"]) for d in items) == {
                (r, g): 30 for r in (True, False) for g in (0, 1)
            }
    for rung in LADDER.conditions:
        assert Counter(d["gold"] for d in docs if d["condition"] == rung) == {0: 300, 1: 300}
        for parity in (0, 1):
            golds = Counter(d["gold"] for d in docs if d["condition"] == rung and d["index"] % 2 == parity)
            assert golds[0] == golds[1]


def test_no_two_items_are_the_same():
    docs = LADDER.generate(0, 1200)
    assert len({LADDER.identity(d) for d in docs}) == 1200


def test_a_wider_margin_is_kept():
    for doc in LADDER.generate(4, 60, LADDER.make_params({"margin": 0.15})):
        assert min(abs(e) for e in doc["effects"]) >= 0.15


@pytest.mark.parametrize(("answer", "expected"), [("Yes.", 0), ("**NO**", 1), ("  yes ", 0), ('"no"', 1)])
def test_decorated_yes_no_reads(answer, expected):
    assert LADDER.read(_doc("rung2", 0, 1, True), answer) == expected


@pytest.mark.parametrize(("answer", "expected"), [("Yes, because the effect is positive", 0), ("No (the ATE is negative)", 1)])
def test_an_explanation_after_the_answer_is_dropped_by_the_shared_rule(answer, expected):
    """lm_eval_cog.answers: the answer is exactly yes/no once a trailing explanation is dropped."""
    doc = _doc("rung2", 0, 1, True)
    assert LADDER.read_answer(doc, answer) == expected
    assert LADDER.score_gen(doc, answer)["invalid_rate"] == 0.0
    assert LADDER.read_answer(doc, answer.replace(",", "?,").replace(" (", "? (")) is None  # hedged: "Yes?, because"


@pytest.mark.parametrize("answer", ["yes or no", "", "probably yes", "y", "0", "not yes"])
def test_hedged_or_explained_answers_are_invalid(answer):
    doc = _doc("rung2", 0, 1, True)
    assert LADDER.read(doc, answer) is None
    scores = LADDER.score_gen(doc, answer)
    assert scores["invalid_rate"] == 1.0 and scores["acc"] == 0.0
    assert scores["confounding_error_share"] == (True, 0.0)  # an error, but not the associational answer


@pytest.mark.parametrize(
    ("overrides", "param"),
    [
        ({"reversal_share": 1.5}, "reversal_share"), ({"reversal_share": -0.1}, "reversal_share"),
        ({"reversal_share": "half"}, "reversal_share"), ({"margin": 0}, "margin"), ({"margin": 0.5}, "margin"),
        ({"marginn": 0.1}, "marginn"),
    ],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        LADDER.make_params(overrides)
