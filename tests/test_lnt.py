"""Letter-Number Test (Kennedy & Nowak, 2024): stimuli, feedback, metrics on hand-built logs,
the protocol's exact bounds, reference agents, parameter validation and conformance."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import Strategy, episode_seed
from lm_eval_cog.paradigms.chance import play
from lm_eval_cog.paradigms.checks import check_paradigm
from lm_eval_cog.paradigms.lnt import (
    APPENDIX_A,
    PARADIGM,
    LNTEnv,
    LNTParams,
    correct_answer,
    lnt_metrics,
    max_categories,
    parse_reply,
    reactive_categories,
    reactive_correct,
)
from lm_eval_cog.paradigms.lnt.env import CLOSING, FEEDBACK_CORRECT, FEEDBACK_INCORRECT, other_task
from lm_eval_cog.paradigms.lnt.scoring import METRIC_NAMES

KENNEDY = PARADIGM.make_params("kennedy", "direct")
SEEDS = range(200)


# --------------------------------------------------------------------------- #
# Hand-built logs (only the fields the metrics read, plus `trial`)
# --------------------------------------------------------------------------- #

VOCAB_TASK = {"vowel": "letter", "consonant": "letter", "even": "number", "odd": "number", None: None}


def rec(trial, task, outcome, answer, streak, previous_task=None, completed=False, parse="whole_reply"):
    return {
        "trial": trial,
        "task": task,
        "previous_task": previous_task,
        "answer": answer,
        "answer_task": VOCAB_TASK[answer],
        "outcome": outcome,
        "streak": streak,
        "category_completed": completed,
        "parse": parse,
    }


CRIT3 = LNTParams(trials=10, criterion=3)  # short runs keep the hand-built log small

# Criterion 3. Letter task first; a switch to number after trial 4; perseveration; an invalid
# reply; a wrong-category answer in the right vocabulary; a second switch.
SWITCH_LOG = [
    rec(1, "letter", "error", "odd", 0),  # wrong task before any switch: not perseverative
    rec(2, "letter", "correct", "consonant", 1),
    rec(3, "letter", "correct", "vowel", 2),
    rec(4, "letter", "correct", "consonant", 3, completed=True),  # category 1 -> number task
    rec(5, "number", "error", "consonant", 0, previous_task="letter"),  # PE: old task's word
    rec(6, "number", "invalid", None, 0, previous_task="letter", parse="invalid"),  # error, never PE
    rec(7, "number", "error", "odd", 0, previous_task="letter"),  # right task, wrong category: NPE
    rec(8, "number", "correct", "even", 1, previous_task="letter", parse="fallback"),
    rec(9, "number", "correct", "odd", 2, previous_task="letter"),
    rec(10, "number", "correct", "even", 3, previous_task="letter", completed=True),  # category 2
]


def test_metrics_of_a_switch_with_perseveration_and_an_invalid_reply():
    """acc, CC, TFC, PE, NPE, invalid and fallback shares, by hand."""
    m = lnt_metrics(SWITCH_LOG, CRIT3)
    assert m["acc"] == pytest.approx(0.6)  # correct trials 2, 3, 4, 8, 9, 10 = 6 / 10
    assert m["score"] == pytest.approx(60.0)  # 100 x 0.6
    assert m["categories_completed"] == 2.0  # trials 4 and 10
    assert m["trials_to_first_category"] == 4.0
    assert m["perseverative_errors"] == 1.0  # trial 5 only ("consonant" after the switch to number)
    # errors incl. invalid: trials 1, 5, 6, 7 = 4; minus 1 PE = 3 (1: before any switch, 6: invalid, 7: odd for 4)
    assert m["non_perseverative_errors"] == 3.0
    assert m["invalid_rate"] == pytest.approx(0.1)  # 1 invalid / 10
    assert m["fallback_share"] == pytest.approx(0.1)  # trial 8 / 10


def test_metrics_without_a_category_give_nan_tfc_and_no_perseveration():
    """No completed run: CC 0, TFC NaN; wrong-task answers before any switch are never PE."""
    log = [
        rec(1, "number", "error", "vowel", 0),
        rec(2, "number", "correct", "odd", 1),
        rec(3, "number", "error", "consonant", 0),
    ]
    m = lnt_metrics(log, CRIT3)
    assert m["acc"] == pytest.approx(1 / 3)  # 1 correct / 3
    assert m["categories_completed"] == 0.0
    assert math.isnan(m["trials_to_first_category"])
    assert m["perseverative_errors"] == 0.0  # previous_task is None throughout
    assert m["non_perseverative_errors"] == 2.0  # trials 1 and 3
    assert m["invalid_rate"] == 0.0 and m["fallback_share"] == 0.0


def test_empty_log_is_all_nan_and_a_json_round_trip_rescores_identically():
    assert set(lnt_metrics([], KENNEDY)) == set(METRIC_NAMES)
    assert all(math.isnan(v) for v in lnt_metrics([], KENNEDY).values())
    env = play(PARADIGM, KENNEDY, 7, "optimal")
    again = lnt_metrics(json.loads(json.dumps(env.log)), KENNEDY)
    assert again == lnt_metrics(env.log, KENNEDY)


# --------------------------------------------------------------------------- #
# The environment, driven by hand
# --------------------------------------------------------------------------- #


def test_stimuli_are_a_mixed_case_letter_then_a_digit_and_lower_case_on_request():
    """Their code: random.choice(string.ascii_letters) + random.randint(0, 9)."""
    seen = []
    for seed in range(40):
        env = LNTEnv(KENNEDY)
        env.reset(seed=seed)
        seen += env.stimuli
    assert all(re.fullmatch(r"[A-Za-z][0-9]", s) for s in seen)
    assert any(s[0].isupper() for s in seen) and any(s[0].islower() for s in seen)
    lower = LNTEnv(LNTParams(letters="lower"))
    lower.reset(seed=0)
    assert all(re.fullmatch(r"[a-z][0-9]", s) for s in lower.stimuli)


def test_right_answers_follow_their_code():
    """Vowels are a, e, i, o, u in either case ('y' is a consonant); 0 is even."""
    assert [correct_answer("letter", s) for s in ("A1", "e1", "U1", "y1", "B1")] == [
        "vowel", "vowel", "vowel", "consonant", "consonant",
    ]  # fmt: skip
    assert [correct_answer("number", s) for s in ("a0", "a7", "Z8")] == ["even", "odd", "even"]


def test_system_prompt_is_appendix_a_and_the_trial_message_is_fig_2():
    env = LNTEnv(KENNEDY)
    message, _ = env.reset(seed=0)
    assert env.system_prompt.startswith("\n".join(APPENDIX_A))
    assert "Acknowledge the feedback" not in env.system_prompt  # dropped: no separate feedback turn
    assert env.system_prompt.endswith("Respond only with your choice, without any other information or analysis.")
    assert message == f"Sequence: {env.stimuli[0]}\nYour guess:"
    letter = LNTEnv(PARADIGM.make_params("kennedy_letter", "cot"))
    letter.reset(seed=0)
    assert letter.system_prompt.startswith(
        "You are performing a letter classification task.\nFor each sequence, identify if the letter is a vowel or consonant."
    )
    assert "'even'" not in letter.system_prompt


def _play(env, replies_for):
    """Step ``env`` with ``replies_for(task, stimulus)`` for each trial; return the messages."""
    messages = []
    for trial in range(env.params.trials):
        reply = replies_for(trial, env.current_task, env.stimuli[trial])
        message, terminated, _, _ = env.step(reply)
        messages.append(message)
        if terminated:
            break
    return messages


def test_completing_answer_is_correct_then_the_task_switches_and_old_words_are_perseverative():
    """Six right answers: the 6th gets "Correct!"; trial 7 is under the other task, and an answer
    in the first task's words there is an error ("Incorrect!") and perseverative."""
    env = LNTEnv(KENNEDY)
    env.reset(seed=11)
    first = env.current_task

    def replies(trial, task, stimulus):
        if trial < 7:  # trials 1-7: answer under the first task (right until the switch)
            return correct_answer(first, stimulus)
        if trial == 7:  # trial 8: unreadable
            return "I am not sure."
        return correct_answer(task, stimulus)

    messages = _play(env, replies)
    log = env.log
    assert [r["outcome"] for r in log[:6]] == ["correct"] * 6
    assert [r["streak"] for r in log[:6]] == [1, 2, 3, 4, 5, 6]
    assert log[5]["category_completed"] and messages[5].startswith(FEEDBACK_CORRECT + "\n\n")
    assert log[6]["task"] == other_task(first) and log[6]["previous_task"] == first
    assert log[6]["outcome"] == "error" and messages[6].startswith(FEEDBACK_INCORRECT + "\n\n")
    assert log[6]["answer_task"] == first  # the old task's word
    # Trial 8: invalid, explained, resets the streak; trials 9-14 complete category 2 at 14.
    assert log[7]["outcome"] == "invalid" and log[7]["parse"] == "invalid" and log[7]["streak"] == 0
    assert messages[7].startswith("Your reply could not be read: answer with one word: 'vowel', 'consonant', 'even' or 'odd'.")
    assert [r["trial"] for r in log if r["category_completed"]] == [6, 14, 20]
    assert messages[-1].endswith(CLOSING)
    m = lnt_metrics(log, KENNEDY)
    # errors: trial 7 (PE) and 8 (invalid); categories end at 6, 14, 20 (trials 21-25: streak 5)
    assert m["acc"] == pytest.approx(23 / 25)
    assert (m["categories_completed"], m["trials_to_first_category"]) == (3.0, 6.0)
    assert (m["perseverative_errors"], m["non_perseverative_errors"]) == (1.0, 1.0)
    assert m["invalid_rate"] == pytest.approx(1 / 25)


