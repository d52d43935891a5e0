"""Episodic memory: pinned items, keys re-derived by re-parsing the record, hand-computed effects."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest

from lm_eval_cog.probes._episodic_memory_banks import ACTIONS, NAMES, PLACES
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.episodic_memory import date_text, parse_date
from lm_eval_cog.probes.reference import aggregate, play

EPI = get_probe("episodic_memory")
INTRO = (
    "Below is a record of events, one per line, in the form \"name \u2013 what they did (date @ place)\". "
    "The lines are in no particular order; all dates are in the same year.\n\n"
)
LINE = re.compile(r"(\w+) \u2013 (.+) \((\d{1,2} [A-Z][a-z]+) @ (.+)\)")
BASE_TO_PAST = {base: past for past, base in ACTIONS}


def _prompt(lines: list[str], question: str) -> str:
    return INTRO + "\n".join(lines) + "\n\n" + question


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand (the key's line comes first among the options' lines: rank 0 opens each cycle).
    # Item 0: Yara's line dated 10 April says "played chess" (key, line 1); her other events are "lost an
    # umbrella" and "tuned a guitar" (the lure, line 14); the next line is Kira's "adopted a kitten"
    # (adjacent); "moved a sofa" is Kira's too (line 15). Item 1: Nora caught a fish on 13 July (line 1);
    # her 29 July (lure, line 3); the next line is Ben's 30 December (adjacent); 5 December is Zoe's.
    # Item 3: Dev spilled coffee (line 7); Emil's line 6 is the nearest (lure); Maya and Grace; all four
    # have two lines, and Dev's last line (7) comes before Emil's (16), Maya's (15) and Grace's (17).
    docs = EPI.generate(0, 4)
    assert docs[0]["prompt"] == _prompt(
        ["Yara \u2013 played chess (10 April @ the cafe)", "Kira \u2013 adopted a kitten (21 October @ the gym)",
         "Chloe \u2013 won a medal (7 August @ the airport)", "Tara \u2013 rented a boat (5 July @ the park)",
         "Kira \u2013 returned a book (21 February @ the bridge)",
         "Yara \u2013 lost an umbrella (31 January @ the pharmacy)",
         "Umar \u2013 broke a mirror (20 January @ the forest)",
         "Chloe \u2013 spilled some coffee (18 April @ the bakery)", "Ada \u2013 baked a cake (8 August @ the zoo)",
         "Ben \u2013 flew a drone (9 November @ the cinema)", "Ada \u2013 tasted a cheese (13 October @ the harbour)",
         "Umar \u2013 watched a comet (22 July @ the hospital)", "Umar \u2013 gave a speech (24 November @ the lake)",
         "Yara \u2013 tuned a guitar (28 March @ the post office)",
         "Kira \u2013 moved a sofa (2 October @ the stadium)", "Chloe \u2013 carved a spoon (14 June @ the hotel)",
         "Zoe \u2013 climbed a wall (27 June @ the square)"],
        "What did Yara do on 10 April? Answer with the action exactly as it is written in the record.",
    )
    assert docs[1]["prompt"] == _prompt(
        ["Nora \u2013 caught a fish (13 July @ the harbour)", "Ben \u2013 watched a comet (30 December @ the theatre)",
         "Nora \u2013 played chess (29 July @ the market)", "Nora \u2013 tuned a guitar (6 September @ the bank)",
         "Wes \u2013 printed a poster (4 July @ the castle)", "Ben \u2013 broke a mirror (18 July @ the cinema)",
         "Hugo \u2013 sold a piano (28 June @ the park)", "Zoe \u2013 spilled some coffee (25 September @ the museum)",
         "Zoe \u2013 wrote a letter (5 December @ the airport)", "Zoe \u2013 climbed a wall (23 July @ the station)"],
        "On what date did Nora catch a fish? Answer with the day and the month, as in the record.",
    )
    assert docs[3]["prompt"].endswith("Nora \u2013 tuned a guitar (11 December @ the bakery)\n"
                                      "Hugo \u2013 repaired a clock (2 January @ the pharmacy)\n\n"
                                      "Who spilled some coffee? Answer with the name only.")
    assert [(d["choices"], d["gold"], d["condition"], d["lure"], d["adjacent"]) for d in docs] == [
        (["played chess", "moved a sofa", "tuned a guitar", "adopted a kitten"], 0, "what", 2, 3),
        (["13 July", "29 July", "5 December", "30 December"], 0, "when", 1, 3),
        (["the zoo", "the station", "the bakery", "the park"], 0, "where", 2, 3),
        (["Dev", "Maya", "Emil", "Grace"], 0, "who", 2, -1),
    ]


def _parse(prompt: str) -> tuple[list[tuple[str, str, dt.date, str]], str]:
    body, question = prompt.removeprefix(INTRO).split("\n\n")
    events = []
    for line in body.split("\n"):
        person, action, date, place = LINE.fullmatch(line).groups()
        events.append((person, action, dt.datetime.strptime(f"{date} 2023", "%d %B %Y").date(), place))
    return events, question


def _nearest_other_person(events, row):
    # Brute force: the other people's lines sorted by distance, the earlier line first at a tie.
    others = [r for r in range(len(events)) if events[r][0] != events[row][0]]
    return min(others, key=lambda r: (abs(r - row), r))


def _expected(events, question):
    """(key, lure, adjacent or None, field index) of a question, from the parsed record alone."""
    if m := re.fullmatch(r"What did (\w+) do on (\d+ \w+)\? .*", question):
        date = dt.datetime.strptime(f"{m[2]} 2023", "%d %B %Y").date()
        rows = [r for r, e in enumerate(events) if e[0] == m[1] and e[2] == date]
        field = 1
    elif m := re.fullmatch(r"(?:On what date|Where) did (\w+) (.+)\? Answer with .*", question):
        rows = [r for r, e in enumerate(events) if e[0] == m[1] and e[1] == BASE_TO_PAST[m[2]]]
        field = 2 if question.startswith("On what date") else 3
    else:
        m = re.fullmatch(r"Who (.+)\? Answer with the name only\.", question)
        rows = [r for r, e in enumerate(events) if e[1] == m[1]]
        assert len(rows) == 1
        return events[rows[0]][0], events[_nearest_other_person(events, rows[0])][0], None, 0
    assert len(rows) == 1  # the question names exactly one event
    (row,) = rows
    own = [events[r][field] for r in range(len(events)) if events[r][0] == events[row][0] and r != row]
    return events[row][field], own, events[_nearest_other_person(events, row)][field], field


def _show(value):
    return f"{value.day} {value.strftime('%B')}" if isinstance(value, dt.date) else value


@pytest.mark.parametrize(("seed", "overrides"), [(1, {}), (2, {"min_events": 8, "max_events": 8}), (3, {"min_events": 20})])
def test_keys_re_derived_by_re_parsing_the_record(seed, overrides):
    docs = EPI.generate(seed, 300, EPI.make_params(overrides))
    for doc in docs:
        events, question = _parse(doc["prompt"])
        lo, hi = EPI.make_params(overrides).min_events, EPI.make_params(overrides).max_events
        assert lo <= len(events) <= hi
        for field in range(1, 4):  # actions, dates and places are unique within a record
            assert len({e[field] for e in events}) == len(events)
        choices = doc["choices"]
        if doc["condition"].startswith("order"):
            m = re.fullmatch(r'Which happened first: "(.+)" or "(.+)"\? .*', question)
            assert list(m.groups()) == choices
            rows = [next(r for r, e in enumerate(events) if f"{e[0]} {e[1]}" == c) for c in choices]
            earlier = min(range(2), key=lambda k: events[rows[k]][2])
            assert doc["gold"] == earlier
            listed_first = min(range(2), key=lambda k: rows[k])
            congruent = listed_first == earlier
            assert congruent == (doc["condition"] == "order_congruent")
            assert doc["lure"] == (-1 if congruent else listed_first)
            continue
        key, lure, adjacent, field = _expected(events, question)
        shown = [_show(events[r][field]) for r in range(len(events))]
        assert choices[doc["gold"]] == _show(key)
        assert all(c in shown for c in choices)  # every option comes from the record
        if doc["condition"] == "who":
            assert choices[doc["lure"]] == lure and doc["adjacent"] == -1
        else:
            assert choices[doc["lure"]] in [_show(v) for v in lure]  # the same person's other event
            assert choices[doc["adjacent"]] == _show(adjacent)
            third = [c for k, c in enumerate(choices) if k not in (doc["gold"], doc["lure"], doc["adjacent"])]
            owner = {_show(e[field]): e[0] for e in events}
            assert owner[third[0]] != owner[choices[doc["gold"]]]
    assert Counter(d["condition"] for d in docs) == {c: 50 for c in EPI.conditions}


def _option_lines(doc):
    """The record lines of each option: the line an attribute is on; a person's lines."""
    events, _ = _parse(doc["prompt"])
    if doc["condition"] == "who":
        return [[r for r, e in enumerate(events) if e[0] == c] for c in doc["choices"]]
    field = {"what": 1, "when": 2, "where": 3}[doc["condition"]]
    return [[r for r, e in enumerate(events) if _show(e[field]) == c] for c in doc["choices"]]


