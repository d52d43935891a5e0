"""scripts/tower_verify_foils.py: one row per depth, counts within the problems asked, one-line errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "tower_verify_foils.py"


def test_the_survey_prints_one_row_per_depth_and_bad_input_is_one_line():
    out = subprocess.run([sys.executable, str(SCRIPT), "hanoi", "--problems", "3"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if re.match(r"\s*d\d ", line)]
    assert [r[0] for r in rows] == ["d3", "d4", "d5", "d6", "d7"]
    for row in rows:
        asked, matched, *each = map(int, row[1:])
        # A problem matches on every heuristic at once only where it matches on each one.
        assert asked <= 3 and matched <= min(each) and max(each) <= asked
    bad = subprocess.run([sys.executable, str(SCRIPT), "hanoi", "--problems", "0"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("--problems must be a positive int, got 0")
