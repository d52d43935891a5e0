"""Wason 2-4-6 (Wason, 1960; CogProbe's induction task): the rule reader under attack, its
semantics, exact-equivalence scoring, metrics on hand-built logs, the initial-triple criterion,
the reference agents (ideal 100 % with its exact expected query count, random at its analytic
chance, a confirmer caught by Wason's trap), parameter validation and conformance."""

from __future__ import annotations

import ast
import builtins
import contextlib
import json
import math
import os
import time
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import episode_seed
from lm_eval_cog.paradigms.chance import play
from lm_eval_cog.paradigms.checks import check_paradigm
from lm_eval_cog.paradigms.wason246 import (
    CLOSING,
    PARADIGM,
    RuleError,
    Wason246Env,
    Wason246Params,
    expected_ideal_queries,
    ideal_queries,
    parse_rule,
    random_chance,
    read_move,
    score_rule,
    wason246_metrics,
)
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.env import CUT, WASON_TRIPLE

settings.register_profile(
    "wason246",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("wason246-deep", parent=settings.get_profile("wason246"), derandomize=False, max_examples=5000)
PROFILE = settings.get_profile("wason246-deep" if os.environ.get("LM_EVAL_COG_HYPOTHESIS") == "deep" else "wason246")

COGPROBE6 = PARADIGM.make_params("cogprobe6", "direct")
WASON1960 = PARADIGM.make_params("wason1960", "direct")


# --------------------------------------------------------------------------- #
# The rule reader under attack
# --------------------------------------------------------------------------- #


@contextlib.contextmanager
def no_execution():
    """eval/exec are forbidden and compile may only build syntax trees (what ast.parse does)."""

    def refuse(*args, **kwargs):
        raise AssertionError("model text reached eval/exec")

    real_compile = builtins.compile

    def tree_only(source, filename, mode, flags=0, *args, **kwargs):
        assert flags & ast.PyCF_ONLY_AST, "compile() was asked for code, not a syntax tree"
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    with mock.patch.object(builtins, "eval", refuse), mock.patch.object(builtins, "exec", refuse), \
            mock.patch.object(builtins, "compile", tree_only):  # fmt: skip
        yield


def checked_parse(text, variable_bound=1000):
    """parse_rule with execution forbidden."""
    with no_execution():
        return parse_rule(text, variable_bound)


ATTACKS = [
    ("__import__('os').system('touch /tmp/wason246_pwned')", "calls are not allowed"),
    ("open('/tmp/wason246_pwned', 'w')", "calls are not allowed"),
    ("x.__class__.__mro__", "attribute access"),
    ("().__class__.__bases__[0].__subclasses__()", "calls are not allowed"),
    ("x[0] > 1", "indexing"),
    ("lambda a, b, c: a < b < c", "lambda must be exactly 'lambda x, y, z:'"),
    ("lambda x, y: x < y", "lambda must be exactly"),
    ("lambda x, y, z=1: x < y < z", "lambda must be exactly"),
    ("lambda *x: x", "lambda must be exactly"),
    ("x < (lambda: 1)()", "calls are not allowed"),
    ("x < y and (lambda x, y, z: x)", "lambda other than a leading"),
    ("9**9**9 > x", "'**' needs a whole-number exponent"),
    ("x ** 9 > 0", "'**' needs a whole-number exponent"),
    ("x ** y > 0", "'**' needs a whole-number exponent"),
    # Only powers of powers reach the magnitude guard (x*x*...*x and x ** 7 are read: test_wason246_exact).
    ("((x ** 8) ** 8) ** 8 > y", "could grow too large"),
    ("(x ** 8 * y ** 8 * z ** 8) ** 8 > 0", "could grow too large"),
    ("x < " + "1" * 40, "too large"),
    ("x < 1000000000000", "too large"),
    ("-" * 300 + "x < 1", "nested too deeply"),
    ("not " * 100 + "x < y", "nested too deeply"),
    ("(" * 240 + "x < y" + ")" * 240, "not a valid expression"),
    ("x" + "<y" * 240, "too complex"),
    ("x <" + " " * 100_000 + "y", "too long"),
    ("x" * 100_000, "too long"),
    ("1 < 2" + " and 1 < 2" * 10_000, "too long"),
    ("x < 'a'", "strings are not allowed"),
    ("x < 1.5", "whole numbers"),
    ("x / 2 == 1", "use // for integer division"),
    ("x = y", "use == to compare"),
    ("n < x", "unknown name 'n'"),
    ("True < x", "needs a number, got a condition"),
    ("x + y", "a number, not a condition"),
    ("x and y", "needs a condition, got a number"),
    ("x in [1, 2]", "lists are not allowed"),
    ("x is y", "the comparison 'is' is not allowed"),
    ("x if y else z", "conditional expressions"),
    ("[x for x in y]", "comprehensions"),
    ("(x := 1) > 0", "assignment"),
    ("x & y == 0", "the operator '&' is not allowed"),
    ("~x < 0", "'~' is not allowed"),
    ("abs(x, y) > 1", "abs(...) takes exactly one number"),
    ("abs(x < y)", "abs(...) needs a number"),
    ("max(x, y) == z", "calls are not allowed, except abs(...): 'max(...)'"),
    ("x < y\x00", "not a valid expression"),
    ("", "empty"),
    ("x <", "not a valid expression"),
]


@pytest.mark.parametrize("text, reason", ATTACKS, ids=[a[:30] for a, _ in ATTACKS])
def test_attacks_are_rejected_quickly_with_a_clear_reason_and_nothing_runs(text, reason):
    started = time.perf_counter()
    with pytest.raises(RuleError) as caught:
        checked_parse(text)
    assert time.perf_counter() - started < 1.0  # generous: each takes well under a millisecond
    assert reason in caught.value.reason
    assert not os.path.exists("/tmp/wason246_pwned")


def test_a_hundred_kilobyte_reply_is_read_quickly():
    """The env reads 100 kB replies (a huge RULE line, a huge QUERY line, noise) in well under a second."""
    for reply in ("RULE: " + "x < y and " * 10_000 + "y < z", "QUERY: " + "1" * 100_000 + ", 2, 3 (expect yes)",
                  "RULE: x < y < z\n" + "QUERY: 1, 2, 3 " * 6000, "(" * 100_000):  # fmt: skip
        started = time.perf_counter()
        with no_execution():
            move = read_move(reply, 1000)
        assert time.perf_counter() - started < 1.0
        assert hasattr(move, "code"), move


# Python-syntax strategies: a whitelisted expression grammar, and text anywhere near it.
NUMBER = st.one_of(st.sampled_from(["x", "y", "z"]), st.integers(-50, 50).map(str))


def _arith(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "//", "%"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda c: f"(-{c})"),
        children.map(lambda c: f"abs({c})"),
        st.tuples(children, st.integers(0, 3)).map(lambda t: f"({t[0]} ** {t[1]})"),
    )


