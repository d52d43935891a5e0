"""An independent checker of the peg-puzzle probes (hanoi, tower_london): parses the
states from the prompt text and solves them by its own breadth-first search, sharing
no code with the generator (lm_eval_cog.probes._tower_core); and the balance of their
option sets, measured as the shortcut audit measures it."""

from __future__ import annotations

import re
from collections import Counter, deque

from scipy.stats import chisquare

from lm_eval_cog.audit.items import make_item
from lm_eval_cog.audit.strategies import credit, item_strategies, natural_key

STATE_LINE = re.compile(r"^\s+(?:peg )?(\w+): (.*)$")


def parse_states(prompt: str) -> tuple[list[str], dict, dict]:
    """(peg names, start, goal) from "Start state:" / "Goal state:" blocks; a state maps
    peg -> tuple of pieces from bottom to top."""
    blocks = {}
    for label in ("Start state:", "Goal state:"):
        lines = prompt.split(label + "\n", 1)[1].splitlines()
        state = {}
        for line in lines:
            match = STATE_LINE.match(line)
            if not match:
                break
            peg, body = match.groups()
            state[peg] = () if body == "(empty)" else tuple(body.split(", "))
        blocks[label] = state
    pegs = list(blocks["Start state:"])
    return pegs, blocks["Start state:"], blocks["Goal state:"]


def freeze(state: dict) -> tuple:
    return tuple(sorted(state.items()))


def successors(state: dict, may_put) -> list[tuple[tuple[str, str, str], dict]]:
    """Every (move, next state); ``may_put(piece, target_pegs_tuple, target)`` is the puzzle's rule."""
    out = []
    for src, pieces in state.items():
        if not pieces:
            continue
        piece = pieces[-1]
        for dst, below in state.items():
            if dst != src and may_put(piece, below, dst):
                nxt = dict(state)
                nxt[src] = pieces[:-1]
                nxt[dst] = below + (piece,)
                out.append(((piece, src, dst), nxt))
    return out


def bfs_distance_to(goal: dict, may_put) -> dict:
    """Moves are reversible: the distance from the goal is the distance to it."""
    dist = {freeze(goal): 0}
    queue = deque([goal])
    while queue:
        state = queue.popleft()
        for _, nxt in successors(state, may_put):
            if freeze(nxt) not in dist:
                dist[freeze(nxt)] = dist[freeze(state)] + 1
                queue.append(nxt)
    return dist


def run_plan(state: dict, plan: list[tuple[str, str, str]], may_put) -> dict | None:
    """The state after the plan, None at the first illegal move."""
    for piece, src, dst in plan:
        legal = {m: nxt for m, nxt in successors(state, may_put)}
        if (piece, src, dst) not in legal:
            return None
        state = legal[(piece, src, dst)]
    return state


def out_of_place(state: dict, goal: dict) -> int:
    """Pieces whose (peg, height) differs from the goal's."""
    where = {piece: (peg, h) for peg, pieces in goal.items() for h, piece in enumerate(pieces)}
    return sum(where[piece] != (peg, h) for peg, pieces in state.items() for h, piece in enumerate(pieces))


def _differ(a: list, b: list) -> list[int]:
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


def _goal_directed(state: dict, goal: dict, may_put, dist: dict) -> list[tuple[str, str, str]]:
    """Legal moves that are not optimal but put the moved piece in its goal position."""
    here = dist[freeze(state)]
    return [
        m for m, nxt in successors(state, may_put)
        if dist[freeze(nxt)] >= here and out_of_place(nxt, goal) < out_of_place(state, goal)
    ]


