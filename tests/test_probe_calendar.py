"""Calendar scheduling probe: pinned items, keys re-derived by a minute-by-minute scheduler, reading, metrics."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import NO_ANSWER, get_probe
from lm_eval_cog.probes.reference import aggregate, play

CAL = get_probe("calendar")
ASK = "Find the earliest time at which everyone is free for the whole meeting"
FORM = ". Give the meeting as a time range HH:MM-HH:MM (24-hour clock)."


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand (the key is the earliest option in all three: rank 0 opens every cycle):
    # 0: Grace busy until 10:30 -> 10:30-11:00; 12:30-13:00 breaks Henry's time only (the lure,
    #    after the key); 14:30-15:00 and 11:30-12:00 are free but later.
    # 1: Carol busy 9:30-10:00 -> 10:00-11:00; 11:30-12:30 breaks Alice's only (lure); 13:30-14:30
    #    breaks three people's; 15:00-16:00 is free but later.
    # 2: Alice busy until 11:00 -> 11:00-11:30; 13:00-13:30 breaks David's only (lure); 12:00-12:30
    #    breaks David's and Carol's; 16:00-16:30 is free but later.
    docs = CAL.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        "Schedule a 30-minute meeting for Henry and Grace today between 9:00 and 17:00.\n"
        "Henry is busy 12:00-13:30.\n"
        "Grace is busy 9:00-10:30, 11:00-11:30, 12:00-12:30, 14:00-14:30 and 15:00-17:00.\n" + ASK + FORM,
        "Schedule a 60-minute meeting for Carol, Alice and David today between 9:00 and 17:00.\n"
        "Carol is busy 9:30-10:00 and 12:30-15:00.\nAlice is busy 11:30-12:00, 13:00-13:30, 14:00-15:00 and "
        "16:00-16:30.\nDavid is busy 11:00-11:30 and 13:30-15:00.\n" + ASK + FORM,
        "Schedule a 30-minute meeting for David, Emma, Carol and Alice today between 9:00 and 17:00.\n"
        "David is busy 11:30-15:00.\nEmma is busy 10:30-11:00, 11:30-12:00, 12:30-13:00 and 13:30-14:00.\n"
        "Carol is busy 12:00-13:00, 13:30-15:00 and 15:30-16:00.\nAlice is busy 9:00-11:00.\n" + ASK + FORM,
    ]
    assert [d["choices"] for d in docs] == [
        ["10:30-11:00", "14:30-15:00", "11:30-12:00", "12:30-13:00"],
        ["10:00-11:00", "13:30-14:30", "11:30-12:30", "15:00-16:00"],
        ["11:00-11:30", "12:00-12:30", "16:00-16:30", "13:00-13:30"],
    ]
    assert [(d["condition"], d["gold"], d["lure"], d["key_rank"]) for d in docs] == [
        ("k2", 0, 3, 0), ("k3", 0, 2, 0), ("k4", 0, 3, 0)
    ]


def test_a_preference_item_of_seed_0_is_pinned():
    # 5: Grace not before 10:00; 9:00-10:00 is free of busy times (the preference binds); 10:00-11:00
    # breaks David's time; 10:30-11:30 is free (key); 13:30-14:30 breaks Emma's only (lure);
    # 12:00-13:00 and 15:30-16:30 are free but later.
    doc = CAL.generate(0, 6)[5]
    assert doc["prompt"].endswith(
        "Grace would rather not meet before 10:00.\n" + ASK + " and the preference is respected" + FORM
    )
    assert doc["choices"] == ["13:30-14:30", "10:30-11:30", "12:00-13:00", "15:30-16:30"]
    assert (doc["gold"], doc["lure"], doc["lure_kind"], doc["preference"]) == (1, 0, "busy", True)


# -- an independent scheduler: minutes, from the prompt's text ----------------------------
def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def _parse(prompt: str) -> tuple[int, dict[str, list[tuple[int, int]]], int]:
    duration = int(re.search(r"a (\d+)-minute meeting", prompt).group(1))
    busy = {}
    for name, spans in re.findall(r"^(\w+) is busy (.*)\.$", prompt, flags=re.MULTILINE):
        busy[name] = [(_minutes(a), _minutes(b)) for a, b in re.findall(r"(\d+:\d\d)-(\d+:\d\d)", spans)]
    pref = re.search(r"would rather not meet before (\d+:\d\d)", prompt)
    return duration, busy, _minutes(pref.group(1)) if pref else 0


def _broken(start: int, duration: int, busy: dict, pref: int) -> list[str]:
    """Constraints a meeting at ``start`` breaks, checked minute by minute."""
    out = [name for name, spans in busy.items() if any(a <= m < b for m in range(start, start + duration) for a, b in spans)]
    return out + (["preference"] if start < pref else [])


def _slots(doc: dict) -> list[int]:
    return [_minutes(c.split("-")[0]) for c in doc["choices"]]


@pytest.mark.parametrize(("seed", "overrides"), [(5, {}), (6, {"max_busy": 1}), (7, {"max_busy": 6})])
def test_keys_and_lures_rederived_minute_by_minute(seed, overrides):
    for doc in CAL.generate(seed, 300, CAL.make_params(overrides)):
        duration, busy, pref = _parse(doc["prompt"])
        assert len(busy) == doc["participants"] == int(doc["condition"][1:]) and bool(pref) == doc["preference"]
        starts = range(9 * 60, 17 * 60 - duration + 1)
        key = next(s for s in starts if not _broken(s, duration, busy, pref))
        slots = _slots(doc)
        assert slots[doc["gold"]] == key
        assert all(c.endswith(f"-{_clock(s + duration)}") for c, s in zip(doc["choices"], slots))
        lure = slots[doc["lure"]]
        assert len(_broken(lure, duration, busy, pref)) == 1  # a near miss
        assert (lure < key) == (doc["key_rank"] > 0)  # before the key, unless the key is the earliest option
        assert sorted(slots).index(key) == doc["key_rank"]
        assert all(_broken(s, duration, busy, pref) for s in slots if s < key)
        if doc["key_rank"] < 3:  # a later option is free for everyone: right, but not earliest
            assert any(not _broken(s, duration, busy, pref) for s in slots if s > key)
        if pref:  # the key respects the preference, which binds: an earlier start is free of busy times
            assert pref <= key and next(s for s in starts if not _broken(s, duration, busy, 0)) < key


def _clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def test_key_rank_in_time_order_and_key_position_are_uniform_within_each_condition():
    docs = CAL.generate(11, 3 * 64)
    for condition in CAL.conditions:
        mine = [d for d in docs if d["condition"] == condition]
        ranks = Counter(sorted(_slots(d)).index(_slots(d)[d["gold"]]) for d in mine)
        assert ranks == {r: 16 for r in range(4)}
        assert Counter(d["gold"] for d in mine) == {p: 16 for p in range(4)}
        # ... and within each half (with and without a preference) as well.
        for preference in (False, True):
            half = [d for d in mine if d["preference"] == preference]
            assert Counter(sorted(_slots(d)).index(_slots(d)[d["gold"]]) for d in half) == {r: 8 for r in range(4)}


def test_each_start_time_is_the_key_a_quarter_of_the_times_it_is_offered():
    # The option slots are drawn before the schedule: no time of day (and no option text) is a cue.
    offered, keyed = Counter(), Counter()
    for doc in CAL.generate(12, 3000):
        for k, slot in enumerate(_slots(doc)):
            offered[slot] += 1
            keyed[slot] += k == doc["gold"]
    for slot, n in offered.items():
        assert abs(keyed[slot] / n - 0.25) < 4 * math.sqrt(0.1875 / n), (_clock(slot), keyed[slot], n)


def test_no_option_is_named_in_the_prompt_and_each_option_starts_at_a_time_it_names():
    # The key always starts where a busy time ends (the slot before the earliest free start is busy),
    # at 9:00 or at the preference's time: so does every foil, so that no start time is a cue.
    for doc in CAL.generate(13, 600):
        duration, busy, pref = _parse(doc["prompt"])
        named = {f"{a}-{b}" for a, b in re.findall(r"(\d+:\d\d)-(\d+:\d\d)", doc["prompt"])}
        assert not named & set(doc["choices"])
        ends = {b for spans in busy.values() for _, b in spans} | {9 * 60, pref}
        assert all(slot in ends for slot in _slots(doc)), doc["prompt"]


def test_items_are_distinct_at_1200():
    docs = CAL.generate(0, 1200)
    assert len({CAL.identity(d) for d in docs}) == 1200


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("9:30-10:00", 1), ("09:30-10:00", 1), ("9:30 - 10:00", 1), ("**9:30\u201310:00**.", 1), ("9:30 to 10:00", 1),
        ("12:30-13:00", 0), ("16:00-16:30", 3),
        ("9:00-9:30", -1), ("11:30-12:30", -1), ("10:00-9:30", -1),
        ("9:30", None), ("9:30am-10am", None), ("9:30-10:00 or 11:30-12:00", None), ("from 9:30 to 10:00", 1),
        ("25:00-26:00", None), ("9.30-10.00", None), ("", None), (NO_ANSWER, None),
    ],
)
def test_read_time_ranges_strictly(answer, expected):
    doc = CAL.generate(0, 4)[3]  # choices 12:30-13:00, 9:30-10:00, 14:00-14:30, 16:00-16:30
    assert CAL.read(doc, answer) == expected


def test_metrics_on_hand_built_answers():
    docs = CAL.generate(0, 6)  # k2 k3 k4 without preference, then k2 k3 k4 with one
    assert docs[3]["choices"][3] == "16:00-16:30"  # doc 3's later free slot (Frank and Carol are free then)
    answers = [
        docs[0]["choices"][docs[0]["gold"]],  # right
        docs[1]["choices"][docs[1]["lure"]],  # lure
        "10:30-11:00",  # doc 2: well-formed, no choice -> wrong (-1)
        "16:00-16:30",  # doc 3: feasible but not earliest -> wrong
        "noon",  # doc 4: invalid
        docs[5]["choices"][docs[5]["lure"]],  # lure
    ]
    assert CAL.read(docs[2], answers[2]) == -1
    scores = aggregate(CAL, [CAL.score_gen(d, a) for d, a in zip(docs, answers)])
    # acc 1/6; invalid 1/6; participant_cost: k2 (docs 0, 3) 1/2 - k4 (docs 2, 5) 0 = 0.5;
    # constraint_cost: no preference (0, 1, 2) 1/3 - preference (3, 4, 5) 0 = 1/3;
    # near_miss_share: errors 1, 2, 3, 4, 5, lures in 1 and 5 -> 2/5.
    assert scores["acc"] == pytest.approx(1 / 6) and scores["invalid_rate"] == pytest.approx(1 / 6)
    assert scores["participant_cost"] == 0.5 and scores["constraint_cost"] == pytest.approx(1 / 3)
    assert scores["near_miss_share"] == pytest.approx(0.4)
    assert scores["acc_k2"] == 0.5 and scores["acc_k3"] == 0.0 and scores["acc_k4"] == 0.0


def test_mc_reports_the_lure_margin():
    doc = CAL.generate(0, 1)[0]  # gold 0, lure 3
    scores = CAL.score_mc(doc, [-2.0, -3.0, -4.0, -0.5])
    assert scores["acc"] == 0.0 and scores["lure_margin_k2"] == -1.5 and scores["near_miss_share"] == (True, 1.0)


def test_constraint_dropping_player_always_takes_the_near_miss():
    scores = play(CAL, "prepotent", CAL.generate(0, 300), "gen")
    assert scores["acc"] == 0.0 and scores["near_miss_share"] == 1.0 and scores["invalid_rate"] == 0.0
    assert scores["participant_cost"] == 0.0 and scores["constraint_cost"] == 0.0


def test_random_player_shows_no_costs_beyond_noise():
    scores = play(CAL, "random", CAL.generate(0, 3000), "mc")
    se = math.sqrt(2 * 0.25 * 0.75 / 1000)
    assert abs(scores["participant_cost"]) < 3.5 * se and abs(scores["constraint_cost"]) < 3.5 * math.sqrt(2 * 0.1875 / 1500)
    assert scores["near_miss_share"] == pytest.approx(1 / 3, abs=0.06)


@pytest.mark.parametrize(("overrides", "name"), [({"max_busy": 0}, "max_busy"), ({"max_busy": 7}, "max_busy"),
                                                 ({"max_busy": 2.0}, "max_busy"), ({"busy": 2}, "busy")])
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        CAL.make_params(overrides)
