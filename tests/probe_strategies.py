"""Plays a strategy that sees only what the ``_mc`` form shows (the stem and the option texts) on a
probe's items, per condition: the tests of the probes' declared heuristics and of the strategies of
issue 28's table use it.

The items are cut as the shortcut audit cuts them (:func:`lm_eval_cog.audit.probes.doc_item`), and a
strategy's scores are credited as the audit credits them (the best-scored option, ties split evenly;
``None``: a uniform guess), so a figure here is the figure the audit would report for that strategy.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from lm_eval_cog.audit.probes import doc_item
from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.core import get_probe

Scores = Callable[[str, Sequence[str]], Sequence[float] | None]


def accuracy_by_condition(name: str, scores: Scores | Heuristic, seeds: int | Sequence[int], n: int) -> dict[str, float]:
    """Expected accuracy of ``scores`` on the first ``n`` items of probe ``name`` at each of ``seeds``
    (pooled), per condition (and ``"all"``, pooled)."""
    play = scores.scores if isinstance(scores, Heuristic) else scores
    credits: dict[str, list[float]] = defaultdict(list)
    seeds = [seeds] if isinstance(seeds, int) else list(seeds)
    for doc in (d for seed in seeds for d in get_probe(name).generate(seed, n)):
        item = doc_item(doc)
        got = play(item.stem, item.options)
        value = 1.0 / len(item.options) if got is None else credit(list(got), item.gold)
        credits[doc["condition"]].append(value)
        credits["all"].append(value)
    return {condition: sum(v) / len(v) for condition, v in credits.items()}


def chance_by_condition(name: str, seeds: int | Sequence[int], n: int) -> dict[str, float]:
    """Chance accuracy (1 / number of options, averaged) per condition and ``"all"``."""
    return accuracy_by_condition(name, lambda stem, options: None, seeds, n)
