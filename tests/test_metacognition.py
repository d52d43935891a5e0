"""Metacognition, the second pass (CogProbe): parser under attack, hand-computed metrics,
the ``reflect`` paradigm, its reference players, its tasks through lm-eval."""

from __future__ import annotations

import glob
import json
import math
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from lm_eval_cli import LM_EVAL, cog_env
from lm_eval_cog import metacognition
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import episode_seed
from lm_eval_cog.paradigms.chance import play
from lm_eval_cog.paradigms.checks import check_paradigm
from lm_eval_cog.paradigms.reflect import (
    GEN_SUFFIX,
    PRESETS,
    REFLECT_PROBES,
    ReflectEnv,
    ReflectParams,
    first_prompt,
    probe_document,
    read_first,
)
from lm_eval_cog.probes.core import REGISTRY, get_probe

# An expensive module fixture: every test of this module on one xdist worker (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("metacognition")

ROOT = Path(__file__).resolve().parents[1]
PARADIGM = get_paradigm("reflect")
NAN = math.nan


def _same(a: float | None, b: float | None) -> bool:
    """Equal, or both undefined (NaN in Python, null in a results file)."""
    a, b = (math.nan if x is None else x for x in (a, b))
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


# --------------------------------------------------------------------------- #
# Request texts
# --------------------------------------------------------------------------- #


def test_cogprobe_template_is_their_english_meta_prompt_verbatim():
    """gpt.py / llama3.py's English ``meta_prompt`` around their items' two prompts (en dashes,
    the missing space after "evaluation." as in their data files)."""
    expected = (
        "The task and your response are as follows:\n------\nTASK\nYour response: ANSWER\n------\n\n"
        "Please evaluate whether your answer is reasonable. If you think it is not, provide a new answer. "
        "Respond strictly using the following format:\n\nReasonableness: Reasonable / Not reasonable (choose only "
        "one option)\nReason: Explain in detail why you made this decision.\n"
        "Please provide a confidence level for the previous evaluation.Confidence level: 0\u2013100 (a higher "
        "number indicates greater certainty)\n"
        "Please respond **only** using the following JSON structure:\n{\n"
        '"rationality_judgement": <Reasonable / Not reasonable>,\n'
        '"confidence_score": <an integer between 0\u2013100>,\n'
        '"model_reflection": "<your reasoning>",\n'
        "\"new_response\": \"[If you consider your initial answer to be correct, write 'None'; otherwise, provide "
        "a new answer]\"\n}"
    )
    assert metacognition.cogprobe_request("TASK", "  ANSWER\n") == expected  # the answer pasted stripped, as theirs


