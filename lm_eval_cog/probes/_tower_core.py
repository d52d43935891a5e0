"""Peg puzzles shared by the ``hanoi`` and ``tower_london`` probes: states, moves, BFS, items.

A state is a tuple of pegs, each a tuple of pieces from bottom to top (pieces are
ints: Hanoi disc sizes 1..n, London ball numbers 0..2). A move ``(piece, src, dst)``
takes the top piece of peg ``src`` onto peg ``dst``; the puzzle decides where it may
go (Hanoi: never onto a smaller disc; London: only onto a peg that is not full).
Every move is reversible, so distances from the goal (one BFS) give the minimal
number of moves from every state, the optimal first moves and optimal plans.

Items ask one of three questions (``QUESTIONS``), crossed with the planning depth
(the minimal number of moves, the probe's condition):

* ``count``: the minimal number of moves; choices "3".."7", the minimal counts of the
  five depths (ascending: numbers are not shown, and an ordered scale has no position
  to favour); lure = the number of pieces out of their goal position (the plan of a
  solver who ignores that pieces block each other), when it differs from the minimum
  and is on the scale. The depth fixes the key ("4" at d4), so the shortcut audit
  pools the depths (``audit_cells``), where every count is the key of a fifth of the
  count items;
* ``next``: the first move of a shortest plan; three legal moves: the key and two
  others; only problems with a unique optimal first move are drawn, so the key is
  unique; lure = a goal-directed move (it puts a piece straight into its goal
  position) that is not optimal, offered whenever there is one: the "counterintuitive
  move" error of Goel & Grafman (1995) and Ward & Allport (1997);
* ``plan``: a full shortest plan; four plans, all as long as the minimum, in two
  pairs: an optimal plan (the key; the gen form accepts any legal plan of minimal
  length) and its near copy, and a foil made apart from the key and its near copy
  (the copies change the move at the same step, and no option moves a piece twice in
  a row). The foil is the myopic solver's plan (the lure) where the problem has a
  goal-directed detour: optimal moves until a piece can go straight into its goal
  position by a move that is not optimal, then on toward the goal, cut at the
  minimal number of moves (legal, short of the goal); else a plan that reaches the
  goal under a misread rule (a disc on a smaller disc; a ball on a full peg) or a
  shortest plan to another goal state, the nearest to the true goal. Only the key is
  legal and ends in the goal (every option is checked by simulation), and every
  option has a partner one move away, so the key is not the most typical option.
  Since version 3.0 (London 4.0) plans are asked in the ``_gen`` form only
  (:meth:`TowerProbe.in_form`): the options read answers and are shown in no prompt.

Every option set is counterbalanced by construction (``next``, ``plan``): within each
(depth, question) cell, every block of k items has the key once at each rank of the
options in text order (e.g. "disc 1 ..." before "disc 3 ...") and once in each
typicality slot (the most typical option by edit distance, the least, neither): a
Latin square, the ranks reached by drawing problems and foils until they fit. The
key's position is drawn per item. Until version 2.4 (London 3.1) it was cycled too,
in a Graeco-Latin square, and then any two of the key's position, rank and slot fixed
the third (t = 2r - p mod k), a relation no foil had: the one rule "pick the option
that satisfies it" scored 0.73 (London) and 0.49 (Hanoi) on next moves against 1/3.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._tower_heuristics import (
    fewest_pieces_scores,
    goal_peg_scores,
    goal_position_scores,
    misplaced_count_scores,
)
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.answers import AnswerText, as_answer, clean_answer, list_items, parse_int
from lm_eval_cog.probes.core import NO_ANSWER, Probe, cycle, edit_similarity, key_place, normalize_answer

State = tuple[tuple[int, ...], ...]
Move = tuple[int, int, int]

#: Planning depths (minimal moves). Depth 2 went in version 3.0 (London 4.0): both moves of every
#: depth-2 plan put a piece into its goal position, so the goal-directed heuristic picked every d2
#: key whatever the options were. Depth 8 is not offered: the Tower of London's 36 states have
#: problems 8 moves deep, but none with a single optimal first move (no next-move item).
DEPTHS = (3, 4, 5, 6, 7)
CONDITIONS = tuple(f"d{d}" for d in DEPTHS)
QUESTIONS = ("count", "next", "plan")
#: The effects of the plan question, which only the _gen form asks (:meth:`TowerProbe.in_form`).
PLAN_EFFECTS = ("valid_plan_rate", "optimal_plan_rate", "excess_moves")
#: Choices of a ``count`` item: the minimal move counts of the depths, each the key of a fifth of the
#: count items (an option never right, such as 1, would be one a blind strategy learns to avoid).
COUNT_CHOICES = tuple(str(d) for d in DEPTHS)
#: Options per question: the count scale; the key and two other legal moves; the key and three plans.
OPTIONS = {"count": len(COUNT_CHOICES), "next": 3, "plan": 4}
#: Candidate plans drawn per kind of plan foil (combined to give the key its rank in text order).
CANDIDATES = 4
#: Option sets of a plan item weighed at most (a random subset of the candidate combinations).
MAX_COMBOS = 400
#: Problems drawn at most for one item to meet the key's typicality slot (the nearest is kept):
#: plans cost more to build, and their pairs already balance it but for the shortest.
TYPICAL_DRAWS = {"count": 1, "next": 20, "plan": 4}
#: Problems drawn for one item before the key's rank in text order is no longer asked for.
RANK_DRAWS = 50
_NUMBER_PART = re.compile(r"\d+(?:\.\d+)?")
_WORD = re.compile(r"\w+")
_PLAN_SPLIT = re.compile(r"\s*[,;]\s*")
_NUMBERING = re.compile(r"^\d+[.)]\s*")
# Moves joined by words in an answer ("disc 1 from A to B, then disc 2 ...", "... and disc 2 ...").
_THEN = re.compile(r",? (?:and )?then |;? and ")


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
            if not peg:
                continue
            piece = peg[-1]
            for dst, target in enumerate(state):  # :meth:`legal`, inlined: generation's inner loop
                if dst != src and len(target) < self.capacities[dst] and not (
                    self.ordered and target and target[-1] < piece
                ):
                    out.append((piece, src, dst))
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
    pegs = list(state)
    pegs[src], pegs[dst] = state[src][:-1], state[dst] + (piece,)
    return tuple(pegs)


def simulate(puzzle: Puzzle, state: State, plan: Sequence[Move]) -> State | None:
    """The state after ``plan``, None if a move is illegal."""
    for move in plan:
        if not puzzle.legal(state, move):
            return None
        state = apply(state, move)
    return state


def neighbours(puzzle: Puzzle, state: State) -> list[State]:
    """The states one legal move away (as :meth:`Puzzle.moves`, without building the moves: BFS speed)."""
    out = []
    for src, peg in enumerate(state):
        if not peg:
            continue
        piece = peg[-1]
        for dst, target in enumerate(state):
            full = len(target) >= puzzle.capacities[dst]
            if dst == src or full or (puzzle.ordered and target and target[-1] < piece):
                continue
            pegs = list(state)
            pegs[src], pegs[dst] = peg[:-1], target + (piece,)
            out.append(tuple(pegs))
    return out


#: Distance maps kept for reuse, by (rules, goal): item generation asks for the same goals again.
_DISTANCES: dict[tuple, dict[State, int]] = {}
#: Only maps of at most this many states are kept (every one of the legal puzzles; a misread
#: 5-disc Hanoi has 2,520 states and is recomputed).
_CACHED_STATES = 800


#: The move graph of each puzzle's state space, by (rules, pieces): its states, their indices and
#: each state's neighbours (indices, in :func:`neighbours` order). Built once; every BFS of that
#: puzzle then walks integer lists instead of building states.
_GRAPHS: dict[tuple, tuple[list[State], dict[State, int], list[list[int]]]] = {}


def _graph(puzzle: Puzzle, state: State) -> tuple[list[State], dict[State, int], list[list[int]]]:
    """The move graph of the states reachable from ``state`` (all states with its pieces: moves are
    reversible)."""
    key = (puzzle.capacities, puzzle.ordered, tuple(sorted(p for peg in state for p in peg)))
    if key not in _GRAPHS:
        states, index, adjacency = [state], {state: 0}, []
        for here in states:  # grows while walked: a BFS
            row = []
            for nxt in neighbours(puzzle, here):
                if nxt not in index:
                    index[nxt] = len(states)
                    states.append(nxt)
                row.append(index[nxt])
            adjacency.append(row)
        _GRAPHS[key] = (states, index, adjacency)
    return _GRAPHS[key]


def distances(puzzle: Puzzle, goal: State, limit: int | None = None) -> dict[State, int]:
    """Minimal number of moves from every reachable state to ``goal`` (moves are reversible), or
    from the states at most ``limit`` moves away. The map may be shared between calls: never
    modify it."""
    key = (puzzle.capacities, puzzle.ordered, goal)
    if key in _DISTANCES:
        return _DISTANCES[key]
    states, index, adjacency = _graph(puzzle, goal)
    start = index[goal]
    depth = [-1] * len(states)
    depth[start] = 0
    order = [start]
    queue = deque(order)
    while queue:
        here = queue.popleft()
        step = depth[here] + 1
        if limit is not None and step > limit:
            break
        for nxt in adjacency[here]:
            if depth[nxt] < 0:
                depth[nxt] = step
                queue.append(nxt)
                order.append(nxt)
    dist = {states[i]: depth[i] for i in order}
    if limit is None and len(dist) <= _CACHED_STATES:
        _DISTANCES[key] = dist
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


_STARTS: dict[tuple, list[State]] = {}
_ALL: dict[tuple, list[State]] = {}


def all_states(puzzle: Puzzle, home: State) -> list[State]:
    """Every state reachable from ``home``, sorted (kept for reuse: drawn from at every item)."""
    key = (puzzle.capacities, puzzle.ordered, home)
    if key not in _ALL:
        _ALL[key] = sorted(distances(puzzle, home))
    return _ALL[key]


def starts(puzzle: Puzzle, goal: State, depth: int, unique_first: bool) -> list[State]:
    """The states ``depth`` moves from ``goal``, in order; with ``unique_first``, those with a single
    optimal first move and two other legal moves to offer (a ``next`` item). Kept for reuse."""
    key = (puzzle.capacities, puzzle.ordered, goal, depth, unique_first)
    if key not in _STARTS:
        dist = distances(puzzle, goal)
        pool = sorted(s for s, d in dist.items() if d == depth)
        if unique_first:
            pool = [
                s for s in pool if len(optimal_moves(puzzle, s, dist)) == 1 and len(puzzle.moves(s)) >= OPTIONS["next"]
            ]
        _STARTS[key] = pool
    return _STARTS[key]


# -- option order ---------------------------------------------------------------------------
def text_order(text: str) -> tuple:
    """Sort key of an option with its numbers by value (natural order): the order in which a reader
    ranks the options, and which the key's rank among them is balanced over."""
    parts: list[tuple[int, float | str]] = []
    pos = 0
    for match in _NUMBER_PART.finditer(text):
        if match.start() > pos:
            parts.append((1, text[pos : match.start()].casefold()))
        parts.append((0, float(match.group())))
        pos = match.end()
    if pos < len(text):
        parts.append((1, text[pos:].casefold()))
    return tuple(parts)




