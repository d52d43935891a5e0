"""Exact equivalence of two rules over the domain ``[-B, B]^3``, decided by the SMT solver z3.

The instructions promise that a rule counts as correct only if it gives the hidden rule's
answer "for every triple of integers from -B to B" (``B = query_bound``). A finite test set
cannot keep that promise (a rule that differs at one far triple passes it), so this module
translates both rules' **checked syntax trees** (:func:`~lm_eval_cog.paradigms.wason246.rules.parse_rule`;
nothing is ever ``eval``-ed) into z3 formulas over integer ``x, y, z`` bounded by ``B`` and
asks z3 for a triple where they differ (:func:`difference`): none (unsat) proves equivalence,
a model is a counterexample, re-checked by the tree walker before it is believed.

The translation keeps Python's semantics exactly (the tree walker's, :mod:`.rules`):

* ``//`` and ``%`` floor (the remainder takes the divisor's sign). z3's integer ``div``/``mod``
  are Euclidean (remainder never negative), which equals floor division for a positive divisor
  only: for a negative divisor ``a // b == (-a) div (-b)`` and ``a % b == -((-a) mod (-b))``.
* A division or remainder by zero that Python would evaluate raises: the rule is then false for
  that triple. Each sub-formula therefore comes with an ``undefined`` condition, propagated with
  Python's evaluation order: both operands of arithmetic are evaluated, ``and``/``or`` and chained
  comparisons stop at the first operand that settles them (:func:`_term` mirrors ``rules._vector``).
* ``a ** n`` (``n`` a literal 0..8) is the product of ``n`` copies of ``a`` (``a ** 0 == 1``,
  ``0 ** 0 == 1`` as in Python); ``abs`` is an if-then-else. The grammar has no other calls and
  no booleans used as numbers (its type check refuses ``(x < y) * 2``).

The domain is finite, so equivalence is decidable in principle, but nonlinear integer
arithmetic can make z3 slow: every check is bounded by :data:`SOLVER_TIMEOUT_S` seconds of
wall-clock time, and a rule it cannot decide in time raises :class:`UndecidedError` (shown to
the model as an invalid rule), never "correct". Which rule hits the bound can depend on the
machine and on what z3 solved before in the process (its search is not history-free); rules
of the kind models write are decided in milliseconds (see the README for timings).
"""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from lm_eval_cog.paradigms.wason246.rules import VARIABLES, Rule, RuleError

Triple = tuple[int, int, int]

#: Wall-clock bound of one equivalence check, in seconds (all solver strategies together).
SOLVER_TIMEOUT_S = 3
#: The two strategies take turns with these shares of the time bound (the likelier one first):
#: a short round each, where ordinary rules are decided, then longer ones.
_SCHEDULE = (0.1, 0.1, 0.4, 0.4)

_COMPARE: Mapping[type, Callable[[Any, Any], Any]] = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}
# z3's Python API uses one global context by default, which is not thread-safe; every check
# builds its formulas in this module's own context, one check at a time.
_LOCK = threading.Lock()
_CONTEXT: z3.Context | None = None


class UndecidedError(RuleError):
    """z3 could not decide the equivalence within the time bound; ``reason`` is shown to the model."""


@dataclass(frozen=True)
class Counterexample:
    """A triple on which a stated rule and the hidden rule disagree, and what each says there."""

    triple: Triple
    stated: bool
    hidden: bool

    def record(self) -> dict[str, Any]:
        """The log form: ``{"triple": [x, y, z], "stated": bool, "hidden": bool}``."""
        return {"triple": list(self.triple), "stated": self.stated, "hidden": self.hidden}


def undecided_reason(timeout_s: float = SOLVER_TIMEOUT_S) -> str:
    """The reason shown for a rule the solver could not decide in time."""
    return f"could not be decided within {timeout_s:g} s"


# --------------------------------------------------------------------------- #
# Translation (checked trees only)
# --------------------------------------------------------------------------- #


def _and(*terms: z3.BoolRef) -> z3.BoolRef:
    """Conjunction, dropping constant True operands (keeps the formulas of division-free rules small)."""
    kept = [t for t in terms if not z3.is_true(t)]
    if any(z3.is_false(t) for t in kept):
        return z3.BoolVal(False, terms[0].ctx)
    return kept[0] if len(kept) == 1 else z3.And(*kept) if kept else z3.BoolVal(True, terms[0].ctx)


