"""clembench's Reference Game: grid pools, distractors, the experiment cycle, reply parsing,
scoring, hostile replies and the reference players' exact scores."""

from __future__ import annotations

import json
import math
import re
import time

import numpy as np
import pytest

from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID
from lm_eval_cog.games.grids import EMPTY, MARK, distance, filled_cells, from_cells, nearest, render
from lm_eval_cog.games.reference import (
    CATEGORIES,
    PARADIGM,
    POOLS,
    ReferenceEnv,
    ReferenceParams,
    draw_instance,
    read_answer,
    read_expression,
    reference_metrics,
)
from lm_eval_cog.games.reference.instances import random_grids
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import Strategy, agent_rng
from lm_eval_cog.paradigms.chance import play

PARAMS = ReferenceParams()


def start(index: int = 0, seed: int = 0, params: ReferenceParams = PARAMS) -> tuple[ReferenceEnv, str, dict]:
    env = ReferenceEnv(params)
    message, info = env.reset(seed=seed, options={"index": index})
    return env, message, info


def play_indexed(policy: str, seed: int, index: int, params: ReferenceParams = PARAMS) -> ReferenceEnv:
    """An episode of a reference player at a given index (``chance.play`` always plays index 0)."""
    env, message, info = start(index, seed, params)
    agent = PARADIGM.make_agent(policy, params, agent_rng(seed))
    done = False
    while not done:
        message, terminated, truncated, info = env.step(agent.act(message, info))
        done = terminated or truncated
    return env


def metrics(env: ReferenceEnv) -> dict[str, float]:
    return reference_metrics(env.log, env.params)


def right_answer(info: dict) -> str:
    return f"Answer: {('first', 'second', 'third')[info['target_position']]}"


def wrong_answer(info: dict) -> str:
    return f"Answer: {('first', 'second', 'third')[(info['target_position'] + 1) % 3]}"


# ---------------------------------------------------------------- grid pools
def test_every_category_has_a_pool_of_at_least_ten_distinct_5x5_x_grids():
    assert set(POOLS) == set(CATEGORIES)
    for category, pool in POOLS.items():
        assert len(pool) >= 10 and len(set(pool)) == len(pool), category
        for grid in pool:
            assert len(grid) == 5 and all(len(row) == 5 for row in grid), category
            assert {cell for row in grid for cell in row} <= {EMPTY, MARK}, category
            assert filled_cells(grid), category


def test_row_and_column_pools_hold_exactly_the_1_and_2_full_line_grids():
    # 5 single lines + C(5, 2) = 10 pairs = 15 grids.
    rows = {tuple(r for r in range(5) if all(c == MARK for c in g[r])) for g in POOLS["line_grids_rows"]}
    assert len(POOLS["line_grids_rows"]) == 15 and len(rows) == 15
    for grid in POOLS["line_grids_rows"]:
        assert all(set(row) in ({MARK}, {EMPTY}) for row in grid)
    for grid in POOLS["line_grids_columns"]:
        columns = list(zip(*grid))
        assert all(set(col) in ({MARK}, {EMPTY}) for col in columns)
        assert 1 <= sum(set(col) == {MARK} for col in columns) <= 2


def test_diagonal_pool_holds_main_and_anti_diagonals_shifted_and_both_together():
    pool = POOLS["diagonal_grids"]
    main = from_cells((i, i) for i in range(5))
    anti = from_cells((i, 4 - i) for i in range(5))
    both = from_cells([(i, i) for i in range(5)] + [(i, 4 - i) for i in range(5)])
    shifted = from_cells((i, i + 1) for i in range(4))
    assert {main, anti, both, shifted} <= set(pool)
    assert len(pool) == 11


def test_random_pool_is_ten_grids_of_ten_xs_fixed_by_seed_123():
    pool = POOLS["random_grids"]
    assert len(pool) == 10 and all(len(filled_cells(g)) == 10 for g in pool)
    assert random_grids(123) == pool  # rebuilt from the same seed: identical
    assert random_grids(124) != pool  # the seed matters


