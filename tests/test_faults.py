"""Faults of the backend: the affected episodes fail with their reason, the others finish,
and the transcripts keep every turn and raw reply, as JSON that reads back.

Played through the seam (``run_requests`` + ``LMPlayer``) with a scripted fault-injecting
backend (``fault_backend.FaultLM``), and once through the real ``lm_eval`` CLI.
"""

from __future__ import annotations

import glob
import json
import logging
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fault_backend import LONG_REPLY, TASK, TRIALS, UNDECODABLE_REPLY, FaultLM, requests
from lm_eval_cog import runner
from lm_eval_cog.lmeval import seam
from lm_eval_cog.transcripts import read_transcripts, recompute, score_transcript

def play_raw(faults: str = "", n: int = 3, turn_timeout: float | None = None, **kwargs) -> tuple[FaultLM, list[str]]:
    """The backend and the transcripts as the seam returns them (JSON strings)."""
    lm = FaultLM(faults=faults, hang_s=30)
    try:
        out = seam.run_requests(requests(n, **kwargs), seam.LMPlayer(lm), progress=False, turn_timeout=turn_timeout)
    finally:
        lm.release.set()  # lets an abandoned hanging request end
    assert all(isinstance(t, str) for t in out)
    return lm, out


def play(faults: str = "", n: int = 3, turn_timeout: float | None = None, **kwargs) -> tuple[FaultLM, list[dict]]:
    lm, out = play_raw(faults, n, turn_timeout, **kwargs)
    return lm, [json.loads(t) for t in out]


def statuses(transcripts: list[dict]) -> list[str]:
    return [t["status"] for t in transcripts]


def test_a_raising_request_fails_only_its_episode_and_keeps_the_turns_before_it():
    _, ts = play("1:2:raise")
    assert statuses(ts) == ["completed", "failed", "completed"]
    failed = ts[1]
    assert failed["error"].startswith("model request failed: RuntimeError: injected fault on episode 1")
    assert [t["reply"] for t in failed["turns"]] == ["Answer: 1", None]  # turn 2 was asked, never answered
    assert len(failed["trials"]) == 1
    assert all(len(t["trials"]) == TRIALS for t in (ts[0], ts[2]))


def test_an_empty_reply_is_an_invalid_trial_not_a_failure():
    # An empty reply is what some models say (EOS at once): data, counted invalid, never a choice.
    _, ts = play("0:2:empty")
    assert statuses(ts) == ["completed"] * 3
    trial = ts[0]["trials"][1]
    assert ts[0]["turns"][1]["reply"] == "" and trial["choice"] is None and trial["invalid"] is not None
    assert score_transcript(ts[0])["invalid_rate"] == pytest.approx(1 / TRIALS)


def test_a_100k_character_reply_is_kept_whole_and_its_closing_answer_read():
    _, ts = play("0:1:long")
    assert statuses(ts) == ["completed"] * 3
    assert ts[0]["turns"][0]["reply"] == LONG_REPLY and len(LONG_REPLY) == 100_000
    assert ts[0]["trials"][0]["choice"] == 1  # card 2 (the log holds the option index, 0-3)


def test_undecodable_bytes_are_kept_in_the_transcript_and_never_reach_the_tokenizer():
    lm, ts = play("0:1:undecodable;1:1:bytes")
    assert statuses(ts) == ["completed"] * 3
    assert ts[0]["turns"][0]["reply"] == UNDECODABLE_REPLY  # lone surrogates survive the JSON round trip
    assert ts[1]["turns"][0]["reply"] == "Answer: 2 \udcff"  # a bytes reply, decoded losslessly
    assert [ts[0]["trials"][0]["choice"], ts[1]["trials"][0]["choice"]] == [2, 1]  # cards 3 and 2
    # Later prompts carry U+FFFD where the undecodable bytes were: every prompt is valid UTF-8.
    later = [p for doc, p in lm.received if doc == 0 and p.count("User: ") == 2]
    assert later and "Answer: 3 \ufffd\ufffd" in later[0]
    for _, prompt in lm.received:
        prompt.encode("utf-8")


def test_a_reply_that_is_not_text_fails_its_episode_with_the_type_named():
    _, ts = play("2:3:none")
    assert statuses(ts) == ["completed", "completed", "failed"]
    assert ts[2]["error"] == "model request failed: the backend returned NoneType None, not a str"
    assert [t["reply"] for t in ts[2]["turns"]] == ["Answer: 1", "Answer: 1", None]


def test_a_hanging_request_times_out_and_fails_only_its_episode():
    start = time.monotonic()
    _, ts = play("1:2:hang", turn_timeout=0.5)
    elapsed = time.monotonic() - start
    assert statuses(ts) == ["completed", "failed", "completed"]
    assert "TurnTimeout: no reply within the turn timeout of 0.5 s" in ts[1]["error"]
    assert [t["reply"] for t in ts[1]["turns"]] == ["Answer: 1", None]
    # The batched call timed out, then each episode was retried alone: two timeouts, not 30 s.
    assert elapsed < 10


def test_without_a_timeout_no_thread_is_used(monkeypatch):
    # The default path calls the backend directly (HF and vLLM stay on the main thread).
    monkeypatch.setattr(runner.threading, "Thread", None)
    _, ts = play("")
    assert statuses(ts) == ["completed"] * 3


def test_turn_timeout_from_the_environment_is_validated(monkeypatch):
    monkeypatch.setenv(seam.TURN_TIMEOUT_ENV, "2.5")
    assert seam.turn_timeout_from_env() == 2.5
    monkeypatch.setenv(seam.TURN_TIMEOUT_ENV, "")
    assert seam.turn_timeout_from_env() is None
    for bad in ("0", "-1", "soon", "nan"):
        monkeypatch.setenv(seam.TURN_TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=f"LM_EVAL_COG_TURN_TIMEOUT must be a positive number of seconds, got '{bad}'"):
            seam.turn_timeout_from_env()


