"""The cheap strategies of the tower-planning literature, played from the printed problem alone.

Each reads the start and goal states from the prompt ("Start state:" / "Goal state:" blocks, one
line per peg, pieces from bottom to top) and the moves from the option texts ("disc 1 from A to C",
"black ball from peg 1 to peg 3"), and never solves the puzzle: it does not know the placement rule
and never searches. They are the declared heuristics of the ``hanoi`` and ``tower_london`` probes
(:attr:`~lm_eval_cog.paradigms.probe_base.Probe.heuristics`):

* ``goal_peg`` (hill climbing on the goal pegs: Kotovsky, Hayes & Simon, 1985; "move each disc
  straight to its goal peg"): a move scores 1 where it takes its piece to the peg the piece ends on
  in the goal; a plan scores the share of its moves that do;
* ``goal_position`` (the goal-directed move that the "counterintuitive move" problems punish: Goel &
  Grafman, 1995; Ward & Allport, 1997): a move scores 1 where it puts its piece straight into its
  goal (peg, height); a plan scores the share of its moves that do, played on the states the plan
  itself reaches (the placement rule ignored);
* ``misplaced_count`` (the perceptual difference count, as a means-ends solver first estimates the
  distance: Newell & Simon, 1972; the count lure of Ward & Allport, 1997): the number of pieces out
  of their goal position, or the offered count nearest to it, for the count question;
* ``fewest_pieces`` (the simplest-looking plan: Kotovsky et al., 1985 found problems whose plans move
  few pieces easier; a reader who cannot simulate picks the plan that looks tidiest): a plan scores
  minus the number of different pieces it moves;
* ``move_pattern`` (Hanoi only: Simon's 1975 "move-pattern" strategy, the iterative solution: the
  smallest disc moves on every other move): a move scores 1 where it moves the smallest disc; a plan
  scores 1 where the smallest disc moves on every other move, no more and no less, else 0.

Each returns ``None`` (a uniform guess) where the item gives it nothing to go on: another question,
unreadable states or moves. Pure Python; linear in the prompt's length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Layout = dict[str, list[str]]
Move = tuple[str, str, str]

_STATE_LINE = re.compile(r"^\s+(?:peg )?(\w+): (.*)$")
_MOVE = re.compile(r"^(?:disc |disk )?(\w+)(?: ball)? from (?:peg )?(\w+) to (?:peg )?(\w+)$")
_COUNT_OPTION = re.compile(r"^\d+$")


def read_states(stem: str) -> tuple[Layout, Layout] | None:
    """(start, goal) as peg -> pieces from bottom to top, None where the prompt shows no such blocks."""
    states = []
    for label in ("Start state:", "Goal state:"):
        _, found, rest = stem.partition(label + "\n")
        if not found:
            return None
        state: Layout = {}
        for line in rest.splitlines():
            match = _STATE_LINE.match(line)
            if not match:
                break
            peg, body = match.groups()
            state[peg] = [] if body == "(empty)" else body.split(", ")
        if not state:
            return None
        states.append(state)
    return states[0], states[1]


def read_moves(option: str) -> list[Move] | None:
    """The moves of an option (comma-separated), None if one is unreadable."""
    moves = []
    for part in option.split(", "):
        match = _MOVE.match(part.strip())
        if match is None:
            return None
        moves.append((match.group(1), match.group(2), match.group(3)))
    return moves


def _where(state: Layout) -> dict[str, tuple[str, int]]:
    return {piece: (peg, h) for peg, pieces in state.items() for h, piece in enumerate(pieces)}


def _moves_of(stem: str, options: Sequence[str]) -> tuple[Layout, Layout, list[list[Move]]] | None:
    states = read_states(stem)
    if states is None or any(_COUNT_OPTION.match(o) for o in options):
        return None
    plans = [read_moves(o) for o in options]
    if any(p is None for p in plans):
        return None
    return states[0], states[1], plans  # type: ignore[return-value]


def goal_peg_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Share of an option's moves that take their piece to its goal peg (Kotovsky, Hayes & Simon, 1985)."""
    found = _moves_of(stem, options)
    if found is None:
        return None
    _, goal, plans = found
    peg = {piece: p for piece, (p, _) in _where(goal).items()}
    return [sum(peg.get(piece) == dst for piece, _, dst in plan) / len(plan) for plan in plans]


def _play(state: Layout, move: Move) -> bool:
    """Make ``move`` in ``state`` (in place) if the piece is on top of its source peg: the placement
    rule is not checked (the heuristic does not know it)."""
    piece, src, dst = move
    if dst not in state or not state.get(src) or state[src][-1] != piece:
        return False
    state[dst].append(state[src].pop())
    return True


def goal_position_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Share of an option's moves that put their piece straight into its goal (peg, height), on the
    states the option reaches (Goel & Grafman, 1995; Ward & Allport, 1997)."""
    found = _moves_of(stem, options)
    if found is None:
        return None
    start, goal, plans = found
    target = _where(goal)
    out = []
    for plan in plans:
        state = {peg: list(pieces) for peg, pieces in start.items()}
        hits = 0
        for move in plan:
            if not _play(state, move):
                break
            hits += target.get(move[0]) == (move[2], len(state[move[2]]) - 1)
        out.append(hits / len(plan))
    return out


def misplaced_count_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The option nearest to the number of pieces out of their goal position (Newell & Simon, 1972): the
    count itself where it is offered, else the closest count (minus the distance to it)."""
    states = read_states(stem)
    if states is None or not all(_COUNT_OPTION.match(o) for o in options):
        return None
    start, goal = states
    target = _where(goal)
    naive = sum(target.get(piece) != at for piece, at in _where(start).items())
    return [-float(abs(int(o) - naive)) for o in options]


def fewest_pieces_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Minus the number of different pieces a plan moves: the tidiest-looking plan (Kotovsky et al., 1985)."""
    found = _moves_of(stem, options)
    if found is None or all(len(plan) == 1 for plan in found[2]):
        return None
    return [-float(len({piece for piece, _, _ in plan})) for plan in found[2]]


def move_pattern_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Simon's (1975) move-pattern strategy: the smallest disc moves on every other move. None where
    the pieces are not numbered discs (Tower of London) or the options are not moves."""
    found = _moves_of(stem, options)
    if found is None:
        return None
    start, _, plans = found
    pieces = [piece for stack in start.values() for piece in stack]
    if not pieces or not all(piece.isdigit() for piece in pieces):
        return None
    smallest = min(pieces, key=int)
    out = []
    for plan in plans:
        at = [k for k, (piece, _, _) in enumerate(plan) if piece == smallest]
        if len(plan) == 1:
            out.append(float(bool(at)))
        else:
            out.append(float(any(at == list(range(r, len(plan), 2)) for r in (0, 1))))
    return out
