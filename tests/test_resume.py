"""An interrupted run resumes from lm-eval's ``--use_cache`` without replaying finished turns.

The kill-and-resume test is the real thing: the stock ``lm_eval`` command, the real
SmolLM2-135M-Instruct on CPU, SIGKILL mid-episode, the same command again. The cache
mechanics (keys, model identity, sampling, vLLM counts) are pinned with a scripted backend.
"""

from __future__ import annotations

import glob
import json
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from lm_eval.api.model import CachingLM, hash_args

from fault_backend import TRIALS, FaultLM, requests
from lm_eval_cog.lmeval import seam
from lm_eval_cog.lmeval.episode_cache import IDENTITY_KEY, TABLE, CacheMismatch, TurnCache, model_identity
from lm_eval_cli import LM_EVAL, cog_env

TASK = "cog_wcst_direct"
SUMMARY = re.compile(r"--use_cache \S+: (\d+) turn requests replayed from the cache, (\d+) generated")


class CountingLM(FaultLM):
    """Replies by turn, so that a replayed reply is told apart from a fresh one; writes each
    reply to lm-eval's cache hook as it comes, as HF's ``generate_until`` does."""

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        super().generate_until(requests)
        replies = [f"Answer: {1 + str(r.args[0]).count('User: ') % 4}" for r in requests]
        for request, reply in zip(requests, replies):
            self.cache_hook.add_partial("generate_until", request.args, reply)
        return replies


def cached(tmp_path: Path, lm: FaultLM) -> CachingLM:
    """What ``--use_cache`` does to the model: the wrapper attaches its database to ``lm``."""
    return CachingLM(lm, str(tmp_path / "cache_rank0.db"))


def our_rows(caching: CachingLM) -> sqlite3.Connection:
    """lm-eval-cog's own table in the ``--use_cache`` file (JSON values), beside lm-eval's."""
    return sqlite3.connect(caching.dbdict.filename)


def play(lm, n: int = 2, **kwargs) -> tuple[list[str], seam.LMPlayer]:
    player = seam.LMPlayer(lm)
    out = seam.run_requests(requests(n, **kwargs), player, progress=False)
    return out, player


def test_a_rerun_replays_every_turn_from_the_cache_without_a_model_call(tmp_path):
    first = CountingLM()
    cached(tmp_path, first)
    out1, player1 = play(first)
    assert (player1.replayed, player1.generated) == (0, 2 * TRIALS) and first.calls == TRIALS
    second = CountingLM()
    cached(tmp_path, second)
    out2, player2 = play(second)
    assert out2 == out1
    assert (player2.replayed, player2.generated) == (2 * TRIALS, 0) and second.calls == 0


def test_rows_use_lm_evals_own_key_so_a_half_finished_turn_resumes(tmp_path):
    # HF reports each reply as it comes (cache_hook.add_partial) under lm-eval's key: our
    # table keeps it under that key, so a turn cut off half-way keeps its finished requests.
    first = CountingLM()
    caching = cached(tmp_path, first)
    out1, _ = play(first)
    prompt = next(p for d, p in first.received if d == 1 and p.count("User: ") == 3)
    sent = json.loads(out1[1])["gen_kwargs"]
    key = hash_args("generate_until", (prompt, sent))
    assert caching.dbdict[key] == "Answer: 4"  # lm-eval's own row, as lm-eval writes it
    with our_rows(caching) as con:
        (value,) = con.execute(f"SELECT value FROM {TABLE} WHERE key = ?", (key,)).fetchone()
        assert json.loads(value) == {"reply": "Answer: 4", "cached_tokens": None}
        # Forget episode 1's last two turns: the rerun generates exactly those.
        for doc, p in first.received:
            if doc == 1 and p.count("User: ") >= 3:
                con.execute(f"DELETE FROM {TABLE} WHERE key = ?", (hash_args("generate_until", (p, sent)),))
    second = CountingLM()
    cached(tmp_path, second)
    out2, player2 = play(second)
    assert out2 == out1 and (player2.replayed, player2.generated) == (2 * TRIALS - 2, 2)
    assert [(d, p.count("User: ")) for d, p in second.received] == [(1, 3), (1, 4)]


