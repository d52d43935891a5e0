"""Tower of Hanoi probe: pinned items, keys and foils re-derived by an independent BFS, balanced
options, plan reading, metrics."""

from __future__ import annotations

import functools
import math
import re

import pytest
from tower_bfs import check_balance, check_items, other_optimal_plan
from lm_eval_cog.audit.probes import accuracy_by_question
from lm_eval_cog.paradigms.probe_base import Heuristic

from lm_eval_cog.probes.core import NO_ANSWER, get_probe
from lm_eval_cog.probes.reference import aggregate, play

HANOI = get_probe("hanoi")
RULES = (
    "A move takes the top disc of one peg and puts it on top of another peg; a disc may never be put on a smaller disc. "
    "Discs are listed from bottom to top.\n"
)
COUNT_Q = "What is the smallest number of moves that turns the start state into the goal state? Answer with a single number."
NUMBERS = [str(k) for k in range(3, 8)]


@functools.lru_cache(maxsize=None)
def _docs(seed: int, n: int) -> list[dict]:
    """The first ``n`` items of seed ``seed``, generated once for the whole module (never modified)."""
    return HANOI.generate(seed, n)


def may_put(piece: str, below: tuple, target: str) -> bool:
    return not below or int(below[-1]) > int(piece)


def misread_may_put(piece: str, below: tuple, target: str) -> bool:
    return True  # the size rule misread: any disc on any peg


def parse_move(text: str) -> tuple[str, str, str]:
    disc, src, dst = re.fullmatch(r"disc (\d) from ([ABC]) to ([ABC])", text).groups()
    return disc, src, dst


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand. 0: 2 A->B (onto 3), 1 C->B (onto 2), 4 C->A = 3 moves; discs 4, 2, 1 out of place
    #    (3 = the minimum: at the first depth the difference count is the key), no lure.
    # 1: disc 3 B->A needs A empty, and disc 1 may not cover it: 1 A->C, 3 B->A, 1 C->B, 2 C->A = 4; no
    #    first move puts a disc into its goal position, so not 3; out of place: 1, 3, 2 -> lure "3".
    # 2: disc 1 must leave A (3 goes under it) and not onto 3: 1 A->C, 3 B->A, 1 C->B, 2 C->A, 1 B->A = 5
    #    (4 would need disc 1 to move twice, but on C it covers disc 2); out of place: 1, 3, 2 -> lure "3".
    docs = _docs(0, 3)
    head = "Tower of Hanoi with three pegs A, B, C and {n} discs numbered 1 (smallest) to {n} (largest). "
    assert [d["prompt"] for d in docs] == [
        head.format(n=4) + RULES + "Start state:\n  A: 2\n  B: 3\n  C: 4, 1\nGoal state:\n  A: 4\n"
        "  B: 3, 2, 1\n  C: (empty)\n" + COUNT_Q,
        head.format(n=3) + RULES + "Start state:\n  A: 1\n  B: 3\n  C: 2\nGoal state:\n  A: 3, 2\n"
        "  B: 1\n  C: (empty)\n" + COUNT_Q,
        head.format(n=5) + RULES + "Start state:\n  A: 4, 1\n  B: 3\n  C: 5, 2\nGoal state:\n"
        "  A: 4, 3, 2, 1\n  B: (empty)\n  C: 5\n" + COUNT_Q,
    ]
    assert all(d["choices"] == NUMBERS for d in docs)
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("d3", 0, -1), ("d4", 1, 0), ("d5", 2, 0)]


