"""Causal ladder: pinned items, keys re-derived by enumerating the stated joint, effects by hand."""

from __future__ import annotations

import itertools
import math
import re

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
    assert [d["prompt"] for d in docs] == [
        ("Three binary variables (each 0 or 1) describe the units of a population: vibil, drotes and piblin.\n"
        "Causal structure: piblin causes vibil; vibil causes drotes; piblin causes drotes. There are no other causal "
        "links and no hidden common causes.\nProbabilities:\nP(piblin = 1) = 0.37\nP(vibil = 1 | piblin = 0) = 0.37\n"
        "P(vibil = 1 | piblin = 1) = 0.68\nP(drotes = 1 | vibil = 0, piblin = 0) = 0.77\n"
        "P(drotes = 1 | vibil = 0, piblin = 1) = 0.25\nP(drotes = 1 | vibil = 1, piblin = 0) = 0.88\n"
        "P(drotes = 1 | vibil = 1, piblin = 1) = 0.33\nQuestion: Is drotes = 1 more likely among units observed with "
        "vibil = 1 than among units observed with vibil = 0? Answer yes or no."),
        ("Three binary variables (each 0 or 1) describe the units of a population: ditrod, drafub and buvug.\n"
        "Causal structure: buvug causes ditrod; ditrod causes drafub; buvug causes drafub. There are no other causal "
        "links and no hidden common causes.\nProbabilities:\nP(buvug = 1) = 0.74\nP(ditrod = 1 | buvug = 0) = 0.31\n"
        "P(ditrod = 1 | buvug = 1) = 0.83\nP(drafub = 1 | ditrod = 0, buvug = 0) = 0.61\n"
        "P(drafub = 1 | ditrod = 0, buvug = 1) = 0.92\nP(drafub = 1 | ditrod = 1, buvug = 0) = 0.28\n"
        "P(drafub = 1 | ditrod = 1, buvug = 1) = 0.90\nQuestion: If ditrod were set to 1 by an intervention, would "
        "drafub = 1 be more likely than if ditrod were set to 0 by an intervention? Answer yes or no."),
        ("Three binary variables (each 0 or 1) describe the units of a population: motul, karol and povon.\n"
        "Causal structure: povon causes motul; motul causes karol; povon causes karol. There are no other causal "
        "links and no hidden common causes.\nProbabilities:\nP(povon = 1) = 0.37\nP(motul = 1 | povon = 0) = 0.91\n"
        "P(motul = 1 | povon = 1) = 0.41\nP(karol = 1 | motul = 0, povon = 0) = 0.16\n"
        "P(karol = 1 | motul = 0, povon = 1) = 0.71\nP(karol = 1 | motul = 1, povon = 0) = 0.48\n"
        "P(karol = 1 | motul = 1, povon = 1) = 0.43\nQuestion: Consider the units that actually have motul = 1. "
        "For these units, is karol = 1 more likely than it would have been had their motul been set to 0? "
        "Answer yes or no."),
    ]
    # Checked by hand (Z the confounder, X the treatment, Y the outcome of each item):
    # 0: P(X=1) = .63*.37 + .37*.68 = .4847; P(Y|X=1) = (.2331*.88 + .2516*.33)/.4847 = .5945,
    #    P(Y|X=0) = (.3969*.77 + .1184*.25)/.5153 = .6505: association -.056 -> "no";
    #    (ATE = .63*.11 + .37*.08 = +.0989: a reversal, but rung 1 asks the association: no lure).
    # 1: ATE = .26*(.28-.61) + .74*(.90-.92) = -.1006 -> "no"; association = .5753/.6948 -
    #    .2252/.3052 = .8281 - .7378 = +.0903 -> the lure is "yes".
    # 2: ETT = P(Z=0|X=1)*(.48-.16) + P(Z=1|X=1)*(.43-.71) = (.5733*.32 - .1517*.28)/.725 = +.1945
    #    -> "yes"; association -.127 -> the lure is "no".
    assert [(d["condition"], d["gold"], d["lure"], d["structure"], d["reversal"]) for d in docs] == [
        ("rung1", 1, -1, "confounder", True), ("rung2", 1, 0, "confounder", True), ("rung3", 0, 1, "confounder", True)
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
        assert rung == doc["condition"] and len(parents) == 3
        assoc = _p_y(parents, cpts, x, y, seen=1) - _p_y(parents, cpts, x, y, seen=0)
        ate = _p_y(parents, cpts, x, y, do=1) - _p_y(parents, cpts, x, y, do=0)
        assert _p_y(parents, cpts, x, y, seen=1, do=1) == pytest.approx(_p_y(parents, cpts, x, y, seen=1))  # consistency
        ett = _p_y(parents, cpts, x, y, seen=1, do=1) - _p_y(parents, cpts, x, y, seen=1, do=0)
        assert min(abs(assoc), abs(ate), abs(ett)) >= margin - 1e-12
        asked = {"rung1": assoc, "rung2": ate, "rung3": ett}[rung]
        assert doc["gold"] == (0 if asked > 0 else 1)
        assert doc["associational"] == (0 if assoc > 0 else 1)
        confounded = bool(parents[x])  # only a parent of X opens a backdoor path here
        if doc["reversal"]:
            assert confounded and (assoc > 0) != (ate > 0) and (assoc > 0) != (ett > 0)
        else:
            assert (assoc > 0) == (ate > 0) == (ett > 0)
        if not confounded:
            assert assoc == pytest.approx(ate) and ate == pytest.approx(ett)
        disagree = doc["associational"] != doc["gold"]
        assert doc["lure"] == (doc["associational"] if disagree and rung != "rung1" else -1)
    assert {d["structure"] for d in docs} == {"chain", "fork", "collider", "mediator", "confounder"}
    # Reversals are spread evenly: exactly half of each rung's 100 items.
    for rung in ("rung1", "rung2", "rung3"):
        assert sum(d["reversal"] for d in docs if d["condition"] == rung) == 50
    golds = [d["gold"] for d in docs]
    assert 0.35 < golds.count(0) / len(golds) < 0.65  # yes and no both common


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
        assert all(d["structure"] == "confounder" for d in docs if d["reversal"])


def test_a_wider_margin_is_kept():
    for doc in LADDER.generate(4, 60, LADDER.make_params({"margin": 0.15})):
        assert min(abs(e) for e in doc["effects"]) >= 0.15


@pytest.mark.parametrize(("answer", "expected"), [("Yes.", 0), ("**NO**", 1), ("  yes ", 0), ('"no"', 1)])
def test_decorated_yes_no_reads(answer, expected):
    assert LADDER.read(_doc("rung2", 0, 1, True), answer) == expected


@pytest.mark.parametrize("answer", ["yes or no", "Yes, because the effect is positive", "", "probably yes", "y", "0"])
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
