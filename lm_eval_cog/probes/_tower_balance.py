"""Holding the declared tower heuristics to a guess on next-move items: credit vectors and mixtures.

Under each declared move heuristic (``goal_peg``, ``goal_position``, Hanoi's ``move_pattern``) the key
of a next-move item gets a credit: 1 where the heuristic picks it alone, 1/2 or 1/3 in a tie, 0 where
it picks a foil. An item's *credit vector* has one such credit per heuristic. A (depth, next) cell
holds every heuristic to a guess when its items' vectors average 1/3 in every coordinate. Which
vectors a problem can offer depends on the puzzle and the depth (at depth 2 the key is the only
goal-directed move; Hanoi's three legal moves leave no choice of foils), so a depth's best mixture
of offered vectors is a linear program (:func:`closest_to_chance`). Items are generated one index
at a time from their own seeds, so a generator would give item j of a cell the vector of its slot in
that mixture: a schedule over indices, as the key's rank and typicality slots are.

``scripts/tower_next_balance.py`` measures each depth's bound with it. The generator does not ask
for vectors yet: wired in (tried 2026-11-28, branch ``i28-next-balance-h``, with a golden-ratio
schedule over j), next moves were at chance depth by depth from d3, but with depth 2 still in the
probe the pooled audit cell got no better (London's ``goal_peg`` 0.39 vs
0.37, as its d5-d7 next moves were below chance and offset d2; Hanoi's options-only detector rose to
0.305). It is meant for the version that drops depth 2 (docs/static-probes.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import linprog

from lm_eval_cog.audit.strategies import credit

#: The declared heuristics that read moves (the count heuristic reads count items only).
MOVE_HEURISTICS = ("goal_peg", "goal_position", "move_pattern")
#: Mixture weights below this are dropped (and the others scaled up to sum to 1).
MIN_WEIGHT = 0.005

Vector = tuple[float, ...]


def credit_vector(heuristics: Sequence, stem: str, texts: Sequence[str]) -> Vector:
    """The key's (``texts[0]``'s) credit under each heuristic, a guess's 1/k where one has no basis."""
    out = []
    for heuristic in heuristics:
        scores = heuristic.scores(stem, texts)
        out.append(1 / len(texts) if scores is None else credit(list(scores), 0))
    return tuple(round(x, 4) for x in out)


def closest_to_chance(offers: Sequence[Iterable[Vector]], chance: float,
                      min_share: float = 0.0) -> tuple[float, dict[Vector, float]]:
    """(bound, mixture): over mixtures of the vectors that at least ``min_share`` of the problems offer
    (``offers``: per problem, its achievable credit vectors), the smallest possible largest distance
    of a coordinate's mean from ``chance`` (above or below: a heuristic held below a guess is a cue
    too, "pick what it likes least"), and a mixture reaching it (vector -> weight, weights under
    :data:`MIN_WEIGHT` dropped)."""
    offers = [set(map(tuple, offer)) for offer in offers]
    if not offers:
        raise ValueError("no credit vectors: no problem was drawn")
    shares: dict[Vector, int] = {}
    for offer in offers:
        for vector in offer:
            shares[vector] = shares.get(vector, 0) + 1
    vectors = sorted(v for v, k in shares.items() if k >= min_share * len(offers)) or sorted(shares)
    n, width = len(vectors), len(vectors[0])
    matrix = np.array(vectors, dtype=float).T  # heuristic x vector
    # Variables: the n weights, then the bound t. Minimise t subject to -t <= matrix @ w - chance <= t
    # and sum(w) = 1.
    result = linprog(
        c=np.r_[np.zeros(n), 1.0],
        A_ub=np.r_[np.c_[matrix, -np.ones(width)], np.c_[-matrix, -np.ones(width)]],
        b_ub=np.r_[np.full(width, chance), np.full(width, -chance)],
        A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
        bounds=[(0, None)] * n + [(None, None)], method="highs",
    )
    if not result.success:  # never expected: the program is always feasible and bounded
        raise RuntimeError(f"linprog failed: {result.message}")
    bound = float(result.x[-1]) if result.x[-1] > 0 else 0.0  # no -0.0 from the solver
    # Among the mixtures that near: (2) the least total distance of all coordinates from chance (where
    # one coordinate cannot come near, the others still should), then (3) the most decisive items:
    # those where a heuristic picks the key alone or a foil (a goal-directed lure: the counterintuitive
    # moves the tower literature is built on), not a tie of all options, which tells it nothing.
    # Variables of (2): the weights, then one distance per coordinate.
    eye = np.eye(width)
    near = np.r_[np.c_[matrix, -eye], np.c_[-matrix, -eye]]
    lid = np.r_[np.full(width, chance), np.full(width, -chance)]
    cap = [(0, None)] * n + [(0, bound + 1e-6)] * width
    ones = np.r_[np.ones(n), np.zeros(width)][None, :]
    second = linprog(c=np.r_[np.zeros(n), np.ones(width)], A_ub=near, b_ub=lid, A_eq=ones, b_eq=[1.0],
                     bounds=cap, method="highs")
    weights = result.x[:n]
    if second.success:
        spread = float(second.fun) + 1e-6
        decisive = np.array([sum(abs(x - chance) > 1e-3 for x in v) for v in vectors], dtype=float)
        third = linprog(c=np.r_[-decisive, np.zeros(width)], A_ub=np.r_[near, np.r_[np.zeros(n), np.ones(width)][None, :]],
                        b_ub=np.r_[lid, spread], A_eq=ones, b_eq=[1.0], bounds=cap, method="highs")
        weights = (third.x if third.success else second.x)[:n]
    # The solver leaves dust (weights of 1e-5) on vectors it barely uses: an item asking for one
    # would cost draws for nothing.
    keep = {vectors[i]: float(weights[i]) for i in range(n) if weights[i] > MIN_WEIGHT}
    total = sum(keep.values())
    return bound, {v: w / total for v, w in keep.items()}
