"""Wason 2-4-6 with a metacognition turn (issue 12 part 2): hand-computed metrics, the play left
unchanged, the new rule's reading, conformance, reference players, and lm-eval in process."""

from __future__ import annotations

import json
import math

import pytest

from lm_eval_cog import metacognition
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import episode_seed
from lm_eval_cog.paradigms.chance import play
from lm_eval_cog.paradigms.checks import check_paradigm
from lm_eval_cog.paradigms.wason246 import PARADIGM as WASON
from lm_eval_cog.paradigms.wason246 import wason246_metrics
from lm_eval_cog.paradigms.wason246.env import CUT
from lm_eval_cog.paradigms.wason246_reflect import (
    CLOSING,
    METRIC_NAMES,
    PARADIGM,
    REFLECTION_NAMES,
    Wason246ReflectEnv,
    Wason246ReflectParams,
    read_new_rule,
    wason246_reflect_metrics,
)

# An expensive module fixture: every test of this module on one xdist worker (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("wason246_reflect")

#: Hidden rule x < y < z, initial triple 2, 4, 6 in every episode.
PARAMS = Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,))


def reflection(judgement: str | None, confidence, new_response: str | None = "None") -> str:
    obj = {"rationality_judgement": judgement, "confidence_score": confidence, "model_reflection": "checked",
           "new_response": new_response}  # fmt: skip
    return json.dumps({k: v for k, v in obj.items() if v is not None})


def episode(*replies: str, params: Wason246ReflectParams = PARAMS) -> tuple[Wason246ReflectEnv, list[tuple]]:
    env = Wason246ReflectEnv(params)
    env.reset(seed=0)
    steps = [env.step(r) for r in replies]
    return env, steps


def same(a: float | None, b: float | None) -> bool:
    """Equal, or both undefined (NaN in Python, null in a samples file)."""
    a, b = (math.nan if x is None else x for x in (a, b))
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def check(values: dict[str, float], expected: dict[str, float]) -> None:
    for name, value in expected.items():
        assert same(values[name], value), (name, values[name], value)


# --------------------------------------------------------------------------- #
# Hand-built episodes
# --------------------------------------------------------------------------- #

#: (A) a right rule judged Reasonable at 90 and kept.
KEPT = ("QUERY: 1, 2, 3 (expect yes)", "RULE: x < y < z", reflection("Reasonable", 90))
#: (B) a wrong rule (2, 4, 6 fits "add 2"), judged Not reasonable at 20, corrected by a bare expression.
CORRECTED = ("RULE: y - x == 2 and z - y == 2", reflection("Not reasonable", 20, "x < y < z"))
#: (C) a right rule judged Not reasonable at 60 and damaged by a wrong revision.
DAMAGED = ("RULE: x < y < z", reflection("Not reasonable", 60, "RULE: z == x + y"))
#: (D) a right rule written otherwise, an unreadable confidence, a revision that is the same rule.
UNREADABLE_CONFIDENCE = ("RULE: x < y and y < z", reflection("Reasonable", "very high", "RULE: not (x >= y or y >= z)"))

EXPECTED = {
    KEPT: {"acc": 1, "acc_first": 1, "acc_final": 1, "delta": 0, "correction_rate": math.nan, "damage_rate": 0,
           "revision_rate": 0, "self_check_acc": 1, "brier_answer": 0.01, "cqs_answer": 0.99, "cqs_judgement": 0.99,
           "reflection_invalid_rate": 0, "judgement_missing_rate": 0, "confidence_missing_rate": 0,
           "reflection_missing_rate": 0, "revision_invalid_rate": 0, "rule_stated": 1, "queries": 1,
           "positive_test_share": 1, "expectation_acc": 1, "invalid_rate": 0, "fallback_share": 0},
    CORRECTED: {"acc": 0, "acc_first": 0, "acc_final": 1, "delta": 1, "correction_rate": 1, "damage_rate": math.nan,
                "revision_rate": 1, "self_check_acc": 1, "brier_answer": 0.04, "cqs_answer": 0.96,
                # The judgement was right (1); confidence 0.2 in it: 1 - 0.8^2.
                "cqs_judgement": 0.36, "confidence_missing_rate": 0, "queries": 0, "invalid_rate": 0},
    DAMAGED: {"acc": 1, "acc_first": 1, "acc_final": 0, "delta": -1, "correction_rate": math.nan, "damage_rate": 1,
              "revision_rate": 1, "self_check_acc": 0, "brier_answer": 0.16, "cqs_answer": 0.84,
              # The judgement was wrong (0); confidence 0.6: 1 - 0.6^2.
              "cqs_judgement": 0.64, "revision_invalid_rate": 0},
    # Missing, never 0: a confidence of 0 in a right rule would be Brier 1.
    UNREADABLE_CONFIDENCE: {"acc": 1, "acc_first": 1, "acc_final": 1, "delta": 0, "revision_rate": 0,
                            "self_check_acc": 1, "brier_answer": math.nan, "cqs_answer": math.nan,
                            "cqs_judgement": math.nan, "confidence_missing_rate": 1, "judgement_missing_rate": 0,
                            "reflection_invalid_rate": 0},
}  # fmt: skip


