"""Standard errors of our aggregations, in closed form where one exists.

lm-eval 0.4.13 bootstraps every metric aggregated with its ``nanmean`` 100,000 times
(about 1.7 s per metric on one core) and gives a custom aggregation no standard error
at all. Our aggregations carry their own: an aggregation function ``f`` with an
attribute ``f.stderr`` (set by :func:`with_stderr`) is asked for it by lm-eval's
evaluator through the hook in :mod:`lm_eval_cog.lmeval.standard_errors`.

Closed forms, over the values that are defined (NaN left out), with their count n:

* mean of defined values: s / sqrt(n), s the sample standard deviation (ddof 1);
* difference of two condition means: sqrt(s_A^2 / n_A + s_B^2 / n_B) (independent means);
* pooled rate sum(num) / sum(den) over documents: the ratio estimator's delta-method
  error sqrt(sum((num_i - R den_i)^2) / (N (N - 1))) / mean(den);
* d' of pooled counts: Gourevitch & Galanter (1967), H(1-H) / (N_s phi(z_H)^2) +
  F(1-F) / (N_n phi(z_F)^2) under the root, at the log-linear-corrected rates;
* least-squares slope: sqrt(RSS / (n - 2) / sum((x - mean x)^2)).

Where no closed form is known (expected calibration error, span), a bootstrap over
documents of :func:`bootstrap_iters` draws (``LM_EVAL_COG_BOOTSTRAP_ITERS``, default
1,000; lm-eval's ``--bootstrap_iters 0`` still switches every standard error off).
The figures agree with lm-eval's bootstrap within its Monte-Carlo error (tests).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Any, TypeVar

import numpy as np

#: Environment variable: draws of the bootstrap used where no closed form exists.
BOOTSTRAP_ENV = "LM_EVAL_COG_BOOTSTRAP_ITERS"
DEFAULT_BOOTSTRAP_ITERS = 1000
#: The bootstrap's generator seed: the same items give the same standard error on a rerun.
BOOTSTRAP_SEED = 1234

F = TypeVar("F", bound=Callable[..., float])


def with_stderr(stderr: Callable[[Sequence[Any]], float]) -> Callable[[F], F]:
    """Decorator: attach ``stderr`` (items -> standard error) to an aggregation function."""

    def attach(aggregation: F) -> F:
        aggregation.stderr = stderr  # type: ignore[attr-defined]
        return aggregation

    return attach


def defined(values: Sequence[Any]) -> np.ndarray:
    """The finite values of ``values`` as floats (None and NaN are undefined)."""
    out = np.array([math.nan if v is None else float(v) for v in values], dtype=float)
    return out[np.isfinite(out)]


def mean_stderr(values: Sequence[Any]) -> float:
    """s / sqrt(n) over the defined values; NaN with fewer than two."""
    x = defined(values)
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) >= 2 else math.nan


@with_stderr(mean_stderr)
def nanmean(values: Sequence[Any]) -> float:
    """Mean of the defined values; NaN when none is (an episode that measured nothing)."""
    x = defined(values)
    return float(x.mean()) if len(x) else math.nan


def difference_stderr(a: Sequence[Any], b: Sequence[Any]) -> float:
    """sqrt(s_A^2/n_A + s_B^2/n_B): the error of mean(A) - mean(B) for independent samples."""
    se_a, se_b = mean_stderr(a), mean_stderr(b)
    return math.hypot(se_a, se_b)


def ratio_stderr(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """Delta-method error of sum(num)/sum(den) over N documents (the ratio estimator)."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    n = len(num)
    if n < 2 or den.sum() <= 0:
        return math.nan
    rate = num.sum() / den.sum()
    residual = num - rate * den
    return float(math.sqrt((residual**2).sum() / (n * (n - 1))) / den.mean())


def dprime_stderr(hits: int, signal: int, false_alarms: int, noise: int) -> float:
    """Gourevitch & Galanter (1967) error of d' at the log-linear-corrected rates."""
    if signal <= 0 or noise <= 0:
        return math.nan
    norm = NormalDist()
    h = (hits + 0.5) / (signal + 1)
    f = (false_alarms + 0.5) / (noise + 1)
    var_h = h * (1 - h) / (signal * norm.pdf(norm.inv_cdf(h)) ** 2)
    var_f = f * (1 - f) / (noise * norm.pdf(norm.inv_cdf(f)) ** 2)
    return math.sqrt(var_h + var_f)


def slope_stderr(x: Sequence[float], y: Sequence[float]) -> float:
    """sqrt(RSS/(n-2) / Sxx) of the least-squares slope of y on x; NaN below 3 points or one x."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(xs)
    sxx = float(((xs - xs.mean()) ** 2).sum()) if n else 0.0
    if n < 3 or sxx == 0:
        return math.nan
    b = float(((xs - xs.mean()) * (ys - ys.mean())).sum() / sxx)
    residual = ys - ys.mean() - b * (xs - xs.mean())
    return math.sqrt(float((residual**2).sum()) / (n - 2) / sxx)


def bootstrap_iters() -> int:
    """``LM_EVAL_COG_BOOTSTRAP_ITERS`` (a positive integer), else 1,000."""
    raw = os.environ.get(BOOTSTRAP_ENV, "").strip()
    if not raw:
        return DEFAULT_BOOTSTRAP_ITERS
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{BOOTSTRAP_ENV} must be a positive integer, got {raw!r}")
    return value


def bootstrap_stderr(aggregation: Callable[[list[Any]], float], items: Sequence[Any], iters: int | None = None) -> float:
    """Standard deviation of ``aggregation`` over ``iters`` resamples of the documents
    (draws whose value is undefined left out); seeded, so reruns agree."""
    items = list(items)
    if len(items) < 2:
        return math.nan
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.integers(0, len(items), size=(iters or bootstrap_iters(), len(items)))
    values = defined([aggregation([items[i] for i in row]) for row in draws])
    return float(values.std(ddof=1)) if len(values) >= 2 else math.nan


def bootstrapped(aggregation: Callable[[list[Any]], float]) -> Callable[[list[Any]], float]:
    """Attach a document bootstrap as ``aggregation.stderr`` (for aggregations without a closed form)."""
    aggregation.stderr = lambda items: bootstrap_stderr(aggregation, items)  # type: ignore[attr-defined]
    return aggregation
