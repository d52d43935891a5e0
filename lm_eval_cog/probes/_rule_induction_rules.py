"""Rule families of the rule induction probe: words, predicate and a sampler of fitting triples.

A rule is a spec string ``"<family>"`` or ``"<family>:<k>"`` (e.g. ``"step:2"``), so
documents carry it as plain text. Families follow CogProbe's Wason 2-4-6 set (Song et
al., 2025: ascending, step, even/multiples ascending, sum, doubling) plus a few broad
ones (multiples, odd, last largest) and x, 2x, 3x.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

Triple = tuple[int, int, int]

#: family -> the allowed values of its parameter (empty: no parameter).
PARAMS: dict[str, tuple[int, ...]] = {
    "ascending": (),
    "step": tuple(range(1, 11)),
    "ratio": (2, 3),
    "x2x3x": (),
    "sum": (),
    "multiples_ascending": (2, 3, 4, 5),
    "multiples": (2, 3, 4, 5),
    "odd": (),
    "last_largest": (),
}
FAMILIES = tuple(PARAMS)
#: The surface patterns a single triple suggests, most salient first: the "obvious"
#: hypothesis of a triple is the first that it shows (2-4-6: "increases by 2").
SALIENT = ("step", "ratio", "x2x3x", "sum")
#: The families a hidden rule is drawn from (uniformly): those whose initial triple can
#: show a *different* salient pattern (a step or ratio triple always shows that pattern
#: first) and for which a new triple can fit the obvious rule but not the hidden one and
#: the other way round (every salient triple has its largest number last, so
#: last_largest is only an option).
HIDDEN = ("ascending", "x2x3x", "sum", "multiples_ascending", "multiples", "odd")


@functools.cache
def split(spec: str) -> tuple[str, int]:
    family, _, k = spec.partition(":")
    return family, int(k) if k else 0


#: Every rule of the families: the rule space against which an item's key must be unique.
ALL_SPECS: tuple[str, ...] = tuple(
    f"{family}:{k}" if values else family for family, values in PARAMS.items() for k in (values or (0,))
)

#: Wordings of each family, equivalent by construction ("{k}": the parameter; "{multiples}":
#: "even" or "multiples of k"; "{multiple}": "even" or "a multiple of k"; "{repeat}": "doubling"
#: or "tripling"). Each family has short and long wordings starting with early and late letters,
#: so that an item can word its options with the key at any rank by length and in alphabetical
#: order (see ``rule_induction``). No wording holds a comma or "or": an answer line is cut at a
#: comma clause and "or" reads as a hedge (``lm_eval_cog.answers``).
WORDINGS: dict[str, tuple[str, ...]] = {
    "ascending": (
        "the numbers increase from left to right",
        "the numbers increase",
        "each number is larger than the number before it",
        "from left to right each number is strictly larger than the one before it",
        "numbers increase from left to right",
        "as you read from left to right the numbers increase",
    ),
    "step": (
        "each number is {k} more than the one before",
        "the numbers rise by {k} each time",
        "adding {k} to each number gives the next one",
        "from left to right each number is exactly {k} more than the number before it",
        "numbers go up by exactly {k} at every step",
    ),
    "ratio": (
        "each number is {k} times the one before",
        "the numbers keep {repeat}",
        "multiplying each number by {k} gives the next one",
        "from left to right each number is exactly {k} times the number before it",
        "as you read from left to right the numbers grow {k}-fold each time",
    ),
    "x2x3x": (
        "the second number is twice the first and the third is three times the first",
        "the numbers are x then 2x then 3x",
        "doubling the first number gives the second and tripling it the third",
        "after a first number x come 2x and then 3x",
        "if the first number is x then the second is 2x and the third 3x",
    ),
    "sum": (
        "the third number is the sum of the first two",
        "the numbers are x then y then x + y",
        "adding the first two numbers gives the third",
        "if you add the first two numbers you get the third",
        "first plus second equals third",
    ),
    "multiples_ascending": (
        "the numbers increase from left to right and are all {multiples}",
        "increasing {multiples_noun}",
        "all are {multiples} and each is larger than the one before",
        "numbers that are {multiples} in increasing order",
        "each number is {multiple} and larger than the one before",
    ),
    "multiples": (
        "all three numbers are {multiples}",
        "all are {multiples}",
        "each of the three numbers is {multiple}",
        "every one of the three numbers is {multiple}",
        "the numbers are all {multiples}",
        "there are only {multiples_noun} among the three",
    ),
    "odd": (
        "all three numbers are odd",
        "all are odd",
        "none of the three numbers is even",
        "each number leaves a remainder of 1 when divided by 2",
        "the numbers are all odd",
        "every one of the three numbers is odd",
    ),
    "last_largest": (
        "the last number is larger than each of the first two",
        "the third exceeds the other two",
        "no other number is as large as the last one",
        "both the first and the second number are smaller than the third",
        "each of the first two numbers is smaller than the last",
    ),
}


def words(spec: str, variant: int = 0) -> str:
    """The rule in words (wording ``variant`` of its family), as the options show it."""
    family, k = split(spec)
    return WORDINGS[family][variant].format(
        k=k,
        multiples="even" if k == 2 else f"multiples of {k}",
        multiples_noun="even numbers" if k == 2 else f"multiples of {k}",
        multiple="even" if k == 2 else f"a multiple of {k}",
        repeat="doubling" if k == 2 else "tripling",
    )


def holds(spec: str, t: Triple) -> bool:
    """Whether triple ``t`` fits the rule."""
    family, k = split(spec)
    x, y, z = t
    # An if-chain, not a dict of lambdas built per call: generation calls this ~10^5 times per 300 items.
    if family == "ascending":
        return x < y < z
    if family == "step":
        return y - x == k and z - y == k
    if family == "ratio":
        return y == k * x and z == k * y
    if family == "x2x3x":
        return y == 2 * x and z == 3 * x
    if family == "sum":
        return z == x + y
    if family == "multiples_ascending":
        return x < y < z and x % k == 0 and y % k == 0 and z % k == 0
    if family == "multiples":
        return x % k == 0 and y % k == 0 and z % k == 0
    if family == "odd":
        return x % 2 == 1 and y % 2 == 1 and z % 2 == 1
    if family == "last_largest":
        return z > x and z > y
    raise KeyError(family)


def obvious(t: Triple) -> str | None:
    """The most salient surface pattern of ``t`` (the confirmation-bias hypothesis), or None."""
    x, y, z = t
    if y - x == z - y and y - x in PARAMS["step"]:
        return f"step:{y - x}"
    if x and y == (y // x) * x and y // x in PARAMS["ratio"] and z == (y // x) * y:
        return f"ratio:{y // x}"
    if y == 2 * x and z == 3 * x:
        return "x2x3x"
    if z == x + y:
        return "sum"
    return None


def draw_spec(rng: np.random.Generator, families: tuple[str, ...] = FAMILIES) -> str:
    """A rule of a family drawn uniformly from ``families``, with a uniform parameter."""
    family = families[int(rng.integers(len(families)))]
    values = PARAMS[family]
    return f"{family}:{values[int(rng.integers(len(values)))]}" if values else family


def random_triple(rng: np.random.Generator, top: int) -> Triple:
    x, y, z = (int(v) for v in rng.integers(1, top + 1, size=3))
    return x, y, z


def positive(rng: np.random.Generator, spec: str, top: int) -> Triple:
    """A triple that fits ``spec``, values in 1..top."""
    family, k = split(spec)
    draw: Callable[[int, int], int] = lambda lo, hi: int(rng.integers(lo, hi + 1))
    if family == "ascending":
        x, y, z = sorted(int(v) for v in rng.choice(np.arange(1, top + 1), size=3, replace=False))
        return x, y, z
    if family == "step":
        x = draw(1, top - 2 * k)
        return x, x + k, x + 2 * k
    if family == "ratio":
        x = draw(1, top // (k * k))
        return x, k * x, k * k * x
    if family == "x2x3x":
        x = draw(1, top // 3)
        return x, 2 * x, 3 * x
    if family == "sum":
        x = draw(1, top - 1)
        y = draw(1, top - x)
        return x, y, x + y
    if family == "multiples_ascending":
        x, y, z = sorted(int(v) * k for v in rng.choice(np.arange(1, top // k + 1), size=3, replace=False))
        return x, y, z
    if family == "multiples":
        x, y, z = (k * draw(1, top // k) for _ in range(3))
        return x, y, z
    if family == "odd":
        x, y, z = (2 * draw(0, (top - 1) // 2) + 1 for _ in range(3))
        return x, y, z
    z = draw(3, top)  # last_largest
    return draw(1, z - 1), draw(1, z - 1), z


def random_triples(rng: np.random.Generator, top: int, n: int) -> list[Triple]:
    """``n`` random triples, values in 1..top (one vectorised draw: :func:`random_triple` ``n`` times)."""
    return [(a, b, c) for a, b, c in rng.integers(1, top + 1, size=(n, 3)).tolist()]


def positives(rng: np.random.Generator, spec: str, top: int, n: int) -> list[Triple]:
    """Up to ``n`` triples that fit ``spec``, values in 1..top, drawn as :func:`positive` draws one, in one
    vectorised draw (the ascending families keep the draws with three distinct values: uniform over
    the sets, a few fewer than ``n``)."""
    family, k = split(spec)

    def ints(lo: int, hi: int, size: Any) -> np.ndarray:
        return rng.integers(lo, hi + 1, size=size)

    def below(bound: np.ndarray) -> np.ndarray:  # uniform in 1..bound, per row
        return np.floor(rng.random(len(bound)) * bound).astype(int) + 1

    if family in ("ascending", "multiples_ascending"):
        step = k if family == "multiples_ascending" else 1
        rows = np.sort(ints(1, top // step, (n, 3)), axis=1) * step
        rows = rows[(rows[:, 0] < rows[:, 1]) & (rows[:, 1] < rows[:, 2])]
    elif family in ("step", "ratio", "x2x3x"):
        factors = {"step": None, "ratio": (1, k, k * k), "x2x3x": (1, 2, 3)}[family]
        if factors is None:
            x = ints(1, top - 2 * k, n)
            rows = np.stack([x, x + k, x + 2 * k], axis=1)
        else:
            x = ints(1, top // factors[2], n)
            rows = np.outer(x, factors)
    elif family == "sum":
        x = ints(1, top - 1, n)
        y = below(top - x)
        rows = np.stack([x, y, x + y], axis=1)
    elif family == "multiples":
        rows = k * ints(1, top // k, (n, 3))
    elif family == "odd":
        rows = 2 * ints(0, (top - 1) // 2, (n, 3)) + 1
    else:  # last_largest
        z = ints(3, top, n)
        rows = np.stack([below(z - 1), below(z - 1), z], axis=1)
    return [(a, b, c) for a, b, c in rows.tolist()]
