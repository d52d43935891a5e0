"""Interactive tasks inside lm-eval's own evaluator, with an in-process fake backend.

The fake counts ``generate_until`` calls and sees every prompt, which a real model
cannot show; the real-model runs are in ``test_e2e_cli.py``.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager

from lm_eval_cog._autoload import register_baseline, task_dir
from lm_eval_cog.transcripts import score_transcript
from lm_eval_cog.paradigms import get_paradigm

WCST = get_paradigm("wcst")


class FakeLM(LM):
    """Replies ``Answer: 1`` to everything; tokens are whitespace-separated words."""

    def __init__(self, max_length: int = 100_000, fail_when=None) -> None:
        super().__init__()
        self.max_length = max_length
        self.fail_when = fail_when
        self.calls: list[list[tuple]] = []

    def generate_until(self, requests, disable_tqdm: bool = False):
        args = [r.args for r in requests]
        self.calls.append(args)
        if self.fail_when and any(self.fail_when(prompt) for prompt, _ in args):
            raise RuntimeError("backend exploded on this prompt")
        return ["Answer: 1" for _ in requests]

    def tok_encode(self, text: str):
        return text.split()

    def loglikelihood(self, requests):
        raise NotImplementedError

    loglikelihood_rolling = loglikelihood


def evaluate(lm, tasks, limit=3, metadata=None, **kwargs):
    # As the CLI does with --metadata: the TaskManager hands it to every task.
    return by_task_name(simple_evaluate(
        model=lm,
        tasks=tasks,
        limit=limit,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False, metadata=metadata),
        log_samples=True,
        bootstrap_iters=0,
        **kwargs,
    ))


def by_task_name(out):
    """lm-eval 0.5 names a group's member ``group::task`` in ``results``; 0.4.13 ``task``."""
    out["results"] = {name.split("::")[-1]: row for name, row in out["results"].items()}
    return out


def transcripts(out, task):
    return [json.loads(s["resps"][0][0]) for s in out["samples"][task]]


def test_each_turn_is_one_generate_until_call_over_all_live_episodes():
    lm = FakeLM()
    out = evaluate(lm, ["cog_wcst"], limit=3)
    assert len(lm.calls) == 64  # wcst64: every episode plays 64 trials
    assert all(len(call) == 3 for call in lm.calls)
    for t in transcripts(out, "cog_wcst"):
        assert t["status"] == "completed" and len(t["turns"]) == 64 and len(t["trials"]) == 64


def test_episodes_of_several_tasks_share_the_calls_of_a_turn():
    lm = FakeLM()
    evaluate(lm, ["cog_wcst", "cog_wcst_kennedy"], limit=2)
    assert [len(c) for c in lm.calls] == [4] * 25 + [2] * (64 - 25)


def test_trimming_to_the_context_window_keeps_the_instructions_and_records_dropped_turns():
    lm = FakeLM(max_length=1200)  # words; far shorter than a 64-trial transcript
    out = evaluate(lm, ["cog_wcst_direct"], limit=2)
    system = transcripts(out, "cog_wcst_direct")[0]["system"]
    budget = 1200 - 32  # max_length minus the direct strategy's generation budget
    for call in lm.calls:
        for prompt, _ in call:
            assert prompt.startswith(system) and len(prompt.split()) <= budget
    turns = transcripts(out, "cog_wcst_direct")[0]["turns"]
    assert turns[0]["dropped_turns"] == 0 and turns[-1]["dropped_turns"] > 0
    assert all(a["dropped_turns"] <= b["dropped_turns"] for a, b in zip(turns, turns[1:]))
    assert all(t["prompt_tokens"] <= budget for t in turns)


def test_a_failing_episode_is_recorded_with_its_reason_while_the_others_finish():
    # The backend fails on episode 1's sixth prompt: its first three stimuli in a row
    # identify it (prompts carry the whole history), six user turns the sixth turn.
    probe = evaluate(FakeLM(), ["cog_wcst_direct"], limit=3)
    first = "\nAssistant:Answer: 1\nUser: ".join(t["user"] for t in transcripts(probe, "cog_wcst_direct")[1]["turns"][:3])
    out = evaluate(FakeLM(fail_when=lambda p: first in p and p.count("User: ") >= 6), ["cog_wcst_direct"], limit=3)
    status = [t["status"] for t in transcripts(out, "cog_wcst_direct")]
    assert status == ["completed", "failed", "completed"]
    failed = transcripts(out, "cog_wcst_direct")[1]
    assert "backend exploded" in failed["error"] and len(failed["trials"]) == 5
    res = out["results"]["cog_wcst_direct"]
    assert res["episode_failed,none"] == pytest.approx(1 / 3)
    assert not math.isnan(res["acc,none"])  # the failed episode drops out of the means


