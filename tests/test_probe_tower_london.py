"""Tower of London probe: pinned items, keys and foils re-derived by an independent BFS, balanced
options, ball moves, metrics."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter

import pytest
from tower_bfs import check_balance, check_items, other_optimal_plan
from lm_eval_cog.audit.probes import accuracy_by_question

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

LONDON = get_probe("tower_london")
COUNT_Q = "What is the smallest number of moves that turns the start state into the goal state? Answer with a single number."
_HOLDS = re.compile(r"peg (\d) holds (?:up to (\d) balls|(one) ball)")


def head(capacities: tuple[int, int, int], colours: str = "a black, a green and a white") -> str:
    """The apparatus text of an item whose pegs 1-3 hold these many balls."""
    holds = ", ".join(f"peg {p} holds " + ("one ball" if c == 1 else f"up to {c} balls")
                      for p, c in enumerate(capacities, 1))
    return (f"Tower of London with {colours} ball on three pegs: {holds}. A move takes the top ball of one peg "
            "and puts it on top of another peg that is not full. Balls are listed from bottom to top.\n")


@functools.lru_cache(maxsize=None)
def _docs(seed: int, n: int, balls: int = 3) -> list[dict]:
    """The first ``n`` items of seed ``seed``, generated once for the whole module (never modified)."""
    return LONDON.generate(seed, n, LONDON.make_params({"balls": balls}))


def capacities(prompt: str) -> dict[str, int]:
    """Each peg's capacity as the prompt states it (read from the text, not from the generator)."""
    return {peg: 1 if one else int(up) for peg, up, one in _HOLDS.findall(prompt)}


def rules(doc: dict):
    """(may_put, misread_may_put) of a document's apparatus: a peg takes a ball while it is not full;
    misread, every peg holds every ball."""
    capacity = capacities(doc["prompt"])
    balls = max(capacity.values())
    return (lambda piece, below, target: len(below) < capacity[target],
            lambda piece, below, target: len(below) < balls)


def parse_move(text: str) -> tuple[str, str, str]:
    ball, src, dst = re.fullmatch(r"(black|green|white|brown) ball from peg (\d) to peg (\d)", text).groups()
    return ball, src, dst


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. 0 (pegs hold 3, 1, 2): green 1->3, white 1->3 = 2 moves, 2 balls out of place: no lure.
    # 1 (3, 1, 2): black must leave peg 1 and come back on top of white; peg 2 (one ball) is full:
    #    black 1->3 onto green, white 2->1, black 3->1 = 3; 2 balls out of place -> lure "2".
    # 2 (3, 2, 1): green must go under black on peg 2, where white sits, and white's goal peg 3 holds
    #    green: green 3->1, white 2->3, green 1->2, black 1->2 = 4; 3 balls out of place -> lure "3".
    docs = _docs(0, 3)
    assert [d["prompt"] for d in docs] == [
        head((3, 1, 2)) + "Start state:\n  peg 1: white, green\n  peg 2: black\n  peg 3: (empty)\nGoal state:\n"
        "  peg 1: (empty)\n  peg 2: black\n  peg 3: green, white\n" + COUNT_Q,
        head((3, 1, 2)) + "Start state:\n  peg 1: black\n  peg 2: white\n  peg 3: green\nGoal state:\n"
        "  peg 1: white, black\n  peg 2: (empty)\n  peg 3: green\n" + COUNT_Q,
        head((3, 2, 1)) + "Start state:\n  peg 1: black\n  peg 2: white\n  peg 3: green\nGoal state:\n"
        "  peg 1: (empty)\n  peg 2: green, black\n  peg 3: white\n" + COUNT_Q,
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("d2", 0, -1), ("d3", 1, 0), ("d4", 2, 1)]
    assert [d["capacities"] for d in docs] == [[3, 1, 2], [3, 1, 2], [3, 2, 1]]


def test_next_and_plan_items_of_seed_0_are_pinned():
    # 6 (pegs hold 2, 1, 3): start 2: black / 3: white, green, goal 1: black / 2: green / 3: white. Black
    # 2->1 then green 3->2 (green cannot go first: peg 2 holds one ball). The other legal moves (black
    # 2->3, green 3->1) put no ball into its goal position: no lure.
    doc = _docs(0, 7)[6]
    assert doc["capacities"] == [2, 1, 3]
    assert doc["choices"] == [
        "black ball from peg 2 to peg 3", "green ball from peg 3 to peg 1", "black ball from peg 2 to peg 1",
    ]
    assert (doc["gold"], doc["lure"]) == (2, -1)
    # 12 (3, 1, 2): start 1: black / 2: white / 3: green, goal 1: black, green, white: green 3->1, white
    # 2->1. Its near copy parks white on peg 3; a shortest plan to another state (white 2->1, green 3->2)
    # and its near copy (white 2->1, green 3->1: the two balls in the wrong order).
    doc = _docs(0, 13)[12]
    assert doc["choices"] == [
        "green ball from peg 3 to peg 1, white ball from peg 2 to peg 3",
        "white ball from peg 2 to peg 1, green ball from peg 3 to peg 1",
        "green ball from peg 3 to peg 1, white ball from peg 2 to peg 1",
        "white ball from peg 2 to peg 1, green ball from peg 3 to peg 2",
    ]
    assert doc["option_kinds"] == ["key_near_copy", "wrong_goal_near_copy", "key", "wrong_goal"]
    assert (doc["gold"], doc["lure"], doc["plan_excess"]) == (2, -1, [-1, -1, 0, -1])


