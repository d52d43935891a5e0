"""Private/Shared (clembench, as Momentè et al. ran it): turn order, reply rules, ground truth with
anticipation, kappa and the main score computed by hand, hostile replies, reference players."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, end_record, moves
from lm_eval_cog.games.privateshared import PARADIGM, PrivateSharedParams, privateshared_metrics
from lm_eval_cog.games.privateshared import prompts
from lm_eval_cog.games.privateshared.env import MAX_TURNS, PrivateSharedEnv, max_calls
from lm_eval_cog.games.privateshared.experiments import EXPERIMENT_NAMES, EXPERIMENTS, NUMBERS, PER_SLOT
from lm_eval_cog.games.privateshared.instances import draw_instance, nested_values
from lm_eval_cog.games.privateshared.parse import read_answer, read_aside
from lm_eval_cog.games.privateshared.scoring import kappa, main_score, middle_round
from lm_eval_cog.paradigms import get_paradigm, make_env
from lm_eval_cog.paradigms.base import Strategy, agent_rng
from lm_eval_cog.paradigms.chance import play
from lm_eval_cog.runner import GameEpisode, run_lockstep, start_episodes

SLOTS_OF = {name: len(e.slots) for name, e in EXPERIMENTS.items()}
Policy = Callable[[PrivateSharedEnv, Mapping[str, Any]], str]


def truthful(env: PrivateSharedEnv, info: Mapping[str, Any]) -> str:
    """The optimal reply (what the `optimal` player says)."""
    if info["phase"] == "probe":
        return "ASIDE: yes" if info["truth"] else "ASIDE: no"
    return f"ANSWER: {info['value']}"


def run(policy: Policy, experiment: str = "travel-booking", seed: int = 11, **overrides: Any) -> PrivateSharedEnv:
    """Play one episode of ``experiment`` with ``policy(env, info) -> reply``."""
    env = PrivateSharedEnv(PrivateSharedParams(experiment=experiment, **overrides))
    message, info = env.reset(seed=seed)
    done = False
    while not done:
        message, terminated, truncated, info = env.step(policy(env, info))
        done = terminated or truncated
    return env


def metrics(env: PrivateSharedEnv) -> dict[str, float]:
    return privateshared_metrics(env.log, env.params)


def probe_records(env: PrivateSharedEnv) -> list[Mapping[str, Any]]:
    return [r for r in moves(env.log) if r["action"] == "probe" and r["status"] == VALID]


# ---------------------------------------------------------------- kappa and the main score by hand
def test_kappa_and_main_score_on_a_hand_built_probe_table():
    """10 probes, 2x2 table (rows: truth, columns: answer):

                 said yes  said no
        shared      3         1       (4 shared)
        private     1         5       (6 private)

    po = (3 + 5)/10 = 0.8; p(truth yes) = 0.4, p(said yes) = 0.4;
    pe = 0.4*0.4 + 0.6*0.6 = 0.16 + 0.36 = 0.52; kappa = (0.8 - 0.52)/(1 - 0.52) = 0.28/0.48 = 7/12.
    With 4 of 5 slots filled (SF = 0.8): main = 100 * 2*0.8*(7/12) / (0.8 + 7/12)
    = 100 * (14/15) / (83/60) = 100 * 56/83 = 67.4698...
    """
    truth = [True] * 4 + [False] * 6
    said = [True, True, True, False] + [True] + [False] * 5
    k = kappa(truth, said)
    assert k == pytest.approx(7 / 12)
    assert main_score(0.8, max(0.0, k)) == pytest.approx(5600 / 83)


def test_kappa_edge_cases_are_defined_explicitly():
    """One and the same label in truth and answers: kappa undefined (pe = 1), defined as 1 (all right).
    Truth all 'no', answers all 'yes': po = 0, pe = 0, kappa = 0. No probes: NaN."""
    assert kappa([False] * 4, [False] * 4) == 1.0
    assert kappa([True] * 3, [True] * 3) == 1.0
    assert kappa([False] * 4, [True] * 4) == 0.0
    assert math.isnan(kappa([], []))


def test_main_score_is_the_harmonic_mean_and_zero_when_both_parts_are_zero():
    """100 * 2ab/(a+b): (1, 1) -> 100; (1, 0) -> 0; (0, 0) -> 0 (not a division by zero); (0.5, 1) -> 66.67."""
    assert main_score(1.0, 1.0) == 100.0
    assert main_score(1.0, 0.0) == 0.0
    assert main_score(0.0, 0.0) == 0.0
    assert main_score(0.5, 1.0) == pytest.approx(200 / 3)


def test_middle_round_is_clembenchs_int_n_plus_1_over_2_minus_1():
    assert [middle_round(n) for n in (5, 10, 15)] == [2, 4, 7]


def test_a_hand_played_episode_gives_the_hand_computed_scores():
    """travel-booking (5 slots, rounds 0..5, 30 probes: truth 'yes' in 0+1+2+3+4+5 = 15).
    Script: round 0 says 'yes' for the first slot (1 false yes); round 5 says 'no' for the last slot
    (1 false no); the first probe of round 1 is first answered 'ASIDE: maybe' (a retry); the 2nd
    answer gives no value. Table: TP 14, FN 1, FP 1, TN 14: po = 28/30 = 14/15; p(truth yes) =
    p(said yes) = 15/30; pe = 0.5*0.5 + 0.5*0.5 = 0.5; kappa = (14/15 - 1/2)/(1/2) = 13/15.
    SF = 4/5. main = 100 * 2*(4/5)*(13/15) / (4/5 + 13/15) = 100 * (104/75) / (25/15) = 83.2.
    Middle round 2 has no error: 1.0. Calls: 5 answers + 30 probes + 1 retry = 36, 35 parsed. Lost."""
    refusal = "ANSWER: I'd rather not say."

    def script(env, info):
        names = env.slot_names
        if info["phase"] == "answer":
            return refusal if info["round"] == 1 else truthful(env, info)
        if info["round"] == 0 and info["slot"] == names[0]:
            return "ASIDE: yes"
        if info["round"] == 1 and info["slot"] == names[0] and info["attempt"] == 1:
            return "ASIDE: maybe"
        if info["round"] == 5 and info["slot"] == names[-1]:
            return "ASIDE: no"
        return truthful(env, info)

    env = run(script)
    assert not any(v.lower() in refusal.lower() for v in env.instance.slots.values())  # no anticipation
    m = metrics(env)
    assert m["kappa"] == pytest.approx(13 / 15)
    assert m["truncated_kappa"] == pytest.approx(13 / 15)
    assert m["slot_filling_accuracy"] == pytest.approx(0.8)
    assert m["main_score"] == pytest.approx(83.2)
    assert m["clemscore"] == pytest.approx(83.2)
    assert m["probe_accuracy"] == pytest.approx(28 / 30)
    assert m["middle_accuracy"] == 1.0
    assert m["probe_retries"] == 1.0
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"]) == (36.0, 35.0, 1.0)
    assert m["request_success_ratio"] == pytest.approx(35 / 36)
    assert (m["success"], m["lose"], m["aborted"], m["played"]) == (0.0, 1.0, 0.0, 1.0)
    assert end_record(env.log)["outcome"] == LOSE


def test_an_answer_giving_a_later_slot_away_makes_it_shared_from_the_next_round():
    """Answer 1 also gives the value of the slot requested 3rd (position 2): that slot is shared
    from round 1 on, not round 3. A player that tracks it wins; one that follows the request
    schedule says 'no' in rounds 1 and 2 for it: truth yes 17 / no 13, said yes 15 / no 15, TP 15,
    FN 2, TN 13, FP 0: po = 28/30; pe = (17*15 + 13*15)/900 = 0.5; kappa = (28/30 - 1/2)/(1/2) =
    13/15; SF 1: main = 100 * 2*(13/15) / (1 + 13/15) = 100 * 26/28 = 650/7 = 92.857..."""

    def giveaway(env, info):
        if info["phase"] == "answer" and info["round"] == 0:
            third = env.instance.slots[env.instance.request_order[2]]
            return f"ANSWER: {info['value']}, and by the way {third}"
        return truthful(env, info)

    env = run(giveaway)
    third = env.instance.request_order[2]
    first_answer = next(r for r in moves(env.log) if r["action"] == "answer")
    assert first_answer["anticipated"] == [third] and first_answer["filled"] is True
    truth = {(r["round"], r["slot"]): r["truth"] for r in probe_records(env)}
    assert [truth[(r, third)] for r in range(6)] == [False, True, True, True, True, True]
    assert end_record(env.log)["shared_after"][third] == 0
    assert metrics(env)["main_score"] == 100.0

    def by_schedule(env, info):
        if info["phase"] == "probe":
            position = env.instance.request_order.index(info["slot"])
            return "ASIDE: yes" if info["round"] > position else "ASIDE: no"
        return giveaway(env, info)

    m = metrics(run(by_schedule))
    assert m["kappa"] == pytest.approx(13 / 15)
    assert m["main_score"] == pytest.approx(650 / 7)
    assert m["probe_accuracy"] == pytest.approx(28 / 30)


def test_repeating_an_already_requested_value_changes_no_truth():
    """Answer 4 repeats the value of the slot requested 1st: nothing is anticipated, the optimal
    schedule still holds (a schedule-following player wins)."""

    def repeat(env, info):
        if info["phase"] == "answer" and info["round"] == 3:
            return f"ANSWER: {info['value']} (and {env.instance.slots[env.instance.request_order[0]]})"
        if info["phase"] == "probe":
            return "ASIDE: yes" if info["round"] > env.instance.request_order.index(info["slot"]) else "ASIDE: no"
        return truthful(env, info)

    env = run(repeat)
    assert [r["anticipated"] for r in moves(env.log) if r["action"] == "answer"] == [[]] * 5
    assert metrics(env)["main_score"] == 100.0 and end_record(env.log)["outcome"] == SUCCESS


def test_slot_filling_and_anticipation_ignore_case():
    """'ANSWER: <VALUE IN CAPITALS>' fills the slot; a later value in lower case is anticipated."""

    def shouting(env, info):
        if info["phase"] == "answer" and info["round"] == 0:
            later = env.instance.slots[env.instance.request_order[1]]
            return f"ANSWER: {info['value'].upper()} then {later.lower()}"
        return truthful(env, info)

    env = run(shouting)
    first = next(r for r in moves(env.log) if r["action"] == "answer")
    assert first["filled"] is True and first["anticipated"] == [env.instance.request_order[1]]


# ---------------------------------------------------------------- turn order and messages
def test_turn_order_is_probe_round_then_request_until_round_n():
    """5 slots: 5 probes (round 0), answer, 5 probes, answer, ..., 5 probes (round 5): 35 calls.
    Probes go slot by slot in the experiment's fixed order; requests follow the request order."""
    env = run(truthful)
    actions = [r["action"] for r in moves(env.log)]
    assert actions == (["probe"] * 5 + ["answer"]) * 5 + ["probe"] * 5
    names = [s.name for s in EXPERIMENTS["travel-booking"].slots]
    probes = probe_records(env)
    assert [r["slot"] for r in probes] == names * 6
    assert [r["round"] for r in probes] == [r for r in range(6) for _ in range(5)]
    answers = [r for r in moves(env.log) if r["action"] == "answer"]
    assert [r["slot"] for r in answers] == list(env.instance.request_order)
    assert sorted(env.instance.request_order) == sorted(names)


