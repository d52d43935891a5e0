"""scripts/probe_item_pools.py: effective pools per cell and the expected cross-seed share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "probe_item_pools.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_tower_london_cells_are_listed_with_the_expected_share():
    out = _run("tower_london", "--seeds", "1-2", "--items", "36")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tower_london: seeds 1-2 x 36 items"
    # 5 depths (3-7) x 3 questions.
    assert sum(line.lstrip().startswith(("count ", "next ", "plan ")) for line in lines) == 15
    assert lines[-1].startswith("expected items shared by two seeds of 300: ")


def test_bad_seeds_and_parameters_are_one_line_errors():
    for args, message in ((["--seeds", "7"], "--seeds needs at least two seeds"),
                          (["--seeds", "a-b"], "--seeds must be N or N-M"),
                          (["--params", '{"discs": 3}'], "--params: ")):
        out = _run("hanoi", *args)
        assert out.returncode == 2 and "Traceback" not in out.stderr and message in out.stderr, out.stderr
