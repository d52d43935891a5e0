"""The ``lm-eval-cog`` command line end to end on small lm-eval output folders built here.

Each folder holds what lm-eval writes: ``results_<stamp>.json`` and ``samples_<task>_<stamp>.jsonl``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner

from lm_eval_cog.reports.cli import cli, main

STAMP = "2025-03-04T05-06-07.000001"


# ---------------------------------------------------------------- building lm-eval output folders


def wcst_transcript(index: int, outcomes: list[str]) -> dict:
    """A WCST episode transcript as the runner logs it: colour for 3 trials, then shape."""
    trials = [
        {
            "trial": i + 1,
            "rule": "colour" if i < 3 else "shape",
            "previous_rule": None if i < 3 else "colour",
            "choice": 1,
            "invalid": "no number" if o == "invalid" else None,
            "outcome": o,
            "matched": "colour",
        }
        for i, o in enumerate(outcomes)
    ]
    turns = [
        {"user": f"Card {i + 1} <b>?</b>", "reply": "1" if o != "invalid" else "hmm"} for i, o in enumerate(outcomes)
    ]
    return {
        "task": "cog_wcst_direct",
        "paradigm": "wcst",
        "preset": "wcst64",
        "strategy": "direct",
        "overrides": {},
        "index": index,
        "seed": 100 + index,
        "params": {"trials": len(outcomes)},
        "status": "completed",
        "error": None,
        "system": "You are performing the Wisconsin Card Sorting Test.",
        "turns": turns,
        "trials": trials,
    }


def wcst_sample(index: int, outcomes: list[str]) -> dict:
    score = 100.0 * outcomes.count("correct") / len(outcomes)
    return {
        "doc_id": index,
        "doc": {"index": index, "paradigm": "wcst"},
        "target": "",
        "arguments": {"gen_args_0": {"arg_0": "prompt", "arg_1": {}}},
        "resps": [[json.dumps(wcst_transcript(index, outcomes))]],
        "filtered_resps": [json.dumps(wcst_transcript(index, outcomes))],
        "filter": "none",
        "metrics": ["score"],
        "score": score,
    }


def stroop_sample(index: int, condition: str, correct: bool) -> dict:
    gold = 2
    lls = [[[-1.0, False]], [[-1.0, False]], [[0.0, True]], [[-2.0, False]]]
    if not correct:
        lls[0], lls[2] = lls[2], lls[0]
    return {
        "doc_id": index,
        "doc": {
            "probe": "stroop",
            "index": index,
            "prompt": f"Ink colour of item {index}?",
            "choices": ["pink", "blue", "brown", "yellow"],
            "gold": gold,
            "condition": condition,
        },
        "target": str(gold),
        "arguments": {f"gen_args_{i}": {"arg_0": "Q", "arg_1": f" c{i}"} for i in range(4)},
        "resps": lls,
        "filtered_resps": [x[0] for x in lls],
        "filter": "none",
        "metrics": ["acc"],
        "acc": float(correct),
    }


def write_folder(folder: Path, policy: str, score: float, acc: float, *, model_args: object | None = None) -> Path:
    """One model's lm-eval output: cog_wcst_direct, cog_stroop_mc in the group cog_inhibition, and an
    ordinary lm-eval task (standin_knowledge) with no cognitive references."""
    folder.mkdir(parents=True, exist_ok=True)
    results = {
        "cog_wcst_direct": {
            "alias": "cog_wcst_direct",
            "acc,none": score / 100,
            "acc_stderr,none": 0.05,
            "score,none": score,
            "score_stderr,none": 5.0,
            "invalid_rate,none": 0.125,
            "invalid_rate_stderr,none": 0.01,
            "episode_failed,none": 0.0,
            "episode_failed_stderr,none": 0.0,
            "score_chance,none": 25.0141,
            "score_chance_stderr,none": 0.0,
        },
        "cog_stroop_mc": {
            "alias": "cog_stroop_mc",
            "acc,none": acc,
            "acc_stderr,none": 0.25,
            "acc_chance,none": 0.25,
            "acc_chance_stderr,none": 0.0,
            "acc_congruent,none": acc,
            "acc_congruent_stderr,none": 0.2,
            "acc_incongruent,none": acc / 2,
            "acc_incongruent_stderr,none": 0.2,
            "interference,none": acc / 2,
            "interference_stderr,none": "N/A",
        },
        "standin_knowledge": {"alias": "standin_knowledge", "acc,none": acc, "acc_stderr,none": 0.1},
    }
    data = {
        "results": results,
        "groups": {"cog_inhibition": {"alias": "cog_inhibition", "acc,none": acc, "acc_stderr,none": 0.25}},
        "group_subtasks": {"cog_inhibition": ["cog_stroop_mc"], "cog_wcst_direct": [], "standin_knowledge": []},
        "configs": {
            "cog_wcst_direct": {"task": "cog_wcst_direct", "metadata": {"paradigm": "wcst", "version": 1.0}},
            "cog_stroop_mc": {"task": "cog_stroop_mc", "metadata": {"probe": "stroop", "version": 1.0}},
            "standin_knowledge": {"task": "standin_knowledge", "metric_list": [{"metric": "acc"}]},
        },
        "versions": {"cog_wcst_direct": 1.0, "cog_stroop_mc": 1.0, "standin_knowledge": 1.0, "cog_inhibition": None},
        "higher_is_better": {
            "cog_wcst_direct": {"acc": True, "score": True, "invalid_rate": False, "episode_failed": False},
            "cog_stroop_mc": {"acc": True, "acc_congruent": True, "acc_incongruent": True, "interference": False},
            "standin_knowledge": {"acc": True},
            "cog_inhibition": {"acc": True},
        },
        "n-samples": {t: {"original": 30, "effective": 4} for t in results},
        "config": {"model": "cog_baseline", "model_args": model_args or {"policy": policy}, "limit": 4.0},
        "lm_eval_version": "0.4.13",
        "date": 1741064767.0,
    }
    path = folder / f"results_{STAMP}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    episodes = [["error", "correct", "correct", "error", "correct", "invalid"], ["correct"] * 3 + ["error"] * 3]
    lines = [wcst_sample(i, o) for i, o in enumerate(episodes)]
    (folder / f"samples_cog_wcst_direct_{STAMP}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    lines = [stroop_sample(i, c, k) for i, (c, k) in enumerate([("congruent", True), ("incongruent", False)])]
    (folder / f"samples_cog_stroop_mc_{STAMP}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


@pytest.fixture()
def lm_out(tmp_path):
    """Three models under one lm-eval output path, one sub-folder each (as lm-eval lays them out)."""
    root = tmp_path / "lm_out"
    write_folder(root / "random", "random", 25.0, 0.25)
    write_folder(root / "optimal", "optimal", 90.0, 1.0)
    write_folder(root / "heuristic", "heuristic", 60.0, 0.5)
    return root


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------- reading the pages back


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.imgs: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[dict] = []
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img":
            self.imgs.append(a.get("src") or "")
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "script":
            self.scripts.append(a)


def parse(path: Path) -> Page:
    p = Page()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def check_page(path: Path) -> Page:
    """Images embedded, no external resource, every relative link an existing non-empty file,
    every in-page anchor an id of the page it points to."""
    p = parse(path)
    assert p.imgs, f"{path} has no figure"
    for src in p.imgs:
        assert src.startswith("data:image/png;base64,"), src[:60]
    assert all("src" not in s for s in p.scripts)
    for tag, attrs in p.tags:
        for name in ("src", "href"):
            assert not (attrs.get(name) or "").startswith(("http://", "https://", "//")), (tag, attrs)
    for href in p.links:
        parts = urlsplit(href)
        assert not parts.scheme, href
        if parts.path:
            target = (path.parent / unquote(parts.path)).resolve()
            assert target.is_file() and target.stat().st_size > 0, href
            if parts.fragment and target.suffix == ".html":
                assert parts.fragment in parse(target).ids, href
        elif parts.fragment:
            assert parts.fragment in p.ids, href
    return p


def run_main(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- report


def test_report_writes_index_markdown_figures_and_episode_pages(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    code, stdout, stderr = run_main(capsys, "report", lm_out / "optimal", "-o", out)
    assert code == 0, stderr
    assert stdout.strip() == str(out / "index.html")
    for name in ("index.html", "report.md", "episodes/cog_wcst_direct.html", "episodes/cog_stroop_mc.html"):
        assert (out / name).stat().st_size > 0, name
    assert list((out / "figures").glob("*.png")) and list((out / "figures").glob("*.svg"))
    assert {p.stem for p in (out / "figures").glob("*.png")} == {p.stem for p in (out / "figures").glob("*.svg")}
    page = check_page(out / "index.html")
    assert "episodes/cog_wcst_direct.html" in page.links
    assert "#task-cog_wcst_direct" in page.links
    # The episode viewer page: B's fragment in the page shell, with a link back.
    episode = (out / "episodes" / "cog_wcst_direct.html").read_text(encoding="utf-8")
    assert episode.startswith("<!DOCTYPE html>")
    assert 'details class="episode' in episode
    assert "&lt;b&gt;?&lt;/b&gt;" in episode  # user text escaped
    assert "../index.html#task-cog_wcst_direct" in episode


def summary_rows(index: Path) -> dict[str, list[str]]:
    """First table after the Summary heading: task -> its cells' texts."""
    text = index.read_text(encoding="utf-8")
    section = text.split('id="summary"', 1)[1].split("</table>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", section, flags=re.DOTALL):
        cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.DOTALL)]
        rows[cells[0]] = cells
    return rows


