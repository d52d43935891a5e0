"""Report figures: the numbers behind each figure (hand-computed), then that every figure is drawn."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from fault_backend import requests

from lm_eval_cog.lmeval import seam
from lm_eval_cog.lmeval.baseline_model import ScriptedPlayer
from lm_eval_cog.reports import profile_figures
from lm_eval_cog.reports.profile_figures import probe_conditions, probe_effects_figure, profile_figure
from lm_eval_cog.reports.transcript_figures import (
    Rate,
    better_arm,
    block_size,
    block_tally,
    deck_tally,
    nback_tally,
    perseveration_tally,
    played,
    pool,
    reversal_tally,
    rule_blocks,
    solved_of,
    stem_of,
    switch_cost,
    switch_tally,
    transcript_figures,
    transcript_of,
    trial_block_tally,
    wason_episode,
)
from lm_eval_cog.transcripts import score_transcript

C, E, I = "correct", "error", "invalid"


def sst(*pairs: tuple[str, str], key: str = "rule") -> list[dict]:
    """Set-shifting trials from (rule, outcome) pairs."""
    return [{"trial": i + 1, key: rule, "outcome": outcome} for i, (rule, outcome) in enumerate(pairs)]


# Blocks: colour (trials 1-3), shape (4-7), number (8-9).
EPISODE = sst(
    ("colour", C), ("colour", E), ("colour", C),
    ("shape", E), ("shape", I), ("shape", C), ("shape", C),
    ("number", E), ("number", C),
)  # fmt: skip


# --------------------------------------------------------------------------- #
# Set shifting (WCST, LNT)
# --------------------------------------------------------------------------- #


def test_rule_blocks_are_the_maximal_runs_of_one_rule():
    assert [len(b) for b in rule_blocks(EPISODE, "rule")] == [3, 4, 2]


def test_perseveration_curve_counts_positions_after_each_rule_change_with_invalid_as_not_correct():
    # Position 0: trials 4 (E) and 8 (E) -> 0/2; position 1: trial 5 (invalid) and 9 (C) -> 1/2;
    # position 2: trial 6 (C) -> 1/1; position 3: trial 7 (C) -> 1/1. The first block is left out.
    assert perseveration_tally(EPISODE, "rule") == {0: Rate(0, 2), 1: Rate(1, 2), 2: Rate(1, 1), 3: Rate(1, 1)}


def test_first_block_curve_counts_only_the_trials_before_the_first_change():
    # Colour block: C, E, C.
    assert perseveration_tally(EPISODE, "rule", first_block=True) == {0: Rate(1, 1), 1: Rate(0, 1), 2: Rate(1, 1)}


def test_pooling_sums_trials_over_episodes():
    no_switch = sst(("colour", C), ("colour", C))
    after = pool([perseveration_tally(EPISODE, "rule"), perseveration_tally(no_switch, "rule")])
    assert after == perseveration_tally(EPISODE, "rule")  # the second episode never switched
    first = pool([perseveration_tally(e, "rule", first_block=True) for e in (EPISODE, no_switch)])
    # Position 0: 1/1 + 1/1; position 1: 0/1 + 1/1; position 2: 1/1.
    assert first == {0: Rate(2, 2), 1: Rate(1, 2), 2: Rate(1, 1)}
    assert first[1].value == 0.5 and math.isnan(Rate().value)


def test_block_accuracy_is_correct_over_all_trials_of_each_rule_block():
    # colour 2/3, shape 2/4 (the invalid reply is not correct), number 1/2.
    assert block_tally(EPISODE, "rule") == {1: Rate(2, 3), 2: Rate(2, 4), 3: Rate(1, 2)}


def test_switch_cost_compares_the_first_k_trials_after_a_change_with_the_rest():
    # k = 3: after a switch = trials 4, 5, 6, 8, 9 -> C at 6 and 9: 2/5; rest = position >= 3: trial 7 -> 1/1.
    # The first block's first 3 trials are in neither. Cost = 1 - 0.4 = 0.6.
    tally = switch_tally(EPISODE, "rule", k=3)
    assert tally == {"after_switch": Rate(2, 5), "rest": Rate(1, 1)}
    assert switch_cost(tally) == pytest.approx(0.6)
    # k = 2: after = trials 4, 5, 8, 9 -> 1/4; rest = trials 3, 6, 7 -> 3/3; cost = 1 - 0.25 = 0.75.
    assert switch_cost(switch_tally(EPISODE, "rule", k=2)) == pytest.approx(0.75)


def test_switch_cost_is_nan_without_a_switch():
    assert math.isnan(switch_cost(switch_tally(sst(*[("colour", C)] * 5), "rule")))


def test_lnt_blocks_follow_its_task_field():
    trials = sst(("letter", C), ("number", E), ("number", C), key="task")
    assert perseveration_tally(trials, "task") == {0: Rate(0, 1), 1: Rate(1, 1)}


def test_an_unknown_outcome_is_an_error_not_a_silent_miss():
    with pytest.raises(ValueError, match="outcome"):
        block_tally(sst(("colour", "maybe")), "rule")


# --------------------------------------------------------------------------- #
# n-back
# --------------------------------------------------------------------------- #


def test_nback_rates_are_over_valid_replies_and_invalid_share_over_all_trials():
    trials = [
        {"target": None, "choice": "not available", "outcome": C},
        {"target": None, "choice": None, "outcome": I},
        {"target": True, "choice": "yes", "outcome": C},  # hit
        {"target": True, "choice": "no", "outcome": E},  # miss
        {"target": True, "choice": None, "outcome": I},  # neither
        {"target": False, "choice": "yes", "outcome": E},  # false alarm
        {"target": False, "choice": "no", "outcome": C},
        {"target": False, "choice": "not available", "outcome": E},  # valid, not "yes"
    ]
    # Hits 1 of 2 valid targets; false alarms 1 of 3 valid non-targets; invalid 2 of 8 trials.
    assert nback_tally(trials) == {"hit": Rate(1, 2), "false_alarm": Rate(1, 3), "invalid": Rate(2, 8)}


# --------------------------------------------------------------------------- #
# Bandits (PRLT, MBT)
# --------------------------------------------------------------------------- #


def prlt(choices: list[str | None]) -> list[dict]:
    """Left pays 0.8 on trials 1-4, right from trial 5 on."""
    return [
        {"p_left": 0.8 if i < 4 else 0.2, "p_right": 0.2 if i < 4 else 0.8, "choice": c,
         "outcome": I if c is None else C}
        for i, c in enumerate(choices)
    ]  # fmt: skip


def test_better_arm_reads_prlt_probabilities_and_mbt_good_arm():
    assert better_arm({"p_left": 0.3, "p_right": 0.7}) == "right"
    assert better_arm({"p_left": 0.5, "p_right": 0.5}) is None
    assert better_arm({"good_arm": "left", "p_left": 0.0, "p_right": 1.0}) == "left"


def test_reversal_curve_scores_the_currently_better_arm_around_the_reversal():
    trials = prlt(["left", "left", "right", "left", "left", "right", None, "right"])
    # Better: L L L L R R R R; the reversal is trial index 4 (offset 0).
    # -2: idx 2 chose R, better L -> 0; -1: idx 3 L -> 1; 0: idx 4 L, better R -> 0;
    # +1: idx 5 R -> 1; +2: idx 6 invalid -> 0.
    assert reversal_tally(trials, before=2, after=2) == {
        -2: Rate(0, 1),
        -1: Rate(1, 1),
        0: Rate(0, 1),
        1: Rate(1, 1),
        2: Rate(0, 1),
    }
    # Default window: the episode's ends clip it (-4 .. +3); idx 0, 1 and 7 chose the better arm.
    full = reversal_tally(trials)
    assert list(full) == [-4, -3, -2, -1, 0, 1, 2, 3]
    assert [full[k].hits for k in full] == [1, 1, 0, 1, 0, 1, 0, 1]


def test_reversal_windows_stop_at_the_neighbouring_reversals():
    # MBT blocks of 2: good arm L L R R L L; reversals at idx 2 and 4.
    good = ["left", "left", "right", "right", "left", "left"]
    choices = ["left", "right", "right", "left", "left", "left"]
    trials = [{"good_arm": g, "choice": c, "outcome": C} for g, c in zip(good, choices)]
    # Chose better: 1 0 1 0 1 1. Reversal idx 2 sees idx 0..3 (offsets -2..1): 1 0 1 0;
    # reversal idx 4 sees idx 2..5 (back to the previous reversal, inclusive): 1 0 1 1.
    assert reversal_tally(trials) == {-2: Rate(2, 2), -1: Rate(0, 2), 0: Rate(2, 2), 1: Rate(1, 2)}


def test_no_reversal_gives_an_empty_curve():
    trials = [{"p_left": 0.5, "p_right": 0.5, "choice": "left", "outcome": C}] * 4
    assert reversal_tally(trials) == {}


# --------------------------------------------------------------------------- #
# IGT, WPT, 2-4-6
# --------------------------------------------------------------------------- #


def test_block_size_cuts_an_episode_into_five_blocks():
    # 100 / 5 = 20; 50 / 5 = 10; ceil(52 / 5) = 11; fewer trials than blocks: 1.
    assert [block_size(n) for n in (100, 50, 52, 3)] == [20, 10, 11, 1]


def test_deck_shares_count_final_choices_per_block_with_invalid_apart():
    finals = ["AAA", None, "CCC", "CCC", "DDD"]
    trials = [{"final": f, "final_invalid": None if f else "no_answer"} for f in finals]
    # Blocks of 2: {AAA, invalid}, {CCC, CCC}, {DDD}.
    assert deck_tally(trials, 2) == {1: Counter(AAA=1, invalid=1), 2: Counter(CCC=2), 3: Counter(DDD=1)}


def test_trial_block_accuracy_counts_invalid_as_not_correct():
    trials = [{"outcome": o} for o in (C, E, I, C, C)]
    # Blocks of 2: (C, E) 1/2, (I, C) 1/2, (C) 1/1.
    assert trial_block_tally(trials, 2) == {1: Rate(1, 2), 2: Rate(1, 2), 3: Rate(1, 1)}


def test_wason_counts_queries_and_positive_tests_and_reads_solved_from_acc():
    trials = [
        {"kind": "query", "expect": "yes"},
        {"kind": "query", "expect": "no"},
        {"kind": None, "expect": None},  # an unreadable reply: no query
        {"kind": "rule", "expect": None},
    ]
    episode = wason_episode(trials, solved=True)
    assert (episode.queries, episode.positive, episode.solved) == (2, 1, True)
    assert [solved_of(s) for s in ({"acc": 1.0}, {"acc": 0.0}, {}, {"acc": math.nan})] == [True, False, None, None]


# --------------------------------------------------------------------------- #
# Reading samples
# --------------------------------------------------------------------------- #


def sample(transcript: dict | str, doc_id: int = 0, **metrics: float) -> dict:
    raw = transcript if isinstance(transcript, str) else json.dumps(transcript)
    return {"doc_id": doc_id, "resps": [[raw]], "filtered_resps": [raw], "metrics": list(metrics), **metrics}


def wcst_transcript(trials: list[dict], status: str = "completed") -> dict:
    return {"paradigm": "wcst", "status": status, "error": None, "index": 0, "seed": 1, "turns": [], "trials": trials}


def test_static_probe_samples_hold_no_transcript():
    assert transcript_of({"resps": [["Answer: 4"]]}) is None
    assert transcript_of({"resps": [[["-1.0", "False"]]]}) is None
    assert transcript_of({"resps": [['{"paradigm": "wcst", "trials": []}']]}) == {"paradigm": "wcst", "trials": []}


def test_failed_and_incomplete_transcripts_are_skipped_and_counted():
    good = wcst_transcript(EPISODE)
    samples = [
        sample(good, 0),
        sample(good, 1),
        sample(wcst_transcript(EPISODE[:2], status="failed"), 2),
        sample({k: v for k, v in good.items() if k != "trials"}, 3),
        {"doc_id": 4, "resps": [["Answer: 2"]]},  # no transcript at all: not counted
    ]
    data = played(samples)
    assert (data.paradigm, len(data.episodes), data.skipped) == ("wcst", 2, 2)


# --------------------------------------------------------------------------- #
# Figures drawn from played episodes
# --------------------------------------------------------------------------- #

PARADIGMS = {
    "wcst": ("wcst64", ["perseveration", "blocks"]),
    "lnt": ("kennedy", ["perseveration", "blocks"]),
    "nback": ("easy", ["nback_rates"]),
    "prlt": ("easy", ["reversals"]),
    "mbt": ("easy", ["reversals"]),
    "igt": ("easy", ["decks"]),
    "wpt": ("easy", ["accuracy_blocks"]),
    "wason246": ("cogprobe6", ["queries"]),
}


def play(paradigm: str, preset: str, policy: str, n: int = 2) -> list[dict]:
    """Samples as lm-eval logs them: the scripted player's transcript in resps[0][0], with its metrics."""
    reqs = requests(n, task=f"cog_{paradigm}", paradigm=paradigm, preset=preset, overrides={})
    out = []
    for doc_id, raw in enumerate(seam.run_requests(reqs, ScriptedPlayer(policy), progress=False)):
        metrics = score_transcript(raw)
        out.append(sample(raw, doc_id, **metrics))
    return out