def test_first_turn_is_the_gen_forms_prompt_and_the_answer_is_read_as_the_yamls_filter_reads_it():
    """Same suffix as task_configs/probes/_probe_gen.yaml, and the same reader as its answer_line
    filter (lm_eval_cog.answers, through probe_task.answer_filter)."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: f"!{suffix} {loader.construct_scalar(node)}")
    gen = yaml.load((ROOT / "task_configs" / "probes" / "_probe_gen.yaml").read_text(), Loader=Loader)
    assert gen["doc_to_text"] == "{{prompt}}" + GEN_SUFFIX
    (answer_line,) = gen["filter_list"]
    assert answer_line["name"] == "answer_line"
    assert answer_line["filter"] == [
        {"function": "custom", "filter_fn": "!function lm_eval_cog.lmeval.probe_task.answer_filter"},
        {"function": "take_first"},
    ]
    doc = get_probe("deduction").generate(1234, 1)[0]
    assert first_prompt(doc) == doc["prompt"] + GEN_SUFFIX
    from lm_eval_cog.lmeval.probe_task import answer_filter

    for reply in ("Thinking.\nAnswer: **True** (it follows)", "The answer is False.", "no marker", "Answer: not True"):
        (kept,) = answer_filter([[reply]], [doc])[0]
        assert read_first(get_probe("deduction"), doc, reply)[0] == kept


# --------------------------------------------------------------------------- #
# Parser
# --------------------------------------------------------------------------- #

COGPROBE_REPLY = """{
"rationality_judgement": "Not reasonable",
"confidence_score": 80,
"model_reflection": "The conclusion is not supported by the premises.",
"new_response": "UNCERTAIN"
}"""


def test_the_verbatim_cogprobe_json_is_read():
    r = metacognition.parse_reflection(COGPROBE_REPLY)
    assert (r.judgement, r.confidence, r.new_response, r.source) == ("Not reasonable", 80.0, "UNCERTAIN", "json")
    assert not r.invalid and set(r.fields.values()) == {metacognition.OK}


@pytest.mark.parametrize(
    "label, expected",
    [("Not reasonable", "Not reasonable"), ("Not Reasonable", "Not reasonable"), ("not_reasonable", "Not reasonable"),
     ("Unreasonable", "Not reasonable"), ("NOT REASONABLE.", "Not reasonable"), ("No razonable", "Not reasonable"),
     ("不合理", "Not reasonable"), ("Reasonable", "Reasonable"), ("reasonable", "Reasonable"), ("Razonable", "Reasonable"),
     ("合理", "Reasonable")],
)  # fmt: skip
def test_not_reasonable_is_never_dropped_nor_read_as_reasonable(label, expected):
    """CogProbe's calibration script knew only 'unreasonable' and dropped 'Not reasonable' rows."""
    r = metacognition.parse_reflection(json.dumps({"rationality_judgement": label, "confidence_score": 50}))
    assert r.judgement == expected


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"rationality_judgement": "Reasonable", "confidence_score": 85, "new_response": "None"}\n```',
        "Sure! Here it is:\n```\n{'rationality judgement': 'Reasonable', 'Confidence Score': '85%', "
        "'new response': None,}\n```\nHope this helps.",
        '{"Rationality Judgement": "Reasonable", "confidence": "85/100", "new_answer": null, }',
        '{"rationality_judgement": "Reasonable", "confidence_score": 85, "new_response": "None",}',
        "Reasonableness: Reasonable\nReason: the statement follows in two steps.\nConfidence level: 85",
        "**Reasonableness:** Reasonable\n**Reason:** it follows.\n**Confidence level (0-100):** 85%",
        # CogProbe's template literally shows unquoted labels: invalid JSON, read as key lines.
        '{\n"rationality_judgement": Reasonable,\n"confidence_score": 85,\n"model_reflection": "fine",\n'
        '"new_response": "None"\n}',
    ],
)
def test_fenced_single_quoted_trailing_comma_and_plain_line_replies_are_read(reply):
    r = metacognition.parse_reflection(reply)
    assert (r.judgement, r.confidence, r.new_response) == ("Reasonable", 85.0, None)
    assert r.fields["judgement"] == r.fields["confidence"] == metacognition.OK


@pytest.mark.parametrize(
    "field, reply",
    [
        ("judgement", '{"rationality_judgement": "Reasonable / Not reasonable", "confidence_score": 70, "new_response": "None"}'),
        ("judgement", '{"rationality_judgement": "maybe", "confidence_score": 70, "new_response": "None"}'),
        ("judgement", '{"rationality_judgement": true, "confidence_score": 70, "new_response": "None"}'),
        ("judgement", '{"confidence_score": 70, "new_response": "None"}'),
        ("confidence", '{"rationality_judgement": "Reasonable", "confidence_score": "high", "new_response": "None"}'),
        ("confidence", '{"rationality_judgement": "Reasonable", "confidence_score": 150, "new_response": "None"}'),
        ("confidence", '{"rationality_judgement": "Reasonable", "confidence_score": -5, "new_response": "None"}'),
        ("confidence", '{"rationality_judgement": "Reasonable", "confidence_score": 0.85, "new_response": "None"}'),
        ("confidence", '{"rationality_judgement": "Reasonable", "confidence_score": "0\u2013100", "new_response": "None"}'),
        ("confidence", '{"rationality_judgement": "Reasonable", "new_response": "None"}'),
        ("confidence", "Reasonableness: Reasonable\nConfidence level: <an integer between 0-100>"),
        ("new_response", '{"rationality_judgement": "Reasonable", "confidence_score": 70, "new_response": {"a": 1}}'),
    ],
)  # fmt: skip
def test_each_unreadable_field_is_missing_and_the_others_are_still_read(field, reply):
    """One field unreadable at a time: it is None (counted), the rest is read; no defaults."""
    r = metacognition.parse_reflection(reply)
    assert r.fields[field] != metacognition.OK
    assert getattr(r, field) is None
    readable = {"judgement": "Reasonable", "confidence": 70.0}
    for other, value in readable.items():
        if other != field and r.fields[other] == metacognition.OK:
            assert getattr(r, other) == value
    assert not r.invalid