@functools.lru_cache(maxsize=1 << 16)  # an item weighs the same options in many candidate sets
def word_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' sets of words."""
    x, y = set(_WORD.findall(a.casefold())), set(_WORD.findall(b.casefold()))
    return len(x & y) / len(x | y) if x | y else 1.0


@functools.lru_cache(maxsize=1 << 16)
def char_similarity(a: str, b: str) -> float:
    """:func:`edit_similarity` of two texts; for texts of one length (the plans of an item) the
    Hamming share, which bounds it and costs far less."""
    if len(a) != len(b):
        return edit_similarity(a, b)
    return 1.0 - sum(map(operator.ne, a, b)) / max(len(a), 1)


def typicality_credits(options: Sequence[str], similarity: Callable[[str, str], float]) -> tuple[float, float]:
    """The key's (the first option's) credit under "pick the most typical option" (the highest mean
    similarity to the others) and under "pick the least typical", ties shared: 1/k each when all tie."""
    means = [sum(similarity(o, other) for j, other in enumerate(options) if j != i) for i, o in enumerate(options)]
    if max(means) - min(means) < 1e-9:
        return 1.0 / len(options), 1.0 / len(options)
    top = [i for i, m in enumerate(means) if m > max(means) - 1e-9]
    bottom = [i for i, m in enumerate(means) if m < min(means) + 1e-9]
    return (1.0 / len(top) if 0 in top else 0.0), (1.0 / len(bottom) if 0 in bottom else 0.0)