def test_messages_carry_the_instructions_until_the_first_request_and_probes_are_ephemeral():
    """Round-0 probes and the first request hold the instructions (the round-0 probes are dropped
    from later prompts); later messages do not. Requests: '<TAG>: <request>' + the coda; probes:
    'ME: <question> Answer this question with yes or no and then stop.', info['ephemeral'] True."""
    env = PrivateSharedEnv(PrivateSharedParams(experiment="restaurant"))
    message, info = env.reset(seed=4)
    seen = [(message, info)]
    for _ in range(11):  # round 0, request 1, round 1
        message, _, _, info = env.step(truthful(env, info))
        seen.append((message, info))
    instructions = env.instructions
    assert instructions.startswith("Let's play a game.") and "WHAT: Restaurant order" in instructions
    for slot, value in env.instance.slots.items():
        assert f"{slot.upper()}: {value}" in instructions
    for tag in ("WAITER:", "ANSWER:", "ASIDE:", "ME:"):
        assert tag in instructions
    for message, info in seen[:5]:
        assert message.startswith(instructions + "\n\nME: ") and info["ephemeral"] is True
        assert message.endswith(prompts.PROBE_CODA)
    first_request, info = seen[5]
    request = env.instance.requests[env.instance.request_order[0]]
    assert first_request == f"{instructions}\n\nWAITER: {request}\n\n{prompts.REQUEST_CODA}"
    assert info["phase"] == "answer" and info["ephemeral"] is False
    for message, info in seen[6:11]:
        assert message.startswith("ME: ") and instructions not in message and info["ephemeral"] is True
    second_request, info = seen[11]
    assert second_request.startswith("WAITER: ") and second_request.endswith(prompts.REQUEST_CODA)
    assert instructions not in second_request