def test_metrics_recomputed_from_logged_samples_equal_the_reported_ones():
    out = evaluate(FakeLM(), ["cog_wcst_kennedy"], limit=3)
    samples = out["samples"]["cog_wcst_kennedy"]
    per_episode = [score_transcript(s["resps"][0][0]) for s in samples]
    for name in [s.name for s in WCST.metric_specs]:
        values = [m[name] for m in per_episode]
        expected = np.nan if all(map(math.isnan, values)) else np.nanmean(values)
        assert out["results"]["cog_wcst_kennedy"][f"{name},none"] == pytest.approx(expected, nan_ok=True)
        assert [s[name] for s in samples] == pytest.approx(values, nan_ok=True)


def test_gen_kwargs_and_system_instruction_reach_every_turn():
    lm = FakeLM()
    evaluate(lm, ["cog_wcst_direct"], limit=1, gen_kwargs={"max_gen_toks": 7}, system_instruction="Be careful.")
    prompt, gen_kwargs = lm.calls[3][0]
    assert gen_kwargs["max_gen_toks"] == 7 and gen_kwargs["do_sample"] is False
    assert "\nUser:" in gen_kwargs["until"]  # plain transcript: never write the next user turn
    assert prompt.startswith("Be careful.\n\n")


def test_same_seed_gives_the_same_stimuli_and_metadata_seed_changes_them():
    first = [t["turns"][0]["user"] for t in transcripts(evaluate(FakeLM(), ["cog_wcst"], limit=3), "cog_wcst")]
    again = [t["turns"][0]["user"] for t in transcripts(evaluate(FakeLM(), ["cog_wcst"], limit=3), "cog_wcst")]
    other = evaluate(FakeLM(), ["cog_wcst"], limit=3, metadata={"seed": 99})
    assert first == again
    assert first != [t["turns"][0]["user"] for t in transcripts(other, "cog_wcst")]
    assert transcripts(other, "cog_wcst")[0]["task_seed"] == 99


def test_paradigm_parameters_come_from_metadata_and_bad_ones_name_themselves():
    out = evaluate(FakeLM(), ["cog_wcst"], limit=1, metadata={"wcst": {"trials": 12}, "episodes": 2})
    assert len(transcripts(out, "cog_wcst")[0]["trials"]) == 12
    with pytest.raises(ValueError, match="trials"):
        evaluate(FakeLM(), ["cog_wcst"], limit=1, metadata={"wcst": {"trials": 0}})
    with pytest.raises(ValueError, match="triles"):
        evaluate(FakeLM(), ["cog_wcst"], limit=1, metadata={"wcst": {"triles": 10}})
    with pytest.raises(ValueError, match="episodes"):
        evaluate(FakeLM(), ["cog_wcst"], limit=1, metadata={"episodes": 0})


def test_predict_only_keeps_transcripts_without_metrics():
    out = evaluate(FakeLM(), ["cog_wcst_kennedy"], limit=1, predict_only=True)
    assert transcripts(out, "cog_wcst_kennedy")[0]["status"] == "completed"


@pytest.fixture(scope="module")
def baseline():
    register_baseline()
    return lambda policy, task, limit: simple_evaluate(
        model="cog_baseline",
        model_args=f"policy={policy}",
        tasks=[task],
        limit=limit,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False),
        log_samples=True,
        bootstrap_iters=0,
    )


def test_optimal_player_completes_five_categories_with_five_perseverative_errors_every_episode(baseline):
    out = baseline("optimal", "cog_wcst", None)  # all 30 default episodes
    samples = out["samples"]["cog_wcst"]
    assert len(samples) == 30
    assert all(s["categories_completed"] == 5 and s["perseverative_errors"] == 5 for s in samples)
    assert all(10 <= s["trials_to_first_category"] <= 12 for s in samples)


def test_random_player_is_right_a_quarter_of_the_time(baseline):
    out = baseline("random", "cog_wcst_direct", None)
    assert out["results"]["cog_wcst_direct"]["acc,none"] == pytest.approx(0.25, abs=0.03)
    assert out["results"]["cog_wcst_direct"]["invalid_rate,none"] == 0


def test_unknown_baseline_policy_is_a_clear_error(baseline):
    with pytest.raises(ValueError, match="Unknown cog_baseline policy 'optimum'. Did you mean: optimal"):
        baseline("optimum", "cog_wcst", 1)


