"""One task's audit with every family of blind strategy: surface strategies, the probe's declared
heuristics, learned artefact detectors, and any extra credits (the choices-only model).

Pure Python over :class:`~lm_eval_cog.audit.items.AuditItem` lists: the command line
(:mod:`lm_eval_cog.lmeval.audit_cli`) and the generator-side audit (:mod:`lm_eval_cog.audit.probes`)
both call :func:`audit_task`, then :func:`~lm_eval_cog.audit.table.flag` over all their rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lm_eval_cog.audit.detectors import DEFAULT_FOLDS, DETECTORS, detect
from lm_eval_cog.audit.heuristics import play_all
from lm_eval_cog.audit.items import AuditItem
from lm_eval_cog.audit.table import Row, audit_items
from lm_eval_cog.paradigms.probe_base import Heuristic


def _identity(item: AuditItem) -> tuple:
    return item.stem, tuple(sorted(item.options)), item.options[item.gold]


def seed_dependent(items: Sequence[AuditItem], train: Sequence[AuditItem]) -> bool:
    """Whether the training seeds gave other items than the audited ones (a generated task); a fixed
    dataset gives the same items whatever the seed, and is cross-fitted instead."""
    return {_identity(i) for i in train} != {_identity(i) for i in items}


def audit_task(task: str, items: Sequence[AuditItem], *, train: Sequence[AuditItem] | None = None,
               detectors: Sequence[str] = DETECTORS, folds: int = DEFAULT_FOLDS,
               heuristics: Sequence[Heuristic] | None = None,
               extra: Mapping[str, Sequence[float | None]] | None = None) -> tuple[list[Row], list[str]]:
    """Unflagged rows of every strategy on ``items`` of ``task``, and the notes on the detectors.

    ``train``: items of the same task at other seeds; the detectors train on them when they differ
    from ``items`` (a generated task), else they are cross-fitted over ``folds`` folds of ``items``.
    ``heuristics``: those to play (default: the ones declared by the probe of ``cog_<probe>_mc``).
    """
    columns: dict[str, Sequence[float | None]] = dict(extra or {})
    citations: dict[str, str] = {}
    for played in play_all(task, items, heuristics):
        columns[played.strategy] = played.credits
        citations[played.strategy] = played.citation
    notes = []
    held_out = train if train is not None and seed_dependent(items, train) else None
    for name in detectors:
        found = detect(name, items, held_out, folds)
        notes.append(f"{task}: {found.note}")
        if found.credits is not None:
            columns[found.strategy] = found.credits
    return audit_items(task, items, columns, citations=citations), notes