def test_a_probe_prompt_holds_the_kept_exchanges_only():
    """Through the runner: a round-2 probe sees request 1 (with the instructions) and its answer,
    request 2 and its answer, then the probe; no earlier probe or probe reply."""
    prompts_seen: list[list[dict[str, str]]] = []

    class Recorder:
        def respond(self, episodes):
            replies = []
            for seat in episodes:
                prompts_seen.append(seat.messages())
                replies.append(truthful(None, seat.info))
            return replies

    spec = {"paradigm": "privateshared", "preset": "default", "strategy": "direct",
            "overrides": {"experiment": "travel-booking"}, "seed": 5, "index": 0}
    episodes = start_episodes([spec], make_env)
    assert isinstance(episodes[0], GameEpisode)
    run_lockstep(episodes, Recorder(), progress=False)
    assert episodes[0].status == "completed" and len(prompts_seen) == 35
    round2 = prompts_seen[12]  # 5 probes, answer, 5 probes, answer, then the first round-2 probe
    assert [m["role"] for m in round2] == ["user", "assistant", "user", "assistant", "user"]
    assert "TRAVEL-AGENT:" in round2[0]["content"] and "WHAT: Travel" in round2[0]["content"]
    assert round2[1]["content"].startswith("ANSWER: ") and round2[3]["content"].startswith("ANSWER: ")
    assert round2[2]["content"].startswith("TRAVEL-AGENT: ")
    assert round2[4]["content"].startswith("ME: ")
    assert not any(m["content"].startswith("ASIDE:") for m in round2)
    assert prompts_seen[0][0]["content"].startswith("Let's play a game.") and len(prompts_seen[0]) == 1