def test_fixed_task_never_switches_and_a_wrong_vocabulary_answer_is_an_error():
    """Component task: runs of 6 still count as categories, the task stays; 'even' in the
    letter task is read (an error), not invalid."""
    env = LNTEnv(PARADIGM.make_params("kennedy_letter", "direct"))
    _, info = env.reset(seed=3)
    assert info["choices"] == ["vowel", "consonant"] and info["announced_task"] == "letter"
    _play(env, lambda trial, task, s: "even" if trial == 0 else correct_answer("letter", s))
    assert {r["task"] for r in env.log} == {"letter"}
    assert env.log[0]["outcome"] == "error" and env.log[0]["answer"] == "even"
    m = lnt_metrics(env.log, env.params)
    # 24 right after one error: runs of 6 end at trials 7, 13, 19, 25
    assert m["acc"] == pytest.approx(24 / 25) and m["categories_completed"] == 4.0
    assert m["perseverative_errors"] == 0.0  # no switch, no previous task


def test_replies_are_read_with_the_shared_rules():
    assert parse_reply("Vowel", Strategy.DIRECT) == "vowel"
    assert parse_reply("consonants.", Strategy.DIRECT) == "consonant"
    assert parse_reply("The 7 is odd, but the letter task... Answer: consonant", Strategy.COT) == "consonant"
    assert parse_reply("vowel or even", Strategy.DIRECT).code == "ambiguous"
    assert parse_reply("oddly enough, nothing", Strategy.DIRECT).code == "no_answer"
    assert parse_reply("", Strategy.COT).code == "no_answer"


