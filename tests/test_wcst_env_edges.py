"""Edges of the WCST environment (``paradigms.wcst.env``) that mutation testing found unpinned.

Card descriptions that name no key card, the fixed schedule at the very last trial,
parameters normalised to plain ints and their exact error messages, and the guard of
``_reset`` outside ``reset()``.
"""

from __future__ import annotations

import numpy as np
import pytest

from lm_eval_cog.paradigms.wcst import KEY_CARDS, WCSTEnv, WCSTParams
from lm_eval_cog.paradigms.wcst.env import card_text, find_choices


def test_counted_description_must_match_one_key_card_on_colour_and_shape_both():
    # "two red stars": red is key card 1's colour (one red triangle), stars key card 2's
    # shape (two green stars), and two is key card 2's count. No key card is a red star,
    # so it names none (it must not become card 2 by shape and count).
    assert find_choices("two red stars", KEY_CARDS) == []
    # "two green stars" is key card 2 itself (index 1), at position 0.
    assert find_choices("two green stars", KEY_CARDS) == [(0, 1)]


def test_fixed_schedule_does_not_advance_the_rule_after_the_last_trial():
    # Reflection-Bench: 72 trials in blocks of 12. Trial 72 ends a block, but there is no
    # trial 73: the rule in force stays that of the last block.
    env = WCSTEnv(WCSTParams(trials=72, criterion=10, schedule="fixed"))
    env.reset(seed=0)
    for _ in range(72):
        env.step("1")
    assert env.current_rule == env.log[-1]["rule"]
    assert env.log[-1]["rule"] != env.log[-13]["rule"]  # trial 60 was the block before


def test_params_store_numpy_integers_as_plain_ints():
    p = WCSTParams(trials=np.int64(12), criterion=np.int32(3))
    assert (p.trials, p.criterion) == (12, 3)
    assert type(p.trials) is int and type(p.criterion) is int


def test_one_trial_and_criterion_one_are_valid():
    p = WCSTParams(trials=1, criterion=1)
    assert (p.trials, p.criterion) == (1, 1)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("trials", 0, "wcst parameter 'trials' must be a positive int, got 0"),
        ("criterion", 0, "wcst parameter 'criterion' must be a positive int, got 0"),
        ("schedule", "weekly", "wcst parameter 'schedule' must be one of criterion, fixed, got 'weekly'"),
        ("deck", "tarot", "wcst parameter 'deck' must be one of fixed_keys, per_trial_options, got 'tarot'"),
    ],
)
def test_bad_parameter_message_names_the_parameter_the_allowed_values_and_the_value(field, value, message):
    with pytest.raises(ValueError) as err:
        WCSTParams(**{field: value})
    assert str(err.value) == message


def test_reset_internals_refuse_to_run_without_reset():
    # _reset draws from self.rng, which only Env.reset(seed=...) creates.
    with pytest.raises(RuntimeError, match=r"^WCSTEnv\._reset\(\) called outside reset\(\)$"):
        WCSTEnv(WCSTParams())._reset({})


def test_a_reply_describing_an_option_is_read_against_that_trials_options():
    # Kennedy deck: the options change every trial. Describing option 3 of trial 1 by its
    # count, colour and shape ("Answer: two red stars" or the like) chooses option 3 (index 2).
    env = WCSTEnv(WCSTParams(trials=25, criterion=6, deck="per_trial_options"))
    _, info = env.reset(seed=0)
    env.step(f"Answer: {card_text(info['options'][2])}")
    assert (env.log[0]["choice"], env.log[0]["parse"]) == (2, "answer_line")
