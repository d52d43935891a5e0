"""WCST environment: the streak and the rule schedule at their boundaries (hand-played episodes).

The streak c follows Hao et al.'s Algorithm 1: +1 on a correct sort, 0 on any other reply,
recorded as the criterion when a category completes and then reset. Under the fixed schedule
(Reflection-Bench) the rule changes every ``trials // 6`` trials whatever the player does, and
c restarts with the new rule. The oracle replies below read the hidden rule from the env.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.wcst import PARADIGM, WCSTEnv, WCSTParams


def correct_reply(env, info):
    rule = env.current_rule
    return next(str(k + 1) for k, o in enumerate(info["options"]) if o[rule] == info["card"][rule])


def wrong_reply(env, info):
    return "1" if correct_reply(env, info) != "1" else "2"


def play(params, seed, policy):
    """Play a whole episode; ``policy(trial)`` is True for a correct reply on that 1-based trial."""
    env = WCSTEnv(params)
    _, info = env.reset(seed=seed)
    done, trial = False, 1
    while not done:
        reply = correct_reply(env, info) if policy(trial) else wrong_reply(env, info)
        _, terminated, truncated, info = env.step(reply)
        done, trial = terminated or truncated, trial + 1
    return env.log


def test_fixed_schedule_streak_restarts_with_the_new_block_rule():
    # Reflection-Bench easy: blocks of 12. Wrong on 1-4, correct from 5 on: c = 8 at trial 12;
    # the rule changes after trial 12, so trial 13 starts a new streak: c = 1, 2, ... and the
    # first category completes on trial 22 (13 + 9), not on trial 14 (8 + 2 = 10).
    log = play(PARADIGM.make_params("reflection_bench"), 3, lambda t: t >= 5)
    assert [r["streak"] for r in log[3:14]] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2]
    assert log[12]["rule"] != log[11]["rule"] and log[12]["previous_rule"] == log[11]["rule"]
    completed = [r["trial"] for r in log if r["category_completed"]]
    assert completed[0] == 22


def test_fixed_schedule_completed_category_resets_the_streak_but_keeps_the_rule():
    # Correct from trial 1: c = 1..10, category on trial 10, then c = 1, 2 on trials 11-12
    # under the same rule (the fixed schedule ignores performance), new rule from trial 13.
    log = play(PARADIGM.make_params("reflection_bench"), 4, lambda t: True)
    assert [r["streak"] for r in log[:12]] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2]
    assert [r["trial"] for r in log if r["category_completed"]][:1] == [10]
    assert len({r["rule"] for r in log[:12]}) == 1
    assert log[12]["rule"] != log[0]["rule"]
    # 6 blocks of 12 correct sorts: one category per block (trial 10 of each), 6 in all.
    assert [r["trial"] for r in log if r["category_completed"]] == [10, 22, 34, 46, 58, 70]


def test_fixed_schedule_rule_follows_the_block_not_the_categories_on_the_last_block():
    # The last block (61-72) keeps one rule to the end, and the episode ends after trial 72.
    log = play(PARADIGM.make_params("reflection_bench"), 5, lambda t: t % 2 == 0)
    assert len(log) == 72
    assert len({r["rule"] for r in log[60:]}) == 1
    assert all(r["streak"] in (0, 1) for r in log)  # alternating replies never build a streak


def test_criterion_schedule_switches_only_on_a_completed_category():
    # wcst64: 9 correct, 1 wrong, 10 correct -> c = 1..9, 0, 1..10; the rule changes once,
    # after trial 20 (the completing answer is scored under the old rule).
    params = WCSTParams(trials=24, criterion=10)
    log = play(params, 6, lambda t: t != 10)
    assert [r["streak"] for r in log[:20]] == [*range(1, 10), 0, *range(1, 11)]
    assert len({r["rule"] for r in log[:20]}) == 1
    assert log[20]["rule"] != log[19]["rule"] and log[20]["previous_rule"] == log[19]["rule"]
    assert log[20]["streak"] == 1 and [r["trial"] for r in log if r["category_completed"]] == [20]


def test_criterion_schedule_has_a_rule_for_every_category_an_ideal_player_can_complete():
    # 26 // 4 = 6 categories (the last on trial 24), then trials 25-26 under a 7th rule: the
    # env must have drawn 26 // 4 + 1 = 7 rules, every switch to a different rule.
    log = play(WCSTParams(trials=26, criterion=4), 7, lambda t: True)
    completed = [r["trial"] for r in log if r["category_completed"]]
    assert completed == [4, 8, 12, 16, 20, 24]
    rules = [log[i]["rule"] for i in range(0, 26, 4)]
    assert len(rules) == 7
    assert all(a != b for a, b in zip(rules, rules[1:]))
