"""WCST environment: params, seeding, messages, scoring of trials, reply parsing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lm_eval_cog.paradigms.base import AMBIGUOUS, NO_ANSWER, ParseFailure, Strategy
from lm_eval_cog.paradigms.wcst import (
    KEY_CARDS,
    PARADIGM,
    UNAMBIGUOUS_CARDS,
    WCSTEnv,
    WCSTParams,
    find_choices,
    parse_reply,
)
from lm_eval_cog.paradigms.wcst.cards import matched_dimensions
from lm_eval_cog.paradigms.wcst.env import (
    CLOSING,
    EXCLUSIVITY_SENTENCE,
    FEEDBACK_CORRECT,
    FEEDBACK_INCORRECT,
    FEEDBACK_INVALID,
    card_text,
)

LOG_FIELDS = {
    "trial",
    "rule",
    "previous_rule",
    "card",
    "options",
    "choice",
    "invalid",
    "parse",
    "matched",
    "outcome",
    "streak",
    "category_completed",
    "feedback",
}


def correct_reply(env, info):
    """The card number that is correct under the env's hidden rule (test oracle)."""
    rule = env.current_rule
    for k, option in enumerate(info["options"]):
        if option[rule] == info["card"][rule]:
            return str(k + 1)
    raise AssertionError("no correct option")


def wrong_reply(env, info):
    """A valid card number that is incorrect under the hidden rule."""
    good = correct_reply(env, info)
    return "1" if good != "1" else "2"


def play(params, seed, replies):
    """Run an episode with scripted replies; return (env, messages, infos)."""
    env = WCSTEnv(params)
    message, info = env.reset(seed=seed)
    messages, infos = [message], [info]
    for reply in replies:
        message, terminated, truncated, info = env.step(reply)
        messages.append(message)
        infos.append(info)
        if terminated or truncated:
            break
    return env, messages, infos


# ----------------------------------------------------------------------------- params


def test_params_defaults_are_wcst64():
    """WCSTParams() is Hao et al.'s WCST-64 with cot prompting."""
    p = WCSTParams()
    assert (p.trials, p.criterion, p.schedule, p.deck, p.strategy) == (
        64,
        10,
        "criterion",
        "fixed_keys",
        Strategy.COT,
    )
    assert p.max_turns == 64
    assert PARADIGM.presets["wcst64"] == p


def test_params_presets_match_protocols():
    """kennedy: 25 trials / switch after 6 / per-trial options; reflection_bench: 72 trials, fixed blocks."""
    k = PARADIGM.make_params("kennedy")
    assert (k.trials, k.criterion, k.schedule, k.deck) == (25, 6, "criterion", "per_trial_options")
    r = PARADIGM.make_params("reflection_bench")
    assert (r.trials, r.schedule, r.deck, r.block_length) == (72, "fixed", "fixed_keys", 12)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("trials", 0),
        ("trials", -3),
        ("trials", 2.5),
        ("trials", True),
        ("criterion", 0),
        ("schedule", "random"),
        ("deck", "classic"),
        ("exclusivity_hint", "yes"),
        ("strategy", "sometimes"),
    ],
)
def test_params_bad_value_raises_naming_parameter(field, value):
    """A bad value is a ValueError whose message names the parameter and the value."""
    with pytest.raises(ValueError, match=field) as err:
        PARADIGM.make_params("wcst64", overrides={field: value})
    assert repr(value) in str(err.value) or str(value) in str(err.value)


def test_params_fixed_schedule_needs_trials_multiple_of_six():
    """Each rule is used twice in equal blocks: trials must split into 6 blocks."""
    with pytest.raises(ValueError, match="'trials' must be a multiple of 6"):
        PARADIGM.make_params("reflection_bench", overrides={"trials": 70})
    assert PARADIGM.make_params("reflection_bench", overrides={"trials": 90}).block_length == 15


def test_params_strategy_string_is_coerced():
    """The glue passes strategies as strings."""
    assert PARADIGM.make_params("kennedy", strategy="direct").strategy is Strategy.DIRECT


def test_make_params_unknown_preset_or_override_errors_with_suggestion():
    """Unknown names fail with the allowed names (and close matches)."""
    with pytest.raises(ValueError, match="Unknown wcst preset 'wcst65'. Did you mean: wcst64"):
        PARADIGM.make_params("wcst65")
    with pytest.raises(ValueError, match="Unknown wcst parameter 'trial'. Did you mean: trials"):
        PARADIGM.make_params("wcst64", overrides={"trial": 10})


# ----------------------------------------------------------------------------- seeding


