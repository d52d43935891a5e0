"""The audit of a static probe straight from its pure generator (no lm-eval): what tests use.

The items are exactly what the ``_mc`` task shows (``prompt`` + "\\nAnswer:", see
``task_configs/probes/_probe_mc.yaml``), so the figures equal ``lm-eval-cog audit cog_<probe>_mc``
at the same seeds (with the same training seeds for the detectors).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.audit.detectors import DETECTORS
from lm_eval_cog.audit.items import AuditItem, make_item
from lm_eval_cog.audit.run import audit_task
from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.audit.table import DEFAULT_THRESHOLD, Row, flag
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.core import get_probe


def doc_item(doc: Mapping[str, Any], condition: str | None = None) -> AuditItem:
    """The audit item of a probe document as the ``_mc`` form shows it (its prompt + "\\nAnswer:"), in
    ``condition`` (default: the document's own). Its ``stem`` is the question without its options
    listing: what the stems test and the item-pool script count as one question."""
    cell = doc["condition"] if condition is None else condition
    return make_item(doc["prompt"] + "\nAnswer:", doc["choices"], doc["gold"], cell, doc["condition"])


def probe_items(name: str, seeds: Sequence[int], n: int) -> list[AuditItem]:
    """The ``_mc`` form's items among the first ``n`` documents of probe ``name`` at each seed, as it shows them, in the
    probe's audit cells (:attr:`~lm_eval_cog.paradigms.probe_base.Probe.audit_cells`)."""
    probe = get_probe(name)
    return [doc_item(d, probe.audit_cell(d["condition"])) for seed in seeds for d in probe.generate(seed, n)
            if probe.in_form(d, "mc")]


def audit_probe(name: str, seeds: Sequence[int], n: int, threshold: float = DEFAULT_THRESHOLD, *,
                train_seeds: Sequence[int] = (), train_items: int | None = None,
                detectors: Sequence[str] = DETECTORS) -> list[Row]:
    """Every blind strategy on ``n`` items per seed of probe ``name`` (task ``cog_<name>_mc``), flagged:
    surface strategies, the probe's declared heuristics, and (with ``train_seeds``, ``train_items``
    items each, default ``n``) the learned detectors trained on those seeds."""
    return flag(audit_probe_rows(name, seeds, n, train_seeds=train_seeds, train_items=train_items,
                                 detectors=detectors)[0], threshold)


def audit_probe_rows(name: str, seeds: Sequence[int], n: int, *, train_seeds: Sequence[int] = (),
                     train_items: int | None = None, detectors: Sequence[str] = DETECTORS
                     ) -> tuple[list[Row], list[str]]:
    """:func:`audit_probe`'s rows before flagging, and the detectors' notes."""
    if set(train_seeds) & set(seeds):
        raise ValueError(f"training seeds {sorted(set(train_seeds) & set(seeds))} are audited seeds")
    items = probe_items(name, seeds, n)
    train = probe_items(name, train_seeds, train_items or n) if train_seeds else None
    return audit_task(f"cog_{name}_mc", items, train=train, detectors=detectors if train_seeds else ())


def accuracy_by_question(docs: Sequence[Mapping[str, Any]], heuristic: Heuristic) -> dict[str, tuple[float, float]]:
    """(accuracy, chance) of ``heuristic`` per ``question`` field of ``docs`` (the towers' count / next /
    plan, which the audit pools in one cell), credited as the audit credits it (a uniform guess where
    it has no basis)."""
    got: dict[str, list[float]] = defaultdict(list)
    chance: dict[str, list[float]] = defaultdict(list)
    for doc in docs:
        item = doc_item(doc)
        scores = heuristic.scores(item.stem, item.options)
        k = len(item.options)
        got[doc["question"]].append(1.0 / k if scores is None else credit(list(scores), item.gold))
        chance[doc["question"]].append(1.0 / k)
    return {q: (sum(v) / len(v), sum(chance[q]) / len(chance[q])) for q, v in got.items()}


def effective_pool(stems: Sequence[str]) -> float:
    """How many distinct questions a generator effectively draws from, estimated from the repeats among
    ``stems`` drawn independently (e.g. one cell's items over many seeds): n² / (2 x the pairs of equal
    stems), the birthday-problem count that also holds for unequal draw probabilities (it is then the
    inverse of the chance that two draws coincide). Infinite when no two coincide.

    Two seeds of n items each are expected to share about n² / pool of them."""
    pairs = sum(k * (k - 1) // 2 for k in Counter(stems).values())
    return len(stems) ** 2 / (2 * pairs) if pairs else math.inf
