"""Rule families of the rule induction probe: words, predicate and a sampler of fitting triples.

A rule is a spec string ``"<family>"`` or ``"<family>:<k>"`` (e.g. ``"step:2"``), so
documents carry it as plain text. Families follow CogProbe's Wason 2-4-6 set (Song et
al., 2025: ascending, step, even/multiples ascending, sum, doubling) plus a few broad
ones (multiples, odd, last largest) and x, 2x, 3x.
"""

from __future__ import annotations

from collections.abc import Callable

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


def split(spec: str) -> tuple[str, int]:
    family, _, k = spec.partition(":")
    return family, int(k) if k else 0


def words(spec: str) -> str:
    """The rule in words, as the options show it."""
    family, k = split(spec)
    multiples = "even" if k == 2 else f"multiples of {k}"
    return {
        "ascending": "the numbers increase from left to right",
        "step": f"each number is {k} more than the one before",
        "ratio": f"each number is {k} times the one before",
        "x2x3x": "the second number is twice the first and the third is three times the first",
        "sum": "the third number is the sum of the first two",
        "multiples_ascending": f"the numbers increase from left to right and are all {multiples}",
        "multiples": f"all three numbers are {multiples}",
        "odd": "all three numbers are odd",
        "last_largest": "the last number is larger than each of the first two",
    }[family]


def holds(spec: str, t: Triple) -> bool:
    """Whether triple ``t`` fits the rule."""
    family, k = split(spec)
    x, y, z = t
    return {
        "ascending": lambda: x < y < z,
        "step": lambda: y - x == k and z - y == k,
        "ratio": lambda: y == k * x and z == k * y,
        "x2x3x": lambda: y == 2 * x and z == 3 * x,
        "sum": lambda: z == x + y,
        "multiples_ascending": lambda: x < y < z and x % k == 0 and y % k == 0 and z % k == 0,
        "multiples": lambda: x % k == 0 and y % k == 0 and z % k == 0,
        "odd": lambda: x % 2 == 1 and y % 2 == 1 and z % 2 == 1,
        "last_largest": lambda: z > x and z > y,
    }[family]()


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