INT_EXPR = st.recursive(NUMBER, _arith, max_leaves=6)
COMPARISON = st.tuples(
    INT_EXPR, st.lists(st.tuples(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), INT_EXPR), min_size=1, max_size=3)
).map(lambda t: "(" + t[0] + "".join(f" {op} {e}" for op, e in t[1]) + ")")


def _logic(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["and", "or"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda c: f"(not {c})"),
    )


RULE_TEXT = st.recursive(st.one_of(COMPARISON, st.sampled_from(["True", "False"])), _logic, max_leaves=5)
TRIPLES = st.lists(st.tuples(*[st.integers(-40, 40)] * 3), min_size=1, max_size=30)


def _python_oracle(text, t):
    """Python's own value, on test-generated whitelisted text only (never on model output):
    a ZeroDivisionError makes the rule false, as the reader's semantics say."""
    try:
        return bool(eval(text, {"__builtins__": {"abs": abs}}, dict(zip("xyz", t))))
    except ZeroDivisionError:
        return False


@PROFILE
@given(text=RULE_TEXT, triples=TRIPLES)
def test_random_whitelisted_rules_evaluate_as_python_does_scalar_and_vectorised(text, triples):
    """Tree walking (one triple, and numpy over many) equals Python on every grammar rule."""
    try:
        rule = checked_parse(text, variable_bound=40)
    except RuleError as error:  # only the size/magnitude bounds may refuse a grammar rule
        assert any(k in error.reason for k in ("too large", "too complex", "nested too deeply")), error.reason
        return
    xs, ys, zs = (np.array(v, dtype=np.int64) for v in zip(*triples))
    vector = rule.evaluate(xs, ys, zs)
    for i, t in enumerate(triples):
        assert rule.holds(*t) == bool(vector[i]) == _python_oracle(text, t), (text, t)
    assert parse_rule(rule.canonical, 40).canonical == rule.canonical


