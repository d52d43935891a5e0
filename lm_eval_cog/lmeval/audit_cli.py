"""``lm-eval-cog audit TASK...``: blind strategies on multiple-choice lm-eval tasks.

Prints, per task and condition, the best blind strategy and its margin over chance; ``--out`` also
writes every row as CSV and strict JSON, and the summary as Markdown.
"""

from __future__ import annotations

from pathlib import Path

import click

from lm_eval_cog.audit.detectors import DEFAULT_FOLDS, DETECTORS
from lm_eval_cog.audit.items import AuditInputError, AuditItem
from lm_eval_cog.audit.run import audit_task
from lm_eval_cog.audit.table import DEFAULT_ALPHA, DEFAULT_THRESHOLD, Row, flag, to_csv, to_json
from lm_eval_cog.lmeval.audit_source import Skipped
from lm_eval_cog.audit.table import to_markdown, to_text

CHOICES_ONLY = "choices_only_model"
#: The seed a generated task is audited at without --seed (lm_eval_cog.lmeval.probe_task.DEFAULT_SEED).
DEFAULT_TASK_SEED = 1234
#: Training seeds of the detectors when none is given: the first of these that are not audited.
#: Seeds the detectors train on by default: four not audited (two of 200 items missed artefacts that four
#: of 400 found in three probes, docs/static-probes.md).
_TRAIN_SEED_POOL = tuple(range(9001, 9009))
DEFAULT_TRAIN_SEEDS = 4


def _identity(item: AuditItem) -> tuple:
    return item.stem, tuple(sorted(item.options)), item.options[item.gold], item.condition


def collect(tasks: tuple[str, ...], seeds: tuple[int, ...], items: int | None, limit: int | None,
            include_paths: tuple[str, ...], notes: bool = True) -> dict[str, list[AuditItem]]:
    """Items per task, pooled over ``seeds`` (an item that does not change with the seed counts once).

    Documents without a usable key are left out with one note per task on stderr (counted over the
    seeds, naming the first such document); ``notes=False`` for the detectors' training items, whose
    documents the audited ones already reported.
    """
    from lm_eval_cog.lmeval.audit_source import load_tasks, task_items

    pooled: dict[str, list[AuditItem]] = {}
    seen: dict[str, set[tuple]] = {}
    skipped: dict[str, Skipped] = {}
    for seed in seeds or (None,):
        metadata = {k: v for k, v in (("seed", seed), ("items", items)) if v is not None}
        for name, task in load_tasks(tasks, include_paths, metadata).items():
            found, left_out = task_items(name, task, limit)
            if left_out is not None:
                if name in skipped:
                    skipped[name].count += left_out.count
                    skipped[name].total += left_out.total
                else:
                    skipped[name] = left_out
            for item in found:
                key = _identity(item)
                if key not in seen.setdefault(name, set()):
                    seen[name].add(key)
                    pooled.setdefault(name, []).append(item)
    for name, left_out in skipped.items() if notes else ():
        click.echo(f"note: {left_out.note(name)}", err=True)
    return pooled


def train_seeds_for(seeds: tuple[int, ...], given: tuple[int, ...]) -> tuple[int, ...]:
    """The detectors' training seeds: ``given`` (none may be audited), else four seeds not audited."""
    audited = set(seeds) or {DEFAULT_TASK_SEED}
    clash = sorted(set(given) & audited)
    if clash:
        raise click.BadParameter(
            f"{clash[0]} is an audited seed: the detectors must be tested on items of seeds they were not "
            "trained on", param_hint="'--train-seed'")
    return given or tuple(s for s in _TRAIN_SEED_POOL if s not in audited)[:DEFAULT_TRAIN_SEEDS]


@click.command(
    "audit",
    help="Shortcut audit of multiple-choice lm-eval TASKS (tasks or groups): the accuracy of blind strategies "
    "that see the prompt and the options but never solve the item (option position, length, word overlap, order "
    "and frequency of mention, similarity to the other options, the most frequent answer), the heuristics our "
    "probes declare (atmosphere, matching bias...), learned artefact detectors (a classifier of the option texts "
    "alone, one of surface features of question and option), and with --model a choices-only model. Prints the "
    "best blind strategy per task and condition and its margin over chance.",
)
@click.argument("tasks", nargs=-1, required=True)
@click.option("--seed", "seeds", type=int, multiple=True,
              help="Task seed (metadata 'seed' of generated tasks such as ours); repeat to pool several seeds.")
