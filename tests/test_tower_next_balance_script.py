"""scripts/tower_next_balance.py: the linear program that bounds how near to chance a next-move cell can
hold the declared heuristics, on hand-built credit vectors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from tower_next_balance import closest_to_chance  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "tower_next_balance.py"


def test_a_single_vector_is_its_own_distance_from_chance():
    # Every problem makes the key the heuristics' only pick: both means are 1, 2/3 above 1/3.
    bound, mixture = closest_to_chance([{(1.0, 1.0)}, {(1.0, 1.0)}], 1 / 3)
    assert bound == pytest.approx(2 / 3) and mixture == {(1.0, 1.0): pytest.approx(1.0)}


def test_one_third_of_items_picked_and_two_thirds_missed_is_chance():
    # Items where both heuristics pick the key (1) and items where both pick a foil (0): a 1:2 mixture
    # puts both means at 1/3 exactly.
    bound, mixture = closest_to_chance([{(1.0, 1.0)}, {(0.0, 0.0), (1.0, 1.0)}], 1 / 3)
    assert bound == pytest.approx(0.0, abs=1e-9)
    assert mixture[(1.0, 1.0)] == pytest.approx(1 / 3) and mixture[(0.0, 0.0)] == pytest.approx(2 / 3)


def test_heuristics_that_pull_apart_meet_halfway():
    # Each vector favours one heuristic: the mixture w, 1 - w has means (w, 1 - w); the largest
    # distance from 1/3, max(|w - 1/3|, |2/3 - w|), is smallest at w = 1/2: 1/6.
    bound, mixture = closest_to_chance([{(1.0, 0.0)}, {(0.0, 1.0)}], 1 / 3)
    assert bound == pytest.approx(1 / 6)
    assert mixture == {(1.0, 0.0): pytest.approx(0.5), (0.0, 1.0): pytest.approx(0.5)}


def test_below_chance_counts_as_far_as_above():
    # Only zeros: both heuristics pick a foil every time, 1/3 below chance (an anti-cue).
    bound, _ = closest_to_chance([{(0.0, 0.0)}], 1 / 3)
    assert bound == pytest.approx(1 / 3)


def test_no_problem_is_an_error():
    with pytest.raises(ValueError, match="no problem"):
        closest_to_chance([], 1 / 3)


def test_the_survey_prints_one_row_per_depth_and_bad_input_is_one_line():
    out = subprocess.run([sys.executable, str(SCRIPT), "tower_london", "--problems", "3"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if re.match(r"\s*d\d ", line)]
    assert [r[0] for r in rows] == ["d2", "d3", "d4", "d5", "d6", "d7"]
    # At depth 2 the key is the only goal-directed move whatever is drawn: goal_position's mean is 1.
    assert rows[0][1] == "0.667"
    bad = subprocess.run([sys.executable, str(SCRIPT), "hanoi", "--problems", "0"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("--problems must be a positive int, got 0")