FORBIDDEN_PIECES = ["x.real", "x[0]", "'s'", "1.5", "w", "f(x)", "__import__('os')", "(lambda: 1)", "x / y", "x @ y",
                    "x ** y", "[x]", "{x}", "x if y else z", "x << 1", "x is y", "x in y", "b'x'"]  # fmt: skip


@PROFILE
@given(data=st.data())
def test_a_forbidden_piece_anywhere_in_a_rule_is_rejected(data):
    """Splice one forbidden construct in place of a number of a valid rule: always refused."""
    text = data.draw(RULE_TEXT)
    targets = [i for i, c in enumerate(text) if c in "xyz" and (i == 0 or not text[i - 1].isalpha())
               and (i + 1 == len(text) or not text[i + 1].isalpha())]  # fmt: skip
    if not targets:
        text, targets = "(x < y)", [1]
    i = data.draw(st.sampled_from(targets))
    spliced = text[:i] + data.draw(st.sampled_from(FORBIDDEN_PIECES)) + text[i + 1 :]
    with pytest.raises(RuleError):
        checked_parse(spliced)


@PROFILE
@given(text=st.text(max_size=300))
def test_any_text_is_a_rule_or_a_rule_error(text):
    """Arbitrary Unicode never raises anything but RuleError, and never runs."""
    try:
        rule = checked_parse(text)
    except RuleError as error:
        assert error.reason
    else:
        assert isinstance(rule.holds(1, 2, 3), bool)


@PROFILE
@given(text=st.text(alphabet="xyz0123456789 +-*/%()<>=!andotrlmbsbda:,.'\"[]_", max_size=200))
def test_near_python_text_is_a_rule_or_a_rule_error(text):
    try:
        checked_parse(text)
    except RuleError as error:
        assert error.reason


@PROFILE
@given(text=st.text(max_size=400))
def test_any_reply_is_a_move_or_an_invalid_code(text):
    move = read_move(text, 1000)
    assert getattr(move, "kind", None) in ("query", "rule") or move.code in (
        "no_move", "bad_query", "no_expectation", "query_range", "bad_rule",
    )  # fmt: skip


# --------------------------------------------------------------------------- #
# Semantics
# --------------------------------------------------------------------------- #


def test_division_by_zero_makes_the_rule_false_and_short_circuits_as_python():
    """x // 0 and x % 0 are false for that triple; unevaluated ones (short-circuit) are not."""
    xs, ys, zs = (np.array(v) for v in ([6, 6, 6], [0, 3, 4], [1, 1, 1]))
    cases = {
        "x % y == 0": [False, True, False],  # y = 0: undefined -> false
        "not (x % y == 0)": [False, False, True],  # still false where undefined (not is not applied)
        "y != 0 and x % y == 0": [False, True, False],  # never undefined
        "y == 0 or x % y == 0": [True, True, False],  # y = 0 short-circuits to True
        "x // y > 0 or z == 1": [False, True, True],  # undefined first operand: the whole rule false
        "z == 2 < x // y": [False, False, False],  # chain stops at z == 2 before dividing
        "-7 // 2 == -4 and -7 % 2 == 1 and 7 % -2 == -1": [True, True, True],  # Python's floor semantics
    }
    for text, expected in cases.items():
        rule = parse_rule(text)
        assert rule.evaluate(xs, ys, zs).tolist() == expected, text
        assert [rule.holds(*t) for t in zip(xs, ys, zs)] == expected, text


