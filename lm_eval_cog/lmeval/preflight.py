"""``lm_eval``'s pre-flight check of a run of our tasks: mistakes end with one line, in a second or two.

Our tasks check their metadata, and ``cog_baseline`` its model arguments, when lm-eval builds them:
after lm-eval has indexed ~14,000 task YAMLs and generated the probes' documents (18-53 s), and
as the last line of a 20-50-line traceback. :func:`check_run` makes the same checks (the same
functions: :mod:`~lm_eval_cog.lmeval.settings`, :mod:`~lm_eval_cog.lmeval.baseline_args`) from the
command line's arguments and our YAMLs alone (:mod:`lm_eval_cog.task_index`), before lm-eval's
index is built; :func:`install` puts it in front of ``lm_eval run`` and makes its
:class:`UserError` one ``error:`` line on stderr with exit status 2 (the project's status for a
user's mistake).

What it leaves to lm-eval: anything about lm-eval's own tasks and models, tasks given as YAML
paths or folders, and names under an ``--include_path`` (only lm-eval's index knows those).
A name lm-eval then does not find gets a one-line "Tasks not found" with our closest names.
"""

from __future__ import annotations

import difflib
import functools
import logging
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

BASELINE = "cog_baseline"
#: Said after a misspelt task name: where to see the right one.
TASK_LIST_HINT = "lm-eval-cog tasks lists this package's tasks, lm-eval ls tasks every task"


class UserError(ValueError):
    """A mistake in the command line, reported as one line (a ValueError for callers that catch those)."""


def task_names(tasks: Any) -> list[str]:
    """``--tasks`` as lm-eval splits it (a list of comma-separated strings, or one string)."""
    if tasks is None:
        return []
    parts = [tasks] if isinstance(tasks, str) else [t for t in tasks if isinstance(t, str)]
    return [name.strip() for part in parts for name in part.split(",") if name.strip()]


def suggestion(name: str, known: Iterable[str]) -> str:
    """' Did you mean: a, b?' for the closest of ``known`` ('' when none is close)."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f" Did you mean: {', '.join(close)}?" if close else ""


def unknown_task_message(names: Sequence[str], known: Iterable[str]) -> str:
    """lm-eval's "Tasks not found: ..." with the closest of our names to each, and where to list them."""
    known = list(known)
    if len(names) == 1:
        hints = suggestion(names[0], known)
    else:
        hints = "".join(f" For {n!r}:{suggestion(n, known)}" for n in names if suggestion(n, known))
    return f"Tasks not found: {', '.join(names)}.{hints} ({TASK_LIST_HINT})"


def _policy_check(policy: str, entry: Any, meta: Mapping[str, Any]) -> None:
    from lm_eval_cog.lmeval.baseline_args import PROBE_AGENTS
    from lm_eval_cog.paradigms.base import unknown_name_message
    from lm_eval_cog.paradigms.probe_base import POLICIES

    if "paradigm" in meta:
        from lm_eval_cog.paradigms import get_paradigm

        paradigm = get_paradigm(meta["paradigm"])
        allowed, what = paradigm.policies(), f"{paradigm.name} policy"
    elif "probe" in meta:
        allowed, what = [*POLICIES, "heuristic"], "probe policy"
    elif "oddball" in str(entry.task_class):
        allowed, what = sorted(PROBE_AGENTS["oddball"]), "oddball policy"
    else:
        return
    if policy not in allowed:
        raise UserError(f"{entry.name}: {unknown_name_message(what, policy, allowed)}")


