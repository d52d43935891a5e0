"""Go/no-go: pinned items, a key re-derived from the prompt, a history that never shows the probed
letter, the pooled audit cell, hand-computed rates and d'."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from statistics import NormalDist

import pytest

from probe_strategies import accuracy_by_condition

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

PROBE = get_probe("gonogo")
RULE = "Go/no-go task. Rule: write - for a no-go letter and copy a go letter."
HEAD = "The items so far, each with its correct response:"


def _history(letters: str, nogo: str) -> str:
    return "\n".join(f"{k}. {c} -> {'-' if c in nogo else c}" for k, c in enumerate(letters, 1))


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: item 0's sets are go D, M, N, P, S, T and no-go H, J, K (the no-go line first);
    # 22 history items with no-go letters at 2, 9, 18, 21 (4 = round(0.2 * 22)), then one go item (S)
    # before the probe N, the go letter the history never shows: a short run, key "N" (index 0).
    # Item 1: no-go H, J, P; 17 items, no-go (always H) at 7, 11, 15 (3 = round(3.4)), a run of 2
    # before the probe P, the no-go letter the history holds out: key "-" (index 0), lure "P" (index 1).
    # Item 2: the go line first; 24 items, a long run of 8 (items 17-24) before the probe N.
    docs = PROBE.generate(0, 3)
    assert [d["prompt"] for d in docs] == [
        f"{RULE}\nNo-go letters: H, J, K.\nGo letters: D, M, N, P, S, T.\n{HEAD}\n"
        f"{_history('SJSPDTMPHDSMSDPMSJDTHS', 'HJK')}\nItem 23 is N. What is the response to it? Options: N, -.",
        f"{RULE}\nNo-go letters: H, J, P.\nGo letters: B, C, G, N, R, W.\n{HEAD}\n"
        f"{_history('GBWCWRHWGCHWCBHCB', 'HJP')}\nItem 18 is P. What is the response to it? Options: -, P.",
        f"{RULE}\nGo letters: B, F, N, S, W, Z.\nNo-go letters: D, M, Y.\n{HEAD}\n"
        f"{_history('ZMFBSMZSBDBFDFZDWBZSZBWS', 'DMY')}\nItem 25 is N. What is the response to it? Options: N, -.",
    ]
    assert "2. J -> -" in docs[0]["prompt"] and "22. S -> S" in docs[0]["prompt"]
    assert [d["choices"] for d in docs] == [["N", "-"], ["-", "P"], ["N", "-"]]
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [("go", 0, -1), ("nogo", 0, 1), ("go", 0, -1)]
    assert [(d["run"], d["run_length"], d["history_length"]) for d in docs] == [
        ("short", 1, 22), ("short", 2, 17), ("long", 8, 24)
    ]


def _parse(prompt: str) -> tuple[list[str], str, list[str], str, str]:
    """(history stimuli, probed letter, listed options, go letters, no-go letters) read off the prompt,
    every shown response checked against the item's own rule."""
    lines = prompt.split("\n")
    assert lines[0] == RULE and lines[3] == HEAD
    sets = dict(re.fullmatch(r"(Go|No-go) letters: ([A-Z](?:, [A-Z])*)\.", line).groups() for line in lines[1:3])
    go, nogo = (sets[kind].replace(", ", "") for kind in ("Go", "No-go"))
    assert len(go) == 6 and len(nogo) == 3 and not set(go) & set(nogo)
    history = [re.fullmatch(r"(\d+)\. ([A-Z]) -> ([A-Z-])", line).groups() for line in lines[4:-1]]
    assert [int(n) for n, _, _ in history] == list(range(1, len(history) + 1))
    assert all(s in go + nogo for _, s, _ in history)
    assert all(resp == ("-" if s in nogo else s) for _, s, resp in history)  # the shown responses obey the rule
    number, letter, first, second = re.fullmatch(
        r"Item (\d+) is ([A-Z])\. What is the response to it\? Options: (.), (.)\.", lines[-1]
    ).groups()
    assert int(number) == len(history) + 1
    return [s for _, s, _ in history], letter, [first, second], go, nogo


def test_key_run_and_ratio_rederived_from_the_prompt():
    # Re-read every item from its surface string and apply the rule afresh.
    docs = PROBE.generate(5, 400)
    for doc in docs:
        stimuli, letter, options, go, nogo_set = _parse(doc["prompt"])
        assert options == doc["choices"] and sorted(options) == sorted([letter, "-"]) and letter in go + nogo_set
        assert doc["choices"][doc["gold"]] == ("-" if letter in nogo_set else letter)
        assert doc["condition"] == ("nogo" if letter in nogo_set else "go")
        assert doc["lure"] == (doc["choices"].index(letter) if letter in nogo_set else -1)
        # 16-24 history items, a fifth of them (rounded half up) no-go, each after a go item.
        nogo = [k for k, s in enumerate(stimuli) if s in nogo_set]
        assert 16 <= len(stimuli) <= 24 and len(nogo) == math.floor(len(stimuli) / 5 + 0.5) == doc["history_nogo"]
        assert stimuli[0] not in nogo_set and all(b - a > 1 for a, b in itertools.pairwise(nogo))
        assert all(a != b for a, b in itertools.pairwise(stimuli))  # no immediate repeats
        run = len(stimuli) - 1 - nogo[-1]
        assert run == doc["run_length"]
        assert (1 <= run <= 2) if doc["run"] == "short" else (6 <= run <= 9)
    cells = {(d["condition"], d["run"]) for d in docs[:4]}
    assert cells == {("go", "short"), ("nogo", "short"), ("go", "long"), ("nogo", "long")}


