"""WCST reference agents: ideal observer ceiling, perseverative heuristic, chance."""

from __future__ import annotations

import numpy as np
import pytest

from lm_eval_cog.paradigms.wcst import PARADIGM, WCSTEnv, wcst_metrics


def run_episode(policy, params, seed):
    """One episode of a scripted agent; returns (metrics, log)."""
    env = WCSTEnv(params)
    message, info = env.reset(seed=seed)
    agent = PARADIGM.make_agent(policy, params, np.random.default_rng([seed, 1]))
    done = False
    while not done:
        message, terminated, truncated, info = env.step(agent.act(message, info))
        done = terminated or truncated
    return wcst_metrics(env.log, params), env.log


@pytest.mark.parametrize("strategy", ["direct", "cot"])
def test_optimal_agent_wcst64_completes_5_categories_with_5_perseverative_errors(strategy):
    """Ideal player on wcst64: CC = 5, PE = 5 (one per switch), TFC in 10..12, every episode."""
    params = PARADIGM.make_params("wcst64", strategy=strategy)
    for seed in range(30):
        m, log = run_episode("optimal", params, seed)
        assert m["categories_completed"] == 5.0, seed
        assert m["perseverative_errors"] == 5.0, seed
        assert 10 <= m["trials_to_first_category"] <= 12, seed
        assert m["failure_to_maintain_set"] == 0.0 and m["invalid_rate"] == 0.0
        errors = [r["trial"] for r in log if r["outcome"] != "correct"]
        assert len(errors) <= 2 + 2 * 5  # <= 2 before the first category, 1 + <= 1 after each switch


def test_optimal_agent_kennedy_completes_3_categories():
    """25 trials, criterion 6: <= 8 trials per category, so exactly 3 categories and 3 switches."""
    params = PARADIGM.make_params("kennedy")
    for seed in range(30):
        m, _ = run_episode("optimal", params, seed)
        assert m["categories_completed"] == 3.0
        assert m["perseverative_errors"] == 3.0
        assert 6 <= m["trials_to_first_category"] <= 8


def test_optimal_agent_reflection_bench_completes_every_block():
    """Fixed 12-trial blocks: <= 2 errors per block leaves 10 correct, one category per block."""
    params = PARADIGM.make_params("reflection_bench")
    for seed in range(30):
        m, _ = run_episode("optimal", params, seed)
        assert m["categories_completed"] == 6.0
        assert m["perseverative_errors"] == 5.0  # first trial of blocks 2-6
        assert m["acc"] >= (72 - 2 * 6) / 72


def test_perseverative_agent_keeps_first_rewarded_rule():
    """After the first category it keeps sorting by the old rule: 1 category, mostly PE."""
    params = PARADIGM.make_params("wcst64")
    for seed in range(10):
        m, log = run_episode("perseverative", params, seed)
        assert m["categories_completed"] == 1.0
        first_rule = log[0]["rule"]
        later = [r for r in log if r["previous_rule"] is not None]
        assert all(r["matched"] == first_rule for r in later)
        assert m["perseverative_errors"] == len(later)  # every post-switch sort is a PE
        assert m["acc"] == pytest.approx(10 / 64)


def test_random_agent_accuracy_is_near_chance():
    """Uniform choice among 4 cards, exactly one correct: acc ~ 0.25 (200 episodes)."""
    params = PARADIGM.make_params("wcst64", strategy="direct")
    accs = [run_episode("random", params, seed)[0]["acc"] for seed in range(200)]
    assert abs(float(np.mean(accs)) - 0.25) < 0.03


def test_make_agent_unknown_policy_lists_allowed():
    """Unknown policies fail with the allowed names."""
    with pytest.raises(ValueError, match="Allowed: heuristic, optimal, perseverative, random"):
        PARADIGM.make_agent("genius", PARADIGM.make_params(), np.random.default_rng(0))