def typicality_miss(options: Sequence[str], typical: int) -> float:
    """How far the key's typicality credits (by characters and by words) are from those its
    ``typical`` slot asks for: slot 0 the most typical option, the last slot the least typical, the
    others neither; over a block of k items each is then the key's once, as for a guess."""
    k = len(options)
    want = (float(typical == 0), float(typical == k - 1))
    miss = 0.0
    for similarity in (char_similarity, word_similarity):
        top, bottom = typicality_credits(options, similarity)
        miss += abs(top - want[0]) + abs(bottom - want[1])
    return miss


def choose(
    rng: np.random.Generator, candidates: list[list[str]], rank: int | None, typical: int | None
) -> tuple[int, float] | None:
    """(index, miss) of a random candidate option set (texts, the key first) of distinct options
    whose key has ``rank`` in text order (any if None) and, among those, the least
    :func:`typicality_miss` for its ``typical`` slot (0 if None); None if no candidate fits."""
    orders: dict[str, tuple] = {}  # candidates share options: each order is computed once

    def order(text: str) -> tuple:
        if text not in orders:
            orders[text] = text_order(text)
        return orders[text]

    fitting = []
    for c in rng.permutation(len(candidates)):
        texts = candidates[int(c)]
        if len(set(texts)) == len(texts) and (rank is None or sorted(texts, key=order).index(texts[0]) == rank):
            fitting.append(int(c))
    if not fitting:
        return None
    if typical is None:
        return fitting[0], 0.0
    misses = [typicality_miss(candidates[c], typical) for c in fitting]
    return fitting[misses.index(min(misses))], min(misses)


