"""Wason 2-4-6: exact scoring on the promised domain [-B, B]^3 (B = query_bound) with z3.

The z3 translation is compared with Python on random rules of the grammar and random triples,
and the solver's verdict with brute force on a small domain; wrong rules that differ from the
hidden rule at one triple, only on large numbers or only on repeated values are wrong with their
counterexample; equivalent rules written differently (monotone powers, De Morgan) are right;
a rule built to be slow for the solver is undecided within the time bound, never right; the
shipped hidden rules are equivalent to themselves and pairwise distinguishable; the verdict and
its counterexample reach the log; no rejection reason shows Python's syntax-tree class names."""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import time

import numpy as np
import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lm_eval_cog.paradigms.wason246 import PARADIGM, RuleError, Wason246Env, parse_rule, score_rule, wason246_metrics
from lm_eval_cog.paradigms.wason246 import equivalence as eq
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.env import UNDECIDED_RULE, system_prompt
from lm_eval_cog.paradigms.wason246_reflect import Wason246ReflectEnv, Wason246ReflectParams

settings.register_profile(
    "wason246-exact",
    derandomize=True,
    database=None,
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile("wason246-exact-deep", parent=settings.get_profile("wason246-exact"), derandomize=False,
                          max_examples=3000)  # fmt: skip
PROFILE = settings.get_profile(
    "wason246-exact-deep" if os.environ.get("LM_EVAL_COG_HYPOTHESIS") == "deep" else "wason246-exact"
)

COGPROBE6 = PARADIGM.make_params("cogprobe6", "direct")
SEEN = [(-7, -14, -28), (1, 3, 5)]
#: A generous wall-clock budget for one verdict that must be quick (ordinary rules take milliseconds).
QUICK_S = 1.5


def verdict(stated: str, hidden: str = "inc", seen=((1, 2, 3),), bound: int = 1000):
    return score_rule(stated, hidden, [tuple(t) for t in seen], 30, bound)


# --------------------------------------------------------------------------- #
# The translation is Python's semantics
# --------------------------------------------------------------------------- #

NUMBER = st.one_of(st.sampled_from(["x", "y", "z"]), st.integers(-12, 12).map(str))


def _infix(t) -> str:
    return f"({t[0]} {t[1]} {t[2]})"


def _arith(children, max_power):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "//", "%"]), children).map(_infix),
        st.tuples(children, st.sampled_from(["//", "%"]), st.integers(-4, 4)).map(_infix),  # literal divisors, 0 too
        children.map(lambda c: f"(-{c})"),
        children.map(lambda c: f"abs({c})"),
        st.tuples(children, st.integers(0, max_power)).map(lambda t: f"({t[0]} ** {t[1]})"),
    )


def rules(max_power: int = 8, max_leaves: int = 6):
    """Rule texts of the whole grammar: arithmetic (powers up to ``max_power``, literal and variable
    divisors, zero included), chained comparisons, and/or/not, True/False."""
    number = st.recursive(NUMBER, lambda c: _arith(c, max_power), max_leaves=max_leaves)
    ops = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    comparison = st.tuples(number, st.lists(st.tuples(ops, number), min_size=1, max_size=3)).map(
        lambda t: "(" + t[0] + "".join(f" {op} {e}" for op, e in t[1]) + ")"
    )
    logic = lambda c: st.one_of(  # noqa: E731
        st.tuples(c, st.sampled_from(["and", "or"]), c).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.lists(c, min_size=3, max_size=4).map(lambda cs: "(" + " and ".join(cs) + ")"),
        c.map(lambda x: f"(not {x})"),
    )
    return st.recursive(st.one_of(comparison, st.sampled_from(["True", "False"])), logic, max_leaves=5)


def _readable(text: str, bound: int):
    try:
        return parse_rule(text, bound)
    except RuleError as error:
        assert any(k in error.reason for k in ("too large", "too complex", "nested too deeply")), error.reason
        return None