def test_a_missing_confidence_never_becomes_zero_and_is_left_out_of_the_brier_score():
    """CogProbe's parser set confidence 0 on failure and kept the row: here it is missing."""
    r = metacognition.parse_reflection('{"rationality_judgement": "Reasonable", "confidence_score": "very sure"}')
    assert r.confidence is None and r.fields["confidence"] == metacognition.UNREADABLE
    record = metacognition.reflection_record(r, first=0, gold=0, final=0, revision=metacognition.KEPT)
    values = metacognition.episode_values(record)
    assert math.isnan(values["brier_answer"]) and math.isnan(values["cqs_answer"]) and math.isnan(values["cqs_judgement"])
    assert values["confidence_missing_rate"] == 1.0 and values["self_check_acc"] == 1.0


def test_zero_is_a_readable_confidence():
    assert metacognition.parse_reflection('{"confidence_score": 0}').confidence == 0.0
    assert metacognition.parse_reflection('{"confidence_score": "0%"}').confidence == 0.0


@pytest.mark.parametrize(
    "reply",
    ["", "   ", "asdf qwerty", "I think my answer is fine.", "0" * 5000, "{" * 10000, "[" * 10000 + "]" * 10000,
     '{"foo": 1}', "\x00\n\t", "🙂 " * 50, "}{" * 5000, "x" * 100_000, "__import__('os').system('echo pwned')",
     "{'confidence_score': __import__('os').getpid()}"],
)  # fmt: skip
def test_junk_and_hostile_replies_are_invalid_quickly_and_nothing_is_executed(reply):
    start = time.perf_counter()
    r = metacognition.parse_reflection(reply)
    assert time.perf_counter() - start < 1.0
    assert r.invalid and r.judgement is None and r.confidence is None and r.new_response is None


def test_non_string_replies_are_invalid():
    assert metacognition.parse_reflection(None).invalid and metacognition.parse_reflection(b"{}").invalid


def test_new_response_keep_words_and_answer_lines():
    keep = ['"None"', "null", '"none."', '"N/A"', '""', '"no change"']
    for value in keep:
        r = metacognition.parse_reflection('{"rationality_judgement": "Reasonable", "new_response": %s}' % value)
        assert r.new_response is None and r.fields["new_response"] == metacognition.OK, value
    assert metacognition.parse_reflection('{"new_response": 3}').new_response == "3"
    assert metacognition.parse_reflection('{"new_response": ["sealed", "75c"]}').new_response == "sealed, 75c"
    # Without JSON, CogProbe's prompt asks for "a new answer": an answer line is it.
    r = metacognition.parse_reflection("Reasonableness: Not reasonable\nReason: I miscounted.\nAnswer: 3")
    assert (r.judgement, r.new_response) == ("Not reasonable", "3")


def test_final_choice_keeps_reads_and_never_replaces_an_unreadable_revision():
    read = {"true": 0, "false": 1, "unknown": 2}.get
    assert metacognition.final_choice(1, None, lambda t: read(t.casefold())) == (1, metacognition.KEPT)
    assert metacognition.final_choice(1, "False", lambda t: read(t.casefold())) == (1, metacognition.SAME)
    assert metacognition.final_choice(1, "Answer: True", lambda t: read(t.casefold())) == (0, metacognition.CHANGED)
    assert metacognition.final_choice(1, "the other one", lambda t: read(t.casefold())) == (None, metacognition.REVISION_UNREADABLE)


# --------------------------------------------------------------------------- #
# Metrics, by hand
# --------------------------------------------------------------------------- #


