"""The ``paper`` preset through the stock ``lm_eval`` command: the reference players' exact scores on
the paper's instances, by ``--metadata '{"preset": "paper"}'`` and by the ``cog_games_paper`` group,
and the transcripts show the paper's instances in the schedule's order (docs/games.md, "The paper
preset"). Each run costs one lm_eval start (~7 s CPU) and scripted moves only."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest
from test_e2e_cli import run_lm_eval

from lm_eval_cog.transcripts import read_transcripts

GAMES = ["taboo", "wordle", "wordle_clue", "wordle_critic", "reference", "image", "privateshared"]
PAPER_TASKS = [f"cog_game_{g}_paper" for g in GAMES]


def results(tmp: Path) -> dict:
    (path,) = glob.glob(str(tmp / "out" / "*" / "results_*.json"))
    return json.loads(Path(path).read_text())["results"]


def transcripts(tmp: Path, task: str) -> list[dict]:
    (path,) = glob.glob(str(tmp / "out" / "*" / f"samples_{task}_*.jsonl"))
    return sorted(read_transcripts(Path(path)), key=lambda t: t["index"])


def end_of(transcript: dict) -> dict:
    return [r for r in transcript["trials"] if r.get("type") == "end"][-1]


def test_the_metadata_preset_plays_the_papers_instances_and_the_optimal_player_wins_them_all(tmp_path):
    """``cog_games`` with ``--metadata '{"preset": "paper"}'``: episodes 0-2 of each game are the
    schedule's first three paper instances, and the optimal player wins each at once (100)."""
    run_lm_eval(tmp_path, "--model", "cog_baseline", "--model_args", "policy=optimal", "--tasks", "cog_games",
                "--metadata", '{"preset": "paper"}', "--limit", "3")  # fmt: skip
    out = results(tmp_path)
    for game in GAMES:
        row = out[f"cog_game_{game}"]
        assert (row["clemscore,none"], row["played,none"], row["request_count,none"] > 0) == (100.0, 1.0, True), game
    assert out["cog_games"]["clemscore,none"] == 100.0
    # The paper's instances, interleaved by experiment (Taboo high, medium, low; Wordle high, medium, medium).
    taboo = [end_of(t) for t in transcripts(tmp_path, "cog_game_taboo")]
    assert [(e["experiment"], e["target"]) for e in taboo] == [("high", "responsibility"), ("medium", "assure"),
                                                                ("low", "autograph")]  # fmt: skip
    assert taboo[0]["related"] == ["blame", "obligation", "reliability"]
    wordle = [t["turns"][0]["user"] for t in transcripts(tmp_path, "cog_game_wordle_clue")]
    assert [m.rsplit("clue:", 1)[1].strip() for m in wordle] == ['tv\'s"___dad"', "scrub a tub, maybe",
                                                                 "court center, usually"]  # fmt: skip
    shared = [end_of(t) for t in transcripts(tmp_path, "cog_game_privateshared")]
    assert [e["experiment"] for e in shared] == ["travel-booking", "job-interview", "restaurant"]
    assert shared[0]["slots"]["from"] == "London" and shared[0]["request_order"][0] == "when"
    image = [end_of(t) for t in transcripts(tmp_path, "cog_game_image")]
    assert image[1]["target"] == "▢ B ▢ B ▢\n▢ ▢ B ▢ ▢\nB ▢ B ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ B"


def test_the_paper_group_scores_the_heuristic_players_as_their_rules_give_on_the_papers_instances(tmp_path):
    """``cog_games_paper``, 12 episodes a game. By hand: Taboo's slow winner wins at the third guess
    (100/3); Wordle's at the sixth (20; with clue or critic round(100/6, 2) = 16.67); Image's slow
    winner draws every grid exactly (100); Private/Shared's forgetful answerer says "no" to every
    probe (kappa 0: 0). Reference's first_always answers "first": episodes 0-5 play each category's
    instance 0 (target first: won), episodes 6-11 instance 1 (target second: lost), so 50."""
    run_lm_eval(tmp_path, "--model", "cog_baseline", "--model_args", "policy=heuristic", "--tasks", "cog_games_paper",
                "--limit", "12")  # fmt: skip
    out = results(tmp_path)
    expected = {"taboo": 100 / 3, "wordle": 20.0, "wordle_clue": 16.67, "wordle_critic": 16.67, "reference": 50.0,
                "image": 100.0, "privateshared": 0.0}  # fmt: skip
    for game, score in expected.items():
        row = out[f"cog_game_{game}_paper"]
        assert row["clemscore,none"] == pytest.approx(score, abs=1e-9), game
        assert row["played,none"] == 1.0, game
    assert out["cog_game_privateshared_paper"]["slot_filling_accuracy,none"] == 1.0
    assert out["cog_games_paper"]["clemscore,none"] == pytest.approx(sum(expected.values()) / 7)
    reference = [end_of(t) for t in transcripts(tmp_path, "cog_game_reference_paper")]
    assert [e["target_position"] for e in reference] == [0] * 6 + [1] * 6
    assert [e["experiment"] for e in reference[:6]] == ["line_grids_rows", "line_grids_columns", "diagonal_grids",
                                                        "letter_grids", "shape_grids", "random_grids"]  # fmt: skip


def test_the_paper_group_aborts_every_rule_breakers_game_and_scores_it_zero(tmp_path):
    run_lm_eval(tmp_path, "--model", "cog_baseline", "--model_args", "policy=rule_breaker", "--tasks",
                "cog_games_paper", "--limit", "2")  # fmt: skip
    out = results(tmp_path)
    for task in PAPER_TASKS:
        row = out[task]
        assert (row["clemscore,none"], row["played,none"], row["aborted,none"]) == (0.0, 0.0, 1.0), task
        assert row["main_score,none"] is None
    assert out["cog_games_paper"]["clemscore,none"] == 0.0