def _or(*terms: z3.BoolRef) -> z3.BoolRef:
    kept = [t for t in terms if not z3.is_false(t)]
    if any(z3.is_true(t) for t in kept):
        return z3.BoolVal(True, terms[0].ctx)
    return kept[0] if len(kept) == 1 else z3.Or(*kept) if kept else z3.BoolVal(False, terms[0].ctx)


def _not(term: z3.BoolRef) -> z3.BoolRef:
    if z3.is_true(term) or z3.is_false(term):
        return z3.BoolVal(z3.is_false(term), term.ctx)
    return z3.Not(term)


def holds_formula(rule: Rule, variables: Mapping[str, z3.ArithRef]) -> z3.BoolRef:
    """The z3 condition "``rule`` holds" over the integer ``variables`` (``x``, ``y``, ``z``):
    its value is true and no division by zero was evaluated (:meth:`Rule.holds`)."""
    value, undefined = _term(rule.tree, variables)
    return _and(value, _not(undefined))


def _term(node: ast.expr, env: Mapping[str, z3.ArithRef]) -> tuple[Any, z3.BoolRef]:
    """(value, undefined) of a checked node: :func:`~lm_eval_cog.paradigms.wason246.rules._vector`
    with z3 terms for numpy arrays. ``undefined`` holds where Python would raise ZeroDivisionError;
    the value there is unconstrained and never used.

    Recursion is safe: the reader has bounded the depth.
    """
    ctx = env["x"].ctx
    false = z3.BoolVal(False, ctx)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return z3.BoolVal(node.value, ctx), false
        return z3.IntVal(node.value, ctx), false
    if isinstance(node, ast.Name):
        return env[node.id], false
    if isinstance(node, ast.UnaryOp):
        value, undefined = _term(node.operand, env)
        if isinstance(node.op, ast.Not):
            return _not(value), undefined
        return (-value if isinstance(node.op, ast.USub) else value), undefined
    if isinstance(node, ast.BinOp):
        return _binop(node, env)
    if isinstance(node, ast.BoolOp):
        return _boolop(node, env)
    if isinstance(node, ast.Compare):
        left, undefined = _term(node.left, env)
        running = _not(undefined)  # every comparison so far true, nothing undefined
        for op, comparator in zip(node.ops, node.comparators):
            right, right_undefined = _term(comparator, env)
            undefined = _or(undefined, _and(running, right_undefined))
            running = _and(running, _not(right_undefined), _COMPARE[type(op)](left, right))
            left = right
        return running, undefined
    if isinstance(node, ast.Call):  # abs, the only call a checked tree holds
        value, undefined = _term(node.args[0], env)
        return z3.If(value >= 0, value, -value), undefined
    raise AssertionError(f"unchecked node {type(node).__name__}")  # pragma: no cover


def _binop(node: ast.BinOp, env: Mapping[str, z3.ArithRef]) -> tuple[Any, z3.BoolRef]:
    left, undefined = _term(node.left, env)
    if isinstance(node.op, ast.Pow):
        power = node.right.value  # type: ignore[attr-defined]  # a checked literal 0..8
        if power == 0:
            return z3.IntVal(1, left.ctx), undefined
        return (left if power == 1 else z3.Product(*[left] * power)), undefined
    right, right_undefined = _term(node.right, env)
    undefined = _or(undefined, right_undefined)
    if isinstance(node.op, ast.Add):
        return left + right, undefined
    if isinstance(node.op, ast.Sub):
        return left - right, undefined
    if isinstance(node.op, ast.Mult):
        return left * right, undefined
    floor = isinstance(node.op, ast.FloorDiv)
    if z3.is_int_value(right):  # a literal divisor (x % 2): no case split, linear for z3
        d = right.as_long()
        if d == 0:
            return z3.IntVal(0, left.ctx), z3.BoolVal(True, left.ctx)
        return _floor_op(floor, left, right, d > 0), undefined
    value = z3.If(right > 0, _floor_op(floor, left, right, True), _floor_op(floor, left, right, False))
    return value, _or(undefined, right == 0)


def _floor_op(floor: bool, a: Any, b: Any, positive: bool) -> Any:
    """Python's ``a // b`` (``floor``) or ``a % b`` from z3's Euclidean div/mod, for a divisor of
    the given sign: Euclidean equals floor for b > 0; for b < 0, a // b == (-a) // (-b) and
    a % b == -((-a) % (-b))."""
    if positive:
        return a / b if floor else a % b
    return (-a) / (-b) if floor else -((-a) % (-b))


