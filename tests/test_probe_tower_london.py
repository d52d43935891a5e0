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
    # Checked by hand. 0 (pegs hold 3, 1, 2): every ball must move (3 out of place), and once each will do:
    #    black 1->2, green 1->3, white 1->3 (green under white on peg 3) = 3 = the balls out of place: at the
    #    first depth the difference count is the key, so no lure.
    # 1 (3, 1, 2): white goes to the bottom of peg 1, so black must leave peg 1 and come back on top of
    #    it (4 at least, every ball being out of place); peg 2 (one ball) is full: green 1->3, black 1->3
    #    onto green, white 2->1, black 3->1 = 4; 3 balls out of place -> lure "3".
    # 2 (3, 2, 1): green goes under black on peg 2, so black moves twice (4 at least); with one move
    #    each, green (to peg 2) would wait for white to leave peg 2, and white (to peg 3, one ball) for
    #    green to leave peg 3: 5. White 2->1, black 2->1, green 3->2, black 1->2, white 1->3 = 5;
    #    3 balls out of place -> lure "3".
    docs = _docs(0, 3)
    assert [d["prompt"] for d in docs] == [
        head((3, 1, 2)) + "Start state:\n  peg 1: white, green, black\n  peg 2: (empty)\n  peg 3: (empty)\n"
        "Goal state:\n  peg 1: (empty)\n  peg 2: black\n  peg 3: green, white\n" + COUNT_Q,
        head((3, 1, 2)) + "Start state:\n  peg 1: black, green\n  peg 2: white\n  peg 3: (empty)\nGoal state:\n"
        "  peg 1: white, black\n  peg 2: (empty)\n  peg 3: green\n" + COUNT_Q,
        head((3, 2, 1)) + "Start state:\n  peg 1: (empty)\n  peg 2: black, white\n  peg 3: green\nGoal state:\n"
        "  peg 1: (empty)\n  peg 2: green, black\n  peg 3: white\n" + COUNT_Q,
    ]
    assert all(d["choices"] == ["3", "4", "5", "6", "7"] for d in docs)
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("d3", 0, -1), ("d4", 1, 0), ("d5", 2, 0)]
    assert [d["capacities"] for d in docs] == [[3, 1, 2], [3, 1, 2], [3, 2, 1]]


def test_next_and_plan_items_of_seed_0_are_pinned():
    docs = _docs(0, 11)
    # 5 (pegs hold 1, 2, 3): start 2: white / 3: black, green, goal 3: black, white, green. Green must
    # leave peg 3 for white to go under it and come back: green 3->1, white 2->3, green 1->3 = 3. After
    # white 2->1 (white moves twice) or green 3->2 (onto white: green moves three times) it takes 4,
    # after white 2->3 (onto green) 5. No legal move puts a ball into its goal position (white's is under
    # green): no lure (d3 has none).
    doc = docs[5]
    assert (doc["question"], doc["condition"], doc["capacities"]) == ("next", "d3", [1, 2, 3])
    assert doc["choices"] == [
        "green ball from peg 3 to peg 2", "white ball from peg 2 to peg 1", "green ball from peg 3 to peg 1",
    ]
    assert (doc["gold"], doc["lure"]) == (2, -1)
    # 6 (2, 1, 3): start 2: black / 3: green, white, goal 1: black / 2: green / 3: white. White must leave
    # peg 3 and come back (4 at least): black 2->1, white 3->1, green 3->2, white 1->3 = 4. After white
    # 3->1 each ball waits for another (black for white to leave peg 1, green for black to leave peg 2,
    # white for green to leave peg 3): 5 more; black 2->3 buries green under two balls: 4 more. The
    # only goal-directed move (black 2->1) is the key: no lure. White 3->2 is illegal (peg 2 is full).
    doc = docs[6]
    assert (doc["question"], doc["condition"], doc["capacities"]) == ("next", "d4", [2, 1, 3])
    assert doc["choices"] == [
        "white ball from peg 3 to peg 1", "black ball from peg 2 to peg 3", "black ball from peg 2 to peg 1",
    ]
    assert (doc["gold"], doc["lure"]) == (2, -1)
    # 10 (2, 1, 3): start 1: green / 3: black, white, goal 1: white, green / 3: black: green must leave
    # peg 1 for white to go under it and come back: green 1->2, white 3->1, green 2->1 = 3. Its near copy
    # parks green on peg 3, over white (then white cannot move); a shortest plan to another state
    # (white 3->2, black 3->1 onto green, white 2->3: it ends at 1: green, black / 3: white) and its near
    # copy (green 1->3 first, over white: then black cannot move). No goal-directed detour: no lure.
    doc = docs[10]
    assert (doc["question"], doc["condition"], doc["capacities"]) == ("plan", "d3", [2, 1, 3])
    assert doc["choices"] == [
        "green ball from peg 1 to peg 3, white ball from peg 3 to peg 1, green ball from peg 2 to peg 1",
        "green ball from peg 1 to peg 2, white ball from peg 3 to peg 1, green ball from peg 2 to peg 1",
        "white ball from peg 3 to peg 2, black ball from peg 3 to peg 1, white ball from peg 2 to peg 3",
        "green ball from peg 1 to peg 3, black ball from peg 3 to peg 1, white ball from peg 2 to peg 3",
    ]
    assert doc["option_kinds"] == ["key_near_copy", "key", "wrong_goal", "wrong_goal_near_copy"]
    assert (doc["gold"], doc["lure"], doc["plan_excess"]) == (1, -1, [-1, 0, -1, -1])


