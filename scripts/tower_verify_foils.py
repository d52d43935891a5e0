"""Could the tower plan question be asked as verification ("is this plan a shortest plan?") fairly?

A verification item shows one plan of the minimal length: a right one (a shortest plan) or a wrong
one. A wrong plan that ends elsewhere, played with the placement rule ignored, is told apart by that
simulation, so wrong plans must reach the goal under the misread rule (:func:`misread`) and break the
true one. And each declared heuristic must score shown right and wrong plans alike, so a wrong plan
must have a right plan's profile: the same ``goal_peg`` and ``goal_position`` shares, pieces moved
and (Hanoi) move pattern. For each depth, this script draws plan problems as the generator does
(with fewer pieces out of place than moves: otherwise every move of the key places a piece), samples
right plans and rule-breaking plans of the minimal length, and counts the problems where some wrong
plan matches some right plan's profile, and per heuristic.

    python scripts/tower_verify_foils.py hanoi --problems 30
    python scripts/tower_verify_foils.py tower_london --problems 30

Measured 2026-11-28 (docs/static-probes.md, "Towers: version 3.0 / 4.0"): Hanoi 0-2 of 25-30 problems
per depth (the move pattern: every optimal plan follows it, misread plans rarely do); Tower of London 0
at d3-d4, 16-28 of 30 at d5-d7.
"""

from __future__ import annotations

import argparse

import numpy as np

from lm_eval_cog.probes import _tower_heuristics as th
from lm_eval_cog.probes._tower_core import (
    DEPTHS, distances, distinct, exact_walk, misplaced, misread, shortest_plan, simulate,
)
from lm_eval_cog.probes.core import get_probe

HEURISTICS = {"goal_peg": th.goal_peg_scores, "goal_position": th.goal_position_scores,
              "fewest_pieces": th.fewest_pieces_scores, "move_pattern": th.move_pattern_scores}


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"--problems must be a positive int, got {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=("hanoi", "tower_london"))
    parser.add_argument("--problems", type=_positive, default=30, help="problems drawn per depth")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    probe = get_probe(args.probe)
    params = probe.make_params()
    names = [n for n in HEURISTICS if n != "move_pattern" or args.probe == "hanoi"]
    rng = np.random.default_rng(args.seed)
    print(f"{args.probe}: {args.problems} plan problems per depth (seed {args.seed}); problems with a "
          "wrong plan (reaching the goal with the rule misread) whose profile a right plan has")
    print(f"{'depth':>5}  {'asked':>5}  {'all':>5}  " + "  ".join(f"{n:>13}" for n in names))
    for depth in DEPTHS:
        asked = found = 0
        each = dict.fromkeys(names, 0)
        for _ in range(args.problems):
            puzzle, start, goal, dist = probe._draw(rng, params, depth, "plan")
            if misplaced(start, goal) >= depth:
                continue
            asked += 1
            stem = probe.describe(puzzle, start, goal)
            right = distinct([shortest_plan(puzzle, start, dist, rng) for _ in range(8)])
            loose = misread(puzzle)
            loose_dist = distances(loose, goal, limit=depth)
            walks = (exact_walk(loose, start, depth, loose_dist, rng) for _ in range(80))
            wrong = [list(w) for w in {tuple(w) for w in walks if w is not None and simulate(puzzle, start, w) is None}]
            if not wrong:
                continue

            def profiles(plans):
                columns = [HEURISTICS[n](stem, [puzzle.plan_text(p) for p in plans]) for n in names]
                return {tuple(round(c[i], 6) for c in columns) for i in range(len(plans))}

            ours, theirs = profiles(right), profiles(wrong)
            found += bool(ours & theirs)
            for j, name in enumerate(names):
                each[name] += bool({p[j] for p in ours} & {p[j] for p in theirs})
        print(f"{'d%d' % depth:>5}  {asked:>5}  {found:>5}  " + "  ".join(f"{each[n]:>13}" for n in names))


if __name__ == "__main__":
    main()
