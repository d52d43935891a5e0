"""Wason selection: pinned items, the card set re-derived from the printed rule and cards,
set-valued answer reading, content and matching effects."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from rapidfuzz.distance import Levenshtein

from lm_eval_cog.audit.items import make_item
from lm_eval_cog.audit.strategies import credit, majority_text_scores, natural_key
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

WASON = get_probe("wason_selection")
ABSTRACT = "Each of four cards has a letter on one side and a number on the other side. "
TAIL = "Answer with the visible sides of exactly the cards that must be turned over, separated by commas."


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 0 consonant -> odd: Z (p) and 2 (not-q) must be turned, "Z, 9" (p and q) is the
    # matching lure; 1 a ticket for Guza needs over 18: Guza and 13; 2 vowel -> even: A and 7
    # (shown "7, A"), matching "4, A"; 3 a ticket for Keli needs over 18: Keli and 10 (shown "10, Keli").
    docs = WASON.generate(0, 4)
    assert docs[0]["prompt"] == (
        ABSTRACT + "You see one side of each card: [E] [2] [Z] [9].\n"
        "Rule: If a card has a consonant on one side, then it has an odd number on the other side.\n"
        "Which cards must you turn over to find out whether the rule is true or false for these four cards? "
        "Turn over only the cards you need.\nOptions:\n- 2, Z\n- E, 2\n- E, 9\n- Z, 9\n" + TAIL
    )
    assert docs[3]["prompt"] == (
        "You are checking tickets at a cinema. Each of four cards shows a visitor: one side names the film the "
        "visitor has a ticket for, the other side the visitor's age in years. You see one side of each card: "
        "[10] [Dedal] [26] [Keli].\nRule: If a person has a ticket for Keli, they must be over 18 years old.\n"
        "Which cards must you turn over to find out whether anyone is breaking the rule? Turn over only the "
        "cards you need.\nOptions:\n- 10, Dedal\n- 10, Keli\n- 26, Keli\n- Dedal, 26\n" + TAIL
    )
    assert docs[1]["choices"] == ["13, Guza", "Guza, 34", "Kregun, 13", "Kregun, 34"]
    assert docs[2]["choices"] == ["B, 4", "7, A", "7, B", "4, A"]
    assert [(d["condition"], d["gold"], d["lure"], d["matching"]) for d in docs] == [
        ("abstract", 0, 3, 3), ("deontic", 0, -1, 1), ("abstract", 1, 3, 3), ("deontic", 1, -1, 2)
    ]


# -- an independent key: which visible side can hide a violation (p true, q false)? -----
CLASSES = {
    "a vowel": lambda s: s.isalpha() and s in "AEIOU", "a consonant": lambda s: s.isalpha() and s not in "AEIOU",
    "an even number": lambda s: s.isdigit() and int(s) % 2 == 0, "an odd number": lambda s: s.isdigit() and int(s) % 2 == 1,
}


def _tests(rule: str):
    """(antecedent true?, consequent true?) of a visible side: None where the side does not say."""
    if m := re.fullmatch(r"If a card has (.+) on one side, then it has (.+) on the other side\.", rule):
        ante, cons = CLASSES[m.group(1)], CLASSES[m.group(2)]

        def letter_number(side):
            kind_a = side.isalpha() == (m.group(1) in ("a vowel", "a consonant"))
            return (ante(side), None) if kind_a else (None, cons(side))

        return letter_number
    if m := re.fullmatch(r"If a person has a ticket for (\w+), they must be over (\d+) years old\.", rule):
        limit = int(m.group(2))

        def age(side):
            if not side.isdigit():
                return side == m.group(1), None
            assert abs(int(side) - limit) >= 2  # "over 18" and "18 or over" agree on every age shown
            return None, int(side) > limit

        return age
    if m := re.fullmatch(r"If a letter is addressed to (\w+), it must carry a (\d+)-cent stamp\.", rule):
        need = int(m.group(2))

        def stamp(side):
            if not re.fullmatch(r"\d+c", side):
                return side == m.group(1), None
            assert int(side[:-1]) <= need  # no dearer stamp: "exactly" and "at least" readings agree
            return None, int(side[:-1]) == need

        return stamp
    m = re.fullmatch(r"If a passenger arrives from (\w+), they must be vaccinated against (\w+)\.", rule)
    # Countries are capitalised nonce names, diseases lower-case words.
    return lambda side: (side == m.group(1), None) if side[0].isupper() else (None, side == m.group(2))


def test_key_and_lure_match_the_printed_rule_and_cards():
    contents = set()
    for doc in WASON.generate(4, 400):
        rule = re.search(r"^Rule: (.+)$", doc["prompt"], re.MULTILINE).group(1)
        cards = _cards(doc)
        test = _tests(rule)
        must = {c for c in cards if test(c)[0] is True or test(c)[1] is False}
        matching = {c for c in cards if test(c)[0] is True or test(c)[1] is True}
        assert set(doc["choices"][doc["gold"]].split(", ")) == must and len(must) == 2
        assert set(doc["choices"][doc["matching"]].split(", ")) == matching
        assert doc["lure"] == (doc["matching"] if doc["condition"] == "abstract" else -1)
        assert all(f"- {c}\n" in doc["prompt"] for c in doc["choices"])
        contents.add(doc["content"])
    assert contents == {"letters", "cinema", "postage", "entry"}


def _cards(doc):
    return re.findall(r"\[([^\]]+)\]", doc["prompt"].split("\n")[0])


def test_options_are_the_four_pairs_of_one_card_from_each_side_of_the_rule():
    # Every option is two cards, every card is in two options: no option stands out by its shape.
    for doc in WASON.generate(9, 400):
        sides = dict(zip(doc["roles"], doc["cards"]))
        sets = {frozenset(c.split(", ")) for c in doc["choices"]}
        assert sets == {frozenset({sides[a], sides[b]}) for a in ("p", "not_p") for b in ("q", "not_q")}
        assert Counter(card for c in doc["choices"] for card in c.split(", ")) == {card: 2 for card in doc["cards"]}
        # Each option lists its cards in the order they are shown, and no option is written in the stem.
        assert all(c.split(", ") == sorted(c.split(", "), key=doc["cards"].index) for c in doc["choices"])
        stem = doc["prompt"].split("\nOptions:")[0]
        assert not any(c in stem for c in doc["choices"])


def test_key_sort_rank_and_position_are_uniform_within_each_condition():
    docs = WASON.generate(10, 2 * 64)
    for condition in WASON.conditions:
        mine = [d for d in docs if d["condition"] == condition]
        ranks = Counter(sorted(d["choices"], key=natural_key).index(d["choices"][d["gold"]]) for d in mine)
        assert ranks == {r: 16 for r in range(4)}
        assert Counter(d["gold"] for d in mine) == {p: 16 for p in range(4)}


def test_key_and_matching_pair_are_the_two_shortest_or_the_two_longest_options_equally_often():
    docs = WASON.generate(11, 2 * 64)
    places = Counter()
    for doc in docs:
        lengths = [len(c) for c in doc["choices"]]
        assert lengths[doc["gold"]] == lengths[doc["matching"]]  # q and not-q are as long as each other
        if doc["condition"] == "abstract":
            assert len(set(lengths)) == 1  # one character per card
        else:
            others = [n for k, n in enumerate(lengths) if k not in (doc["gold"], doc["matching"])]
            places["longest" if lengths[doc["gold"]] > max(others) else "shortest"] += 1
            assert lengths[doc["gold"]] > max(others) or lengths[doc["gold"]] < min(others)
    assert places == {"longest": 32, "shortest": 32}


def _similarity_credit(choices, gold, sign):
    """The share of a pick of the most (sign 1) / least (sign -1) similar option that is the key."""
    means = [sum(Levenshtein.normalized_similarity(a.casefold(), b.casefold()) for b in choices if b is not a) / 3
             for a in choices]
    if len(set(round(m, 9) for m in means)) == 1:
        return 0.25
    best = max(sign * m for m in means)
    top = [k for k, m in enumerate(means) if abs(sign * m - best) < 1e-9]
    return 1 / len(top) if gold in top else 0.0


def test_key_is_the_most_and_the_least_similar_option_a_quarter_of_the_time():
    docs = WASON.generate(12, 2 * 128)
    for condition in WASON.conditions:
        mine = [d for d in docs if d["condition"] == condition]
        for sign in (1, -1):
            assert sum(_similarity_credit(d["choices"], d["gold"], sign) for d in mine) == 32


def test_no_option_text_tells_the_key_across_items():
    # 1200 items. Deontic options name fresh nonce films and countries, so (up to a rare chance repeat of a
    # nonce word) no option text recurs across items and none can be learned as "the usual key" (it was
    # 0.82 for the cross-fitted majority_text strategy when "beer, 16"-like pairs recurred as keys and
    # "cola, 16"-like pairs as foils). Abstract cards take their roles from random classes: each letter and
    # number is in the key (p or not-q) about half the times it is shown.
    docs = WASON.generate(1, 1200)
    deontic = [d for d in docs if d["condition"] == "deontic"]
    texts = Counter(c for d in deontic for c in d["choices"])
    assert len(texts) == 4 * len(deontic) == 2400
    shown, in_key = Counter(), Counter()
    for doc in docs:
        if doc["condition"] == "abstract":
            for card, role in zip(doc["cards"], doc["roles"]):
                shown[card] += 1
                in_key[card] += role in ("p", "not_q")
    assert len(shown) == 26 and min(shown.values()) >= 30
    assert all(abs(in_key[c] / n - 0.5) < 0.2 for c, n in shown.items())
    for condition in WASON.conditions:
        items = [make_item(d["prompt"] + "\nAnswer:", d["choices"], d["gold"], condition)
                 for d in docs if d["condition"] == condition]
        blind = [0.25 if s is None else credit(s, item.gold) for s, item in zip(majority_text_scores(items), items)]
        assert sum(blind) / len(blind) < 0.25 + 0.03


def test_items_are_distinct_at_1200():
    docs = WASON.generate(0, 1200)
    assert len({WASON.identity(d) for d in docs}) == 1200


def test_a_single_deontic_content_is_the_film_age_limit():
    docs = WASON.generate(0, 20, WASON.make_params({"deontic_contents": 1}))
    assert {d["content"] for d in docs if d["condition"] == "deontic"} == {"cinema"}


# Document 2 of seed 0: cards 7, B, 4, A; options ["B, 4", "7, A", "7, B", "4, A"].
DOC = WASON.generate(0, 3)[2]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("A, 7", 1), ("7 and A", 1), ("**A & 7**", 1), ("the cards A and 7", 1), ("'A', '7'", 1), ("a; 7.", 1),
     ("4, A", 3), ("B, 7", 2), ("A", -1), ("A, 4, 7", -1), ("B", -1), ("none", -1), ("A, 7, A", 1)],
)
def test_card_sets_are_read_in_any_order_and_wrong_sets_are_wrong(answer, expected):
    assert WASON.read(DOC, answer) == expected


@pytest.mark.parametrize("answer", ["A or 7", "A, 7, Q", "", "A and maybe 7", "I would turn A and 7", "A7", "A,, 7"])
def test_hedged_or_unknown_cards_are_invalid(answer):
    assert WASON.read(DOC, answer) is None


def _doc(condition, gold, matching):
    return {"choices": ["a", "b", "c", "d"], "gold": gold, "condition": condition,
            "lure": matching if condition == "abstract" else -1, "matching": matching}


def test_effects_on_hand_built_answers():
    rows = [
        (_doc("abstract", 2, 4), 2),     # right
        (_doc("abstract", 2, 4), 4),     # matching error
        (_doc("abstract", 0, 1), None),  # invalid: an error, not matching
        (_doc("deontic", 3, 2), 3),      # right
        (_doc("deontic", 3, 2), 3),      # right
        (_doc("deontic", 1, 0), -1),     # another set: an error, not matching
        (_doc("deontic", 1, 0), 0),      # matching error
    ]
    scores = aggregate(WASON, [WASON.score(d, p) for d, p in rows])
    assert scores["content_effect"] == pytest.approx(2 / 4 - 1 / 3)  # acc(deontic) - acc(abstract) = 1/6
    assert scores["matching_error_share"] == pytest.approx(2 / 4)     # 4 errors, 2 choose p and q


def test_the_human_pattern_matches_on_abstract_and_solves_deontic():
    scores = play(WASON, "prepotent", WASON.generate(0, 300), "gen")
    assert scores["acc_abstract"] == 0.0 and scores["acc_deontic"] == 1.0
    assert scores["content_effect"] == 1.0 and scores["matching_error_share"] == 1.0


def test_random_errors_match_a_third_of_the_time():
    scores = play(WASON, "random", WASON.generate(0, 2000), "gen")
    assert scores["matching_error_share"] == pytest.approx(1 / 3, abs=0.04)
    assert abs(scores["content_effect"]) < 3.5 * math.sqrt(2 * 0.1875 / 1000)


@pytest.mark.parametrize(("value", "message"), [(0, "'deontic_contents'"), (4, "'deontic_contents'"), ("2", "'deontic_contents'")])
def test_bad_parameters_name_themselves(value, message):
    with pytest.raises(ValueError, match=message):
        WASON.make_params({"deontic_contents": value})
    with pytest.raises(ValueError, match="'content'"):
        WASON.make_params({"content": 1})
