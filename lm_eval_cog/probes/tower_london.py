"""Tower of London (Shallice, 1982): move three coloured balls between pegs of capacity 3, 2 and 1.

Balls black, green, white (names of one length, so that no option's length tells
which balls it moves); peg 1 holds up to 3 balls, peg 2 up to 2, peg 3 one. A move
takes the top ball of a peg onto another peg that is not full. Start and goal are
random states of the 36 (Shallice used one start and goals of 2-5 moves; here the
depth runs 2-7, as in the extended problem sets of Ward & Allport, 1997). Questions,
conditions, lures and effects are those of :mod:`lm_eval_cog.probes.hanoi` (see
:mod:`lm_eval_cog.probes._tower_core`): ``count`` the minimal number of moves,
``next`` the first move of a shortest plan (written ``black ball from peg 1 to peg 3``),
``plan`` a full shortest plan; conditions ``d2``..``d7`` (the minimal number of
moves); effects ``depth_cost`` = acc(d2) - acc(d7) (it and ``acc_<depth>`` over the next-move
and plan items), ``count_acc``, ``next_move_acc``,
``valid_plan_rate``, ``optimal_plan_rate``, ``excess_moves`` (mean over valid plans),
``greedy_error_share``. The lures follow the goal-directed, myopic solver whose
errors define the task's "counterintuitive moves" (Goel & Grafman, 1995; Ward &
Allport, 1997): count the balls out of place, move a ball straight into its goal
position, make such a move on the way in a plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog.probes._tower_core import Puzzle, State, TowerProbe

#: Five letters each: every move, and every plan of one length, has the same length in characters
#: (with red / green / blue the length of an option told which balls it moves).
COLOURS = ("black", "green", "white")
CAPACITIES = (3, 2, 1)
_MOVE = re.compile(r"^(?:move )?(?:the )?(black|green|white)(?: ball)? from peg ([123]) to peg ([123])$")
PUZZLE = Puzzle(
    capacities=CAPACITIES,
    ordered=False,
    piece_names=dict(enumerate(COLOURS)),
    peg_names=("1", "2", "3"),
    move_pattern=_MOVE,
    move_format="{piece} ball from peg {src} to peg {dst}",
)


@dataclass(frozen=True)
class TowerLondonParams:
    """The classic apparatus has no free parameter (3 balls, pegs of 3, 2 and 1)."""


class TowerLondon(TowerProbe):
    name = "tower_london"
    Params = TowerLondonParams

    def puzzle_for(self, params: TowerLondonParams, rng: np.random.Generator) -> Puzzle:
        return PUZZLE

    def puzzle_of(self, doc: dict[str, Any]) -> Puzzle:
        return PUZZLE

    def describe(self, puzzle: Puzzle, start: State, goal: State) -> str:
        def state(s: State) -> str:
            return "\n".join(
                f"  peg {p + 1}: {', '.join(COLOURS[b] for b in peg) or '(empty)'}" for p, peg in enumerate(s)
            )

        return (
            "Tower of London with a black, a green and a white ball on three pegs: peg 1 holds up to 3 balls, "
            "peg 2 up to 2 balls, peg 3 one ball. A move takes the top ball of one peg and puts it on top "
            "of another peg that is not full. Balls are listed from bottom to top.\n"
            f"Start state:\n{state(start)}\nGoal state:\n{state(goal)}"
        )


PROBE = TowerLondon()
