"""Tower of London probe: pinned items, keys and foils re-derived by an independent BFS, balanced
options, ball moves, metrics."""

from __future__ import annotations

import functools
import re

import pytest
from tower_bfs import check_balance, check_items, other_optimal_plan
from lm_eval_cog.audit.probes import accuracy_by_question

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

LONDON = get_probe("tower_london")
CAPACITY = {"1": 3, "2": 2, "3": 1}
HEAD = (
    "Tower of London with a black, a green and a white ball on three pegs: peg 1 holds up to 3 balls, peg 2 up to 2 "
    "balls, peg 3 one ball. A move takes the top ball of one peg and puts it on top of another peg that is not full. "
    "Balls are listed from bottom to top.\n"
)
COUNT_Q = "What is the smallest number of moves that turns the start state into the goal state? Answer with a single number."


@functools.lru_cache(maxsize=None)
def _docs(seed: int, n: int) -> list[dict]:
    """The first ``n`` items of seed ``seed``, generated once for the whole module (never modified)."""
    return LONDON.generate(seed, n)


def may_put(piece: str, below: tuple, target: str) -> bool:
    return len(below) < CAPACITY[target]


def misread_may_put(piece: str, below: tuple, target: str) -> bool:
    return len(below) < 3  # the capacities misread: every peg holds the three balls


def parse_move(text: str) -> tuple[str, str, str]:
    ball, src, dst = re.fullmatch(r"(black|green|white) ball from peg (\d) to peg (\d)", text).groups()
    return ball, src, dst


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. 0: white 3->1, black 2->1 = 2 moves, 2 balls out of place: no lure.
    # 1: green and white trade pegs 2 and 3 (peg 3 holds one ball): green 2->1 onto black, white 3->2,
    #    green 1->3 = 3; 2 balls out of place -> lure "2" (version 2.1: from depth 3 on the count of
    #    balls out of place is never the minimum).
    # 2: green must leave peg 1 and come back on top: green 1->3, white 2->1, black 2->1, green 3->1 = 4;
    #    3 balls out of place -> lure "3".
    docs = _docs(0, 3)
    assert [d["prompt"] for d in docs] == [
        HEAD + "Start state:\n  peg 1: green\n  peg 2: black\n  peg 3: white\nGoal state:\n"
        "  peg 1: green, white, black\n  peg 2: (empty)\n  peg 3: (empty)\n" + COUNT_Q,
        HEAD + "Start state:\n  peg 1: black\n  peg 2: green\n  peg 3: white\nGoal state:\n  peg 1: black\n"
        "  peg 2: white\n  peg 3: green\n" + COUNT_Q,
        HEAD + "Start state:\n  peg 1: green\n  peg 2: black, white\n  peg 3: (empty)\nGoal state:\n"
        "  peg 1: white, black, green\n  peg 2: (empty)\n  peg 3: (empty)\n" + COUNT_Q,
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("d2", 0, -1), ("d3", 1, 0), ("d4", 2, 1)]


def test_next_and_plan_items_of_seed_0_are_pinned():
    # 6: start 1: black / 2: white / 3: green, goal 1: black, green, white. Green 3->1 then white 2->1;
    # the other two offered moves (white 2->1 first, green 3->2) put no ball into its goal position.
    doc = _docs(0, 7)[6]
    assert doc["choices"] == [
        "green ball from peg 3 to peg 1", "white ball from peg 2 to peg 1", "green ball from peg 3 to peg 2",
    ]
    assert (doc["gold"], doc["lure"]) == (0, -1)
    # 12: start 1: white / 2: green, black, goal 1: white, black / 3: green: black 2->1, green 2->3. Its near
    # copy parks black on peg 3 (then peg 3 is full); a shortest plan to another state (black 2->3,
    # green 2->1) and its near copy (white 1->3 first: green is still under black).
    doc = _docs(0, 13)[12]
    assert doc["choices"] == [
        "black ball from peg 2 to peg 1, green ball from peg 2 to peg 3",
        "black ball from peg 2 to peg 3, green ball from peg 2 to peg 1",
        "black ball from peg 2 to peg 3, green ball from peg 2 to peg 3",
        "white ball from peg 1 to peg 3, green ball from peg 2 to peg 1",
    ]
    assert doc["option_kinds"] == ["key", "wrong_goal", "key_near_copy", "wrong_goal_near_copy"]
    assert (doc["gold"], doc["lure"], doc["plan_excess"]) == (0, -1, [0, -1, -1, -1])


