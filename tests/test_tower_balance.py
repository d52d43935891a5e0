"""lm_eval_cog.probes._tower_balance: the credit vectors and the linear programs that choose a
next-move cell's mixture of them, on hand-built vectors."""

from __future__ import annotations

import pytest

from lm_eval_cog.probes._tower_balance import closest_to_chance, credit_vector
from lm_eval_cog.paradigms.probe_base import Heuristic


def test_a_single_vector_is_its_own_distance_from_chance():
    # Every problem makes the key the heuristics' only pick: both means are 1, 2/3 above 1/3.
    bound, mixture = closest_to_chance([{(1.0, 1.0)}, {(1.0, 1.0)}], 1 / 3)
    assert bound == pytest.approx(2 / 3) and mixture == {(1.0, 1.0): pytest.approx(1.0)}


def test_one_third_of_items_picked_and_two_thirds_missed_is_chance():
    # Items where both heuristics pick the key (1) and items where both pick a foil (0): a 1:2 mixture
    # puts both means at 1/3 exactly.
    bound, mixture = closest_to_chance([{(1.0, 1.0)}, {(0.0, 0.0), (1.0, 1.0)}], 1 / 3)
    assert bound == 0.0
    assert mixture[(1.0, 1.0)] == pytest.approx(1 / 3, abs=1e-4)
    assert mixture[(0.0, 0.0)] == pytest.approx(2 / 3, abs=1e-4)


def test_heuristics_that_pull_apart_meet_halfway():
    # Each vector favours one heuristic: the mixture w, 1 - w has means (w, 1 - w); the largest
    # distance from 1/3, max(|w - 1/3|, |2/3 - w|), is smallest at w = 1/2: 1/6.
    bound, mixture = closest_to_chance([{(1.0, 0.0)}, {(0.0, 1.0)}], 1 / 3)
    assert bound == pytest.approx(1 / 6, abs=1e-6)
    assert mixture == {(1.0, 0.0): pytest.approx(0.5, abs=1e-4), (0.0, 1.0): pytest.approx(0.5, abs=1e-4)}


def test_below_chance_counts_as_far_as_above():
    # Only zeros: both heuristics pick a foil every time, 1/3 below chance (an anti-cue).
    bound, _ = closest_to_chance([{(0.0, 0.0)}], 1 / 3)
    assert bound == pytest.approx(1 / 3)


def test_where_one_coordinate_cannot_come_near_the_others_still_do():
    # The first coordinate is 1 in every vector (bound 2/3, as goal_position at depth 2); the second
    # can be held at 1/3 exactly by a 1:2 mixture of (1, 1) and (1, 0), which the second program picks
    # over, e.g., (1, 1) alone.
    bound, mixture = closest_to_chance([{(1.0, 1.0), (1.0, 0.0)}], 1 / 3)
    assert bound == pytest.approx(2 / 3)
    assert mixture[(1.0, 1.0)] == pytest.approx(1 / 3, abs=1e-4) and mixture[(1.0, 0.0)] == pytest.approx(2 / 3, abs=1e-4)


def test_decisive_items_are_preferred_to_ties_at_equal_balance():
    # All-tie items (1/3, 1/3) and the 1:2 mix of picks (1, 1) / (0, 0) both hold the means at 1/3; the
    # third program takes the picks (the lured items), which tell a heuristic from the task.
    third = round(1 / 3, 4)
    bound, mixture = closest_to_chance([{(third, third), (1.0, 1.0), (0.0, 0.0)}], 1 / 3)
    assert bound == pytest.approx(0.0, abs=1e-4)
    assert set(mixture) == {(1.0, 1.0), (0.0, 0.0)}


def test_vectors_few_problems_offer_are_left_out():
    # (0, 0) is offered by 1 problem of 40 (2.5%, under the 5% share): the mixture cannot use it.
    offers = [{(1.0, 1.0)}] * 39 + [{(0.0, 0.0)}]
    bound, mixture = closest_to_chance(offers, 1 / 3, min_share=0.05)
    assert set(mixture) == {(1.0, 1.0)} and bound == pytest.approx(2 / 3)


def test_no_problem_is_an_error():
    with pytest.raises(ValueError, match="no problem"):
        closest_to_chance([], 1 / 3)


def test_credit_vector_shares_ties_and_guesses_where_a_heuristic_has_no_basis():
    picks_first = Heuristic("first", "test", lambda stem, options: [1.0] + [0.0] * (len(options) - 1))
    ties = Heuristic("ties", "test", lambda stem, options: [1.0, 1.0, 0.0])
    blind = Heuristic("blind", "test", lambda stem, options: None)
    assert credit_vector([picks_first, ties, blind], "stem", ["a", "b", "c"]) == (1.0, 0.5, 0.3333)