def _python(text: str, t) -> bool:
    """Python's own value, on test-generated grammar text only (never model output)."""
    try:
        return bool(eval(text, {"__builtins__": {"abs": abs}}, dict(zip("xyz", t))))
    except ZeroDivisionError:
        return False


def z3_value(formula: z3.BoolRef, names, t) -> bool:
    """The formula at one triple: simplified to a constant, or decided by the solver."""
    at = z3.simplify(z3.substitute(formula, *[(names[n], z3.IntVal(v, formula.ctx)) for n, v in zip("xyz", t)]))
    if z3.is_true(at) or z3.is_false(at):
        return z3.is_true(at)
    solver = z3.Solver(ctx=formula.ctx)
    solver.add(at)
    result = solver.check()
    assert result != z3.unknown
    return result == z3.sat


BOUND = 1000
TRIPLES = st.lists(st.tuples(*[st.integers(-BOUND, BOUND)] * 3), min_size=1, max_size=8)
SMALL_TRIPLES = st.lists(st.tuples(*[st.integers(-4, 4)] * 3), min_size=1, max_size=8)


@PROFILE
@given(text=rules(), triples=TRIPLES, small=SMALL_TRIPLES)
def test_the_z3_translation_gives_pythons_answer_on_random_rules_and_triples(text, triples, small):
    """Floor division and remainder with any divisor sign, division by zero (false, short-circuit
    respected), powers up to 8, abs, chains, and/or/not: z3 = tree walker = Python, big numbers
    included (the vectorised walker switches to Python integers where int64 could overflow)."""
    rule = _readable(text, BOUND)
    if rule is None:
        return
    ctx = z3.Context()
    names = {n: z3.Int(n, ctx) for n in "xyz"}
    formula = eq.holds_formula(rule, names)
    points = triples + small  # small values hit zero divisors and repeated values often
    vector = rule.evaluate(*(np.array(v, dtype=np.int64) for v in zip(*points)))
    for i, t in enumerate(points):
        expected = _python(text, t)
        assert rule.holds(*t) == expected == bool(vector[i]), (text, t)
        assert z3_value(formula, names, t) == expected, (text, t)


@PROFILE
@given(a=rules(max_power=3, max_leaves=4), b=rules(max_power=3, max_leaves=4))
def test_the_solvers_verdict_equals_brute_force_on_a_small_domain(a, b):
    """On [-3, 3]^3 (343 triples) the verdict is checked triple by triple: z3 finds a differing
    triple exactly when one exists, and the one it gives does differ."""
    ra, rb = _readable(a, 3), _readable(b, 3)
    if ra is None or rb is None:
        return
    differ = [t for t in itertools.product(range(-3, 4), repeat=3) if ra.holds(*t) != rb.holds(*t)]
    try:
        found = eq.difference(ra, rb, 3)
    except eq.UndecidedError:  # allowed, never wrong; on this domain it should not happen
        pytest.fail(f"undecided on [-3, 3]^3: {a!r} vs {b!r}")
    if differ:
        assert found is not None and max(map(abs, found)) <= 3 and ra.holds(*found) != rb.holds(*found)
    else:
        assert found is None


@pytest.mark.parametrize(
    "text, triple, expected",
    [
        ("x // y == -4", (7, -2, 0), True),  # Python floors: 7 // -2 == -4 (z3's div would say -3)
        ("x % y == -1", (7, -2, 0), True),  # the remainder takes the divisor's sign (Euclid: 1)
        ("x % y == 1", (-7, 2, 0), True),
        ("x // y == 3 and x % y == -1", (-7, -2, 0), True),
        ("x % 0 == 0", (1, 2, 3), False),  # a literal zero divisor: always false
        ("not (x % y == 0)", (6, 0, 1), False),  # undefined stays false under not
        ("y == 0 or x % y == 0", (6, 0, 1), True),  # not evaluated: short-circuit
        ("z == 2 < x // y", (6, 0, 1), False),  # the chain stops before dividing
        ("x ** 0 == 1 and 0 ** 0 == 1", (0, 0, 0), True),
        ("abs(x - y) == 3", (-1, 2, 0), True),
    ],
)
def test_floor_semantics_and_division_by_zero_hand_cases(text, triple, expected):
    rule = parse_rule(text)
    ctx = z3.Context()
    names = {n: z3.Int(n, ctx) for n in "xyz"}
    assert rule.holds(*triple) == expected == z3_value(eq.holds_formula(rule, names), names, triple)