def test_lm_evals_seed_argument_sets_the_task_seed_unless_metadata_gives_one():
    default = transcripts(evaluate(FakeLM(), ["cog_wcst"], limit=2), "cog_wcst")
    reseeded = transcripts(evaluate(FakeLM(), ["cog_wcst"], limit=2, fewshot_random_seed=7), "cog_wcst")
    assert [t["task_seed"] for t in default] == [1234, 1234] and reseeded[0]["task_seed"] == 7
    assert [t["turns"][0]["user"] for t in default] != [t["turns"][0]["user"] for t in reseeded]
    pinned = transcripts(evaluate(FakeLM(), ["cog_wcst"], limit=1, fewshot_random_seed=7, metadata={"seed": 5}), "cog_wcst")
    assert pinned[0]["task_seed"] == 5


class FakeVLLM(FakeLM):
    """Mimics lm-eval's vLLM wrapper where the runner depends on it: ``generate_until`` sends
    ``batch_size`` prompts per ``_model_generate`` call (the CLI default is 1), as token ids, and
    gets back outputs with ``num_cached_tokens``: here the longest prefix shared with any earlier
    prompt, in whole blocks of 4 tokens, as vLLM's prefix cache would serve it."""

    BLOCK = 4

    def __init__(self) -> None:
        super().__init__()
        self.batch_size = 1  # lm_eval's CLI default
        self.seen_batch_sizes: list = []
        self.engine_calls: list[int] = []
        self.history: list[list[str]] = []

    def generate_until(self, requests, disable_tqdm: bool = False):
        self.seen_batch_sizes.append(self.batch_size)
        size = len(requests) if self.batch_size == "auto" else int(self.batch_size)
        ids = [self.tok_encode(r.args[0]) for r in requests]
        for start in range(0, len(ids), size):
            self._model_generate(ids[start : start + size], generate=True)
        return super().generate_until(requests, disable_tqdm)

    def _model_generate(self, requests, generate=False, sampling_params=None):
        self.engine_calls.append(len(requests))
        outputs = []
        for tokens in requests:
            shared = max((_common_prefix(tokens, old) for old in self.history), default=0)
            outputs.append(SimpleNamespace(prompt_token_ids=list(tokens), num_cached_tokens=shared // self.BLOCK * self.BLOCK))
            self.history.append(list(tokens))
        return outputs


def _common_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


FakeVLLM.__module__ = "lm_eval.models.vllm_causallms"


def test_vllm_gets_one_engine_call_per_turn_even_with_the_default_batch_size_one():
    lm = FakeVLLM()
    evaluate(lm, ["cog_wcst_kennedy"], limit=3)
    assert lm.seen_batch_sizes == [3] * 25
    assert lm.engine_calls == [3] * 25  # one engine generate per turn, all episodes in it
    assert lm.batch_size == 1  # restored for the user's other tasks


def test_vllm_prefix_cache_hits_are_recorded_per_turn_and_summarised():
    """Turn 2 onwards re-sends turn 1's prompt + reply: the cache serves it, each turn records it,
    and the task reports the episode's cached share."""
    lm = FakeVLLM()
    out = evaluate(lm, ["cog_wcst_kennedy", "cog_nback"], limit=2, metadata={"nback": {"trials": 10}})
    for task in ("cog_wcst_kennedy", "cog_nback"):
        for t in transcripts(out, task):
            turns = t["turns"]
            assert all(turn["cached_tokens"] is not None for turn in turns)
            for before, after in zip(turns, turns[1:]):  # whole blocks of the previous prompt
                assert after["cached_tokens"] >= before["prompt_tokens"] // 4 * 4 - 4
            assert t["turns"][0]["cached_tokens"] <= t["turns"][0]["prompt_tokens"]
        share = out["results"][task]["prefix_cached_share,none"]
        assert 0.5 < share < 1.0


def test_backends_without_cache_reports_give_nan_cached_share():
    out = evaluate(FakeLM(), ["cog_mbt"], limit=1)
    assert math.isnan(out["results"]["cog_mbt"]["prefix_cached_share,none"])


def test_suite_group_reports_mean_accuracy_of_its_tasks():
    out = evaluate(FakeLM(), ["cog_wcst_suite"], limit=1)
    members = ["cog_wcst", "cog_wcst_direct", "cog_wcst_free", "cog_wcst_kennedy", "cog_wcst_reflection_bench"]
    accs = [out["results"][t]["acc,none"] for t in members]
    assert out["results"]["cog_wcst_suite"]["acc,none"] == pytest.approx(sum(accs) / len(accs))
