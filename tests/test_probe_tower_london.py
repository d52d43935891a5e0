"""Tower of London probe: pinned items, keys re-derived by an independent BFS, ball moves, metrics."""

from __future__ import annotations

import re

import pytest
from tower_bfs import check_items

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

LONDON = get_probe("tower_london")
CAPACITY = {"1": 3, "2": 2, "3": 1}
HEAD = (
    "Tower of London with a red, a green and a blue ball on three pegs: peg 1 holds up to 3 balls, peg 2 up to 2 balls, "
    "peg 3 one ball. A move takes the top ball of one peg and puts it on top of another peg that is not full. "
    "Balls are listed from bottom to top.\n"
)
COUNT_Q = "What is the smallest number of moves that turns the start state into the goal state? Answer with a single number."


def may_put(piece: str, below: tuple, target: str) -> bool:
    return len(below) < CAPACITY[target]


def parse_move(text: str) -> tuple[str, str, str]:
    ball, src, dst = re.fullmatch(r"(red|green|blue) ball from peg (\d) to peg (\d)", text).groups()
    return ball, src, dst


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. 0: blue 3->1, red 2->1 = 2 moves, 2 balls out of place: no lure.
    # 1: green 1->2, blue 1->2, red 3->1 = 3 (all three out of place): no lure.
    # 2: green must leave peg 1 and come back on top: green 1->3, blue 2->1, red 2->1, green 3->1 = 4;
    #    3 balls out of place -> lure "3".
    docs = LONDON.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        HEAD + "Start state:\n  peg 1: green\n  peg 2: red\n  peg 3: blue\nGoal state:\n  peg 1: green, blue, red\n"
        "  peg 2: (empty)\n  peg 3: (empty)\n" + COUNT_Q,
        HEAD + "Start state:\n  peg 1: blue, green\n  peg 2: (empty)\n  peg 3: red\nGoal state:\n  peg 1: red\n"
        "  peg 2: green, blue\n  peg 3: (empty)\n" + COUNT_Q,
        HEAD + "Start state:\n  peg 1: green\n  peg 2: red, blue\n  peg 3: (empty)\nGoal state:\n"
        "  peg 1: blue, red, green\n  peg 2: (empty)\n  peg 3: (empty)\n" + COUNT_Q,
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("d2", 1, -1), ("d3", 2, -1), ("d4", 3, 2)]


def test_next_item_of_seed_0_is_pinned():
    # 6: start 1: green / 2: red / 3: blue, goal 1: green, red / 2: blue. Legal: green 1->2, red 2->1,
    # blue 3->1, blue 3->2; only red 2->1 then blue 3->2 takes 2 moves. Red 2->1 is the only goal-directed move.
    doc = LONDON.generate(0, 7)[6]
    assert doc["choices"] == [
        "green ball from peg 1 to peg 2", "red ball from peg 2 to peg 1",
        "blue ball from peg 3 to peg 1", "blue ball from peg 3 to peg 2",
    ]
    assert (doc["gold"], doc["lure"]) == (1, -1)


def test_keys_lures_and_foils_rederived_by_independent_bfs():
    check_items(LONDON.generate(21, 360), may_put, parse_move)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("red ball from peg 2 to peg 1", 1),
        ("Red from peg 2 to peg 1.", 1),
        ("move the red ball from peg 2 to peg 1", 1),
        ("blue ball from peg 3 to peg 1", 2),
        ("green ball from peg 1 to peg 3", -1),  # peg 3 is full: illegal
        ("red ball from peg 1 to peg 2", -1),  # red is not on peg 1
        ("red ball from 2 to 1", None),
        ("red or blue ball from peg 2 to peg 1", None),
        ("", None),
    ],
)
def test_read_next_move(answer, expected):
    assert LONDON.read(LONDON.generate(0, 7)[6], answer) == expected


def test_any_optimal_plan_is_right():
    # Doc 33 (d5): start 1: green, blue / 2: red, goal 1: blue, green, red. The key parks blue on peg 3;
    # checked by hand, parking it on peg 2 (over red) works as well: blue 1->2, green 1->3, blue 2->1,
    # green 3->1, red 2->1 is legal and ends in the goal after 5 moves.
    doc = LONDON.generate(0, 36)[33]
    assert doc["choices"][doc["gold"]].startswith("blue ball from peg 1 to peg 3")
    other = (
        "blue ball from peg 1 to peg 2, green ball from peg 1 to peg 3, blue ball from peg 2 to peg 1, "
        "green ball from peg 3 to peg 1, red ball from peg 2 to peg 1"
    )
    assert LONDON.read(doc, other) == doc["gold"]
    # Its first two moves swapped: green is under blue, so the plan is illegal (wrong, not invalid).
    swapped = other.replace("blue ball from peg 1 to peg 2, green ball from peg 1 to peg 3",
                            "green ball from peg 1 to peg 3, blue ball from peg 1 to peg 2")
    assert LONDON.read(doc, swapped) == -1
    assert LONDON.score_gen(doc, swapped)["valid_plan_rate"] == (True, 0.0)


def test_gen_metrics_on_hand_built_answers():
    docs = LONDON.generate(0, 18)
    d17 = docs[17]
    rows = [
        LONDON.score_gen(docs[0], "2"),  # count d2: right
        LONDON.score_gen(docs[5], docs[5]["choices"][docs[5]["lure"]]),  # count d7: the lure
        LONDON.score_gen(docs[6], "red ball from peg 2 to peg 1"),  # next d2: right
        LONDON.score_gen(d17, d17["choices"][d17["plan_excess"].index(1)]),  # plan d7: the detour, +1
    ]
    scores = aggregate(LONDON, rows)
    # acc 2/4; depth_cost: d2 (docs 0, 6) 1 - d7 (docs 5, 17) 0 = 1; count 1/2; next 1/1;
    # plans: 1 valid of 1, 0 optimal, 1 extra move; lured errors: doc 5 (lure) and doc 17 (lure 0, detour): 1/2.
    assert scores["acc"] == 0.5 and scores["depth_cost"] == 1.0
    assert scores["count_acc"] == 0.5 and scores["next_move_acc"] == 1.0
    assert scores["valid_plan_rate"] == 1.0 and scores["optimal_plan_rate"] == 0.0 and scores["excess_moves"] == 1.0
    assert d17["lure"] != -1 and scores["greedy_error_share"] == 0.5


def test_myopic_player_shows_a_depth_cost():
    scores = play(LONDON, "prepotent", LONDON.generate(0, 360), "mc")
    assert scores["acc_d2"] == 1.0 and scores["acc_d7"] < 0.34 and scores["depth_cost"] > 0.66
    assert scores["greedy_error_share"] == 1.0


def test_parameters_are_checked_by_name():
    with pytest.raises(ValueError, match="'balls'"):
        LONDON.make_params({"balls": 4})
