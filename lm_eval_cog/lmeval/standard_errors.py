"""lm-eval asks an aggregation for its standard error through ``stderr_for_metric``.

That function knows a fixed list: ``mean`` gets its closed form, lm-eval's ``nanmean``
(and median, f1, ...) a bootstrap of ``--bootstrap_iters`` draws (100,000 by default,
about 1.7 s per metric), every other aggregation no error at all ("N/A"). Our
aggregations carry their own error as ``aggregation.stderr`` (:mod:`lm_eval_cog.stderr`);
:func:`install` wraps lm-eval's function so that it returns that one, and changes
nothing for any other aggregation. ``--bootstrap_iters 0`` still switches errors off.

lm-eval 0.4.13 binds the function into ``lm_eval.evaluator_utils`` at import; 0.5 looks
it up in ``lm_eval.api.metrics`` at call time: both names are wrapped.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_MODULES = ("lm_eval.api.metrics", "lm_eval.evaluator_utils")


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def stderr_for_metric(metric: Callable[..., Any], bootstrap_iters: int) -> Callable[..., Any] | None:
        own = getattr(metric, "stderr", None)
        if callable(own):
            return own if bootstrap_iters > 0 else None
        return original(metric=metric, bootstrap_iters=bootstrap_iters)

    stderr_for_metric.cog_wrapped = original  # type: ignore[attr-defined]
    return stderr_for_metric


def install() -> None:
    """Wrap ``stderr_for_metric`` wherever lm-eval looks it up (idempotent)."""
    for name in _MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        original = getattr(module, "stderr_for_metric", None)
        if original is not None and not hasattr(original, "cog_wrapped"):
            module.stderr_for_metric = _wrap(original)


def uninstall() -> None:
    """Give lm-eval its own ``stderr_for_metric`` back (for side-by-side benchmarks)."""
    for name in _MODULES:
        module = importlib.import_module(name)
        wrapped = getattr(getattr(module, "stderr_for_metric", None), "cog_wrapped", None)
        if wrapped is not None:
            module.stderr_for_metric = wrapped