@pytest.mark.parametrize("replies", list(EXPECTED), ids=["kept", "corrected", "damaged", "unreadable_confidence"])
def test_hand_built_episode_metrics(replies):
    env, steps = episode(*replies)
    *play_steps, last = steps
    assert all(not s[1] and not s[2] for s in play_steps)  # the rule does not end the episode
    assert last[1] and not last[2] and last[0] == CLOSING
    assert play_steps[-1][0].startswith("Your rule has been recorded.\n\n" + metacognition.CONVERSATION_REQUEST[:30])
    record = env.log[-1]
    assert record["kind"] == "reflection" and record["parse"] == "answer_line" and record["invalid"] is None
    scores = wason246_reflect_metrics(env.log, PARAMS)
    assert set(scores) == set(METRIC_NAMES)
    check(scores, EXPECTED[replies])
    # From the log alone: a JSON round trip rescores identically.
    again = wason246_reflect_metrics(json.loads(json.dumps(env.log)), PARAMS)
    assert all(same(scores[k], again[k]) for k in scores)


def test_unreadable_confidence_record_says_why_and_the_revision_is_the_same_rule():
    env, _ = episode(*UNREADABLE_CONFIDENCE)
    record = env.log[-1]
    assert record["confidence"] is None and record["fields"]["confidence"] == metacognition.UNREADABLE
    assert record["revision"] == metacognition.SAME and record["new_rule"] == "not (x >= y or y >= z)"


def test_task_means_over_the_hand_built_episodes_and_a_truncated_one():
    """nanmean over A-D plus a truncated episode E (no rule): E counts in acc (0) only."""
    logs = [episode(*replies)[0].log for replies in EXPECTED]
    truncated = Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,), max_queries=2, max_invalid=0)
    logs.append(episode("no idea", "???", "", params=truncated)[0].log)
    per = [wason246_reflect_metrics(log, PARAMS) for log in logs]
    mean = {k: metacognition.nan_mean([p[k] for p in per]) for k in METRIC_NAMES}
    check(mean, {"acc": 3 / 5, "rule_stated": 4 / 5, "acc_first": 3 / 4, "acc_final": 3 / 4, "delta": 0,
                 "correction_rate": 1, "damage_rate": 1 / 3, "self_check_acc": 3 / 4,
                 "brier_answer": (0.01 + 0.04 + 0.16) / 3, "cqs_answer": 1 - (0.01 + 0.04 + 0.16) / 3,
                 "cqs_judgement": (0.99 + 0.36 + 0.64) / 3, "confidence_missing_rate": 1 / 4,
                 "revision_rate": 2 / 4})  # fmt: skip


def test_a_truncated_episode_without_a_rule_has_nan_reflection_metrics():
    params = Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,), max_queries=2, max_invalid=0)
    assert params.play_turns == 3 and params.max_turns == 4
    env, steps = episode("no idea", "QUERY: 1, 2, 3 (expect yes)", "RULE: import os", params=params)
    message, terminated, truncated, info = steps[-1]
    assert truncated and not terminated and message.endswith(CUT) and info["phase"] == "play"
    with pytest.raises(RuntimeError):
        env.step(reflection("Reasonable", 90))
    scores = wason246_reflect_metrics(env.log, params)
    assert all(math.isnan(scores[name]) for name in REFLECTION_NAMES)
    check(scores, {"acc": 0, "rule_stated": 0, "queries": 1, "invalid_rate": 2 / 3})


def test_a_rule_on_the_plays_last_turn_still_gets_its_reflection():
    params = Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,), max_queries=1, max_invalid=0)
    env, steps = episode("QUERY: 1, 2, 3 (expect yes)", "RULE: x < y < z", reflection("Reasonable", 100), params=params)
    assert [s[1:3] for s in steps] == [(False, False), (False, False), (True, False)]
    assert wason246_reflect_metrics(env.log, params)["acc_final"] == 1.0


def test_an_unreadable_new_rule_is_wrong_never_the_first_rule():
    env, _ = episode("RULE: x < y < z", reflection("Not reasonable", 50, "the numbers go up"))
    record = env.log[-1]
    assert record["revision"] == metacognition.REVISION_UNREADABLE and record["final_rule"] is None
    check(wason246_reflect_metrics(env.log, PARAMS),
          {"acc_first": 1, "acc_final": 0, "damage_rate": 1, "revision_invalid_rate": 1, "revision_rate": 1})


