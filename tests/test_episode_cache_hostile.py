"""A hostile or damaged ``--use_cache`` file never runs code, never feeds this model another
model's replies, and never loses the run.

Our rows live in a JSON table of their own (:data:`~lm_eval_cog.lmeval.episode_cache.TABLE`)
beside lm-eval's pickled ``SqliteDict`` table. The crafted rows here are pickles whose loading
creates a file: that the file never appears is the proof that nothing unpickled them.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval.api.model import CachingLM, hash_args

from fault_backend import TASK, TRIALS, requests
from lm_eval_cli import cog_env
from lm_eval_cog.lmeval import episode_cache, seam
from lm_eval_cog.lmeval.episode_cache import (
    IDENTITY_KEY,
    REBUILD_ENV,
    TABLE,
    CacheMismatch,
    Hit,
    TurnCache,
    decode_turn,
    model_identity,
    rebuild_from_env,
)
from test_resume import SUMMARY, CountingLM

LM_EVAL_TABLE = "unnamed"  # SqliteDict's table, where lm-eval keeps its own (pickled) rows


class _Touch:
    """Unpickling this creates ``path``: proof that something unpickled the row."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def payload(path: Path) -> bytes:
    return pickle.dumps(_Touch(path), protocol=pickle.HIGHEST_PROTOCOL)


def write(db: str | Path, table: str, key: str, value) -> None:
    """A raw row, as an attacker (or a damaged disk) would leave it."""
    with sqlite3.connect(db) as con:
        con.execute(f'CREATE TABLE IF NOT EXISTS "{table}" (key TEXT PRIMARY KEY, value BLOB)')
        con.execute(f'REPLACE INTO "{table}" VALUES (?, ?)', (key, value))
    con.close()


def turn_keys(db: str | Path) -> list[str]:
    with sqlite3.connect(db) as con:
        rows = con.execute(f"SELECT key FROM {TABLE} WHERE key != ? ORDER BY rowid", (IDENTITY_KEY,)).fetchall()
    con.close()
    return [k for (k,) in rows]


def cached(tmp_path: Path, lm) -> CachingLM:
    return CachingLM(lm, str(tmp_path / "cache_rank0.db"))


def play(lm, n: int = 2) -> tuple[list[str], seam.LMPlayer]:
    player = seam.LMPlayer(lm)
    return seam.run_requests(requests(n), player, progress=False), player


def reference(tmp_path: Path) -> tuple[str, list[str], CountingLM]:
    """A finished run's cache file and transcripts."""
    lm = CountingLM()
    caching = cached(tmp_path, lm)
    out, _ = play(lm)
    return caching.dbdict.filename, out, lm


def cache_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "lm_eval.cog" and r.levelno == logging.WARNING]


# --------------------------------------------------------------------------- code execution

def test_the_crafted_payload_creates_its_file_when_unpickled(tmp_path):
    # The control: the payload is live, so its file's absence elsewhere means it was never loaded.
    pickle.loads(payload(tmp_path / "control")).close()
    assert (tmp_path / "control").exists()


def test_a_crafted_pickle_in_the_identity_row_never_executes_and_the_cache_is_refused(tmp_path):
    db = tmp_path / "cache_rank0.db"
    write(db, TABLE, IDENTITY_KEY, payload(tmp_path / "pwned"))
    lm = CountingLM()
    caching = cached(tmp_path, lm)
    seam.install()
    with pytest.raises(CacheMismatch, match=rf"{db}.*unreadable model identity row.*this run's model is"):
        caching.cog_episode(requests(2))
    assert not (tmp_path / "pwned").exists() and lm.calls == 0


def test_a_crafted_pickle_in_an_older_versions_identity_row_never_executes_and_the_cache_is_refused(tmp_path):
    # Before the JSON table, the identity row was a pickle in lm-eval's table, under the same key.
    db = tmp_path / "cache_rank0.db"
    write(db, LM_EVAL_TABLE, IDENTITY_KEY, payload(tmp_path / "pwned"))
    lm = CountingLM()
    cached(tmp_path, lm)
    with pytest.raises(CacheMismatch, match=rf"{db} was written by an older lm-eval-cog.*delete this file.*{REBUILD_ENV}=1"):
        seam.LMPlayer(lm)
    assert not (tmp_path / "pwned").exists() and lm.calls == 0


