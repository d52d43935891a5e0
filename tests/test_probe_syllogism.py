"""Syllogisms: pinned items, the key re-derived by Venn-diagram model checking, belief-bias effects."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from itertools import product

import pytest

from lm_eval_cog.probes._syllogism_beliefs import relation
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

SYL = get_probe("syllogism")
INSTRUCTIONS = (
    "Logic puzzle. Assume that the premises are true, even where they seem false, and that each category "
    "mentioned has at least one member. The conclusion is valid if it must be true whenever both premises "
    "are true; otherwise it is invalid, even if it happens to be true.\n"
)
SENTENCE = re.compile(r"^(All|No|Some) (.+?) are (not )?(.+)\.$")


# -- an independent key: every model of three terms is a set of non-empty Venn regions ---
def _holds(statement: tuple[str, int, int], model: int) -> bool:
    """Truth of ("A"|"E"|"I"|"O", x, y) in ``model``: bit r set = region r (a subset of the
    terms {0, 1, 2}, as a bitmask) has a member."""
    mood, x, y = statement
    occupied = [r for r in range(8) if model >> r & 1]
    if mood == "A":
        return not any(r >> x & 1 and not r >> y & 1 for r in occupied)
    if mood == "E":
        return not any(r >> x & 1 and r >> y & 1 for r in occupied)
    if mood == "I":
        return any(r >> x & 1 and r >> y & 1 for r in occupied)
    return any(r >> x & 1 and not r >> y & 1 for r in occupied)


def _models(existential: bool):
    for model in range(256):
        if not existential or all(any(model >> r & 1 and r >> t & 1 for r in range(8)) for t in range(3)):
            yield model


def venn_status(premises, conclusion, existential=True) -> str:
    """"valid", "indeterminate" (possible, not necessary) or "impossible"."""
    models = [m for m in _models(existential) if all(_holds(p, m) for p in premises)]
    outcomes = {_holds(conclusion, m) for m in models}
    return "valid" if outcomes == {True} else "indeterminate" if True in outcomes else "impossible"


def _parse(text: str, terms: dict[str, int]) -> tuple[str, int, int]:
    quantifier, subject, negated, predicate = SENTENCE.match(text).groups()
    mood = {"All": "A", "No": "E"}.get(quantifier, "O" if negated else "I")
    return mood, terms.setdefault(subject, len(terms)), terms.setdefault(predicate, len(terms))


def _key_from_surface(prompt: str) -> str:
    lines = dict(line.split(": ", 1) for line in prompt.splitlines() if line.startswith(("Premise", "Conclusion")))
    terms: dict[str, int] = {}
    premises = [_parse(lines["Premise 1"], terms), _parse(lines["Premise 2"], terms)]
    conclusion = _parse(lines["Conclusion"], terms)
    assert len(terms) == 3
    return venn_status(premises, conclusion, "at least one member" in prompt)


FIGURES = {1: ((1, 2), (0, 1)), 2: ((2, 1), (0, 1)), 3: ((1, 2), (1, 0)), 4: ((2, 1), (1, 0))}  # S=0, M=1, P=2


@functools.lru_cache(maxsize=None)
def _valid(moods: str, figure: int, existential: bool, convert: bool = False) -> bool:
    """Validity of a form by the test's model checker; ``convert``: the A and O premises also read
    converted (Chapman & Chapman's illicit conversion)."""
    major, minor = FIGURES[figure]
    premises = [(moods[0], *major), (moods[1], *minor)]
    if convert:
        premises += [(m, y, x) for m, x, y in premises if m in "AO"]
    return venn_status(premises, (moods[2], 0, 2), existential) == "valid"


@pytest.mark.parametrize(("existential", "count"), [(True, 24), (False, 15)])
def test_model_checking_finds_24_traditional_and_15_modern_valid_forms_as_the_rules_do(existential, count):
    valid = set()
    for m1, m2, mc in product("AEIO", repeat=3):
        for fig, (major, minor) in FIGURES.items():
            if venn_status([(m1, *major), (m2, *minor)], (mc, 0, 2), existential) == "valid":
                valid.add((m1 + m2 + mc, fig))
    assert len(valid) == count
    from lm_eval_cog.probes.syllogism import FORMS

    assert set(FORMS[existential][0]) == valid


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 1 Ferio (EIO-1) is valid; 2 Camestres (AEE-2) is valid and "No vehicles are
    # cellos" believable; 3 IAI-1 is invalid (an undistributed middle: the trabems may be gluvaps that are
    # not migluts) but possible, and valid once "All trabems are gluvaps" is also read as "All gluvaps are
    # trabems" (illicit conversion: its invalid twin shares the profile of a valid form); 4 Disamis (IAI-3) is valid with the unbelievable "Some
    # crocodiles are pines": the lure is "invalid". Conditions cycle nonce_valid, agree,
    # nonce_invalid, conflict; the first two rounds list "valid" first.
    docs = SYL.generate(0, 4)
    question = "Does the conclusion follow necessarily from the premises? Answer valid or invalid."
    bodies = [
        ("Premise 1: No dablets are renems.\nPremise 2: Some bazweps are dablets.\n"
        "Conclusion: Some bazweps are not renems.\n" + question),
        ("Premise 1: All cellos are plilaps.\nPremise 2: No vehicles are plilaps.\n"
        "Conclusion: No vehicles are cellos.\n" + question),
        ("Premise 1: Some gluvaps are migluts.\nPremise 2: All trabems are gluvaps.\n"
        "Conclusion: Some trabems are migluts.\n" + question),
        ("Premise 1: Some topiks are pines.\nPremise 2: All topiks are crocodiles.\n"
        "Conclusion: Some crocodiles are pines.\n" + question),
    ]
    assert [d["prompt"] for d in docs] == [INSTRUCTIONS + b for b in bodies]
    assert all(d["choices"] == ["valid", "invalid"] for d in docs)
    assert [(d["condition"], d["gold"], d["lure"], d["form"]) for d in docs] == [
        ("nonce_valid", 0, -1, "EIO-1"), ("agree", 0, -1, "AEE-2"), ("nonce_invalid", 1, -1, "IAI-1"),
        ("conflict", 0, 1, "IAI-3"),
    ]


#: Truth of each mood under each relation of S to P (the table of _syllogism_beliefs, by hand).
TRUE_UNDER = {
    "subset": {"A", "I"}, "superset": {"I", "O"}, "disjoint": {"E", "O"}, "overlap": {"I", "O"},
}


@pytest.mark.parametrize("existential", [True, False])
def test_every_key_matches_venn_model_checking_of_the_printed_syllogism(existential):
    params = SYL.make_params({"existential_import": existential})
    for doc in SYL.generate(11, 400, params):
        status = _key_from_surface(doc["prompt"])
        assert status != "impossible", doc["prompt"]  # invalid items are indeterminate
        assert doc["choices"][doc["gold"]] == ("valid" if status == "valid" else "invalid")
        assert ("at least one member" in doc["prompt"]) == existential
        if doc["believable"]:
            s, p = SENTENCE.match(doc["conclusion"]).group(2, 4)
            mood = _parse(doc["conclusion"], {})[0]
            assert (mood in TRUE_UNDER[relation(s, p)]) == (doc["believable"] == "believable")
            agree = (status == "valid") == (doc["believable"] == "believable")
            assert doc["condition"] == ("agree" if agree else "conflict")
            if not agree:
                assert doc["lure"] == 1 - doc["gold"]


@pytest.mark.parametrize(
    ("s", "p", "expected"),
    [("roses", "flowers", "subset"), ("flowers", "roses", "superset"), ("dogs", "fish", "disjoint"),
     ("dogs", "birds", "disjoint"), ("hammers", "trees", "disjoint"), ("birds", "pets", "overlap"),
     ("dogs", "animals", "subset"), ("roses", "trees", None), ("pets", "tools", None)],
)
def test_belief_bank_relations_agree_with_world_knowledge(s, p, expected):
    assert relation(s, p) == expected


def test_conditions_and_belief_kinds_are_balanced():
    docs = SYL.generate(0, 80)
    assert [d["condition"] for d in docs[:4]] == ["nonce_valid", "agree", "nonce_invalid", "conflict"]
    for cond in ("agree", "conflict"):
        kinds = [d["valid"] for d in docs if d["condition"] == cond]
        assert kinds.count(True) == kinds.count(False) == 10


def test_key_position_and_text_are_balanced_in_every_audit_cell():
    # The nonce conditions fix their key, so the audit pools them ("nonce"); there and in agree and conflict
    # the key is "valid" half the time and each position half the time, crossed; and the items of even and
    # of odd index hold the same keys (a cross-fitted majority answer has nothing to learn).
    docs = SYL.generate(1, 320)
    assert {SYL.audit_cell(c) for c in ("nonce_valid", "nonce_invalid")} == {"nonce"}
    for cell in ("nonce", "agree", "conflict"):
        items = [d for d in docs if SYL.audit_cell(d["condition"]) == cell]
        pairs = Counter((d["choices"][d["gold"]], d["gold"]) for d in items)
        assert pairs == {(k, g): len(items) // 4 for k in ("valid", "invalid") for g in (0, 1)}
    for parity in (0, 1):
        keys = Counter(d["choices"][d["gold"]] for d in docs if d["index"] % 2 == parity)
        assert keys["valid"] == keys["invalid"]


def _atmosphere(moods: str) -> bool:
    negative, particular = any(m in "EO" for m in moods[:2]), any(m in "IO" for m in moods[:2])
    return moods[2] == ("O" if negative and particular else "E" if negative else "I" if particular else "A")


@pytest.mark.parametrize("existential", [True, False])
def test_conclusion_mood_atmosphere_and_conversion_do_not_predict_validity(existential):
    # Invalid items take the (conclusion mood, atmosphere verdict, conversion verdict) profile of a valid
    # form: the two profile distributions are the same, so answering by the mood of the conclusion, by the
    # atmosphere heuristic (Woodworth & Sells: "valid" when the conclusion is negative / particular as the
    # premises are) or by illicit conversion (Chapman & Chapman) scores 1/2. The verdicts are computed here
    # by the test's own Venn model checker (_valid) on the converted premises.
    docs = SYL.generate(2, 2000, SYL.make_params({"existential_import": existential}))
    profiles = {flag: Counter() for flag in (True, False)}
    converted_right = 0
    for d in docs:
        moods, figure = d["form"][:3], int(d["form"][-1])
        converted = _valid(moods, figure, existential, convert=True)
        converted_right += converted == d["valid"]
        profiles[d["valid"]][(moods[2], _atmosphere(moods), converted)] += 1
    assert set(profiles[True]) == set(profiles[False])
    for profile in profiles[True]:
        assert abs(profiles[True][profile] - profiles[False][profile]) < 4 * math.sqrt(profiles[True][profile] + 5)
    atmosphere_right = sum(_atmosphere(d["form"][:3]) == d["valid"] for d in docs) / len(docs)
    assert abs(atmosphere_right - 0.5) < 0.05
    assert converted_right / len(docs) == 0.5  # every item is "valid" under conversion, half of them truly
    mood_majority = sum(max(profiles[True][p], profiles[False][p]) for p in profiles[True]) / len(docs)
    assert mood_majority < 0.56


def test_no_two_items_are_the_same_up_to_option_order():
    docs = SYL.generate(0, 1200)
    assert len({SYL.identity(d) for d in docs}) == 1200
    # The identity names the options in one order: the same syllogism asked "valid or invalid" and
    # "invalid or valid" is one item.
    flipped = dict(docs[0], choices=["invalid", "valid"], gold=1,
                   prompt=docs[0]["prompt"].replace("Answer valid or invalid.", "Answer invalid or valid."))
    assert SYL.identity(flipped) == SYL.identity(docs[0])


def _doc(condition, gold, believable):
    belief = -1 if not believable else gold if condition == "agree" else 1 - gold
    return {"choices": ["valid", "invalid"], "gold": gold, "condition": condition,
            "lure": belief if condition == "conflict" else -1, "believable": believable, "belief_answer": belief}


def test_effects_on_hand_built_answers():
    docs_preds = [
        (_doc("nonce_valid", 0, ""), 1),              # wrong, no belief
        (_doc("agree", 0, "believable"), 0),          # right
        (_doc("agree", 1, "unbelievable"), 0),        # wrong: against belief
        (_doc("agree", 1, "unbelievable"), 1),        # right
        (_doc("agree", 0, "believable"), 0),          # right
        (_doc("conflict", 0, "unbelievable"), 1),     # wrong: follows belief
        (_doc("conflict", 1, "believable"), 0),       # wrong: follows belief
        (_doc("conflict", 1, "believable"), 1),       # right
        (_doc("conflict", 0, "unbelievable"), None),  # invalid: an error not following belief
    ]
    scores = aggregate(SYL, [SYL.score(d, p) for d, p in docs_preds])
    # acc(agree) = 3/4, acc(conflict) = 1/4: index = 0.5.
    assert scores["belief_bias_index"] == pytest.approx(0.5)
    # Belief-item errors: agree 1 (against), conflict 3 (2 follow belief, 1 invalid) -> 2/4.
    assert scores["belief_error_share"] == pytest.approx(0.5)
    assert scores["acc_nonce_valid"] == 0.0 and scores["acc"] == pytest.approx(4 / 9)


def test_a_belief_responder_shows_full_belief_bias():
    scores = play(SYL, "prepotent", SYL.generate(0, 300), "gen")
    assert scores["acc_agree"] == scores["acc_nonce_valid"] == scores["acc_nonce_invalid"] == 1.0
    assert scores["acc_conflict"] == 0.0
    assert scores["belief_bias_index"] == 1.0 and scores["belief_error_share"] == 1.0


def test_random_player_errors_follow_belief_half_the_time():
    scores = play(SYL, "random", SYL.generate(0, 2000), "gen")
    assert abs(scores["belief_bias_index"]) < 3.5 * math.sqrt(2 * 0.25 / 500)
    assert scores["belief_error_share"] == pytest.approx(0.5, abs=0.07)


@pytest.mark.parametrize(("answer", "expected"), [("valid", 0), ("**Invalid.**", 1), ("VALID", 0)])
def test_decorated_answers_are_read(answer, expected):
    assert SYL.read(_doc("agree", 0, "believable"), answer) == expected


@pytest.mark.parametrize("answer", ["valid or invalid", "probably valid", "", "yes", "not valid"])
def test_hedged_or_other_answers_are_invalid(answer):
    assert SYL.read(_doc("agree", 0, "believable"), answer) is None


@pytest.mark.parametrize("value", [1, "true", None])
def test_bad_existential_import_names_the_parameter(value):
    with pytest.raises(ValueError, match="'existential_import'"):
        SYL.make_params({"existential_import": value})


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="existential"):
        SYL.make_params({"existential": True})


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in SYL.heuristics}


