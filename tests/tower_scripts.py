"""The tower survey scripts in tests: their per-depth rows, and the one-line error of ``--problems 0``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def depth_rows(script: str, *args: str, timeout: int = 300) -> list[list[str]]:
    """The rows ``d3 ...`` .. ``d7 ...`` that ``scripts/<script> <args>`` prints, split in cells."""
    out = subprocess.run([sys.executable, str(SCRIPTS / script), *args], capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stderr
    return [line.split() for line in out.stdout.splitlines() if re.match(r"\s*d\d ", line)]


def assert_problems_must_be_positive(script: str, probe: str) -> None:
    bad = subprocess.run([sys.executable, str(SCRIPTS / script), probe, "--problems", "0"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("--problems must be a positive int, got 0")
