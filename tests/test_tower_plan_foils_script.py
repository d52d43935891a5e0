"""scripts/tower_plan_foils.py: the enumeration of a plan item's possible foils, and what holds a
heuristic to a guess, on hand-built cases."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from tower_plan_foils import held_jointly, holds_to_a_guess, rule_free_plans  # noqa: E402

from lm_eval_cog.probes.hanoi import hanoi_puzzle  # noqa: E402
from tower_scripts import assert_problems_must_be_positive, depth_rows  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "tower_plan_foils.py"


def test_rule_free_plans_move_top_pieces_only_never_one_piece_twice_in_a_row():
    # Two discs on A (2 under 1). Move 1: disc 1 to B or C (disc 2 is not on top). Move 2: disc 2 (now
    # on top of A) to either other peg, the rule ignored (onto disc 1 is allowed): 2 x 2 = 4 plans.
    start = ((2, 1), (), ())
    plans = rule_free_plans(hanoi_puzzle(2), start, 2)
    assert sorted(plans) == sorted([
        [(1, 0, 1), (2, 0, 1)], [(1, 0, 1), (2, 0, 2)], [(1, 0, 2), (2, 0, 1)], [(1, 0, 2), (2, 0, 2)],
    ])


@pytest.mark.parametrize(("key", "foils", "held"), [
    (1.0, [0.5, 0.5, 1.0], False),  # one foil level with the key: credit 1/2
    (1.0, [1.0, 1.0, 1.0], True),  # three level: 1/4
    (0.5, [0.0, 0.75], True),  # one above: 0
    (0.5, [0.0, 0.5, 0.25, 0.5], False),  # two level at most: 1/3
])
def test_a_heuristic_is_held_to_a_guess_by_one_foil_above_or_three_level(key, foils, held):
    assert holds_to_a_guess(key, foils) is held


def test_jointly_needs_one_set_of_foils_for_every_heuristic():
    # Foil 1 beats the key on heuristic A only, foil 2 on B only: {1, 2, any} holds both.
    assert held_jointly([[0.5, 1.0, 0.0, 0.0], [0.5, 0.0, 1.0, 0.0]])
    # Each heuristic is held by some three foils, never by the same three: A is beaten only by foil 1,
    # which is below the key on B; B is held only by the three foils level with the key there (2, 3, 4),
    # and foil 4 is below the key on A.
    a, b = [0.5, 1.0, 0.5, 0.5, 0.0], [0.5, 0.0, 0.5, 0.5, 0.5]
    assert holds_to_a_guess(a[0], a[1:]) and holds_to_a_guess(b[0], b[1:])
    assert not held_jointly([a, b])


def test_the_survey_prints_one_row_per_depth_and_bad_input_is_one_line():
    rows = depth_rows("tower_plan_foils.py", "tower_london", "--problems", "2")
    assert [r[0] for r in rows] == ["d3", "d4", "d5", "d6", "d7"]
    assert all(cell.endswith("/2") for r in rows for cell in r[2:])
    assert_problems_must_be_positive("tower_plan_foils.py", "tower_london")


def test_two_options_need_one_foil_as_high_as_the_key():
    # The key and one foil: the key's credit is a guess's (1/2) or less only if the foil scores as high.
    assert holds_to_a_guess(1.0, [0.5, 1.0], options=2) and not holds_to_a_guess(1.0, [0.5, 0.75], options=2)
    # Jointly, one foil must be as high as the key under every heuristic at once.
    assert held_jointly([[0.5, 0.5, 1.0], [0.5, 0.0, 0.5]], options=2)
    assert not held_jointly([[0.5, 1.0, 0.0], [0.5, 0.0, 1.0]], options=2)


def test_the_options_flag_is_checked_in_one_line():
    out = subprocess.run([sys.executable, str(SCRIPT), "tower_london", "--problems", "2", "--options", "2"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "2 options" in out.stdout, out.stderr
    bad = subprocess.run([sys.executable, str(SCRIPT), "hanoi", "--options", "1"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("--options must be an int of at least 2, got 1")
