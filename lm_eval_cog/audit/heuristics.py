"""Declared heuristics: the construct-irrelevant strategies a probe's literature knows, played by the audit.

A probe declares them (:attr:`~lm_eval_cog.paradigms.probe_base.Probe.heuristics`, each a
:class:`~lm_eval_cog.paradigms.probe_base.Heuristic`); a generated task ``cog_<probe>_mc`` finds its
probe by name. Each heuristic scores the options of an item from what the model is shown (the stem and
the option texts), with the contract of a surface strategy: the highest score picked, ties split
evenly, ``None`` a uniform guess. It is played only on the items of its ``conditions`` (their own
conditions, before the audit pools any into a cell), and reported as ``heuristic:<name>`` with its
citation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lm_eval_cog.audit.items import AuditItem
from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.paradigms.probe_base import Heuristic

PREFIX = "heuristic:"
#: The multiple-choice task of a probe: ``cog_<probe>_mc``.
_PROBE_TASK = re.compile(r"^cog_(?P<probe>\w+)_mc$")


@dataclass(frozen=True)
class Played:
    """A heuristic's per-item credits: ``None`` where its conditions leave the item out."""

    strategy: str
    citation: str
    credits: list[float | None]


def probe_heuristics(task: str) -> tuple[Heuristic, ...]:
    """The heuristics declared by the probe of task ``cog_<probe>_mc`` (none for any other task)."""
    from lm_eval_cog.paradigms.probe_base import REGISTRY, get_probe

    match = _PROBE_TASK.match(task)
    if match is None or match.group("probe") not in REGISTRY:
        return ()
    return tuple(get_probe(match.group("probe")).heuristics)


def play(heuristic: Heuristic, items: Sequence[AuditItem]) -> Played:
    """``heuristic`` on every item of its conditions (a uniform guess where it returns ``None``)."""
    wanted = set(heuristic.conditions)
    out: list[float | None] = []
    for item in items:
        if wanted and item.source_condition not in wanted:
            out.append(None)
            continue
        try:
            scores = heuristic.scores(item.stem, item.options)
        except Exception as error:  # a declared heuristic's bug: name it, do not hide it
            raise RuntimeError(f"heuristic {heuristic.name!r} failed on {item.stem[:80]!r}: {error}") from error
        if scores is not None and len(scores) != len(item.options):
            raise RuntimeError(f"heuristic {heuristic.name!r} gave {len(scores)} scores for {len(item.options)} options")
        out.append(1.0 / len(item.options) if scores is None else credit([float(s) for s in scores], item.gold))
    return Played(PREFIX + heuristic.name, heuristic.citation, out)


def play_all(task: str, items: Sequence[AuditItem],
             heuristics: Sequence[Heuristic] | None = None) -> list[Played]:
    """Every heuristic of ``task``'s probe (or ``heuristics``) on ``items``."""
    chosen = probe_heuristics(task) if heuristics is None else tuple(heuristics)
    return [play(h, items) for h in chosen]