def test_a_cache_written_by_another_model_is_refused_before_any_request(tmp_path):
    first = CountingLM()
    cached(tmp_path, first)
    play(first)
    other = CountingLM()
    other.model = "someone/else"  # another model identity
    caching = cached(tmp_path, other)
    seam.install()
    with pytest.raises(CacheMismatch, match=r"holds replies of model .*CountingLM None.*this run's model is .*someone/else"):
        caching.cog_episode(requests(2))
    assert other.calls == 0
    with our_rows(caching) as con:
        (stored,) = con.execute(f"SELECT value FROM {TABLE} WHERE key = ?", (IDENTITY_KEY,)).fetchone()
    assert json.loads(stored) == model_identity(first)


def test_sampled_generation_is_never_replayed(tmp_path, monkeypatch):
    # As lm-eval's CachingLM: identical prompts of two episodes must not share one draw.
    def sampled(n):
        reqs = requests(n)
        for r in reqs:
            r.args[1]["gen_kwargs"] = {"until": [], "max_gen_toks": 8, "do_sample": True, "temperature": 0.7}
        return reqs

    for _ in range(2):
        lm = CountingLM()
        cached(tmp_path, lm)
        player = seam.LMPlayer(lm)
        seam.run_requests(sampled(2), player, progress=False)
        assert (player.replayed, player.generated) == (0, 2 * TRIALS)


def test_vllm_prefix_cache_counts_are_replayed_with_the_reply(tmp_path):
    lm = CountingLM()
    caching = cached(tmp_path, lm)
    key = hash_args("generate_until", ("p", {"do_sample": False}))
    cache = TurnCache(caching.dbdict.filename, "m")
    cache.put(("p", {"do_sample": False}), "Answer: 1", 17)
    cache.commit()
    hit = TurnCache(caching.dbdict.filename, "m").get(("p", {"do_sample": False}))
    assert (hit.reply, hit.cached_tokens) == ("Answer: 1", 17)
    assert key not in caching.dbdict  # lm-eval's table is lm-eval's: the reply and its count are one JSON row of ours


def test_without_use_cache_nothing_is_read_or_written():
    lm = CountingLM()
    out, player = play(lm)
    assert player.cache is None and (player.replayed, player.generated) == (0, 2 * TRIALS)


# --------------------------------------------------------------------------- real model, SIGKILL

def _smollm2() -> str:
    try:
        from lm_eval_cog.smollm2 import model_dir

        return str(model_dir())
    except FileNotFoundError as exc:
        pytest.skip(f"embedded model not installed: {exc}")


def _command(model: str, cache: Path, out: Path) -> list[str]:
    return [
        LM_EVAL,
        "--model", "hf", "--model_args", f"pretrained={model},dtype=float32",
        "--tasks", TASK, "--limit", "2", "--metadata", json.dumps({"wcst": {"trials": 4}}),
        "--gen_kwargs", "max_gen_toks=8",
        "--use_cache", str(cache), "--output_path", str(out), "--log_samples",
    ]  # fmt: skip


def _env() -> dict[str, str]:
    return cog_env()


