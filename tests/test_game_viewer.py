"""The report's episode viewer shows a game's turns by role, each move marked valid, violating,
rejected or invalid, and the game's outcome."""

from __future__ import annotations

import json

from test_game_runner import ScriptedBatchPlayer, good_script, start

from lm_eval_cog import runner
from lm_eval_cog.games.base import move
from lm_eval_cog.reports.episodes import episode_html, move_mark, turn_marks


def played(script) -> dict:
    (ep,) = start(1)
    runner.run_lockstep([ep], ScriptedBatchPlayer(script), progress=False)
    return json.loads(json.dumps(ep.transcript()))


def test_each_move_status_has_its_own_mark_and_words():
    assert move_mark(move("guesser", 1, "guess", "valid", "apple")).kind == "none"
    violating = move_mark(move("describer", 1, "clue", "violation", "flash light", "taboo word 'light'"))
    assert violating.kind == "wrong" and violating.label == "violating clue read as 'flash light' (taboo word 'light')"
    assert move_mark(move("guesser", 2, "guess", "rejected", "zzzzz", "not a word")).kind == "invalid"
    assert move_mark(move("guesser", 3, "guess", "invalid", None, "no guess: tag")).label == "invalid guess (no guess: tag)"


def test_a_played_game_shows_roles_asides_marks_and_outcome():
    transcript = played(good_script())
    marks = turn_marks(transcript)
    assert [m.kind for m in marks] == ["none"] * 6
    page = episode_html(transcript, {"metrics": ["main_score"], "main_score": 100.0})
    assert "Game master to caller" in page and "echoer (model)" in page
    assert page.count("(aside)") == 2  # the two probes
    assert "outcome success" in page and "6 valid, 0 violating, 0 invalid or rejected moves" in page


def test_an_aborting_reply_is_marked_invalid_and_escaped():
    script = good_script()
    script["caller"] = lambda ep: "<b>no tag</b>"
    transcript = played(script)
    page = episode_html(transcript, {"metrics": ["main_score"], "main_score": None})
    assert "outcome aborted" in page and "0 valid, 0 violating, 1 invalid or rejected moves" in page
    assert "<b>no tag</b>" not in page and "&lt;b&gt;no tag&lt;/b&gt;" in page


def test_the_game_figure_tallies_outcomes_and_each_roles_moves(tmp_path):
    from lm_eval_cog.reports.transcript_figures import game_tally, transcript_figures

    won, aborted = played(good_script()), played({**good_script(), "caller": lambda ep: "no tag"})
    assert game_tally(won["trials"]) == ("success", {("caller", "valid"): 4, ("echoer", "valid"): 2})
    assert game_tally(aborted["trials"]) == ("aborted", {("caller", "invalid"): 1})
    # An episode cut by the turn bound (no end record) counts as aborted, as the metrics count it.
    assert game_tally(won["trials"][:-1])[0] == "aborted"
    samples = [{"doc_id": i, "resps": [[json.dumps({**t, "paradigm": "taboo"})]]} for i, t in enumerate((won, aborted))]
    (figure,) = transcript_figures("cog_game_taboo", samples, tmp_path)
    assert figure.png.is_file() and "Pooled over 2 episodes" in figure.caption


def test_the_report_gives_clembenchs_leaderboard_form_beside_the_groups_clemscore():
    from lm_eval_cog.reports.report import clembench_form_note
    from lm_eval_cog.reports.task_result import TaskResult

    def group(**metrics):
        return TaskResult("cog_games", {f"{k},none": v for k, v in metrics.items()}, {}, {}, None, None, {}, True)

    # Two games: (played 1, main 50) and (played 0.5, main 100). Per-game products 50 and 50, mean 50;
    # clembench's form: mean played 0.75 x mean main 75 = 56.25.
    note = clembench_form_note(group(played=0.75, main_score=75.0, clemscore=50.0))
    assert "0.75 x 75 = 56.25" in note and "is 50." in note
    assert clembench_form_note(group(played=0.0, main_score=float("nan"), clemscore=0.0)) is None
    assert clembench_form_note(None) is None