# --------------------------------------------------------------------------- #
# Wrong rules are wrong, with their counterexample
# --------------------------------------------------------------------------- #


def test_a_rule_wrong_at_a_single_triple_is_wrong_with_that_triple():
    """The review's case: it passed the old grid-and-sample check."""
    score = verdict("(x < y < z) and not (x == -1000 and y == -147 and z == -106)")
    assert not score.exact and score.undecided is None and score.agreement == 1.0  # invisible on E
    c = score.counterexample
    assert (c.triple, c.stated, c.hidden) == ((-1000, -147, -106), False, True)


def test_a_rule_wrong_only_on_large_numbers_is_wrong():
    score = verdict("x < y < z or x == 999")
    c = score.counterexample
    assert not score.exact and c.triple[0] == 999 and c.stated and not c.hidden
    assert not (c.triple[0] < c.triple[1] < c.triple[2])


def test_a_rule_wrong_only_on_repeated_values_is_wrong():
    score = verdict("x <= y <= z")
    c = score.counterexample
    assert not score.exact and c.stated and not c.hidden and len(set(c.triple)) < 3


def test_a_difference_beyond_the_domain_does_not_count_and_the_domain_is_the_query_bound():
    """x == 700 is outside [-500, 500]: no triple of the promised domain tells the rules apart."""
    assert verdict("x < y < z or x == 700", bound=500).exact
    assert not verdict("x < y < z or x == 700", bound=1000).exact
    params = PARADIGM.make_params("cogprobe6", "direct", {"query_bound": 500})
    assert "for every triple of integers from -500 to 500." in system_prompt(params)


def test_a_seen_triple_the_rule_contradicts_is_the_counterexample():
    score = verdict("x <= y <= z", seen=[(1, 2, 3), (4, 4, 4)])
    assert not score.consistent and score.counterexample.triple == (4, 4, 4)


# --------------------------------------------------------------------------- #
# Equivalent rules are right, whatever their form
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "stated, hidden",
    [
        ("x ** 7 < y ** 7 < z ** 7", "inc"),  # the old overflow guard refused it
        ("x**3 < y**3 and y**3 < z**3", "inc"),
        ("not (x >= y or y >= z)", "inc"),
        ("x * x * x * x * x * x * x * x * x < y * y * y * y * y * y * y * y * y < z * z ** 8 // z ** 0", "inc"),
        ("abs(y - x) + abs(z - y) == z - x and x != y and y != z", "inc"),
        ("(y - x) * (z - y) > 0 and y > x", "inc"),
        ("x < y < z and (x % 2) + (y % 2) + (z % 2) == 0", "even_inc"),
        ("x ** 3 < y ** 3 < z ** 3 and x % -2 == 0 and abs(y) % 2 == 0 and z % 2 == 0", "even_inc"),
        ("x < y < z and (x // 3) * 3 == x and (y // 3) * 3 == y and z % 3 == 0", "div_inc:3"),
        ("(x + y - z) ** 2 == 0", "sum_rule"),
        ("y == 2 * x and z * x == 2 * x * y and z == 2 * y", "ratio:2"),
        ("z - y == y - x and (z - x) % 4 == 0 and z - x == 4", "inc_by_k:2"),
    ],
)
def test_equivalent_rules_written_differently_are_right_quickly(stated, hidden):
    started = time.perf_counter()
    score = verdict(stated, hidden, SEEN)
    assert time.perf_counter() - started < QUICK_S
    assert score.exact and score.counterexample is None and score.undecided is None and score.agreement == 1.0


