"""Edges of the shared paradigm contract (``paradigms.base``) that mutation testing found unpinned.

Reply reading at its boundaries (empty replies, an answer line naming exactly two
choices, trailing line breaks and stops in the last-sentence rule), the keyword finder,
the parameter validators' messages, the seed derivation's range checks, and the
``Env`` life cycle (initial state, options handed to ``_reset``, truncation at exactly
``max_turns``). Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import (
    AMBIGUOUS,
    NO_ANSWER,
    Env,
    ParseFailure,
    ParsePath,
    Reading,
    Strategy,
    coerce_strategy,
    episode_seed,
    extract_choice,
    keyword_finder,
    last_sentence_start,
    read_choice,
    require_int,
    require_probability,
    unknown_name_message,
)

COT, DIRECT = Strategy.COT, Strategy.DIRECT
ARMS = keyword_finder({"left": "left", "right": "right"})


def _arms():
    # Built inside each keyword_finder test: a finder built at import time would be the
    # unmutated one under mutmut (the mutant is chosen per test, after imports).
    return keyword_finder({"left": "left", "right": "right"})


# --- keyword_finder ------------------------------------------------------------------


def test_keyword_finder_lists_every_mention_in_text_order_case_insensitively():
    # "Left" at 0, "RIGHT" at 9 (after "Left, or "), "left" at 20 (after "RIGHT, not ").
    assert _arms()("Left, or RIGHT, not left") == [(0, "left"), (9, "right"), (20, "left")]


def test_keyword_finder_matches_whole_words_only():
    # "leftover" and "righteous" contain the words but are not them.
    assert _arms()("leftover righteous") == []


def test_keyword_finder_treats_each_pattern_as_an_alternation_group():
    # r"\b(?:a|b)\b" must group the alternation: without the group "deck a" would be
    # r"\ba|b\b", which also matches the "b" ending "bomb".
    find = keyword_finder({"A": "deck a|a"})
    assert find("bomb") == []
    assert find("deck a") == [(0, "A")]


# --- read_choice / extract_choice ----------------------------------------------------


@pytest.mark.parametrize("reply", ["", "   \n\t"])
def test_empty_or_blank_reply_is_no_answer_with_reason_empty_reply(reply):
    reading = read_choice(reply, COT, ARMS)
    assert reading == Reading(ParseFailure(NO_ANSWER, "empty reply"), ParsePath.INVALID)


def test_non_text_reply_is_no_answer_not_a_crash():
    # A non-str reply (a backend bug) is unreadable, never an exception in the env.
    assert read_choice(None, COT, ARMS) == Reading(ParseFailure(NO_ANSWER, "empty reply"), ParsePath.INVALID)


def test_answer_line_naming_two_choices_is_ambiguous_even_if_a_later_line_names_one():
    # The answer line decides; it names 2 choices -> ambiguous. The prose after it
    # ("I pick right.") must not rescue the reply through the last-sentence fallback.
    reading = read_choice("Answer: left or right\nI pick right.", COT, ARMS)
    assert reading == Reading(ParseFailure(AMBIGUOUS, "answer line names 2 different choices"), ParsePath.INVALID)


def test_free_reply_without_answer_line_and_two_choices_in_last_sentence_says_so():
    # Whole reply: left, right (2); last sentence "I pick right, not left" (2); no answer line.
    reading = read_choice("Left is fine. I pick right, not left", COT, ARMS)
    assert reading.value == ParseFailure(
        AMBIGUOUS, "reply names 2 different choices, its last sentence 2, and it has no answer line"
    )


def test_direct_reply_with_two_choices_says_how_many():
    assert read_choice("left right", DIRECT, ARMS).value == ParseFailure(AMBIGUOUS, "reply names 2 different choices")


def test_extract_choice_is_read_choice_without_the_path():
    assert extract_choice("I think left.\nAnswer: right", COT, ARMS) == "right"
    assert extract_choice("", DIRECT, ARMS) == ParseFailure(NO_ANSWER, "empty reply")
    # The strategy is passed on: two arms and no answer line are ambiguous for direct,
    # while cot reads the last sentence's sole arm.
    assert extract_choice("Left is bad. I pick right.", DIRECT, ARMS).code == AMBIGUOUS
    assert extract_choice("Left is bad. I pick right.", COT, ARMS) == "right"


def test_trailing_line_break_does_not_open_an_empty_last_sentence():
    # "I like left\nI pick right\n": the final "\n" is trailing junk, so the last
    # sentence is "I pick right" (index 12), and cot reads "right" by the fallback.
    text = "I like left\nI pick right\n"
    assert last_sentence_start(text) == 12
    assert read_choice(text, COT, ARMS) == Reading("right", ParsePath.FALLBACK)


def test_last_sentence_of_text_ending_in_a_one_letter_sentence():
    # "Left. Right. X.": stops after "Left." (end 5) and "Right." (end 12, before " X").
    # The trailing "." is dropped, every letter before it is kept: start = 12.
    assert last_sentence_start("Left. Right. X.") == 12


def test_line_break_at_the_very_start_ends_an_empty_first_sentence():
    # The "\n" at index 0 is a sentence end: the last sentence starts at 1.
    assert last_sentence_start("\nI pick left") == 1


# --- validators and messages ---------------------------------------------------------


@pytest.mark.parametrize(
    ("minimum", "kind"), [(0, "a non-negative int"), (1, "a positive int"), (2, "a >= 2 int")]
)
def test_require_int_names_the_bound_in_words(minimum, kind):
    with pytest.raises(ValueError) as err:
        require_int("wcst", "trials", -1, minimum)
    assert str(err.value) == f"wcst parameter 'trials' must be {kind}, got -1"


def test_require_int_accepts_the_minimum_itself():
    assert require_int("wcst", "trials", 2, 2) == 2


@pytest.mark.parametrize("value", [0.0, 1.0, 0.5, 1])
def test_require_probability_accepts_the_closed_unit_interval(value):
    assert require_probability("wpt", "p", value) == float(value)


@pytest.mark.parametrize("value", [1.5, -0.1, True, "0.5", None])
def test_require_probability_rejects_outside_values_bools_and_strings(value):
    with pytest.raises(ValueError) as err:
        require_probability("wpt", "p", value)
    assert str(err.value) == f"wpt parameter 'p' must be a number in [0.0, 1.0], got {value!r}"


def test_coerce_strategy_error_names_the_parameter_and_the_allowed_values():
    with pytest.raises(ValueError) as err:
        coerce_strategy("cott")
    assert str(err.value) == "Unknown strategy 'cott'. Did you mean: cot? Allowed: cot, direct, free."
    assert coerce_strategy("cot") is Strategy.COT


def test_unknown_name_message_suggests_at_most_three_close_names():
    # difflib ranks wcse, wcsd, wcsc (ties by reverse order); wcsb and wcsa are not shown.
    message = unknown_name_message("task", "wcst", ["wcsa", "wcsb", "wcsc", "wcsd", "wcse"])
    assert message == "Unknown task 'wcst'. Did you mean: wcse, wcsd, wcsc? Allowed: wcsa, wcsb, wcsc, wcsd, wcse."


def test_unknown_name_message_without_close_names_has_no_hint():
    assert unknown_name_message("task", "zzz", ["wcst"]) == "Unknown task 'zzz'. Allowed: wcst."


def test_make_agent_error_names_the_paradigm_policy_and_value():
    with pytest.raises(ValueError, match=r"^Unknown wcst policy 'nope'\."):
        get_paradigm("wcst").make_agent("nope", get_paradigm("wcst").make_params(), np.random.default_rng(0))


# --- seeds ---------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "index"), [(-1, 0), (0, -1), (-1, -1)])
def test_episode_seed_rejects_any_negative_part_and_says_which(seed, index):
    with pytest.raises(ValueError) as err:
        episode_seed(seed, index)
    assert str(err.value) == f"seed and episode index must be non-negative, got seed={seed}, index={index}"


def test_episode_seed_accepts_seed_zero_and_index_zero():
    # The first word of SeedSequence([0, 0]) as uint32.
    assert episode_seed(0, 0) == int(np.random.SeedSequence([0, 0]).generate_state(1, dtype=np.uint32)[0])


# --- Env life cycle ------------------------------------------------------------------


@dataclass(frozen=True)
class _Params:
    max_turns: int = 3


class _CountingEnv(Env):
    """Never terminates by itself: only ``max_turns`` ends it. Records its options."""

    name = "counting"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.options = options
        return "go", {}

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        self.log.append({"reply": reply})
        return "next", False, {}


def test_fresh_env_has_no_episode_state():
    env = _CountingEnv(_Params())
    assert (env.rng, env.log, env.system_prompt, env.turns) == (None, [], "", 0)


def test_step_before_reset_names_the_env_class():
    with pytest.raises(RuntimeError, match=r"^_CountingEnv\.step\(\) called before reset\(\)$"):
        _CountingEnv(_Params()).step("x")


def test_step_after_the_end_names_the_env_class():
    env = _CountingEnv(_Params(max_turns=1))
    env.reset(seed=0)
    env.step("a")
    with pytest.raises(RuntimeError, match=r"^_CountingEnv\.step\(\) called after the episode ended$"):
        env.step("b")


def test_episode_is_truncated_exactly_at_max_turns():
    # max_turns = 3: turns 1 and 2 go on, turn 3 truncates (not terminated).
    env = _CountingEnv(_Params(max_turns=3))
    env.reset(seed=0)
    assert [env.step(r)[1:3] for r in "abc"] == [(False, False), (False, False), (False, True)]
    assert env.turns == 3


def test_reset_hands_options_to_the_env_and_an_empty_dict_by_default():
    env = _CountingEnv(_Params())
    env.reset(seed=0)
    assert env.options == {}
    env.reset(seed=0, options={"k": 1})
    assert env.options == {"k": 1}


@pytest.mark.parametrize("seed", [-1, 1.5, "3"])
def test_reset_rejects_a_seed_that_is_not_a_non_negative_int(seed):
    with pytest.raises(ValueError) as err:
        _CountingEnv(_Params()).reset(seed=seed)
    assert str(err.value) == f"seed must be a non-negative int, got {seed!r}"


def test_probability_at_the_lower_bound_is_accepted_p_one_half_for_wpt_and_prlt():
    # WPT and PRLT take p in [0.5, 1]: p = 0.5 (a coin, both outcomes tie) is allowed,
    # 0.49 is not, and the message gives the interval.
    from lm_eval_cog.paradigms.prlt.env import PRLTParams
    from lm_eval_cog.paradigms.wpt.env import WPTParams

    assert require_probability("wpt", "p", 0.5, low=0.5) == 0.5
    assert WPTParams(p=0.5).p == 0.5 and PRLTParams(p=0.5).p == 0.5
    with pytest.raises(ValueError) as err:
        require_probability("prlt", "p", 0.49, low=0.5)
    assert str(err.value) == "prlt parameter 'p' must be a number in [0.5, 1.0], got 0.49"