def test_seed_fixes_stimuli_and_first_task_whatever_the_replies():
    a, b = LNTEnv(KENNEDY), LNTEnv(KENNEDY)
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.stimuli == b.stimuli and a.current_task == b.current_task
    firsts = set()
    for seed in range(20):
        env = LNTEnv(KENNEDY)
        env.reset(seed=seed)
        firsts.add(env.current_task)
    assert firsts == {"letter", "number"}


# --------------------------------------------------------------------------- #
# The bound, and the reference agents
# --------------------------------------------------------------------------- #


def test_reactive_bound_for_25_trials_and_criterion_6():
    """Cycles of 1 error + 6 correct (7 trials); 25 = 3 x 7 + 4.
    First guess wrong: errors at 1, 8, 15, 22 -> 21 correct (0.84), categories at 7, 14, 21.
    First guess right: errors at 7, 14, 21 -> 22 correct (0.88), categories at 6, 13, 20."""
    assert reactive_correct(25, 6, first_guess_right=False) == 21
    assert reactive_correct(25, 6, first_guess_right=True) == 22
    assert reactive_categories(25, 6, False) == reactive_categories(25, 6, True) == 3
    # Kennedy & Nowak's 6/7 is the whole-cycle limit; 25 trials end after a cycle's error.
    assert 21 / 25 < 6 / 7 < 22 / 25
    assert reactive_correct(7000, 6, False) / 7000 == pytest.approx(6 / 7)
    # Any player that also counts to 6 and switches in advance: 4 categories, one error at most.
    assert max_categories(25, 6, True) == max_categories(25, 6, False) == 4


def _metrics(preset, policy, seeds=SEEDS):
    params = PARADIGM.make_params(preset, "direct")
    return [lnt_metrics(play(PARADIGM, params, episode_seed(1, i), policy).log, params) for i in seeds]