def test_lambda_prefix_and_wrapping_are_accepted():
    assert parse_rule("lambda x, y, z: (y - x == 2) and (z - y == 2)").canonical == "y - x == 2 and z - y == 2"
    assert read_move("**RULE:** `lambda x,y,z: x < y < z`.", 1000).text == "RULE: x < y < z"


def test_gold_expressions_are_read_as_the_families_mean():
    """Each hypothesis' grid mask equals a direct numpy formula (the reader on CogProbe's gold expressions)."""
    x, y, z = hyp.grid(30)
    inc = (x < y) & (y < z)
    direct = {
        "inc": inc,
        "inc_by_k:3": (y - x == 3) & (z - y == 3),
        "even_inc": inc & (x % 2 == 0) & (y % 2 == 0) & (z % 2 == 0),
        "div_inc:5": inc & (x % 5 == 0) & (y % 5 == 0) & (z % 5 == 0),
        "sum_rule": z == x + y,
        "ratio:3": (y == 3 * x) & (z == 3 * y),
    }
    for spec, expected in direct.items():
        assert np.array_equal(hyp.mask(spec, 30), expected), spec
    assert hyp.grid_size(30) == 226_981 and int(hyp.mask("inc", 30).sum()) == 35_990  # C(61, 3)


# --------------------------------------------------------------------------- #
# Exact equivalence
# --------------------------------------------------------------------------- #

SEEN = [(-7, -14, -28), (1, 3, 5)]


@pytest.mark.parametrize(
    "stated, hidden",
    [
        ("y * y == x * z and x < y < z", "ratio:2"),  # CogProbe accepted it for double_step
        ("x == y == z", "ratio:2"),  # accepted for (0, 0, 0)
        ("(y - x == 2) and (z - y == 2) and (x % 2 == 0)", "inc_by_k:2"),  # accepted for inc_by_2
        ("(x + y == z) and (x < 100) and (y < 100) and (z < 100)", "sum_rule"),  # differs only beyond the grid
        ("(y - x == 2) and (z - y == 2)", "inc"),  # the Wason trap
        ("x < y < z", "even_inc"),
        ("z - y == y - x and y > x", "inc_by_k:3"),
    ],
)
def test_cogprobes_lenient_acceptances_and_other_near_misses_are_wrong(stated, hidden):
    score = score_rule(stated, hidden, SEEN, 30, 1000)
    assert score is not None and not score.exact and score.agreement < 1.0


@pytest.mark.parametrize(
    "stated, hidden",
    [
        ("x+2==y and y+2==z", "inc_by_k:2"),
        ("(y - x == 2) and (z - y == 2)", "inc_by_k:2"),
        ("lambda x, y, z: z - 2 == y and y - 2 == x", "inc_by_k:2"),
        ("x < y and y < z", "inc"),
        ("not (x >= y or y >= z)", "inc"),
        ("x < y < z and z < 10 ** 6", "inc"),  # differs only beyond the query domain
        ("x < y < z and (x % 2) + (y % 2) + (z % 2) == 0", "even_inc"),
        ("x < y < z and x % -3 == 0 and abs(y) % 3 == 0 and z % 3 == 0", "div_inc:3"),
        ("x + y - z == 0", "sum_rule"),
        ("y == x * 2 and z == y * 2", "ratio:2"),
        ("y == 2 * x and z == 4 * x", "ratio:2"),
        ("y - 3 * x == 0 and z == 9 * x", "ratio:3"),
    ],
)
def test_true_equivalents_written_differently_are_right(stated, hidden):
    score = score_rule(stated, hidden, SEEN, 30, 1000)
    assert score is not None and score.exact and score.agreement == 1.0 and score.consistent


def test_a_rule_that_differs_only_at_one_far_triple_is_wrong_seen_or_not():
    """Exact on the whole domain: the far triple is found whether the episode saw it (then it is
    the counterexample, and the rule is inconsistent) or not (z3 finds it; before exact scoring
    this rule passed unless the triple had been seen)."""
    stated = "x < y < z and not (x == 997 and y == 998 and z == 999)"
    for seen in ([(1, 2, 3)], [(1, 2, 3), (997, 998, 999)]):
        score = score_rule(stated, "inc", seen, 30, 1000)
        assert not score.exact and score.consistent == (len(seen) == 1)
        assert (score.counterexample.triple, score.counterexample.stated, score.counterexample.hidden) == (
            (997, 998, 999), False, True)