@pytest.mark.parametrize("policy", ["random", "optimal"])
@pytest.mark.parametrize("paradigm", list(PARADIGMS))
def test_every_paradigm_with_a_figure_draws_it_as_png_and_svg(tmp_path, paradigm, policy):
    preset, kinds = PARADIGMS[paradigm]
    figures = transcript_figures(f"cog_{paradigm}", play(paradigm, preset, policy), tmp_path)
    assert [f.stem for f in figures] == [stem_of(f"cog_{paradigm}", k) for k in kinds]
    for f in figures:
        assert f.png.stat().st_size > 1000 and f.svg.stat().st_size > 1000
        assert f.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "Pooled over 2 episodes" in f.caption or "2 episodes" in f.caption


def test_captions_count_skipped_episodes_and_say_how_invalid_replies_count(tmp_path):
    samples = play("wcst", "wcst64", "optimal")
    broken = json.loads(samples[0]["resps"][0][0])
    del broken["trials"][3]["outcome"]  # a field the curves read
    failed = {**json.loads(samples[1]["resps"][0][0]), "status": "failed", "error": "backend down"}
    samples += [sample(broken, 2), sample(failed, 3)]
    figures = transcript_figures("cog_wcst_direct", samples, tmp_path)
    assert len(figures) == 2
    for f in figures:
        assert "Pooled over 2 episodes; 2 skipped" in f.caption
        assert "Invalid (unreadable) replies count as not correct" in f.caption