def test_a_retried_probe_inserts_a_suffix_right_after_me():
    """Tries 2..5 of a probe ask the same question with a suffix after 'ME: '."""
    env = PrivateSharedEnv(PrivateSharedParams(experiment="travel-booking"))
    message, info = env.reset(seed=2)
    for _ in range(6):
        message, _, _, info = env.step(truthful(env, info))
    question = env.instance.probes[1][env.slot_names[0]]
    assert message == f"ME: {question} {prompts.PROBE_CODA}"
    for attempt in range(2, 6):
        message, terminated, _, info = env.step("ASIDE: perhaps")
        assert not terminated and info["attempt"] == attempt and info["slot"] == env.slot_names[0]
        assert message == f"ME: {prompts.RETRY_SUFFIXES[attempt - 1]} {question} {prompts.PROBE_CODA}"
    assert len(set(prompts.RETRY_SUFFIXES[1:])) == 4


# ---------------------------------------------------------------- reading replies
@pytest.mark.parametrize("text, expected", [
    ("ANSWER: Oslo", "Oslo"),
    ("ANSWER:Oslo", "Oslo"),
    ("ANSWER: ", ""),
    ("ANSWER: Oslo ANSWER: Paris", "Oslo ANSWER: Paris"),
    ("ANSWER: Oslo\x00", "Oslo\x00"),
    ("answer: Oslo", None),
    ("Answer: Oslo", None),
    ("АNSWER: Oslo", None),  # Cyrillic А
    ("ASIDE: Oslo", None),
    ("Sure! ANSWER: Oslo", None),
    ("ANSWER: Oslo\nThanks", None),
    ("ANSWER: Oslo\r\nThanks", None),
    ("ANSWER: Oslo\u2028Thanks", None),
    ("", None),
])  # fmt: skip
def test_read_answer(text, expected):
    """One line starting with 'ANSWER:' (case-sensitive); the text after the tag."""
    assert read_answer(text)[0] == expected


@pytest.mark.parametrize("text, expected", [
    ("ASIDE: yes", "yes"),
    ("ASIDE: Yes, I told them.", "yes"),
    ("ASIDE:YES", "yes"),
    ("ASIDE: no", "no"),
    ("ASIDE: Nope", "no"),
    ("ASIDE: No.", "no"),
    ("ASIDE: ASIDE: yes", "yes"),  # every tag is removed, as clembench does
    ("ASIDE: maybe", None),
    ("ASIDE: I think yes", None),
    ("ASIDE: ", None),
    ("aside: yes", None),
    ("Aside: yes", None),
    ("ANSWER: yes", None),
    ("yes", None),
    ("ASIDE: yes\nbecause I said so", None),
    ("ASIDE: yеs", None),  # Cyrillic е
    ("", None),
])  # fmt: skip
def test_read_aside(text, expected):
    """One line starting with 'ASIDE:', whose rest lower-cased starts with 'yes' or 'no'."""
    assert read_aside(text)[0] == expected


