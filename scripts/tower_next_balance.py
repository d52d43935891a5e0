"""How low can the declared tower heuristics be held on next-move items, depth by depth?

A next-move item offers the optimal first move and two other legal moves. Under each declared move
heuristic (``goal_peg``, ``goal_position``, Hanoi's ``move_pattern``) the key gets a credit: 1 where
the heuristic picks it alone, 1/2 or 1/3 in a tie, 0 where it picks a foil. The generator can choose
the problem (by drawing again) and the two foils, so a (depth, next) cell can hold a heuristic to a
guess (1/3) only if some mixture of the credit vectors that drawn problems offer has every
heuristic's mean at 1/3. For each depth the script draws problems as the generator does, collects
each problem's achievable credit vectors (one per pair of foils), and solves the linear program "the
mixture whose heuristic means are all nearest to 1/3" (the largest distance, above or below, made
smallest; scipy's ``linprog``). It prints that distance, the mixture, and the share of drawn problems
that offer each vector of it (the inverse is the draws an item would need).

    python scripts/tower_next_balance.py hanoi --problems 150
    python scripts/tower_next_balance.py tower_london --problems 150

The program and the credit vectors are :mod:`lm_eval_cog.probes._tower_balance`'s.

Measured 2026-11-28 (``--problems 150``, seed 0; docs/static-probes.md): at depth 2 the bound is
0.667 for both towers (the key is the only goal-directed move: ``goal_position`` is 1 on every item);
Hanoi's d3 is 0.095 and d4 0.042 (its three legal moves leave no choice of foils, only of problems),
d5-d7 0; London's d3-d7 are 0 (d3 and d4 only with items where the three moves tie under both
heuristics, which 49% / 30% of drawn problems offer).
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
from collections.abc import Callable

import numpy as np

from lm_eval_cog.probes._tower_balance import MOVE_HEURISTICS, Vector, closest_to_chance, credit_vector
from lm_eval_cog.probes._tower_core import DEPTHS, OPTIONS, optimal_moves
from lm_eval_cog.probes.core import get_probe

def problem_offers(probe, rng: np.random.Generator, params, depth: int, heuristics) -> set[Vector]:
    """The key's credit vectors (one coordinate per heuristic) over every pair of foils of one drawn
    next-move problem."""
    puzzle, start, goal, dist = probe._draw(rng, params, depth, "next")
    stem = probe.describe(puzzle, start, goal)
    (best,) = optimal_moves(puzzle, start, dist)
    others = [m for m in puzzle.moves(start) if m != best]
    offers = set()
    for pair in itertools.combinations(others, OPTIONS["next"] - 1):
        texts = [puzzle.move_text(m) for m in (best, *pair)]
        offers.add(credit_vector(heuristics, stem, texts))
    return offers


def survey(name: str, problems: int, seed: int, out: Callable[[str], None] = print) -> None:
    probe = get_probe(name)
    params = probe.make_params({})
    heuristics = [h for h in probe.heuristics if h.name in MOVE_HEURISTICS]
    rng = np.random.default_rng(seed)
    out(f"{name}: {problems} next-move problems per depth (seed {seed}); heuristics "
        f"{', '.join(h.name for h in heuristics)}; chance 0.333")
    out(f"{'depth':>5s} {'bound':>6s}  mixture (credit vector: weight, share of problems offering it); bound: the "
        "smallest largest distance of a heuristic's mean from chance")
    for depth in DEPTHS:
        offers = [problem_offers(probe, rng, params, depth, heuristics) for _ in range(problems)]
        bound, mixture = closest_to_chance(offers, 1 / OPTIONS["next"])
        shares = Counter(v for offer in offers for v in offer)
        parts = [f"({', '.join(f'{x:.2f}' for x in v)}): {w:.2f}, {shares[v] / problems:.2f}"
                 for v, w in sorted(mixture.items(), key=lambda kv: -kv[1])]
        out(f"{'d%d' % depth:>5s} {bound:6.3f}  " + "; ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=["hanoi", "tower_london"])
    parser.add_argument("--problems", type=int, default=50, help="next-move problems per depth (50)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.problems < 1:
        parser.error(f"--problems must be a positive int, got {args.problems}")
    survey(args.probe, args.problems, args.seed)


if __name__ == "__main__":
    main()