def test_next_and_plan_items_of_seed_0_are_pinned():
    docs = _docs(0, 11)
    # 5: start A: 1 / B: 3 / C: 2, goal A: 2, 1 / B: 3. 1 A->B, 2 C->A, 1 B->A; after 1 A->C (disc 2
    # covered) or 2 C->B (disc 1 must leave A first) it takes 4. No legal move puts a disc into its goal
    # position (A is occupied): no lure.
    assert docs[5]["choices"] == ["disc 1 from A to B", "disc 2 from C to B", "disc 1 from A to C"]
    assert (docs[5]["question"], docs[5]["gold"], docs[5]["lure"]) == ("next", 0, -1)
    # 10: start A: 3, 1 / B: 2, goal A: 1 / B: 2 / C: 3: 1 A->B, 3 A->C, 1 B->A (disc 1 leaves A and
    # comes back: 3 at least). Its near copy sends disc 1 to C, where disc 3 cannot follow; a shortest
    # plan to another state (disc 1 ends on C) and its near copy (2 B->C first, then disc 3 is covered).
    assert docs[10]["choices"] == [
        "disc 1 from A to B, disc 3 from A to C, disc 1 from B to A",
        "disc 2 from B to C, disc 3 from A to C, disc 1 from B to C",
        "disc 1 from A to B, disc 3 from A to C, disc 1 from B to C",
        "disc 1 from A to C, disc 3 from A to C, disc 1 from B to A",
    ]
    assert docs[10]["option_kinds"] == ["key", "wrong_goal_near_copy", "wrong_goal", "key_near_copy"]
    assert (docs[10]["gold"], docs[10]["lure"], docs[10]["plan_excess"]) == (0, -1, [0, -1, -1, -1])


def test_plan_items_are_asked_in_the_generation_form_only():
    docs = _docs(0, 30)
    assert [d["index"] for d in docs if not HANOI.in_form(d, "mc")] == [*range(10, 15), *range(25, 30)]
    assert all(HANOI.in_form(d, "gen") for d in docs)
    assert not {"valid_plan_rate", "optimal_plan_rate", "excess_moves"} & set(HANOI.metric_names("mc"))
    assert {"valid_plan_rate", "optimal_plan_rate", "excess_moves"} <= set(HANOI.metric_names("gen"))


def test_keys_lures_and_foils_rederived_by_independent_bfs():
    check_items(_docs(11, 300), may_put, parse_move, misread_may_put)
    params = HANOI.make_params({"min_discs": 6, "max_discs": 6})
    check_items(HANOI.generate(12, 30, params), may_put, parse_move, misread_may_put)


def test_conditions_and_questions_are_balanced():
    docs = _docs(0, 300)
    cells = {(d["condition"], d["question"]) for d in docs}
    assert len(cells) == 15
    assert all(sum((d["condition"], d["question"]) == c for d in docs) == 20 for c in cells)


def test_key_position_text_rank_and_typicality_are_balanced_and_counts_pooled():
    check_balance(HANOI, _docs(0, 15 * 24))  # 24 items per (depth, question) cell


def test_twelve_hundred_items_are_distinct():
    docs = _docs(0, 1200)
    assert len({HANOI.identity(d) for d in docs}) == 1200


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("**3**", 0), ("3 moves", 0), ("3.", 0), ("13", -1), ("0", -1), ("2", -1), ("4", 1), ("three", 0),
     ("three moves", 0), ("9" * 5000, None), ("3 or 4", None), ("", None)],
)
def test_read_count(answer, expected):
    assert HANOI.read(_docs(0, 1)[0], answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("disc 1 from A to B", 0),
        ("**Disc 1 from A to B.**", 0),
        ("Move disc 1 from peg A to peg B", 0),
        ("disk 1 from A to B", 0),
        ("disc 1 from A to C", 2),
        ("disc 2 from C to A", -1),  # onto the smaller disc 1: a well-formed illegal move
        ("disc 3 from C to B", -1),  # disc 3 is on B, not C
        ("disc 9 from A to B", -1),
        ("disc 1 from A to B, disc 2 from C to A", None),  # a plan, not one move
        ("disc 1 A->B", None),
        ("1 to B", None),
        ("", None),
    ],
)
def test_read_next_move(answer, expected):
    assert HANOI.read(_docs(0, 6)[5], answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("disc 1 from A to B, disc 3 from A to C, disc 1 from B to A", 0),
        ("1. disc 1 from A to B; 2. disc 3 from A to C; 3. disc 1 from B to A.", 0),
        ("`disc 1 from A to B, disc 3 from A to C, disc 1 from B to A,`", 0),
        ("disc 1 from A to B, disc 3 from A to C, disc 1 from B to C", 2),  # the wrong-goal choice
        ("disc 1 from A to B, disc 3 from A to C, disc 1 from B to A, disc 1 from A to B, disc 1 from B to A",
         -1),  # valid, +2
        ("disc 3 from A to C, disc 1 from A to B, disc 1 from B to A", -1),  # illegal first move (3 is under 1)
        ("disc 1 from A to B then disc 3 from A to C", None),
        ("disc 1 from A to B, and disc 3 from A to C", None),
        ("A to B, A to C, B to A", None),
        (NO_ANSWER, None),
    ],
)
def test_read_plan(answer, expected):
    assert HANOI.read(_docs(0, 11)[10], answer) == expected