def test_tasks_without_a_figure_give_none(tmp_path):
    static = [{"doc_id": 0, "resps": [["Answer: 4"]], "doc": {"probe": "stroop"}}]
    assert transcript_figures("cog_stroop_gen", static, tmp_path) == []
    other = {"paradigm": "reflect", "status": "completed", "turns": [], "trials": [{"phase": "answer"}]}
    assert transcript_figures("cog_calendar_reflect", [sample(other)], tmp_path) == []
    only_failed = wcst_transcript(EPISODE, status="failed")
    assert transcript_figures("cog_wcst_direct", [sample(only_failed)], tmp_path) == []
    assert transcript_figures("cog_wcst_direct", [], tmp_path) == []
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- #
# Profile and probe effects (results JSON only)
# --------------------------------------------------------------------------- #


@pytest.fixture
def captured(monkeypatch):
    """The matplotlib figure each call hands to save_figure (kept open for inspection)."""
    figures = []
    real = profile_figures.save_figure

    def keep(fig, *args, **kwargs):
        figures.append((fig, [ax.get_xlim() for ax in fig.axes], [t.get_text() for ax in fig.axes for t in ax.texts]))
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(profile_figures, "save_figure", keep)
    return figures


def test_profile_bars_fit_values_beyond_the_scale_and_write_nan_as_na(tmp_path, captured):
    abilities = {"working memory": 40.0, "inhibitory control": -25.0, "flexibility": math.nan, "learning": 130.0}
    fig = profile_figure("org/model-7b", abilities, tmp_path)
    assert fig.png.stat().st_size > 1000 and fig.svg.exists()
    assert fig.stem == "profile_org_model-7b_abilities"
    ((_, xlims, texts),) = captured
    low, high = xlims[0]
    assert low <= -25 and high >= 130  # the axis widened to both values
    assert "n/a" in texts and "chance" in texts and "ideal" in texts
    assert "-25.0" in texts and "130.0" in texts
    assert "1 ability without a chance/ideal reference" in fig.caption


