"""Tower of Hanoi (Simon, 1975; Kotovsky, Hayes & Simon, 1985): plan moves of discs between pegs.

Three pegs A, B, C and 3-5 discs (1 = smallest); a move takes the top disc of a peg
onto another peg, never onto a smaller disc. Start and goal are random legal states
(not only the classic "all discs on one peg"), drawn so the minimal number of moves
is the item's depth. Each item asks one question (cycled within each depth):

* ``count``: the minimal number of moves (choices "3".."7");
* ``next``: the first move of a shortest plan (choices: three legal moves; items
  have a unique optimal first move), answered like ``disc 1 from A to C``;
* ``plan`` (the ``_gen`` form only: as a choice among plans the key was the one option
  that reaches the goal): a full shortest plan, moves separated by commas (the document
  keeps four plans as long as the minimum, see :mod:`lm_eval_cog.probes._tower_core`,
  to read answers; the prompt shows none); the gen form simulates the plan: legal, reaching the goal in the minimal number of moves is right (any
  such plan); a legal plan with extra moves or an illegal plan is a well-formed
  wrong answer (-1); text that is not a list of moves is invalid.

Conditions ``d3``..``d7``: the minimal number of moves (planning depth; version 3.0 dropped
depth 2, where the goal-directed move was always the key).
Lures (the myopic, goal-directed solver that ignores that discs block each other):
``count`` the number of discs out of their goal position; ``next`` a non-optimal
move putting a disc straight into its goal position; ``plan`` the plan that makes
such a move on the way (then heads for the goal, and falls short of it). Where the
myopic solver has no such error to make (shallow problems always), the item has no lure.

Effects (signs: a cost is positive when deep / lured items are harder):
``depth_cost`` = acc(d3) - acc(d7), which, like ``acc_d3``..``acc_d7``, reads the next-move
and plan items only (a count item at depth d is keyed "d": a fixed answer would make a depth
effect); ``count_acc``, ``next_move_acc``: accuracy of one question; ``valid_plan_rate`` = share of plan answers that are legal and reach
the goal; ``optimal_plan_rate`` = share that do so in the minimal number of moves;
``excess_moves`` = mean moves beyond the minimum over valid plans (the three plan metrics
in the ``_gen`` form only);
``greedy_error_share`` = share of errors on lured items that pick the lure.
The myopic (``prepotent``) player is right at d3 (no lures there) and picks the lure wherever
there is one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._tower_core import TYPICAL_DRAWS, Puzzle, State, TowerProbe
from lm_eval_cog.probes._tower_heuristics import move_pattern_scores

PEGS = ("A", "B", "C")
_MOVE = re.compile(r"^(?:move )?(?:the )?dis[ck] (\d+) from (?:peg )?([abc]) to (?:peg )?([abc])$")


@dataclass(frozen=True)
class HanoiParams:
    """Attributes:
    min_discs: Fewest discs of an item, 3..6 (3).
    max_discs: Most discs of an item, min_discs..6 (5); each item draws its number.
    """

    min_discs: int = 3
    max_discs: int = 5

    def __post_init__(self) -> None:
        require_int("hanoi", "min_discs", self.min_discs, 3)
        require_int("hanoi", "max_discs", self.max_discs, 3)
        if self.max_discs > 6:
            raise ValueError(f"hanoi parameter 'max_discs' must be in 3..6, got {self.max_discs}")
        if self.min_discs > self.max_discs:
            raise ValueError(
                f"hanoi parameter 'min_discs' must not exceed 'max_discs' ({self.max_discs}), got {self.min_discs}"
            )


def hanoi_puzzle(discs: int) -> Puzzle:
    return Puzzle(
        capacities=(discs,) * 3,
        ordered=True,
        piece_names={k: str(k) for k in range(1, discs + 1)},
        peg_names=PEGS,
        move_pattern=_MOVE,
        move_format="disc {piece} from {src} to {dst}",
    )


class Hanoi(TowerProbe):
    name = "hanoi"
    Params = HanoiParams
    heuristics = TowerProbe.heuristics + (
        Heuristic("move_pattern", "Simon 1975 (the move-pattern strategy: the smallest disc moves on every other "
                  "move)", move_pattern_scores),
    )

    # With feasible slots (below), 50 draws meet every next-move slot (20 left 0.03 of them unmet).
    typical_draws: ClassVar[dict[str, int]] = {**TYPICAL_DRAWS, "next": 50}
    neutral_next_moves = True

    def slots(self, question: str, j: int, k: int) -> tuple[int, int]:
        # A next-move item offers a state's three legal moves: disc 1 to either other peg and the other
        # top disc's one move, from peg X to peg Y. That move sorts last and is the least typical by
        # characters; of disc 1's moves the one onto Y is the most typical (it shares the target). So
        # rank 2 comes with the last slot, and the Latin square's other pairs with rank 2 could not be
        # met: their nearest draws left the key "neither" in 0.44 of next items and "most" in 0.24 (a
        # surface detector read 0.41 on next moves). Every block of six items meets the three ranks and
        # the three slots twice each.
        if question != "next":
            return super().slots(question, j, k)
        rank = j % 3
        return rank, 2 if rank == 2 else (rank + j // 3) % 2

    def puzzle_for(self, params: HanoiParams, rng: np.random.Generator) -> Puzzle:
        return hanoi_puzzle(int(rng.integers(params.min_discs, params.max_discs + 1)))

    def puzzle_of(self, doc: dict[str, Any]) -> Puzzle:
        return hanoi_puzzle(sum(len(peg) for peg in doc["start"]))

    def describe(self, puzzle: Puzzle, start: State, goal: State) -> str:
        discs = len(puzzle.piece_names)

        def state(s: State) -> str:
            return "\n".join(f"  {PEGS[p]}: {', '.join(map(str, peg)) or '(empty)'}" for p, peg in enumerate(s))

        return (
            f"Tower of Hanoi with three pegs A, B, C and {discs} discs numbered 1 (smallest) to {discs} (largest). "
            "A move takes the top disc of one peg and puts it on top of another peg; a disc may never be "
            "put on a smaller disc. Discs are listed from bottom to top.\n"
            f"Start state:\n{state(start)}\nGoal state:\n{state(goal)}"
        )


PROBE = Hanoi()