def test_crafted_pickles_in_turn_rows_never_execute_and_their_turns_are_generated_again(tmp_path, caplog):
    db, out1, _ = reference(tmp_path)
    keys = turn_keys(db)
    for key in keys[:3]:
        write(db, TABLE, key, payload(tmp_path / "pwned"))
    for key in keys:  # lm-eval's own row under every turn key too: we never read lm-eval's values
        write(db, LM_EVAL_TABLE, key, payload(tmp_path / "pwned"))
    lm = CountingLM()
    cached(tmp_path, lm)
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    out2, player = play(lm)
    assert not (tmp_path / "pwned").exists()
    assert out2 == out1 and (player.replayed, player.generated) == (2 * TRIALS - 3, 3)
    assert [m for m in cache_warnings(caplog) if "cannot be read" in m] == [
        f"--use_cache {db}: 3 cached turn(s) cannot be read (corrupt, or not written by lm-eval-cog); "
        "they are ignored and generated again"
    ]


# --------------------------------------------------------------------------- identity

def test_a_foreign_identity_is_refused_naming_both_models_and_the_file(tmp_path):
    db, _, first = reference(tmp_path)
    other = CountingLM()
    other.model = "someone/else"
    caching = cached(tmp_path, other)
    seam.install()
    with pytest.raises(CacheMismatch) as refused:
        caching.cog_episode(requests(2))
    message = str(refused.value)
    assert db in message and repr(model_identity(first)) in message and repr(model_identity(other)) in message
    assert f"{REBUILD_ENV}=1" in message and other.calls == 0