def test_nearest_distractors_by_levenshtein_with_ties_broken_by_pool_order():
    pool = POOLS["line_grids_rows"]
    target = from_cells((0, c) for c in range(5))  # row 1 only
    # Grid strings are 5 lines of "c c c c c". Row 1 alone vs rows {1, k}: only row k differs,
    # 5 substitutions X<->▢ -> distance 5. Row 1 alone vs row k alone: rows 1 and k differ,
    # 10 substitutions -> distance 10. So the four grids {1, k} tie at 5 and the pool order
    # (singles first, then pairs (1,2), (1,3), ...) picks rows {1,2} and {1,3}.
    assert distance(target, from_cells([(0, c) for c in range(5)] + [(1, c) for c in range(5)])) == 5
    assert distance(target, from_cells((1, c) for c in range(5))) == 10
    first, second = nearest(target, pool, 2)
    assert first == from_cells([(r, c) for r in (0, 1) for c in range(5)])
    assert second == from_cells([(r, c) for r in (0, 2) for c in range(5)])


def test_drawn_instance_has_the_two_nearest_distractors_of_its_pool():
    for seed in range(30):
        for category in CATEGORIES:
            inst = draw_instance(np.random.default_rng(seed), category, 1)
            pool = POOLS[category]
            assert inst.target in pool and inst.target not in inst.distractors
            others = sorted(distance(inst.target, g) for g in pool if g != inst.target)
            assert sorted(distance(inst.target, d) for d in inst.distractors) == others[:2]
            assert inst.follower_grids()[1] == inst.target


