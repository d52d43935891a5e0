"""A safe reader and evaluator of rules over integer triples ``(x, y, z)``.

The model states its rule as a Python condition (``RULE: x < y < z``), as in CogProbe's
released outputs (``RULE: lambda x,y,z: ...``; Cui et al., 2025). Model output is never
passed to ``eval``/``exec``/``compile``: :func:`parse_rule` builds Python's syntax tree
(``ast.parse(mode="eval")``, which only parses), checks it against a whitelist and a
type discipline, and the rule is then *evaluated by walking the tree*, one triple at a
time (:meth:`Rule.holds`) or over numpy arrays of triples (:meth:`Rule.evaluate`).

Grammar (everything else is rejected with a reason that names it):

* integer literals up to ``MAX_LITERAL`` in magnitude, ``True``/``False``;
* the names ``x``, ``y``, ``z``;
* ``+ - * // %``, unary ``-``/``+``, ``a ** n`` with ``n`` an integer literal in 0..8, ``abs(e)``;
* comparisons ``< <= > >= == !=``, chained as in Python (``x < y < z``);
* ``and``, ``or``, ``not``; parentheses;
* optionally a leading ``lambda x, y, z:`` (exactly those three parameters), removed.

Types: arithmetic and comparisons take numbers, ``and``/``or``/``not`` take conditions, and
the whole rule must be a condition (``x + y`` is "a number, not a condition").

Semantics are Python's on integers: ``//`` floors, ``%`` takes the divisor's sign,
``and``/``or`` and chained comparisons short-circuit. A division or remainder by zero that
is evaluated makes the rule **false for that triple** (``y != 0 and x % y == 0`` is never
undefined: the remainder is not evaluated when ``y == 0``).

Bounds: at most ``MAX_CHARS`` characters, ``MAX_NODES`` syntax nodes and ``MAX_DEPTH``
levels. Every sub-expression's magnitude is bounded before evaluation from the bound of
``|x|, |y|, |z|`` (interval arithmetic). Evaluation is exact for every rule the grammar
allows: the numpy walker uses int64 where that bound stays below ``2**62`` and Python
integers (object arrays) beyond it, so ``x ** 7 < y ** 7`` at ``|x| <= 1000`` is read and
evaluated like any other rule. The only magnitude limit, ``VALUE_LIMIT`` (``2**1024``, about
300 digits), guards the evaluators against powers of powers (``((x ** 8) ** 8) ** 8`` has degree
512); no rule without nested powers comes near it (``x**8 * y**8 * z**8`` at ``|x| <= 10**6``
stays below ``2**480``).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Longest rule text read (characters, after the ``RULE:`` marker).
MAX_CHARS = 500
#: Most syntax-tree nodes in a rule, contexts and operators included (CogProbe's div3_inc has 37).
MAX_NODES = 500
#: Deepest nesting of the syntax tree.
MAX_DEPTH = 32
#: Largest integer literal, in magnitude.
MAX_LITERAL = 10**9
#: Largest exponent of ``**``.
MAX_EXPONENT = 8
#: Every sub-expression must be provably below this in magnitude: a guard against powers of
#: powers, which would make the evaluators' integers astronomically large (see the module doc).
VALUE_LIMIT = 2**1024
#: Below this magnitude the numpy walker computes in int64 (which holds 2**63 - 1), beyond it
#: with Python integers.
INT64_LIMIT = 2**62
#: Default bound of ``|x|, |y|, |z|`` for the magnitude check (the env passes its own).
DEFAULT_VARIABLE_BOUND = 1000

VARIABLES = ("x", "y", "z")
INT, BOOL = "number", "condition"

_ARITHMETIC: Mapping[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_COMPARE: Mapping[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
# Friendly names of constructs a model may try, for the rejection reason.
_FORBIDDEN_NAMES: Mapping[type, str] = {
    ast.Attribute: "attribute access ('.') is",
    ast.Subscript: "indexing ('[...]') is",
    ast.Lambda: "a lambda other than a leading 'lambda x, y, z:' is",
    ast.IfExp: "conditional expressions ('... if ... else ...') are",
    ast.ListComp: "comprehensions are",
    ast.GeneratorExp: "comprehensions are",
    ast.SetComp: "comprehensions are",
    ast.DictComp: "comprehensions are",
    ast.List: "lists are",
    ast.Tuple: "tuples are",
    ast.Set: "sets are",
    ast.Dict: "dictionaries are",
    ast.NamedExpr: "assignment (':=') is",
    ast.Starred: "starred expressions are",
    ast.JoinedStr: "strings are",
    ast.Await: "await is",
    ast.Yield: "yield is",
    ast.YieldFrom: "yield is",
}


class RuleError(ValueError):
    """A rule that cannot be read; ``reason`` is shown to the model."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Undefined(Exception):
    """A division or remainder by zero during evaluation: the rule is false for that triple."""