def test_any_optimal_plan_is_right_and_a_wrong_disc_name_is_illegal():
    docs = [d for d in _docs(0, 75) if d["question"] == "plan" and d["min_moves"] >= 5]
    found = ((d, other_optimal_plan(d, may_put, "disc {} from {} to {}".format)) for d in docs)
    doc, other = next((d, o) for d, o in found if o is not None)
    assert other not in doc["choices"]
    assert HANOI.read(doc, other) == doc["gold"]
    assert HANOI.score_gen(doc, other)["optimal_plan_rate"] == (True, 1.0)
    # The same moves naming disc 9 for the first one: no such disc -> illegal, wrong.
    assert HANOI.read(doc, re.sub(r"^disc \d", "disc 9", other)) == -1


def _gen_rows(answers):
    docs = _docs(0, 30)
    return [HANOI.score_gen(docs[i], a) for i, a in answers]


def test_gen_metrics_on_hand_built_answers():
    docs = _docs(0, 30)
    answers = [
        (0, "3"),  # count d3: right
        (1, "5"),  # count d4 (lure "3"): wrong, not the lure
        (2, "four or five"),  # count d5 (lure "3"): hedged, invalid
        (19, "3"),  # count d7: 3 discs out of place (1, 3, 2) -> the lure
        (5, "disc 1 from A to B"),  # next d3: right
        (9, "disc 9 from A to B"),  # next d7 (no lure): well-formed, illegal -> wrong
        (10, "disc 1 from A to B, disc 3 from A to C, disc 1 from B to A, disc 1 from A to B, disc 1 from B to A"),
        # plan d3: valid, +2 (disc 1 goes out and back)
        (29, docs[29]["choices"][docs[29]["lure"]]),  # plan d7: the myopic plan (legal, short of the goal)
    ]
    assert docs[19]["choices"][docs[19]["lure"]] == "3" and docs[29]["option_kinds"][docs[29]["lure"]] == "greedy_plan"
    scores = aggregate(HANOI, _gen_rows(answers))
    # acc: docs 0 and 5 of 8 -> 0.25; invalid: doc 2 -> 1/8.
    assert scores["acc"] == 0.25 and scores["invalid_rate"] == 1 / 8
    # depth_cost over next and plan items: d3 (docs 5, 10) 1, 0 -> 1/2; d7 (9, 29) 0, 0 -> 0.
    assert scores["depth_cost"] == pytest.approx(1 / 2)
    assert scores["acc_d3"] == pytest.approx(1 / 2) and scores["acc_d7"] == 0.0
    # count: docs 0, 1, 2, 19 -> 1/4; next: docs 5, 9 -> 1/2.
    assert scores["count_acc"] == 0.25 and scores["next_move_acc"] == 0.5
    # plans: doc 10 valid with 2 extra moves, doc 29 short of the goal -> valid 1/2, optimal 0, excess 2/1.
    assert scores["valid_plan_rate"] == 0.5 and scores["optimal_plan_rate"] == 0.0
    assert scores["excess_moves"] == 2.0
    # errors on lured items: 1 ("5" vs lure "3": no), 2 (invalid: no), 19 (lure), 29 (lure) -> 2/4.
    assert scores["greedy_error_share"] == 0.5