# --------------------------------------------------------------------------- #
# Metrics on hand-built logs
# --------------------------------------------------------------------------- #

SMALL = Wason246Params(strategy="direct", grid=9, query_bound=9, max_step=2, divisors=(3,), ratios=(2,), wason_scales=(1,))


def rec(kind, triple=None, expect=None, answer=None, rule=None, invalid=None, hidden="inc_by_k:2", initial=(-1, 1, 3)):
    return {
        "turn": 0, "hidden": hidden, "initial": list(initial), "kind": kind,
        "choice": None if invalid else "...", "triple": None if triple is None else list(triple),
        "expect": expect, "answer": answer, "rule": rule, "queries_left": 0, "invalid": invalid,
        "detail": None, "parse": "invalid" if invalid else "answer_line",
    }  # fmt: skip


# Hidden "add 2" (inc_by_k:2), initial -1, 1, 3; the model confirms twice, tests once negatively,
# sends one unreadable reply, then states "x < y < z" (Wason's trap in reverse: too general).
TRAP_LOG = [
    rec("query", (0, 2, 4), "yes", "yes"),
    rec("query", (2, 4, 6), "yes", "yes"),
    rec("query", (1, 2, 3), "no", "no"),
    rec(None, invalid="no_move"),
    rec("rule", rule="x < y < z"),
]


def test_metrics_of_a_wrong_general_rule_by_hand():
    """Grid [-9, 9]^3 = 19^3 = 6859 triples (query_bound 9: the far sample lies in the grid).
    Hidden positives: x in -9..5 -> 15. 'x < y < z' holds on C(19, 3) = 969 triples, all 15 positives
    among them: TPR = 15/15; negatives 6844, of which 969 - 15 = 954 wrongly accepted: TNR = 5890/6844.
    The seen triple 1, 2, 3 is a 'No' that the rule accepts: inconsistent."""
    m = wason246_metrics(TRAP_LOG, SMALL)
    assert m["acc"] == 0.0 and m["consistent"] == 0.0
    assert m["agreement"] == pytest.approx((1 + 5890 / 6844) / 2)
    assert m["queries"] == 3.0 and math.isnan(m["avg_queries_solved"])
    assert m["positive_test_share"] == pytest.approx(2 / 3)  # expected yes for 0,2,4 and 2,4,6
    assert m["expectation_acc"] == 1.0  # 3 of 3 expectations met
    assert m["invalid_rate"] == pytest.approx(1 / 5)  # 1 unreadable of 5 replies
    assert m["fallback_share"] == 0.0


def test_metrics_of_a_solved_episode_with_a_surprise_by_hand():
    """Right rule written differently after 2 queries, one expectation wrong (expected yes, got no)."""
    log = [rec("query", (1, 2, 3), "yes", "no"), rec("query", (3, 5, 7), "no", "yes"),
           rec("rule", rule="lambda x, y, z: x + 2 == y and y + 2 == z")]  # fmt: skip
    m = wason246_metrics(log, SMALL)
    assert (m["acc"], m["agreement"], m["consistent"]) == (1.0, 1.0, 1.0)
    assert m["queries"] == 2.0 and m["avg_queries_solved"] == 2.0
    assert m["positive_test_share"] == 0.5  # 1 of 2 expected yes
    assert m["expectation_acc"] == 0.0  # both expectations wrong
    assert m["invalid_rate"] == 0.0


def test_an_episode_without_a_rule_scores_zero_and_nan_agreement():
    log = [rec(None, invalid="bad_rule"), rec(None, invalid="no_move")]
    m = wason246_metrics(log, SMALL)
    assert m["acc"] == 0.0 and m["consistent"] == 0.0 and math.isnan(m["agreement"])
    assert m["queries"] == 0.0 and math.isnan(m["positive_test_share"]) and math.isnan(m["expectation_acc"])
    assert m["invalid_rate"] == 1.0
    assert all(math.isnan(v) for v in wason246_metrics([], SMALL).values())