@dataclass(frozen=True)
class Rule:
    """A checked rule: its source text, canonical form (``ast.unparse``) and syntax tree."""

    text: str
    canonical: str
    tree: ast.expr = field(compare=False, repr=False)

    def holds(self, x: int, y: int, z: int) -> bool:
        """Whether the triple follows the rule (False where a division by zero is evaluated)."""
        try:
            return bool(_scalar(self.tree, {"x": int(x), "y": int(y), "z": int(z)}))
        except _Undefined:
            return False

    def evaluate(self, xs: np.ndarray, ys: np.ndarray, zs: np.ndarray) -> np.ndarray:
        """:meth:`holds` for every triple ``(xs[i], ys[i], zs[i])`` at once (integer arrays).

        Exact: in int64 where every intermediate value provably fits, else in Python integers.
        """
        env = {name: np.asarray(v, dtype=np.int64) for name, v in zip(VARIABLES, (xs, ys, zs))}
        n = len(env["x"])
        bound = max((int(np.abs(v).max()) for v in env.values() if v.size), default=0)
        dtype: Any = np.int64 if _fits(self.tree, bound, INT64_LIMIT) else object
        if dtype is object:
            env = {name: v.astype(object) for name, v in env.items()}
        value, undefined = _vector(self.tree, env, n, dtype)
        return np.asarray(value, dtype=bool) & ~undefined


# --------------------------------------------------------------------------- #
# Parsing and checking
# --------------------------------------------------------------------------- #


def parse_rule(text: str, variable_bound: int = DEFAULT_VARIABLE_BOUND) -> Rule:
    """The :class:`Rule` written in ``text``, or :class:`RuleError` with the reason.

    ``variable_bound`` is the largest ``|x|, |y|, |z|`` the rule will be evaluated at: a rule
    whose intermediate values could then reach :data:`VALUE_LIMIT` (only powers of powers do)
    is rejected ("too large").

    >>> parse_rule("lambda x, y, z: x < y < z").canonical
    'x < y < z'
    >>> parse_rule("__import__('os')")
    Traceback (most recent call last):
    ...
    lm_eval_cog.paradigms.wason246.rules.RuleError: calls are not allowed, except abs(...): '__import__(...)'
    """
    if not isinstance(text, str):
        raise RuleError("the rule must be text")
    source = text.strip()
    if not source:
        raise RuleError("the rule is empty")
    if len(source) > MAX_CHARS:
        raise RuleError(f"the rule is too long ({len(source)} characters; at most {MAX_CHARS})")
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as error:
        hint = " (use == to compare)" if _single_equals(source) else ""
        raise RuleError(f"not a valid expression: {error.msg}{hint}") from None
    except ValueError:  # a null character
        raise RuleError("not a valid expression (it contains a null character)") from None
    except (RecursionError, MemoryError, OverflowError):
        raise RuleError("not a valid expression (nested too deeply)") from None
    tree = _strip_lambda(tree)
    _check_size(tree)
    kind = _check(tree, variable_bound, VALUE_LIMIT)[0]
    if kind != BOOL:
        raise RuleError("the rule is a number, not a condition (compare it: e.g. x + y == z)")
    return Rule(text=source, canonical=ast.unparse(tree), tree=tree)


def _single_equals(source: str) -> bool:
    stripped = source.replace("==", "").replace("<=", "").replace(">=", "").replace("!=", "")
    return "=" in stripped


def _strip_lambda(tree: ast.expr) -> ast.expr:
    """The body of a leading ``lambda x, y, z: body`` (CogProbe's format); anything else as is."""
    if not isinstance(tree, ast.Lambda):
        return tree
    a = tree.args
    names = [arg.arg for arg in a.args]
    if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults or a.kw_defaults or names != list(VARIABLES):
        raise RuleError("a leading lambda must be exactly 'lambda x, y, z:'")
    return tree.body


