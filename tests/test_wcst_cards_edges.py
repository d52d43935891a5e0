"""WCST cards: which test cards are unambiguous, and the reply strategy reaching the parser.

``UNAMBIGUOUS_CARDS`` is computed once at import, so ``is_unambiguous`` is pinned here by
direct calls (hand-checked against the key cards 1 red triangle, 2 green stars, 3 yellow
crosses, 4 blue circles).
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import AMBIGUOUS, ParseFailure, Strategy
from lm_eval_cog.paradigms.wcst.cards import KEY_CARDS, is_unambiguous
from lm_eval_cog.paradigms.wcst.env import parse_reply


def card(shape, colour, number):
    return {"shape": shape, "colour": colour, "number": number}


def test_card_matching_three_different_key_cards_is_unambiguous():
    # two red crosses: colour -> card 1 (red), shape -> card 3 (cross), number -> card 2 (two)
    assert is_unambiguous(card("cross", "red", 2), KEY_CARDS)


def test_card_matching_one_key_card_on_two_dimensions_is_ambiguous():
    # three red triangles: colour and shape both -> card 1, number -> card 3
    assert not is_unambiguous(card("triangle", "red", 3), KEY_CARDS)
    # the key card itself matches card 1 on all three dimensions
    assert not is_unambiguous(card("triangle", "red", 1), KEY_CARDS)


def test_card_with_a_dimension_matched_by_no_option_or_by_two_is_ambiguous():
    options = [card("triangle", "red", 1), card("star", "red", 2), card("cross", "yellow", 3), card("circle", "blue", 3)]
    # colour red -> options 1 and 2 (two owners)
    assert not is_unambiguous(card("star", "red", 4), options)
    # number 4 -> no option; colour green -> no option
    assert not is_unambiguous(card("cross", "green", 4), options)
    # shape star -> option 2, colour yellow -> option 3, number 1 -> option 1: one owner each
    assert is_unambiguous(card("star", "yellow", 1), options)


def test_parse_reply_applies_the_given_strategy():
    # Three cards named, the last sentence names one: invalid for direct (exactly one card
    # is required), card 3 (index 2) by the free/cot last-sentence fallback.
    reply = "Maybe 1 or 2. I pick 3."
    direct = parse_reply(reply, Strategy.DIRECT, KEY_CARDS)
    assert isinstance(direct, ParseFailure) and direct.code == AMBIGUOUS
    assert parse_reply(reply, Strategy.FREE, KEY_CARDS) == 2