def test_plan_items_are_asked_in_the_generation_form_only():
    # London 4.0: a full plan is a _gen question only (as a choice among plans the key was the one option
    # that reaches the goal); the plan metrics are the _gen form's, and its score_gen reports them for
    # every document (counted for plan items only).
    docs = _docs(0, 30)
    assert [d["index"] for d in docs if not LONDON.in_form(d, "mc")] == [*range(10, 15), *range(25, 30)]
    assert all(d["question"] == "plan" for d in docs if not LONDON.in_form(d, "mc"))
    assert all(LONDON.in_form(d, "gen") for d in docs)
    plan_metrics = {"valid_plan_rate", "optimal_plan_rate", "excess_moves"}
    assert not plan_metrics & set(LONDON.metric_names("mc")) and plan_metrics <= set(LONDON.metric_names("gen"))
    assert set(LONDON.effect_values(docs[5], docs[5]["gold"])) == {
        "depth_cost", "count_acc", "next_move_acc", "greedy_error_share"}
    row = LONDON.score_gen(docs[5], "green ball from peg 3 to peg 1")  # the key of a next item
    assert (row["valid_plan_rate"], row["optimal_plan_rate"], row["excess_moves"]) == ((False, 0.0),) * 3


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
    check_balance(LONDON, _docs(0, 15 * 24))  # 24 items per (depth, question) cell


def test_twelve_hundred_items_are_distinct():
    # The 36 states in 6 peg orders give about 1,000-1,300 (start, goal) pairs per depth.
    docs = _docs(0, 1200)
    assert len({LONDON.identity(d) for d in docs}) == 1200


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # Doc 6 (next d4, pegs hold 2, 1, 3; start 2: black / 3: green, white): the key, choice 2.
        ("black ball from peg 2 to peg 1", 2),
        ("Black from peg 2 to peg 1.", 2),
        ("move the black ball from peg 2 to peg 1", 2),
        ("black ball from peg 2 to peg 3", 1),
        ("white ball from peg 3 to peg 1", 0),
        ("white ball from peg 3 to peg 2", -1),  # peg 2 (one ball) is full: illegal
        ("green ball from peg 3 to peg 1", -1),  # green is under white
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
    d4, d74 = docs[4], docs[74]
    # 4 (count d7): start 1: black / 2: white, green, goal 2: green / 3: white, black: all 3 balls out of
    # place -> lure "3". 74 (plan d7, pegs hold 2, 1, 3): start 1: green / 3: white, black, goal 1: white /
    # 2: black / 3: green. The myopic plan puts black straight into its goal position first (black 3->2,
    # not optimal: the BFS finds 8 moves left after it), then white 3->1, black 2->3, white 1->2, green
    # 1->3, white 2->1, green 3->1: legal, 7 moves, and it ends at 1: white, green / 3: black, short of
    # the goal.
    assert d4["choices"][d4["lure"]] == "3" and d74["option_kinds"][d74["lure"]] == "greedy_plan"
    assert d74["choices"][d74["lure"]] == (
        "black ball from peg 3 to peg 2, white ball from peg 3 to peg 1, black ball from peg 2 to peg 3, "
        "white ball from peg 1 to peg 2, green ball from peg 1 to peg 3, white ball from peg 2 to peg 1, "
        "green ball from peg 3 to peg 1")
    rows = [
        LONDON.score_gen(docs[0], "3"),  # count d3: right
        LONDON.score_gen(d4, "3"),  # count d7: the lure (3 balls out of place)
        LONDON.score_gen(docs[5], "green ball from peg 3 to peg 1"),  # next d3: right
        LONDON.score_gen(docs[10], "green ball from peg 1 to peg 2, white ball from peg 3 to peg 1, "
                         "green ball from peg 2 to peg 1, green ball from peg 1 to peg 2, "
                         "green ball from peg 2 to peg 1"),  # plan d3: valid, +2 (green goes out and back)
        LONDON.score_gen(d74, d74["choices"][d74["lure"]]),  # plan d7: the myopic plan, short of the goal
    ]
    scores = aggregate(LONDON, rows)
    # acc 2/5; depth_cost (next and plan items): d3 (docs 5, 10) 1/2 - d7 (doc 74) 0; count 1/2; next 1/1;
    # plans (London 4.0: every row has the plan metrics, counted for the plan items only): doc 10 valid
    # (+2), doc 74 not -> valid 1/2, optimal 0, excess 2; lured errors: both lures (d3 has no lures).
    assert scores["acc"] == pytest.approx(0.4) and scores["depth_cost"] == pytest.approx(1 / 2)
    assert scores["acc_d3"] == pytest.approx(1 / 2) and scores["acc_d7"] == 0.0
    assert scores["count_acc"] == 0.5 and scores["next_move_acc"] == 1.0
    assert scores["valid_plan_rate"] == 0.5 and scores["optimal_plan_rate"] == 0.0 and scores["excess_moves"] == 2.0
    assert scores["greedy_error_share"] == 1.0


