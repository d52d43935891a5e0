"""The static probes through the real ``lm_eval`` command, with the scripted reference players.

One invocation runs every probe in both forms (the ``cog_static`` group); its results
JSON must equal, metric by metric, what :mod:`lm_eval_cog.probes.reference` computes
from the same documents: the YAMLs, the filters, lm-eval's aggregation and
``cog_baseline``'s log-likelihoods agree with the probes' own scorers.
"""

from __future__ import annotations

import glob
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_cli import LM_EVAL, cog_env
from lm_eval_cog.probes.core import REGISTRY, get_probe
from lm_eval_cog.probes.reference import play

# An expensive module fixture: every test of this module on one xdist worker (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("probe_lmeval")

LIMIT = 12
SEED = 4321


def _run(tmp: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = cog_env()
    proc = subprocess.run([LM_EVAL, "--model", "cog_baseline", *args], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=900)
    if check:
        assert proc.returncode == 0, proc.stderr[-6000:]
    return proc


def _results(out: Path) -> dict:
    (path,) = glob.glob(str(out / "*" / "results_*.json"))
    return json.loads(Path(path).read_text())["results"]


def _same(a: float | None, b: float) -> bool:
    """``a`` from the results file, where an undefined value is null (strict JSON), ``b`` NaN."""
    a = math.nan if a is None else a
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@pytest.fixture(scope="module")
def prepotent_proc(tmp_path_factory) -> tuple[dict, str]:
    """The results and the stderr of one run of every static probe (48 tasks)."""
    tmp = tmp_path_factory.mktemp("static")
    proc = _run(tmp, "--model_args", "policy=prepotent", "--tasks", "cog_static", "--limit", str(LIMIT),
                "--seed", f"0,1234,1234,{SEED}", "--output_path", str(tmp / "out"), "--log_samples")
    return _results(tmp / "out"), proc.stderr


@pytest.fixture(scope="module")
def prepotent_run(prepotent_proc) -> dict:
    return prepotent_proc[0]


def test_a_run_of_48_probe_tasks_says_lm_evals_per_task_warnings_once_or_not_at_all(prepotent_proc):
    """lm-eval's "Custom kwargs" hint (two lines per custom_dataset task) becomes one line per run, and its
    "Metrics were not scored on the same number of documents" (acc_<condition> is scored on its condition's
    documents, by design; our groups never weight by size) is not said for our tasks (lmeval/quiet.py)."""
    from lm_eval_cog.lmeval.quiet import METADATA_HINT

    stderr = prepotent_proc[1]
    assert "Custom kwargs can be passed" not in stderr
    assert "Metrics were not scored on the same number of documents" not in stderr
    assert stderr.count(METADATA_HINT) == 1
    warnings = [line.split("]", 1)[-1] for line in stderr.splitlines() if " WARNING " in line]
    assert len(warnings) == len(set(warnings)), warnings


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("form", ["mc", "gen"])
def test_results_json_equals_the_probe_scorer_on_the_seeded_documents(prepotent_run, name, form):
    probe = get_probe(name)
    # --seed's 4th value is the task seed; --limit takes the first LIMIT documents the form asks (the
    # towers' _mc form skips the plan items, a third).
    docs = [d for d in probe.generate(SEED, min(probe.default_items, 2 * LIMIT)) if probe.in_form(d, form)]
    assert len(docs) >= LIMIT
    expected = play(probe, "prepotent", docs[:LIMIT], form)
    got = prepotent_run[f"cog_{name}_{form}"]
    key = "none" if form == "mc" else "answer_line"
    assert set(expected) <= {k.split(",")[0] for k in got}
    for metric, value in expected.items():
        assert _same(got[f"{metric},{key}"], value), metric


def test_static_groups_never_average_the_two_forms(prepotent_run):
    assert "acc,none" in prepotent_run["cog_static_mc"] and "acc,answer_line" not in prepotent_run["cog_static_mc"]
    assert "acc,answer_line" in prepotent_run["cog_static_gen"] and "acc,none" not in prepotent_run["cog_static_gen"]
    for ability in {get_probe(n).ability for n in REGISTRY}:
        group = "cog_flexibility_static" if ability == "flexibility" else f"cog_{ability}"
        assert set(prepotent_run[f"{group}_mc"]) >= {"acc,none"} and "acc,answer_line" not in prepotent_run[f"{group}_mc"]
        assert "acc,answer_line" in prepotent_run[f"{group}_gen"]


def test_metadata_seed_gives_other_items_than_the_default(tmp_path):
    _run(tmp_path, "--tasks", "cog_stroop_mc", "--limit", "5", "--metadata", '{"seed": 7}',
         "--output_path", str(tmp_path / "out"), "--log_samples")
    (samples,) = glob.glob(str(tmp_path / "out" / "*" / "samples_cog_stroop_mc_*.jsonl"))
    prompts = [json.loads(line)["doc"]["prompt"] for line in Path(samples).read_text().splitlines()]
    stroop = get_probe("stroop")
    assert prompts == [d["prompt"] for d in stroop.generate(7, 5)]
    assert prompts != [d["prompt"] for d in stroop.generate(1234, 5)]


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ('{"stroop": {"colours": 0}}', "stroop parameter 'colours'"),
        ('{"stroop": {"colors": 4}}', "Unknown stroop parameter 'colors'. Did you mean: colours?"),
        ('{"items": 0}', "parameter 'items' must be a positive int"),
        ('{"stroop": 5}', "metadata.stroop must be a dict"),
    ],
)
def test_bad_parameters_fail_before_any_request_naming_the_parameter(tmp_path, metadata, message):
    proc = _run(tmp_path, "--tasks", "cog_stroop_gen", "--metadata", metadata, check=False)
    assert proc.returncode != 0 and message in proc.stderr
    assert "Running generate_until requests" not in proc.stderr


def test_same_seed_gives_byte_identical_documents_in_two_processes():
    code = (
        "import hashlib, json\n"
        "from lm_eval_cog.lmeval.probe_task import dataset\n"
        "from lm_eval_cog.probes.core import REGISTRY\n"
        "h = hashlib.sha256()\n"
        "for name in sorted(REGISTRY):\n"
        "    h.update(json.dumps(dataset(probe=name, items=40, seed=11)['test'].to_list(), sort_keys=True).encode())\n"
        "print(h.hexdigest())\n"
    )
    digests = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(s)}).stdout
        for s in (1, 2)
    }
    assert len(digests) == 1 and len(digests.pop().strip()) == 64