def _rows(db: Path) -> int:
    """Turn replies committed to lm-eval-cog's table of the cache database (the model-identity row left out)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            return con.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE key != ?", (IDENTITY_KEY,)).fetchone()[0]
    except sqlite3.OperationalError:  # table not created yet, or locked for a moment
        return 0


def _finished(tmp: Path, name: str) -> tuple[dict, list[dict], tuple[int, int]]:
    proc = subprocess.run(_command(_smollm2(), tmp / f"cache_{name}", tmp / name), cwd=tmp, env=_env(),
                          capture_output=True, text=True, timeout=1200)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    return _outputs(tmp / name) + (tuple(map(int, SUMMARY.search(proc.stderr).groups())),)


def _outputs(out: Path) -> tuple[dict, list[dict]]:
    from lm_eval_cog.transcripts import read_transcripts

    (results,) = glob.glob(str(out / "*" / "results_*.json"))
    (samples,) = glob.glob(str(out / "*" / f"samples_{TASK}_*.jsonl"))
    return json.loads(Path(results).read_text())["results"], read_transcripts(samples)


def test_a_run_killed_mid_episode_resumes_with_identical_results_and_no_call_for_finished_turns(tmp_path):
    model = _smollm2()
    reference, ref_transcripts, (replayed, total) = _finished(tmp_path, "reference")
    assert replayed == 0 and total == 2 * 4  # 2 episodes x 4 trials, one request per turn

    # Interrupted: SIGKILL once the cache holds some turns (the first turn and a half) but not all.
    db = tmp_path / "cache_resumed_rank0.db"
    proc = subprocess.Popen(_command(model, tmp_path / "cache_resumed", tmp_path / "resumed"), cwd=tmp_path,
                            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 900
        while _rows(db) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    done = _rows(db)
    assert 3 <= done < total, f"killed with {done} of {total} turn replies cached"
    assert not glob.glob(str(tmp_path / "resumed" / "*" / "results_*.json"))

    results, transcripts, (replayed, generated) = _finished(tmp_path, "resumed")
    print(f"killed with {done} of {total} turn replies cached; the rerun replayed {replayed}, generated {generated}")
    assert (replayed, generated) == (done, total - done)  # no model call for a cached turn
    # The play and every score are identical. How many prompt tokens the backend served from
    # kept key/value states is a property of the process, not of the play: the restarted process
    # starts with none (as a restarted vLLM engine starts with an empty prefix cache).
    assert _without_cache_accounting(transcripts) == _without_cache_accounting(ref_transcripts)
    assert json.dumps(_without_cache_accounting(results), sort_keys=True) == json.dumps(
        _without_cache_accounting(reference), sort_keys=True
    )
    # (A reply saved mid-turn, before the kill, carries no count: None, "not reported".)
    assert all(turn["cached_tokens"] is not None for t in ref_transcripts for turn in t["turns"])
    assert 0 < reference[TASK]["prefix_cached_share,none"] < 1


def _without_cache_accounting(value):
    """``value`` without the backend's prefix-cache counts (``cached_tokens``, ``prefix_cached_share``)."""
    if isinstance(value, dict):
        return {k: _without_cache_accounting(v) for k, v in value.items()
                if k != "cached_tokens" and not k.startswith("prefix_cached_share")}  # fmt: skip
    if isinstance(value, list):
        return [_without_cache_accounting(v) for v in value]
    return value


def test_vllm_rerun_through_lm_evals_evaluator_makes_no_engine_call_and_reports_the_same_cache_share(tmp_path):
    # lm-eval's own evaluator wraps the model in CachingLM for use_cache; the vLLM path keeps
    # its one engine call per turn, and the replayed turns keep their prefix-cache counts.
    from test_lmeval_seam import FakeVLLM, evaluate

    def run():
        lm = FakeVLLM()
        out = evaluate(lm, ["cog_wcst_kennedy"], limit=2, use_cache=str(tmp_path / "vllm"))
        return lm, out

    first, out1 = run()
    assert first.engine_calls == [2] * 25
    second, out2 = run()
    assert second.engine_calls == []
    assert [s["resps"] for s in out2["samples"]["cog_wcst_kennedy"]] == [s["resps"] for s in out1["samples"]["cog_wcst_kennedy"]]
    assert json.dumps(out2["results"], sort_keys=True) == json.dumps(out1["results"], sort_keys=True)
    assert 0.5 < out2["results"]["cog_wcst_kennedy"]["prefix_cached_share,none"] < 1.0


def test_rerunning_after_a_fault_replays_the_finished_turns_and_retries_only_the_failed_episode(tmp_path):
    faulty = CountingLM(faults="1:2:raise")
    cached(tmp_path, faulty)
    out1, _ = play(faulty)
    assert [json.loads(t)["status"] for t in out1] == ["completed", "failed"]
    healthy = CountingLM()
    cached(tmp_path, healthy)
    out2, player = play(healthy)
    assert [json.loads(t)["status"] for t in out2] == ["completed", "completed"]
    # Episode 0's turns and episode 1's first turn come from the cache; episode 1 goes on from turn 2.
    assert (player.replayed, player.generated) == (TRIALS + 1, TRIALS - 1)
    assert [(d, p.count("User: ")) for d, p in healthy.received] == [(1, t) for t in range(2, TRIALS + 1)]
