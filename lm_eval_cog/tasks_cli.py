"""``lm-eval-cog tasks``: this package's tasks and groups, one line each, filterable by family.

Read from the task YAMLs (:mod:`lm_eval_cog.task_index`: the YAML's leading comment, else the
docstring of the probe or paradigm it runs), so the list cannot drift from what ``lm_eval --tasks``
accepts. Imports nothing of lm-eval: it answers in well under a second.
"""

from __future__ import annotations

import click

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.task_index import TaskEntry, entries, families


class UnknownFamilyError(ReportInputError):
    """``--family`` names no family (one ``error:`` line, exit status 2, like the other input errors)."""


def listing(rows: list[TaskEntry]) -> list[str]:
    """Aligned lines: name, ``group`` or ``task``, family, description."""
    width = max((len(r.name) for r in rows), default=0)
    fam = max((len(r.family) for r in rows), default=0)
    return [f"{r.name:<{width}}  {r.kind:<5}  {r.family:<{fam}}  {r.description}".rstrip() for r in rows]


def select(family: tuple[str, ...] = (), kind: str | None = None) -> list[TaskEntry]:
    """The entries of these families (all without), in the families' order, groups before their tasks."""
    known = families()
    for name in family:
        if name not in known:
            raise UnknownFamilyError(f"unknown family {name!r}; the families are: {', '.join(known)}")
    order = {name: i for i, name in enumerate(known)}
    rows = [e for e in entries().values() if (not family or e.family in family) and (kind is None or e.kind == kind)]
    return sorted(rows, key=lambda e: (order.get(e.family, len(order)), e.kind != "group", e.name))


@click.command(
    "tasks",
    help="List this package's tasks and groups (names for lm_eval --tasks), one line each: name, task or "
    "group, family, description. --family (repeatable) keeps those families: " + ", ".join(families()) + ".",
)
@click.option("--family", "family", multiple=True, metavar="FAMILY", help="Only this family (repeatable).")
@click.option("--groups", "groups_only", is_flag=True, help="Only the groups.")
def tasks_cmd(family: tuple[str, ...], groups_only: bool) -> None:
    rows = select(family, "group" if groups_only else None)
    for line in listing(rows):
        click.echo(line)
    groups = sum(r.kind == "group" for r in rows)
    click.echo(f"{len(rows) - groups} task(s), {groups} group(s). Run one: lm_eval --model ... --tasks NAME; "
               "lm-eval ls tasks lists lm-eval's own tasks too.")
