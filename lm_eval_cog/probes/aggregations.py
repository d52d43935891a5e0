"""Aggregations of the probes' effect metrics: ``aggregation: !function`` in the task YAMLs.

lm-eval hands an aggregation the list of one metric's per-document values (the
mechanism its ``ifeval`` task uses) and reports what it returns under
``"<metric>,<filter>"``. An effect needs more than a mean, so each document
reports a small tuple and these functions combine them. Every function returns
NaN when the items hold nothing to measure (e.g. ``--limit`` left out a condition).
Each carries its standard error (:mod:`lm_eval_cog.stderr`): a closed form where one
is known, else a bootstrap over documents (ECE).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lm_eval_cog.paradigms.measures import d_prime
from lm_eval_cog.stderr import (
    bootstrapped,
    difference_stderr,
    dprime_stderr,
    mean_stderr,
    ratio_stderr,
    with_stderr,
)

#: ``side`` of a document in a :func:`difference`: counted in A, in B, or in neither.
SIDE_A, SIDE_B, NEITHER = 1, -1, 0


def difference_side(value: object, a: object, b: object) -> int:
    """The :func:`difference` side of a document whose condition is ``value``: A if it is ``a``,
    B if it is ``b``, else neither."""
    return SIDE_A if value == a else SIDE_B if value == b else NEITHER


def _difference_stderr(items: Sequence[tuple[int, float]]) -> float:
    return difference_stderr([v for side, v in items if side == SIDE_A], [v for side, v in items if side == SIDE_B])


@with_stderr(_difference_stderr)
def difference(items: Sequence[tuple[int, float]]) -> float:
    """mean(value | side A) - mean(value | side B), e.g. Stroop interference =
    acc(congruent) - acc(incongruent) from items ``(side, correct)``."""
    a = [float(v) for side, v in items if side == SIDE_A]
    b = [float(v) for side, v in items if side == SIDE_B]
    if not a or not b:
        return math.nan
    return sum(a) / len(a) - sum(b) / len(b)


@with_stderr(lambda items: mean_stderr([v for included, v in items if included]))
def conditional_mean(items: Sequence[tuple[bool, float]]) -> float:
    """mean(value | included) over items ``(included, value)``, e.g. the share of
    incongruent errors that name the word (included: an incongruent error)."""
    kept = [float(v) for included, v in items if included]
    return sum(kept) / len(kept) if kept else math.nan


@with_stderr(lambda items: ratio_stderr([n for n, _ in items], [d for _, d in items]))
def pooled_rate(items: Sequence[tuple[float, float]]) -> float:
    """sum(numerators) / sum(denominators) over items ``(numerator, denominator)``:
    a rate over the positions of every document (e.g. false alarms / no-go positions)."""
    den = sum(float(d) for _, d in items)
    return sum(float(n) for n, _ in items) / den if den else math.nan


def _pooled_counts(items: Sequence[tuple[int, int, int, int]]) -> tuple[int, ...]:
    return tuple(sum(int(item[k]) for item in items) for k in range(4))


@with_stderr(lambda items: dprime_stderr(*_pooled_counts(items)))
def pooled_dprime(items: Sequence[tuple[int, int, int, int]]) -> float:
    """d' (log-linear correction, :func:`~lm_eval_cog.paradigms.measures.d_prime`) of
    the summed counts ``(hits, signal trials, false alarms, noise trials)``."""
    return d_prime(*_pooled_counts(items))


@bootstrapped
def ece(items: Sequence[tuple[float, float]], bins: int = 10) -> float:
    """Expected calibration error (Naeini et al. 2015; Guo et al. 2017) of items
    ``(confidence, correct)``: sum over equal-width confidence bins of
    (items in bin / N) * |accuracy in bin - mean confidence in bin|. Bin b holds
    confidences in (b/bins, (b+1)/bins]; a confidence of 0 falls in the first bin.

    Over the items whose confidence is finite (N counts only those): an invalid item (a NaN
    log-likelihood, :meth:`~lm_eval_cog.paradigms.probe_base.Probe.score_mc`) has no confidence.
    Counting it in N while it falls in no bin would shrink the error towards 0, the best value.
    NaN (undefined) when no confidence is finite.
    """
    items = [(float(c), float(y)) for c, y in items if math.isfinite(float(c)) and math.isfinite(float(y))]
    if not items:
        return math.nan
    total = 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(c, y) for c, y in items if (low < c <= high) or (b == 0 and c == 0.0)]
        if inside:
            conf = sum(c for c, _ in inside) / len(inside)
            acc = sum(y for _, y in inside) / len(inside)
            total += len(inside) / len(items) * abs(acc - conf)
    return total