def test_the_history_never_shows_the_probed_letter():
    # No line of the history answers the probed stimulus, so its response cannot be copied; and
    # the history holds out one no-go letter before go probes too, so it never tells the kind of probe.
    for doc in PROBE.generate(7, 600):
        stimuli, letter, _, go, nogo = _parse(doc["prompt"])
        assert letter not in stimuli
        assert len({s for s in stimuli if s in nogo}) <= 2 and len({s for s in stimuli if s in go}) <= 5


def test_key_position_is_balanced_within_each_condition_and_run():
    docs = PROBE.generate(3, 480)
    for condition in ("go", "nogo"):
        for run in ("short", "long"):
            cell = [d for d in docs if (d["condition"], d["run"]) == (condition, run)]
            assert Counter(d["gold"] for d in cell) == {0: 60, 1: 60}


def test_the_audit_pools_go_and_nogo_where_the_letter_and_the_dash_are_each_the_key_half_the_time():
    # Within a condition the key is fixed by design (the letter / "-"); pooled, "always the letter"
    # or "always -" (and any choice by wording) scores 1/2.
    assert {PROBE.audit_cell(c) for c in PROBE.conditions} == {"pooled"}
    docs = PROBE.generate(1, 400)
    assert Counter(d["choices"][d["gold"]] == "-" for d in docs) == {True: 200, False: 200}


def test_the_letter_sets_are_drawn_per_item_so_no_letter_tells_the_kind_of_probe():
    # Version 2's no-go letters were X, Y and Z in every item: the option text alone gave the key
    # (1.00 held out). Now every letter is a go and a no-go letter of some items, and the kind of
    # probe a letter had on one seed predicts it on another at chance.
    train, test = PROBE.generate(1, 600), PROBE.generate(2, 600)
    assert {c for d in train for c in d["nogo_letters"]} == {c for d in train for c in d["go_letters"]}
    kinds: dict = {}
    for d in train:
        kinds.setdefault(d["letter"], Counter())[d["condition"]] += 1
    guessed = [kinds[d["letter"]].most_common(1)[0][0] == d["condition"] if d["letter"] in kinds else 0.5
               for d in test]
    assert abs(sum(guessed) / len(guessed) - 0.5) < 0.05
    # Both kinds of probe letter are named equally often, after "-": once in their set, once as the probe.
    for d in test:
        stem = d["prompt"].rsplit(" Options:", 1)[0]
        named = [m.start() for m in re.finditer(rf"(?<!\w){d['letter']}(?!\w)", stem)]
        assert len(named) == 2 and stem.index(" - ") < named[0]


def test_copying_is_declared_and_scores_chance():
    (heuristic,) = PROBE.heuristics
    assert heuristic.name == "prepotent_go" and "Wessel 2018" in heuristic.citation
    assert heuristic.scores("Item 3 is K. What is the response to it?", ["-", "K"]) == [0.0, 1.0]
    assert heuristic.scores("Item 3 is K.", ["K", "-"]) == [1.0, 0.0]
    assert heuristic.scores("?", ["-", "-"]) is None
    assert accuracy_by_condition("gonogo", heuristic, 21, 400) == {"go": 1.0, "nogo": 0.0, "all": 0.5}


def test_1200_items_are_distinct():
    docs = PROBE.generate(0, 1200)
    assert len({PROBE.identity(d) for d in docs}) == 1200


def _doc(condition, run="short", choices=None):
    letter = "X" if condition == "nogo" else "K"
    choices = choices or [letter, "-"]
    return {
        "probe": "gonogo", "index": 0, "seed": 1, "prompt": "p", "choices": choices,
        "gold": choices.index("-" if condition == "nogo" else letter), "condition": condition,
        "lure": choices.index(letter) if condition == "nogo" else -1, "letter": letter, "run": run,
        "run_length": 1 if run == "short" else 7, "history_length": 20, "history_nogo": 4,
    }