# --------------------------------------------------------------------------- #
# The environment
# --------------------------------------------------------------------------- #


def _env(params, seed=0):
    env = Wason246Env(params)
    message, info = env.reset(seed=seed)
    return env, message, info


def test_wason_preset_shows_scaled_2_4_6_and_hides_ascending():
    seen = set()
    for seed in range(40):
        env, message, _ = _env(WASON1960, seed)
        assert env.hidden == "inc"
        seen.add(env.initial)
        assert message == f"The triple {', '.join(map(str, env.initial))} follows the rule.\n20 queries left."
    assert seen == {(2 * k, 4 * k, 6 * k) for k in range(1, 6)}
    env, _, _ = _env(PARADIGM.make_params("wason1960", overrides={"wason_scales": [1]}))
    assert env.initial == WASON_TRIPLE


def test_queries_count_down_invalid_replies_cost_no_query_and_the_limit_asks_for_the_rule():
    params = PARADIGM.make_params("wason1960", "direct", {"max_queries": 2, "wason_scales": [1]})
    env, _, _ = _env(params)
    message, *_ = env.step("QUERY: 1, 2, 3 (expect no)")
    assert message == "Yes: 1, 2, 3 follows the rule.\n1 query left."
    message, *_ = env.step("QUERY: 1, 2, 3")
    assert message.startswith("Your QUERY line must say which answer you expect") and message.endswith("1 query left.")
    message, *_ = env.step("Answer: QUERY: 3, 2, 1 (expect no)")
    assert message == ("No: 3, 2, 1 does not follow the rule.\n"
                       "You have no queries left: state your rule now, with a line RULE: <expression>.")  # fmt: skip
    message, terminated, truncated, _ = env.step("QUERY: 5, 6, 7 (expect yes)")
    assert message.startswith("You cannot test more triples") and not (terminated or truncated)
    message, *_ = env.step("RULE: x < y <")
    assert message.startswith("Your rule could not be read: not a valid expression")
    message, terminated, truncated, _ = env.step("rule: x < y < z")
    assert (message, terminated, truncated) == (CLOSING, True, False)
    assert [r["invalid"] for r in env.log] == [None, "no_expectation", None, "must_state_rule", "bad_rule", None]
    assert env.final_rule is not None and env.final_rule.canonical == "x < y < z"
    m = wason246_metrics(env.log, params)
    assert m["acc"] == 1.0 and m["queries"] == 2.0 and m["invalid_rate"] == pytest.approx(3 / 6)


def test_turn_cap_asks_for_the_rule_on_the_last_reply_then_cuts():
    """max_turns = queries + invalid allowance + 1 = 5: after two unreadable replies and two queries,
    one query is left but the 5th reply is the last, so it must be the rule; a query there is cut."""
    params = PARADIGM.make_params("cogprobe6", "direct", {"max_queries": 3, "max_invalid": 1})
    assert params.max_turns == 5
    env, _, _ = _env(params)
    env.step("hello")
    env.step("hello again")
    message, *_ = env.step("QUERY: 1, 2, 3 (expect yes)")
    assert message.endswith("2 queries left.")
    message, *_ = env.step("QUERY: 1, 2, 4 (expect yes)")
    assert message.endswith("This is your last reply: state your rule now, with a line RULE: <expression>.")
    message, terminated, truncated, _ = env.step("QUERY: 1, 2, 5 (expect yes)")
    assert truncated and not terminated
    assert message.startswith("You cannot test more triples") and message.endswith(CUT)
    assert env.log[-1]["invalid"] == "must_state_rule"
    assert wason246_metrics(env.log, params)["acc"] == 0.0