def test_env_same_seed_gives_identical_prompt_stimuli_and_messages():
    """Same seed and same replies -> identical system prompt, messages and log."""
    params = PARADIGM.make_params("kennedy")
    replies = ["1", "Answer: 2", "nonsense", "3", "4"] * 5
    a, ma, _ = play(params, 7, replies)
    b, mb, _ = play(params, 7, replies)
    assert a.system_prompt == b.system_prompt
    assert ma == mb
    assert a.log == b.log


def test_env_different_seeds_give_different_stimuli():
    """Different seeds draw different cards (and, over seeds, different rule orders)."""
    params = WCSTParams()
    logs = [play(params, seed, ["1"] * 64)[0].log for seed in range(10)]
    cards = {json.dumps([r["card"] for r in log]) for log in logs}
    assert len(cards) == 10
    assert len({log[0]["rule"] for log in logs}) > 1


def test_env_stimuli_do_not_depend_on_replies():
    """Cards are drawn up front from the seed: replies change outcomes, not stimuli."""
    params = WCSTParams()
    a = play(params, 3, ["1"] * 64)[0].log
    b = play(params, 3, ["4", "x", "2"] * 22)[0].log
    assert [r["card"] for r in a] == [r["card"] for r in b]


# ----------------------------------------------------------------------------- messages


def test_env_first_message_is_stimulus_and_system_prompt_has_instructions():
    """Turn 1: instructions in the system prompt, first card in the user message."""
    env = WCSTEnv(WCSTParams())
    message, info = env.reset(seed=0)
    assert message.startswith(f"Your card: {card_text(info['card'])}.")
    for k, key in enumerate(KEY_CARDS):
        assert f"Card {k + 1}: {card_text(key)}" in env.system_prompt
    assert "number of shapes, the color of the shapes, or the shape type itself" in env.system_prompt
    assert EXCLUSIVITY_SENTENCE in env.system_prompt
    assert "without warning" in env.system_prompt
    assert "Answer: <your choice>" in env.system_prompt  # cot instruction
    assert info["choices"] == ["1", "2", "3", "4"]
    assert info["trial"] == 1 and info["last_outcome"] is None and info["last_choice"] is None


def test_env_exclusivity_hint_can_be_switched_off():
    """Table III ablation: the exclusivity sentence is removed."""
    env = WCSTEnv(PARADIGM.make_params("wcst64", overrides={"exclusivity_hint": False}))
    env.reset(seed=0)
    assert EXCLUSIVITY_SENTENCE not in env.system_prompt
    assert "shape type itself" in env.system_prompt


def test_env_per_trial_options_are_listed_in_each_message():
    """kennedy: each stimulus lists its four options."""
    env = WCSTEnv(PARADIGM.make_params("kennedy"))
    message, info = env.reset(seed=0)
    for k, option in enumerate(info["options"]):
        assert f"Option {k + 1}: {card_text(option)}" in message


def test_env_info_never_reveals_rule():
    """Agents get stimuli and their last outcome only."""
    env = WCSTEnv(WCSTParams())
    _, info = env.reset(seed=0)
    assert set(info) == {"choices", "card", "options", "trial", "last_outcome", "last_choice"}
    assert "rule" not in json.dumps(info)


def test_env_feedback_and_next_stimulus_share_one_message_and_last_is_closing_only():
    """Later messages = feedback + next card; after the last trial, closing feedback only."""
    params = WCSTParams(trials=3, criterion=2)
    env = WCSTEnv(params)
    message, info = env.reset(seed=1)
    message, terminated, truncated, info = env.step(correct_reply(env, info))
    assert message.startswith(FEEDBACK_CORRECT + "\n\nYour card: ")
    assert not terminated and not truncated
    message, terminated, truncated, info = env.step(wrong_reply(env, info))
    assert message.startswith(FEEDBACK_INCORRECT + "\n\nYour card: ")
    message, terminated, truncated, info = env.step("1")
    assert terminated and not truncated
    assert message.endswith(CLOSING) and "Your card" not in message
    assert info["card"] is None
    with pytest.raises(RuntimeError):
        env.step("1")


def test_env_step_before_reset_raises():
    """Gymnasium order enforcing (base class)."""
    with pytest.raises(RuntimeError):
        WCSTEnv(WCSTParams()).step("1")


# ----------------------------------------------------------------------------- trial scoring


