"""scripts/tower_next_balance.py: the survey of how near to chance a next-move cell can hold the
declared heuristics, per depth (its linear program is tested in tests/test_tower_balance.py)."""

from __future__ import annotations

from tower_scripts import assert_problems_must_be_positive, depth_rows


def test_the_survey_prints_one_row_per_depth_and_bad_input_is_one_line():
    rows = depth_rows("tower_next_balance.py", "tower_london", "--problems", "3")
    assert [r[0] for r in rows] == ["d3", "d4", "d5", "d6", "d7"]
    # A bound is a distance from chance 1/3: between 0 and 2/3.
    assert all(0.0 <= float(r[1]) <= 0.667 for r in rows)
    assert_problems_must_be_positive("tower_next_balance.py", "hanoi")
