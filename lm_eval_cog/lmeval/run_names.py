"""Readable output folders for the reference players.

lm-eval names a run's folder (``<output_path>/<model_name_sanitized>/``) after the ``pretrained``,
``path``, ``model``... argument of ``--model_args``; a model without one, as ``cog_baseline
--model_args policy=optimal``, gets a random 8-letter name (``out/optimal/qdpv68r5/``) that differs
on every run. :func:`install` names those runs ``cog_baseline/<policy>`` instead, which lm-eval writes
as the folder ``cog_baseline__optimal`` (and as ``model_name`` in the results file). Any other model is
left as lm-eval names it.
"""

from __future__ import annotations

import functools
from typing import Any

BASELINE = "cog_baseline"
#: The policy of ``--model cog_baseline`` without ``policy=``.
DEFAULT_POLICY = "random"


def baseline_run_name(model_args: str | dict[str, Any] | None) -> str:
    """``cog_baseline/<policy>`` from lm-eval's ``--model_args`` (text ``k=v,...`` or a dict)."""
    if isinstance(model_args, dict):
        policy = model_args.get("policy")
    else:
        pairs = (part.partition("=") for part in str(model_args or "").split(","))
        policy = {k.strip(): v.strip() for k, sep, v in pairs if sep}.get("policy")
    return f"{BASELINE}/{policy or DEFAULT_POLICY}"


def install() -> None:
    """Wrap lm-eval's ``GeneralConfigTracker.log_experiment_args`` (idempotent; 0.4.13 and 0.5 have the
    same tracker). An lm-eval without it keeps its own names: a folder name is no reason to fail a run."""
    try:
        from lm_eval.loggers import evaluation_tracker
        from lm_eval.utils import sanitize_model_name

        cls = evaluation_tracker.GeneralConfigTracker
        original = cls.log_experiment_args
        cls._get_model_name  # noqa: B018 - the wrapper asks it whether lm-eval found a name
    except (ImportError, AttributeError):
        return
    if getattr(original, "_lm_eval_cog", False):
        return

    @functools.wraps(original)
    def log_experiment_args(self, model_source, model_args, *args, **kwargs):
        out = original(self, model_source, model_args, *args, **kwargs)
        # Only where lm-eval found no name of its own (it then drew a random one).
        if model_source == BASELINE and cls._get_model_name(model_args) is None:
            self.model_name = baseline_run_name(model_args)
            self.model_name_sanitized = sanitize_model_name(self.model_name)
        return out

    log_experiment_args._lm_eval_cog = True  # type: ignore[attr-defined]
    cls.log_experiment_args = log_experiment_args
