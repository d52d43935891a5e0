"""The hidden rules: CogProbe's six families, the scoring grid, and initial triples.

A hypothesis is a spec string, ``"<family>"`` or ``"<family>:<parameter>"``; its meaning is
the expression :func:`expression` writes (CogProbe's gold expressions, verbatim for their
parameters), read by our own :func:`~lm_eval_cog.paradigms.wason246.rules.parse_rule`.

| family | CogProbe rule_id | expression |
|---|---|---|
| ``inc`` | ``inc`` | ``x < y < z`` |
| ``inc_by_k:k`` | ``inc_by_2`` (k = 2) | ``(y - x == k) and (z - y == k)`` |
| ``even_inc`` | ``even_inc`` | ``(x < y < z) and (x % 2 == 0 and y % 2 == 0 and z % 2 == 0)`` |
| ``div_inc:d`` | ``div3_inc`` (d = 3) | ``(x < y < z) and (x % d == 0 and y % d == 0 and z % d == 0)`` |
| ``sum_rule`` | ``sum_rule`` | ``z == x + y`` |
| ``ratio:r`` | ``double_step`` (r = 2) | ``(y == r * x) and (z == r * y)`` |

Every set of triples is computed on the **grid** ``[-g, g]^3`` (``g = params.grid``, 30 by
default: 61^3 = 226,981 triples) as a boolean mask, once per hypothesis (cached).

**Initial triple** (the one positive example shown). Two hypotheses are *nested* when one's
grid set contains the other's (``inc_by_k:2`` inside ``inc``); a *crossing rival* of the hidden
rule h is a hypothesis of the space that is neither a special case nor a generalisation of h
(``sum_rule`` for ``inc``; ``inc`` for ``ratio:2``, whose negative triples decrease). The
initial triple of h is drawn uniformly from the grid triples that

1. follow h,
2. have three non-zero, pairwise different values (no (0, 0, 0), no (5, 5, 10)), and
3. follow **no crossing rival** of h.

So whatever fits the initial triple is h, a special case of h (the Wason trap: 10, 15, 20
for ``inc`` also fits "add 5") or a generalisation of h (``inc`` for 47, 49, 51 under
``inc_by_k:2``): never an unrelated rule. CogProbe's (0, 0, 0) for ``double_step`` fits
``sum_rule`` and every ratio; their (4, 8, 16) for ``even_inc`` fits ``ratio:2``; their
(46, 48, 50) for ``inc_by_2`` fits ``even_inc``: all three are rejected here. A ratio rule's
triple always decreases (x < 0), since an increasing one would fit ``inc``, a crossing rival.
Wason's (2, 4, 6) (preset ``wason1960``) is fixed by history and fits ``sum_rule`` too.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np

from lm_eval_cog.paradigms.wason246.rules import Rule, parse_rule

Triple = tuple[int, int, int]

#: The six families, in CogProbe's order.
FAMILIES: tuple[str, ...] = ("inc", "inc_by_k", "even_inc", "div_inc", "sum_rule", "ratio")
#: CogProbe's rule_id of each of their six rules, as a spec here.
COGPROBE_RULES: dict[str, str] = {
    "inc": "inc",
    "inc_by_2": "inc_by_k:2",
    "even_inc": "even_inc",
    "div3_inc": "div_inc:3",
    "sum_rule": "sum_rule",
    "double_step": "ratio:2",
}


def split(spec: str) -> tuple[str, int | None]:
    """("inc_by_k", 3) for "inc_by_k:3"; ("inc", None) for "inc"."""
    family, _, value = spec.partition(":")
    if family not in FAMILIES:
        raise ValueError(f"unknown rule family {family!r} in {spec!r}")
    return family, int(value) if value else None


def expression(spec: str) -> str:
    """The rule as an expression over x, y, z (CogProbe's gold expression for their parameters).

    >>> expression("inc_by_k:2")
    '(y - x == 2) and (z - y == 2)'
    """
    family, p = split(spec)
    if family == "inc":
        return "x < y < z"
    if family == "inc_by_k":
        return f"(y - x == {p}) and (z - y == {p})"
    if family == "even_inc":
        return "(x < y < z) and (x % 2 == 0 and y % 2 == 0 and z % 2 == 0)"
    if family == "div_inc":
        return f"(x < y < z) and (x % {p} == 0 and y % {p} == 0 and z % {p} == 0)"
    if family == "sum_rule":
        return "z == x + y"
    return f"(y == {p} * x) and (z == {p} * y)"


@lru_cache(maxsize=256)
def rule_of(spec: str) -> Rule:
    """The parsed hidden rule (through the same reader as the model's rules)."""
    return parse_rule(expression(spec))


def space(max_step: int, divisors: Sequence[int], ratios: Sequence[int]) -> tuple[str, ...]:
    """Every hypothesis of the six families with these parameter values, in family order."""
    specs = ["inc", *(f"inc_by_k:{k}" for k in range(1, max_step + 1)), "even_inc"]
    specs += [f"div_inc:{d}" for d in divisors] + ["sum_rule"] + [f"ratio:{r}" for r in ratios]
    return tuple(specs)


def prior(specs: Sequence[str]) -> dict[str, Fraction]:
    """The draw of the hidden rule: a family uniformly, then its parameter uniformly."""
    families = sorted({split(s)[0] for s in specs}, key=FAMILIES.index)
    sizes = {f: sum(split(s)[0] == f for s in specs) for f in families}
    return {s: Fraction(1, len(families) * sizes[split(s)[0]]) for s in specs}


# --------------------------------------------------------------------------- #
# The grid
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=4)
def grid(bound: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x, y, z of every triple of ``[-bound, bound]^3``, x slowest (read-only int64 arrays)."""
    values = np.arange(-bound, bound + 1, dtype=np.int64)
    xs, ys, zs = (a.ravel() for a in np.meshgrid(values, values, values, indexing="ij"))
    for a in (xs, ys, zs):
        a.setflags(write=False)
    return xs, ys, zs


def grid_size(bound: int) -> int:
    return (2 * bound + 1) ** 3


def grid_index(triple: Sequence[int], bound: int) -> int | None:
    """Position of ``triple`` in :func:`grid` (None outside it)."""
    if any(abs(int(v)) > bound for v in triple):
        return None
    n = 2 * bound + 1
    x, y, z = (int(v) + bound for v in triple)
    return (x * n + y) * n + z


def grid_triple(index: int, bound: int) -> Triple:
    n = 2 * bound + 1
    x, rest = divmod(int(index), n * n)
    y, z = divmod(rest, n)
    return x - bound, y - bound, z - bound


@lru_cache(maxsize=64)
def mask(spec: str, bound: int) -> np.ndarray:
    """The grid triples that follow hypothesis ``spec`` (read-only)."""
    out = rule_of(spec).evaluate(*grid(bound))
    out.setflags(write=False)
    return out


def nested(a: str, b: str, bound: int) -> bool:
    """Whether one of the two hypotheses' grid sets contains the other's."""
    ma, mb = mask(a, bound), mask(b, bound)
    return not (ma & ~mb).any() or not (mb & ~ma).any()


@lru_cache(maxsize=64)
def accepted(spec: str, specs: tuple[str, ...], bound: int) -> np.ndarray:
    """Grid indices of the admissible initial triples of ``spec`` (criteria in the module doc)."""
    xs, ys, zs = grid(bound)
    ok = mask(spec, bound) & (xs != 0) & (ys != 0) & (zs != 0) & (xs != ys) & (ys != zs) & (xs != zs)
    for rival in specs:
        if rival != spec and not nested(spec, rival, bound):
            ok &= ~mask(rival, bound)
    out = np.flatnonzero(ok)
    out.setflags(write=False)
    return out


def follows(spec: str, triple: Sequence[int], bound: int) -> bool:
    """Whether ``triple`` follows ``spec`` (from the grid mask inside it)."""
    index = grid_index(triple, bound)
    if index is None:
        return rule_of(spec).holds(*triple)
    return bool(mask(spec, bound)[index])


# --------------------------------------------------------------------------- #
# Triples beyond the grid (the scorer's far sample)
# --------------------------------------------------------------------------- #

#: Far triples per hidden rule: this many of its positives and as many uniform ones.
FAR_SAMPLE = 2000


def _positives(spec: str, bound: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` triples following ``spec`` with values in ``[-bound, bound]`` (family samplers)."""
    family, p = split(spec)
    draw = lambda lo, hi: rng.integers(lo, hi + 1, size=n)
    if family in ("inc", "even_inc", "div_inc"):
        step = {"inc": 1, "even_inc": 2}.get(family, p or 1)
        top = bound // step
        # Three multiples of `step`, sorted; draws with a repeated value are dropped.
        values = np.sort(rng.integers(-top, top + 1, size=(n, 3)), axis=1) * step
        keep = (values[:, 0] < values[:, 1]) & (values[:, 1] < values[:, 2])
        return values[keep]
    if family == "inc_by_k":
        x = draw(-bound, bound - 2 * p)
        return np.stack([x, x + p, x + 2 * p], axis=1)
    if family == "sum_rule":
        x = draw(-bound, bound)
        y = rng.integers(np.maximum(-bound, -bound - x), np.minimum(bound, bound - x) + 1)
        return np.stack([x, y, x + y], axis=1)
    top = bound // (p * p)
    x = draw(-top, top)
    return np.stack([x, p * x, p * p * x], axis=1)


@lru_cache(maxsize=64)
def far_triples(spec: str, bound: int) -> np.ndarray:
    """A fixed sample of the query domain ``[-bound, bound]^3`` for scoring rules stated for ``spec``:
    up to :data:`FAR_SAMPLE` of its positives and :data:`FAR_SAMPLE` uniform triples (seeded by the
    spec and bound alone, so every model and every rescoring sees the same sample)."""
    rng = np.random.default_rng([zlib.crc32(spec.encode()), bound])
    positives = _positives(spec, bound, FAR_SAMPLE, rng)
    uniform = rng.integers(-bound, bound + 1, size=(FAR_SAMPLE, 3))
    out = np.concatenate([positives, uniform]).astype(np.int64)
    out.setflags(write=False)
    return out