def check_run(*, model: str | None, model_args: Mapping[str, Any] | None, tasks: Any,
              metadata: Mapping[str, Any] | None, num_fewshot: int | None = None,
              include_path: Any = None) -> None:
    """Raise :class:`UserError` for a mistake our tasks or ``cog_baseline`` would refuse later.

    ``metadata`` is lm-eval's merged run metadata (``--model_args`` then ``--metadata``).
    """
    from lm_eval_cog.lmeval.settings import check_task_metadata, refuse_fewshot
    from lm_eval_cog.task_index import entries, tasks_of

    index = entries()
    names = task_names(tasks)
    # Ours are named cog_*; without --include_path no other folder can define one.
    unknown = [n for n in names if n.startswith("cog_") and n not in index and not n.endswith(".yaml")]
    if unknown and not include_path:
        raise UserError(unknown_task_message(unknown, index))
    try:
        if model == BASELINE:
            from lm_eval_cog.lmeval.baseline_args import check_baseline_args

            args = dict(model_args or {})
            check_baseline_args(args.pop("policy", "random"), args)
        run_meta = dict(metadata or {})
        # lm-eval merged --model_args into the metadata; what the user put in --metadata alone:
        user_meta = {k: v for k, v in run_meta.items() if k not in (model_args or {})}
        for entry in (task for name in names if name in index for task in tasks_of(name, index)):
            meta = {**entry.metadata, **run_meta}
            if "paradigm" in meta:
                refuse_fewshot(entry.name, num_fewshot)
            check_task_metadata(meta, entry.name, entry.task_class, user_meta)
            if model == BASELINE:
                _policy_check(str((model_args or {}).get("policy", "random")), entry, meta)
    except UserError:
        raise
    except ValueError as error:
        raise UserError(str(error)) from None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def install(run_module: Any) -> None:
    """Wrap ``lm_eval run`` (``lm_eval._cli.run.Run._execute``): check our part of the run first, and
    end a :class:`UserError` with one line and exit status 2. An lm-eval without this CLI is left alone."""
    run_cls = getattr(run_module, "Run", None)
    original = getattr(run_cls, "_execute", None)
    if original is None or getattr(original, "_lm_eval_cog", False):
        return

    @functools.wraps(original)
    def _execute(args: Any) -> Any:
        try:
            _patch_config()
            return original(args)
        except UserError as error:
            print(f"error: {_one_line(error)}", file=sys.stderr)
            sys.exit(2)

    _execute._lm_eval_cog = True  # type: ignore[attr-defined]
    run_cls._execute = staticmethod(_execute)


def _patch_config() -> None:
    """``EvaluatorConfig.from_cli`` (the first thing ``lm_eval run`` does, before any task index)
    runs :func:`check_run`; ``process_tasks`` turns lm-eval's "Tasks not found" into one line."""
    from lm_eval.config import evaluate_config

    cls = getattr(evaluate_config, "EvaluatorConfig", None)
    # Not a class: a test double of lm-eval's own suite; nothing of ours to check there. An lm-eval
    # whose config has another shape is left alone (our tasks still check themselves when built).
    if not isinstance(cls, type) or getattr(getattr(cls, "process_tasks", None), "_lm_eval_cog", False):
        return
    from_cli, process_tasks = getattr(cls.from_cli, "__func__", None), getattr(cls, "process_tasks", None)
    if from_cli is None or process_tasks is None:
        return

    def checked_from_cli(klass: Any, namespace: Any) -> Any:
        cfg = from_cli(klass, namespace)
        # getattr: another lm-eval release may name a field otherwise; then that check is lm-eval's.
        model_args = getattr(cfg, "model_args", None)
        try:
            check_run(model=getattr(cfg, "model", None), model_args=model_args if isinstance(model_args, dict) else {},
                      tasks=getattr(cfg, "tasks", None), metadata=getattr(cfg, "metadata", None) or {},
                      num_fewshot=getattr(cfg, "num_fewshot", None), include_path=getattr(cfg, "include_path", None))
        except UserError:
            raise
        except Exception as error:  # noqa: BLE001 - a defect of the check must not stop a run: the tasks check again
            logging.getLogger(__name__).debug("lm-eval-cog pre-flight check skipped: %r", error)
        return cfg

    def checked_process_tasks(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return process_tasks(self, *args, **kwargs)
        except ValueError as error:
            message = str(error)
            if not message.startswith("Tasks not found: "):
                raise
            from lm_eval_cog.task_index import entries

            missing = [n.strip() for n in message[len("Tasks not found: "):].split(",")]
            raise UserError(unknown_task_message(missing, entries())) from None

    checked_process_tasks._lm_eval_cog = True  # type: ignore[attr-defined]
    cls.from_cli = classmethod(checked_from_cli)
    cls.process_tasks = checked_process_tasks
