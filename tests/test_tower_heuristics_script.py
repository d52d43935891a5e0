"""scripts/tower_heuristics.py --choices-only: the stored per-item credits broken down by question."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lm_eval_cog.probes.core import get_probe

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "tower_heuristics.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_choices_only_credits_are_read_in_item_order(tmp_path):
    # Credit 1 on every next-move item and 0 elsewhere, in bench_choices_only's order (seed by seed):
    # read in that order the next-move column is 1 and the others 0; any other order mixes them.
    docs = [d for seed in (5, 6) for d in get_probe("hanoi").generate(seed, 36)]
    credits = [float(d["question"] == "next") for d in docs]
    path = tmp_path / "lm.json"
    path.write_text(json.dumps({"seeds": [5, 6], "items": 36, "rows": [], "credits": {"hanoi": credits}}))
    out = _run("hanoi", "--seeds", "5", "--items", "12", "--choices-only", str(path))
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("choices-only LM"))
    assert line.split()[2:5] == ["0.000", "1.000", "0.000"] and "seeds [5, 6] x 36" in line


def test_a_file_without_the_probe_credits_is_one_line_error(tmp_path):
    path = tmp_path / "lm.json"
    path.write_text(json.dumps({"seeds": [1], "items": 3, "rows": [], "credits": {"span": [1.0, 0.0, 1.0]}}))
    out = _run("tower_london", "--seeds", "5", "--items", "6", "--choices-only", str(path))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip() == f"--choices-only: {path} holds no per-item credits of tower_london"


def test_by_depth_prints_a_next_move_and_plan_cell_per_depth():
    # Depth 2 went in version 3.0 / 4.0 (its goal-directed move was always the key): d3-d7. The plan
    # column reads the _gen form's plan items with their (unshown) options.
    out = _run("tower_london", "--seeds", "5", "--items", "30", "--by-depth")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tower_london, seeds [5] x 30 items: next move / plan"
    assert lines[1].split() == ["strategy", "d3", "d4", "d5", "d6", "d7"]
    row = next(line.split() for line in lines if line.startswith("misplaced_count"))
    # The count heuristic has no basis on moves or plans: a guess's credit, 1/3 and 1/4, at every depth.
    assert row[1:] == ["0.33/0.25"] * 5