def test_optimal_agent_reaches_the_derived_bound_on_every_seed():
    """Reactive ideal observer: acc 21/25 or 22/25, 3 categories, PE 3 (one per switch)."""
    runs = _metrics("kennedy", "optimal")
    assert {round(m["acc"] * 25) for m in runs} == {21, 22}
    assert all(m["categories_completed"] == 3 and m["perseverative_errors"] == 3 for m in runs)
    assert {m["trials_to_first_category"] for m in runs} == {6.0, 7.0}
    # First guess a coin flip: mean (21 + 22) / 2 / 25 = 0.86; SE of the mean = 0.02 / sqrt(200)
    assert np.mean([m["acc"] for m in runs]) == pytest.approx(0.86, abs=4 * 0.02 / np.sqrt(len(runs)))


def test_anticipatory_agent_sets_the_absolute_ceiling():
    runs = _metrics("kennedy", "anticipatory")
    assert {round(m["acc"] * 25) for m in runs} == {24, 25}
    assert all(m["categories_completed"] == 4 and m["perseverative_errors"] == 0 for m in runs)


def test_perseverative_agent_scores_one_category():
    """Locks on after the first "Correct!": 6 right, then never again (6/25); PE 19 (first guess
    right: trials 7-25) or 18 (first guess wrong: error 1, right 2-7, PE 8-25)."""
    runs = _metrics("kennedy", "perseverative")
    assert all(m["acc"] == pytest.approx(6 / 25) and m["categories_completed"] == 1 for m in runs)
    assert {m["perseverative_errors"] for m in runs} == {18.0, 19.0}


@pytest.mark.parametrize("preset", ["kennedy_letter", "kennedy_number"])
def test_component_tasks_optimal_is_perfect_and_random_is_a_coin_flip(preset):
    assert all(m["acc"] == 1.0 and m["categories_completed"] == 4 for m in _metrics(preset, "optimal", range(50)))
    accs = [m["acc"] for m in _metrics(preset, "random", range(400))]
    # Binomial(25, 1/2) / 25 per episode: SD 0.1, so the mean of 400 has SE 0.005.
    assert np.mean(accs) == pytest.approx(0.5, abs=4 * 0.005)


def test_random_agent_on_the_switching_test_is_right_a_quarter_of_the_time():
    """Uniform over four words, one of which is right: 1/4 (SE of 400 episodes' mean ~ 0.0043)."""
    accs = [m["acc"] for m in _metrics("kennedy", "random", range(400))]
    assert np.mean(accs) == pytest.approx(0.25, abs=4 * 0.0044)


# --------------------------------------------------------------------------- #
# Parameters, registration, conformance
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "overrides, name",
    [
        ({"trials": 0}, "trials"),
        ({"criterion": True}, "criterion"),
        ({"fixed_task": "colour"}, "fixed_task"),
        ({"announce_task": "yes"}, "announce_task"),
        ({"announce_task": True}, "announce_task"),  # without a fixed task
        ({"letters": "upper"}, "letters"),
        ({"strategy": "shout"}, "strategy"),
        ({"trails": 25}, "trails"),
    ],
)
def test_bad_parameters_are_errors_naming_the_parameter(overrides, name):
    with pytest.raises(ValueError, match=name):
        PARADIGM.make_params("kennedy", overrides=overrides)


def test_presets_and_registration():
    assert get_paradigm("lnt") is PARADIGM
    assert PARADIGM.presets["kennedy"] == LNTParams(trials=25, criterion=6, letters="mixed")
    assert PARADIGM.presets["kennedy_number"].fixed_task == "number"
    with pytest.raises(ValueError, match="Allowed: anticipatory, heuristic, optimal, perseverative, random"):
        PARADIGM.make_agent("oracle", KENNEDY, np.random.default_rng(0))


def test_passes_the_conformance_checks():
    check_paradigm(PARADIGM)


def test_unannounced_component_uses_appendix_a_and_never_switches():
    """fixed_task without announce_task: the model must find the task once (optimal: the first
    guess is a coin flip, then every answer is right: 24/25 or 25/25), and it never changes."""
    params = PARADIGM.make_params("kennedy_number", "direct", {"announce_task": False})
    env = LNTEnv(params)
    _, info = env.reset(seed=0)
    assert env.system_prompt.startswith("\n".join(APPENDIX_A)) and info["announced_task"] is None
    assert info["choices"] == ["vowel", "consonant", "even", "odd"]
    runs = [lnt_metrics(play(PARADIGM, params, episode_seed(1, i), "optimal").log, params) for i in range(50)]
    assert {round(m["acc"] * 25) for m in runs} == {24, 25}
    assert all(m["perseverative_errors"] == 0 for m in runs)