def move_heuristic_credits(puzzle: Puzzle, start: State, goal: State, moves: Sequence[Move]) -> tuple[float, float]:
    """The key's (the first move's) credit under "move a piece to its goal peg" and under "put a piece
    into its goal position" (:mod:`._tower_heuristics`' ``goal_peg`` and ``goal_position``): 1 / the
    number of top-scoring moves if the key is one of them, else 0 (1/k each when all tie)."""
    peg = {piece: p for p, stack in enumerate(goal) for piece in stack}
    placing = set(goal_directed(puzzle, start, goal))
    return (credit([float(peg[m[0]] == m[2]) for m in moves], 0), credit([float(m in placing) for m in moves], 0))


# -- plans ----------------------------------------------------------------------------------
def shortest_plan(puzzle: Puzzle, start: State, dist: dict[State, int], rng: np.random.Generator) -> list[Move]:
    """A random shortest plan from ``start`` to the state ``dist`` measures from."""
    plan, state = [], start
    while dist[state]:
        best = optimal_moves(puzzle, state, dist)
        move = best[int(rng.integers(len(best)))]
        plan.append(move)
        state = apply(state, move)
    return plan


def misread(puzzle: Puzzle) -> Puzzle:
    """The puzzle with its placement rule misread: Hanoi discs may go onto smaller discs, London
    pegs hold every ball (only the top piece still moves)."""
    pieces = len(puzzle.piece_names)
    return replace(puzzle, ordered=False, capacities=(pieces,) * len(puzzle.capacities))


def exact_walk(
    puzzle: Puzzle, start: State, length: int, dist: dict[State, int], rng: np.random.Generator
) -> list[Move] | None:
    """A random plan of exactly ``length`` moves under ``puzzle``'s rules from ``start`` to the state
    ``dist`` measures from, or None where the walk gets stuck. Each move keeps the goal within the
    moves left; in a misread puzzle any top piece may go anywhere, so one move more can always be
    spent (a piece goes over the third peg) and only "one move left at the goal" is a dead end.
    ``dist`` may leave out the states more than ``length`` moves away."""
    far = length + 1
    plan, state = [], start
    for left in range(length - 1, -1, -1):
        after = {m: dist.get(apply(state, m), far) for m in puzzle.moves(state)}
        moves = [m for m, d in after.items() if d <= left and (left, d) != (1, 0)]
        if not moves:
            return None
        move = moves[int(rng.integers(len(moves)))]
        plan.append(move)
        state = apply(state, move)
    return plan if dist.get(state) == 0 else None


def toward(
    puzzle: Puzzle, state: State, dist: dict[State, int], steps: int, last: int, rng: np.random.Generator
) -> list[Move] | None:
    """``steps`` moves, each the nearest to the goal among the moves of another piece than the one
    moved before (``last`` first): a solver heading for the goal who never moves a piece twice in a
    row; None where only that piece can move."""
    plan = []
    for _ in range(steps):
        moves = [m for m in puzzle.moves(state) if m[0] != last]
        if not moves:
            return None
        nearest = min(dist[apply(state, m)] for m in moves)
        best = [m for m in moves if dist[apply(state, m)] == nearest]
        move = best[int(rng.integers(len(best)))]
        plan.append(move)
        state, last = apply(state, move), move[0]
    return plan


def greedy_plans(
    puzzle: Puzzle, start: State, goal: State, dist: dict[State, int], rng: np.random.Generator
) -> list[list[Move]]:
    """The myopic solver's plans (the lure): shortest moves until a piece can go straight into its
    goal position by a move that is not optimal, that move (the "counterintuitive move" error of
    Goel & Grafman, 1995), then on toward the goal (:func:`toward`), cut at the minimal number of
    moves: legal, :func:`coherent`, as long as the key and short of the goal (the detour costs a move)."""
    depth = dist[start]
    out = []
    for _ in range(CANDIDATES):
        path, state = [], start
        while dist[state]:
            detours = [
                m for m in goal_directed(puzzle, state, goal)
                if dist[apply(state, m)] >= dist[state] and (not path or m[0] != path[-1][0])
            ]
            if detours:
                move = detours[int(rng.integers(len(detours)))]
                rest = toward(puzzle, apply(state, move), dist, depth - len(path) - 1, move[0], rng)
                if rest is not None:
                    out.append(path + [move] + rest)
                break
            best = optimal_moves(puzzle, state, dist)
            move = best[int(rng.integers(len(best)))]
            path.append(move)
            state = apply(state, move)
    return out


