"""The dialogue games through the stock ``lm_eval`` command: the reference players' exact scores,
and SmolLM2 in self-play on every game, whose transcripts rescore offline to the same numbers."""

from __future__ import annotations

import glob
import json
import math
from pathlib import Path

import pytest
from test_e2e_cli import run_lm_eval, smollm2_dir

from lm_eval_cog.paradigms import chance, get_paradigm
from lm_eval_cog.paradigms.base import episode_seed
from lm_eval_cog.transcripts import read_transcripts, recompute

GAMES = ["taboo", "wordle", "wordle_clue", "wordle_critic", "reference", "image", "privateshared"]
TASKS = [f"cog_game_{g}" for g in GAMES]
LIMIT = 3
#: lm-eval's default task seed (episode i is seeded from it and i alone).
TASK_SEED = 1234


def results(tmp: Path) -> dict:
    (path,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    return json.loads(Path(path).read_text())["results"]


def play_baseline(tmp: Path, policy: str) -> dict:
    run_lm_eval(tmp, "--model", "cog_baseline", "--model_args", f"policy={policy}", "--tasks", "cog_games",
                "--limit", str(LIMIT))  # fmt: skip
    return results(tmp)


def test_the_optimal_player_wins_every_game_at_once(tmp_path):
    out = play_baseline(tmp_path, "optimal")
    for task in TASKS:
        row = out[task]
        assert (row["clemscore,none"], row["main_score,none"], row["played,none"]) == (100.0, 100.0, 1.0), task
        assert row["success,none"] == 1.0 and row["episode_failed,none"] == 0.0
    assert out["cog_games"]["clemscore,none"] == 100.0


def test_the_heuristic_players_scores_are_the_ones_their_rules_give(tmp_path):
    out = play_baseline(tmp_path, "heuristic")
    expected = {
        "cog_game_taboo": 100 / 3,  # slow winner: right at the third and last guess
        "cog_game_wordle": 20.0,  # slow winner: sixth guess, the paper's step score
        "cog_game_wordle_clue": 16.67,  # round(100 / 6, 2)
        "cog_game_wordle_critic": 16.67,
        "cog_game_image": 100.0,  # slow winner: one command per cell, drawn exactly
        # first_always: episodes 0-2 show the target first (position (i // 6) mod 3 = 0)
        "cog_game_reference": 100.0,
        # forgetful: every probe "no" -> kappa 0 -> harmonic mean with slot filling 0
        "cog_game_privateshared": 0.0,
    }
    for task, score in expected.items():
        assert out[task]["clemscore,none"] == pytest.approx(score, abs=1e-9), task
        assert out[task]["played,none"] == 1.0, task
    assert out["cog_game_privateshared"]["slot_filling_accuracy,none"] == 1.0
    assert out["cog_game_privateshared"]["kappa,none"] == 0.0
    assert out["cog_games"]["clemscore,none"] == pytest.approx(sum(expected.values()) / 7)


def test_the_rule_breaker_aborts_every_game_and_scores_zero_not_missing(tmp_path):
    out = play_baseline(tmp_path, "rule_breaker")
    for task in TASKS:
        row = out[task]
        assert (row["clemscore,none"], row["played,none"], row["aborted,none"]) == (0.0, 0.0, 1.0), task
        assert row["main_score,none"] is None  # no played episode: undefined, written as null
        assert row["lose,none"] == 0.0  # an abort is not a loss (the paper's Reference Game said it was)
    assert out["cog_games"]["clemscore,none"] == 0.0 and out["cog_games"]["played,none"] == 0.0
    # No game defines a main score: the group's is undefined too (clembench's mean of nothing), null.
    assert out["cog_games"]["main_score,none"] is None


def test_the_groups_main_score_leaves_out_games_with_no_played_episode_as_clembench_does(monkeypatch):
    """Taboo and Image played by the rule breaker (no episode played, main score undefined), the other
    five by the optimal player, in one lm-eval evaluation: the group's main_score is the mean over the five
    games that define one (100, not NaN), its played 5/7 and its clemscore the mean of the seven (500/7)."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    from lm_eval_cog.lmeval.baseline_model import BaselineLM, ScriptedPlayer
    from lm_eval_cog.lmeval.seam import run_requests

    class PerGame(ScriptedPlayer):
        def _agent(self, ep):
            self.policy = "rule_breaker" if ep.spec["paradigm"] in ("taboo", "image") else "optimal"
            return super()._agent(ep)

    class MixedLM(BaselineLM):
        def cog_episode(self, requests):
            return run_requests(requests, PerGame("optimal"), progress=False)

    monkeypatch.setenv("LM_EVAL_COG_TASKS_ONLY", "1")  # our tasks only in the index (tests/lm_eval_cli.py)
    out = lm_eval.simple_evaluate(model=MixedLM(policy="optimal"), tasks=["cog_games"], limit=2,
                                  task_manager=TaskManager())["results"]  # fmt: skip
    assert math.isnan(out["cog_game_taboo"]["main_score,none"]) and math.isnan(out["cog_game_image"]["main_score,none"])
    group = out["cog_games"]
    assert group["main_score,none"] == 100.0 and group["main_score_stderr,none"] == 0.0
    assert group["played,none"] == pytest.approx(5 / 7) and group["clemscore,none"] == pytest.approx(500 / 7)


def test_the_random_player_through_lm_eval_scores_what_it_scores_in_process(tmp_path):
    out = play_baseline(tmp_path, "random")
    for game, task in zip(GAMES, TASKS):
        paradigm = get_paradigm(game)
        params = paradigm.make_params()
        scores = [
            paradigm.metrics(chance.play(paradigm, params, episode_seed(TASK_SEED, i), "random", index=i).log, params)
            for i in range(LIMIT)
        ]
        for metric in ("clemscore", "played", "request_count"):
            assert out[task][f"{metric},none"] == pytest.approx(sum(s[metric] for s in scores) / LIMIT), (task, metric)


def test_smollm2_plays_every_game_in_self_play_and_its_transcripts_rescore(tmp_path):
    model = smollm2_dir()
    run_lm_eval(
        tmp_path,
        "--model", "hf",
        "--model_args", f"pretrained={model},dtype=float32,max_length=2048",
        "--tasks", "cog_games",
        "--limit", "1",
        "--batch_size", "8",
        "--apply_chat_template",
        "--gen_kwargs", "max_gen_toks=48",
    )  # fmt: skip
    out = results(tmp_path)
    for task in TASKS:
        row = out[task]
        assert row["episode_failed,none"] == 0.0, task
        assert 0.0 <= row["clemscore,none"] <= 100.0 and row["played,none"] in (0.0, 1.0), task
        assert row["request_count,none"] >= 1
        (samples,) = glob.glob(str(tmp_path / "out" / "*" / f"samples_{task}_2???-*.jsonl"))  # not _wordle_clue_
        (transcript,) = read_transcripts(samples)
        assert transcript["status"] == "completed"
        # Both roles of a two-role game spoke in their own conversations (unless the first aborted).
        roles = {t["role"] for t in transcript["turns"]}
        assert roles <= set(get_paradigm(task.removeprefix("cog_game_")).env_cls.roles)
        for name, value in recompute(samples).items():
            if not name.endswith(("_chance", "_chance_p95")):
                reported = row.get(f"{name},none")
                assert (reported is None and math.isnan(value)) or reported == pytest.approx(value), (task, name)
