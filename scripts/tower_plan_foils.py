"""Can a tower plan item have foils that the goal-directed heuristics do not tell from the key?

For each depth, draws plan problems as the generator draws them, takes a shortest plan as the key and
enumerates every plan of the same length that moves top pieces only, the placement rule ignored (no
piece twice in a row), except the other shortest plans: every foil the plan question could offer,
legal or not. A four-option item holds a heuristic to a guess's credit (1/4) only if its three foils
include one the heuristic scores above the key, or three it scores as high: the script counts the
problems where such foils exist, per declared move heuristic and for all of them at once (one set of
three foils that does it for every heuristic).

    python scripts/tower_plan_foils.py hanoi --problems 20
    python scripts/tower_plan_foils.py tower_london --problems 20
    python scripts/tower_plan_foils.py hanoi --problems 20 --options 2   # the key and one foil

Measured 2026-11-28 with ``--problems 50`` (docs/static-probes.md): under ``goal_position`` no problem
at d2-d5 allows it (0 of 50 per depth, both towers); all heuristics at once, 0 of 50 Hanoi problems at
d2-d6 and 4 at d7.
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from lm_eval_cog.probes._tower_core import DEPTHS, Move, Puzzle, State, apply, misread, shortest_plan, simulate
from lm_eval_cog.probes.core import get_probe

MOVE_HEURISTICS = ("goal_peg", "goal_position", "move_pattern")


def rule_free_plans(puzzle: Puzzle, start: State, length: int) -> list[list[Move]]:
    """Every plan of ``length`` moves from ``start`` that moves top pieces only (no placement rule),
    never the same piece twice in a row."""
    loose = misread(puzzle)
    out: list[list[Move]] = []

    def extend(state: State, plan: list[Move]) -> None:
        if len(plan) == length:
            out.append(list(plan))
            return
        for move in loose.moves(state):
            if not plan or plan[-1][0] != move[0]:
                plan.append(move)
                extend(apply(state, move), plan)
                plan.pop()

    extend(start, [])
    return out


def holds_to_a_guess(key: float, foils: Sequence[float], options: int = 4) -> bool:
    """Whether some ``options - 1`` of ``foils`` keep the key's credit under a heuristic with these
    scores at a guess's or below: one foil scored above the key, or ``options - 1`` scored as high."""
    return any(f > key for f in foils) or sum(f == key for f in foils) >= options - 1


def held_jointly(scores: Sequence[Sequence[float]], options: int = 4) -> bool:
    """Whether one set of ``options - 1`` foils holds every heuristic to a guess at once (``scores``:
    per heuristic, the key's score then the foils'). Foils are compared by their profile (above, level
    with or below the key under each heuristic), so the sets of profiles are few."""
    sign = [tuple((col[i] > col[0]) - (col[i] < col[0]) for col in scores) for i in range(1, len(scores[0]))]
    available = Counter(sign)
    for chosen in itertools.combinations_with_replacement(sorted(available), options - 1):
        if any(chosen.count(p) > available[p] for p in chosen):
            continue
        if all(any(p[h] > 0 for p in chosen) or all(p[h] == 0 for p in chosen) for h in range(len(scores))):
            return True
    return False


def survey(name: str, problems: int, seed: int, out: Callable[[str], None] = print, options: int = 4) -> None:
    probe = get_probe(name)
    params = probe.make_params({})
    heuristics = [h for h in probe.heuristics if h.name in MOVE_HEURISTICS]
    rng = np.random.default_rng(seed)
    out(f"{name}: {problems} plan problems per depth (seed {seed}), {options} options; problems whose foils "
        "can hold each heuristic to a guess")
    out(f"{'depth':>5s} {'foils':>7s}" + "".join(f"{h.name:>15s}" for h in heuristics) + f"{'all at once':>13s}")
    for depth in DEPTHS:
        held = [0] * len(heuristics)
        jointly, sizes = 0, []
        for _ in range(problems):
            puzzle, start, goal, dist = probe._draw(rng, params, depth, "plan")
            key = shortest_plan(puzzle, start, dist, rng)
            foils = [p for p in rule_free_plans(puzzle, start, depth) if simulate(puzzle, start, p) != goal]
            sizes.append(len(foils))
            stem = probe.describe(puzzle, start, goal)
            texts = [puzzle.plan_text(key)] + [puzzle.plan_text(f) for f in foils]
            scores = [h.scores(stem, texts) for h in heuristics]
            for k, column in enumerate(scores):
                held[k] += holds_to_a_guess(column[0], column[1:], options)
            jointly += held_jointly(scores, options)
        out(f"{'d%d' % depth:>5s} {int(np.median(sizes)):7d}" + "".join(f"{k:>12d}/{problems}" for k in held)
            + f"{jointly:>10d}/{problems}")
    out("foils: median number of foils per problem")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=["hanoi", "tower_london"])
    parser.add_argument("--problems", type=int, default=20, help="plan problems per depth (20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", type=int, default=4, help="options of a plan item: the key and options - 1 foils (4)")
    args = parser.parse_args()
    if args.problems < 1:
        parser.error(f"--problems must be a positive int, got {args.problems}")
    if args.options < 2:
        parser.error(f"--options must be an int of at least 2, got {args.options}")
    survey(args.probe, args.problems, args.seed, options=args.options)


if __name__ == "__main__":
    main()
