"""Calendar scheduling probe: pinned items, keys re-derived by a minute-by-minute scheduler, reading, metrics."""

from __future__ import annotations

import math
import re

import pytest

from lm_eval_cog.probes.core import NO_ANSWER, get_probe
from lm_eval_cog.probes.reference import aggregate, play

CAL = get_probe("calendar")
ASK = "Find the earliest time at which everyone is free for the whole meeting"
FORM = ". Give the meeting as a time range HH:MM-HH:MM (24-hour clock)."


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand (60-minute meetings):
    # 0: Irene busy until 11:00 from 9:30 -> 11:00-12:00; 9:00-10:00 breaks Irene's time only (lure);
    #    13:00-14:00 breaks James's; 15:30-16:30 is free but later.
    # 1: 9:00-11:00 break Carol and David, 11:00-12:00 Carol only (lure), 12:00-13:00 is free (key),
    #    11:30-12:30 breaks Carol's, 15:30-16:30 free but later.
    # 2: 9:00 Carol+Henry, 9:30-10:30 Henry only (lure), 10:00-13:30 Emma/Carol/Alice, 13:30-14:30 free (key),
    #    12:00-13:00 Alice+Emma, 14:00-15:00 free but later.
    docs = CAL.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        "Schedule a 60-minute meeting for Irene and James today between 9:00 and 17:00.\n"
        "Irene is busy 9:30-11:00.\nJames is busy 12:30-14:00.\n" + ASK + FORM,
        "Schedule a 60-minute meeting for Carol, Alice and David today between 9:00 and 17:00.\n"
        "Carol is busy 9:30-12:00 and 13:30-14:00.\nAlice is busy 13:00-14:00.\nDavid is busy 9:00-11:00.\n" + ASK + FORM,
        "Schedule a 60-minute meeting for Alice, Carol, Emma and Henry today between 9:00 and 17:00.\n"
        "Alice is busy 12:00-13:30.\nCarol is busy 9:00-9:30, 11:00-12:00 and 15:00-16:30.\n"
        "Emma is busy 10:30-12:30.\nHenry is busy 9:30-10:00 and 16:00-17:00.\n" + ASK + FORM,
    ]
    assert [d["choices"] for d in docs] == [
        ["11:00-12:00", "9:00-10:00", "13:00-14:00", "15:30-16:30"],
        ["11:00-12:00", "12:00-13:00", "11:30-12:30", "15:30-16:30"],
        ["12:00-13:00", "13:30-14:30", "9:30-10:30", "14:00-15:00"],
    ]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("k2", 0, 1), ("k3", 1, 0), ("k4", 1, 2)]


def test_a_preference_item_of_seed_0_is_pinned():
    # 3: Henry busy 11:30-13:00 and 14:00-16:00, Grace 11:00-11:30; Grace not before 13:00 -> 13:00-14:00.
    # Without the preference 9:00-10:00 works (lure); 11:30-12:30 breaks Henry's; 16:00-17:00 later.
    doc = CAL.generate(0, 4)[3]
    assert doc["prompt"].endswith(
        "Grace would rather not meet before 13:00.\n" + ASK + " and the preference is respected" + FORM
    )
    assert doc["choices"] == ["13:00-14:00", "11:30-12:30", "16:00-17:00", "9:00-10:00"]
    assert (doc["gold"], doc["lure"], doc["lure_kind"], doc["preference"]) == (0, 3, "preference", True)


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


def test_keys_and_lures_rederived_minute_by_minute():
    for doc in CAL.generate(5, 300):
        duration, busy, pref = _parse(doc["prompt"])
        assert len(busy) == doc["participants"] == int(doc["condition"][1:]) and bool(pref) == doc["preference"]
        starts = range(9 * 60, 17 * 60 - duration + 1)
        key = next(s for s in starts if not _broken(s, duration, busy, pref))
        slots = {k: tuple(_minutes(t) for t in c.split("-")) for k, c in enumerate(doc["choices"])}
        assert slots[doc["gold"]] == (key, key + duration)
        lure_start = slots[doc["lure"]][0]
        assert lure_start < key and len(_broken(lure_start, duration, busy, pref)) == 1
        # The lure is the earliest slot on the half-hour grid that misses by one constraint.
        assert not [s for s in range(9 * 60, lure_start, 30) if len(_broken(s, duration, busy, pref)) == 1]
        others = [slots[k][0] for k in slots if k not in (doc["gold"], doc["lure"])]
        assert sorted(bool(_broken(s, duration, busy, pref)) for s in others) == [False, True]
        assert all(s > key for s in others if not _broken(s, duration, busy, pref))
        if pref:  # the preference binds, and dropping it is the lure
            assert next(s for s in starts if not _broken(s, duration, busy, 0)) < key
            assert _broken(lure_start, duration, busy, pref) == ["preference"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("11:00-12:00", 0), ("11:00 - 12:00", 0), ("**11:00\u201312:00**.", 0), ("11:00 to 12:00", 0),
        ("09:00-10:00", 1), ("9:00-10:00", 1), ("15:30-16:30", 3),
        ("10:00-11:00", -1), ("11:00-11:30", -1), ("12:00-11:00", -1),
        ("11:00", None), ("11am-12pm", None), ("11:00-12:00 or 13:00-14:00", None), ("from 11:00 to 12:00", None),
        ("25:00-26:00", None), ("11.00-12.00", None), ("", None), (NO_ANSWER, None),
    ],
)
def test_read_time_ranges_strictly(answer, expected):
    assert CAL.read(CAL.generate(0, 1)[0], answer) == expected


def test_metrics_on_hand_built_answers():
    docs = CAL.generate(0, 6)  # k2 k3 k4 without preference, then k2 k3 k4 with one
    assert docs[3]["choices"][2] == "16:00-17:00"  # doc 3's later feasible slot (see the pinned item)
    answers = [
        docs[0]["choices"][docs[0]["gold"]],  # right
        docs[1]["choices"][docs[1]["lure"]],  # lure
        "10:00-11:00",  # doc 2: well-formed, no choice -> wrong (-1)
        "16:00-17:00",  # doc 3: feasible but not earliest -> wrong
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
    doc = CAL.generate(0, 1)[0]  # gold 0, lure 1
    scores = CAL.score_mc(doc, [-2.0, -0.5, -3.0, -4.0])
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
