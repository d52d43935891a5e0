"""One-prompt verbal n-back: pinned items, keys re-derived from the letters, hand-computed metrics."""

from __future__ import annotations

import math
import re
from collections import Counter
from statistics import NormalDist

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from probe_strategies import accuracy_by_condition

NBACK = get_probe("verbal_nback")
z = NormalDist().inv_cdf


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand: item 0 ends "p p" (1-back repeat: target, yes); item 1 ends "f l f"
    # (no 1-back repeat, a 2-back one: lure, key no, lure yes); item 2 ends "j z j" (a 2-back repeat
    # only: lure, no); item 3 ends "w w" (target, yes). Slots cycle target, lure, lure, target; the
    # first four items list "yes" first.
    docs = NBACK.generate(0, 4)
    head = (
        "This is a 1-back task: letters are shown one at a time, and for each new letter you decide "
        "whether it is the same as the letter 1 position before it.\nLetters so far: "
    )
    tail = "\nIs the last letter the same as the letter 1 position before it? Answer yes or no."
    assert [d["prompt"] for d in docs] == [
        head + "t f t t m m m h h h b c m p h p p" + tail,
        head + "z j j j s j p g m v f l f" + tail,
        head + "d d f d k z z f f f q q q j z j" + tail,
        head + "j w w" + tail,
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["yes", "no"], 0, "target", -1), (["yes", "no"], 1, "lure", 0), (["yes", "no"], 1, "lure", 0),
        (["yes", "no"], 0, "target", -1),
    ]


def _letters_and_n(prompt):
    n = int(re.search(r"This is a (\d)-back task", prompt).group(1))
    letters = re.search(r"Letters so far: ([a-z ]+)\n", prompt).group(1).split(" ")
    return letters, n


def _kind(letters, n):
    """Scan the string: a repeat n back is a target; else one n-1 (n > 1) or n+1 back is a lure."""
    last = letters[-1]
    if letters[-1 - n] == last:
        return "target"
    back = [letters[-1 - k] for k in (n - 1, n + 1) if k >= 1 and len(letters) > k]
    return "lure" if last in back else "nontarget"


@pytest.mark.parametrize("overrides", [{}, {"n_values": [3], "targets": 6, "lures": 6}, {"block_length": 30, "targets": 10}])
def test_keys_re_derived_from_the_letters_in_the_prompt(overrides):
    params = NBACK.make_params(overrides)
    docs = NBACK.generate(1, 288, params)
    for doc in docs:
        letters, n = _letters_and_n(doc["prompt"])
        assert n == doc["n"] and len(letters) == doc["position"] > n
        kind = _kind(letters, n)
        assert kind == doc["condition"]
        assert doc["choices"][doc["gold"]] == ("yes" if kind == "target" else "no")
        assert doc["lure"] == (doc["choices"].index("yes") if kind == "lure" else -1)
        # The whole block: exactly `targets` targets and `lures` lures among positions >= n.
        block = doc["block"]
        assert len(block) == params.block_length and block.startswith("".join(letters))
        kinds = [_kind(list(block[: i + 1]), n) for i in range(n, len(block))]
        assert kinds.count("target") == params.targets and kinds.count("lure") == params.lures
    # Conditions and n balanced by the cycle: targets and lures are half the items each.
    share = {"target": 1 / 2, "lure": 1 / 2}
    for n in params.n_values:
        for cond in NBACK.conditions:
            assert sum(d["n"] == n and d["condition"] == cond for d in docs) == 288 * share[cond] / len(params.n_values)


def _doc(condition, n, yes_first=True):
    choices = ["yes", "no"] if yes_first else ["no", "yes"]
    gold = choices.index("yes" if condition == "target" else "no")
    lure = choices.index("yes") if condition == "lure" else -1
    return {"choices": choices, "gold": gold, "condition": condition, "lure": lure, "n": n}


def test_metrics_on_hand_scored_answers():
    answers = [
        (_doc("target", 1), "yes"),  # hit, right
        (_doc("target", 2, False), "No"),  # miss, wrong
        (_doc("target", 3), "maybe"),  # invalid: a miss, wrong
        (_doc("lure", 2, False), "Yes."),  # lure false alarm, wrong
        (_doc("lure", 3), "no"),  # right
        (_doc("lure", 1), "**no**"),  # right
    ]
    scores = aggregate(NBACK, [NBACK.score_gen(doc, text) for doc, text in answers])
    assert scores["acc"] == pytest.approx(3 / 6) and scores["invalid_rate"] == pytest.approx(1 / 6)
    assert scores["acc_target"] == pytest.approx(1 / 3) and scores["acc_lure"] == pytest.approx(2 / 3)
    assert scores["hit_rate"] == pytest.approx(1 / 3)  # 1 yes of 3 targets
    assert scores["false_alarm_rate"] == scores["lure_false_alarm_rate"] == pytest.approx(1 / 3)  # 1 yes of 3 lures
    # Log-linear: H = (1 + .5) / (3 + 1) = .375, F = (1 + .5) / (3 + 1) = .375.
    assert scores["dprime"] == pytest.approx(0.0)
    # n = 1: docs 1, 6 right; n = 2: docs 2, 4 wrong; n = 3: doc 3 wrong, 5 right.
    assert scores["accuracy_n1"] == 1.0 and scores["accuracy_n2"] == 0.0 and scores["accuracy_n3"] == 0.5


