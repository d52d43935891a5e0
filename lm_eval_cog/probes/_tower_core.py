"""Peg puzzles shared by the ``hanoi`` and ``tower_london`` probes: states, moves, BFS, items.

A state is a tuple of pegs, each a tuple of pieces from bottom to top (pieces are
ints: Hanoi disc sizes 1..n, London ball numbers 0..2). A move ``(piece, src, dst)``
takes the top piece of peg ``src`` onto peg ``dst``; the puzzle decides where it may
go (Hanoi: never onto a smaller disc; London: only onto a peg that is not full).
Every move is reversible, so distances from the goal (one BFS) give the minimal
number of moves from every state, the optimal first moves and optimal plans.

Items ask one of three questions (``QUESTIONS``), crossed with the planning depth
(the minimal number of moves, the probe's condition):

* ``count``: the minimal number of moves; choices "1".."9" (ascending: numbers are
  not shown, and an ordered scale has no position to favour); lure = the number of
  pieces out of their goal position (the plan of a solver who ignores that pieces
  block each other), when it differs from the minimum;
* ``next``: the first move of a shortest plan, over every legal move; only items
  with a unique optimal first move are drawn, so the key is unique; lure = a
  goal-directed move (it puts a piece straight into its goal position) that is not
  optimal, when there is one: the "counterintuitive move" error of Goel & Grafman
  (1995) and Ward & Allport (1997);
* ``plan``: a full shortest plan; choices: an optimal plan (the key; the gen form
  accepts any legal plan of minimal length), one with an illegal move, one with a
  detour (legal, reaches the goal, one or two moves longer), one that ends in
  another state, and the lure "shortcut" when the optimal plan moves a piece twice:
  that piece goes straight to its second destination (one move shorter, and since
  the key is minimal, illegal or short of the goal).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

State = tuple[tuple[int, ...], ...]
Move = tuple[int, int, int]

DEPTHS = (2, 3, 4, 5, 6, 7)
CONDITIONS = tuple(f"d{d}" for d in DEPTHS)
QUESTIONS = ("count", "next", "plan")
#: Choices of a ``count`` item: every minimal move count 2..7 and its neighbours.
COUNT_CHOICES = tuple(str(k) for k in range(1, 10))
_NUMBER = re.compile(r"^(\d+)(?: moves?)?$")
_PLAN_SPLIT = re.compile(r"\s*[,;]\s*")
_NUMBERING = re.compile(r"^\d+[.)]\s*")


@dataclass(frozen=True)
class Puzzle:
    """A peg puzzle: how pieces and pegs are named and where a piece may go.

    Attributes:
        capacities: Pieces each peg holds.
        ordered: Hanoi's rule: a piece never goes onto a smaller one.
        piece_names: Name of each piece id as written in moves.
        peg_names: Name of each peg as written in moves and states.
        move_pattern: Regex of one move (groups: piece, source peg, target peg),
            matched against the normalized (case-folded) text.
    """

    capacities: tuple[int, ...]
    ordered: bool
    piece_names: dict[int, str]
    peg_names: tuple[str, ...]
    move_pattern: re.Pattern[str]
    move_format: str  # e.g. "disc {piece} from {src} to {dst}"

    def legal(self, state: State, move: Move) -> bool:
        piece, src, dst = move
        n = len(state)
        if not (0 <= src < n and 0 <= dst < n) or src == dst or not state[src] or state[src][-1] != piece:
            return False
        if len(state[dst]) >= self.capacities[dst]:
            return False
        return not (self.ordered and state[dst] and state[dst][-1] < piece)

    def moves(self, state: State) -> list[Move]:
        """Every legal move, in a fixed order (source peg, then target peg)."""
        out = []
        for src, peg in enumerate(state):
            for dst in range(len(state)):
                if peg and self.legal(state, (peg[-1], src, dst)):
                    out.append((peg[-1], src, dst))
        return out

    def move_text(self, move: Move) -> str:
        piece, src, dst = move
        return self.move_format.format(piece=self.piece_names[piece], src=self.peg_names[src], dst=self.peg_names[dst])

    def plan_text(self, plan: Sequence[Move]) -> str:
        return ", ".join(self.move_text(m) for m in plan)

    def parse_move(self, text: str) -> Move | None:
        """The move a text names (strict form, see ``move_pattern``), None if unreadable."""
        match = self.move_pattern.match(normalize_answer(text))
        if not match:
            return None
        pieces = {name.casefold(): k for k, name in self.piece_names.items()}
        pegs = [p.casefold() for p in self.peg_names]
        piece, src, dst = match.groups()
        # A well-formed move naming no piece of this puzzle (e.g. "disc 9") is an illegal move.
        return pieces.get(piece, -1), pegs.index(src), pegs.index(dst)

    def parse_plan(self, text: str) -> list[Move] | None:
        """Moves separated by commas or semicolons (optionally numbered "1." / "1)")."""
        body = normalize_answer(text)
        if not body:
            return None
        moves = []
        for part in _PLAN_SPLIT.split(body):
            move = self.parse_move(_NUMBERING.sub("", part))
            if move is None:
                return None
            moves.append(move)
        return moves


def apply(state: State, move: Move) -> State:
    piece, src, dst = move
    pegs = [list(p) for p in state]
    pegs[src].pop()
    pegs[dst].append(piece)
    return tuple(tuple(p) for p in pegs)


def simulate(puzzle: Puzzle, state: State, plan: Sequence[Move]) -> State | None:
    """The state after ``plan``, None if a move is illegal."""
    for move in plan:
        if not puzzle.legal(state, move):
            return None
        state = apply(state, move)
    return state


def distances(puzzle: Puzzle, goal: State) -> dict[State, int]:
    """Minimal number of moves from every reachable state to ``goal`` (moves are reversible)."""
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        state = queue.popleft()
        for move in puzzle.moves(state):
            nxt = apply(state, move)
            if nxt not in dist:
                dist[nxt] = dist[state] + 1
                queue.append(nxt)
    return dist


def optimal_moves(puzzle: Puzzle, state: State, dist: dict[State, int]) -> list[Move]:
    return [m for m in puzzle.moves(state) if dist[apply(state, m)] == dist[state] - 1]


def misplaced(state: State, goal: State) -> int:
    """Pieces not at their goal (peg, height): each needs a move, so this never exceeds the minimum."""
    where = {piece: (p, h) for p, peg in enumerate(goal) for h, piece in enumerate(peg)}
    return sum(where[piece] != (p, h) for p, peg in enumerate(state) for h, piece in enumerate(peg))


def goal_directed(puzzle: Puzzle, state: State, goal: State) -> list[Move]:
    """Legal moves that put the moved piece straight into its goal (peg, height)."""
    out = []
    for move in puzzle.moves(state):
        piece, _, dst = move
        after = apply(state, move)
        if len(after[dst]) - 1 < len(goal[dst]) and goal[dst][len(after[dst]) - 1] == piece:
            out.append(move)
    return out


# -- plan foils ---------------------------------------------------------------------------
def illegal_foil(puzzle: Puzzle, start: State, plan: list[Move], rng: np.random.Generator) -> list[Move]:
    """``plan`` with one move replaced by an illegal one (a covered piece, or a blocked peg)."""
    states = [start]
    for move in plan:
        states.append(apply(states[-1], move))
    options = []
    for i, state in enumerate(states[:-1]):
        for p, peg in enumerate(state):
            for piece in peg:
                for dst in range(len(state)):
                    if dst != p and not puzzle.legal(state, (piece, p, dst)):
                        options.append((i, (piece, p, dst)))
    i, move = options[int(rng.integers(len(options)))]
    return plan[:i] + [move] + plan[i + 1 :]


def detour_foil(puzzle: Puzzle, start: State, plan: list[Move], rng: np.random.Generator) -> list[Move]:
    """A legal plan to the goal one move longer (a move split over the third peg) or,
    where no move can be split, two longer (a move and its undo inserted)."""
    candidates = []
    state = start
    for i, (piece, src, dst) in enumerate(plan):
        for via in range(len(state)):
            if via not in (src, dst):
                longer = plan[:i] + [(piece, src, via), (piece, via, dst)] + plan[i + 1 :]
                if simulate(puzzle, start, longer) is not None:
                    candidates.append(longer)
        state = apply(state, (piece, src, dst))
    if not candidates:
        state = start
        for i, move in enumerate(plan + [None]):
            for extra in puzzle.moves(state):
                if i == 0 or extra != (plan[i - 1][0], plan[i - 1][2], plan[i - 1][1]):
                    candidates.append(plan[:i] + [extra, (extra[0], extra[2], extra[1])] + plan[i:])
            if move is not None:
                state = apply(state, move)
    return candidates[int(rng.integers(len(candidates)))]


def wrong_goal_foil(puzzle: Puzzle, start: State, plan: list[Move], rng: np.random.Generator) -> list[Move]:
    """A legal plan of the same length whose last move differs: it ends in another state."""
    before = simulate(puzzle, start, plan[:-1])
    assert before is not None
    last = plan[-1]
    undo = (plan[-2][0], plan[-2][2], plan[-2][1]) if len(plan) > 1 else None
    others = [m for m in puzzle.moves(before) if m != last]
    preferred = [m for m in others if m != undo] or others
    return plan[:-1] + [preferred[int(rng.integers(len(preferred)))]]


def shortcut_foil(plan: list[Move]) -> list[Move] | None:
    """The first piece moved twice goes straight to its second destination (its second
    move dropped; both dropped if it returns home), None if no piece moves twice."""
    for i, (piece, src, _) in enumerate(plan):
        for j in range(i + 1, len(plan)):
            if plan[j][0] == piece:
                rest = plan[:i] + plan[i + 1 : j] + plan[j + 1 :]
                if plan[j][2] == src:
                    return rest
                return plan[:i] + [(piece, src, plan[j][2])] + plan[i + 1 : j] + plan[j + 1 :]
    return None


# -- the probe ------------------------------------------------------------------------------
class TowerProbe(Probe):
    """A peg-puzzle planning probe; subclasses set ``puzzle_for(params, rng)`` and the texts."""

    ability = "planning"
    conditions = CONDITIONS
    # At depth 2 the myopic answer is always right (2 pieces misplaced; a piece moved
    # twice or a premature goal move would make the problem longer): no lures.
    lure_conditions = CONDITIONS[1:]
    default_items = 360  # 6 depths x 3 questions x 20: every cell balanced
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "depth_cost": ("difference", False),
        "count_acc": ("conditional_mean", True),
        "next_move_acc": ("conditional_mean", True),
        "valid_plan_rate": ("conditional_mean", True),
        "optimal_plan_rate": ("conditional_mean", True),
        "excess_moves": ("conditional_mean", False),
        "greedy_error_share": ("conditional_mean", False),
    }

    # -- subclass hooks ---------------------------------------------------------------
    def puzzle_for(self, params: Any, rng: np.random.Generator) -> Puzzle:
        raise NotImplementedError

    def describe(self, puzzle: Puzzle, start: State, goal: State) -> str:
        raise NotImplementedError

    def state_lists(self, puzzle: Puzzle, state: State) -> list[list[str]]:
        return [[puzzle.piece_names[p] for p in peg] for peg in state]

    # -- generation -------------------------------------------------------------------
    def item(self, rng: np.random.Generator, params: Any, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        depth = DEPTHS[CONDITIONS.index(condition)]
        question = cycle(QUESTIONS, index // len(CONDITIONS))
        puzzle, start, goal, dist = self._draw(rng, params, depth, question)
        builder = {"count": self._count, "next": self._next, "plan": self._plan}[question]
        body = builder(rng, puzzle, start, goal, dist)
        prompt = self.describe(puzzle, start, goal) + "\n" + body.pop("question_text")
        return {
            "prompt": prompt,
            "condition": condition,
            "question": question,
            "min_moves": depth,
            "start": self.state_lists(puzzle, start),
            "goal": self.state_lists(puzzle, goal),
            **body,
        }

    def _draw(self, rng: np.random.Generator, params: Any, depth: int, question: str) -> tuple:
        while True:
            puzzle = self.puzzle_for(params, rng)
            states = sorted(distances(puzzle, self.home(puzzle)))
            goal = states[int(rng.integers(len(states)))]
            dist = distances(puzzle, goal)
            pool = sorted(s for s, d in dist.items() if d == depth)
            if question == "next":
                pool = [s for s in pool if len(optimal_moves(puzzle, s, dist)) == 1]
            if pool:
                return puzzle, pool[int(rng.integers(len(pool)))], goal, dist

    def home(self, puzzle: Puzzle) -> State:
        """Some state of the puzzle (every state is reachable from it)."""
        pieces = sorted(puzzle.piece_names, reverse=puzzle.ordered)
        return (tuple(pieces),) + tuple(() for _ in puzzle.capacities[1:])

    def _count(self, rng, puzzle, start, goal, dist) -> dict[str, Any]:
        depth, naive = dist[start], misplaced(start, goal)
        return {
            "question_text": (
                "What is the smallest number of moves that turns the start state into the goal state? "
                "Answer with a single number."
            ),
            "choices": list(COUNT_CHOICES),
            "gold": COUNT_CHOICES.index(str(depth)),
            "lure": COUNT_CHOICES.index(str(naive)) if naive != depth else -1,
            "lure_kind": "misplaced_count" if naive != depth else "",
            "plan_excess": [],
        }

    def _next(self, rng, puzzle, start, goal, dist) -> dict[str, Any]:
        legal = puzzle.moves(start)
        order = [legal[int(k)] for k in rng.permutation(len(legal))]
        (best,) = optimal_moves(puzzle, start, dist)
        greedy = [m for m in order if m in goal_directed(puzzle, start, goal) and m != best]
        return {
            "question_text": (
                "What is the first move of a shortest plan from the start state to the goal state? "
                f"Write the move like \"{puzzle.move_text(self.example_move(puzzle))}\"."
            ),
            "choices": [puzzle.move_text(m) for m in order],
            "gold": order.index(best),
            "lure": order.index(greedy[0]) if greedy else -1,
            "lure_kind": "goal_directed_move" if greedy else "",
            "plan_excess": [],
        }

    def _plan(self, rng, puzzle, start, goal, dist) -> dict[str, Any]:
        plan, state = [], start
        while state != goal:
            best = optimal_moves(puzzle, state, dist)
            move = best[int(rng.integers(len(best)))]
            plan.append(move)
            state = apply(state, move)
        foils = [
            illegal_foil(puzzle, start, plan, rng),
            detour_foil(puzzle, start, plan, rng),
            wrong_goal_foil(puzzle, start, plan, rng),
        ]
        shortcut = shortcut_foil(plan)
        plans = [plan] + foils + ([shortcut] if shortcut is not None else [])
        order = [int(k) for k in rng.permutation(len(plans))]
        choices = [plans[k] for k in order]
        excess = []
        for candidate in choices:
            end = simulate(puzzle, start, candidate)
            excess.append(len(candidate) - len(plan) if end == goal else -1)
        example = puzzle.move_text(self.example_move(puzzle))
        return {
            "question_text": (
                "Give a shortest plan from the start state to the goal state: every move in order, on one line, "
                f"separated by commas, each written like \"{example}\"."
            ),
            "choices": [puzzle.plan_text(p) for p in choices],
            "gold": order.index(0),
            "lure": order.index(4) if shortcut is not None else -1,
            "lure_kind": "shortcut_plan" if shortcut is not None else "",
            "plan_excess": excess,
        }

    def example_move(self, puzzle: Puzzle) -> Move:
        return (min(puzzle.piece_names), 0, 2)

    # -- answers ----------------------------------------------------------------------
    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        puzzle = self.puzzle_of(doc)
        question = doc["question"]
        if question == "count":
            match = _NUMBER.match(normalize_answer(answer))
            if not match:
                return None
            text = str(int(match.group(1)))
            return doc["choices"].index(text) if text in doc["choices"] else -1
        plan = puzzle.parse_plan(answer)
        if plan is None or (question == "next" and len(plan) != 1):
            return None
        if self._excess(doc, plan) == 0:
            return int(doc["gold"])
        for k, choice in enumerate(doc["choices"]):
            if puzzle.parse_plan(choice) == plan:
                return k
        return -1

    def puzzle_of(self, doc: dict[str, Any]) -> Puzzle:
        """The puzzle of a document (from its start state)."""
        raise NotImplementedError

    def state_of(self, puzzle: Puzzle, lists: list[list[str]]) -> State:
        ids = {name: k for k, name in puzzle.piece_names.items()}
        return tuple(tuple(ids[name] for name in peg) for peg in lists)

    def _excess(self, doc: dict[str, Any], plan: list[Move]) -> int | None:
        """Moves beyond the minimum of a plan that is legal and reaches the goal, else None
        (a ``next`` answer counts as the first move of a shortest plan if one follows it)."""
        puzzle = self.puzzle_of(doc)
        start, goal = self.state_of(puzzle, doc["start"]), self.state_of(puzzle, doc["goal"])
        end = simulate(puzzle, start, plan)
        if end is None:
            return None
        if doc["question"] == "next":
            return 0 if distances(puzzle, goal)[end] == doc["min_moves"] - 1 else None
        return len(plan) - doc["min_moves"] if end == goal else None

    # -- scores -----------------------------------------------------------------------
    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        excess = None
        if doc["question"] == "plan" and pred is not None and pred >= 0 and doc["plan_excess"][pred] >= 0:
            excess = doc["plan_excess"][pred]
        return {**self._values(doc, pred), **self._plan_values(doc, excess)}

    def score_gen(self, doc: dict[str, Any], answer: str) -> dict[str, Any]:
        # An open plan outside the choices (read -> -1) may still be legal and reach the
        # goal: the plan metrics judge the plan the model wrote, not the choice it matches.
        out = super().score_gen(doc, answer)
        if doc["question"] == "plan":
            plan = self.puzzle_of(doc).parse_plan(answer) if answer else None
            out.update(self._plan_values(doc, None if plan is None else self._excess(doc, plan)))
        return out

    def _values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond, question = doc["condition"], doc["question"]
        side = difference_side(cond, CONDITIONS[0], CONDITIONS[-1])
        return {
            "depth_cost": (side, correct),
            "count_acc": (question == "count", correct),
            "next_move_acc": (question == "next", correct),
            "greedy_error_share": (doc["lure"] != -1 and not correct, float(pred == doc["lure"])),
        }

    def _plan_values(self, doc: dict[str, Any], excess: int | None) -> dict[str, Any]:
        is_plan = doc["question"] == "plan"
        return {
            "valid_plan_rate": (is_plan, float(excess is not None)),
            "optimal_plan_rate": (is_plan, float(excess == 0)),
            "excess_moves": (is_plan and excess is not None, float(excess or 0)),
        }