def test_each_peg_is_the_large_the_middle_and_the_small_one_equally_often():
    # Version 3: the order of the capacities is drawn per item, so no peg name is the buffer (with a
    # fixed order "the move onto peg 2" was the key of 46% of next-move items). 360 items, 6 orders.
    docs = _docs(0, 360)
    orders = Counter(tuple(d["capacities"]) for d in docs)
    assert set(orders) == set(itertools.permutations((3, 2, 1)))
    assert all(abs(k - 60) < 3.5 * math.sqrt(60 * 5 / 6) for k in orders.values()), orders
    assert all(tuple(capacities(d["prompt"]).values()) == tuple(d["capacities"]) for d in docs)


def test_every_option_has_one_length_in_characters():
    # Colour names of one length: the length of a move or a plan tells nothing of its balls.
    for doc in _docs(0, 360):
        assert len({len(c) for c in doc["choices"]}) == 1


@pytest.mark.parametrize("balls, n", [(3, 360), (4, 72)])
def test_keys_lures_and_foils_rederived_by_independent_bfs(balls, n):
    for doc in _docs(21, n, balls):
        may_put, misread_may_put = rules(doc)
        check_items([doc], may_put, parse_move, misread_may_put)


def test_key_position_text_rank_and_typicality_are_balanced_and_counts_pooled():
    check_balance(LONDON, _docs(0, 18 * 24))  # 24 items per (depth, question) cell


def test_twelve_hundred_items_are_distinct():
    # The 36 states in 6 peg orders give about 1,000-1,300 (start, goal) pairs per depth.
    docs = _docs(0, 1200)
    assert len({LONDON.identity(d) for d in docs}) == 1200


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("black ball from peg 2 to peg 1", 2),
        ("Black from peg 2 to peg 1.", 2),
        ("move the black ball from peg 2 to peg 1", 2),
        ("black ball from peg 2 to peg 3", 0),
        ("green ball from peg 3 to peg 2", -1),  # peg 2 (one ball) is full: illegal
        ("green ball from peg 1 to peg 2", -1),  # green is not on peg 1
        ("black ball from 2 to 1", None),
        ("black or green ball from peg 2 to peg 1", None),
        ("red ball from peg 2 to peg 1", None),  # no red ball in this apparatus
        ("brown ball from peg 2 to peg 1", None),  # brown is the fourth ball of balls: 4 only
        ("", None),
    ],
)
def test_read_next_move(answer, expected):
    assert LONDON.read(_docs(0, 7)[6], answer) == expected


def test_any_optimal_plan_is_right():
    docs = [d for d in _docs(0, 108) if d["question"] == "plan" and d["min_moves"] >= 4]
    found = ((d, other_optimal_plan(d, rules(d)[0], "{} ball from peg {} to peg {}".format)) for d in docs)
    doc, other = next((d, o) for d, o in found if o is not None)
    assert other not in doc["choices"]
    assert LONDON.read(doc, other) == doc["gold"]
    # Its first two moves swapped: illegal or off the plan (wrong, not invalid).
    moves = other.split(", ")
    swapped = ", ".join([moves[1], moves[0], *moves[2:]])
    assert LONDON.read(doc, swapped) == -1
    assert LONDON.score_gen(doc, swapped)["valid_plan_rate"] == (True, 0.0)


