"""scripts/tower_next_balance.py: the survey of how near to chance a next-move cell can hold the
declared heuristics, per depth (its linear program is tested in tests/test_tower_balance.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "tower_next_balance.py"


def test_the_survey_prints_one_row_per_depth_and_bad_input_is_one_line():
    out = subprocess.run([sys.executable, str(SCRIPT), "tower_london", "--problems", "3"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if re.match(r"\s*d\d ", line)]
    assert [r[0] for r in rows] == ["d3", "d4", "d5", "d6", "d7"]
    # A bound is a distance from chance 1/3: between 0 and 2/3.
    assert all(0.0 <= float(r[1]) <= 0.667 for r in rows)
    bad = subprocess.run([sys.executable, str(SCRIPT), "hanoi", "--problems", "0"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("--problems must be a positive int, got 0")