def _to_first_request(env: PrivateSharedEnv) -> dict[str, Any]:
    """Play round 0 truthfully; return the info of the first request."""
    message, info = env.reset(seed=8)
    while info["phase"] == "probe":
        message, _, _, info = env.step(truthful(env, info))
    return info


HOSTILE = [
    "", "   \n\t ", "x" * 100_000, "ANSWER: a\nb", "answer: Oslo", "ANSWER: Oslo\n" * 3, "ASIDE: yes",
    "АNSWER: Oslo", "\x00\x01\x02", "ANSWER:" + "🙂" * 20_000 + "\nmore", "ANSWER: x\x0bx",
]


@pytest.mark.parametrize("reply", HOSTILE)
def test_a_request_answered_out_of_form_aborts_at_once(reply):
    """No tag, lower-case tag, two lines, look-alike letters, control characters, empty: abort, main None."""
    env = PrivateSharedEnv(PrivateSharedParams(experiment="travel-booking"))
    _to_first_request(env)
    _, terminated, truncated, info = env.step(reply)
    assert terminated and not truncated and info["phase"] == "end"
    last_move = moves(env.log)[-1]
    assert last_move["action"] == "answer" and last_move["status"] == INVALID
    assert end_record(env.log)["outcome"] == ABORTED and end_record(env.log)["main_score"] is None
    m = metrics(env)
    assert m["aborted"] == 1.0 and math.isnan(m["main_score"]) and m["clemscore"] == 0.0
    assert all(math.isnan(m[k]) for k in ("kappa", "slot_filling_accuracy", "probe_accuracy", "probe_retries"))
    assert m["request_count"] == 6.0 and m["violated_request_count"] == 1.0
    json.dumps(env.log, allow_nan=False)


@pytest.mark.parametrize("reply", ["ANSWER: Oslo\n", "ANSWER: " + "x" * 100_000, "ANSWER: Oslo ANSWER: Lisbon"])
def test_one_line_answers_are_valid_whatever_their_length_or_extra_tags(reply):
    env = PrivateSharedEnv(PrivateSharedParams(experiment="travel-booking"))
    _to_first_request(env)
    _, terminated, _, info = env.step(reply)
    assert not terminated and info["phase"] == "probe"
    assert moves(env.log)[-1]["status"] == VALID
    assert len(moves(env.log)[-1]["content"]) <= 201  # the log keeps a prefix; the transcript the reply


def test_a_100kb_answer_giving_every_value_anticipates_every_later_slot():
    env = PrivateSharedEnv(PrivateSharedParams(experiment="things-places"))
    info = _to_first_request(env)
    everything = "ANSWER: " + " ".join(env.instance.slots.values()) + " " + "y" * 100_000
    env.step(everything)
    record = moves(env.log)[-1]
    assert record["filled"] is True
    assert sorted(record["anticipated"]) == sorted(env.instance.request_order[1:])
    assert all(v == 0 for v in env.shared_after.values())
    assert info["slot"] == env.instance.request_order[0]


@pytest.mark.parametrize("reply", ["ASIDE: maybe", "", "yes", "aside: yes", "ASIDE: yes\nno", "x" * 100_000,
                                   "ASIDE: yеs", "ANSWER: no", "\x00"])
def test_a_probe_answered_out_of_form_is_asked_again(reply):
    """Any probe reply not in the form is an 'invalid' record and the same probe is asked again."""
    env = PrivateSharedEnv(PrivateSharedParams(experiment="job-interview"))
    message, info = env.reset(seed=3)
    slot = info["slot"]
    message, terminated, _, info = env.step(reply)
    assert not terminated and info["slot"] == slot and info["attempt"] == 2 and info["ephemeral"] is True
    assert moves(env.log)[-1]["status"] == INVALID and moves(env.log)[-1]["action"] == "probe"


def test_a_100kb_probe_reply_on_one_line_is_read():
    env = PrivateSharedEnv(PrivateSharedParams(experiment="job-interview"))
    env.reset(seed=3)
    _, _, _, info = env.step("ASIDE: no " + "z" * 100_000)
    assert moves(env.log)[-1]["said"] == "no" and info["attempt"] == 1