def test_gen_metrics_on_hand_built_answers():
    docs = _docs(0, 108)
    d5, d53 = docs[5], docs[53]
    assert d5["choices"][d5["lure"]] == "2" and d53["option_kinds"][d53["lure"]] == "greedy_plan"
    rows = [
        LONDON.score_gen(docs[0], "2"),  # count d2: right
        LONDON.score_gen(d5, "2"),  # count d7: the lure (2 balls out of place)
        LONDON.score_gen(docs[6], "black ball from peg 2 to peg 1"),  # next d2: right
        LONDON.score_gen(docs[12], "green ball from peg 3 to peg 1, white ball from peg 2 to peg 1, "
                         "white ball from peg 1 to peg 2, white ball from peg 2 to peg 1"),  # plan d2: valid, +2
        LONDON.score_gen(d53, d53["choices"][d53["lure"]]),  # plan d7: the myopic plan, short of the goal
    ]
    scores = aggregate(LONDON, rows)
    # acc 2/5; depth_cost (next and plan items): d2 (docs 6, 12) 1/2 - d7 (doc 53) 0; count 1/2; next 1/1;
    # plans: doc 12 valid (+2), doc 53 not -> valid 1/2, optimal 0, excess 2; lured errors: both lures.
    assert scores["acc"] == pytest.approx(0.4) and scores["depth_cost"] == pytest.approx(1 / 2)
    assert scores["count_acc"] == 0.5 and scores["next_move_acc"] == 1.0
    assert scores["valid_plan_rate"] == 0.5 and scores["optimal_plan_rate"] == 0.0 and scores["excess_moves"] == 2.0
    assert scores["greedy_error_share"] == 1.0


def test_myopic_player_shows_a_depth_cost():
    docs = _docs(0, 360)
    scores = play(LONDON, "prepotent", docs, "mc")
    d7 = [d for d in docs if d["condition"] == "d7" and d["question"] != "count"]
    unlured = sum(d["lure"] == -1 for d in d7) / len(d7)
    assert scores["acc_d2"] == 1.0 and scores["acc_d7"] == pytest.approx(unlured) and unlured < 0.8
    assert scores["depth_cost"] == pytest.approx(1 - unlured) and scores["greedy_error_share"] == 1.0


def test_parameters_are_checked_by_name():
    for bad in (5, 2, "4", True):
        with pytest.raises(ValueError, match="tower_london parameter 'balls' must be"):
            LONDON.make_params({"balls": bad})
    assert LONDON.make_params({"balls": 4}).balls == 4


def test_four_balls_name_a_brown_ball_and_pegs_of_four_three_and_two():
    docs = _docs(5, 18, 4)
    assert all(d["prompt"].startswith(head(tuple(d["capacities"]), "a black, a green, a white and a brown"))
               for d in docs)
    assert {tuple(sorted(d["capacities"])) for d in docs} == {(2, 3, 4)}
    assert all(sorted(b for peg in d["start"] for b in peg) == ["black", "brown", "green", "white"] for d in docs)


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in LONDON.heuristics}
HEAD = head((3, 2, 1))
START = "  peg 1: black, green\n  peg 2: white\n  peg 3: (empty)"
GOAL = "  peg 1: black\n  peg 2: white, green\n  peg 3: (empty)"  # green out of place, bound for peg 2


def _stem(question: str = "What is the first move of a shortest plan?") -> str:
    return HEAD + f"Start state:\n{START}\nGoal state:\n{GOAL}\n{question}\nAnswer:"


def test_greedy_heuristics_pick_the_ball_moved_into_its_goal_position():
    moves = ["green ball from peg 1 to peg 3", "green ball from peg 1 to peg 2", "white ball from peg 2 to peg 3"]
    assert HEURISTICS["goal_peg"].scores(_stem(), moves) == [0.0, 1.0, 0.0]
    assert HEURISTICS["goal_position"].scores(_stem(), moves) == [0.0, 1.0, 0.0]
    # White leaves its goal position and green lands at peg 2's bottom: its goal peg, not its position.
    plan = ["white ball from peg 2 to peg 3, green ball from peg 1 to peg 2"]
    assert HEURISTICS["goal_peg"].scores(_stem(), plan) == [0.5]
    assert HEURISTICS["goal_position"].scores(_stem(), plan) == [0.0]


def test_misplaced_count_and_fewest_pieces_on_a_hand_built_item():
    numbers = [str(k) for k in range(2, 8)]
    # Only green is out of place: "1" is not offered, so no option scores.
    assert HEURISTICS["misplaced_count"].scores(_stem(COUNT_Q), numbers) == [0.0] * 6
    plans = ["white ball from peg 2 to peg 3, green ball from peg 1 to peg 2",
             "green ball from peg 1 to peg 3, green ball from peg 3 to peg 2"]
    assert HEURISTICS["fewest_pieces"].scores(_stem(), plans) == [-2.0, -1.0]


@pytest.mark.xfail(strict=True, reason="issue 28: tower_london greedy row not yet fixed (goal_peg 0.67 on plans, 0.33 on next moves, seed 21, v3.0)")
def test_moving_each_ball_straight_to_its_goal_peg_is_at_chance_on_plans_and_next_moves():
    accuracy = accuracy_by_question(_docs(21, 360), HEURISTICS["goal_peg"])
    for question in ("plan", "next"):
        acc, chance = accuracy[question]
        assert acc <= chance + 0.05, (question, acc, chance)

