"""Wason selection: pinned items, the card set re-derived from the printed rule and cards,
set-valued answer reading, content and matching effects."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from scipy.stats import chisquare
from rapidfuzz.distance import Levenshtein

from lm_eval_cog.audit.probes import doc_item
from lm_eval_cog.audit.strategies import credit, majority_text_scores, natural_key
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from probe_strategies import accuracy_by_condition

WASON = get_probe("wason_selection")
ABSTRACT = "Each of four cards has a letter on one side and a number on the other side. "
TAIL = "Answer with the visible sides of exactly the cards that must be turned over, separated by commas."


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: 0 not a consonant (a vowel) -> odd: A (p) and 6 (not-q) must be turned; the rule
    # names S (a consonant) and 3 (odd), the matching lure "S, 3". 1 a ticket for any film other than
    # Kregun (Guza) needs under 16: Guza and 34 (shown "34, Guza"); the rule's words match Kregun and 10.
    # 2 vowel -> even: E and 9, matching "8, E". 3 arrivals from any country but Zwomin (from Male) must
    # stay fewer than 14 days: Male and 25 days; the rule's words match Zwomin and 11 days.
    docs = WASON.generate(0, 4)
    assert docs[0]["prompt"] == (
        ABSTRACT + "You see one side of each card: [S] [6] [A] [3].\n"
        "Rule: If a card does not have a consonant on one side, then it has an odd number on the other side.\n"
        "Which cards must you turn over to find out whether the rule is true or false for these four cards? "
        "Turn over only the cards you need.\nOptions:\n- A, 3\n- 6, A\n- S, 6\n- S, 3\n" + TAIL
    )
    assert docs[3]["prompt"] == (
        "You are an immigration officer at the airport of Liglem. Each of four cards shows a passenger's form: "
        "one side names the country the passenger arrives from, the other side how many days the passenger plans "
        "to stay. You see one side of each card: [25 days] [Zwomin] [11 days] [Male].\n"
        "Rule: If a passenger arrives from any country other than Zwomin, they must stay fewer than 14 days.\n"
        "Which cards must you turn over to find out whether anyone is breaking the rule? Turn over only the "
        "cards you need.\nOptions:\n- 25 days, Zwomin\n- Zwomin, 11 days\n- 11 days, Male\n- 25 days, Male\n" + TAIL
    )
    assert docs[1]["choices"] == ["Kregun, 10", "Guza, 10", "34, Guza", "Kregun, 34"]
    assert docs[1]["prompt"].split("\n")[1] == (
        "Rule: If a person has a ticket for any film other than Kregun, they must be under 16 years old."
    )
    assert docs[2]["choices"] == ["8, E", "9, N", "9, E", "N, 8"]
    assert [(d["condition"], d["gold"], d["lure"], d["matching"]) for d in docs] == [
        ("abstract", 1, 3, 3), ("deontic", 2, -1, 0), ("abstract", 2, 0, 0), ("deontic", 3, -1, 1)
    ]


# -- an independent key: which visible side can hide a violation (p true, q false)? -----
CLASSES = {
    "a vowel": lambda s: s.isalpha() and s in "AEIOU", "a consonant": lambda s: s.isalpha() and s not in "AEIOU",
    "an even number": lambda s: s.isdigit() and int(s) % 2 == 0, "an odd number": lambda s: s.isdigit() and int(s) % 2 == 1,
}
LIMITS = {"over": int.__gt__, "under": int.__lt__, "at least": int.__ge__, "less than": int.__lt__,
          "fewer than": int.__lt__}
DEONTIC_RULE = re.compile(
    r"If (?:a person has a ticket for|a letter is addressed to|a passenger arrives from) (any (?:film|country) other "
    r"than )?(\w+), .*?(over|under|at least|less than|fewer than) (\d+) .*\."
)


def _tests(rule: str):
    """(antecedent true?, consequent true?, named by the rule's words?) of a visible side: None where the
    side does not say."""
    if m := re.fullmatch(r"If a card (has|does not have) (.+) on one side, then it (has|does not have) (.+) on the other side\.",
                         rule):
        ante, cons = CLASSES[m.group(2)], CLASSES[m.group(4)]
        not_ante, not_cons = m.group(1) != "has", m.group(3) != "has"

        def letter_number(side):
            if side.isalpha() == (m.group(2) in ("a vowel", "a consonant")):
                return ante(side) != not_ante, None, ante(side)
            return None, cons(side) != not_cons, cons(side)

        return letter_number
    m = DEONTIC_RULE.fullmatch(rule)
    negated, name, relation, limit = bool(m.group(1)), m.group(2), LIMITS[m.group(3)], int(m.group(4))

    def deontic(side):
        if not side[0].isdigit():  # a capitalised nonce film or country
            return (side == name) != negated, None, side == name
        value = int(re.match(r"\d+", side).group())
        assert abs(value - limit) >= 2  # "over 16" and "16 or over" agree on every value shown
        return None, relation(value, limit), relation(value, limit)

    return deontic


def test_key_and_lure_match_the_printed_rule_and_cards():
    contents, forms = Counter(), Counter()
    for doc in WASON.generate(4, 400):
        rule = re.search(r"^Rule: (.+)$", doc["prompt"], re.MULTILINE).group(1)
        cards = _cards(doc)
        test = _tests(rule)
        must = {c for c in cards if test(c)[0] is True or test(c)[1] is False}
        matching = {c for c in cards if test(c)[2]}
        assert set(doc["choices"][doc["gold"]].split(", ")) == must and len(must) == 2
        assert set(doc["choices"][doc["matching"]].split(", ")) == matching and len(matching) == 2
        lure = doc["matching"] if doc["condition"] == "abstract" and doc["matching"] != doc["gold"] else -1
        assert doc["lure"] == lure
        assert all(f"- {c}\n" in doc["prompt"] for c in doc["choices"])
        contents[doc["content"]] += 1
        forms[doc["condition"], rule.count("not have") + rule.count("other than")] += 1
    assert set(contents) == {"letters", "cinema", "postage", "entry"}
    # Abstract rules negate neither part, one or both (Evans & Lynch's four forms: 1/4, 1/2, 1/4);
    # deontic rules name the p card or, "any film other than", the not-p card, half and half.
    assert forms[("abstract", 1)] == pytest.approx(100, abs=20) and forms[("abstract", 0)] == pytest.approx(50, abs=15)
    assert forms[("deontic", 1)] == pytest.approx(100, abs=20)


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
        # The position is drawn per item since version 3.1 (cycled with the rank, the similarity class
        # and the longer p card, it could be read off them): a guess's spread.
        positions = Counter(d["gold"] for d in mine)
        assert set(positions) == set(range(4)) and chisquare(list(positions.values())).pvalue > 1e-3, positions


def test_key_and_matching_pair_are_the_two_shortest_or_the_two_longest_options_equally_often():
    docs = WASON.generate(11, 2 * 64)
    places = Counter()
    for doc in docs:
        lengths = [len(c) for c in doc["choices"]]
        p_and_q = doc["choices"].index(", ".join(c for c, r in zip(doc["cards"], doc["roles"]) if r in ("p", "q")))
        assert lengths[doc["gold"]] == lengths[p_and_q]  # q and not-q are as long as each other
        if doc["condition"] == "abstract":
            assert len(set(lengths)) == 1  # one character per card
        else:
            others = [n for k, n in enumerate(lengths) if k not in (doc["gold"], p_and_q)]
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
    assert all(abs(in_key[c] / n - 0.5) < 3.5 * math.sqrt(0.25 / n) for c, n in shown.items())
    for condition in WASON.conditions:
        items = [doc_item(d) for d in docs if d["condition"] == condition]
        blind = [0.25 if s is None else credit(s, item.gold) for s, item in zip(majority_text_scores(items), items)]
        assert sum(blind) / len(blind) < 0.25 + 0.03


def test_items_are_distinct_at_1200():
    docs = WASON.generate(0, 1200)
    assert len({WASON.identity(d) for d in docs}) == 1200


def test_a_single_deontic_content_is_the_film_age_limit():
    docs = WASON.generate(0, 20, WASON.make_params({"deontic_contents": 1}))
    assert {d["content"] for d in docs if d["condition"] == "deontic"} == {"cinema"}


# Document 2 of seed 0: cards 9, N, 8, E; options ["8, E", "9, N", "9, E", "N, 8"].
DOC = WASON.generate(0, 3)[2]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("E, 9", 2), ("9 and E", 2), ("**E & 9**", 2), ("the cards E and 9", 2), ("'E', '9'", 2), ("e; 9.", 2),
     ("8, E", 0), ("N, 9", 1), ("E", -1), ("E, 8, 9", -1), ("N", -1), ("none", -1), ("E, 9, E", 2)],
)
def test_card_sets_are_read_in_any_order_and_wrong_sets_are_wrong(answer, expected):
    assert WASON.read(DOC, answer) == expected


@pytest.mark.parametrize("answer", ["E or 9", "E, 9, Q", "", "E and maybe 9", "I would turn E and 9", "E9", "E,, 9"])
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
    # Matching is right only where the rule negates its "then" part alone (no lure there): about 1/4.
    docs = WASON.generate(0, 300)
    abstract = [d for d in docs if d["condition"] == "abstract"]
    matching_right = sum(d["lure"] == -1 for d in abstract) / len(abstract)
    assert 0.15 < matching_right < 0.35
    scores = play(WASON, "prepotent", docs, "gen")
    assert scores["acc_abstract"] == pytest.approx(matching_right) and scores["acc_deontic"] == 1.0
    assert scores["content_effect"] == pytest.approx(1 - matching_right) and scores["matching_error_share"] == 1.0


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
RULED = (
    "Each of four cards has a letter on one side and a number on the other side. You see one side of each card: "
    "[A] [K] [4] [7].\nRule: If a card has a vowel on one side, then it {verb} an even number on the other side.\n"
)
OPTIONS = ["A, 4", "A, 7", "K, 4", "K, 7"]


@pytest.mark.parametrize(("verb", "key"), [("has", "A, 7"), ("does not have", "A, 4")])
def test_matching_picks_the_cards_the_rule_names_whatever_its_negations(verb, key):
    # Evans & Lynch (1973): A (a vowel) and 4 (an even number) are named in both rules; with the negated
    # consequent, the matching choice is the logically right one.
    matching = dict((h.name, h) for h in WASON.heuristics)["matching"]
    scores = matching.scores(RULED.format(verb=verb), OPTIONS)
    assert scores == [2.0, 1.0, 1.0, 0.0] and credit(scores, OPTIONS.index(key)) == (1.0 if verb != "has" else 0.0)


def test_the_if_heuristic_picks_the_card_the_if_part_names_even_when_it_negates_it():
    if_card = dict((h.name, h) for h in WASON.heuristics)["if_card"]
    assert if_card.scores(RULED.format(verb="has"), OPTIONS) == [1.0, 1.0, 0.0, 0.0]
    deontic = ("You see one side of each card: [Velmor] [23] [Zorbak] [12].\n"
               "Rule: If a person has a ticket for any film other than Velmor, they must be over 16 years old.\n")
    # Velmor is named, though the rule is about Zorbak (the p card): the heuristic picks the wrong card.
    assert if_card.scores(deontic, ["Velmor, 23", "Velmor, 12", "Zorbak, 12", "23, Zorbak"]) == [1.0, 1.0, 0.0, 0.0]
    assert if_card.scores("no rule here", OPTIONS) is None


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_declared_heuristics_are_at_chance_in_each_condition(seed):
    for heuristic in WASON.heuristics:
        accuracy = accuracy_by_condition("wason_selection", heuristic, seed, 300)
        assert max(accuracy[c] for c in WASON.conditions) <= 0.25 + 0.05, (heuristic.name, accuracy)


def _if_card_and_smallest_number(stem, options):
    """Issue 28's strategy: the card the rule's "if" part names plus the smallest number shown."""
    rule = re.search(r"^Rule: If (.+?),", stem, re.MULTILINE).group(1)
    cards = re.findall(r"\[([^\]]+)\]", stem)
    numbers = [int(re.match(r"\d+", c).group()) for c in cards if c[0].isdigit()]
    smallest = str(min(numbers)) if numbers else None
    return [2.0 * any(re.search(rf"\b{re.escape(c)}\b", rule) for c in o.split(", "))
            + any(re.match(r"\d+", c) and re.match(r"\d+", c).group() == smallest for c in o.split(", "))
            for o in options]


def test_the_if_card_and_the_smallest_number_are_at_chance_on_deontic_items():
    # Issue 28: 0.97 when every rule named the p card and every violating value was the smaller one.
    assert accuracy_by_condition("wason_selection", _if_card_and_smallest_number, 11, 400)["deontic"] <= 0.25 + 0.05


def test_random_errors_match_a_third_of_the_time():
    # A third of the errors on items where matching is wrong; none where it is the key (an abstract
    # rule negating its "then" part only): n_wrong_matching / (3 n) in expectation, 7/24 here.
    docs = WASON.generate(0, 2000)
    scores = play(WASON, "random", docs, "gen")
    expected = sum(d["matching"] != d["gold"] for d in docs) / (3 * len(docs))
    errors = 0.75 * len(docs)
    assert scores["matching_error_share"] == pytest.approx(expected, abs=3.5 * math.sqrt(expected * (1 - expected) / errors))
    assert abs(scores["content_effect"]) < 3.5 * math.sqrt(2 * 0.1875 / 1000)


@pytest.mark.parametrize(("value", "message"), [(0, "'deontic_contents'"), (4, "'deontic_contents'"), ("2", "'deontic_contents'")])
def test_bad_parameters_name_themselves(value, message):
    with pytest.raises(ValueError, match=message):
        WASON.make_params({"deontic_contents": value})
    with pytest.raises(ValueError, match="'content'"):
        WASON.make_params({"content": 1})


def test_a_card_unit_does_not_tell_whether_the_violating_value_is_the_smaller():
    # Version 3.1: each deontic content measures one quantity, in one unit, for its minimum and its
    # maximum rule. Before, stamps (cents) and passports (months) were always minima and weights
    # (grams) and stays (days) always maxima, so "12 months" was a violation wherever it was shown.
    docs = [d for d in WASON.generate(11, 800) if d["condition"] == "deontic"]
    key_smaller: dict[str, Counter] = {}
    for doc in docs:
        values = [re.match(r"(\d+)\s?(\D*)$", card) for card in doc["cards"]]
        values = [m for m in values if m]
        unit = values[0].group(2)
        violating = re.search(r"\d+", doc["choices"][doc["gold"]]).group()
        smaller = min(int(m.group(1)) for m in values)
        key_smaller.setdefault(unit, Counter())[int(violating) == smaller] += 1
    for unit, counts in key_smaller.items():
        n = sum(counts.values())
        assert abs(counts[True] / n - 0.5) < 3.5 * math.sqrt(0.25 / n), (unit, counts)


def test_an_options_only_classifier_learns_nothing_on_deontic_items():
    # Trained on four other seeds of 400 items (twice the audit's default budget and more): the
    # version 3.0 deontic options read 0.38 at these seeds (the units), now at chance.
    from lm_eval_cog.audit.detectors import detect
    from lm_eval_cog.audit.probes import probe_items

    test = [it for it in probe_items("wason_selection", (11, 12, 13), 400) if it.condition == "deontic"]
    train = [it for it in probe_items("wason_selection", (14, 15, 16, 17), 400) if it.condition == "deontic"]
    found = detect("options_only", test, train)
    assert sum(found.credits) / len(found.credits) <= 0.25 + 0.05