@pytest.mark.parametrize("seed", range(4))
def test_random_junk_never_raises_and_every_call_is_logged(seed):
    """Replies glued from tags, yes/no, values, line breaks, look-alikes and control characters:
    step never raises, each call leaves one move record, and the episode ends with one end record."""
    rng = np.random.default_rng(seed)
    pieces = ["ANSWER:", "ASIDE:", "answer:", "ME:", " yes", " no", " Nope", "maybe", "\n", "\r", "\u2028",
              "\x00", "\x1b[31m", "АSIDE:", "уes", " ", "Oslo", "🙂", "\t"]
    env = PrivateSharedEnv(PrivateSharedParams(experiment="letter-number"))
    message, info = env.reset(seed=seed)
    calls, done = 0, False
    while not done:
        reply = "".join(pieces[int(i)] for i in rng.integers(len(pieces), size=int(rng.integers(0, 6))))
        message, terminated, truncated, info = env.step(reply)
        calls += 1
        done = terminated or truncated
    assert len(moves(env.log)) == calls and end_record(env.log) is not None
    json.dumps(env.log, allow_nan=False)


def test_five_bad_replies_to_one_probe_abort_the_game():
    """Tries 1..5 unreadable: aborted after exactly 5 calls (probing stops at once)."""
    env = PrivateSharedEnv(PrivateSharedParams(experiment="travel-booking"))
    message, info = env.reset(seed=9)
    for _ in range(6):  # round 0 and the first answer
        message, _, _, info = env.step(truthful(env, info))
    for attempt in range(1, 6):
        message, terminated, _, info = env.step("ASIDE: I cannot tell")
        assert terminated is (attempt == 5)
    assert message == prompts.CLOSING_ABORTED
    m = metrics(env)
    assert m["aborted"] == 1.0 and m["request_count"] == 11.0 and m["parsed_request_count"] == 6.0
    with pytest.raises(RuntimeError):
        env.step("ASIDE: yes")


def test_four_bad_replies_then_a_good_one_go_on():
    """The 5th try still counts: 4 retries on the first probe, then the game is won."""

    def late(env, info):
        if info["phase"] == "probe" and info["round"] == 0 and info["slot"] == env.slot_names[0] and info["attempt"] < 5:
            return "ASIDE: ?"
        return truthful(env, info)

    m = metrics(run(late))
    assert m["success"] == 1.0 and m["probe_retries"] == 4.0 and m["request_count"] == 39.0
    assert m["request_success_ratio"] == pytest.approx(35 / 39)


@pytest.mark.parametrize("experiment", ["travel-booking", "things-places"])
def test_the_longest_game_the_rules_allow_ends_within_max_turns(experiment):
    """Every probe answered on its 5th try: n + 5 n (n+1) calls (155 and 1215), still played to the end."""

    def slowest(env, info):
        return "ASIDE: ?" if info["phase"] == "probe" and info["attempt"] < 5 else truthful(env, info)

    env = run(slowest, experiment)
    n = SLOTS_OF[experiment]
    assert max_calls(n) == {"travel-booking": 155, "things-places": 1215}[experiment]
    assert metrics(env)["request_count"] == max_calls(n) and metrics(env)["success"] == 1.0
    assert MAX_TURNS > max(max_calls(k) for k in SLOTS_OF.values())


def test_a_game_cut_by_max_turns_has_no_end_and_counts_as_aborted():
    env = run(truthful, max_turns=3)
    assert end_record(env.log) is None and len(moves(env.log)) == 3
    m = metrics(env)
    assert m["aborted"] == 1.0 and math.isnan(m["main_score"]) and math.isnan(m["kappa"])