def test_mc_metrics_on_hand_built_log_likelihoods():
    docs = _docs(0, 10)
    d5, d7, d9 = docs[5], docs[7], docs[9]
    # doc 5 (next d3, gold 0, no lure): choice 1 is likeliest; doc 7 (next d5, gold 1, lure 2): the key;
    # doc 9 (next d7, gold 2, no lure): the key.
    assert (d5["gold"], d5["lure"], d7["gold"], d7["lure"], d9["gold"], d9["lure"]) == (0, -1, 1, 2, 2, -1)
    assert (d5["condition"], d7["condition"], d9["condition"]) == ("d3", "d5", "d7")
    row5 = HANOI.score_mc(d5, [-2.0, -1.0, -3.0])
    row7 = HANOI.score_mc(d7, [-9.0, -1.0, -2.5])
    row9 = HANOI.score_mc(d9, [-3.0, -2.0, -1.0])
    assert row7["lure_margin"] == row7["lure_margin_d5"] == 1.5  # -1.0 - (-2.5)
    assert "valid_plan_rate" not in row7  # the MC form asks no plans
    scores = aggregate(HANOI, [row5, row7, row9])
    # acc 2/3; next moves 2/3; no lured error; depth_cost = acc(d3) 0 - acc(d7) 1.
    assert scores["acc"] == pytest.approx(2 / 3) and scores["next_move_acc"] == pytest.approx(2 / 3)
    assert math.isnan(scores["greedy_error_share"])
    assert math.isnan(scores["count_acc"]) and scores["depth_cost"] == -1.0


def test_myopic_player_is_right_where_it_has_no_error_to_make():
    docs = _docs(0, 300)
    scores = play(HANOI, "prepotent", docs, "gen")
    d7 = [d for d in docs if d["condition"] == "d7" and d["question"] != "count"]
    unlured = sum(d["lure"] == -1 for d in d7) / len(d7)
    # d3 has no lures; the player picks the lure wherever there is one (depth metrics: next and plan items).
    assert scores["acc_d3"] == 1.0
    # Lures at d7 are in plan items: next-move problems are drawn so that the goal-directed move gives
    # the key a guess's credit (Hanoi.neutral_next_moves), which leaves few goal-directed foils.
    assert scores["acc_d7"] == pytest.approx(unlured) and unlured < 0.9  # so a depth cost over 0.1
    assert scores["depth_cost"] == pytest.approx(1 - unlured)
    assert scores["greedy_error_share"] == 1.0 and scores["excess_moves"] == 0.0
    plans = [d for d in docs if d["question"] == "plan"]
    assert scores["valid_plan_rate"] == pytest.approx(sum(d["lure"] == -1 for d in plans) / len(plans))
    assert scores["optimal_plan_rate"] == scores["valid_plan_rate"]  # myopic plans are never valid


def test_random_player_meets_chance_per_question():
    docs = [d for d in _docs(0, 300) if HANOI.in_form(d, "mc")]
    scores = play(HANOI, "random", docs, "mc")
    chance = sum(1 / len(d["choices"]) for d in docs) / len(docs)
    assert scores["acc_chance"] == pytest.approx(chance)
    assert abs(scores["count_acc"] - 1 / 5) < 3.5 * math.sqrt(1 / 5 * 4 / 5 / 100)