def test_a_reflection_without_any_readable_field_is_invalid_and_keeps_the_rule():
    env, _ = episode("RULE: x < y < z", "I am not sure what you mean.")
    record = env.log[-1]
    assert record["invalid"] == "no_reflection" and record["parse"] == "invalid" and record["choice"] is None
    scores = wason246_reflect_metrics(env.log, PARAMS)
    # The play's invalid_rate is the play's: the unreadable reflection is counted on its own.
    check(scores, {"invalid_rate": 0, "reflection_invalid_rate": 1, "acc_first": 1, "acc_final": 1,
                   "self_check_acc": 0, "judgement_missing_rate": 1, "confidence_missing_rate": 1,
                   "brier_answer": math.nan})  # fmt: skip


def test_the_wason246_metrics_are_those_of_the_log_without_the_reflection():
    env, _ = episode(*DAMAGED)
    play_log = [r for r in env.log if r["kind"] != "reflection"]
    scores = wason246_reflect_metrics(env.log, PARAMS)
    for name, value in wason246_metrics(play_log, PARAMS).items():
        assert same(scores[name], value), name


@pytest.mark.parametrize(
    "text, rule",
    [("RULE: x < y < z", "x < y < z"), ("x < y < z.", "x < y < z"), ("`lambda x, y, z: z == x + y`", "z == x + y"),
     ("Answer: RULE: x < y < z", "x < y < z"), ("Answer: x < y < z", "x < y < z"),
     ("I revise it.\nRULE: x + 2 == y and y + 2 == z", "x + 2 == y and y + 2 == z"),
     ("ＲＵＬＥ： x < y < z", "x < y < z")],
)  # fmt: skip
def test_new_rules_are_read_by_the_plays_rule_reader(text, rule):
    move = read_new_rule(text, 1000)
    assert move.rule is not None and move.rule.canonical == rule


@pytest.mark.parametrize("text", ["QUERY: 1, 2, 3 (expect yes)", "__import__('os').system('echo pwned')",
                                  "increasing numbers", "x.real < y", "9 ** 9 ** 9 > x", "x" * 100_000, ""])
def test_hostile_or_unreadable_new_rules_are_bad_rules(text):
    assert read_new_rule(text, 1000).code == "bad_rule"


# --------------------------------------------------------------------------- #
# The play is wason246's, unchanged
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("preset", ["cogprobe6", "wason1960"])
def test_the_play_is_wason246s_message_for_message(preset):
    """Same seed and replies: the same instructions, messages and records up to the rule."""
    replies = ["QUERY: 1, 2, 3 (expect yes)", "hmm", "QUERY: 3, 2, 1 (expect no)", "RULE: x < y < z"]
    a, b = WASON.env_cls(WASON.make_params(preset)), PARADIGM.env_cls(PARADIGM.make_params(preset))
    assert a.reset(seed=7)[0] == b.reset(seed=7)[0] and a.system_prompt == b.system_prompt
    for reply in replies[:-1]:
        assert a.step(reply)[:3] == b.step(reply)[:3]
    a.step(replies[-1])
    b.step(replies[-1])
    assert a.log == b.log


def test_cogprobe_mode_pastes_the_task_and_the_rule_reply():
    params = Wason246ReflectParams(rule_set="wason1960", wason_scales=(1,), mode="cogprobe")
    env = Wason246ReflectEnv(params)
    opening, _ = env.reset(seed=0)
    message, *_ = env.step("Thinking.\nRULE: x < y < z")
    assert message == metacognition.cogprobe_request(f"{env.system_prompt}\n\n{opening}", "Thinking.\nRULE: x < y < z")
    env.step(reflection("Reasonable", 80))
    assert env.log[-1]["confidence"] == 80.0


def test_bad_mode_names_itself():
    with pytest.raises(ValueError, match="'mode'"):
        Wason246ReflectParams(mode="fresh")
    with pytest.raises(ValueError, match="max_queries"):
        PARADIGM.make_params("cogprobe6", overrides={"max_queries": 0})


# --------------------------------------------------------------------------- #
# Conformance and reference players
# --------------------------------------------------------------------------- #


def test_passes_the_conformance_checks():
    check_paradigm(get_paradigm("wason246_reflect"))


def _means(policy: str, preset: str, n: int = 8) -> dict[str, float]:
    params = PARADIGM.make_params(preset)
    per = [PARADIGM.metrics(play(PARADIGM, params, episode_seed(3, i), policy).log, params) for i in range(n)]
    return {k: metacognition.nan_mean([p[k] for p in per]) for k in METRIC_NAMES}


