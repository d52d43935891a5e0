"""Standard errors: lm-eval's bootstrap vs our closed forms, side by side in one process.

    python scripts/bench_stderr.py                      # every interactive task + cog_static, --limit 2
    python scripts/bench_stderr.py --limit 4 --tasks cog_reflection_bench,cog_wcst

The same battery is evaluated twice with the reference player (``--model cog_baseline``,
policy random: no language model, so the time left is the harness's own) after a warm-up
of both modes on a small task:

* **bootstrap**: as before: lm-eval's own ``stderr_for_metric``, our episode means handed
  to it as lm-eval's ``nanmean`` (bootstrapped ``--bootstrap_iters`` = 100,000 times), our
  custom aggregations without an error ("N/A");
* **analytic**: with :mod:`lm_eval_cog.lmeval.standard_errors` installed (closed forms; a
  1,000-draw bootstrap for ECE and span).

Printed: total wall time and the time spent computing standard errors in each mode, and,
per metric kind, the largest difference between the two modes' standard errors (for the
custom aggregations, which lm-eval leaves without one, against our own document bootstrap
of 20,000 draws). Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import lm_eval
import lm_eval.api.metrics as lm_metrics
import lm_eval.evaluator_utils as evaluator_utils

from chance_levels import task_entries  # scripts/ is on sys.path when a script runs

from lm_eval_cog import stderr
from lm_eval_cog.lmeval import standard_errors

REFERENCE_ITERS = 20_000


def interactive_tasks() -> list[str]:
    """Every episode task we ship (paradigms, metacognition over the probes, oddball): the chance script's scan."""
    return sorted(task_entries()[0])


class StderrClock:
    """Times every standard-error function lm-eval obtains."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, analytic: bool) -> None:
        lookup = evaluator_utils.stderr_for_metric

        def timed_lookup(metric: Any, bootstrap_iters: int) -> Any:
            if not analytic and metric is stderr.nanmean:
                metric = lm_metrics.nanmean  # what our tasks aggregated with before: lm-eval's own
            fn = lookup(metric=metric, bootstrap_iters=bootstrap_iters)
            if fn is None:
                return None

            def timed(items: Any) -> Any:
                start = time.perf_counter()
                try:
                    return fn(items)
                finally:
                    self.seconds += time.perf_counter() - start

            return timed

        evaluator_utils.stderr_for_metric = timed_lookup
        self._restore = lookup

    def unwrap(self) -> None:
        evaluator_utils.stderr_for_metric = self._restore


def evaluate(tasks: list[str], limit: int, analytic: bool) -> tuple[float, float, dict[str, Any]]:
    (standard_errors.install if analytic else standard_errors.uninstall)()
    clock = StderrClock()
    clock.wrap(analytic)
    start = time.perf_counter()
    try:
        out = lm_eval.simple_evaluate(
            model="cog_baseline", model_args="policy=random", tasks=tasks, limit=limit, log_samples=True
        )
    finally:
        clock.unwrap()
    return time.perf_counter() - start, clock.seconds, out


def probe_aggregation(task_name: str, metric: str) -> Any:
    """The custom aggregation of a probe task's metric (None for a plain mean or another task)."""
    from lm_eval_cog.probes import reference
    from lm_eval_cog.probes.core import REGISTRY, get_probe

    for suffix in ("_mc", "_gen"):
        name = task_name.removeprefix("cog_").removesuffix(suffix)
        if task_name.endswith(suffix) and name in REGISTRY and metric in get_probe(name).custom_aggregations:
            return reference.aggregation(get_probe(name), metric)
    return None


def comparisons(boot: dict[str, Any], ours: dict[str, Any]) -> dict[str, tuple[float, str, float, float]]:
    """Per metric kind: (largest relative gap, where, analytic, reference)."""
    worst: dict[str, tuple[float, str, float, float]] = {}
    for task_name, result in ours["results"].items():
        for key, value in result.items():
            if "_stderr," not in key or not isinstance(value, float) or not math.isfinite(value) or value == 0:
                continue
            metric = key.split("_stderr,")[0]
            reference = boot["results"].get(task_name, {}).get(key)
            aggregation = probe_aggregation(task_name, metric)
            if aggregation is not None:  # lm-eval gives none: our document bootstrap of 20,000 draws
                items = [sample[metric] for sample in ours["samples"].get(task_name, []) if metric in sample]
                kind, reference = aggregation.__name__, stderr.bootstrap_stderr(aggregation, items, REFERENCE_ITERS)
            elif isinstance(reference, float):
                kind = "nanmean" if "_chance" not in metric else "mean"
            else:
                continue
            if not math.isfinite(reference) or reference == 0:
                continue
            gap = abs(value - reference) / reference
            if gap > worst.get(kind, (-1.0,))[0]:
                worst[kind] = (gap, f"{task_name}/{metric}", value, reference)
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default=None, help="comma-separated tasks/groups (default: interactive + cog_static)")
    ap.add_argument("--limit", type=int, default=10, help="episodes / items per task (lm-eval's --limit)")
    args = ap.parse_args()
    tasks = args.tasks.split(",") if args.tasks else [*interactive_tasks(), "cog_static"]

    for analytic in (False, True):  # warm-up: imports, the task index, first-use costs of both modes
        evaluate(["cog_stroop_mc", "cog_wcst_direct"], 1, analytic)
    runs = {analytic: evaluate(tasks, args.limit, analytic) for analytic in (False, True)}
    standard_errors.install()

    print(f"{len(tasks)} tasks/groups, --limit {args.limit}, --model cog_baseline (policy random)")
    for analytic, (wall, in_stderr, _) in runs.items():
        print(f"  {'analytic' if analytic else 'bootstrap':<10} wall {wall:8.1f} s, of which standard errors {in_stderr:8.1f} s")
    print(f"  wall-time ratio bootstrap / analytic: {runs[False][0] / runs[True][0]:.1f}x")
    print(f"largest relative gap |analytic - bootstrap| / bootstrap per metric kind (n = {args.limit} per task;")
    print("  a plug-in bootstrap is smaller than s/sqrt(n) by sqrt((n-1)/n) on average, and noisy for small n):")
    for kind, (gap, where, value, reference) in sorted(comparisons(runs[False][2], runs[True][2]).items()):
        print(f"  {kind:<18} {gap:6.1%}  ({where}: {value:.4f} vs {reference:.4f})")


if __name__ == "__main__":
    main()
