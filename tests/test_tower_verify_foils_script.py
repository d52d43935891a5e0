"""scripts/tower_verify_foils.py: one row per depth, counts within the problems asked, one-line errors."""

from __future__ import annotations

from tower_scripts import assert_problems_must_be_positive, depth_rows


def test_the_survey_prints_one_row_per_depth_and_bad_input_is_one_line():
    rows = depth_rows("tower_verify_foils.py", "hanoi", "--problems", "3")
    assert [r[0] for r in rows] == ["d3", "d4", "d5", "d6", "d7"]
    for row in rows:
        asked, matched, *each = map(int, row[1:])
        # A problem matches on every heuristic at once only where it matches on each one.
        assert asked <= 3 and matched <= min(each) and max(each) <= asked
    assert_problems_must_be_positive("tower_verify_foils.py", "hanoi")