def test_reading_replies():
    assert read_move("Thinking... QUERY: 1, 2, 3 (expect yes)\nQUERY: [4, -5, 6] expect: no", 1000).text == (
        "QUERY: 4, -5, 6 (expect no)"
    )
    assert read_move("I'll state it.\n**Rule:** x < y < z", 1000).text == "RULE: x < y < z"
    assert read_move("QUERY: 1, 2, 3 (expect yes)\nRULE: z == x + y", 1000).kind == "rule"  # the last line decides
    assert read_move("The rule: maybe x < y", 1000).code == "no_move"  # lower case mid-line is prose
    assert read_move("QUERY: ４, ５, ６ (expect yes)", 1000).triple == (4, 5, 6)  # NFKC
    assert read_move("QUERY: \u22121, 2, 3 (expect no)", 1000).triple == (-1, 2, 3)  # minus sign
    assert read_move("QUERY: 1, 2, 1001 (expect no)", 1000).code == "query_range"
    assert read_move("QUERY: 1, 2 (expect no)", 1000).code == "bad_query"
    assert read_move("QUERY: 1, 2, 3 (expect maybe)", 1000).code == "bad_query"
    assert read_move("QUERY: 1, 2, 3 because", 1000).code == "no_expectation"
    assert read_move("RULE: import os", 1000).code == "bad_rule"


# --------------------------------------------------------------------------- #
# Initial triples
# --------------------------------------------------------------------------- #


def test_initial_triples_fit_only_the_hidden_rule_its_special_cases_and_generalisations():
    """Over many seeds: the triple follows the hidden rule, its values are non-zero and different,
    and every hypothesis it follows is nested with the hidden rule."""
    specs = COGPROBE6.hypotheses
    families = set()
    for seed in range(300):
        env, _, _ = _env(COGPROBE6, episode_seed(3, seed))
        t, h = env.initial, env.hidden
        families.add(hyp.split(h)[0])
        assert hyp.follows(h, t, 30) and 0 not in t and len(set(t)) == 3
        for other in specs:
            if hyp.follows(other, t, 30):
                assert hyp.nested(h, other, 30), (h, other, t)
    assert families == set(hyp.FAMILIES)


@pytest.mark.parametrize(
    "triple, hidden",
    [((0, 0, 0), "ratio:2"), ((4, 8, 16), "even_inc"), ((10, 12, 14), "inc_by_k:2"), ((3, 6, 12), "ratio:2"),
     ((2, 4, 6), "inc"), ((-1, -2, -3), "sum_rule")],
)
def test_cogprobes_degenerate_triples_are_never_drawn(triple, hidden):
    """Rejected: (0, 0, 0) has zeros (and fits sum_rule); (4, 8, 16) fits ratio:2; (10, 12, 14) fits
    even_inc; (3, 6, 12) fits inc; (2, 4, 6) fits sum_rule: each a crossing rival of the hidden rule.
    Admissible: (-1, -2, -3) for sum_rule (it decreases: no other family fits)."""
    index = hyp.grid_index(triple, 30)
    admissible = index in set(hyp.accepted(hidden, COGPROBE6.hypotheses, 30).tolist())
    assert admissible == (triple == (-1, -2, -3))


# --------------------------------------------------------------------------- #
# Reference agents
# --------------------------------------------------------------------------- #


def _runs(params, policy, n, task_seed=1):
    envs = [play(PARADIGM, params, episode_seed(task_seed, i), policy) for i in range(n)]
    return envs, [wason246_metrics(env.log, params) for env in envs]


def test_ideal_querier_is_always_right_with_its_exact_expected_query_count():
    """Exact expectation by enumeration: 12273271 / 22644000 = 0.542 queries (cogprobe6), 2 (wason1960).
    Every episode asks exactly the queries of its path in the optimal tree."""
    assert expected_ideal_queries(COGPROBE6) == Fraction(12273271, 22644000)
    assert expected_ideal_queries(WASON1960) == 2
    envs, runs = _runs(COGPROBE6, "optimal", 300)
    assert all(m["acc"] == 1.0 and m["invalid_rate"] == 0.0 for m in runs)
    assert [m["queries"] for m in runs] == [ideal_queries(COGPROBE6, e.initial, e.hidden) for e in envs]
    queries = np.array([m["queries"] for m in runs])
    assert queries.mean() == pytest.approx(12273271 / 22644000, abs=4 * queries.std() / np.sqrt(len(queries)))
    _, runs = _runs(WASON1960, "optimal", 20)
    assert all(m["acc"] == 1.0 and m["queries"] == 2.0 for m in runs)


