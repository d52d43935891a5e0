"""Issue 30's report-tool findings, each through the ``lm-eval-cog`` command line (``main``, the console
script's entry point) on small lm-eval output folders built as lm-eval writes them.

Defect D (several results files of one model), defect E (``report --force`` writing before it refuses
a link), results files over the size limit, honest summaries, the leaderboard's ranked tasks and the
compare table's units.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_reports_cli import STAMP, run_main, write_folder


def _restamp(folder: Path, stamp: str, date: float, edit=None) -> Path:
    """A second results file of the same model in ``folder``: written at ``stamp``/``date``, edited."""
    data = json.loads((folder / f"results_{STAMP}.json").read_text())
    data["date"] = date
    if edit is not None:
        edit(data)
    path = folder / f"results_{stamp}.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def _version_99_all_12345(data: dict) -> None:
    for task, row in data["results"].items():
        for key in row:
            if key != "alias" and "stderr" not in key:
                row[key] = 12345
        data["versions"][task] = 99


# ---------------------------------------------------------------- defect D


def test_a_model_with_three_results_files_warns_naming_them_and_the_one_shown(tmp_path, capsys):
    folder = write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0)
    older = folder / f"results_{STAMP}.json"
    middle = _restamp(folder, "2025-03-05T00-00-00.000001", 1741132800.0)
    newest = _restamp(folder, "2025-03-06T00-00-00.000001", 1741219200.0, _version_99_all_12345)
    code, _out, err = run_main(capsys, "leaderboard", tmp_path / "runs", "-o", tmp_path / "board")
    assert code == 0
    line = next(l for l in err.splitlines() if l.startswith("warning: cog_wcst_direct: 3 results files"))
    for path in (older, middle, newest):
        assert str(path) in line
    assert f"only the newest, {newest}, is shown; their task versions differ (1.0, 99)" in line
    page = (tmp_path / "board" / "index.html").read_text()
    assert "cog_wcst_direct: 3 results files" in page
    notes = json.loads((tmp_path / "board" / "leaderboard.json").read_text())["notes"]
    assert any(n.startswith("cog_wcst_direct: 3 results files") for n in notes)
    # --strict: the same warning fails the command (after writing the output).
    code, _out, err = run_main(capsys, "leaderboard", tmp_path / "runs", "-o", tmp_path / "strict", "--strict")
    assert code == 1 and "under --strict" in err


def test_seed_runs_of_one_model_merge_without_a_warning(tmp_path, capsys):
    def seed(value):
        def edit(data):
            for config in data["configs"].values():
                config.setdefault("metadata", {})["seed"] = value
        return edit

    folder = write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0)
    _restamp(folder, STAMP, 1741064767.0, seed(1))  # the first file, now with seed 1
    _restamp(folder, "2025-03-05T00-00-00.000001", 1741132800.0, seed(2))
    code, _out, err = run_main(capsys, "leaderboard", tmp_path / "runs", "-o", tmp_path / "board", "--strict")
    assert code == 0, err
    assert "results files" not in err


# ---------------------------------------------------------------- defect E


def test_report_force_refuses_a_linked_report_md_before_writing_anything(tmp_path, capsys):
    folder = write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0)
    out = tmp_path / "report"
    out.mkdir()
    victim = tmp_path / "victim.md"
    victim.write_text("keep me")
    (out / "report.md").symlink_to(victim)
    code, _out, err = run_main(capsys, "report", folder, "-o", out, "--force")
    assert code == 2
    assert err.startswith("error: refusing to write") and "report.md is a symbolic link" in err
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]  # no index.html, no figures/
    assert victim.read_text() == "keep me"


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard"])
def test_a_link_inside_an_output_subfolder_is_refused_before_writing(tmp_path, capsys, command):
    root = tmp_path / "runs"
    for policy, score, acc in (("random", 25.0, 0.25), ("optimal", 90.0, 1.0), ("heuristic", 60.0, 0.5)):
        write_folder(root / policy, policy, score, acc)
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (out / "figures" / "anything.png").symlink_to(tmp_path / "elsewhere" / "x.png")
    # leaderboard writes no figures: its own files are the ones to plant a link at.
    planted = out / "leaderboard.json"
    planted.symlink_to(tmp_path / "elsewhere" / "x.json")
    target = root / "optimal" if command == "report" else root
    code, _out, err = run_main(capsys, command, target, "-o", out, "--force")
    assert code == 2, err
    assert "is a symbolic link" in err
    assert sorted(p.name for p in out.iterdir()) == ["figures", "leaderboard.json"]
    assert not list((tmp_path / "elsewhere").iterdir())


# ---------------------------------------------------------------- results files over the size limit


def test_a_results_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    folder = write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0)
    path = folder / f"results_{STAMP}.json"
    # 3 MB of padding that is not JSON: reading it would fail differently, so the error shows it was not read.
    with open(path, "ab") as fh:
        fh.write(b"\0" * 3_000_000)
    monkeypatch.setenv("LM_EVAL_COG_MAX_RESULTS_MB", "2")
    code, out, err = run_main(capsys, "summary", folder)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"error: results file {path} is 3.0 MB, over the limit of 2 MB; if it really is an lm-eval results "
        "file, raise the limit with LM_EVAL_COG_MAX_RESULTS_MB=<MB>"
    )
    monkeypatch.setenv("LM_EVAL_COG_MAX_RESULTS_MB", "4")  # raised: now it is read (and is no JSON)
    code, _out, err = run_main(capsys, "summary", folder)
    assert code == 2 and "not an lm-eval results file" in err


def test_the_size_limit_is_checked_from_the_files_size_not_its_contents(tmp_path, monkeypatch):
    from lm_eval_cog.reports import runs

    folder = write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0)
    path = folder / f"results_{STAMP}.json"
    with open(path, "r+b") as fh:  # a sparse 300 MB file: nothing of it may be read
        fh.truncate(300 * 10**6)
    read = []
    monkeypatch.setattr(runs, "_read_text", lambda p, kind: read.append(p))
    with pytest.raises(runs.ReportInputError, match=r"is 300\.0 MB, over the limit of 100 MB"):
        runs.load_runs([folder])
    assert read == []


@pytest.mark.parametrize("bad", ["0", "-1", "lots", "nan"])
def test_a_bad_size_limit_is_one_line_naming_the_variable(tmp_path, capsys, monkeypatch, bad):
    folder = write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0)
    monkeypatch.setenv("LM_EVAL_COG_MAX_RESULTS_MB", bad)
    code, _out, err = run_main(capsys, "summary", folder)
    assert code == 2
    assert err.strip() == f"error: LM_EVAL_COG_MAX_RESULTS_MB must be a positive number of MB, got {bad!r}"


# ---------------------------------------------------------------- honest summaries


def _wcst64(folder: Path, effective: int = 4) -> Path:
    """The folder's cog_wcst_direct as the shipped WCST-64 protocol (preset wcst64: 30 episodes), of which
    ``effective`` were played."""
    path = folder / f"results_{STAMP}.json"
    data = json.loads(path.read_text())
    data["configs"]["cog_wcst_direct"]["metadata"].update(preset="wcst64", strategy="direct")
    data["n-samples"] = {t: {"original": 30, "effective": effective} for t in data["n-samples"]}
    path.write_text(json.dumps(data))
    return folder


def test_summary_says_a_limited_run_is_short_of_the_protocol_and_why_a_score_passes_100(tmp_path, capsys):
    # cog_wcst_direct: 4 of 30 episodes, score 90 against chance 25.0141 and the ideal observer's 86.7015:
    # 100 x (90 - 25.0141) / (86.701484375 - 25.0141) = 105.35 by hand.
    folder = _wcst64(write_folder(tmp_path / "runs" / "optimal", "optimal", 90.0, 1.0))
    code, out, _err = run_main(capsys, "summary", folder)
    assert code == 0
    lines = out.splitlines()
    assert "cog_wcst_direct: score 90 ± 5 | chance 25.01 | ideal player 86.7 | 105 on a 0 (chance) to 100" in out
    assert ("  cog_wcst_direct: --limit played 4 of the protocol's 30 episodes: the chance and ideal levels are "
            "expected values of the whole protocol, so a score from 4 episodes is a rough estimate of its place on the "
            "0-100 scale (it can fall below 0 or above 100)") in lines  # fmt: skip
    assert ("  cog_wcst_direct: 105 is above 100: the ideal player's level (86.7) is its mean score, not a maximum, "
            "and these episodes scored 90, above that mean") in lines  # fmt: skip


def test_summary_of_a_full_run_within_the_scale_adds_no_caveat(tmp_path, capsys):
    folder = _wcst64(write_folder(tmp_path / "runs" / "heuristic", "heuristic", 60.0, 0.5), effective=30)
    code, out, _err = run_main(capsys, "summary", folder)
    assert code == 0 and "57 on a 0 (chance) to 100 (ideal) scale" in out
    assert "--limit played" not in out and "above 100" not in out and "below 0" not in out


def test_summary_explains_a_score_below_chance(tmp_path, capsys):
    folder = _wcst64(write_folder(tmp_path / "runs" / "random", "random", 10.0, 0.25))
    code, out, _err = run_main(capsys, "summary", folder)
    # 100 x (10 - 25.0141) / (86.701484375 - 25.0141) = -24.34
    assert ("  cog_wcst_direct: -24 is below 0: the chance level (25.01) is a random player's mean score, and these "
            "episodes scored 10, below that mean") in out.splitlines()  # fmt: skip


# ---------------------------------------------------------------- one scale per ranking, a unit per column


def _drop(folder: Path, task: str) -> Path:
    path = folder / f"results_{STAMP}.json"
    data = json.loads(path.read_text())
    for table in ("results", "configs", "versions", "higher_is_better", "n-samples"):
        data.get(table, {}).pop(task, None)
    data["group_subtasks"].pop(task, None)
    path.write_text(json.dumps(data))
    (folder / f"samples_{task}_{STAMP}.jsonl").unlink(missing_ok=True)
    return folder


def test_the_leaderboard_ranks_over_the_tasks_every_model_ran_and_names_them_in_the_table(tmp_path, capsys):
    root = tmp_path / "runs"
    _wcst64(write_folder(root / "optimal", "optimal", 90.0, 1.0))
    _wcst64(write_folder(root / "heuristic", "heuristic", 60.0, 0.5))
    _drop(write_folder(root / "random", "random", 25.0, 0.25), "cog_wcst_direct")  # never played WCST
    code, _out, err = run_main(capsys, "leaderboard", root, "-o", tmp_path / "board")
    assert code == 0, err
    data = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    assert data["ranked_tasks"] == ["cog_stroop_mc"]
    # Stroop alone (chance 0.25, ideal 1): optimal 100, heuristic 33.3, random 0; WCST (105 and 56.7) is
    # shown but does not lift optimal and heuristic over a model that never played it.
    assert data["overall"] == pytest.approx({"cog_baseline(policy=optimal)": 100.0,
                                             "cog_baseline(policy=heuristic)": 100 / 3,
                                             "cog_baseline(policy=random)": 0.0})  # fmt: skip
    assert data["normalised"]["cog_baseline(policy=optimal)"]["cog_wcst_direct"] == pytest.approx(105.35, abs=0.01)
    page = (tmp_path / "board" / "index.html").read_text()
    assert "ranked over: cog_stroop_mc" in page and "cog_wcst_direct †" in page


def test_compare_gives_each_column_its_scale(tmp_path, capsys):
    root = tmp_path / "runs"
    for policy, score, acc in (("random", 25.0, 0.25), ("optimal", 90.0, 1.0), ("heuristic", 60.0, 0.5)):
        _wcst64(write_folder(root / policy, policy, score, acc))
    code, _out, err = run_main(capsys, "compare", root, "-o", tmp_path / "raw")
    assert code == 0, err
    markdown = (tmp_path / "raw" / "comparison.md").read_text()
    header = next(line for line in markdown.splitlines() if line.startswith("| model |"))
    assert header == "| model | cog_inhibition (acc, 0-1) | cog_wcst_direct (score, 0-100) | standin_knowledge (acc, 0-1) |"
    assert "cog_wcst_direct (score, 0-100)" in (tmp_path / "raw" / "index.html").read_text()
    units = json.loads((tmp_path / "raw" / "comparison.json").read_text())["units"]
    assert units == {"cog_inhibition": "acc, 0-1", "cog_wcst_direct": "score, 0-100", "standin_knowledge": "acc, 0-1"}
    code, _out, err = run_main(capsys, "compare", root, "-o", tmp_path / "norm", "--scores", "normalised")
    assert code == 0, err
    units = json.loads((tmp_path / "norm" / "comparison.json").read_text())["units"]
    assert units == {"cog_wcst_direct": "normalised, 0 chance-100 ideal"}  # the one task with both levels


# ---------------------------------------------------------------- labels


def test_one_checkpoint_at_three_max_lengths_is_three_rows_labelled_by_what_differs(tmp_path, capsys):
    root = tmp_path / "runs"
    base = "pretrained=/root/.cache/lm_eval_cog/smollm2-135m-instruct,dtype=float32"
    for name, extra in (("a", ",max_length=1024"), ("b", ",max_length=2048"), ("c", "")):
        write_folder(root / name, "unused", 60.0, 0.5, model_args=base + extra)
    code, _out, err = run_main(capsys, "leaderboard", root, "-o", tmp_path / "board")
    assert code == 0, err
    models = json.loads((tmp_path / "board" / "leaderboard.json").read_text())["models"]
    assert sorted(models) == ["smollm2-135m-instruct (max_length=1024)", "smollm2-135m-instruct (max_length=2048)",
                              "smollm2-135m-instruct (no max_length)"]  # fmt: skip