# ---------------------------------------------------------------- reference players
@pytest.mark.parametrize("experiment", EXPERIMENT_NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_optimal_wins_with_main_score_100(experiment, seed):
    """Every slot filled and every probe right: kappa 1, main 100; n answers + n(n+1) probes."""
    params = PARADIGM.make_params(overrides={"experiment": experiment})
    m = PARADIGM.metrics(play(PARADIGM, params, seed, "optimal").log, params)
    n = SLOTS_OF[experiment]
    assert m["main_score"] == 100.0 and m["success"] == 1.0 and m["kappa"] == 1.0
    assert m["request_count"] == n + n * (n + 1) and m["request_success_ratio"] == 1.0


@pytest.mark.parametrize("experiment", EXPERIMENT_NAMES)
def test_rule_breaker_aborts_after_the_five_tries_of_the_first_probe(experiment):
    params = PARADIGM.make_params(overrides={"experiment": experiment})
    m = PARADIGM.metrics(play(PARADIGM, params, 4, "rule_breaker").log, params)
    assert m["aborted"] == 1.0 and m["played"] == 0.0 and m["clemscore"] == 0.0 and math.isnan(m["main_score"])
    assert (m["request_count"], m["parsed_request_count"], m["request_success_ratio"]) == (5.0, 0.0, 0.0)


@pytest.mark.parametrize("experiment, middle", [("travel-booking", 3 / 5), ("job-interview", 3 / 5),
                                                ("restaurant", 3 / 5), ("things-places", 8 / 15),
                                                ("letter-number", 6 / 10)])
def test_forgetful_always_says_no_and_scores_kappa_0_and_main_0(experiment, middle):
    """5 slots: truth 'yes' in 15 of 30 probes, answers all 'no': po = 0.5; pe = 0.5*1 + 0.5*0 = 0.5;
    kappa = (0.5 - 0.5)/(1 - 0.5) = 0; SF = 1: main = 100 * 2*1*0/(1 + 0) = 0. Any n: truth 'yes' in
    n(n+1)/2 of n(n+1) probes, so accuracy 1/2, kappa 0. Middle round m = int((n+1)/2) - 1 has m
    slots shared: accuracy (n - m)/n = 3/5, 8/15, 6/10."""
    params = PARADIGM.make_params(overrides={"experiment": experiment})
    for seed in (0, 1):
        m = PARADIGM.metrics(play(PARADIGM, params, seed, "forgetful").log, params)
        assert m["kappa"] == 0.0 and m["main_score"] == 0.0 and m["slot_filling_accuracy"] == 1.0
        assert m["probe_accuracy"] == 0.5 and m["middle_accuracy"] == pytest.approx(middle)
        assert (m["lose"], m["success"], m["played"]) == (1.0, 0.0, 1.0)
    assert PARADIGM.make_agent("heuristic", params, agent_rng(0)).__class__.__name__ == "ForgetfulAgent"


def _kappa_by_hand(truth: list[bool], said: list[bool]) -> float:
    """(po - pe)/(1 - pe) from the 2x2 counts, independently of sklearn."""
    n = len(truth)
    po = sum(t == s for t, s in zip(truth, said)) / n
    pt, ps = sum(truth) / n, sum(said) / n
    pe = pt * ps + (1 - pt) * (1 - ps)
    return (po - pe) / (1 - pe)


# The random player on travel-booking, seeds 0..3: truth 'yes' in 15 of 30 probes, so pe = 0.5 whatever
# it says and kappa = (po - 0.5)/0.5 = 2 po - 1. Correct answers 15, 9, 14, 16 of 30:
# kappa 0, -0.4, -1/15, 1/15; SF = 1, main = 200 k+/(1 + k+): 0, 0, 0, 200 (1/15)/(16/15) = 12.5.
RANDOM_PINS = {0: (15, 0.0, 0.0), 1: (9, -0.4, 0.0), 2: (14, -1 / 15, 0.0), 3: (16, 1 / 15, 12.5)}


@pytest.mark.parametrize("seed", sorted(RANDOM_PINS))
def test_random_player_scores_are_pinned_and_agree_with_kappa_by_hand(seed):
    """Random yes/no probes, every slot filled: the pinned figures, and kappa recomputed from the log by hand."""
    params = PARADIGM.make_params(overrides={"experiment": "travel-booking"})
    env = play(PARADIGM, params, seed, "random")
    m = PARADIGM.metrics(env.log, params)
    correct, k, main = RANDOM_PINS[seed]
    assert m["probe_accuracy"] == pytest.approx(correct / 30)
    assert m["kappa"] == pytest.approx(k)
    assert m["main_score"] == pytest.approx(main)
    probes = probe_records(env)
    assert sum(r["truth"] for r in probes) == 15
    assert m["kappa"] == pytest.approx(_kappa_by_hand([r["truth"] for r in probes], [r["said"] == "yes" for r in probes]))
    assert m["slot_filling_accuracy"] == 1.0 and m["request_count"] == 35.0 and m["lose"] == 1.0


# ---------------------------------------------------------------- instances and determinism
def test_values_never_contain_one_another_and_the_check_can_fail():
    for experiment in EXPERIMENTS.values():
        assert nested_values(experiment.candidate_values()) == [], experiment.name
        for value in experiment.candidate_values():
            assert value.strip() == value and value and "\n" not in value
        if experiment.draw == PER_SLOT:
            assert all(len(slot.values) >= 8 for slot in experiment.slots), experiment.name
    assert len(EXPERIMENTS["things-places"].pool) >= 2 * len(EXPERIMENTS["things-places"].slots)
    assert nested_values(["bus", "Business"]) == [("bus", "Business")]
    assert nested_values(["Oslo", "Oslo"]) == [("Oslo", "Oslo"), ("Oslo", "Oslo")]


def test_each_slot_has_two_request_and_two_probe_wordings():
    for experiment in EXPERIMENTS.values():
        assert len({s.name for s in experiment.slots}) == len(experiment.slots)
        for slot in experiment.slots:
            assert len(set(slot.requests)) >= 2 and len(set(slot.probes)) >= 2, (experiment.name, slot.name)


@pytest.mark.parametrize("seed", range(6))
def test_instances_have_distinct_values_and_a_permuted_request_order(seed):
    for experiment in EXPERIMENTS.values():
        inst = draw_instance(np.random.default_rng(seed), experiment)
        values = list(inst.slots.values())
        assert list(inst.slots) == [s.name for s in experiment.slots]
        assert sorted(inst.request_order) == sorted(inst.slots) and len(inst.probes) == len(values) + 1
        assert nested_values(values) == []
        if experiment.draw == NUMBERS:
            assert all(v.isdigit() and len(v) == 4 and v[0] != "0" for v in values)


def test_same_seed_and_index_give_the_same_instance_and_the_index_cycles_the_experiments():
    params = PrivateSharedParams()
    played = []
    for index in range(6):
        env = PrivateSharedEnv(params)
        message, info = env.reset(seed=77, options={"index": index})
        again = PrivateSharedEnv(params)
        assert again.reset(seed=77, options={"index": index}) == (message, info)
        assert again.instance == env.instance
        played.append(info["experiment"])
    assert played == [*EXPERIMENT_NAMES, EXPERIMENT_NAMES[0]]
    fixed = PrivateSharedEnv(PrivateSharedParams(experiment="restaurant"))
    assert fixed.reset(seed=1, options={"index": 3})[1]["experiment"] == "restaurant"


def test_different_seeds_give_different_instances():
    instances = set()
    for seed in range(8):
        env = PrivateSharedEnv(PrivateSharedParams(experiment="travel-booking"))
        env.reset(seed=seed)
        instances.add((tuple(env.instance.slots.values()), env.instance.request_order))
    assert len(instances) == 8


# ---------------------------------------------------------------- parameters, registry, log
def test_parameters_are_validated_by_name():
    with pytest.raises(ValueError, match="'strategy' must be 'direct'"):
        PrivateSharedParams(strategy="cot")
    with pytest.raises(ValueError, match="'experiment'.*Did you mean: travel-booking"):
        PrivateSharedParams(experiment="travel")
    with pytest.raises(ValueError, match="'max_turns' must be a positive int"):
        PrivateSharedParams(max_turns=0)
    with pytest.raises(ValueError, match="'max_turns'"):
        PrivateSharedParams(max_turns=True)
    with pytest.raises(ValueError, match="privateshared parameter 'slots'"):
        PARADIGM.make_params(overrides={"slots": 3})
    assert PARADIGM.make_params(strategy=Strategy.DIRECT).strategy == "direct"
    assert PARADIGM.make_params().max_turns == MAX_TURNS


def test_the_game_is_found_by_name_with_one_model_role():
    assert get_paradigm("privateshared") is PARADIGM
    assert PrivateSharedEnv.roles == ("answerer",) and PARADIGM.primary_metric == "clemscore"
    assert PARADIGM.failed_scores == {"played": 0.0, "clemscore": 0.0}
    assert set(PARADIGM.policies()) >= {"optimal", "rule_breaker", "forgetful", "random"}


@pytest.mark.parametrize("policy", ["optimal", "rule_breaker", "forgetful", "random"])
def test_log_is_strict_json_and_rescores_identically(policy):
    params = PARADIGM.make_params(overrides={"experiment": "letter-number"})
    env = play(PARADIGM, params, 6, policy)
    text = json.dumps(env.log, allow_nan=False)
    scores = PARADIGM.metrics(env.log, params)
    again = PARADIGM.metrics(json.loads(text), params)
    assert set(scores) == {s.name for s in PARADIGM.metric_specs}
    assert all(isinstance(v, float) for v in scores.values())
    assert all((math.isnan(a) and math.isnan(again[k])) or a == again[k] for k, a in scores.items())


def test_metrics_of_an_empty_log_are_an_aborted_episode_with_nan_extras():
    m = privateshared_metrics([], PrivateSharedParams())
    assert set(m) == {s.name for s in PARADIGM.metric_specs}
    assert m["aborted"] == 1.0 and math.isnan(m["kappa"]) and math.isnan(m["main_score"])


def test_step_before_reset_raises():
    with pytest.raises(RuntimeError):
        PrivateSharedEnv(PrivateSharedParams()).step("ASIDE: no")
