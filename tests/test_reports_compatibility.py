"""Runs that cannot be compared are said to be so, on the terminal and in the files; damaged samples
are said on the terminal and fail ``--strict``; a first result reads against its chance and ideal."""

from __future__ import annotations

import json
import math
from pathlib import Path

from reports_fixtures import write_results

from lm_eval_cog.reports.cli import main
from lm_eval_cog.reports.compatibility import compatibility_warnings
from lm_eval_cog.reports.html import fmt_stderr
from lm_eval_cog.reports.runs import load_run
from lm_eval_cog.reports.summary import summary_lines


def wcst_config(**wcst: int) -> dict:
    meta = {"version": 1.0, "paradigm": "wcst", "preset": "wcst64", "strategy": "direct", "pretrained": "m"}
    if wcst:
        meta["wcst"] = wcst
    return {"task": "cog_wcst_direct", "metadata": meta}


def wcst_run(folder: Path, model_args: str, *, score: float = 50.0, n: int = 30, chance: float | None = 25.0,
             version: float = 1.0, **wcst: int) -> Path:
    row = {"score,none": score, "score_stderr,none": 1e-10, "score_chance,none": chance if chance is not None else math.nan}
    path = write_results(folder, {"cog_wcst_direct": row}, model_args=model_args, configs={"cog_wcst_direct": wcst_config(**wcst)},
                         n_samples={"cog_wcst_direct": n})  # fmt: skip
    data = json.loads(path.read_text())
    data["versions"]["cog_wcst_direct"] = version
    path.write_text(json.dumps(data))
    return folder


def test_the_same_task_with_other_parameters_or_limit_or_version_is_named(tmp_path):
    runs = [load_run(wcst_run(tmp_path / "a", "pretrained=a")),
            load_run(wcst_run(tmp_path / "b", "pretrained=b", n=2, version=2.0, trials=16))]  # fmt: skip
    warnings = compatibility_warnings(runs)
    assert len(warnings) == 3
    assert warnings[0].startswith("cog_wcst_direct: parameters differ between runs (a: ")
    assert '"wcst": {"trials": 16}' in warnings[0] and "pretrained" not in warnings[0]  # model_args are not parameters
    assert warnings[1] == "cog_wcst_direct: task version differ between runs (a: 1.0; b: 2.0), so its scores are not comparable"
    assert warnings[2].startswith("cog_wcst_direct: documents scored (--limit) differ between runs (a: 30; b: 2)")


def test_runs_of_one_protocol_and_limit_give_no_warning(tmp_path):
    runs = [load_run(wcst_run(tmp_path / m, f"pretrained={m}", score=s)) for m, s in (("a", 40.0), ("b", 60.0))]
    assert compatibility_warnings(runs) == []


def test_a_16_trial_and_a_64_trial_run_warn_on_the_terminal_and_on_the_page(tmp_path, capsys):
    a, b = wcst_run(tmp_path / "a", "pretrained=a"), wcst_run(tmp_path / "b", "pretrained=b", trials=16)
    assert main(["compare", str(a), str(b), "-o", str(tmp_path / "cmp")]) == 0
    err = capsys.readouterr().err
    assert "warning: cog_wcst_direct: parameters differ between runs" in err
    page = (tmp_path / "cmp" / "index.html").read_text()
    assert "cog_wcst_direct: parameters differ between runs" in page
    assert any("parameters differ" in w for w in json.loads((tmp_path / "cmp" / "comparison.json").read_text())["warnings"])
    assert main(["compare", str(a), str(b), "-o", str(tmp_path / "cmp2"), "--strict"]) == 1
    assert main(["leaderboard", str(a), str(b), "-o", str(tmp_path / "lb")]) == 0
    assert "parameters differ" in (tmp_path / "lb" / "index.html").read_text()
    assert any("parameters differ" in n for n in json.loads((tmp_path / "lb" / "leaderboard.json").read_text())["notes"])


def test_the_same_folder_twice_is_a_warning_not_a_silent_one_model_comparison(tmp_path, capsys):
    a = wcst_run(tmp_path / "a", "pretrained=a")
    assert main(["compare", str(a), str(a), "--label", "x", "--label", "y", "-o", str(tmp_path / "cmp")]) == 0
    assert "warning: x and y are the same results files" in capsys.readouterr().err


def test_a_truncated_samples_file_warns_on_the_terminal_and_fails_strict(tmp_path, capsys):
    folder = wcst_run(tmp_path / "a", "pretrained=a")
    (samples,) = [p for p in folder.glob("results_*.json")]
    stamp = samples.name[len("results_"):-len(".json")]
    (folder / f"samples_cog_wcst_direct_{stamp}.jsonl").write_text('{"doc_id": 0, "resps": [["{\\"paradig')
    assert main(["report", str(folder), "-o", str(tmp_path / "r1")]) == 0
    err = capsys.readouterr().err
    assert "warning: cog_wcst_direct: samples not shown" in err
    assert main(["report", str(folder), "-o", str(tmp_path / "r2"), "--strict"]) == 1
    assert "error: 1 warning(s) under --strict" in capsys.readouterr().err


def test_the_summary_sets_the_score_beside_chance_and_ideal_and_says_why_one_is_missing(tmp_path):
    shipped = summary_lines(load_run(wcst_run(tmp_path / "a", "pretrained=a", score=55.85)))
    # ideal: the simulated optimal player on WCST-64 (86.70); (55.85 - 25) / (86.70 - 25) = 50.0
    assert shipped == ["cog_wcst_direct: score 55.85 ± 0 | chance 25 | ideal player 86.7 | 50 on a 0 (chance) to 100 (ideal) scale"]
    changed = summary_lines(load_run(wcst_run(tmp_path / "b", "pretrained=b", chance=None, trials=16)))
    assert changed[0] == "cog_wcst_direct: score 50 ± 0 | chance - | ideal player -"
    assert changed[1].startswith("  cog_wcst_direct: no chance level: this run changed the task's parameters")
    assert changed[2].startswith("  cog_wcst_direct: no ideal-player value: this run changed the task's parameters")


def test_floating_point_noise_in_a_stderr_is_shown_as_zero():
    assert fmt_stderr(1.284e-10) == "0" and fmt_stderr(-3e-12) == "0"
    assert fmt_stderr(2e-9) == "2e-09" and fmt_stderr(0.01234567) == "0.01235" and fmt_stderr(None) == "—"


def test_a_damaged_samples_file_in_compare_warns_on_the_terminal(tmp_path, capsys):
    a, b = wcst_run(tmp_path / "a", "pretrained=a"), wcst_run(tmp_path / "b", "pretrained=b", score=60.0)
    (results,) = a.glob("results_*.json")
    stamp = results.name[len("results_"):-len(".json")]
    (a / f"samples_cog_wcst_direct_{stamp}.jsonl").write_text('{"doc_id": 0, "resps": [["{\\"paradig')
    assert main(["compare", str(a), str(b), "-o", str(tmp_path / "cmp")]) == 0
    assert "warning: cog_wcst_direct: " in capsys.readouterr().err and "samples not read" in (tmp_path / "cmp" / "comparison.json").read_text()
    assert main(["compare", str(a), str(b), "-o", str(tmp_path / "cmp2"), "--strict"]) == 1