@pytest.mark.parametrize("name", ["hanoi", "tower_london"])
def test_a_fixed_answer_makes_no_depth_cost(name):
    # A count item at depth d is keyed "d": answering "3" to every count item (and one fixed option
    # elsewhere, as a blind model with one preference does) is right on every d3 count item and no d7 one.
    # The key's position is drawn per item, so one fixed place gets a guess's spread of depth costs; the
    # twelve fixed places p (option p mod k: each next item gets each place 4 times, each plan item 3
    # times) average out the next and plan items exactly (d3 and d7 have 20 of each).
    probe = get_probe(name)
    docs = probe.generate(0, 300)
    with_counts, costs = [], []
    for place in range(12):
        preds = [d["choices"].index("3") if d["question"] == "count" else place % len(d["choices"]) for d in docs]
        scores = aggregate(probe, [probe.score(d, p) for d, p in zip(docs, preds)])

        def acc(depth, questions):
            cell = [p == d["gold"] for d, p in zip(docs, preds) if d["condition"] == depth and d["question"] in questions]
            return sum(cell) / len(cell)

        assert scores["acc_d3"] == acc("d3", ("next", "plan")) and scores["acc_d7"] == acc("d7", ("next", "plan"))
        assert scores["depth_cost"] == pytest.approx(acc("d3", ("next", "plan")) - acc("d7", ("next", "plan")))
        with_counts.append(acc("d3", ("count", "next", "plan")) - acc("d7", ("count", "next", "plan")))
        costs.append(scores["depth_cost"])
    # Reading the count items too (as before version 2.2), the 20 d3 count items of 60 make a cost of 1/3.
    assert sum(with_counts) / 12 == pytest.approx(1 / 3)
    assert sum(costs) / 12 == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("overrides", "name"),
    [
        ({"min_discs": 2}, "min_discs"),
        ({"max_discs": 7}, "max_discs"),
        ({"max_discs": 0}, "max_discs"),
        ({"min_discs": 5, "max_discs": 4}, "min_discs"),
        ({"min_discs": "3"}, "min_discs"),
        ({"discs": 3}, "discs"),
    ],
)
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        HANOI.make_params(overrides)


def test_the_independent_checker_catches_a_wrong_key():
    docs = _docs(0, 15)
    for i in (0, 5, 10):  # count, next and plan items with the key moved to another choice
        bad = {**docs[i], "gold": (docs[i]["gold"] + 1) % len(docs[i]["choices"])}
        with pytest.raises(AssertionError):
            check_items([bad], may_put, parse_move, misread_may_put)


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in HANOI.heuristics}
HEAD = "Tower of Hanoi with three pegs A, B, C and 3 discs numbered 1 (smallest) to 3 (largest). " + RULES


def _stem(start: str, goal: str, question: str = "What is the first move of a shortest plan?") -> str:
    return HEAD + f"Start state:\n{start}\nGoal state:\n{goal}\n{question}\nAnswer:"


START = "  A: 3, 2\n  B: 1\n  C: (empty)"
GOAL = "  A: 3\n  B: (empty)\n  C: 2, 1"  # discs 2 and 1 out of place, both bound for C


def test_goal_peg_scores_the_moves_that_take_a_disc_to_its_goal_peg():
    moves = ["disc 1 from B to C", "disc 1 from B to A", "disc 2 from A to C"]
    # Disc 1 and disc 2 both end on C: the first and the last move go there, whatever the height.
    assert HEURISTICS["goal_peg"].scores(_stem(START, GOAL), moves) == [1.0, 0.0, 1.0]
    # A plan scores the share of its moves that do (the second plan's first move is not even legal).
    plans = ["disc 1 from B to C, disc 2 from A to B", "disc 1 from A to C, disc 2 from A to C"]
    assert HEURISTICS["goal_peg"].scores(_stem(START, GOAL), plans) == [0.5, 1.0]


def test_goal_position_scores_the_moves_that_put_a_disc_straight_into_its_goal_position():
    moves = ["disc 1 from B to C", "disc 1 from B to A", "disc 2 from A to C"]
    # Disc 2's goal is the bottom of C (it gets there); disc 1 belongs on top of disc 2, not at C's bottom.
    assert HEURISTICS["goal_position"].scores(_stem(START, GOAL), moves) == [0.0, 0.0, 1.0]
    # On the states the plan reaches: 2 then 1 onto C both land in place; disc 1 first lands too low;
    # a plan whose first move names a disc that is not on top stops there (no move counts).
    plans = ["disc 2 from A to C, disc 1 from B to C", "disc 1 from B to C, disc 2 from A to B",
             "disc 1 from A to C, disc 2 from A to C"]
    assert HEURISTICS["goal_position"].scores(_stem(START, GOAL), plans) == [1.0, 0.0, 0.0]


def test_misplaced_count_picks_the_number_of_discs_out_of_place():
    stem = _stem(START, GOAL, COUNT_Q)
    scale = [str(k) for k in range(2, 8)]
    assert HEURISTICS["misplaced_count"].scores(stem, scale) == [0.0, -1.0, -2.0, -3.0, -4.0, -5.0]  # "2"
    # Off the scale (the probe's counts start at 3), the nearest count: "3".
    assert HEURISTICS["misplaced_count"].scores(stem, NUMBERS) == [-1.0, -2.0, -3.0, -4.0, -5.0]
    assert HEURISTICS["goal_peg"].scores(stem, NUMBERS) is None  # the move heuristics skip counts