def test_myopic_player_shows_a_depth_cost():
    docs = _docs(0, 360)
    # The _mc form asks no plans (London 4.0): its depth metrics read the next-move items. d3 has no
    # lures; the player picks the lure wherever there is one.
    mc_docs = [d for d in docs if LONDON.in_form(d, "mc")]
    assert {d["question"] for d in mc_docs} == {"count", "next"}
    scores = play(LONDON, "prepotent", mc_docs, "mc")
    d7 = [d for d in mc_docs if d["condition"] == "d7" and d["question"] == "next"]
    unlured = sum(d["lure"] == -1 for d in d7) / len(d7)
    assert scores["acc_d3"] == 1.0 and scores["acc_d7"] == pytest.approx(unlured) and unlured < 0.8
    assert scores["depth_cost"] == pytest.approx(1 - unlured) and scores["greedy_error_share"] == 1.0
    # The _gen form asks every item: its depth metrics read the next-move and plan items, where the
    # myopic plan (legal, short of the goal) is never a valid plan.
    scores = play(LONDON, "prepotent", docs, "gen")
    d7 = [d for d in docs if d["condition"] == "d7" and d["question"] != "count"]
    unlured = sum(d["lure"] == -1 for d in d7) / len(d7)
    assert scores["acc_d3"] == 1.0 and scores["acc_d7"] == pytest.approx(unlured) and unlured < 0.8
    assert scores["depth_cost"] == pytest.approx(1 - unlured) and scores["greedy_error_share"] == 1.0
    plans = [d for d in docs if d["question"] == "plan"]
    assert scores["valid_plan_rate"] == pytest.approx(sum(d["lure"] == -1 for d in plans) / len(plans))
    assert scores["optimal_plan_rate"] == scores["valid_plan_rate"] and scores["excess_moves"] == 0.0


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
    numbers = [str(k) for k in range(3, 8)]  # the count scale (London 4.0: d3-d7)
    # Only green is out of place: "1" is not offered, so each count scores minus its distance to 1 and
    # the nearest offered count, "3", is the heuristic's pick.
    assert HEURISTICS["misplaced_count"].scores(_stem(COUNT_Q), numbers) == [-2.0, -3.0, -4.0, -5.0, -6.0]
    plans = ["white ball from peg 2 to peg 3, green ball from peg 1 to peg 2",
             "green ball from peg 1 to peg 3, green ball from peg 3 to peg 2"]
    assert HEURISTICS["fewest_pieces"].scores(_stem(), plans) == [-2.0, -1.0]


def test_moving_each_ball_straight_to_its_goal_peg_is_at_chance_on_every_question_shown_with_options():
    # Issue 28: "move each ball straight to its goal peg" scored well above chance on plans and next moves.
    # Since version 4.0 plans are a _gen question only (no options shown anywhere: the key was the one
    # plan that reached the goal), and depth 2, where the goal-directed move was always the key, is gone.
    docs = [d for d in _docs(21, 300) if LONDON.in_form(d, "mc")]
    assert {d["question"] for d in docs} == {"count", "next"}
    for question, (acc, chance) in accuracy_by_question(docs, HEURISTICS["goal_peg"]).items():
        assert acc <= chance + 0.05, (question, acc, chance)


def test_the_goal_directed_move_is_at_chance_on_next_moves():
    # Within 0.05 on next moves alone too (0.37 at seeds 1-2), though not per depth: d3-d4 over, d6-d7
    # under chance (Hanoi's next moves are still 0.39: a strict xfail there).
    docs = [d for d in _docs(21, 300) if LONDON.in_form(d, "mc")]
    acc, chance = accuracy_by_question(docs, HEURISTICS["goal_position"])["next"]
    assert acc <= chance + 0.05, (acc, chance)