def wrong_goal_plans(
    puzzle: Puzzle, start: State, goal: State, dist: dict[State, int], rng: np.random.Generator
) -> list[list[Move]]:
    """Shortest plans to other goals as far from the start as the goal: legal, as long as the key,
    ending elsewhere. The other goals nearest to the true goal come first (a misread goal state)."""
    depth = dist[start]
    around = distances(puzzle, start)
    others = [s for s, d in sorted(around.items()) if d == depth and s != goal]
    order = sorted(rng.permutation(len(others)), key=lambda k: dist[others[k]])  # nearest first, ties at random
    return [shortest_plan(puzzle, start, distances(puzzle, others[k]), rng) for k in order[:CANDIDATES]]


def misread_plans(
    puzzle: Puzzle, start: State, goal: State, dist: dict[State, int], rng: np.random.Generator
) -> list[list[Move]]:
    """Plans as long as the key that reach the goal under the misread rule (:func:`misread`), with a
    move the true rule forbids (a disc on a smaller disc; a ball onto a full peg)."""
    loose = misread(puzzle)
    loose_dist = distances(loose, goal, limit=dist[start])
    out = []
    for _ in range(3 * CANDIDATES):
        plan = exact_walk(loose, start, dist[start], loose_dist, rng)
        if plan is not None and simulate(puzzle, start, plan) is None and coherent(plan):
            out.append(plan)
    return out


def coherent(plan: Sequence[Move]) -> bool:
    """No piece moves twice in a row (a solver would make it one move): every option reads as a plan."""
    return all(a[0] != b[0] for a, b in zip(plan, plan[1:]))


def one_move_variants(rules: Puzzle, start: State, plan: list[Move], at: int) -> list[list[Move]]:
    """``plan`` with its move ``at`` replaced by another one ``rules`` allow there, the other moves
    kept (a later one may then break a rule), :func:`coherent`: the near copies of a plan."""
    before = simulate(rules, start, plan[:at])
    assert before is not None
    variants = [plan[:at] + [m] + plan[at + 1 :] for m in rules.moves(before) if m != plan[at]]
    return [v for v in variants if coherent(v)]


def distinct(plans: list[list[Move]]) -> list[list[Move]]:
    """The first :data:`CANDIDATES` different plans of ``plans``."""
    out: list[list[Move]] = []
    for plan in plans:
        if plan not in out and len(out) < CANDIDATES:
            out.append(plan)
    return out