def test_fewest_pieces_prefers_the_plan_moving_fewer_different_discs():
    plans = ["disc 1 from B to C, disc 1 from C to A", "disc 1 from B to C, disc 2 from A to B"]
    assert HEURISTICS["fewest_pieces"].scores(_stem(START, GOAL), plans) == [-1.0, -2.0]
    assert HEURISTICS["fewest_pieces"].scores(_stem(START, GOAL), ["disc 1 from B to C", "disc 1 from B to A"]) is None
    assert HEURISTICS["misplaced_count"].scores(_stem(START, GOAL), plans) is None


def test_heuristics_give_no_basis_on_an_unreadable_item():
    for heuristic in HANOI.heuristics:
        assert heuristic.scores("no states here", ["disc 1 from A to B", "disc 2 from A to C"]) is None
        assert heuristic.scores(_stem(START, GOAL), ["move the small one", "disc 2 from A to C"]) is None


def test_moving_each_disc_straight_to_its_goal_peg_is_at_chance_on_every_question_shown_with_options():
    # Issue 28: "move each disc straight to its goal peg" scored well above chance on plans and next moves.
    # Since version 3.0 plans are a _gen question only (no options shown anywhere: the key was the one
    # plan that reached the goal), and depth 2, where the goal-directed move was always the key, is gone.
    docs = [d for d in _docs(11, 300) if HANOI.in_form(d, "mc")]
    assert {d["question"] for d in docs} == {"count", "next"}
    for question, (acc, chance) in accuracy_by_question(docs, HEURISTICS["goal_peg"]).items():
        assert acc <= chance + 0.05, (question, acc, chance)


def test_the_goal_directed_move_is_at_chance_on_next_moves():
    # Version 3.0 draws next-move problems where the move heuristics give the key a guess's credit
    # (Hanoi.neutral_next_moves): 0.38 here against 1/3 (it was 0.39 on the unbalanced draws). Depth 3
    # stays over chance (0.53 at seeds 1-3): few depth-3 problems allow otherwise.
    docs = [d for d in _docs(11, 300) if HANOI.in_form(d, "mc")]
    acc, chance = accuracy_by_question(docs, HEURISTICS["goal_position"])["next"]
    assert acc <= chance + 0.05, (acc, chance)


def test_counting_the_discs_out_of_place_is_at_chance_on_count_items():
    # Version 3.0: at depth 3 the difference count is always the minimum, from depth 4 on never (nor is
    # the offered count nearest to it: below the scale that is "3", never a key from depth 4 on).
    accuracy = accuracy_by_question(_docs(11, 300), HEURISTICS["misplaced_count"])
    acc, chance = accuracy["count"]
    assert acc == pytest.approx(chance) == pytest.approx(1 / 5)


def test_move_pattern_wants_the_smallest_disc_on_every_other_move():
    moves = ["disc 1 from B to C", "disc 1 from B to A", "disc 2 from A to C"]
    assert HEURISTICS["move_pattern"].scores(_stem(START, GOAL), moves) == [1.0, 1.0, 0.0]
    # Disc 1 on moves 1 and 3 (or only on move 2) follows the pattern; twice in a row, or on moves
    # 1 and 2 of three, does not.
    plans = ["disc 1 from B to C, disc 2 from A to B, disc 1 from C to B",
             "disc 2 from A to C, disc 1 from B to C, disc 2 from C to A",
             "disc 1 from B to C, disc 1 from C to A, disc 2 from A to C",
             "disc 1 from B to A, disc 2 from A to C, disc 2 from C to B"]
    assert HEURISTICS["move_pattern"].scores(_stem(START, GOAL), plans) == [1.0, 1.0, 0.0, 0.0]
    london = "  peg 1: black\n  peg 2: green\n  peg 3: white"
    assert HEURISTICS["move_pattern"].scores(_stem(london, london), ["black ball from peg 1 to peg 2"]) is None