@click.option("--items", type=click.IntRange(min=1), default=None, help="Documents per generated task (metadata 'items').")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Audit only the first N documents of each task.")
@click.option("--include_path", "include_paths", multiple=True, help="Extra folder of task YAMLs (as lm_eval's).")
@click.option("--threshold", type=click.FloatRange(min=0, max=1), default=DEFAULT_THRESHOLD, show_default=True,
              help="Margin over chance above which a significant strategy is a shortcut.")
@click.option("--alpha", type=click.FloatRange(min=0, max=1, min_open=True), default=DEFAULT_ALPHA, show_default=True,
              help="Family-wise error rate (Holm) of calling noise a shortcut.")
@click.option("--detectors/--no-detectors", "use_detectors", default=True, show_default=True,
              help="Train the learned artefact detectors (held out: other seeds for a generated task, "
              "cross-fitted folds for a fixed dataset).")
@click.option("--detector", "detector_names", type=click.Choice(DETECTORS), multiple=True,
              help="Only this detector (repeat for several; default: all).")
@click.option("--train-seed", "train_seeds", type=int, multiple=True,
              help="Seed whose items train the detectors on a generated task (repeat; default: four seeds "
              "not audited, 9001-9004). Never an audited seed.")
@click.option("--folds", type=click.IntRange(min=2), default=DEFAULT_FOLDS, show_default=True,
              help="Cross-fitting folds of the detectors on a fixed dataset (items grouped by question).")
@click.option("--model", default=None, help="lm-eval model for the choices-only baseline (e.g. hf).")
@click.option("--model_args", default="", help="Its model arguments, as lm_eval's --model_args.")
@click.option("--batch_size", default="1", show_default=True, help="Batch size of the choices-only baseline.")
@click.option("--device", default=None, help="Device of the choices-only baseline (e.g. cpu, cuda:0).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Write audit.csv, audit.json and audit.md (every row; best per cell) into this folder.")
@click.option("--fail-on-shortcut", is_flag=True, help="Exit with status 1 when any shortcut is found.")
def audit_cmd(tasks: tuple[str, ...], seeds: tuple[int, ...], items: int | None, limit: int | None,
              include_paths: tuple[str, ...], threshold: float, alpha: float, use_detectors: bool,
              detector_names: tuple[str, ...], train_seeds: tuple[int, ...], folds: int, model: str | None,
              model_args: str, batch_size: str, device: str | None, out_dir: Path | None,
              fail_on_shortcut: bool) -> list[Row]:
    detectors = (detector_names or DETECTORS) if use_detectors else ()
    train_seeds = train_seeds_for(seeds, train_seeds) if detectors else ()
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise AuditInputError(f"output {out_dir} exists and is not a folder")
    pooled = collect(tasks, seeds, items, limit, include_paths)
    if not pooled:
        raise AuditInputError(f"no documents in {', '.join(tasks)}")
    # A fixed dataset gives the same items at the training seeds and is cross-fitted (audit.run).
    train = collect(tasks, train_seeds, items, limit, include_paths, notes=False) if detectors else {}
    lm = None
    if model:
        from lm_eval_cog.lmeval.audit_source import load_model

        lm = load_model(model, model_args, batch_size, device)
    rows: list[Row] = []
    notes: list[str] = []
    for name, task_items_ in pooled.items():
        extra = None
        if lm is not None:
            from lm_eval_cog.lmeval.audit_source import choices_only_credits

            extra = {CHOICES_ONLY: choices_only_credits(lm, model_args, task_items_)}
        task_rows, task_notes = audit_task(name, task_items_, train=train.get(name), detectors=detectors,
                                           folds=folds, extra=extra)
        rows += task_rows
        notes += task_notes
    rows = flag(rows, threshold, alpha)
    click.echo(to_text(rows), nl=False)
    for note in notes:
        if "skipped" in note:
            click.echo(f"note: {note}")
    shortcuts = [r for r in rows if r.flagged]
    click.echo(f"{len(shortcuts)} shortcut(s) in {len(pooled)} task(s): strategies above chance + {threshold:g}, "
               f"Holm-significant at {alpha:g}.")
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, text in (("audit.csv", to_csv(rows)), ("audit.json", to_json(rows, notes)),
                           ("audit.md", to_markdown(rows, notes))):
            target = out_dir / name
            if target.is_symlink():
                raise AuditInputError(f"{target} is a symbolic link: refusing to write through it")
            target.write_text(text, encoding="utf-8")
        click.echo(f"wrote {out_dir / 'audit.csv'}, audit.json, audit.md")
    if fail_on_shortcut and shortcuts:
        raise SystemExit(1)
    return rows