def _stem(p1, p2, conclusion):
    return INSTRUCTIONS + f"Premise 1: {p1}\nPremise 2: {p2}\nConclusion: {conclusion}\n"


def test_atmosphere_accepts_the_conclusion_of_the_premises_mood():
    # Woodworth & Sells: a particular negative premise gives a particular negative atmosphere, so
    # "Some A are not C" is accepted and "All A are C" rejected, whatever the logic (both invalid here).
    options = ["valid", "invalid"]
    stem = _stem("Some B are not C.", "All A are B.", "{}")
    assert HEURISTICS["atmosphere"].scores(stem.format("Some A are not C."), options) == [1.0, 0.0]
    assert HEURISTICS["atmosphere"].scores(stem.format("All A are C."), options) == [0.0, 1.0]
    # Two universal affirmatives: a universal affirmative atmosphere ("All ..."), not "Some ...".
    assert HEURISTICS["atmosphere"].scores(_stem("All B are C.", "All A are B.", "Some A are C."), options) == [0.0, 1.0]


def test_conversion_reads_all_and_some_not_both_ways():
    # Chapman & Chapman: "All C are B" read as also "All B are C" makes the invalid AAA-2 (undistributed
    # middle) valid; the logic, without conversion, rejects it. An E premise converts validly and changes nothing.
    options = ["invalid", "valid"]
    aaa2 = _stem("All C are B.", "All A are B.", "All A are C.")
    assert HEURISTICS["conversion"].scores(aaa2, options) == [0.0, 1.0]
    assert venn_status([("A", 2, 1), ("A", 0, 1)], ("A", 0, 2)) == "indeterminate"
    # III-1 stays invalid under conversion (nothing to convert): rejected.
    assert HEURISTICS["conversion"].scores(_stem("Some B are C.", "Some A are B.", "Some A are C."), options) == [1.0, 0.0]
    assert HEURISTICS["conversion"].scores("no syllogism", options) is None