def test_rows_of_ours_without_an_identity_row_are_refused(tmp_path):
    # The old hole: such a file was adopted (stamped with this model) and its replies replayed.
    db, _, _ = reference(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute(f"DELETE FROM {TABLE} WHERE key = ?", (IDENTITY_KEY,))
    con.close()
    lm = CountingLM()
    cached(tmp_path, lm)
    with pytest.raises(CacheMismatch, match=rf"{db} holds lm-eval-cog replies but no model identity row, this run's model is"):
        seam.LMPlayer(lm)
    assert len(turn_keys(db)) == 2 * TRIALS  # nothing stamped, nothing lost


def test_a_file_holding_only_lm_evals_rows_is_stamped_with_this_model_and_used(tmp_path):
    # One --use_cache path for a whole run, non-cog tasks included, stays the ordinary case.
    db = tmp_path / "cache_rank0.db"
    write(db, LM_EVAL_TABLE, hash_args("loglikelihood", ("ctx", " a")), pickle.dumps((-1.0, True)))
    lm = CountingLM()
    cached(tmp_path, lm)
    out, player = play(lm)
    assert player.generated == 2 * TRIALS
    again = CountingLM()
    cached(tmp_path, again)
    assert play(again)[0] == out and again.calls == 0


def test_the_rebuild_switch_discards_a_foreign_cache_and_starts_over(tmp_path, monkeypatch, caplog):
    db, out1, _ = reference(tmp_path)
    other = CountingLM()
    other.model = "someone/else"
    cached(tmp_path, other)
    monkeypatch.setenv(REBUILD_ENV, "1")
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    out2, player = play(other)
    assert (player.replayed, player.generated) == (0, 2 * TRIALS)
    assert [json.loads(t)["turns"] for t in out2] == [json.loads(t)["turns"] for t in out1]
    (warning,) = [m for m in cache_warnings(caplog) if REBUILD_ENV in m]
    assert "holds replies of model" in warning and f"{2 * TRIALS + 1} lm-eval-cog rows discarded" in warning
    monkeypatch.delenv(REBUILD_ENV)
    again = CountingLM()
    again.model = "someone/else"
    cached(tmp_path, again)
    assert play(again)[1].replayed == 2 * TRIALS  # now this model's cache


def test_the_rebuild_switch_clears_an_older_versions_rows_by_key_without_reading_them(tmp_path, monkeypatch):
    db = tmp_path / "cache_rank0.db"
    write(db, LM_EVAL_TABLE, IDENTITY_KEY, payload(tmp_path / "pwned"))
    write(db, LM_EVAL_TABLE, "ab" * 32 + ":cached_tokens", payload(tmp_path / "pwned"))
    lm_evals_own = hash_args("loglikelihood", ("ctx", " a"))
    write(db, LM_EVAL_TABLE, lm_evals_own, pickle.dumps((-1.0, True)))
    monkeypatch.setenv(REBUILD_ENV, "yes")
    lm = CountingLM()
    caching = cached(tmp_path, lm)
    assert play(lm)[1].generated == 2 * TRIALS
    assert not (tmp_path / "pwned").exists()
    assert IDENTITY_KEY not in caching.dbdict and caching.dbdict[lm_evals_own] == (-1.0, True)  # lm-eval's row stays


@pytest.mark.parametrize("raw, expected", [("", False), ("0", False), ("no", False), ("1", True), ("TRUE", True)])
def test_the_rebuild_switch_reads_yes_or_no(monkeypatch, raw, expected):
    monkeypatch.setenv(REBUILD_ENV, raw)
    assert rebuild_from_env() is expected


def test_a_rebuild_switch_that_is_neither_yes_nor_no_fails_the_run(monkeypatch):
    monkeypatch.setenv(REBUILD_ENV, "please")
    with pytest.raises(ValueError, match=rf"{REBUILD_ENV} must be 1 .* or 0, got 'please'"):
        rebuild_from_env()


def test_a_table_of_our_name_with_other_columns_is_refused_or_rebuilt(tmp_path, monkeypatch):
    db = tmp_path / "cache_rank0.db"
    with sqlite3.connect(db) as con:
        con.execute(f"CREATE TABLE {TABLE} (k TEXT, v BLOB)")
    con.close()
    with pytest.raises(CacheMismatch, match=rf"{db} has an lm-eval-cog table this version cannot read"):
        TurnCache(db, "m")
    monkeypatch.setenv(REBUILD_ENV, "1")
    lm = CountingLM()
    cached(tmp_path, lm)
    assert play(lm)[1].generated == 2 * TRIALS and len(turn_keys(db)) == 2 * TRIALS


# --------------------------------------------------------------------------- damaged rows

BAD_CACHED_TOKENS = ["17", 1.5, True, -1, [3]]


@pytest.mark.parametrize("tokens", BAD_CACHED_TOKENS)
def test_a_non_integer_cached_tokens_count_makes_the_row_a_miss(tokens):
    assert decode_turn(json.dumps({"reply": "Answer: 1", "cached_tokens": tokens})) is None


@pytest.mark.parametrize(
    "value",
    [b"\x80\x05K\x01.", 17, '{"reply": "Answer: 1"', "[]", '{"cached_tokens": 3}', '{"reply": 4}', "[" * 100_000],
)
def test_a_row_that_is_not_a_turn_is_a_miss(value):
    assert decode_turn(value) is None


def test_a_good_row_is_a_hit():
    assert decode_turn('{"reply": "Answer: 1", "cached_tokens": 0}') == Hit("Answer: 1", 0)
    assert decode_turn('{"reply": "\\udcff", "cached_tokens": null}') == Hit("\udcff", None)


def test_corrupt_rows_are_generated_again_with_one_warning_and_no_failed_episode(tmp_path, caplog):
    db, out1, _ = reference(tmp_path)
    damaged = ['{"reply": "Answer: 1"', "[]", json.dumps({"reply": "Answer: 2", "cached_tokens": "17"}), 42]
    for key, value in zip(turn_keys(db)[1:], damaged):
        write(db, TABLE, key, value)
    lm = CountingLM()
    cached(tmp_path, lm)
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    out2, player = play(lm)
    assert out2 == out1 and [json.loads(t)["status"] for t in out2] == ["completed", "completed"]
    assert (player.replayed, player.generated) == (2 * TRIALS - 4, 4)
    (warning,) = cache_warnings(caplog)
    assert warning.startswith(f"--use_cache {db}: 4 cached turn(s) cannot be read")


def test_a_non_integer_cached_tokens_row_no_longer_breaks_a_vllm_run(tmp_path):
    # Before: a bare TypeError ended the run. Now the turn is generated again, counted afresh.
    from test_lmeval_seam import FakeVLLM, evaluate

    first = evaluate(FakeVLLM(), ["cog_wcst_kennedy"], limit=2, use_cache=str(tmp_path / "vllm"))
    db = tmp_path / "vllm_rank0.db"
    key = turn_keys(db)[-1]
    write(db, TABLE, key, json.dumps({"reply": "Answer: 1", "cached_tokens": "many"}))
    lm = FakeVLLM()
    second = evaluate(lm, ["cog_wcst_kennedy"], limit=2, use_cache=str(tmp_path / "vllm"))
    assert lm.engine_calls == [1]
    row = second["results"]["cog_wcst_kennedy"]
    assert row["episode_failed,none"] == 0 and 0.0 <= row["prefix_cached_share,none"] < 1.0
    assert row["acc,none"] == first["results"]["cog_wcst_kennedy"]["acc,none"]


# --------------------------------------------------------------------------- mid-turn replies

def test_a_reply_reported_mid_turn_survives_a_kill_before_the_turns_end(tmp_path, monkeypatch):
    # HF reports each reply as it comes (cache_hook.add_partial); a kill before the turn's
    # commit keeps those replies, and only those that were turns of this run.
    monkeypatch.setattr(episode_cache, "_PARTIAL_FLUSH_S", 0.0)
    lm = CountingLM()
    caching = cached(tmp_path, lm)
    cache = TurnCache.of(lm)
    a, b, other = (("p1", {"do_sample": False}), ("p2", {"do_sample": False}), ("p3", {"do_sample": False}))
    assert cache.get(a) is None and cache.get(b) is None
    lm.cache_hook.add_partial("generate_until", a, "Answer: 2")
    lm.cache_hook.add_partial("generate_until", other, "Answer: 3")  # not a turn of ours (another task's)
    del cache  # killed here: no put, no commit
    again = TurnCache(caching.dbdict.filename, model_identity(lm))
    assert again.get(a) == Hit("Answer: 2", None) and again.get(b) is None and again.get(other) is None
    assert caching.dbdict[hash_args("generate_until", a)] == "Answer: 2"  # lm-eval's hook still ran


# --------------------------------------------------------------------------- the real lm_eval CLI

def _cli(tmp_path: Path, name: str, env: dict[str, str] | None = None, model_args: str = "faults=0:1:undecodable",
         extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:  # fmt: skip
    tests = str(Path(__file__).parent)
    code = f"import sys; sys.path.insert(0, {tests!r}); import fault_backend; from lm_eval.__main__ import cli_evaluate; cli_evaluate()"
    args = [
        *extra, "--model", "cog-fault", "--model_args", model_args,
        "--tasks", TASK, "--limit", "2", "--metadata", json.dumps({"wcst": {"trials": 3}}),
        "--use_cache", str(tmp_path / "cache"), "--output_path", str(tmp_path / name), "--log_samples",
    ]  # fmt: skip
    full_env = {k: v for k, v in cog_env().items() if k != REBUILD_ENV}  # our tasks indexed only: ~12 s less per start
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, env=full_env, capture_output=True, text=True, timeout=600)


def _results(out: Path) -> str:
    (results,) = glob.glob(str(out / "*" / "results_*.json"))
    return json.dumps(json.loads(Path(results).read_text())["results"], sort_keys=True)


def test_through_the_lm_eval_cli_hostile_rows_are_regenerated_and_a_foreign_cache_is_refused(tmp_path):
    first = _cli(tmp_path, "reference")
    assert first.returncode == 0, first.stderr[-4000:]
    assert SUMMARY.search(first.stderr).groups() == ("0", "6")
    db = tmp_path / "cache_rank0.db"
    keys = turn_keys(db)
    # A pickle, a non-reply and a non-integer count in our table; pickles in lm-eval's table under
    # every turn key and under the older versions' identity key.
    write(db, TABLE, keys[0], payload(tmp_path / "pwned"))
    write(db, TABLE, keys[1], '{"reply": 7}')
    write(db, TABLE, keys[2], json.dumps({"reply": "Answer: 1", "cached_tokens": "x"}))
    for key in [*keys, IDENTITY_KEY]:
        write(db, LM_EVAL_TABLE, key, payload(tmp_path / "pwned"))

    resumed = _cli(tmp_path, "resumed")
    assert resumed.returncode == 0, resumed.stderr[-4000:]
    assert not (tmp_path / "pwned").exists()
    assert SUMMARY.search(resumed.stderr).groups() == ("3", "3")
    assert resumed.stderr.count("cannot be read") == 1 and f"{db}: 3 cached turn(s) cannot be read" in resumed.stderr
    assert _results(tmp_path / "resumed") == _results(tmp_path / "reference")

    write(db, TABLE, IDENTITY_KEY, json.dumps("someone/else 7B"))
    refused = _cli(tmp_path, "refused")
    assert refused.returncode != 0 and not glob.glob(str(tmp_path / "refused" / "*" / "results_*.json"))
    this_model = """'fault_backend.FaultLM None {"faults": "0:1:undecodable"}'"""
    assert f"--use_cache database {db} holds replies of model 'someone/else 7B', but this run's model is {this_model}" in refused.stderr

    rebuilt = _cli(tmp_path, "rebuilt", env={REBUILD_ENV: "1"})
    assert rebuilt.returncode == 0, rebuilt.stderr[-4000:]
    assert SUMMARY.search(rebuilt.stderr).groups() == ("0", "6") and "the cache starts over" in rebuilt.stderr
    assert _results(tmp_path / "rebuilt") == _results(tmp_path / "reference") and not (tmp_path / "pwned").exists()

    # Another batch size is the same model: every turn replayed. An adapter on the same base model
    # is another: refused before any request (the identity keys on the model arguments).
    rebatched = _cli(tmp_path, "rebatched", extra=("--batch_size", "4"))
    assert rebatched.returncode == 0, rebatched.stderr[-4000:]
    assert SUMMARY.search(rebatched.stderr).groups() == ("6", "0")
    adapter = _cli(tmp_path, "adapter", model_args="faults=0:1:undecodable,peft=/adapters/lora")
    assert adapter.returncode != 0 and not glob.glob(str(tmp_path / "adapter" / "*" / "results_*.json"))
    assert f"--use_cache database {db} holds replies of model {this_model}" in adapter.stderr
    assert "/adapters/lora" in adapter.stderr.split("but this run's model is", 1)[1]
