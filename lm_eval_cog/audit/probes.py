"""The audit of a static probe straight from its pure generator (no lm-eval): what tests use.

The items are exactly what the ``_mc`` task shows (``prompt`` + "\\nAnswer:", see
``task_configs/probes/_probe_mc.yaml``), so the figures equal ``lm-eval-cog audit cog_<probe>_mc``.
"""

from __future__ import annotations

from collections.abc import Sequence

from lm_eval_cog.audit.items import AuditItem, make_item
from lm_eval_cog.audit.table import DEFAULT_THRESHOLD, Row, audit_items, flag
from lm_eval_cog.probes.core import get_probe


def probe_items(name: str, seeds: Sequence[int], n: int) -> list[AuditItem]:
    """The first ``n`` items of probe ``name`` at each seed, as the ``_mc`` form shows them, in the
    probe's audit cells (:attr:`~lm_eval_cog.paradigms.probe_base.Probe.audit_cells`)."""
    probe = get_probe(name)
    return [
        make_item(d["prompt"] + "\nAnswer:", d["choices"], d["gold"], probe.audit_cell(d["condition"]))
        for seed in seeds
        for d in probe.generate(seed, n)
    ]


def audit_probe(name: str, seeds: Sequence[int], n: int, threshold: float = DEFAULT_THRESHOLD) -> list[Row]:
    """Every blind strategy on ``n`` items per seed of probe ``name`` (task ``cog_<name>_mc``), flagged."""
    return flag(audit_items(f"cog_{name}_mc", probe_items(name, seeds, n)), threshold)