def test_every_fault_at_once_leaves_transcripts_that_read_back_and_rescore(tmp_path):
    faults = "0:1:undecodable;1:2:raise;2:1:long;3:2:empty;4:3:none;5:2:hang"
    _, raw = play_raw(faults, n=7, turn_timeout=0.5)
    ts = [json.loads(t) for t in raw]
    assert statuses(ts) == ["completed", "failed", "completed", "completed", "failed", "failed", "completed"]
    # As lm-eval's sample logger writes them (UTF-8, ensure_ascii=False): no UnicodeEncodeError.
    path = tmp_path / "samples.jsonl"
    rows = [{"doc_id": i, "resps": [[r]]} for i, r in enumerate(raw)]
    path.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in rows), encoding="utf-8")
    assert read_transcripts(path) == ts
    metrics = recompute(path)
    assert metrics["episode_failed"] == pytest.approx(3 / 7)
    assert not math.isnan(metrics["acc"])


def failing(statuses_: list[str], task: str = TASK) -> list[runner.Episode]:
    eps = []
    for i, status in enumerate(statuses_):
        ep = runner.Episode(spec={"task": task, "index": i}, status=status)
        ep.error = f"boom {i}" if status == runner.FAILED else None
        eps.append(ep)
    return eps


def test_more_than_a_tenth_of_a_tasks_episodes_failing_is_a_loud_warning(caplog):
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    seam.warn_on_failures(failing(["failed", "completed", "failed"] + ["completed"] * 7) + failing(["failed"] + ["completed"] * 9, "other"))
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(f"task {TASK}: 2 of 10 episodes FAILED (20%)")
    assert "episode 0: boom 0; episode 2: boom 2" in record.getMessage()  # exactly 10% ("other"): no warning


def test_the_failure_warning_comes_from_a_real_run(caplog):
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    play("1:1:raise", n=3)
    assert any("task cog_wcst_direct: 1 of 3 episodes FAILED (33%)" in r.getMessage() for r in caplog.records)


def test_faults_through_the_real_lm_eval_cli(tmp_path):
    """lm-eval's own evaluator and sample writer: lone surrogates, a failure, a hang, a 100k reply."""
    tests = str(Path(__file__).parent)
    code = f"import sys; sys.path.insert(0, {tests!r}); import fault_backend; from lm_eval.__main__ import cli_evaluate; cli_evaluate()"
    args = [
        "--model", "cog-fault",
        "--model_args", "faults=0:1:undecodable;1:2:raise;2:2:hang;3:1:long,hang_s=60",
        "--tasks", TASK, "--limit", "4", "--metadata", json.dumps({"wcst": {"trials": 3}}),
        "--output_path", str(tmp_path / "out"), "--log_samples",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", seam.TURN_TIMEOUT_ENV: "1"}
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "task cog_wcst_direct: 2 of 4 episodes FAILED (50%)" in proc.stderr
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / f"samples_{TASK}_*.jsonl"))
    (results,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    ts = read_transcripts(samples)
    assert statuses(ts) == ["completed", "failed", "failed", "completed"]
    assert ts[0]["turns"][0]["reply"] == UNDECODABLE_REPLY and ts[3]["turns"][0]["reply"] == LONG_REPLY
    assert "TurnTimeout" in ts[2]["error"] and "injected fault on episode 1" in ts[1]["error"]
    reported = json.loads(Path(results).read_text())["results"][TASK]
    for name, value in recompute(samples).items():
        got = reported[f"{name},none"]  # null in the (strict JSON) results file where undefined
        assert (math.nan if got is None else got) == pytest.approx(value, nan_ok=True)
    assert reported["episode_failed,none"] == 0.5


def test_nan_log_likelihoods_through_the_real_lm_eval_cli_are_invalid_items_not_a_perfect_score(tmp_path):
    """A backend whose every log-likelihood is NaN used to get acc 1, acc_norm 1 and ece 0 (the best
    value) on cog_stroop_mc: np.argmax of a NaN row is 0, and NaN confidences fell in no ECE bin."""
    from lm_eval_cli import cog_env

    tests = str(Path(__file__).parent)
    code = f"import sys; sys.path.insert(0, {tests!r}); import fault_backend; from lm_eval.__main__ import cli_evaluate; cli_evaluate()"
    # Quoted: lm-eval would parse a bare nan into a float and write it into the results' config.
    args = ["--model", "cog-fault", "--model_args", "ll='nan'", "--tasks", "cog_stroop_mc", "--limit", "4",
            "--output_path", str(tmp_path / "out"), "--log_samples"]  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, env=cog_env(), capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    (results,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    strict = {"parse_constant": lambda token: pytest.fail(f"non-strict JSON token {token}")}
    reported = json.loads(Path(results).read_text(), **strict)["results"]["cog_stroop_mc"]
    assert reported["acc,none"] == reported["acc_norm,none"] == 0.0
    assert reported["invalid_rate,none"] == 1.0
    # Undefined, never 0: no item has a probability distribution over its choices.
    for name in ("ece", "brier_score", "lure_margin", "lure_margin_incongruent"):
        assert reported[f"{name},none"] is None, name
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_stroop_mc_*.jsonl"))
    rows = [json.loads(line, **strict) for line in Path(samples).read_text().splitlines()]
    assert len(rows) == 4 and all(r["invalid_rate"] == 1.0 and r["acc"] == 0.0 for r in rows)