def test_a_familiarity_responder_says_yes_to_lures():
    docs = NBACK.generate(0, 300)
    scores = play(NBACK, "prepotent", docs, "gen")
    assert scores["acc_target"] == 1.0 and scores["acc_lure"] == 0.0
    assert scores["hit_rate"] == 1.0 and scores["lure_false_alarm_rate"] == scores["false_alarm_rate"] == 1.0
    assert scores["acc"] == 0.5  # wrong on the lures: half of the items
    assert scores["dprime"] == pytest.approx(0.0)
    assert all(scores[f"accuracy_n{n}"] == 0.5 for n in (1, 2, 3))


def test_the_familiarity_heuristic_answers_yes_to_a_letter_seen_within_n_plus_1():
    # Kane et al. 2007: in 2-back, "c" seen 3 back (a lure) is familiar: "yes"; "k" unseen: "no".
    familiarity = {h.name: h for h in NBACK.heuristics}["familiarity"]
    stem = "This is a 2-back task: ...\nLetters so far: {}\nIs the last letter the same as the letter 2 positions before it?"
    assert familiarity.scores(stem.format("c d f c"), ["yes", "no"]) == [1.0, 0.0]
    assert familiarity.scores(stem.format("c d f k"), ["no", "yes"]) == [1.0, 0.0]
    assert familiarity.scores(stem.format("c d f g c"), ["yes", "no"]) == [0.0, 1.0]  # 4 back: not within n+1
    assert familiarity.scores("no letters", ["yes", "no"]) is None


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_familiarity_is_at_chance_on_hundreds_of_trials(seed):
    # Issue 28: "yes" if the last letter occurred in the last n+1 letters scored 0.75 pooled on version 2
    # (nontargets, a quarter of the items, are answered right by familiarity alone).
    familiarity = {h.name: h for h in NBACK.heuristics}["familiarity"]
    assert accuracy_by_condition("verbal_nback", familiarity, seed, 400)["all"] <= 0.5 + 0.05


def test_constant_answers_and_positions_score_one_half():
    # Half the items are targets (key yes), and yes is listed first in every other run of four items: in
    # every condition each position holds the key half the time, and so does each option overall, in the
    # items of even and of odd index alike (the audit pools the conditions, whose key is fixed: audit_cells).
    docs = NBACK.generate(4, 480)
    keys = Counter(d["choices"][d["gold"]] for d in docs)
    assert keys == {"yes": 240, "no": 240}
    for parity in (0, 1):
        assert Counter(d["choices"][d["gold"]] for d in docs if d["index"] % 2 == parity) == {"yes": 120, "no": 120}
    for cond in NBACK.conditions:
        places = Counter(d["gold"] for d in docs if d["condition"] == cond)
        assert places[0] == places[1]
    assert Counter(d["gold"] for d in docs) == {0: 240, 1: 240}
    assert {NBACK.audit_cell(c) for c in NBACK.conditions} == {"trials"}
    for policy in ("yes", "no"):
        assert sum(d["choices"][d["gold"]] == policy for d in docs) / len(docs) == 0.5


def test_no_two_items_are_the_same_up_to_option_order():
    docs = NBACK.generate(0, 1200)
    assert len({NBACK.identity(d) for d in docs}) == 1200


def test_random_responder_has_no_sensitivity():
    scores = play(NBACK, "random", NBACK.generate(0, 3000), "mc")
    assert abs(scores["dprime"]) < 0.15 and abs(scores["hit_rate"] - 0.5) < 0.05


def test_an_n_not_generated_reports_nan_accuracy():
    scores = play(NBACK, "optimal", NBACK.generate(0, 9, NBACK.make_params({"n_values": [2]})))
    assert math.isnan(scores["accuracy_n1"]) and math.isnan(scores["accuracy_n3"]) and scores["accuracy_n2"] == 1.0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("yes", "yes"), ("Yes.", "yes"), ("**NO**", "no"), ("'no'", "no"), ("yes or no", None), ("m", None),
     ("-", None), ("", None), ("Yes, it is", None), ("probably yes", None)],
)
def test_read_accepts_decorated_yes_no_only(answer, expected):
    doc = _doc("target", 2, False)
    got = NBACK.read(doc, answer)
    assert got == (None if expected is None else doc["choices"].index(expected))


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"n_values": []}, "n_values"), ({"n_values": [4]}, "n_values"), ({"n_values": [0, 1]}, "n_values"),
     ({"n_values": [2, 2]}, "n_values"), ({"n_values": "12"}, "n_values"), ({"targets": 0}, "targets"),
     ({"lures": 0}, "lures"), ({"targets": 17}, "targets"), ({"lures": 8, "n_values": [1]}, "targets"), ({"block_length": 12}, "targets"),
     ({"block_length": "24"}, "block_length"), ({"n": 2}, "n")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        NBACK.make_params(overrides)


@pytest.mark.parametrize(("n", "lures"), [(3, 12), (2, 13), (1, 7)])
def test_the_largest_feasible_blocks_are_drawn(n, lures):
    # 24 letters: positions n..23 are trials, one kept as a nontarget: n = 3: 8 + 12 = 21 - 1;
    # n = 2: 8 + 13 = 22 - 1; n = 1: 8 + 7 = 23 - 1 - 7 (the position before each lure).
    params = NBACK.make_params({"n_values": [n], "targets": 8, "lures": lures})
    for doc in NBACK.generate(0, 30, params):
        kinds = [_kind(list(doc["block"][: i + 1]), n) for i in range(n, 24)]
        assert (kinds.count("target"), kinds.count("lure"), kinds.count("nontarget")) == (8, lures, 23 - n - lures - 7)
