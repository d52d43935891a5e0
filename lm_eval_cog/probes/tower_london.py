"""Tower of London (Shallice, 1982): move coloured balls between pegs of graded capacity.

The classic apparatus: three balls (black, green, white: names of one length, so that
no option's length tells which balls it moves) on three pegs holding 3, 2 and 1 ball;
``balls: 4`` adds a brown ball and pegs of 4, 3 and 2 (a larger space: see below). A
move takes the top ball of a peg onto another peg that is not full. Each item draws
which peg is the large, the middle and the small one (the prompt says each peg's
capacity): with a fixed order the middle peg, the apparatus's usual buffer, was always
"peg 2", and "the move onto peg 2" was the key of 46% of next-move items (0.42 vs 1/3;
a language model found it without the question, version 2.2). Start and goal are random
states (Shallice used one start and goals of 2-5 moves; here the depth runs 3-7, as in
the extended problem sets of Ward & Allport, 1997). Questions, conditions, lures and
effects are those of :mod:`lm_eval_cog.probes.hanoi` (see
:mod:`lm_eval_cog.probes._tower_core`): ``count`` the minimal number of moves,
``next`` the first move of a shortest plan (written ``black ball from peg 1 to peg 3``),
``plan`` a full shortest plan (``_gen`` form only); conditions ``d3``..``d7`` (the minimal
number of moves; version 4.0 dropped depth 2); effects ``depth_cost`` = acc(d3) - acc(d7) (it and ``acc_<depth>`` over the next-move
and plan items), ``count_acc``, ``next_move_acc``,
``valid_plan_rate``, ``optimal_plan_rate``, ``excess_moves`` (mean over valid plans),
``greedy_error_share``. The lures follow the goal-directed, myopic solver whose
errors define the task's "counterintuitive moves" (Goel & Grafman, 1995; Ward &
Allport, 1997): count the balls out of place, move a ball straight into its goal
position, make such a move on the way in a plan.

Size of the space: three balls have 36 states (216 with the peg orders), so two seeds of
300 items share about 5 (a bound of the apparatus, not of the generator); four balls have
264 states (1,584) and two seeds share none, at the cost of stronger goal-directed
heuristics on next moves (see ``docs/static-probes.md``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes._tower_core import Puzzle, State, TowerProbe

#: Five letters each: every move, and every plan of one length, has the same length in characters.
COLOURS = ("black", "green", "white", "brown")
BALLS = (3, 4)


@dataclass(frozen=True)
class TowerLondonParams:
    """Attributes:
    balls: 3 (the classic apparatus: pegs of 3, 2 and 1) or 4 (pegs of 4, 3 and 2).
    """

    balls: int = 3

    def __post_init__(self) -> None:
        require_int("tower_london", "balls", self.balls, 1)
        if self.balls not in BALLS:
            raise ValueError(f"tower_london parameter 'balls' must be 3 or 4, got {self.balls}")


@functools.lru_cache(maxsize=None)
def london_puzzle(capacities: tuple[int, ...]) -> Puzzle:
    """The apparatus with pegs 1-3 of these capacities (largest = the number of balls)."""
    colours = COLOURS[: max(capacities)]
    return Puzzle(
        capacities=capacities,
        ordered=False,
        piece_names=dict(enumerate(colours)),
        peg_names=("1", "2", "3"),
        move_pattern=re.compile(
            rf"^(?:move )?(?:the )?({'|'.join(colours)})(?: ball)? from peg ([123]) to peg ([123])$"
        ),
        move_format="{piece} ball from peg {src} to peg {dst}",
    )


def _listing(names: list[str]) -> str:
    return ", ".join(f"a {n}" for n in names[:-1]) + f" and a {names[-1]}"


class TowerLondon(TowerProbe):
    name = "tower_london"
    Params = TowerLondonParams
    version = 4.0

    def puzzle_for(self, params: TowerLondonParams, rng: np.random.Generator) -> Puzzle:
        graded = (params.balls, params.balls - 1, params.balls - 2)
        return london_puzzle(tuple(graded[int(i)] for i in rng.permutation(3)))

    def puzzle_of(self, doc: dict[str, Any]) -> Puzzle:
        return london_puzzle(tuple(doc["capacities"]))

    def puzzle_fields(self, puzzle: Puzzle) -> dict[str, Any]:
        return {"capacities": list(puzzle.capacities)}

    def home(self, puzzle: Puzzle) -> State:
        # Every ball on the peg that holds them all (peg 1 need not be the large one).
        large = puzzle.capacities.index(max(puzzle.capacities))
        return tuple(tuple(sorted(puzzle.piece_names)) if p == large else () for p in range(3))

    def describe(self, puzzle: Puzzle, start: State, goal: State) -> str:
        colours = [puzzle.piece_names[b] for b in sorted(puzzle.piece_names)]

        def state(s: State) -> str:
            return "\n".join(
                f"  peg {p + 1}: {', '.join(colours[b] for b in peg) or '(empty)'}" for p, peg in enumerate(s)
            )

        holds = ", ".join(
            f"peg {p + 1} holds {'one ball' if c == 1 else f'up to {c} balls'}" for p, c in enumerate(puzzle.capacities)
        )
        return (
            f"Tower of London with {_listing(colours)} ball on three pegs: {holds}. A move takes the top "
            "ball of one peg and puts it on top of another peg that is not full. Balls are listed from "
            f"bottom to top.\nStart state:\n{state(start)}\nGoal state:\n{state(goal)}"
        )


PROBE = TowerLondon()