@pytest.mark.parametrize("preset, chance", [("cogprobe6", Fraction(59, 540)), ("wason1960", Fraction(1, 6))])
def test_random_querier_is_right_at_its_analytic_chance(preset, chance):
    """A blind guess from the hidden rule's own distribution: sum_h P(h)^2 = 3/36 + 10/3600 + 3/324
    + 2/144 = 59/540 (cogprobe6); P(inc) = 1/6 (wason1960)."""
    params = PARADIGM.make_params(preset, "direct")
    assert random_chance(params) == chance
    _, runs = _runs(params, "random", 400)
    acc = np.array([m["acc"] for m in runs])
    se = math.sqrt(float(chance) * (1 - float(chance)) / len(acc))
    assert acc.mean() == pytest.approx(float(chance), abs=4 * se)
    assert np.mean([m["queries"] for m in runs]) == pytest.approx(10, abs=4 * 6.06 / 20)  # uniform 0..20: SD 6.06


def test_random_queries_with_knowledge_of_the_families_are_nearly_enough():
    """Within H the initial triple nearly gives the rule away: a consistent guess is right ~90 %."""
    _, runs = _runs(COGPROBE6, "random_consistent", 200)
    assert np.mean([m["acc"] for m in runs]) > 0.8 and all(m["consistent"] == 1.0 for m in runs)


def test_confirmatory_player_falls_into_wasons_trap():
    """Positive tests of "add 2k" (the most specific fit of k x 2-4-6) always get "Yes": it never
    learns that any ascending triple fits (Wason, 1960; Klayman & Ha, 1987)."""
    _, runs = _runs(WASON1960, "confirmatory", 30)
    assert all(m["acc"] == 0.0 and m["positive_test_share"] == 1.0 and m["consistent"] == 1.0 for m in runs)


# --------------------------------------------------------------------------- #
# Parameters, registration, conformance, rescoring
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "overrides, name",
    [
        ({"rule_set": "wason1966"}, "rule_set"),
        ({"max_queries": 0}, "max_queries"),
        ({"max_queries": 101}, "max_queries"),
        ({"max_invalid": -1}, "max_invalid"),
        ({"grid": 5}, "grid"),
        ({"grid": True}, "grid"),
        ({"query_bound": 10}, "query_bound"),
        ({"query_bound": 10**7}, "query_bound"),
        ({"max_step": 15}, "max_step"),
        ({"divisors": [2, 3]}, "divisors"),
        ({"divisors": [3, 3]}, "divisors"),
        ({"divisors": []}, "divisors"),
        ({"ratios": [6]}, "ratios"),
        ({"wason_scales": [6]}, "wason_scales"),
        ({"strategy": "shout"}, "strategy"),
        ({"max_querys": 5}, "max_querys"),
    ],
)
def test_bad_parameters_are_errors_naming_the_parameter(overrides, name):
    with pytest.raises(ValueError, match=name):
        PARADIGM.make_params("cogprobe6", overrides=overrides)


def test_registration_and_conformance():
    assert get_paradigm("wason246") is PARADIGM
    assert PARADIGM.primary_metric == "acc"
    with pytest.raises(ValueError, match="Allowed: confirmatory, heuristic, optimal, random, random_consistent"):
        PARADIGM.make_agent("oracle", COGPROBE6, np.random.default_rng(0))
    check_paradigm(PARADIGM)


def test_a_json_round_trip_of_the_log_rescores_identically():
    for policy in ("optimal", "random", "confirmatory"):
        env = play(PARADIGM, COGPROBE6, 11, policy)
        again = wason246_metrics(json.loads(json.dumps(env.log)), COGPROBE6)
        mine = wason246_metrics(env.log, COGPROBE6)
        assert all((math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(mine.values(), again.values()))


def test_the_system_prompt_states_the_formats_and_the_grammar():
    prompt = Wason246Env(COGPROBE6)
    prompt.reset(seed=0)
    text = prompt.system_prompt
    for piece in ("QUERY: a, b, c (expect yes)", "RULE: <expression>", "from -1000 to 1000", "lambda x, y, z:",
                  "false for that triple", "Respond only with that line",
                  "the same answer as my rule for every triple of integers from -1000 to 1000."):  # fmt: skip
        assert piece in text, piece