def test_products_of_comparisons_are_refused_in_words():
    """The grammar has no booleans as numbers; the reason names the operator as written."""
    with pytest.raises(RuleError, match=r"^'\*' needs a number, got a condition$"):
        parse_rule("(x < y) * (y < z) == 1")


def test_large_legal_rules_are_read_and_evaluated_exactly():
    """Rules the old 2**62 guard refused: read, and evaluated exactly (Python integers past int64)."""
    for text in ("x*x*x*x*x*x*x*x*x*x > y", "(x ** 3) * (y ** 3) * z > 0", "x ** 8 * y ** 8 * z ** 8 > 0"):
        rule = parse_rule(text, 10**6)
        t = (10**6, -(10**6) + 1, 999_999)
        assert rule.evaluate(*(np.array([v]) for v in t))[0] == rule.holds(*t) == _python(text, t)


# --------------------------------------------------------------------------- #
# The solver's time bound
# --------------------------------------------------------------------------- #

#: Equivalent to x < y < z (x**8 + y**8 - z**8 is never 3: eighth powers are 0 or 1 mod 16),
#: but beyond z3 within seconds.
SLOW = "x < y < z and x ** 8 + y ** 8 != z ** 8 + 3"


def test_a_rule_too_hard_for_the_solver_is_undecided_within_the_bound_and_never_right():
    started = time.perf_counter()
    score = verdict(SLOW)
    elapsed = time.perf_counter() - started
    assert elapsed < eq.SOLVER_TIMEOUT_S + 2.0
    assert not score.exact and score.counterexample is None
    assert score.undecided == f"could not be decided within {eq.SOLVER_TIMEOUT_S} s"
    started = time.perf_counter()
    with pytest.raises(eq.UndecidedError, match="could not be decided within 0.3 s"):
        eq.difference(parse_rule(SLOW), hyp.rule_of("inc"), 1000, timeout_s=0.3)
    assert time.perf_counter() - started < 1.5


def test_the_env_refuses_an_undecidable_rule_as_an_invalid_reply_and_takes_the_next():
    env = Wason246Env(PARADIGM.make_params("wason1960", "direct", {"wason_scales": [1]}))
    env.reset(seed=0)
    message, terminated, _, _ = env.step(f"RULE: {SLOW}")
    assert not terminated
    reason = f"could not be decided within {eq.SOLVER_TIMEOUT_S} s"
    assert message.startswith(f"Your rule could not be checked: it {reason}. Write it more simply")
    assert env.log[-1]["invalid"] == UNDECIDED_RULE and env.log[-1]["correct"] is None
    _, terminated, _, _ = env.step("RULE: x ** 7 < y ** 7 < z ** 7")
    assert terminated and env.log[-1]["correct"] is True
    assert wason246_metrics(env.log, env.params)["acc"] == 1.0


# --------------------------------------------------------------------------- #
# The shipped hidden rules
# --------------------------------------------------------------------------- #

SPECS = sorted(set(COGPROBE6.hypotheses) | set(PARADIGM.make_params("wason1960").hypotheses))


@pytest.mark.parametrize("spec", SPECS)
def test_each_hidden_rule_is_equivalent_to_itself_for_the_solver(spec):
    rule = hyp.rule_of(spec)
    again = parse_rule(f"({hyp.expression(spec)}) and True")  # another text: no shortcut on equal forms
    assert eq.difference(rule, again, 1000) is None


def test_the_presets_hidden_rules_are_pairwise_distinguishable():
    """Every pair differs somewhere in the domain, and the solver's triple shows it."""
    for a, b in itertools.combinations(SPECS, 2):
        ra, rb = hyp.rule_of(a), hyp.rule_of(b)
        t = eq.difference(ra, rb, 1000)
        assert t is not None and ra.holds(*t) != rb.holds(*t), (a, b)