# ---------------------------------------------------------------- experiment cycle and determinism
def test_experiment_all_cycles_categories_then_target_positions_over_18_episodes():
    for index in range(36):
        _, _, info = start(index, seed=index)
        assert info["experiment"] == CATEGORIES[index % 6]
        assert info["target_position"] == (index // 6) % 3
    positions = [start(i)[2]["target_position"] for i in range(18)]
    assert sorted(positions) == [0] * 6 + [1] * 6 + [2] * 6


def test_single_experiment_draws_the_target_position_from_the_episode_generator():
    params = ReferenceParams(experiment="shape_grids")
    seen = {start(0, seed, params)[2]["target_position"] for seed in range(40)}
    assert seen == {0, 1, 2}
    assert all(start(i, 5, params)[2]["experiment"] == "shape_grids" for i in range(7))


def test_same_seed_and_index_give_the_same_episode_and_other_seeds_other_targets():
    assert start(4, 11)[1] == start(4, 11)[1]
    targets = {start(3, seed)[1] for seed in range(10)}  # letter_grids: 14 letters
    assert len(targets) > 3


def test_giver_sees_target_first_and_follower_sees_it_at_its_position():
    env, message, info = start(index=8, seed=2)  # diagonal_grids, position (8 // 6) % 3 = 1
    inst = env.instance
    assert message.index(f"Target grid:\n{render(inst.target)}") < message.index("Distractor grid 1:")
    assert f"Distractor grid 1:\n{render(inst.distractors[0])}" in message
    assert f"Distractor grid 2:\n{render(inst.distractors[1])}" in message
    follower, done, _, info = env.step("Expression: the one with a diagonal\n\n")
    assert not done and info["role"] == "follower"
    assert f"Second grid:\n{render(inst.target)}" in follower
    assert f"First grid:\n{render(inst.distractors[0])}" in follower
    assert f"Third grid:\n{render(inst.distractors[1])}" in follower
    # The giver's whole reply, tag included (surrounding white space removed), is forwarded.
    assert "Expression: the one with a diagonal\n\nWhich grid" in follower


# ---------------------------------------------------------------- reading replies
@pytest.mark.parametrize("reply, content", [
    ("Expression: the cross", "the cross"),
    ("expression: the cross", "the cross"),
    ("EXPRESSION: THE CROSS", "THE CROSS"),
    ("Expression: a Expression: b", "a Expression: b"),  # two tags on one line: one expression
    ("Expression:\tthe cross", "the cross"),
    ("Expression: the cross\n\n", "the cross"),  # trailing line breaks only
])  # fmt: skip
def test_expression_lines_that_are_read(reply, content):
    assert read_expression(reply).content == content


@pytest.mark.parametrize("reply", [
    "", "   ", "the cross", "Expression:the cross", "Expression: ", "Sure! Expression: the cross",
    "Expression: the cross\nThis is unique.",
    "Expression: a\n\nExpression: b",  # two tags on two lines: a remainder
    "Еxpression: the cross",  # Cyrillic capital Ie
    "\x00Expression: the cross",
])  # fmt: skip
def test_expression_replies_that_are_not_read(reply):
    assert read_expression(reply) is None


@pytest.mark.parametrize("reply, written, position", [
    ("Answer: first", "first", 0),
    ("answer: SECOND", "SECOND", 1),
    ("ANSWER: third", "third", 2),
    ("Answer: 2", "2", 1),
    ("Answer: 1st", "1", 0),  # the alternation tries "1" before "1st"
    ("Answer: 3rd", "3", 2),
    ("Answer: First.", "First", 0),  # liberal: only the start must match
    ("Answer: third, because it has the cross", "third", 2),
    ("Answer: 12", "1", 0),  # liberal parsing reads the leading "1"
    ("Answer: second\nAnswer: first", "second", 1),  # two tags: the first decides
])  # fmt: skip
def test_answers_that_are_read_liberally_from_the_start(reply, written, position):
    assert read_answer(reply) == (written, position)


@pytest.mark.parametrize("reply", [
    "", "first", "Answer: fourth", "Answer:first", "The answer is: first", "Answer: the first one",
    "Аnswer: first",  # Cyrillic A
])  # fmt: skip
def test_answers_that_are_not_read(reply):
    assert read_answer(reply) is None


# ---------------------------------------------------------------- episodes and scores
def test_right_answer_wins_100_and_expression_extras_are_counted():
    env, _, _ = start(index=0, seed=1)
    _, done, _, info = env.step("Expression: the big cross")
    _, done, truncated, _ = env.step(right_answer(info))
    assert done and not truncated and env.log[-1]["outcome"] == SUCCESS
    m = metrics(env)
    # "the big cross": 13 characters, "the" "big" "cross" = 3 tokens.
    assert m["expression_length"] == 13.0 and m["expression_tokens"] == 3.0
    assert (m["main_score"], m["clemscore"], m["success"], m["lose"], m["aborted"]) == (100.0, 100.0, 1.0, 0.0, 0.0)
    assert (m["request_count"], m["parsed_request_count"], m["request_success_ratio"]) == (2.0, 2.0, 1.0)
    assert (m["aborted_at_giver"], m["aborted_at_follower"]) == (0.0, 0.0)


def test_wrong_answer_is_a_loss_scoring_0():
    env, _, _ = start(index=1, seed=1)
    _, _, _, info = env.step("Expression: the one with  two columns")
    env.step(wrong_answer(info))
    m = metrics(env)
    assert env.log[-1]["outcome"] == LOSE
    assert (m["main_score"], m["success"], m["lose"], m["aborted"], m["played"]) == (0.0, 0.0, 1.0, 0.0, 1.0)
    # "the one with  two columns": 25 characters; split on single spaces: the, one, with, '', two,
    # columns = 6 pieces (clembench's count).
    assert m["expression_length"] == 25.0 and m["expression_tokens"] == 6.0


def test_giver_without_tag_aborts_before_the_follower_and_is_not_a_loss():
    env, _, _ = start(index=2, seed=1)
    message, done, truncated, info = env.step("The target is the diagonal one.")
    assert done and not truncated and info["role"] == "giver"
    assert [r["role"] for r in env.log if r["type"] == "move"] == ["giver"]
    assert env.log[0]["status"] == INVALID and env.log[-1]["outcome"] == ABORTED
    m = metrics(env)
    assert math.isnan(m["main_score"]) and m["lose"] == 0.0 and m["aborted"] == 1.0  # clembench set Lose = 1
    assert (m["request_count"], m["parsed_request_count"], m["request_success_ratio"]) == (1.0, 0.0, 0.0)
    assert (m["aborted_at_giver"], m["aborted_at_follower"]) == (1.0, 0.0)
    assert math.isnan(m["expression_length"]) and math.isnan(m["expression_tokens"])
    with pytest.raises(RuntimeError):
        env.step("Answer: first")


def test_unreadable_answer_aborts_at_the_follower():
    env, _, _ = start(index=3, seed=1)
    env.step("Expression: the letter H")
    _, done, _, _ = env.step("Answer: fourth")
    m = metrics(env)
    assert done and env.log[-1]["outcome"] == ABORTED
    assert math.isnan(m["main_score"]) and m["lose"] == 0.0 and m["clemscore"] == 0.0
    # 2 requests, 1 parsed: ratio 1/2.
    assert (m["request_count"], m["parsed_request_count"], m["request_success_ratio"]) == (2.0, 1.0, 0.5)
    assert (m["aborted_at_giver"], m["aborted_at_follower"]) == (0.0, 1.0)
    assert m["expression_length"] == len("the letter H") == 12.0


HUGE = "x" * 100_000


@pytest.mark.parametrize("reply, outcome", [
    ("", ABORTED),
    ("   \n\t ", ABORTED),
    ("the cross", ABORTED),  # no tag
    ("Expression: a\nExpression: b", ABORTED),  # two tags on two lines
    ("Expression: a Expression: b", "played"),  # two tags on one line: read as one expression
    ("EXPRESSION: the cross", "played"),
    ("expression: the cross", "played"),
    ("Expression: " + HUGE, "played"),  # one 100 kB line is one (long) expression
    (HUGE, ABORTED),
    ("Expression: " + "a\n" * 50_000, ABORTED),
    ("Еxpression: the cross", ABORTED),  # Cyrillic look-alike
    ("\x00\x07Expression: the cross", ABORTED),
])  # fmt: skip
def test_hostile_giver_replies(reply, outcome):
    env, _, _ = start(index=5, seed=3)
    started = time.perf_counter()
    _, done, _, _ = env.step(reply)
    assert time.perf_counter() - started < 1.0  # linear parsing
    if outcome == ABORTED:
        assert done and env.log[-1]["outcome"] == ABORTED and env.log[0]["status"] == INVALID
    else:
        assert not done and env.log[0]["status"] == VALID and env.due == "follower"
    json.dumps(env.log, allow_nan=False)


@pytest.mark.parametrize("reply, outcome", [
    ("Answer: {right}.", SUCCESS),  # "Answer: First." is read
    ("answer: {right}", SUCCESS),
    ("ANSWER: {RIGHT}", SUCCESS),
    ("Answer: {right}\nAnswer: {wrong}", SUCCESS),  # two tags: the start decides
    ("Answer: {wrong}", LOSE),
    ("Answer: fourth", ABORTED),
    ("{right}", ABORTED),
    ("", ABORTED),
    ("Answer: " + HUGE, ABORTED),
    ("Answer: {right} " + HUGE, SUCCESS),
    ("Аnswer: {right}", ABORTED),  # Cyrillic A
    ("\x00", ABORTED),
])  # fmt: skip
def test_hostile_follower_replies(reply, outcome):
    env, _, _ = start(index=4, seed=3)
    _, _, _, info = env.step("Expression: the plus sign")
    right = ("first", "second", "third")[info["target_position"]]
    wrong = ("first", "second", "third")[(info["target_position"] + 2) % 3]
    started = time.perf_counter()
    _, done, _, _ = env.step(reply.format(right=right, RIGHT=right.upper(), wrong=wrong))
    assert time.perf_counter() - started < 1.0
    assert done and env.log[-1]["outcome"] == outcome
    json.dumps(env.log, allow_nan=False)


# ---------------------------------------------------------------- reference players
@pytest.mark.parametrize("seed", range(4))
def test_optimal_player_wins_every_category_and_position_with_100(seed):
    for index in range(18):
        env = play_indexed("optimal", seed, index)
        m = metrics(env)
        assert (m["main_score"], m["success"], m["request_count"]) == (100.0, 1.0, 2.0), index


def test_optimal_expression_lists_exactly_the_targets_filled_cells():
    env, message, info = start(index=3, seed=7)
    agent = PARADIGM.make_agent("optimal", PARAMS, agent_rng(7))
    expression = agent.act(message, info)
    assert expression.startswith("Expression: ")
    cells = [(int(r) - 1, int(c) - 1) for r, c in re.findall(r"\(row (\d), column (\d)\)", expression)]
    assert from_cells(cells) == env.instance.target
    assert all(from_cells(cells) != d for d in env.instance.distractors)


@pytest.mark.parametrize("seed", range(4))
def test_rule_breaker_aborts_at_the_giver(seed):
    env = play(PARADIGM, PARAMS, seed, "rule_breaker")
    m = metrics(env)
    assert m["aborted"] == 1.0 and m["request_count"] == 1.0 and m["aborted_at_giver"] == 1.0
    assert math.isnan(m["main_score"]) and m["clemscore"] == 0.0


def test_random_follower_scores_0_or_100_pinned_per_seed_and_about_a_third_overall():
    # Index 0 puts the target first; the follower names position agent_rng(seed).integers(3),
    # which is 1, 1, 0, 2, 1, 0, 0, 2 for seeds 0-7: it wins (100) exactly on seeds 2, 5 and 6.
    scores = [metrics(play(PARADIGM, PARAMS, seed, "random"))["main_score"] for seed in range(8)]
    assert [int(agent_rng(seed).integers(3)) for seed in range(8)] == [1, 1, 0, 2, 1, 0, 0, 2]
    assert scores == [0.0, 0.0, 100.0, 0.0, 0.0, 100.0, 100.0, 0.0]
    many = [metrics(play_indexed("random", seed, seed))["main_score"] for seed in range(300)]
    assert set(many) == {0.0, 100.0}
    assert 100 / 3 - 10 < np.mean(many) < 100 / 3 + 10  # chance 1/3; SE of the mean is 2.7


def test_there_is_no_slow_winner_in_a_one_exchange_game():
    assert set(PARADIGM.policies()) == {"optimal", "random", "rule_breaker", "first_always", "heuristic"}


# ---------------------------------------------------------------- contract
def test_parameters_are_validated_by_name():
    with pytest.raises(ValueError, match="'strategy'"):
        ReferenceParams(strategy="cot")
    with pytest.raises(ValueError, match="'experiment'.*Did you mean: shape_grids"):
        ReferenceParams(experiment="shape_grid")
    with pytest.raises(ValueError, match="'max_turns'"):
        ReferenceParams(max_turns=1)
    assert PARADIGM.make_params(strategy=Strategy.DIRECT).strategy == "direct"
    assert get_paradigm("reference") is PARADIGM


def test_episode_never_reaches_max_turns_and_steps_outside_an_episode_raise():
    env = ReferenceEnv(ReferenceParams(max_turns=2))
    with pytest.raises(RuntimeError):
        env.step("Expression: x")
    env.reset(seed=0)
    _, _, truncated, info = env.step("Expression: x")
    _, done, truncated, _ = env.step(right_answer(info))
    assert done and not truncated
    with pytest.raises(RuntimeError):
        env.step("Answer: first")


def test_log_is_strict_json_and_metrics_keys_match_the_specs_and_survive_a_round_trip():
    names = {s.name for s in PARADIGM.metric_specs}
    for policy in ("optimal", "random", "rule_breaker"):
        env = play(PARADIGM, PARAMS, 5, policy)
        m = metrics(env)
        assert set(m) == names
        again = reference_metrics(json.loads(json.dumps(env.log, allow_nan=False)), PARAMS)
        assert all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(m.values(), again.values()))
    empty = reference_metrics([], PARAMS)
    assert all(math.isnan(empty[k]) for k in ("expression_length", "aborted_at_giver", "aborted_at_follower"))


def test_the_first_always_follower_wins_exactly_the_episodes_whose_target_is_shown_first():
    # Index i plays category i mod 6 with the target at position (i // 6) mod 3: of 18 episodes,
    # the 6 with i // 6 == 0 show it first -> mean main score 6 * 100 / 18 = 100/3.
    scores = []
    for index in range(18):
        env = PARADIGM.env_cls(PARADIGM.make_params())
        message, info = env.reset(seed=5, options={"index": index})
        agent = PARADIGM.make_agent("heuristic", env.params, np.random.default_rng(0))
        done = False
        while not done:
            message, terminated, truncated, info = env.step(agent.act(message, info))
            done = terminated or truncated
        scores.append(PARADIGM.metrics(env.log, env.params)["main_score"])
    assert scores == [100.0 if index < 6 else 0.0 for index in range(18)]
    assert sum(scores) / len(scores) == pytest.approx(100 / 3)