def test_env_answer_completing_category_is_reported_correct_and_rule_switches_after():
    """Anchor bug #1: the criterion-th correct answer is scored before the switch."""
    params = WCSTParams(trials=20, criterion=10)
    env = WCSTEnv(params)
    message, info = env.reset(seed=5)
    first_rule = env.current_rule
    for _ in range(10):
        message, _, _, info = env.step(correct_reply(env, info))
    tenth = env.log[-1]
    assert tenth["outcome"] == "correct" and tenth["feedback"] == FEEDBACK_CORRECT
    assert message.startswith(FEEDBACK_CORRECT)
    assert tenth["rule"] == first_rule and tenth["category_completed"] and tenth["streak"] == 10
    assert env.current_rule != first_rule  # switched, to a different rule
    env.step(correct_reply(env, info))
    eleventh = env.log[-1]
    assert eleventh["rule"] != first_rule and eleventh["previous_rule"] == first_rule
    assert eleventh["streak"] == 1 and not eleventh["category_completed"]


def test_env_invalid_reply_is_invalid_outcome_breaks_streak_and_explains_form():
    """An unreadable reply: outcome invalid, choice None, c <- 0, told the expected form."""
    env = WCSTEnv(PARADIGM.make_params("wcst64", strategy="direct"))
    message, info = env.reset(seed=2)
    for _ in range(4):
        message, _, _, info = env.step(correct_reply(env, info))
    assert env.log[-1]["streak"] == 4
    message, terminated, _, info = env.step("I would rather not say.")
    r = env.log[-1]
    assert (r["outcome"], r["choice"], r["invalid"], r["matched"], r["streak"]) == (
        "invalid",
        None,
        NO_ANSWER,
        None,
        0,
    )
    assert message.startswith(FEEDBACK_INVALID[NO_ANSWER]) and "1-4" in message
    assert not terminated and info["last_outcome"] == "invalid" and info["last_choice"] is None
    env.step("1 or 2")
    assert env.log[-1]["invalid"] == AMBIGUOUS
    assert env.log[-1]["feedback"] == FEEDBACK_INVALID[AMBIGUOUS]


def test_env_log_records_have_documented_json_fields():
    """Each record holds exactly the documented plain-JSON fields; matched is the chosen card's match."""
    env, _, _ = play(PARADIGM.make_params("kennedy"), 0, ["1", "2", "3", "4", "?"] * 5)
    assert len(env.log) == 25
    for r in env.log:
        assert set(r) == LOG_FIELDS
        assert json.loads(json.dumps(r)) == r
        if r["choice"] is not None:
            dims = matched_dimensions(r["card"], r["options"][r["choice"]])
            assert r["matched"] == (dims[0] if dims else None)
            assert (r["outcome"] == "correct") == (r["matched"] == r["rule"])


def test_env_fixed_keys_draws_only_unambiguous_cards():
    """Each test card matches the three key cards by shape, colour and number respectively."""
    assert len(UNAMBIGUOUS_CARDS) == 24
    env, _, _ = play(WCSTParams(), 11, ["2"] * 64)
    for r in env.log:
        assert r["card"] in list(UNAMBIGUOUS_CARDS)
        owners = [[k for k, o in enumerate(r["options"]) if o[d] == r["card"][d]] for d in ("colour", "shape", "number")]
        assert all(len(o) == 1 for o in owners) and len({o[0] for o in owners}) == 3


def test_env_kennedy_options_match_once_per_dimension_and_one_matches_nothing():
    """Per-trial options: one by shape only, one by colour only, one by number only, one by nothing."""
    for seed in range(20):
        env, _, _ = play(PARADIGM.make_params("kennedy"), seed, ["1"] * 25)
        for r in env.log:
            matches = sorted(tuple(matched_dimensions(r["card"], o)) for o in r["options"])
            assert matches == [(), ("colour",), ("number",), ("shape",)]


def test_env_reflection_bench_rule_changes_every_12_trials_each_rule_twice():
    """Fixed schedule: 6 blocks of 12 trials, each rule twice, consecutive blocks differ."""
    params = PARADIGM.make_params("reflection_bench")
    orders = set()
    for seed in range(10):
        env, _, _ = play(params, seed, ["3"] * 72)
        rules = [r["rule"] for r in env.log]
        blocks = [rules[b * 12 : (b + 1) * 12] for b in range(6)]
        assert all(len(set(block)) == 1 for block in blocks)
        block_rules = [block[0] for block in blocks]
        assert sorted(block_rules) == sorted(["colour", "shape", "number"] * 2)
        assert all(a != b for a, b in zip(block_rules, block_rules[1:]))
        assert env.log[12]["previous_rule"] == block_rules[0]
        orders.add(tuple(block_rules))
    assert len(orders) > 1