def test_profile_of_no_ability_still_draws_a_figure(tmp_path):
    assert profile_figure("m", {}, tmp_path).png.stat().st_size > 0


STROOP = {
    "acc,none": 0.5, "acc_norm,none": 0.5, "acc_chance,none": 0.25,
    "acc_congruent,none": 1.0, "acc_incongruent,none": 0.0, "acc_neutral,none": 0.5,
}  # fmt: skip


def test_probe_conditions_come_in_the_probes_order_with_their_stderrs_and_chance():
    conditions, chance, filt = probe_conditions("cog_stroop_mc", STROOP, {"acc_congruent,none": 0.1})
    assert [(c.name, c.acc) for c in conditions] == [("congruent", 1.0), ("incongruent", 0.0), ("neutral", 0.5)]
    assert conditions[0].stderr == 0.1 and math.isnan(conditions[1].stderr)
    assert (chance, filt) == (0.25, "none")


def test_probe_conditions_read_one_filter_and_accept_lm_evals_stderr_names():
    metrics = {"acc,answer_line": 0.5, "acc_chance,answer_line": 0.5, "acc_go,answer_line": 1.0,
               "acc_nogo,answer_line": 0.0, "acc_go,other": 0.0}  # fmt: skip
    conditions, chance, filt = probe_conditions("cog_gonogo_gen", metrics, {"acc_go_stderr,answer_line": 0.2})
    assert filt == "answer_line" and chance == 0.5
    assert next((c.name, c.acc, c.stderr) for c in conditions) == ("go", 1.0, 0.2)


def test_probe_effects_figure_only_for_registered_probes_with_condition_metrics(tmp_path):
    fig = probe_effects_figure("cog_stroop_mc", STROOP, {}, tmp_path)
    assert fig is not None and fig.png.stat().st_size > 1000 and fig.stem == "cog_stroop_mc_conditions"
    assert "No standard error from lm-eval for: congruent, incongruent, neutral" in fig.caption
    assert probe_effects_figure("cog_wcst_direct", {"acc,none": 0.3}, {}, tmp_path) is None
    # acc_first/acc_final of a reflect task and acc_norm of a foreign task are no conditions.
    reflect = {"acc_first,none": 0.5, "acc_final,none": 0.5, "acc_final_chance,none": 0.25}
    assert probe_effects_figure("cog_calendar_reflect", reflect, {}, tmp_path) is None
    assert probe_effects_figure("mmlu", {"acc_norm,none": 0.4}, {}, tmp_path) is None
