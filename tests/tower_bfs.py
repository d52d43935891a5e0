"""An independent checker of the peg-puzzle probes (hanoi, tower_london): parses the
states from the prompt text and solves them by its own breadth-first search, sharing
no code with the generator (lm_eval_cog.probes._tower_core)."""

from __future__ import annotations

import re
from collections import deque

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


def check_items(docs: list[dict], may_put, parse_move) -> None:
    """Every key re-derived: count = BFS distance, next = the unique optimal first move,
    plan = a legal plan reaching the goal in the minimum; and every lure and foil."""
    for doc in docs:
        _, start, goal = parse_states(doc["prompt"])
        dist = bfs_distance_to(goal, may_put)
        depth = dist[freeze(start)]
        assert doc["condition"] == f"d{depth}" and doc["min_moves"] == depth
        if doc["question"] == "count":
            assert doc["choices"][doc["gold"]] == str(depth)
            naive = out_of_place(start, goal)
            assert doc["lure"] == (-1 if naive == depth else doc["choices"].index(str(naive)))
        elif doc["question"] == "next":
            legal = {m: nxt for m, nxt in successors(start, may_put)}
            assert sorted(parse_move(c) for c in doc["choices"]) == sorted(legal)
            best = [m for m, nxt in legal.items() if dist[freeze(nxt)] == depth - 1]
            assert best == [parse_move(doc["choices"][doc["gold"]])]
            greedy = [m for m, nxt in legal.items() if m not in best and out_of_place(nxt, goal) < out_of_place(start, goal)]
            if doc["lure"] == -1:
                assert not greedy
            else:
                assert parse_move(doc["choices"][doc["lure"]]) in greedy
        else:
            kinds = []
            for k, choice in enumerate(doc["choices"]):
                plan = [parse_move(m) for m in choice.split(", ")]
                end = run_plan(start, plan, may_put)
                reaches = end is not None and freeze(end) == freeze(goal)
                assert doc["plan_excess"][k] == (len(plan) - depth if reaches else -1)
                if k == doc["gold"]:
                    assert reaches and len(plan) == depth
                elif reaches:
                    kinds.append("detour")
                    assert len(plan) in (depth + 1, depth + 2)
                elif k == doc["lure"]:
                    kinds.append("shortcut")
                    assert len(plan) < depth
                else:
                    kinds.append("illegal" if end is None else "wrong_goal")
                    assert len(plan) == depth
            assert sorted(kinds) == sorted(["detour", "illegal", "wrong_goal"] + (["shortcut"] if doc["lure"] != -1 else []))
