"""``lm-eval-cog``: reports, comparisons and leaderboards from lm-eval's output folders.

Reads only what lm-eval wrote (``results_*.json`` and ``samples_*.jsonl``, searched recursively under each
OUTPUT_DIR); writes a new folder with a self-contained ``index.html`` and the files beside it. The input
folders are never written to.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lm_eval_cog.lmeval.audit_cli import audit_cmd
from lm_eval_cog.tasks_cli import tasks_cmd
from lm_eval_cog.audit.items import AuditInputError
from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.html import check_output_dir, check_outputs, page, warnings_box, write_new

if TYPE_CHECKING:
    from lm_eval_cog.reports.runs import Run

# The data, figure and comparison modules are imported inside the commands: `--help` and usage
# errors then answer without loading matplotlib and scipy.

CORRECTIONS = {"none": None, "holm": "holm", "bh": "bh"}

_METRIC_HELP = (
    "Headline metric of a task, TASK=METRIC or TASK=METRIC,FILTER (repeatable), "
    "e.g. cog_wcst_direct=score or mmlu=acc,none. Default: the task's own headline metric."
)


def _prepare_output(out_dir: Path, inputs: Sequence[Path], force: bool) -> Path:
    """Create the output folder; refuse one inside an input folder, or a non-empty one without --force."""
    check_output_dir(out_dir, inputs)
    if out_dir.exists() and not out_dir.is_dir():
        raise ReportInputError(f"output {out_dir} exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise ReportInputError(f"output folder {out_dir} is not empty: choose a new folder or pass --force")
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


def _check_inputs(paths: Sequence[Path]) -> None:
    for p in paths:
        if not p.exists():
            raise ReportInputError(f"input {p} does not exist")


def _load(paths: Sequence[Path], labels: Sequence[str]) -> list[Run]:
    """One Run per model: labels, when given, name the inputs in order (each input then holds one model)."""
    from lm_eval_cog.reports.runs import load_run, load_runs

    _check_inputs(paths)
    if labels:
        if len(labels) != len(paths):
            raise ReportInputError(
                f"{len(labels)} --label value(s) for {len(paths)} input(s): give one label per OUTPUT_DIR, in order"
            )
        runs = [load_run(p, label) for p, label in zip(paths, labels)]
    else:
        runs = load_runs(list(paths))
    seen: dict[str, Run] = {}
    for run in runs:
        if run.label in seen:
            other = seen[run.label]
            raise ReportInputError(
                f"two runs are both labelled {run.label!r}: "
                f"{', '.join(map(str, other.results_paths))} and {', '.join(map(str, run.results_paths))}; "
                "name them with --label (one per OUTPUT_DIR)"
            )
        seen[run.label] = run
    return runs


def _overrides(items: Sequence[str]) -> dict[str, str]:
    from lm_eval_cog.reports.selection import parse_metric_overrides

    return parse_metric_overrides(list(items))


class StrictWarnings(Exception):
    """``--strict`` and at least one warning: exit status 1 (the output is written all the same)."""


def _warn(runs: Sequence[Run], extra: Sequence[str] = (), strict: bool = False) -> list[str]:
    """The readers' warnings (e.g. a file linked from outside its input folder) and ``extra`` (corrupt
    samples, incompatible runs), echoed on stderr; under ``strict`` any of them fails the command.

    Called once the output is written: a run that fails ends with its one ``error:`` line only.
    """
    warnings = list(dict.fromkeys([*(w for run in runs for w in run.warnings), *extra]))
    for warning in warnings:
        click.echo(f"warning: {_one_line(warning)}", err=True)
    if strict and warnings:
        raise StrictWarnings(f"{len(warnings)} warning(s) under --strict")
    return warnings


def _check_overrides(overrides: dict[str, str], runs: Sequence[Run]) -> None:
    """A --metric for a task no run has is a typo: say so rather than ignore it."""
    from lm_eval_cog.reports.selection import validate_overrides

    validate_overrides(overrides, {t for run in runs for t in run.tasks})


_OUT = click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write (created; must not be inside an input folder).",
)
_LABELS = click.option(
    "--label", "labels", multiple=True, help="Model label, repeatable: one per OUTPUT_DIR, in order."
)
_FORCE = click.option("--force", is_flag=True, help="Write into an existing non-empty output folder.")
_METRIC = click.option("--metric", "metrics", multiple=True, metavar="TASK=METRIC[,FILTER]", help=_METRIC_HELP)
_STRICT = click.option(
    "--strict", is_flag=True,
    help="Exit with status 1 when there is any warning (corrupt or truncated samples, incompatible runs).",
)


@click.group(
    help=(
        "Reports from lm-eval output folders. Every command reads the results_*.json (and, for report, the "
        "samples_*.jsonl) that lm-eval wrote under each OUTPUT_DIR, searched recursively, and writes a new folder "
        "-o OUT with a self-contained index.html (no network needed). Input folders are never modified. "
        "replay reads published clembench transcripts instead."
    )
)
def cli() -> None:
    """The ``lm-eval-cog`` command group."""


@cli.command(
    "report",
    help=(
        "One model's report. Reads results_*.json and samples_*.jsonl under OUTPUT_DIR (one model). Writes "
        "OUT/index.html (summary, references, cognitive profile, per-task metrics, reliability and figures), "
        "OUT/report.md, OUT/figures/*.png|svg and OUT/episodes/<task>.html (episode viewers)."
    ),
)
@click.argument("output_dir", type=click.Path(path_type=Path))
@_OUT
@click.option("--label", default=None, help="Display name of the model (default: from the model arguments).")
@_METRIC
@_FORCE
@_STRICT
def report_cmd(
    output_dir: Path, out_dir: Path, label: str | None, metrics: tuple[str, ...], force: bool, strict: bool
) -> Path:
    from lm_eval_cog.reports.report import write_report
    from lm_eval_cog.reports.runs import load_run
    from lm_eval_cog.reports.selection import headline_metric

    overrides = _overrides(metrics)
    _check_inputs([output_dir])
    run = load_run(output_dir, label)
    _check_overrides(overrides, [run])
    for result in run.tasks.values():  # a --metric the task lacks fails here, before the output folder exists
        headline_metric(result, overrides)
    _prepare_output(out_dir, [output_dir], force)
    check_outputs(out_dir, ["index.html", "report.md"], ["figures", "episodes"],
                  [*run.results_paths, *run.samples.values()])  # fmt: skip
    page_warnings: list[str] = []
    index = write_report(run, out_dir, overrides, page_warnings)  # the page shows the warnings too
    click.echo(str(index))
    _warn([run], page_warnings, strict)
    return index


@cli.command(
    "compare",
    help=(
        "Cross-model comparison (Kendall tau-b between tasks, discriminative power of model pairs, split-half "
        "and seed-to-seed reliability per task). Reads results_*.json (and samples_*.jsonl, for reliability) "
        "under every OUTPUT_DIR. Writes OUT/index.html, OUT/comparison.md, OUT/matrix.csv, "
        "OUT/kendall.csv, OUT/comparison.json and OUT/figures/."
    ),
)
@click.argument("output_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@_OUT
@_LABELS
@_METRIC
@click.option(
    "--correction",
    type=click.Choice(sorted(CORRECTIONS)),
    default="none",
    show_default=True,
    help="Correction of the tau p-values for multiple comparisons (Holm or Benjamini-Hochberg).",
)
@click.option(
    "--pair",
    "pairs",
    nargs=2,
    multiple=True,
    metavar="MODEL_A MODEL_B",
    help="Two model labels whose discriminative power to plot (repeatable).",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option(
    "--scores",
    type=click.Choice(["raw", "normalised"]),
    default="raw",
    show_default=True,
    help="raw: each task's headline value (as Momentè et al.); normalised: 0 = chance, 100 = ideal player, "
    "one scale for every task (tasks without chance or ideal drop out).",
)
@click.option(
    "--level",
    type=click.Choice(["top", "tasks"]),
    default="top",
    show_default=True,
    help="top: the tasks and groups each run named (mmlu, bbh, cog_flexibility as wholes); "
    "tasks: every leaf task (groups expanded).",
)
@_FORCE
@_STRICT
def compare_cmd(
    output_dirs: tuple[Path, ...],
    out_dir: Path,
    labels: tuple[str, ...],
    metrics: tuple[str, ...],
    correction: str,
    pairs: tuple[tuple[str, str], ...],
    alpha: float,
    scores: str,
    level: str,
    force: bool,
    strict: bool,
) -> Path:
    from lm_eval_cog.reports.compare import compare, write_comparison
    from lm_eval_cog.reports.compatibility import compatibility_warnings
    from lm_eval_cog.reports.leaderboard import comparison_inputs, comparison_units
    from lm_eval_cog.reports.report import runs_html, runs_markdown
    from lm_eval_cog.reports.task_reliability import compare_reliability

    overrides = _overrides(metrics)
    runs = _load(output_dirs, labels)
    _check_overrides(overrides, runs)
    matrix, notes = comparison_inputs(runs, overrides, level=level, scores=scores)  # models in the order given
    comparison = compare(matrix, correction=CORRECTIONS[correction], pairs=list(pairs), alpha=alpha)
    comparison.units = comparison_units(runs, overrides, level=level, scores=scores)
    # Reliability needs the per-sample values, which the score matrix does not carry: from the runs.
    comparison.reliability = compare_reliability(runs, comparison.tasks, comparison.matrix, overrides)
    # A damaged samples file costs that task's reliability only: said in the files and on the terminal.
    damaged = [f"{t.task}: {n}" for t in comparison.reliability for n in t.notes if "samples not read" in n]
    incompatible = [*compatibility_warnings(runs), *damaged]
    comparison.warnings[:0] = [*(w for run in runs for w in run.warnings), *incompatible, *notes]
    _prepare_output(out_dir, output_dirs, force)
    check_outputs(out_dir, ["index.html", "comparison.md", "matrix.csv", "kendall.csv", "comparison.json"],
                  ["figures"], output_dirs)  # fmt: skip
    fragment, markdown, _figures = write_comparison(comparison, out_dir)
    links = (
        '<p class="note">Files: <a href="matrix.csv">matrix.csv</a>, <a href="kendall.csv">kendall.csv</a>, '
        '<a href="comparison.json">comparison.json</a>, <a href="comparison.md">comparison.md</a>.</p>'
    )
    body = "<h2>Models</h2>\n" + runs_html(runs) + "\n" + links + "\n" + fragment
    index = out_dir / "index.html"
    write_new(index, page(f"lm-eval-cog compare: {len(runs)} models", body), output_dirs, out_dir)
    write_new(
        out_dir / "comparison.md",
        "# Cross-model comparison\n\n" + runs_markdown(runs) + "\n" + markdown,
        output_dirs,
        out_dir,
    )
    click.echo(str(index))
    _warn(runs, incompatible, strict)
    return index


@cli.command(
    "leaderboard",
    help=(
        "Leaderboard: each model's headline scores normalised from chance (0) to ideal (100), averaged per "
        "cognitive ability. Reads results_*.json under every OUTPUT_DIR. Writes OUT/index.html and the tables "
        "as CSV and JSON."
    ),
)
@click.argument("output_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@_OUT
@_LABELS
@_METRIC
@_FORCE
@_STRICT
def leaderboard_cmd(
    output_dirs: tuple[Path, ...], out_dir: Path, labels: tuple[str, ...], metrics: tuple[str, ...], force: bool,
    strict: bool,
) -> Path:
    from lm_eval_cog.reports.compatibility import compatibility_warnings
    from lm_eval_cog.reports.leaderboard import build_leaderboard, leaderboard_html, write_leaderboard
    from lm_eval_cog.reports.report import runs_html

    overrides = _overrides(metrics)
    runs = _load(output_dirs, labels)
    _check_overrides(overrides, runs)
    lb = build_leaderboard(runs, overrides)
    incompatible = compatibility_warnings(runs)
    # Into leaderboard.json beside the other notes; the readers' warnings (several results files of one
    # model, links) sorted, so that the file is the same whatever the input order.
    lb.notes[:0] = [*sorted({w for run in runs for w in run.warnings}), *incompatible]
    _prepare_output(out_dir, output_dirs, force)
    check_outputs(out_dir, ["index.html", "leaderboard.csv", "leaderboard.json", "leaderboard.html"], (),
                  [*lb.inputs, *output_dirs])  # fmt: skip
    files = write_leaderboard(lb, out_dir, output_dirs)
    # The data files; the HTML fragment file is what index.html shows.
    links = ", ".join(
        f'<a href="{html.escape(Path(p).relative_to(out_dir).as_posix())}">{html.escape(Path(p).name)}</a>'
        for kind, p in sorted(files.items())
        if kind != "html" and Path(p).suffix != ".html"
    )
    body = warnings_box([*(w for run in runs for w in run.warnings), *incompatible])
    body += "<h2>Models</h2>\n" + runs_html(runs) + "\n<h2>Ranking</h2>\n" + leaderboard_html(lb)
    if links:
        body += f'\n<p class="note">Files: {links}.</p>'
    index = out_dir / "index.html"
    write_new(index, page("Leaderboard", body), output_dirs, out_dir)
    click.echo(str(index))
    _warn(runs, incompatible, strict)
    return index


@cli.command(
    "summary",
    help=(
        "One model's scores on the terminal: each task's headline value ± stderr beside its chance level and "
        "its ideal player's level, the 0 (chance) to 100 (ideal) score, and why a level is missing. Reads "
        "results_*.json under OUTPUT_DIR; writes nothing."
    ),
)
@click.argument("output_dir", type=click.Path(path_type=Path))
@click.option("--label", default=None, help="Display name of the model (default: from the model arguments).")
def summary_cmd(output_dir: Path, label: str | None) -> None:
    from lm_eval_cog.reports.runs import load_run
    from lm_eval_cog.reports.summary import summary_lines

    _check_inputs([output_dir])
    run = load_run(output_dir, label)
    click.echo(f"model: {run.label}")
    for line in summary_lines(run):
        click.echo(line)
    _warn([run])


@cli.command(
    "replay",
    help=(
        "Play published clembench transcripts through our game masters, each model reply given to the role "
        "that made it, and set each episode's outcome and main score beside the run's own. Reads every "
        "<model pair>/<game>/<experiment>/episode_<n>/interactions.json under PATH (clembench-runs' layout, at "
        "any depth) and the scores.json or scores_reference.json beside it; the reference is scores.json, else "
        "the outcome the run's game master logged, else scores_reference.json. Prints a table per model and "
        "game. Writes, with --out DIR, replay.csv and replay.json (one row per episode). Verdicts: identical, "
        "documented:<difference> (listed in docs/games.md), unexplained, error (not replayed, with the reason)."
    ),
)
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Write replay.csv and replay.json (strict JSON) to this folder.")
@click.option("--preset", default="default", show_default=True,
              help="The games' preset; with 'paper' the reference is the paper scorer's (scores_reference.json).")
@click.option("--strict", is_flag=True, help="Exit with status 1 on any unexplained verdict or episode not replayed.")
def replay_cmd(path: Path, out_dir: Path | None, preset: str, strict: bool) -> None:
    from lm_eval_cog.replay.clembench import episodes
    from lm_eval_cog.replay.play import replay
    from lm_eval_cog.replay.report import rows, table, write

    from lm_eval_cog.paradigms import get_paradigm
    from lm_eval_cog.paradigms.base import unknown_name_message
    from lm_eval_cog.replay.instances import GAMES

    if not path.is_dir():
        raise ReportInputError(f"replay: PATH {path} is not a folder")
    for game in GAMES:  # before any episode is read: one line, not one error per episode
        presets = get_paradigm(game).presets
        if preset not in presets:
            raise ReportInputError(f"replay: --preset: {unknown_name_message(f'{game} preset', preset, presets)}")
    items = list(episodes(path))
    if not items:
        raise ReportInputError(f"replay: no episode_<n>/interactions.json under {path}")
    data = rows(replay(items, preset=preset), path)
    for line in table(data):
        click.echo(line)
    if out_dir is not None:
        for written in write(out_dir, data):
            click.echo(f"wrote {written}")
    bad = [r for r in data if r["verdict"] in ("unexplained", "error")]
    if strict and bad:
        raise StrictWarnings(f"{len(bad)} episode(s) unexplained or not replayed under --strict")


# The shortcut audit is its own package; it joins the one command line here, as does the task list.
cli.add_command(audit_cmd)
cli.add_command(tasks_cmd)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (2 for unreadable input, with one 'error:' line)."""
    try:
        cli.main(args=argv, prog_name="lm-eval-cog", standalone_mode=False)
    except (ReportInputError, AuditInputError) as error:
        click.echo(f"error: {_one_line(error)}", err=True)
        return 2
    except StrictWarnings as error:
        click.echo(f"error: {error}", err=True)
        return 1
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 1
    except click.ClickException as error:  # usage errors: click's own message, exit code 2
        error.show()
        return error.exit_code
    except OSError as error:  # e.g. no permission to write the output folder
        click.echo(f"error: {_one_line(error)}", err=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