def _record(first, gold, judgement, confidence, final, revision, reflection="because", invalid=False):
    fields = {
        "judgement": metacognition.OK if judgement else metacognition.UNREADABLE,
        "confidence": metacognition.OK if confidence is not None else metacognition.UNREADABLE,
        "reflection": metacognition.OK if reflection else metacognition.ABSENT,
        "new_response": metacognition.OK,
    }
    r = metacognition.Reflection(judgement, confidence, reflection, None, fields, "json")
    rec = metacognition.reflection_record(r, first=first, gold=gold, final=final, revision=revision)
    rec["reflection_invalid"] = invalid or rec["reflection_invalid"]
    return rec


def test_metrics_of_five_hand_built_episodes():
    """Gold is 0 throughout.

    ep  first  judgement        conf  new answer          final  F R  label  J=L
    A   0      Reasonable       90    None (kept)         0      1 1  R      1
    B   1      Not reasonable   20    0 (corrected)       0      0 1  NR     1
    C   0      Not reasonable   60    1 (damages it)      1      1 0  R      0
    D   1      Reasonable       ---   None (unreadable c) 1      0 0  NR     0
    E   None   (unreadable)     40    None                None   0 0  NR     -
    """
    records = [
        _record(0, 0, "Reasonable", 90.0, 0, metacognition.KEPT),
        _record(1, 0, "Not reasonable", 20.0, 0, metacognition.CHANGED),
        _record(0, 0, "Not reasonable", 60.0, 1, metacognition.CHANGED),
        _record(1, 0, "Reasonable", None, 1, metacognition.KEPT),
        _record(None, 0, None, 40.0, None, metacognition.KEPT, reflection=None),
    ]
    got = metacognition.aggregate(records)
    expected = {
        "acc_first": 2 / 5,  # A, C
        "acc_final": 2 / 5,  # A, B
        "delta": 0.0,
        "correction_rate": 1 / 3,  # first wrong: B, D, E; made right: B
        "damage_rate": 1 / 2,  # first right: A, C; made wrong: C
        "revision_rate": 2 / 5,  # B, C
        "self_check_acc": 2 / 5,  # A, B right; C, D wrong; E missing = a miss
        # Brier over A, B, C, E (D's confidence unreadable, left out, never 0):
        # A (0.9-1)^2 = 0.01, B (0.2-0)^2 = 0.04, C (0.6-1)^2 = 0.16, E (0.4-0)^2 = 0.16 -> 0.37 / 4
        "brier_answer": 0.37 / 4,
        "cqs_answer": 1 - 0.37 / 4,
        # Over A, B, C (D: no confidence, E: no judgement); outcome = judgement right:
        # A (0.9-1)^2 = 0.01, B (0.2-1)^2 = 0.64, C (0.6-0)^2 = 0.36 -> 1 - 1.01 / 3
        "cqs_judgement": 1 - 1.01 / 3,
        "invalid_rate": 0.0,
        "first_invalid_rate": 1 / 5,  # E
        "judgement_missing_rate": 1 / 5,  # E
        "confidence_missing_rate": 1 / 5,  # D
        "reflection_missing_rate": 1 / 5,  # E
        "revision_invalid_rate": 0.0,
    }
    assert set(got) == set(expected)
    for name, value in expected.items():
        assert _same(got[name], value), name


def test_denominators_that_are_empty_give_nan():
    """All first answers right: no correction_rate; no readable confidence: no Brier/CQS."""
    got = metacognition.aggregate([_record(0, 0, "Reasonable", None, 0, metacognition.KEPT)] * 3)
    assert math.isnan(got["correction_rate"]) and got["damage_rate"] == 0.0
    assert math.isnan(got["brier_answer"]) and math.isnan(got["cqs_answer"]) and math.isnan(got["cqs_judgement"])
    assert all(math.isnan(v) for v in metacognition.aggregate([]).values())


# --------------------------------------------------------------------------- #
# The paradigm
# --------------------------------------------------------------------------- #


def test_passes_the_conformance_checks():
    check_paradigm(PARADIGM)