def _check_size(tree: ast.expr) -> None:
    """Node count and depth, iteratively (no recursion on untrusted trees)."""
    nodes = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise RuleError(f"the rule is too complex (more than {MAX_NODES} parts)")
        if depth > MAX_DEPTH:
            raise RuleError(f"the rule is nested too deeply (more than {MAX_DEPTH} levels)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _check(node: ast.AST, bound: int, limit: int) -> tuple[str, int]:
    """(type, magnitude bound) of a whitelisted node; :class:`RuleError` otherwise, also when a
    sub-expression could reach ``limit`` in magnitude with ``|x|, |y|, |z| <= bound``.

    Recursion is safe here: :func:`_check_size` has bounded the depth.
    """
    if isinstance(node, ast.Constant):
        return _check_constant(node.value)
    if isinstance(node, ast.Name):
        if node.id not in VARIABLES:
            raise RuleError(f"unknown name {node.id!r}: only x, y and z may be used")
        return INT, bound
    if isinstance(node, ast.UnaryOp):
        kind, size = _check(node.operand, bound, limit)
        if isinstance(node.op, ast.Not):
            return BOOL, 0 if kind == BOOL else _wrong(kind, "'not'")
        if isinstance(node.op, (ast.USub, ast.UAdd)):
            return INT, size if kind == INT else _wrong(kind, "a sign")
        raise RuleError("'~' is not allowed")
    if isinstance(node, ast.BinOp):
        return _check_binop(node, bound, limit)
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            kind = _check(value, bound, limit)[0]
            if kind != BOOL:
                _wrong(kind, "'and'/'or'")
        return BOOL, 0
    if isinstance(node, ast.Compare):
        for operand in (node.left, *node.comparators):
            kind = _check(operand, bound, limit)[0]
            if kind != INT:
                _wrong(kind, "a comparison")
        for op in node.ops:
            if type(op) not in _COMPARE:
                raise RuleError(f"the comparison {_op_text(op)!r} is not allowed (use < <= > >= == !=)")
        return BOOL, 0
    if isinstance(node, ast.Call):
        return _check_call(node, bound, limit)
    what = _FORBIDDEN_NAMES.get(type(node), f"expressions such as {_snippet(node)!r} are")
    raise RuleError(f"{what} not allowed")


def _check_constant(value: Any) -> tuple[str, int]:
    if isinstance(value, bool):
        return BOOL, 0
    if isinstance(value, int):
        if abs(value) > MAX_LITERAL:
            raise RuleError(f"the number {value if value < 10**30 else 'literal'} is too large (at most {MAX_LITERAL:,})")
        return INT, abs(value)
    if isinstance(value, float):
        raise RuleError("only whole numbers are allowed, not decimals")
    if isinstance(value, (str, bytes)):
        raise RuleError("strings are not allowed")
    raise RuleError(f"the value {'...' if value is Ellipsis else repr(value)[:40]} is not allowed")


def _check_binop(node: ast.BinOp, bound: int, limit: int) -> tuple[str, int]:
    if isinstance(node.op, ast.Div):
        raise RuleError("'/' is not allowed: use // for integer division")
    if isinstance(node.op, ast.Pow):
        exponent = node.right
        if not (isinstance(exponent, ast.Constant) and type(exponent.value) is int and 0 <= exponent.value <= MAX_EXPONENT):
            raise RuleError(f"'**' needs a whole-number exponent from 0 to {MAX_EXPONENT} written as a number")
        kind, size = _check(node.left, bound, limit)
        if kind != INT:
            _wrong(kind, "'**'")
        return INT, _limited(size**exponent.value, limit)
    if type(node.op) not in _ARITHMETIC:
        raise RuleError(f"the operator {_op_text(node.op)!r} is not allowed (use + - * // % **)")
    (left, a), (right, b) = _check(node.left, bound, limit), _check(node.right, bound, limit)
    for kind in (left, right):
        if kind != INT:
            _wrong(kind, f"{_op_text(node.op)!r}")
    if isinstance(node.op, (ast.Add, ast.Sub)):
        return INT, _limited(a + b, limit)
    if isinstance(node.op, ast.Mult):
        return INT, _limited(a * b, limit)
    if isinstance(node.op, ast.FloorDiv):
        return INT, a  # |a // b| <= |a| for every b != 0
    return INT, b  # |a % b| < |b|


def _check_call(node: ast.Call, bound: int, limit: int) -> tuple[str, int]:
    func = node.func
    if not (isinstance(func, ast.Name) and func.id == "abs"):
        name = ast.unparse(func) if isinstance(func, (ast.Name, ast.Attribute)) else "..."
        raise RuleError(f"calls are not allowed, except abs(...): '{name[:40]}(...)'")
    if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
        raise RuleError("abs(...) takes exactly one number")
    kind, size = _check(node.args[0], bound, limit)
    if kind != INT:
        _wrong(kind, "abs(...)")
    return INT, size


def _limited(size: int, limit: int) -> int:
    if size >= limit:
        raise RuleError("the rule's numbers could grow too large (beyond 300 digits, as powers of powers do): "
                        "simplify it")
    return size


def _fits(tree: ast.expr, bound: int, limit: int) -> bool:
    """Whether every sub-expression of a checked tree stays below ``limit`` for ``|x|, |y|, |z| <= bound``."""
    try:
        _check(tree, bound, limit)
    except RuleError:
        return False
    return True


def _wrong(kind: str, where: str) -> Any:
    wanted = INT if kind == BOOL else BOOL
    raise RuleError(f"{where} needs a {wanted}, got a {kind}")


#: Operators as written (messages never show Python's syntax-tree class names).
_OP_TEXTS: Mapping[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.Div: "/",
    ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip


def _op_text(op: ast.AST) -> str:
    return _OP_TEXTS.get(type(op), "this operator")


def _snippet(node: ast.AST) -> str:
    """Up to 40 characters of a node's source text, for a rejection reason."""
    try:
        return ast.unparse(node)[:40]
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
        return "..."


# --------------------------------------------------------------------------- #
# Evaluation by tree walking (checked trees only)
# --------------------------------------------------------------------------- #


def _scalar(node: ast.expr, env: Mapping[str, int]) -> Any:
    """Python's value of a checked node on one triple; :class:`_Undefined` on a division by zero."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        value = _scalar(node.operand, env)
        return (not value) if isinstance(node.op, ast.Not) else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp):
        left = _scalar(node.left, env)
        if isinstance(node.op, ast.Pow):
            return left ** node.right.value  # type: ignore[attr-defined]  # a checked literal
        right = _scalar(node.right, env)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            raise _Undefined
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        for value in node.values:  # short-circuit, as Python
            if bool(_scalar(value, env)) != is_and:
                return not is_and
        return is_and
    if isinstance(node, ast.Compare):
        left = _scalar(node.left, env)
        for op, comparator in zip(node.ops, node.comparators):
            right = _scalar(comparator, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):  # abs, the only call a checked tree holds
        return abs(_scalar(node.args[0], env))
    raise AssertionError(f"unchecked node {type(node).__name__}")  # pragma: no cover


def _vector(node: ast.expr, env: Mapping[str, np.ndarray], n: int, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """(values, undefined) of a checked node over ``n`` triples: :func:`_scalar` elementwise.

    Numbers are ``dtype`` arrays: int64, or Python integers (``object``) where int64 could overflow.

    ``undefined[i]`` marks triples where Python would raise ZeroDivisionError; values there
    are placeholders. Short-circuiting is followed: an operand's error counts only where
    Python would have evaluated that operand.
    """
    none = np.zeros(n, dtype=bool)
    if isinstance(node, ast.Constant):
        return np.full(n, node.value, dtype=bool if isinstance(node.value, bool) else dtype), none
    if isinstance(node, ast.Name):
        return env[node.id], none
    if isinstance(node, ast.UnaryOp):
        value, undefined = _vector(node.operand, env, n, dtype)
        if isinstance(node.op, ast.Not):
            return ~value, undefined
        return (-value if isinstance(node.op, ast.USub) else value), undefined
    if isinstance(node, ast.BinOp):
        left, undefined = _vector(node.left, env, n, dtype)
        if isinstance(node.op, ast.Pow):
            return np.power(left, node.right.value), undefined  # type: ignore[attr-defined]
        right, right_undefined = _vector(node.right, env, n, dtype)
        undefined = undefined | right_undefined
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            zero = right == 0
            undefined = undefined | zero
            right = np.where(zero, 1, right)  # placeholder divisor where Python would raise
        return _ARITHMETIC[type(node.op)](left, right), undefined
    if isinstance(node, ast.BoolOp):
        return _vector_boolop(node, env, n, dtype)
    if isinstance(node, ast.Compare):
        left, undefined = _vector(node.left, env, n, dtype)
        running = ~undefined  # every comparison so far true, nothing undefined
        undefined = undefined.copy()
        for op, comparator in zip(node.ops, node.comparators):
            right, right_undefined = _vector(comparator, env, n, dtype)
            undefined |= running & right_undefined
            running &= ~right_undefined
            running &= np.asarray(_COMPARE[type(op)](left, right), dtype=bool)
            left = right
        return running, undefined
    if isinstance(node, ast.Call):
        value, undefined = _vector(node.args[0], env, n, dtype)
        return np.abs(value), undefined
    raise AssertionError(f"unchecked node {type(node).__name__}")  # pragma: no cover


def _vector_boolop(node: ast.BoolOp, env: Mapping[str, np.ndarray], n: int, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    is_and = isinstance(node.op, ast.And)
    running = np.ones(n, dtype=bool)  # Python would still evaluate the next operand here
    decided = np.zeros(n, dtype=bool)  # an operand settled the result (false for and, true for or)
    undefined = np.zeros(n, dtype=bool)
    for operand in node.values:
        value, operand_undefined = _vector(operand, env, n, dtype)
        undefined |= running & operand_undefined
        running &= ~operand_undefined
        settles = running & (~value if is_and else value)
        decided |= settles
        running &= ~settles
    # and: true where every operand was evaluated and true; or: true where one was true.
    return (running if is_and else decided), undefined