def check_items(docs: list[dict], may_put, parse_move, misread_may_put) -> None:
    """Every key re-derived: count = BFS distance, next = the unique optimal first move,
    plan = the one option that is legal and reaches the goal in the minimum; and every lure and foil
    (``misread_may_put``: the placement rule misread)."""
    for doc in docs:
        _, start, goal = parse_states(doc["prompt"])
        dist = bfs_distance_to(goal, may_put)
        depth = dist[freeze(start)]
        assert doc["condition"] == f"d{depth}" and doc["min_moves"] == depth
        if doc["question"] == "count":
            assert doc["choices"] == ["3", "4", "5", "6", "7"]
            assert doc["choices"][doc["gold"]] == str(depth)
            naive = out_of_place(start, goal)
            # The difference count is the key in a fifth of the count items, as any one count is: at
            # the first depth (3) always, elsewhere never.
            assert (naive == depth) == (depth == 3)
            offered = naive != depth and str(naive) in doc["choices"]
            assert doc["lure"] == (doc["choices"].index(str(naive)) if offered else -1)
        elif doc["question"] == "next":
            legal = {m: nxt for m, nxt in successors(start, may_put)}
            moves = [parse_move(c) for c in doc["choices"]]
            assert len(moves) == len(set(moves)) == 3 and set(moves) <= set(legal)
            best = [m for m, nxt in legal.items() if dist[freeze(nxt)] == depth - 1]
            assert best == [moves[doc["gold"]]]
            greedy = _goal_directed(start, goal, may_put, dist)
            # A goal-directed detour, where there is one, is always offered (the lure).
            assert (doc["lure"] == -1) == (not greedy)
            if greedy:
                assert moves[doc["lure"]] in greedy
        else:
            plans = [[parse_move(m) for m in choice.split(", ")] for choice in doc["choices"]]
            assert all(len(plan) == depth for plan in plans)
            assert all(a[0] != b[0] for plan in plans for a, b in zip(plan, plan[1:]))  # no piece twice in a row
            ends = [run_plan(start, plan, may_put) for plan in plans]
            reaches = [end is not None and freeze(end) == freeze(goal) for end in ends]
            assert [k for k, r in enumerate(reaches) if r] == [doc["gold"]]
            assert doc["plan_excess"] == [0 if r else -1 for r in reaches]
            kinds = doc["option_kinds"]
            foil = next(k for k in kinds if k not in ("key", "key_near_copy") and not k.endswith("_near_copy"))
            assert sorted(kinds) == sorted(["key", "key_near_copy", foil, f"{foil}_near_copy"])
            by_kind = dict(zip(kinds, plans))
            steps = [_differ(by_kind[k], by_kind[f"{k}_near_copy"]) for k in ("key", foil)]
            assert len(steps[0]) == 1 and steps[0] == steps[1]  # two pairs, one move apart at the same step
            plan, end = by_kind[foil], ends[kinds.index(foil)]
            if foil == "greedy_plan":
                assert doc["lure"] == kinds.index(foil) and end is not None and freeze(end) != freeze(goal)
                state, detour = start, False
                for move in plan:  # a goal-directed move that is not optimal, on the way
                    detour = detour or move in _goal_directed(state, goal, may_put, dist)
                    state = run_plan(state, [move], may_put)
                assert detour
            else:
                assert doc["lure"] == -1
            if foil == "misread_rule":
                loose = run_plan(start, plan, misread_may_put)
                assert end is None and loose is not None and freeze(loose) == freeze(goal)
            if foil == "wrong_goal":
                assert end is not None and freeze(end) != freeze(goal)
                assert bfs_distance_to(end, may_put)[freeze(start)] == depth  # a shortest plan to its end


_STRATEGIES = item_strategies()


def _typicality(doc: dict) -> tuple[float, float]:
    """The key's credit under the audit's "pick the option most similar to the others" and "... least
    similar" (edit similarity of the texts; ties shared)."""
    item = make_item(doc["prompt"], doc["choices"], doc["gold"])
    out = []
    for name in ("typical_chars", "odd_chars"):
        scores = _STRATEGIES[name](item)
        out.append(1 / len(doc["choices"]) if scores is None else credit(scores, doc["gold"]))
    return out[0], out[1]


def check_balance(probe, docs: list[dict]) -> None:
    """The key's position and its rank in text order uniform per question (``docs``: a whole number
    of blocks per (depth, question) cell), picking the most or the least typical option no better
    than a guess, every count the key equally often, and the depths pooled for the audit (the
    depth is the count's key)."""
    for question, k in (("next", 3), ("plan", 4)):
        cell = [d for d in docs if d["question"] == question]
        assert all(len(d["choices"]) == k for d in cell)
        positions = Counter(d["gold"] for d in cell)
        ranks = Counter(sorted(d["choices"], key=natural_key).index(d["choices"][d["gold"]]) for d in cell)
        assert ranks == {r: len(cell) // k for r in range(k)}
        # The key's position is drawn per item (a square cycling position, rank and typicality
        # together marked the key): a guess's spread, not an exact one.
        assert set(positions) == set(range(k)) and chisquare(list(positions.values())).pvalue > 1e-3, positions
        most, least = (sum(values) / len(cell) for values in zip(*map(_typicality, cell)))
        assert most < 1 / k + 0.08 and least < 1 / k + 0.08, (question, most, least)
    counts = Counter(d["choices"][d["gold"]] for d in docs if d["question"] == "count")
    assert set(counts) == {str(n) for n in range(3, 8)} and len(set(counts.values())) == 1
    assert {probe.audit_cell(c) for c in probe.conditions} == {"pooled"}


def other_optimal_plan(doc: dict, may_put, move_text) -> str | None:
    """A shortest plan other than the key, found by this module's BFS (None if the key is the only
    one); ``move_text(piece, src, dst)`` writes a move."""
    _, start, goal = parse_states(doc["prompt"])
    dist = bfs_distance_to(goal, may_put)
    key = doc["choices"][doc["gold"]]

    def extend(state: dict, plan: list) -> str | None:
        if not dist[freeze(state)]:
            text = ", ".join(move_text(*move) for move in plan)
            return text if text != key else None
        for move, nxt in successors(state, may_put):
            if dist[freeze(nxt)] == dist[freeze(state)] - 1:
                found = extend(nxt, plan + [move])
                if found:
                    return found
        return None

    return extend(start, [])