def test_presets_are_the_reflect_probes_and_the_inhibition_probes_are_left_out():
    assert set(PRESETS) == set(REFLECT_PROBES)
    left_out = set(REGISTRY) - set(REFLECT_PROBES)
    assert {"stroop", "flanker", "counting_stroop", "gonogo", "hayling"} <= left_out
    assert all(get_probe(p).ability == "inhibition" for p in left_out)
    # CogProbe's own operations (issue 12 part 4) are in.
    assert {"rule_execution", "classification", "episodic_memory", "analogy", "deduction"} <= set(REFLECT_PROBES)


@pytest.mark.parametrize("probe", sorted(REGISTRY))
def test_document_i_is_the_gen_tasks_document_i(probe):
    """Episode i of a task seeded s asks probe.generate(s, n)[i] (false-belief stories included),
    and its seed is the episode seed of (s, i)."""
    p = get_probe(probe)
    docs = p.generate(77, 12)
    for i in (0, 3, 11, 5):
        doc = probe_document(p, p.make_params(), 77, i)
        assert doc == docs[i] and doc["seed"] == episode_seed(77, i)


def test_an_episode_with_a_document_asks_that_item_whatever_the_env_seed():
    params = ReflectParams(probe="false_belief", document=(5, 7))
    env = ReflectEnv(params)
    message, info = env.reset(seed=episode_seed(5, 7))
    doc = get_probe("false_belief").generate(5, 8)[7]
    assert message == doc["prompt"] + GEN_SUFFIX and info["doc"] == doc


def _episode(params, first_reply, reflection_reply):
    env = ReflectEnv(params)
    _, info = env.reset(seed=3)
    message, terminated, _, _ = env.step(first_reply(info["doc"]))
    assert not terminated
    _, terminated, _, _ = env.step(reflection_reply(info["doc"]))
    assert terminated
    return env, message


def test_a_revision_that_damages_a_right_answer_end_to_end():
    doc_gold = lambda d: d["choices"][d["gold"]]  # noqa: E731
    doc_other = lambda d: d["choices"][(d["gold"] + 1) % len(d["choices"])]  # noqa: E731
    env, message = _episode(
        PRESETS["deduction"],
        lambda d: f"Let me think.\nAnswer: {doc_gold(d)}",
        lambda d: json.dumps({"rationality_judgement": "Not reasonable", "confidence_score": 30,
                              "model_reflection": "Hmm.", "new_response": doc_other(d)}),
    )  # fmt: skip
    assert message == metacognition.CONVERSATION_REQUEST
    values = PARADIGM.metrics(env.log, env.params)
    # First right (F=1), final wrong: damage 1, delta -1; label Reasonable, judged Not: miss;
    # brier (0.3 - 1)^2 = 0.49; cqs_judgement: outcome 0, (0.3 - 0)^2 = 0.09.
    assert values["acc_first"] == 1 and values["acc_final"] == 0 and values["delta"] == -1
    assert values["damage_rate"] == 1 and math.isnan(values["correction_rate"])
    assert values["self_check_acc"] == 0
    assert values["brier_answer"] == pytest.approx(0.49) and values["cqs_answer"] == pytest.approx(0.51)
    assert values["cqs_judgement"] == pytest.approx(0.91)
    assert values["fallback_share"] == 0 and values["invalid_rate"] == 0


def test_an_unreadable_first_answer_is_wrong_and_cogprobe_mode_pastes_the_task_and_reply():
    params = ReflectParams(probe="syllogism", mode="cogprobe")
    env, message = _episode(params, lambda d: "I cannot decide.", lambda d: "Reasonableness: Reasonable")
    doc = env.document
    assert message == metacognition.cogprobe_request(doc["prompt"] + GEN_SUFFIX, "I cannot decide.")
    values = PARADIGM.metrics(env.log, params)
    assert values["first_invalid_rate"] == 1 and values["acc_first"] == 0 and values["acc_final"] == 0
    # Judged Reasonable, but the (unreadable, wrong) answer's label is Not reasonable.
    assert values["self_check_acc"] == 0 and values["confidence_missing_rate"] == 1
    assert math.isnan(values["cqs_answer"])


def test_an_unreadable_revision_is_wrong_not_the_first_answer():
    env, _ = _episode(
        PRESETS["deduction"],
        lambda d: f"Answer: {d['choices'][d['gold']]}",
        lambda d: '{"rationality_judgement": "Not reasonable", "confidence_score": 50, "new_response": "the other"}',
    )
    values = PARADIGM.metrics(env.log, env.params)
    assert values["acc_final"] == 0 and values["revision_invalid_rate"] == 1 and values["damage_rate"] == 1