def test_key_is_each_rank_among_the_options_in_record_order_equally_often():
    # "The option named first / last in the record" is the key 1/4 of the time in every condition.
    docs = EPI.generate(6, 6 * 64)
    for condition in ("what", "when", "where", "who"):
        ranks = Counter()
        for doc in (d for d in docs if d["condition"] == condition):
            last = [max(lines) for lines in _option_lines(doc)]
            ranks[sorted(last).index(last[doc["gold"]])] += 1
        assert ranks == {r: 16 for r in range(4)}, condition


def test_who_options_name_people_with_as_many_lines_each():
    for doc in (d for d in EPI.generate(7, 600) if d["condition"] == "who"):
        assert len({len(lines) for lines in _option_lines(doc)}) == 1


def test_key_position_is_uniform_within_each_condition():
    docs = EPI.generate(8, 6 * 64)
    for condition in EPI.conditions:
        k = 2 if condition.startswith("order") else 4
        assert Counter(d["gold"] for d in docs if d["condition"] == condition) == {p: 64 // k for p in range(k)}


def test_items_are_distinct_at_1200():
    docs = EPI.generate(0, 1200)
    assert len({EPI.identity(d) for d in docs}) == 1200


def test_dates_round_trip_for_every_day_of_a_common_year():
    day = dt.date(2023, 1, 1)
    for k in range(365):
        text = date_text(k)
        assert text == f"{day.day} {day.strftime('%B')}"
        assert parse_date(text) == (day.month - 1, day.day)
        day += dt.timedelta(days=1)


def _doc(condition, lure=1, adjacent=2):
    choices = {
        "what": ["spilled some coffee", "won a medal", "broke a mirror", "moved a sofa"],
        "when": ["25 September", "5 December", "28 June", "6 September"],
        "where": ["the park", "the bridge", "the zoo", "the lake"],
        "who": ["Jonas", "Hugo", "Sam", "Dev"],
    }.get(condition, ["Liam tuned a guitar", "Umar watched a comet"])
    return {
        "choices": choices, "gold": 0, "condition": condition, "lure": lure, "adjacent": adjacent,
        "persons": ["Liam", "Umar", "Bella"], "actions": ["tuned a guitar", "watched a comet", "drew a map"],
    }


def test_metrics_on_hand_scored_answers():
    answers = [
        (_doc("what"), "won a medal"),  # binding error (lure)
        (_doc("what"), "Spilled some coffee."),  # right
        (_doc("when"), "December 5th"),  # binding error
        (_doc("when"), "28 June"),  # adjacent error
        (_doc("where"), "at the lake"),  # other error
        (_doc("where"), "somewhere near the zoo"),  # invalid: an error naming nothing
        (_doc("who", adjacent=-1), "Hugo"),  # binding error (the neighbouring line's person)
        (_doc("who", adjacent=-1), "Jonas"),  # right
        (_doc("order_congruent", lure=-1, adjacent=-1), "Liam tuned a guitar"),  # right
        (_doc("order_congruent", lure=-1, adjacent=-1), "watched a comet"),  # wrong
        (_doc("order_incongruent", adjacent=-1), "Umar watched a comet"),  # wrong (the lure)
        (_doc("order_incongruent", adjacent=-1), "Bella drew a map"),  # wrong, well formed (-1)
    ]
    scores = aggregate(EPI, [EPI.score_gen(doc, text) for doc, text in answers])
    # what/when/where/who: 8 answers, 2 right, 6 errors (medal, 5 December, 28 June, lake, invalid, Hugo),
    # 3 of which name the lure (medal, 5 December, Hugo): 3/6.
    assert scores["binding_error_share"] == 0.5
    # what/when/where errors: medal, 5 December, 28 June, lake, invalid = 5; one names the adjacent line.
    assert scores["adjacent_error_share"] == pytest.approx(1 / 5)
    assert scores["order_congruence_effect"] == 0.5  # 1/2 - 0/2
    assert scores["invalid_rate"] == pytest.approx(1 / 12) and scores["acc"] == pytest.approx(3 / 12)
    assert scores["acc_what"] == 0.5 and scores["acc_where"] == 0.0 and scores["acc_who"] == 0.5


def test_the_prepotent_player_shows_binding_errors_and_the_list_order_effect():
    docs = EPI.generate(0, 300)
    scores = play(EPI, "prepotent", docs, "gen")
    assert all(scores[f"acc_{c}"] == 0.0 for c in ("what", "when", "where", "who", "order_incongruent"))
    assert scores["acc_order_congruent"] == 1.0 and scores["acc"] == pytest.approx(1 / 6)
    assert scores["binding_error_share"] == 1.0 and scores["adjacent_error_share"] == 0.0
    assert scores["order_congruence_effect"] == 1.0
    rand = play(EPI, "random", docs, "gen")
    assert 0.2 < rand["binding_error_share"] < 0.47 and abs(rand["order_congruence_effect"]) < 0.3


@pytest.mark.parametrize(
    ("condition", "answer", "expected"),
    [
        ("what", "**Spilled some coffee.**", 0), ("what", "'won a medal'", 1), ("what", "baked a cake", -1),
        ("what", "spilled coffee", None), ("what", "Chloe spilled some coffee", None), ("what", "", None),
        ("what", "won a medal or broke a mirror", None),
        ("when", "25 September", 0), ("when", "September 25th", 0), ("when", "on 25 Sep", 0), ("when", "5 December.", 1),
        ("when", "1 January", -1), ("when", "31 February", None), ("when", "25/09", None), ("when", "September", None),
        ("when", "25 September or 5 December", None),
        ("where", "the park", 0), ("where", "Park", 0), ("where", "at the bridge", 1), ("where", "the cinema", -1),
        ("where", "the moon", None), ("where", "the park or the zoo", None),
        ("who", "Jonas", 0), ("who", "*hugo*", 1), ("who", "Ada", -1), ("who", "Jonas and Hugo", None),
        ("who", "Mr. Smith", None),
        ("order_congruent", "Liam tuned a guitar", 0), ("order_congruent", "\"watched a comet\"", 1),
        ("order_congruent", "Bella drew a map", -1), ("order_congruent", "both", None),
        ("order_congruent", "Liam", None), ("order_congruent", "Liam tuned a guitar first, then Umar", None),
    ],
)
def test_read_parses_open_answers_strictly(condition, answer, expected):
    assert EPI.read(_doc(condition), answer) == expected


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"min_events": 7}, "min_events"), ({"max_events": 21}, "max_events"), ({"min_events": 0}, "min_events"),
     ({"min_events": 12, "max_events": 10}, "max_events"), ({"max_events": "20"}, "max_events"),
     ({"events": 10}, "events")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        EPI.make_params(overrides)


def test_banks_are_unique_and_disjoint():
    pasts = [p.casefold() for p, _ in ACTIONS]
    bases = [b.casefold() for _, b in ACTIONS]
    names = [n.casefold() for n in NAMES]
    places = [p.casefold().removeprefix("the ") for p in PLACES]
    for bank in (pasts, bases, names, places):
        assert len(bank) == len(set(bank))
    assert not set(names) & set(places) and not set(names) & set(pasts) and not set(places) & set(pasts)
    assert len(NAMES) >= 10 and len(ACTIONS) >= 20 and len(PLACES) >= 20  # room for 20 events, 10 people