def test_min_heuristic_takes_the_least_informative_premises_quantifier():
    # Chater & Oaksford: All > Some > No > Some-not; from "No" and "Some" premises the conclusion is "No ...".
    options = ["valid", "invalid"]
    assert HEURISTICS["min"].scores(_stem("No B are C.", "Some A are B.", "No A are C."), options) == [1.0, 0.0]
    assert HEURISTICS["min"].scores(_stem("No B are C.", "Some A are B.", "Some A are not C."), options) == [0.0, 1.0]


@pytest.mark.parametrize("existential", [True, False])
def test_declared_heuristics_are_at_chance_in_each_audit_cell(existential):
    # Seeds 11-13, 400 items each: 300 per condition; the nonce conditions (whose key the condition fixes)
    # pooled as the audit pools them. Before version 3, conversion scored 0.86 (agree and conflict) and 0.87
    # (nonce): invalid forms were rarely valid under conversion, valid ones always are.
    params = SYL.make_params({"existential_import": existential})
    for heuristic in SYL.heuristics:
        credits = {}
        for seed in (11, 12, 13):
            for doc in SYL.generate(seed, 400, params):
                stem = doc["prompt"].rsplit("\n", 1)[0]
                scores = heuristic.scores(stem, doc["choices"])
                cell = SYL.audit_cell(doc["condition"])
                credits.setdefault(cell, []).append(float(scores[doc["gold"]] > scores[1 - doc["gold"]]))
        accuracy = {cell: sum(v) / len(v) for cell, v in credits.items()}
        assert max(accuracy.values()) <= 0.5 + 0.05, (heuristic.name, accuracy)