def test_bad_parameters_name_themselves():
    with pytest.raises(ValueError, match="mode"):
        ReflectParams(mode="fresh")
    with pytest.raises(ValueError, match="strategy"):
        ReflectParams(strategy="cot")
    with pytest.raises(ValueError, match="probe"):
        ReflectParams(probe="deducton")
    with pytest.raises(ValueError, match="depth|colours|parameter"):
        ReflectParams(probe="deduction", probe_params={"nonsense": 1})
    with pytest.raises(ValueError, match="document"):
        ReflectParams(document=(1, -1))


# --------------------------------------------------------------------------- #
# Reference players
# --------------------------------------------------------------------------- #


def _mean_metrics(policy, preset="deduction", n=200):
    params = PARADIGM.make_params(preset)
    records = [play(PARADIGM, params, episode_seed(99, i), policy).log[-1] for i in range(n)]
    return metacognition.aggregate(records)


def test_optimal_player_is_perfect_everywhere():
    m = _mean_metrics("optimal", n=30)
    for name in ("acc_first", "acc_final", "self_check_acc", "cqs_answer", "cqs_judgement"):
        assert m[name] == 1.0, name
    assert m["delta"] == 0 and m["brier_answer"] == 0 and m["damage_rate"] == 0 and math.isnan(m["correction_rate"])
    assert m["invalid_rate"] == 0 and m["confidence_missing_rate"] == 0


def test_overconfident_player_calibration_equals_its_accuracy():
    m = _mean_metrics("overconfident")
    a = m["acc_first"]
    assert 0.2 < a < 0.5 and m["acc_final"] == a  # deduction: 3 choices
    assert m["self_check_acc"] == pytest.approx(a) and m["cqs_answer"] == pytest.approx(a)
    assert m["cqs_judgement"] == pytest.approx(a) and m["brier_answer"] == pytest.approx(1 - a)
    assert m["correction_rate"] == 0 and m["damage_rate"] == 0


def test_self_correcting_player_separates_the_two_cqs():
    m = _mean_metrics("self_correcting")
    assert m["acc_final"] == 1 and m["correction_rate"] == 1 and m["self_check_acc"] == 1
    assert m["cqs_answer"] == 1 and m["cqs_judgement"] == pytest.approx(m["acc_first"])
    assert m["delta"] == pytest.approx(1 - m["acc_first"])


def test_second_guessing_player_damages_every_right_answer():
    m = _mean_metrics("second_guessing", n=40)
    assert m["acc_first"] == 1 and m["acc_final"] == 0 and m["delta"] == -1 and m["damage_rate"] == 1
    assert m["cqs_answer"] == 0.75 and m["cqs_judgement"] == 0.75 and m["revision_rate"] == 1


def test_random_player_final_answer_is_uniform():
    """Chance of acc_final: the mean of 1 / (number of choices) over the items."""
    params = PARADIGM.make_params("causal_ladder")
    logs = [play(PARADIGM, params, episode_seed(7, i), "random").log for i in range(2000)]
    chance = sum(1 / len(log[0]["choices"]) for log in logs) / len(logs)
    acc = sum(log[-1]["final_correct"] for log in logs) / len(logs)
    assert acc == pytest.approx(chance, abs=0.035)  # 2,000 coin flips: SE 0.011
    assert all(log[-1]["reflection_invalid"] is False for log in logs)


# --------------------------------------------------------------------------- #
# Tasks and lm-eval
# --------------------------------------------------------------------------- #