def test_rates_dprime_and_run_effect_on_hand_built_answers():
    answered = [
        (_doc("go"), "K"), (_doc("go", "long", ["-", "K"]), "k"), (_doc("go"), "**K**"),  # 3 hits
        (_doc("go", "long"), "-"),  # an omission
        (_doc("go"), "M"),  # another letter: wrong, neither hit nor omission
        (_doc("nogo"), "X"), (_doc("nogo", choices=["-", "X"]), "-"), (_doc("nogo"), "\u2013"),  # short run
        (_doc("nogo", "long"), "X"), (_doc("nogo", "long"), "maybe X"),  # long run; the second is invalid
    ]
    scores = aggregate(PROBE, [PROBE.score_gen(doc, answer) for doc, answer in answered])
    # go: 3 of 5 right; no-go: 2 withheld of 5; all 5/10; 1 invalid of 10.
    assert scores["acc_go"] == 0.6 and scores["acc_nogo"] == 0.4 and scores["acc"] == 0.5
    assert scores["invalid_rate"] == 0.1 and scores["acc_chance"] == 0.5
    assert scores["commission_rate"] == pytest.approx(2 / 5)  # X short, X long
    assert scores["omission_rate"] == pytest.approx(1 / 5)
    # H = (3 + 0.5) / (5 + 1), F = (2 + 0.5) / (5 + 1): d' = z(0.5833) - z(0.4167) = 2 * 0.21043.
    assert scores["dprime"] == pytest.approx(0.42086, abs=1e-4)
    z = NormalDist().inv_cdf
    assert scores["dprime"] == pytest.approx(z(3.5 / 6) - z(2.5 / 6))
    # Commissions: long 1 of 2 (the invalid one withheld nothing but is no commission), short 1 of 3.
    assert scores["run_length_effect"] == pytest.approx(1 / 2 - 1 / 3)


def test_per_document_values():
    assert PROBE.score_gen(_doc("nogo", "long"), "X") == {
        "acc": 0.0, "acc_chance": 0.5, "acc_nogo": 0.0, "invalid_rate": 0.0,
        "commission_rate": (1, 1), "omission_rate": (0, 0), "dprime": (0, 0, 1, 1), "run_length_effect": (1, 1.0),
    }
    assert PROBE.score_gen(_doc("go", "long"), "K")["run_length_effect"] == (0, 1.0)  # go items are on no side
    assert PROBE.score_gen(_doc("go"), "-")["dprime"] == (0, 1, 0, 0)


def test_mc_reports_the_lure_margin_of_nogo_items():
    # choices [X, -]: log p(X) = -0.2, log p(-) = -1.7: the model copies; margin -1.5.
    scores = PROBE.score_mc(_doc("nogo"), [-0.2, -1.7])
    assert scores["acc"] == 0.0 and scores["lure_margin_nogo"] == pytest.approx(-1.5)
    assert scores["commission_rate"] == (1, 1)


def test_a_copying_player_commits_on_every_nogo_item():
    docs = PROBE.generate(0, PROBE.default_items)
    for form in ("gen", "mc"):
        scores = play(PROBE, "prepotent", docs, form)
        assert scores["commission_rate"] == 1.0 and scores["omission_rate"] == 0.0
        assert scores["acc_go"] == 1.0 and scores["acc_nogo"] == 0.0
        # 300 go and 300 no-go probes, all copied: H = F = 300.5 / 301, so d' is exactly 0.
        assert scores["dprime"] == 0.0 and scores["run_length_effect"] == 0.0
    best = play(PROBE, "optimal", docs, "gen")
    z = NormalDist().inv_cdf
    assert best["commission_rate"] == 0.0 and best["dprime"] == pytest.approx(2 * z(300.5 / 301))


def test_random_player_has_no_sensitivity():
    scores = play(PROBE, "random", PROBE.generate(0, 2000), "gen")
    assert scores["commission_rate"] == pytest.approx(0.5, abs=0.06) and abs(scores["dprime"]) < 0.2
    assert abs(scores["run_length_effect"]) < 3.5 * math.sqrt(2 * 0.25 / 500)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("K", 0), ("k", 0), ("**K**", 0), ("`K`.", 0), ("'K'", 0), ("K -> K", 0), ("k: k", 0),
        ("-", 1), ("\u2013", 1), ("\u2014", 1), ('"-"', 1), ("K -> -", 1), ("**-**", 1),
        ("M", -1), ("X", -1),  # another letter: well formed and wrong
        ("", None), ("K or -", None), ("--", None), ("nothing", None), ("KK", None), ("M -> M", None),
        ("no response", None), ("K K", None),
    ],
)
def test_read_letter_dash_and_the_history_form(answer, expected):
    assert PROBE.read(_doc("go"), answer) == expected


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ({"history_min": 0}, "history_min"), ({"history_min": 10}, "history_min"),
        ({"history_max": 12}, "history_max"), ({"nogo_share": 0.0}, "nogo_share"),
        ({"nogo_share": 0.6}, "nogo_share"), ({"nogo_share": 0.5}, "long_run_max"),
        ({"short_run_max": 0}, "short_run_max"), ({"long_run_min": 2}, "long_run_min"),
        ({"long_run_max": 5}, "long_run_max"), ({"long_run_max": 13}, "long_run_max"),
        ({"history_max": 24.0}, "history_max"),
    ],
)
def test_bad_parameters_name_themselves(value, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        PROBE.make_params(value)


def test_unknown_parameter_names_itself():
    with pytest.raises(ValueError, match="Unknown gonogo parameter 'nogo_ratio'"):
        PROBE.make_params({"nogo_ratio": 0.2})