def test_env_criterion_schedule_switches_to_a_different_rule_each_time():
    """Every category is followed by a different rule; previous_rule tracks the last category."""
    params = WCSTParams()
    for seed in range(10):
        env = WCSTEnv(params)
        message, info = env.reset(seed=seed)
        done = False
        while not done:
            message, terminated, truncated, info = env.step(correct_reply(env, info))
            done = terminated or truncated
        assert sum(r["category_completed"] for r in env.log) == 6  # trials 10, 20, ..., 60
        for a, b in zip(env.log, env.log[1:]):
            if a["category_completed"]:
                assert b["rule"] != a["rule"] and b["previous_rule"] == a["rule"]
            else:
                assert b["rule"] == a["rule"]


# ----------------------------------------------------------------------------- parsing

OPTS = [dict(k) for k in KEY_CARDS]


@pytest.mark.parametrize(
    ("reply", "strategy", "expected"),
    [
        ("2", Strategy.DIRECT, 1),
        ("Card 3", Strategy.DIRECT, 2),
        ("Answer: 4", Strategy.DIRECT, 3),
        ("**2**", Strategy.DIRECT, 1),
        ("Card 2.", Strategy.DIRECT, 1),
        ("card two", Strategy.DIRECT, 1),
        ("two green stars", Strategy.DIRECT, 1),
        ("Card 2: two green stars", Strategy.DIRECT, 1),
        ("blue circles", Strategy.DIRECT, 3),
        (
            "The card is three red stars. Card 1 matches by colour, card 2 by shape and card 3 "
            "by number. The rule was colour last time, so I keep it.\nAnswer: 1",
            Strategy.COT,
            0,
        ),
        ("Card 1 has the same colour... I will pick card 4.", Strategy.COT, 3),
        ("Answer: 3 (three yellow crosses)", Strategy.COT, 2),
    ],
)
def test_parse_reply_reads_card_number(reply, strategy, expected):
    """Digits 1-4, 'card N', and descriptions naming one key card are read."""
    assert parse_reply(reply, strategy, OPTS) == expected


@pytest.mark.parametrize(
    ("reply", "strategy", "code"),
    [
        ("", Strategy.DIRECT, NO_ANSWER),
        ("   ", Strategy.COT, NO_ANSWER),
        ("I am not sure.", Strategy.DIRECT, NO_ANSWER),
        ("2 or 3", Strategy.DIRECT, AMBIGUOUS),
        ("Answer: 1 or 2", Strategy.COT, AMBIGUOUS),
        ("5", Strategy.DIRECT, NO_ANSWER),
        ("12", Strategy.DIRECT, NO_ANSWER),
        ("1.5", Strategy.DIRECT, NO_ANSWER),
    ],
)
def test_parse_reply_invalid_reply_is_parse_failure(reply, strategy, code):
    """Empty, choice-free and two-choice replies are ParseFailures with a stable code."""
    result = parse_reply(reply, strategy, OPTS)
    assert isinstance(result, ParseFailure) and result.code == code


def test_find_choices_ignores_test_card_description_and_counts_in_descriptions():
    """The test card's own description and the counts inside descriptions are not card numbers."""
    # "three red stars" is no key card (red = card 1, stars = card 2): no mention.
    assert find_choices("three red stars", OPTS) == []
    # "3 red stars": the 3 is a count, not card 3.
    assert find_choices("I see 3 red stars", OPTS) == []
    # A count that disagrees with the key card is not that key card.
    assert find_choices("three green stars", OPTS) == []


def test_find_choices_per_trial_options_description_maps_to_its_position():
    """kennedy: 'four yellow crosses' is the option at its listed position, not digit 4."""
    options = [
        {"shape": "circle", "colour": "green", "number": 4},
        {"shape": "cross", "colour": "yellow", "number": 3},
        {"shape": "star", "colour": "red", "number": 2},
        {"shape": "triangle", "colour": "blue", "number": 1},
    ]
    assert parse_reply("Answer: 3 yellow crosses", Strategy.DIRECT, options) == 1
    assert parse_reply("Option 3", Strategy.DIRECT, options) == 2


def test_env_junk_replies_never_crash_and_without_digits_are_invalid():
    """Junk replies are data: the env records them and goes on."""
    env = WCSTEnv(WCSTParams(strategy="direct"))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(64):
        junk = "".join(chr(int(c)) for c in rng.integers(32, 127, size=int(rng.integers(0, 40))))
        env.step(junk.replace("1", "").replace("2", "").replace("3", "").replace("4", ""))
    assert len(env.log) == 64
    assert all(r["outcome"] == "invalid" for r in env.log)