# -- the probe ------------------------------------------------------------------------------
class TowerProbe(Probe):
    """A peg-puzzle planning probe; subclasses set ``puzzle_for(params, rng)`` and the texts."""

    ability = "planning"
    conditions = CONDITIONS
    # At depth 3 the 900 items of seeds 1-3 have no lure: no goal-directed move that is not optimal.
    lure_conditions = CONDITIONS[1:]
    version = 3.0
    default_items = 300  # 5 depths x 3 questions x 20: every cell balanced
    # The depth is the key of every count item ("4" at d4): the audit pools the depths, where each
    # count is the key of a fifth of the count items (next and plan items are balanced by construction).
    audit_cells: ClassVar[dict[str, str]] = {c: "pooled" for c in CONDITIONS}
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "depth_cost": ("difference", False),
        "count_acc": ("conditional_mean", True),
        "next_move_acc": ("conditional_mean", True),
        "valid_plan_rate": ("conditional_mean", True),
        "optimal_plan_rate": ("conditional_mean", True),
        "excess_moves": ("conditional_mean", False),
        "greedy_error_share": ("conditional_mean", False),
    }

    #: The cheap strategies of the tower literature, played from the prompt (:mod:`._tower_heuristics`).
    heuristics = (
        Heuristic("goal_peg", "Kotovsky, Hayes & Simon 1985 (hill climbing: move each piece straight to its goal peg)",
                  goal_peg_scores),
        Heuristic("goal_position", "Goel & Grafman 1995; Ward & Allport 1997 (the goal-directed move into the goal "
                  "position)", goal_position_scores),
        Heuristic("misplaced_count", "Newell & Simon 1972 (the difference count: pieces out of place as the distance)",
                  misplaced_count_scores),
        Heuristic("fewest_pieces", "Kotovsky, Hayes & Simon 1985 (the plan that moves the fewest pieces looks simplest)",
                  fewest_pieces_scores),
    )

    # -- subclass hooks ---------------------------------------------------------------
    def puzzle_for(self, params: Any, rng: np.random.Generator) -> Puzzle:
        raise NotImplementedError

    def describe(self, puzzle: Puzzle, start: State, goal: State) -> str:
        raise NotImplementedError

    def puzzle_fields(self, puzzle: Puzzle) -> dict[str, Any]:
        """Document fields :meth:`puzzle_of` needs beyond the states (e.g. London's peg capacities)."""
        return {}

    def identity(self, doc: dict[str, Any]) -> Any:
        # One question once per seed: a problem asked again with other options is the same question
        # (the base identity would count it twice), so generation draws another problem.
        return doc["prompt"], doc["condition"]

    def state_lists(self, puzzle: Puzzle, state: State) -> list[list[str]]:
        return [[puzzle.piece_names[p] for p in peg] for peg in state]

    # -- generation -------------------------------------------------------------------
    def item(self, rng: np.random.Generator, params: Any, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        depth = DEPTHS[CONDITIONS.index(condition)]
        question = cycle(QUESTIONS, index // len(CONDITIONS))
        # Within each (depth, question) cell, item j asks for the key's rank of the options in text
        # order and its typicality slot (the most typical option, the least, neither: see
        # typicality_miss) that :meth:`slots` schedules; the position is drawn per item below.
        j = index // (len(CONDITIONS) * len(QUESTIONS))
        k = OPTIONS[question]
        rank, typical = self.slots(question, j, k)
        builder = {"count": self._count, "next": self._next, "plan": self._plan}[question]
        best = None
        for attempt in itertools.count():
            # A problem whose options cannot put the key at its rank is redrawn (after RANK_DRAWS
            # draws any rank will do: a guard for tiny puzzles). The typicality slot is met where
            # some draw of the first TYPICAL_DRAWS meets it, else the nearest draw is kept (in Hanoi
            # it follows the rank: the two moves of disc 1 come first and look alike).
            if attempt == RANK_DRAWS:
                rank = typical = None
            drawn = self._draw(rng, params, depth, question)
            body = builder(rng, *drawn, rank, typical)
            if body is not None and (best is None or body["miss"] < best[1]["miss"]):
                best = (drawn, body)
            if best is not None and (best[1]["miss"] < 1e-9 or attempt + 1 >= self.typical_draws[question]):
                break
        (puzzle, start, goal, dist), body = best
        body.pop("miss")
        prompt = self.describe(puzzle, start, goal) + "\n" + body.pop("question_text")
        options = body.pop("options")  # (text, kind, excess), the key first
        if question != "count":  # the count scale stays in ascending order
            rest = [int(i) + 1 for i in rng.permutation(len(options) - 1)]
            # Cycled with rank and slot (Hanoi 2.3, London 3.0), any two of the three fixed the third
            # for the key alone (t = 2r - p mod k): "pick the option that satisfies it" scored 0.73
            # (London) / 0.49 (Hanoi) on next moves against 1/3.
            position = key_place(prompt, len(options))
            options = [options[i] for i in rest[:position] + [0] + rest[position:]]
        kinds = [kind for _, kind, _ in options]
        lure = next((i for i, kind in enumerate(kinds) if kind == body["lure_kind"]), -1)
        return {
            "prompt": prompt,
            "condition": condition,
            "question": question,
            "min_moves": depth,
            "start": self.state_lists(puzzle, start),
            "goal": self.state_lists(puzzle, goal),
            **self.puzzle_fields(puzzle),
            "choices": [text for text, _, _ in options],
            "gold": kinds.index("key"),
            "lure": lure,
            **body,
            "option_kinds": kinds if question != "count" else [],
            "plan_excess": [excess for _, _, excess in options] if question == "plan" else [],
        }

    #: Whether a next-move item's draws also seek problems where the move heuristics (goal peg, goal
    #: position) give the key a guess's credit (:func:`move_heuristic_credits`; added to the miss).
    neutral_next_moves: ClassVar[bool] = False
    #: Problems drawn at most for one item to meet the key's typicality slot (:data:`TYPICAL_DRAWS`).
    typical_draws: ClassVar[dict[str, int]] = TYPICAL_DRAWS

    def slots(self, question: str, j: int, k: int) -> tuple[int, int]:
        """(rank in text order, typicality slot) asked of the key of item ``j`` of a (depth, question)
        cell with ``k`` options: a Latin square, so every block of k² items meets each pair once."""
        return (j + j // k) % k, (j + 2 * (j // k)) % k

    def _draw(self, rng: np.random.Generator, params: Any, depth: int, question: str) -> tuple:
        while True:
            puzzle = self.puzzle_for(params, rng)
            states = all_states(puzzle, self.home(puzzle))
            goal = states[int(rng.integers(len(states)))]
            dist = distances(puzzle, goal)
            pool = starts(puzzle, goal, depth, question == "next")
            if pool:
                return puzzle, pool[int(rng.integers(len(pool)))], goal, dist

    def home(self, puzzle: Puzzle) -> State:
        """Some state of the puzzle (every state is reachable from it)."""
        pieces = sorted(puzzle.piece_names, reverse=puzzle.ordered)
        return (tuple(pieces),) + tuple(() for _ in puzzle.capacities[1:])

    def _count(self, rng, puzzle, start, goal, dist, rank, typical) -> dict[str, Any] | None:
        """The scale of counts. The pieces out of place (the difference count) are the key in a fifth
        of the count items, as any one count is: at the first depth only problems where every move
        places a piece are drawn (the count is the minimum), at the others only problems where it
        is not (None: draw again). So the count heuristic
        (:func:`._tower_heuristics.misplaced_count_scores`) picks the key as often as a guess does
        (version 2.1: it was 0.20-0.23 against 0.17; until version 3.0 depth 2 gave the share, where
        every problem has two pieces out of place)."""
        depth, naive = dist[start], misplaced(start, goal)
        if (naive == depth) != (depth == DEPTHS[0]):
            return None
        kinds = {str(naive): "misplaced_count", str(depth): "key"}  # the key where they coincide
        lured = naive != depth and str(naive) in COUNT_CHOICES  # 1 misplaced piece: not offered
        return {
            "question_text": (
                "What is the smallest number of moves that turns the start state into the goal state? "
                "Answer with a single number."
            ),
            "options": [(n, kinds.get(n, "other"), -1) for n in COUNT_CHOICES],
            "lure_kind": "misplaced_count" if lured else "",
            "miss": 0.0,
        }

    def _next(self, rng, puzzle, start, goal, dist, rank, typical) -> dict[str, Any] | None:
        """The optimal first move and two other legal moves, one of them goal-directed where one is
        (the lure), chosen so that the key has its ``rank`` in text order and, where some pair
        allows it, its ``typical`` rank (None: no pair gives the rank)."""
        (best,) = optimal_moves(puzzle, start, dist)
        greedy = [m for m in goal_directed(puzzle, start, goal) if m != best]
        others = [m for m in puzzle.moves(start) if m != best]
        pairs = [p for p in itertools.combinations(others, OPTIONS["next"] - 1) if not greedy or set(p) & set(greedy)]
        candidates = [[best, *pair] for pair in pairs]
        texts = [[puzzle.move_text(m) for m in moves] for moves in candidates]
        chosen = choose(rng, texts, rank, typical)
        if chosen is None:
            return None
        pick, miss = chosen
        moves = candidates[pick]
        if self.neutral_next_moves:
            miss += sum(abs(share - 1 / len(moves)) for share in move_heuristic_credits(puzzle, start, goal, moves))
        lured = [m for m in moves[1:] if m in greedy]
        lure = lured[int(rng.integers(len(lured)))] if lured else None
        kinds = ["key"] + ["goal_directed_move" if m == lure else "other" for m in moves[1:]]
        return {
            "question_text": (
                "What is the first move of a shortest plan from the start state to the goal state? "
                f"Write the move like \"{puzzle.move_text(self.example_move(puzzle))}\"."
            ),
            "options": [(puzzle.move_text(m), kind, -1) for m, kind in zip(moves, kinds)],
            "lure_kind": "goal_directed_move" if lure else "",
            "miss": miss,
        }

    def _plan(self, rng, puzzle, start, goal, dist, rank, typical) -> dict[str, Any] | None:
        """Two pairs of plans as long as the minimum: an optimal plan (the key) and its near copy, and
        a foil made apart from the key with its own near copy (both copies change the move at the same
        step). The foil is the myopic solver's plan (the lure) where the problem has a goal-directed
        detour, else a plan valid under a misread rule or a shortest plan to another goal. Each option
        has a partner one move away, so none is the most similar to the others by construction (no
        typicality target). Candidates are combined so that the key has its ``rank`` in text order
        (None: no combination gives it)."""
        greedy = greedy_plans(puzzle, start, goal, dist, rng)
        if greedy:
            sources = [("greedy_plan", puzzle, greedy)]
        else:
            sources = [
                ("misread_rule", misread(puzzle), misread_plans(puzzle, start, goal, dist, rng)),
                ("wrong_goal", puzzle, wrong_goal_plans(puzzle, start, goal, dist, rng)),
            ]
        keys = distinct([shortest_plan(puzzle, start, dist, rng) for _ in range(CANDIDATES)])
        foils = [(kind, rules, f) for kind, rules, plans in sources for f in distinct(plans)]
        combos, foil_kinds = [], []
        for at in range(dist[start]):  # both near copies change the same move
            for k in keys:
                for kv in one_move_variants(puzzle, start, k, at):
                    if simulate(puzzle, start, kv) == goal:  # another optimal plan: not a foil
                        continue
                    for kind, rules, f in foils:
                        for fv in one_move_variants(rules, start, f, at):
                            if simulate(puzzle, start, fv) != goal:
                                combos.append([k, kv, f, fv])
                                foil_kinds.append(kind)
        if len(combos) > MAX_COMBOS:  # a random subset keeps the choice fast
            keep = sorted(int(c) for c in rng.choice(len(combos), MAX_COMBOS, replace=False))
            combos, foil_kinds = [combos[c] for c in keep], [foil_kinds[c] for c in keep]
        texts = [[puzzle.plan_text(p) for p in plans] for plans in combos]
        # The pairs make each option about as typical as its partner; short plans leave few foils
        # (the key tends to name more pegs than its near copies), so its typicality slot is asked
        # for too, as for moves.
        chosen = choose(rng, texts, rank, typical)
        if chosen is None:
            return None
        pick, miss = chosen
        kind = foil_kinds[pick]
        kinds = ["key", "key_near_copy", kind, f"{kind}_near_copy"]
        ends = [simulate(puzzle, start, plan) for plan in combos[pick]]
        example = puzzle.move_text(self.example_move(puzzle))
        return {
            "question_text": (
                "Give a shortest plan from the start state to the goal state: every move in order, "
                f"on one line, separated by commas, each written like \"{example}\"."
            ),
            # Every foil ends elsewhere or breaks a rule: only the key gets an excess (0).
            "options": [(t, k, 0 if end == goal else -1) for t, k, end in zip(texts[pick], kinds, ends)],
            "lure_kind": "greedy_plan" if kind == "greedy_plan" else "",
            "miss": miss,
        }

    def example_move(self, puzzle: Puzzle) -> Move:
        return (min(puzzle.piece_names), 0, 2)

    # -- answers ----------------------------------------------------------------------
    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """``count``: a number, digits or words ("two", "3 moves"); ``next`` / ``plan``: moves,
        on one line or one per line of a list (the answer's block, :meth:`answer_moves`)."""
        puzzle = self.puzzle_of(doc)
        question = doc["question"]
        if question == "count":
            number = parse_int(answer, units=("move", "moves"))
            if number is None:
                return None
            return doc["choices"].index(str(number)) if str(number) in doc["choices"] else -1
        plan = puzzle.parse_plan(self.answer_moves(answer))
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
    def scored_condition(self, doc: dict[str, Any]) -> str | None:
        # A count item at depth d is keyed "d": one fixed answer ("3") would be right at d3 and wrong at
        # d7, a depth effect of response bias (the choices-only LM showed 0.35). The depth metrics
        # (acc_<depth>, depth_cost) read the next-move and plan items, balanced within each depth.
        return None if doc["question"] == "count" else doc["condition"]

    def in_form(self, doc: dict[str, Any], form: str) -> bool:
        # A full plan is asked in the _gen form only, where a simulation scores the plan written. As a
        # choice among plans it could not be fair: the key is the one option that reaches the goal, so
        # goal_position (play each plan through, rule ignored) picked it in 0.88-0.90 of plan items, and
        # no foils of the minimal length balance it (docs/static-probes.md, "What a tower design ...").
        return form == "gen" or doc["question"] != "plan"

    def form_effects(self, form: str) -> list[str]:
        return [e for e in self.effects if form == "gen" or e not in PLAN_EFFECTS]

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        return self._values(doc, pred)

    @staticmethod
    def answer_moves(answer: str) -> str:
        """The moves of an answer on one line: the items of its block (a numbered or
        bulleted list, one move per line, or one line), each cleaned, joined by commas.
        A plain string (not read from a reply) is taken as it is."""
        if not isinstance(answer, AnswerText):
            return answer
        return _THEN.sub(", ", ", ".join(clean_answer(item) for item in list_items(answer.block)))

    def score_gen(self, doc: dict[str, Any], answer: str) -> dict[str, Any]:
        # An open plan outside the choices (read -> -1) may still be legal and reach the
        # goal: the plan metrics judge the plan the model wrote, not the choice it matches.
        if isinstance(answer, str) and not isinstance(answer, AnswerText) and answer != NO_ANSWER:
            answer = as_answer(answer)
        out = super().score_gen(doc, answer)
        plan = None
        if doc["question"] == "plan" and not out["invalid_rate"]:
            plan = self.puzzle_of(doc).parse_plan(self.answer_moves(answer))
        out.update(self._plan_values(doc, None if plan is None else self._excess(doc, plan)))
        return out

    def _values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        question = doc["question"]
        side = difference_side(self.scored_condition(doc), CONDITIONS[0], CONDITIONS[-1])
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
