"""``accelerate launch -m lm_eval --model hf``: two CPU processes share the documents out and give the
results and transcripts of one process, to the last digit.

lm-eval 0.4.13's HF model shards only when it counts more than one GPU; on CPU processes each one
evaluated everything (:mod:`lm_eval_cog.lmeval.data_parallel`). The end-to-end test runs the real
``accelerate launch`` with the real SmolLM2 beside a one-process run of the same command.
"""

from __future__ import annotations

import glob
import json
import math
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from lm_eval_cli import LM_EVAL, cog_env
from lm_eval_cog.lmeval.data_parallel import in_document_order, share_processes
from lm_eval_cog.lmeval.probe_task import process_gen, process_mc
from lm_eval_cog.probes.core import REGISTRY, get_probe

ACCELERATE = shutil.which("accelerate", path=str(Path(sys.executable).parent)) or shutil.which("accelerate")


# -- the pieces ------------------------------------------------------------------------------------


def test_a_process_of_several_cpu_processes_gets_its_rank_and_the_world_size():
    lm = SimpleNamespace(accelerator=SimpleNamespace(num_processes=3, process_index=2), _rank=0, _world_size=1)
    assert share_processes(lm) and (lm._rank, lm._world_size) == (2, 3)


@pytest.mark.parametrize(
    "lm",
    [
        SimpleNamespace(_rank=0, _world_size=1),  # no accelerator: one process, or tp_plan
        SimpleNamespace(accelerator=SimpleNamespace(num_processes=1, process_index=0), _rank=0, _world_size=1),
        SimpleNamespace(accelerator=SimpleNamespace(num_processes=2, process_index=1), _rank=1, _world_size=2),
    ],
    ids=["no-accelerator", "one-process", "lm-eval-sharded-already"],
)
def test_nothing_changes_where_lm_eval_did_not_leave_several_processes_at_rank_0_of_1(lm):
    before = (lm._rank, lm._world_size)
    assert not share_processes(lm) and (lm._rank, lm._world_size) == before


def test_gathered_metrics_come_back_in_document_order():
    # 5 documents over 2 ranks: rank 0 held documents 0, 2, 4; rank 1 documents 1, 3.
    key = ("acc", "none")
    gathered = [{"t": {key: ["d0", "d2", "d4"]}}, {"t": {key: ["d1", "d3"]}}]
    first, second = in_document_order(gathered)
    assert first["t"][key] + second["t"][key] == ["d0", "d1", "d2", "d3", "d4"]  # what lm-eval concatenates


def test_gathered_samples_come_back_by_filter_then_document():
    def sample(doc_id, filt):
        return {"doc_id": doc_id, "filter": filt}

    rank0 = [sample(0, "a"), sample(3, "a"), sample(0, "b"), sample(3, "b")]
    rank1 = [sample(1, "a"), sample(4, "a"), sample(1, "b"), sample(4, "b")]
    rank2 = [sample(2, "a"), sample(2, "b")]
    merged = [s for part in in_document_order([{"t": rank0}, {"t": rank1}, {"t": rank2}]) for s in part["t"]]
    assert [(s["filter"], s["doc_id"]) for s in merged] == [("a", i) for i in range(5)] + [("b", i) for i in range(5)]


def test_lists_that_are_not_one_value_per_document_are_left_in_lm_evals_order():
    key = ("acc_neutral", "none")
    gathered = [{"t": {key: ["x"]}}, {"t": {key: ["y", "z"]}}]  # rank 1 holds more: not round-robin
    assert in_document_order(gathered) is gathered


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_probe_document_reports_every_metric_so_ranks_gather_the_same_names(name):
    # lm-eval gathers the metric names rank 0 saw from every rank: a name absent on one rank was a
    # KeyError (acc_neutral on a rank without a neutral item), one absent on rank 0 was dropped.
    probe = get_probe(name)
    for doc in probe.generate(0, 2 * len(probe.conditions) + 2):
        mc = process_mc(doc, [(-1.0 - k, False) for k in range(len(doc["choices"]))])
        gen = process_gen(doc, [str(doc["choices"][0])])
        assert set(mc) == set(probe.metric_names("mc")) and set(gen) == set(probe.metric_names("gen"))
        # Defined on the documents that count in it (the towers keep count items out of acc_<depth>).
        assert math.isnan(mc[f"acc_{probe.conditions[-1]}"]) == (probe.scored_condition(doc) != probe.conditions[-1])


# -- the real thing --------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:  # another session's torchrun may hold accelerate's default 29500
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _outputs(out: Path) -> tuple[dict, dict[str, list[dict]]]:
    (results,) = glob.glob(str(out / "*" / "results_*.json"))
    samples = {}
    for path in glob.glob(str(out / "*" / "samples_*.jsonl")):
        task = Path(path).name.removeprefix("samples_").rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in Path(path).read_text().splitlines()]
    return json.loads(Path(results).read_text())["results"], samples


@pytest.mark.xdist_group("accelerate")
def test_two_cpu_processes_under_accelerate_launch_give_the_results_and_transcripts_of_one(tmp_path):
    try:
        from lm_eval_cog.smollm2 import model_dir

        model = str(model_dir())
    except FileNotFoundError as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    if ACCELERATE is None:
        pytest.skip("accelerate is not installed")
    args = [
        "--model", "hf", "--model_args", f"pretrained={model},dtype=float32",
        "--tasks", "cog_wcst_direct,cog_stroop_mc", "--limit", "4", "--metadata", json.dumps({"wcst": {"trials": 3}}),
        "--gen_kwargs", "max_gen_toks=6", "--log_samples",
    ]  # fmt: skip
    env = cog_env(OMP_NUM_THREADS="1", ACCELERATE_USE_CPU="1")
    took = {}
    start = time.monotonic()
    one = subprocess.run([LM_EVAL, *args, "--device", "cpu", "--output_path", str(tmp_path / "one")], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=1200)  # fmt: skip
    took["one"] = time.monotonic() - start
    assert one.returncode == 0, one.stderr[-4000:]
    launch = [ACCELERATE, "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
              "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(_free_port())]  # fmt: skip
    start = time.monotonic()
    two = subprocess.run([*launch, "-m", "lm_eval", *args, "--output_path", str(tmp_path / "two")], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=1200)  # fmt: skip
    took["two"] = time.monotonic() - start
    assert two.returncode == 0, two.stderr[-4000:]
    print(f"one process {took['one']:.1f} s, two processes {took['two']:.1f} s")
    # Each process built the requests of its own documents: 2 of the 4 of each task.
    for rank in (0, 1):
        assert f"Building contexts for cog_wcst_direct on rank {rank}" in two.stderr
    assert "Building contexts for cog_wcst_direct on rank 1" not in one.stderr
    results_one, samples_one = _outputs(tmp_path / "one")
    results_two, samples_two = _outputs(tmp_path / "two")  # rank 0 alone wrote (one results file)
    assert results_two == results_one
    assert set(samples_two) == set(samples_one) == {"cog_wcst_direct", "cog_stroop_mc"}
    for task in samples_one:
        assert [s["doc_id"] for s in samples_two[task]] == [0, 1, 2, 3]
        assert samples_two[task] == samples_one[task]  # transcripts included, as JSON strings