def _boolop(node: ast.BoolOp, env: Mapping[str, z3.ArithRef]) -> tuple[Any, z3.BoolRef]:
    """``and``/``or`` with Python's short-circuit (``rules._vector_boolop``)."""
    is_and = isinstance(node.op, ast.And)
    ctx = env["x"].ctx
    running = z3.BoolVal(True, ctx)  # Python would still evaluate the next operand
    decided = z3.BoolVal(False, ctx)  # an operand settled the result (false for and, true for or)
    undefined = z3.BoolVal(False, ctx)
    for operand in node.values:
        value, operand_undefined = _term(operand, env)
        undefined = _or(undefined, _and(running, operand_undefined))
        running = _and(running, _not(operand_undefined))
        settles = _and(running, _not(value) if is_and else value)
        decided = _or(decided, settles)
        running = _and(running, _not(settles))
    return (running if is_and else decided), undefined


# --------------------------------------------------------------------------- #
# The check
# --------------------------------------------------------------------------- #


def difference(a: Rule, b: Rule, bound: int, timeout_s: float = SOLVER_TIMEOUT_S) -> Triple | None:
    """A triple of ``[-bound, bound]^3`` on which rules ``a`` and ``b`` disagree, or None if they
    agree on every one; :class:`UndecidedError` if z3 cannot tell within ``timeout_s`` seconds.

    Two z3 strategies take turns (:data:`_SCHEDULE`): nlsat (``qfnra-nlsat``, a decision procedure
    for nonlinear arithmetic that also honours integrality; fast on monotone powers and products,
    where the default solver may take seconds) and the default integer solver (fast on remainders
    and divisions, where nlsat may take seconds). Rules without ``//``/``%`` try nlsat first. Both
    answers are proofs; a counterexample is believed only once the tree walker confirms it.

    >>> from lm_eval_cog.paradigms.wason246.rules import parse_rule
    >>> difference(parse_rule("x < y < z"), parse_rule("not (x >= y or y >= z)"), 1000) is None
    True
    >>> t = difference(parse_rule("x < y < z"), parse_rule("x < y < z or x == 999"), 1000)
    >>> t[0] == 999 and not t[0] < t[1] < t[2]
    True
    """
    global _CONTEXT
    deadline = time.monotonic() + timeout_s
    with _LOCK:
        if _CONTEXT is None:
            _CONTEXT = z3.Context()
        ctx = _CONTEXT
        names = {name: z3.Int(name, ctx) for name in VARIABLES}
        query = [holds_formula(a, names) != holds_formula(b, names)]
        query += [v >= -bound for v in names.values()] + [v <= bound for v in names.values()]
        strategies: list[Callable[[], z3.Solver]] = [lambda: z3.Tactic("qfnra-nlsat", ctx=ctx).solver(),
                                                     lambda: z3.Solver(ctx=ctx)]  # fmt: skip
        if _has_division(a.tree) or _has_division(b.tree):
            strategies.reverse()
        answer: Triple | None | str = "unknown"
        for turn, share in enumerate(_SCHEDULE):
            seconds = min(share * timeout_s, deadline - time.monotonic())
            if seconds < 0.001:
                break
            answer = _solve(query, names, strategies[turn % 2](), seconds)
            if answer != "unknown":
                break
    if answer == "unknown":
        raise UndecidedError(undecided_reason(timeout_s))
    if answer is not None and a.holds(*answer) == b.holds(*answer):  # pragma: no cover - a translation bug
        raise AssertionError(f"z3 counterexample {answer} does not separate {a.canonical!r} and {b.canonical!r}")
    return answer


def _solve(query: Sequence[z3.BoolRef], names: Mapping[str, z3.ArithRef], solver: z3.Solver,
           seconds: float) -> Triple | None | str:  # fmt: skip
    """A model's triple (sat), None (unsat) or ``"unknown"`` (timeout, or a model that is not a
    triple of integers)."""
    solver.set("timeout", max(1, int(seconds * 1000)))
    solver.add(*query)
    result = solver.check()
    if result == z3.unsat:
        return None
    if result != z3.sat:
        return "unknown"
    model = solver.model()
    values = [model.eval(names[n], model_completion=True) for n in VARIABLES]
    if not all(z3.is_int_value(v) for v in values):
        return "unknown"
    return (values[0].as_long(), values[1].as_long(), values[2].as_long())


def _has_division(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.FloorDiv, ast.Mod)) for n in ast.walk(tree))


def counterexample(stated: Rule, hidden: Rule, triple: Sequence[int]) -> Counterexample:
    """The :class:`Counterexample` at ``triple``, each rule's answer by the tree walker."""
    t = (int(triple[0]), int(triple[1]), int(triple[2]))
    return Counterexample(triple=t, stated=stated.holds(*t), hidden=hidden.holds(*t))