def test_every_option_has_one_length_in_characters():
    # Colour names of one length: the length of a move or a plan tells nothing of its balls.
    for doc in _docs(0, 360):
        assert len({len(c) for c in doc["choices"]}) == 1


def test_keys_lures_and_foils_rederived_by_independent_bfs():
    check_items(_docs(21, 360), may_put, parse_move, misread_may_put)


def test_key_position_text_rank_and_typicality_are_balanced_and_counts_pooled():
    check_balance(LONDON, _docs(0, 18 * 24))  # 24 items per (depth, question) cell


def test_twelve_hundred_items_are_distinct():
    # The 36 states give 168-216 (start, goal) pairs per depth: enough for every count item to differ.
    docs = _docs(0, 1200)
    assert len({LONDON.identity(d) for d in docs}) == 1200


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("green ball from peg 3 to peg 1", 0),
        ("Green from peg 3 to peg 1.", 0),
        ("move the green ball from peg 3 to peg 1", 0),
        ("white ball from peg 2 to peg 1", 1),
        ("black ball from peg 1 to peg 3", -1),  # peg 3 is full: illegal
        ("green ball from peg 1 to peg 2", -1),  # green is not on peg 1
        ("green ball from 3 to 1", None),
        ("green or white ball from peg 3 to peg 1", None),
        ("red ball from peg 3 to peg 1", None),  # no red ball in this apparatus
        ("", None),
    ],
)
def test_read_next_move(answer, expected):
    assert LONDON.read(_docs(0, 7)[6], answer) == expected


def test_any_optimal_plan_is_right():
    docs = [d for d in _docs(0, 108) if d["question"] == "plan" and d["min_moves"] >= 4]
    found = ((d, other_optimal_plan(d, may_put, "{} ball from peg {} to peg {}".format)) for d in docs)
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
    d5, d107 = docs[5], docs[107]
    assert d5["choices"][d5["lure"]] == "2" and d107["option_kinds"][d107["lure"]] == "greedy_plan"
    rows = [
        LONDON.score_gen(docs[0], "2"),  # count d2: right
        LONDON.score_gen(d5, "2"),  # count d7: the lure (2 balls out of place)
        LONDON.score_gen(docs[6], "green ball from peg 3 to peg 1"),  # next d2: right
        LONDON.score_gen(docs[12], "black ball from peg 2 to peg 1, green ball from peg 2 to peg 3, "
                         "black ball from peg 1 to peg 2, black ball from peg 2 to peg 1"),  # plan d2: valid, +2
        LONDON.score_gen(d107, d107["choices"][d107["lure"]]),  # plan d7: the myopic plan, short of the goal
    ]
    scores = aggregate(LONDON, rows)
    # acc 2/5; depth_cost (next and plan items): d2 (docs 6, 12) 1/2 - d7 (doc 107) 0; count 1/2; next 1/1;
    # plans: doc 12 valid (+2), doc 107 not -> valid 1/2, optimal 0, excess 2; lured errors: both lures.
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
    with pytest.raises(ValueError, match="'balls'"):
        LONDON.make_params({"balls": 4})


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in LONDON.heuristics}
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


@pytest.mark.xfail(strict=True, reason="issue 28: tower_london greedy row not yet fixed (goal_peg 0.59 on plans, seed 21, v2)")
def test_moving_each_ball_straight_to_its_goal_peg_is_at_chance_on_plans_and_next_moves():
    accuracy = accuracy_by_question(_docs(21, 360), HEURISTICS["goal_peg"])
    for question in ("plan", "next"):
        acc, chance = accuracy[question]
        assert acc <= chance + 0.05, (question, acc, chance)