def test_task_yamls_are_up_to_date():
    proc = subprocess.run(
        [os.sys.executable, str(ROOT / "scripts" / "reflect_yamls.py"), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _cli(tmp: Path, *args: str) -> dict:
    """One real ``lm_eval`` run with cog_baseline; returns the results JSON. (The CLI has no
    --bootstrap_iters: lm-eval bootstraps each nanmean metric, so keep these runs small.)"""
    env = cog_env()
    proc = subprocess.run([LM_EVAL, "--model", "cog_baseline", *args, "--output_path", str(tmp / "out"),
                           "--log_samples"], cwd=tmp, env=env, capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-6000:]
    (path,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    return json.loads(Path(path).read_text())


@pytest.fixture(scope="module")
def optimal_group() -> dict:
    """cog_metacognition, 2 episodes per task, through lm-eval's evaluator (bootstrap off)."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from lm_eval_cog._autoload import task_dir
    from lm_eval_cog.lmeval.baseline_model import BaselineLM

    return simple_evaluate(
        model=BaselineLM(policy="optimal"),
        tasks=["cog_metacognition"],
        limit=2,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False),
        log_samples=True,
        bootstrap_iters=0,
    )


def test_the_metacognition_group_runs_through_lm_eval_with_the_optimal_player(optimal_group):
    results = optimal_group["results"]
    for probe in REFLECT_PROBES:
        r = results[f"cog_{probe}_reflect"]
        assert r["acc_first,none"] == r["acc_final,none"] == r["cqs_answer,none"] == 1.0, probe
        assert r["invalid_rate,none"] == 0.0 and r["episode_failed,none"] == 0.0
        assert _same(r["acc_final_chance,none"], chance_level(probe)), probe  # the preset's stored level
    assert results["cog_metacognition"]["acc_final,none"] == 1.0


def chance_level(probe: str) -> float:
    from lm_eval_cog.paradigms import chance

    level = chance.stored("reflect", probe)
    return math.nan if level is None else level.mean


def test_episodes_ask_the_gen_items_and_their_transcripts_rescore(optimal_group):
    from lm_eval_cog.transcripts import score_transcript

    samples = optimal_group["samples"]["cog_deduction_reflect"]
    transcripts = [json.loads(s["resps"][0][0]) for s in sorted(samples, key=lambda s: s["doc_id"])]
    docs = get_probe("deduction").generate(1234, 2)  # lm-eval's default task seed
    assert [t["turns"][0]["user"] for t in transcripts] == [d["prompt"] + GEN_SUFFIX for d in docs]
    assert [t["params"]["document"] for t in transcripts] == [[1234, 0], [1234, 1]]
    for sample, transcript in zip(sorted(samples, key=lambda s: s["doc_id"]), transcripts):
        for name, value in score_transcript(transcript).items():
            assert _same(value, sample[name]), name


def test_cogprobe_task_with_a_damaging_player_through_the_lm_eval_command(tmp_path):
    """The real CLI, CogProbe's template, a player that damages every right answer; the
    samples file rescores offline to the results JSON."""
    from lm_eval_cog.transcripts import read_transcripts, recompute

    out = _cli(tmp_path, "--model_args", "policy=second_guessing", "--tasks", "cog_deduction_reflect_cogprobe",
               "--limit", "3")  # fmt: skip
    r = out["results"]["cog_deduction_reflect_cogprobe"]
    assert r["acc_first,none"] == 1.0 and r["acc_final,none"] == 0.0 and r["damage_rate,none"] == 1.0
    assert r["cqs_answer,none"] == pytest.approx(0.75) and r["delta,none"] == -1.0
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_deduction_reflect_cogprobe_*.jsonl"))
    transcript = read_transcripts(samples)[0]
    assert transcript["turns"][1]["user"].startswith("The task and your response are as follows:\n------\n")
    for name, value in recompute(samples).items():
        assert _same(value, r[f"{name},none"]), name


@pytest.mark.parametrize("value", ["not entirely reasonable", "Not fully Reasonable.", "it isn't reasonable", "hardly reasonable"])
def test_a_hedged_judgement_is_missing_never_reasonable(value):
    from lm_eval_cog.metacognition import read_judgement_value

    assert read_judgement_value(value) == (None, False)


@pytest.mark.parametrize(("value", "label"), [("Reasonable", "Reasonable"), ("Not reasonable", "Not reasonable"),
                                             ("**Unreasonable**", "Not reasonable"), ("reasonable.", "Reasonable")])
def test_plain_judgements_are_read(value, label):
    from lm_eval_cog.metacognition import read_judgement_value

    assert read_judgement_value(value) == (label, True)