@pytest.mark.parametrize("name", ["hanoi", "tower_london"])
def test_the_move_onto_one_peg_is_at_chance_on_next_moves(name):
    probe = get_probe(name)
    # Four seeds (480 next-move items): at two (240) one of three pegs reads 0.39 by chance now and then
    # (Hanoi 2.4, peg C at seeds 21-22; over seeds 21-28 and 3-4 it averages 0.36, as on 2.3).
    docs = [d for seed in (21, 22, 23, 24) for d in probe.generate(seed, 360)]
    for peg in probe.puzzle_of(docs[0]).peg_names:  # a move's text ends with its target peg's name
        onto = Heuristic(f"onto_{peg}", "a surface rule: the move that ends on one peg",
                         lambda stem, options, peg=peg: [float(o.split()[-1] == peg) for o in options])
        acc, chance = accuracy_by_question(docs, onto)["next"]
        assert acc <= chance + 0.05, (peg, acc, chance)


def _square_relation(stem: str, options: list[str]) -> list[float]:
    """1 for each option whose place in the item satisfies the relation the generator's balancing square
    gave the key until Hanoi 2.4 / London 3.1: position p, rank r in text order and typicality rank t (0 =
    most similar to the other options) with t = 2r - p (mod k). The square cycled the key's (p, r, t)
    with the item index, so any two fixed the third for the key, while a foil's three are unrelated."""
    from lm_eval_cog.probes._tower_core import char_similarity, text_order, word_similarity

    k = len(options)
    order = sorted(options, key=text_order)
    means = [sum(char_similarity(o, x) + word_similarity(o, x) for x in options if x != o) for o in options]
    typical = sorted(range(k), key=lambda i: -means[i])
    return [float((2 * order.index(o) - p - typical.index(p)) % k == 0) for p, o in enumerate(options)]


@pytest.mark.parametrize("name", ["hanoi", "tower_london"])
def test_the_balancing_square_does_not_mark_the_key_of_next_moves(name):
    # Found 2026-11-28: the surface detector reached 0.62 (Hanoi) / 0.67 (London) on next-move items
    # alone (the pooled audit cell diluted it to 0.41 / 0.37), and this one rule scored 0.49 / 0.73
    # (Hanoi 2.3, London 3.0). Since the key's position is drawn per item it is at chance.
    probe = get_probe(name)
    docs = probe.generate(3, 360) + probe.generate(4, 360)
    square = Heuristic("square_relation", "the balancing square's relation of position, rank and typicality",
                       _square_relation)
    acc, chance = accuracy_by_question(docs, square)["next"]
    assert acc <= chance + 0.05, (acc, chance)


def test_move_heuristic_credits_share_the_key_credit_among_tied_moves():
    from lm_eval_cog.probes._tower_core import move_heuristic_credits
    from lm_eval_cog.probes.hanoi import hanoi_puzzle

    # START / GOAL above: A 3, 2 / B 1 / C empty -> A 3 / C 2, 1. Move (disc, from, to), pegs 0-2.
    puzzle, start, goal = hanoi_puzzle(3), ((3, 2), (1,), ()), ((3,), (), (2, 1))
    one_to_c, one_to_a, two_to_c = (1, 1, 2), (1, 1, 0), (2, 0, 2)
    # Goal peg: discs 1 and 2 both end on C -> 1, 0, 1: the key (first) shares the top with disc 2's
    # move, 1/2. Goal position: only disc 2 onto the empty C lands in place -> 0, 0, 1: the key gets 0.
    assert move_heuristic_credits(puzzle, start, goal, [one_to_c, one_to_a, two_to_c]) == (0.5, 0.0)
    assert move_heuristic_credits(puzzle, start, goal, [two_to_c, one_to_c, one_to_a]) == (0.5, 1.0)
    # Both of two moves go to their goal peg: a tie, a guess's credit 1/2; only the second lands in place.
    assert move_heuristic_credits(puzzle, start, goal, [one_to_c, two_to_c]) == (0.5, 0.0)