def test_report_summary_lists_tasks_with_value_and_stderr_and_groups_apart(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    assert run_main(capsys, "report", lm_out / "optimal", "-o", out)[0] == 0
    rows = summary_rows(out / "index.html")
    header = rows.pop("task")
    # The group cog_inhibition shows its subtask cog_stroop_mc: it is listed apart, not in the summary.
    assert sorted(rows) == ["cog_stroop_mc", "cog_wcst_direct", "standin_knowledge"]
    cells = dict(zip(header, rows["cog_wcst_direct"]))
    assert cells["metric"] == "score,none"
    assert cells["value ± stderr"] == "90 ± 5"  # score 90.0 and its stderr 5.0 from the results file
    assert cells["invalid rate"] == "0.125"
    assert cells["episode failed"] == "0"
    assert cells["chance"] == "25.01"  # the task's own score_chance column, 25.0141, to 4 digits
    assert cells["humans and papers"] == "no reference"
    text = (out / "index.html").read_text(encoding="utf-8")
    groups = text.split('id="groups"', 1)[1].split("</table>", 1)[0]
    assert "cog_inhibition" in groups and "cog_stroop_mc" in groups


def test_report_normalises_the_headline_between_chance_and_ideal(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    assert run_main(capsys, "report", lm_out / "heuristic", "-o", out)[0] == 0
    rows = summary_rows(out / "index.html")
    cells = dict(zip(rows["task"], rows["cog_stroop_mc"]))
    # chance = the task's own acc_chance column (0.25), ideal = 1 (every item right), value 0.5:
    # normalised = 100 * (0.5 - 0.25) / (1 - 0.25) = 33.33
    assert (cells["chance"], cells["ideal"], cells["normalised"]) == ("0.25", "1", "33.33")
    assert cells["ability"] == "inhibitory control"
    # The profile: inhibitory control is the only normalised ability, so its mean and the overall are 33.33.
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| inhibitory control | 33.33 | cog_stroop_mc |" in md
    assert "overall = mean over abilities = 33.33" in md


def test_report_markdown_mirrors_the_tables_and_links_existing_pngs(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    assert run_main(capsys, "report", lm_out / "optimal", "-o", out)[0] == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| cog_wcst_direct |" in md and "90 ± 5" in md
    assert "| [episodes](episodes/cog_wcst_direct.html) |" in md
    # standin_knowledge has no chance level: a dash as in the page, not an empty cell
    assert re.search(r"\| standin_knowledge \| — \| acc,none \| 1 ± 0\.1 \| — \|", md)
    pngs = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", md)
    assert pngs
    for png in pngs:
        assert (out / png).stat().st_size > 0
    assert "[Episodes and samples of cog_wcst_direct](episodes/cog_wcst_direct.html)" in md


def test_report_is_byte_identical_when_run_twice(lm_out, tmp_path, capsys):
    assert run_main(capsys, "report", lm_out / "random", "-o", tmp_path / "a")[0] == 0
    assert run_main(capsys, "report", lm_out / "random", "-o", tmp_path / "b")[0] == 0
    a, b = digest(tmp_path / "a"), digest(tmp_path / "b")
    # the page, the Markdown, the episode pages, the PNGs and the SVGs (plotting.STYLE fixes
    # matplotlib's SVG ids, random otherwise) match byte for byte
    assert any(k.endswith(".svg") for k in a)
    assert a == b


def test_report_label_is_escaped_in_the_page(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    assert run_main(capsys, "report", lm_out / "random", "-o", out, "--label", "<i>rand</i>")[0] == 0
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "<i>rand</i>" not in text and "&lt;i&gt;rand&lt;/i&gt;" in text


def test_report_metric_override_changes_the_headline(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    assert run_main(capsys, "report", lm_out / "optimal", "-o", out, "--metric", "cog_wcst_direct=acc")[0] == 0
    rows = summary_rows(out / "index.html")
    cells = dict(zip(rows["task"], rows["cog_wcst_direct"]))
    assert cells["metric"] == "acc,none"
    assert cells["value ± stderr"] == "0.9 ± 0.05"


def test_a_corrupt_samples_line_costs_that_task_its_viewer_with_a_warning(lm_out, tmp_path, capsys):
    folder = lm_out / "random"
    samples = folder / f"samples_cog_stroop_mc_{STAMP}.jsonl"
    samples.write_text(samples.read_text() + "{not json\n")
    out = tmp_path / "rep"
    code, _, stderr = run_main(capsys, "report", folder, "-o", out)
    assert code == 0, stderr
    text = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="warnings"' in text and "cog_stroop_mc: samples not shown" in text
    assert not (out / "episodes" / "cog_stroop_mc.html").exists()
    assert (out / "episodes" / "cog_wcst_direct.html").exists()


# ---------------------------------------------------------------- compare and leaderboard


def test_compare_writes_page_markdown_and_tables(lm_out, tmp_path):
    out = tmp_path / "cmp"
    result = CliRunner().invoke(
        cli,
        [
            "compare",
            str(lm_out),
            "-o",
            str(out),
            "--correction",
            "holm",
            "--pair",
            "cog_baseline(policy=random)",
            "cog_baseline(policy=optimal)",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(out / "index.html")
    for name in ("index.html", "comparison.md", "matrix.csv", "kendall.csv", "comparison.json"):
        assert (out / name).stat().st_size > 0, name
    check_page(out / "index.html")
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "Holm" in text and "Discriminative power" in text
    md = (out / "comparison.md").read_text(encoding="utf-8")
    assert md.startswith("# Cross-model comparison") and "cog_baseline(policy=heuristic)" in md


def test_compare_labels_name_the_inputs_in_order(lm_out, tmp_path, capsys):
    out = tmp_path / "cmp"
    code, _, err = run_main(
        capsys,
        "compare",
        lm_out / "random",
        lm_out / "optimal",
        lm_out / "heuristic",
        "-o",
        out,
        "--label",
        "R",
        "--label",
        "O",
        "--label",
        "H",
        "--pair",
        "R",
        "O",
    )
    assert code == 0, err
    matrix = (out / "matrix.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in matrix[1:]] == ["R", "O", "H"]


def test_leaderboard_writes_page_and_files(lm_out, tmp_path, capsys):
    out = tmp_path / "lb"
    code, stdout, err = run_main(capsys, "leaderboard", lm_out, "-o", out)
    assert code == 0, err
    assert stdout.strip() == str(out / "index.html")
    text = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="sortable' in text and "cog_baseline(policy=optimal)" in text
    p = parse(out / "index.html")
    for href in p.links:
        if not href.startswith("#"):
            assert (out / href).stat().st_size > 0, href


def test_no_command_touches_its_inputs(lm_out, tmp_path, capsys):
    before = digest(lm_out)
    assert run_main(capsys, "report", lm_out / "random", "-o", tmp_path / "r")[0] == 0
    assert run_main(capsys, "compare", lm_out, "-o", tmp_path / "c")[0] == 0
    assert run_main(capsys, "leaderboard", lm_out, "-o", tmp_path / "l")[0] == 0
    assert digest(lm_out) == before


# ---------------------------------------------------------------- bad input: exit 2, one line, no traceback


def assert_input_error(code: int, err: str, *needles: str) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_corrupt_results_json_exits_2_naming_the_file(tmp_path, capsys):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / f"results_{STAMP}.json").write_text('{"results": {"t": {"acc,none": 0.5}', encoding="utf-8")
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "out")
    assert_input_error(code, err, f"results_{STAMP}.json")
    assert not (tmp_path / "out").exists()


def test_unrelated_json_exits_2(tmp_path, capsys):
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / f"results_{STAMP}.json").write_text(json.dumps({"accuracy": 0.5, "rows": [1, 2]}), encoding="utf-8")
    code, _, err = run_main(capsys, "leaderboard", folder, "-o", tmp_path / "out")
    assert_input_error(code, err, f"results_{STAMP}.json")


def test_a_folder_without_results_exits_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = run_main(capsys, "compare", tmp_path / "empty", "-o", tmp_path / "out")
    assert_input_error(code, err, "empty")


def test_missing_folder_exits_2(tmp_path, capsys):
    code, _, err = run_main(capsys, "report", tmp_path / "nowhere", "-o", tmp_path / "out")
    assert_input_error(code, err, "nowhere", "does not exist")


def test_output_inside_an_input_folder_is_refused_even_with_force(lm_out, capsys):
    before = digest(lm_out)
    for out, extra in ((lm_out / "random" / "report", []), (lm_out / "random", ["--force"])):
        code, _, err = run_main(capsys, "report", lm_out / "random", "-o", out, *extra)
        assert_input_error(code, err, "inside the input folder")
    code, _, err = run_main(capsys, "leaderboard", lm_out, "-o", lm_out / "lb", "--force")
    assert_input_error(code, err, "inside the input folder")
    assert digest(lm_out) == before


def test_non_empty_output_needs_force(lm_out, tmp_path, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, _, err = run_main(capsys, "report", lm_out / "random", "-o", out)
    assert_input_error(code, err, "not empty", "--force")
    assert run_main(capsys, "report", lm_out / "random", "-o", out, "--force")[0] == 0
    assert (out / "keep.txt").read_text() == "mine" and (out / "index.html").is_file()


def test_two_runs_with_one_label_exit_2_naming_both_paths(lm_out, tmp_path, capsys):
    code, _, err = run_main(
        capsys, "compare", lm_out / "random", lm_out / "optimal", "-o", tmp_path / "c", "--label", "X", "--label", "X"
    )
    assert_input_error(code, err, "'X'", str(lm_out / "random"), str(lm_out / "optimal"))


def test_label_count_must_match_the_inputs(lm_out, tmp_path, capsys):
    code, _, err = run_main(
        capsys, "leaderboard", lm_out / "random", lm_out / "optimal", "-o", tmp_path / "l", "--label", "only-one"
    )
    assert_input_error(code, err, "1 --label", "2 input")


def test_a_metric_for_an_unknown_task_exits_2(lm_out, tmp_path, capsys):
    code, _, err = run_main(capsys, "report", lm_out / "random", "-o", tmp_path / "r", "--metric", "nosuch=acc")
    assert_input_error(code, err, "nosuch")


def test_a_metric_the_task_lacks_exits_2_before_the_output_folder_is_made(lm_out, tmp_path, capsys):
    code, _, err = run_main(
        capsys, "report", lm_out / "random", "-o", tmp_path / "r", "--metric", "cog_wcst_direct=nope"
    )
    assert_input_error(code, err, "nope")
    assert not (tmp_path / "r").exists()


def test_a_malformed_metric_option_exits_2(lm_out, tmp_path, capsys):
    code, _, err = run_main(capsys, "leaderboard", lm_out, "-o", tmp_path / "r", "--metric", "cog_wcst_direct")
    assert_input_error(code, err, "TASK=METRIC")


def test_an_unknown_pair_model_exits_2(lm_out, tmp_path, capsys):
    code, _, err = run_main(
        capsys, "compare", lm_out, "-o", tmp_path / "c", "--pair", "nobody", "cog_baseline(policy=random)"
    )
    assert_input_error(code, err, "nobody")


# ---------------------------------------------------------------- usage


def test_help_says_what_each_command_reads_and_writes():
    runner = CliRunner()
    top = runner.invoke(cli, ["--help"])
    assert top.exit_code == 0
    assert all(name in top.output for name in ("report", "compare", "leaderboard", "results_*.json"))
    for command, writes in (("report", "episodes"), ("compare", "kendall.csv"), ("leaderboard", "CSV")):
        result = runner.invoke(cli, [command, "--help"])
        assert result.exit_code == 0
        text = " ".join(result.output.split())
        assert "Reads" in text and "Writes" in text and writes in text, command


def test_usage_errors_exit_2(capsys):
    assert main(["report"]) == 2  # OUTPUT_DIR missing
    assert main(["compare", "x", "-o", "y", "--correction", "bonferroni"]) == 2
    assert main(["--help"]) == 0
    capsys.readouterr()


def test_python_dash_m_runs_the_same_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "lm_eval_cog.reports", "--help"], check=False, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and "leaderboard" in result.stdout


def test_human_and_paper_references_stand_one_per_line_in_the_summary():
    from lm_eval_cog.reports.references import Reference
    from lm_eval_cog.reports.report import _ref_html, _ref_text

    refs = [Reference("paper", "GPT-4 <Table 2>", 86.52, "x"), Reference("human", "humans", 0.875, "y")]
    assert _ref_html(refs) == (
        '<ul class="refs"><li>GPT-4 &lt;Table 2&gt;: <strong>86.52</strong></li>'
        "<li>humans: <strong>0.875</strong></li></ul>"
    )
    assert _ref_text(refs) == "GPT-4 <Table 2>: 86.52; humans: 0.875"
    assert _ref_html([]) == _ref_text([]) == "no reference"


def test_compare_on_normalised_scores_puts_every_task_on_the_chance_to_ideal_scale(lm_out, tmp_path, capsys):
    out = tmp_path / "cmp"
    code, _, err = run_main(
        capsys, "compare", lm_out / "random", lm_out / "optimal", lm_out / "heuristic", "-o", out,
        "--label", "R", "--label", "O", "--label", "H", "--scores", "normalised", "--level", "tasks",
    )  # fmt: skip
    assert code == 0, err
    rows = list(csv.DictReader((out / "matrix.csv").open()))
    # cog_stroop_mc: 100 * (acc - 0.25) / (1 - 0.25) for acc 0.25, 1.0, 0.5 -> 0, 100, 33.33
    assert [float(r["cog_stroop_mc"]) for r in rows] == pytest.approx([0.0, 100.0, 100 / 3])
    # cog_wcst_direct: no ideal under this config (no preset): raw only, so it drops out
    assert "cog_wcst_direct" not in rows[0]


def test_compare_by_default_correlates_what_each_run_named_groups_as_wholes(lm_out, tmp_path, capsys):
    out = tmp_path / "cmp"
    code, _, err = run_main(capsys, "compare", lm_out / "random", lm_out / "optimal", lm_out / "heuristic", "-o", out)
    assert code == 0, err
    rows = list(csv.DictReader((out / "matrix.csv").open()))
    # cog_stroop_mc sits inside cog_inhibition: the group's own aggregate stands for it (as MMLU for its subjects)
    assert set(rows[0]) == {"model", "cog_inhibition", "cog_wcst_direct", "standin_knowledge"}
    assert [float(r["cog_inhibition"]) for r in rows] == [0.25, 1.0, 0.5]
