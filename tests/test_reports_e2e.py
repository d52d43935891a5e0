"""The report tools on real lm-eval output folders written by the stock ``lm_eval`` command in this
test run (tests/report_runs.py: cog_baseline's random / optimal / heuristic players, SmolLM2 and a
random-weight tiny Llama, with two local multiple-choice tasks standing in for MMLU and BBH), through
the installed ``lm-eval-cog`` command."""

from __future__ import annotations

import csv
import hashlib
import html
import json
import math
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import report_runs
import tiny_llama
from scipy.stats import kendalltau
from test_e2e_cli import smollm2_dir

# An expensive module fixture: every test of this module on one xdist worker (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("reports_e2e")

#: The console script installed beside this interpreter (the package under test).
LM_EVAL_COG = shutil.which("lm-eval-cog", path=str(Path(sys.executable).parent)) or shutil.which("lm-eval-cog")
LABELS = ["random", "optimal", "heuristic", "smollm2", "tiny"]
#: ``--label`` for each input, in order.
LABEL_ARGS = [arg for label in LABELS for arg in ("--label", label)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("lm_eval_out")
    model = smollm2_dir()
    tiny = tiny_llama.build(root / "tiny_model", model, seed=1)
    return report_runs.make_runs(root, model, str(tiny))


def tool(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([LM_EVAL_COG, *map(str, args)], capture_output=True, text=True, timeout=600)


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def results(folder: Path) -> dict:
    (path,) = folder.glob("*/results_*.json")
    return json.loads(path.read_text())["results"]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        assert tag not in ("script", "link") or not (attrs.get("src") or attrs.get("href")), f"external {tag}"


def check_page(page: Path) -> _Links:
    """Every image is embedded; every local link names a non-empty file; nothing is fetched."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.images and all(src.startswith("data:image/png;base64,") for src in parser.images)
    for href in parser.links:
        assert not href.startswith(("http://", "https://", "//")), href
        target = href.split("#")[0]
        if target:
            assert (page.parent / target).stat().st_size > 0, href
    return parser


def test_report_of_a_real_model_run_is_self_contained_and_leaves_the_input_untouched(runs, tmp_path):
    before = digest(runs["smollm2"])
    proc = tool("report", runs["smollm2"], "-o", tmp_path / "report")
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "report" / "index.html"
    assert proc.stdout.strip().endswith(str(page))
    links = check_page(page)
    text = page.read_text(encoding="utf-8")
    for task in report_runs.LM_TASKS + report_runs.STANDINS:
        assert f'id="task-{task}"' in text or task in text, task
    episodes = [h for h in links.links if h.startswith("episodes/")]
    assert {f"episodes/{t}.html" for t in report_runs.LM_TASKS} <= set(episodes)
    for href in set(episodes):
        check_episode_page(tmp_path / "report" / href)
    assert (tmp_path / "report" / "report.md").stat().st_size > 0
    assert digest(runs["smollm2"]) == before


def check_episode_page(page: Path) -> None:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    for href in parser.links:
        assert not href.startswith(("http://", "https://", "//")), href


def test_leaderboard_scores_equal_the_hand_computation_from_the_results_files(runs, tmp_path):
    proc = tool("leaderboard", *(runs[label] for label in LABELS), "-o", tmp_path / "lb", *LABEL_ARGS)
    assert proc.returncode == 0, proc.stderr
    board = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert sorted(board["models"]) == sorted(LABELS)
    # Static probe: 100 * (acc - acc_chance) / (1 - acc_chance), both read from the results JSON.
    for key in LABELS:
        row = results(runs[key])["cog_stroop_mc"]
        expected = 100 * (row["acc,none"] - row["acc_chance,none"]) / (1 - row["acc_chance,none"])
        assert board["normalised"][key]["cog_stroop_mc"] == pytest.approx(expected)
    # Stand-in MMLU: chance = mean of 1/choices = 1/4 (four choices everywhere), ideal = the key's 1.
    for key in ("random", "smollm2", "tiny"):
        acc = results(runs[key])["standin_knowledge"]["acc,none"]
        assert board["normalised"][key]["standin_knowledge"] == pytest.approx(100 * (acc - 0.25) / 0.75)
    # Interactive: n-back score against its stored chance (the random player's column) and the ideal 100.
    row = results(runs["random"])["cog_nback_3back"]
    expected = 100 * (row["score,none"] - row["score_chance,none"]) / (100 - row["score_chance,none"])
    assert board["normalised"]["random"]["cog_nback_3back"] == pytest.approx(expected)
    # The language models' shortened n-back left the preset: no chance level, shown raw only.
    assert results(runs["smollm2"])["cog_nback_3back"]["score_chance,none"] is None  # null: strict JSON
    assert board["normalised"]["smollm2"].get("cog_nback_3back") is None
    assert board["raw"]["smollm2"]["cog_nback_3back"] == results(runs["smollm2"])["cog_nback_3back"]["score,none"]
    # The optimal player is at the ideal on every task whose ideal is exact (answer keys, perfect memory).
    for task in ("cog_stroop_mc", "cog_gonogo_gen", "cog_nback_3back", "cog_wason246_direct"):
        assert board["normalised"]["optimal"][task] == pytest.approx(100.0), task
    # Ability = mean of its tasks' normalised scores; overall = mean over abilities.
    for model in board["models"]:
        means = []
        for ability, tasks in board["abilities"].items():
            values = [board["normalised"][model].get(t) for t in tasks]
            values = [v for v in values if v is not None]
            if values:
                assert board["by_ability"][model][ability] == pytest.approx(sum(values) / len(values))
                means.append(sum(values) / len(values))
        assert board["overall"][model] == pytest.approx(sum(means) / len(means))
    # Reproducible from the results files alone: the same bytes again, whatever the input order.
    reverse = [arg for label in reversed(LABELS) for arg in ("--label", label)]
    again = tool("leaderboard", *(runs[label] for label in reversed(LABELS)), "-o", tmp_path / "lb2", *reverse)
    assert again.returncode == 0, again.stderr
    for name in ("leaderboard.csv", "leaderboard.json"):
        assert (tmp_path / "lb" / name).read_bytes() == (tmp_path / "lb2" / name).read_bytes()


def test_compare_gives_scipys_kendall_tau_b_on_the_scores_read_from_the_results(runs, tmp_path):
    proc = tool("compare", *(runs[label] for label in LABELS), "-o", tmp_path / "cmp", *LABEL_ARGS)
    assert proc.returncode == 0, proc.stderr
    check_page(tmp_path / "cmp" / "index.html")
    rows = {(r["task_a"], r["task_b"]): r for r in csv.DictReader((tmp_path / "cmp" / "kendall.csv").open())}
    # Independently: the headline values straight from each results file.
    headline = {"cog_stroop_mc": "acc,none", "cog_gonogo_gen": "acc,answer_line", "cog_nback_3back": "score,none",
                "standin_knowledge": "acc,none"}  # fmt: skip
    for a, b in (("cog_gonogo_gen", "cog_stroop_mc"), ("cog_nback_3back", "cog_stroop_mc"),
                 ("cog_stroop_mc", "standin_knowledge")):  # fmt: skip
        pairs = []
        for key in LABELS:
            res = results(runs[key])
            if a in res and b in res:
                pairs.append((res[a][headline[a]], res[b][headline[b]]))
        row = rows[(a, b)]
        assert int(row["n"]) == len(pairs)
        tau, p = kendalltau(*zip(*pairs), variant="b")
        if math.isnan(tau):
            assert row["tau"] == ""
        else:
            assert float(row["tau"]) == pytest.approx(tau) and float(row["p"]) == pytest.approx(p)
    warnings = json.loads((tmp_path / "cmp" / "comparison.json").read_text())["warnings"]
    assert any("only 5 models" in w for w in warnings)


def test_compare_pair_puts_games_beside_tests_on_the_chance_to_ideal_scale(runs, tmp_path):
    """Momentè et al.'s Fig. 2 view with games included: each task a point (model a, model b), every
    score on the chance (0) to ideal (100) scale, so a game's clemscore and a test's accuracy compare."""
    from lm_eval_cog.paradigms import chance

    args = [runs[label] for label in ("random", "optimal", "heuristic")]
    proc = tool("compare", *args, "-o", tmp_path / "cmp", "--label", "random", "--label", "optimal",
                "--label", "heuristic", "--pair", "optimal", "heuristic", "--scores", "normalised")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (pair,) = json.loads((tmp_path / "cmp" / "comparison.json").read_text())["pairs"]
    points = {p["task"]: p for p in pair["points"]}
    taboo_chance = chance.stored("taboo", "default").mean
    # optimal wins at once (ideal: 100); the heuristic (slow winner) at the third guess: 100/3.
    assert points["cog_game_taboo"]["a"] == pytest.approx(100.0)
    assert points["cog_game_taboo"]["b"] == pytest.approx(100 * (100 / 3 - taboo_chance) / (100 - taboo_chance))
    assert {"cog_game_reference", "cog_wcst_direct", "cog_stroop_mc"} <= set(points)
    assert (tmp_path / "cmp" / "figures").is_dir()


def test_the_leaderboard_has_a_dialogue_games_column(runs, tmp_path):
    proc = tool("leaderboard", *(runs[label] for label in ("random", "optimal")), "-o", tmp_path / "lb",
                "--label", "random", "--label", "optimal")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    board = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert set(board["abilities"]["dialogue games"]) == {"cog_game_taboo", "cog_game_reference"}
    assert board["by_ability"]["optimal"]["dialogue games"] == pytest.approx(100.0)


def strict_loads(text: str, where: str) -> object:
    """``json.loads`` that refuses NaN / Infinity, as browsers, jq and most languages' parsers do."""
    def refuse(token: str) -> object:
        raise AssertionError(f"{where}: bare {token} (not JSON)")

    return json.loads(text, parse_constant=refuse)


def test_every_file_and_stream_we_write_is_strict_json(runs, tmp_path):
    """Results, samples (and the transcripts inside them) of the scripted players, SmolLM2 and the tiny
    Llama, the report, compare and leaderboard files, and the transcripts tool's output."""
    checked = 0
    for folder in runs.values():
        for path in folder.rglob("results_*.json"):
            strict_loads(path.read_text(encoding="utf-8"), str(path))
            checked += 1
        for path in folder.rglob("samples_*.jsonl"):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
                row = strict_loads(line, f"{path}:{n + 1}")
                reply = row["resps"][0][0] if row["resps"] and row["resps"][0] else ""
                if path.name.startswith("samples_cog_") and isinstance(reply, str) and reply.startswith('{"'):
                    strict_loads(reply, f"{path}:{n + 1} transcript")
            checked += 1
    outputs = tmp_path / "tools"
    labelled = [*(runs[label] for label in LABELS), *LABEL_ARGS]
    for args in (("report", runs["smollm2"], "-o", outputs / "report"), ("compare", *labelled, "-o", outputs / "cmp"),
                 ("leaderboard", *labelled, "-o", outputs / "lb")):  # fmt: skip
        proc = tool(*args)
        assert proc.returncode == 0, proc.stderr
    written = sorted(outputs.rglob("*.json"))
    assert {p.name for p in written} >= {"comparison.json", "leaderboard.json"}, written
    for path in written:
        strict_loads(path.read_text(encoding="utf-8"), str(path))
    for path in runs["random"].rglob("samples_cog_wcst_direct_*.jsonl"):
        proc = subprocess.run([sys.executable, "-m", "lm_eval_cog.transcripts", str(path)],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        for line in proc.stdout.splitlines():
            strict_loads(line, "python -m lm_eval_cog.transcripts")
    assert checked >= 20


def test_a_tool_never_writes_into_an_lm_eval_output_folder(runs):
    before = digest(runs["random"])
    proc = tool("report", runs["random"], "-o", runs["random"] / "report")
    assert proc.returncode == 2 and proc.stderr.startswith("error:") and "Traceback" not in proc.stderr
    assert digest(runs["random"]) == before


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_the_report_renders_in_headless_chromium_with_no_network(runs, tmp_path):
    assert tool("report", runs["optimal"], "-o", tmp_path / "report").returncode == 0
    shot = tmp_path / "page.png"
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         f"--screenshot={shot}", "--window-size=1200,2000", (tmp_path / "report" / "index.html").as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    assert shot.stat().st_size > 20_000  # a rendered page with figures, not a blank one


_WIDTH_PROBE = """<script>window.addEventListener('load', () => {
  const over = [...document.querySelectorAll('.table-wrap')].map(w => w.scrollWidth - w.clientWidth);
  document.body.setAttribute('data-probe', JSON.stringify({page: document.documentElement.scrollWidth, over}));
});</script>"""


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_every_table_of_the_report_fits_a_1400_px_window(runs, tmp_path):
    """No table scrolls sideways at 1400 px (measured in Chromium; before long cells wrapped, the
    summary of a cog_flexibility run was 209 px too wide)."""
    assert tool("report", runs["heuristic"], "-o", tmp_path / "report").returncode == 0
    page = tmp_path / "report" / "probe.html"
    page.write_text((tmp_path / "report" / "index.html").read_text(encoding="utf-8").replace("</body>", _WIDTH_PROBE + "</body>"),
                    encoding="utf-8")  # fmt: skip
    dom = subprocess.run(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
         "--window-size=1400,1000", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    probe = json.loads(html.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
    assert probe["page"] <= 1400 and max(probe["over"]) == 0, probe