def test_a_random_players_blind_guess_is_right_exactly_when_it_is_the_hidden_rule():
    """Chance levels stay valid: a guess from H (what the random players state) is right iff it is
    the hidden rule, as under the old scorer."""
    for hidden, guess in itertools.product(SPECS, SPECS):
        assert verdict(hyp.expression(guess), hidden, SEEN).exact == (guess == hidden)


# --------------------------------------------------------------------------- #
# The verdict in the log
# --------------------------------------------------------------------------- #


def test_the_rule_record_keeps_the_verdict_and_counterexample_and_rescores_from_json():
    env = Wason246Env(PARADIGM.make_params("wason1960", "direct", {"wason_scales": [1]}))
    env.reset(seed=0)
    env.step("QUERY: 1, 2, 3 (expect yes)")
    env.step("RULE: x < y < z or x == 999")
    record = env.log[-1]
    assert record["correct"] is False and record["counterexample"]["triple"][0] == 999
    assert record["counterexample"]["stated"] is True and record["counterexample"]["hidden"] is False
    assert env.log[0]["correct"] is None and env.log[0]["counterexample"] is None  # a query: no verdict
    log = json.loads(json.dumps(env.log))
    assert wason246_metrics(log, env.params)["acc"] == 0.0 == wason246_metrics(env.log, env.params)["acc"]


def test_the_reflection_record_keeps_both_rules_counterexamples():
    env = Wason246ReflectEnv(Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,)))
    env.reset(seed=0)
    env.step("RULE: x <= y <= z")
    env.step(json.dumps({"rationality_judgement": "Not reasonable", "confidence_score": 30,
                         "new_response": "RULE: x ** 3 < y ** 3 < z ** 3"}))  # fmt: skip
    record = env.log[-1]
    assert record["first_correct"] is False and record["final_correct"] is True and record["revision"] == "changed"
    assert record["first_counterexample"]["stated"] is True and record["first_counterexample"]["hidden"] is False
    assert record["final_counterexample"] is None


def test_an_undecidable_new_rule_in_the_reflection_is_unreadable_with_the_reason():
    env = Wason246ReflectEnv(Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,)))
    env.reset(seed=0)
    env.step("RULE: x < y < z")
    env.step(json.dumps({"rationality_judgement": "Not reasonable", "confidence_score": 30, "new_response": SLOW}))
    record = env.log[-1]
    assert record["revision"] == "unreadable" and record["final_correct"] is False
    assert record["new_rule_detail"].startswith("could not be decided within")


# --------------------------------------------------------------------------- #
# Reasons in words
# --------------------------------------------------------------------------- #

def _ast_classes(cls: type = ast.AST) -> set[str]:
    return {cls.__name__}.union(*(_ast_classes(sub) for sub in cls.__subclasses__()))


_AST_NAMES = re.compile(r"\b(" + "|".join(sorted(n for n in _ast_classes() if n[0].isupper())) + r")\b")


@pytest.mark.parametrize(
    "text",
    ["(x < y) + 1 > 0", "x + (y < z) > 1", "(x < y) * (y < z) == 1", "(x < y) // 2 > 0", "(x < y) % 2 > 0",
     "(x < y) - 1 > 0", "abs(x < y) > 0", "-(x < y) > 0", "(x < y) ** 2 > 0", "not x", "x and y < z",
     "... < x", "None", "x < 1j", "x @ y > 0", "x ^ y > 0", "x < y\x00", "f'{x}' == 'a'", "x[1:2] > 0"],
)  # fmt: skip
def test_rejection_reasons_name_operators_as_written_never_syntax_tree_classes(text):
    with pytest.raises(RuleError) as caught:
        parse_rule(text)
    assert not _AST_NAMES.search(caught.value.reason), caught.value.reason


@PROFILE
@given(text=st.text(alphabet="xyz0123456789 +-*/%()<>=!andotrlmbsbda:,.'\"[]_@^&|~", max_size=120))
def test_no_reason_for_any_near_python_text_shows_a_syntax_tree_class(text):
    try:
        parse_rule(text)
    except RuleError as error:
        assert not _AST_NAMES.search(error.reason), (text, error.reason)