@pytest.mark.parametrize("preset", ["cogprobe6", "wason1960"])
def test_optimal_player_is_perfect_everywhere(preset):
    m = _means("optimal", preset)
    check(m, {"acc": 1, "acc_first": 1, "acc_final": 1, "self_check_acc": 1, "cqs_answer": 1, "cqs_judgement": 1,
              "damage_rate": 0, "invalid_rate": 0, "reflection_invalid_rate": 0, "rule_stated": 1})  # fmt: skip


@pytest.mark.parametrize("preset", ["cogprobe6", "wason1960"])
def test_second_guessing_player_damages_every_right_rule(preset):
    m = _means("second_guessing", preset)
    check(m, {"acc_first": 1, "acc_final": 0, "delta": -1, "damage_rate": 1, "self_check_acc": 0,
              "cqs_answer": 0.75, "cqs_judgement": 0.75})  # fmt: skip


def test_overconfident_and_confirmatory_calibration_equals_accuracy():
    for policy, preset in (("overconfident", "cogprobe6"), ("confirmatory", "cogprobe6"), ("confirmatory", "wason1960")):
        m = _means(policy, preset)
        assert m["self_check_acc"] == m["cqs_answer"] == m["cqs_judgement"] == m["acc_first"] == m["acc_final"]
    assert _means("confirmatory", "wason1960")["acc_final"] == 0.0  # Wason's subjects: wrong, and certain


def test_self_correcting_player_never_damages_and_corrects_what_contradicts_its_answers():
    params = PARADIGM.make_params("cogprobe6")
    corrected = 0
    for i in range(8):
        env = play(PARADIGM, params, episode_seed(3, i), "self_correcting")
        record, scores = env.log[-1], PARADIGM.metrics(env.log, params)
        assert scores["damage_rate"] in (0.0,) or math.isnan(scores["damage_rate"])
        if record["judgement"] == metacognition.NOT_REASONABLE:
            assert record["confidence"] == 0 and record["revision"] in (metacognition.CHANGED, metacognition.SAME)
            corrected += scores["acc_final"] == 1.0
        else:
            assert record["confidence"] == 100 and record["revision"] == metacognition.KEPT
    assert corrected > 0


def test_random_player_replies_are_valid_and_its_revisions_are_rules():
    params = PARADIGM.make_params("cogprobe6")
    for i in range(8):
        env = play(PARADIGM, params, episode_seed(3, i), "random")
        record = env.log[-1]
        assert record["kind"] == "reflection" and record["invalid"] is None
        assert record["revision"] in (metacognition.KEPT, metacognition.SAME, metacognition.CHANGED)
        scores = PARADIGM.metrics(env.log, params)
        assert scores["invalid_rate"] == 0 and scores["revision_invalid_rate"] == 0


# --------------------------------------------------------------------------- #
# lm-eval
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def second_guessing_run() -> dict:
    """cog_wason246_reflect, 2 episodes, through lm-eval's evaluator (bootstrap off)."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from lm_eval_cog._autoload import task_dir
    from lm_eval_cog.lmeval.baseline_model import BaselineLM

    return simple_evaluate(
        model=BaselineLM(policy="second_guessing"),
        tasks=["cog_wason246_reflect"],
        limit=2,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False),
        log_samples=True,
        bootstrap_iters=0,
    )


def test_the_task_runs_through_lm_eval_and_reports_both_metric_sets(second_guessing_run):
    r = second_guessing_run["results"]["cog_wason246_reflect"]
    check({k.split(",")[0]: v for k, v in r.items() if k.endswith(",none")},
          {"acc": 1, "acc_first": 1, "acc_final": 0, "delta": -1, "damage_rate": 1, "cqs_answer": 0.75,
           "invalid_rate": 0, "reflection_invalid_rate": 0, "fallback_share": 0, "rule_stated": 1,
           "episode_failed": 0})  # fmt: skip
    assert "acc_final_chance,none" in r


def test_its_transcripts_rescore_to_the_samples(second_guessing_run):
    from lm_eval_cog.transcripts import score_transcript

    samples = sorted(second_guessing_run["samples"]["cog_wason246_reflect"], key=lambda s: s["doc_id"])
    assert len(samples) == 2
    for sample in samples:
        transcript = json.loads(sample["resps"][0][0])
        assert transcript["paradigm"] == "wason246_reflect"
        assert transcript["turns"][-1]["user"].startswith("Your rule has been recorded.")
        for name, value in score_transcript(transcript).items():
            assert same(value, sample[name]), name
