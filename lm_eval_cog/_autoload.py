"""Start-up hook that makes ``lm_eval --tasks cog_wcst`` and ``--model cog_baseline`` work flagless.

lm-eval 0.4.13 has no plugin discovery (entry points for tasks are upstream PR
#4015, for models PR #4013). The wheel installs ``lm_eval_cog.pth`` at the root of
site-packages; Python runs its one line at start-up, which imports this module.
It does almost nothing then: it adds a ``sys.meta_path`` finder that waits for
a few lm-eval modules and, only when they are imported, patches them:

* ``lm_eval.tasks.manager``: every ``TaskManager`` that indexes lm-eval's own tasks
  (``include_defaults=True``, the default) also indexes our task folder, exactly
  what ``--include_path <that folder>`` does. ``TaskManager(include_defaults=False,
  include_path=X)`` indexes X alone, as lm-eval documents. An lm-eval that discovers
  task plugins itself (upstream PR #4015: ``discover_plugin_task_paths``) finds our
  folder through the ``lm_eval.tasks`` entry point, so the hook stands aside there
  (indexing the folder twice would print one "overrides existing task" warning per task);
* ``lm_eval.api.registry``: ``get_model`` first imports lm-eval's own models (a
  registry that is not empty stops lm-eval from importing them), then registers
  ``cog_baseline`` lazily;
* ``lm_eval.loggers.evaluation_tracker``: the results and samples files hold strict JSON
  for our tasks (``null``, not ``NaN``; :func:`patch_tracker`);
* ``lm_eval._cli.run``: ``lm_eval run`` checks our tasks' metadata, ``cog_baseline``'s model
  arguments and ``cog_*`` task names before lm-eval builds its task index, and ends a mistake with
  one line and exit status 2 (:mod:`lm_eval_cog.lmeval.preflight`);
* ``lm_eval.evaluator``: ``simple_evaluate`` warns (and changes nothing) when a run of
  ``cog_*`` tasks passes ``metadata=`` beside its own ``task_manager=``: lm-eval hands
  ``metadata`` only to a TaskManager it builds itself, so it would be dropped silently;
* ``lm_eval.api.model``: a model built from ``--model_args`` (``LM.create_from_arg_string`` /
  ``create_from_arg_obj``) keeps them as ``lm.cog_model_args``: the ``--use_cache`` episode cache
  keys its model identity on every one that can change the replies
  (:func:`lm_eval_cog.lmeval.episode_cache.cache_identity`);
* ``lm_eval.models.huggingface``: under ``accelerate launch`` with several processes but at most one
  GPU (CPU processes), each process gets its rank and the world size, so the documents are shared
  out instead of every process evaluating all of them
  (:mod:`lm_eval_cog.lmeval.data_parallel`).

Nothing is written into lm-eval's files and nothing heavy is imported at
start-up. Switch it off with ``LM_EVAL_COG_NO_AUTOLOAD=1`` (then use
``--include_path $(python -m lm_eval_cog.tasks_dir)``). ``LM_EVAL_COG_TASKS_ONLY=1`` makes a
run of ``cog_*`` tasks start faster: lm-eval's own task folder is not indexed.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import warnings
from pathlib import Path

DISABLE_ENV = "LM_EVAL_COG_NO_AUTOLOAD"
#: ``LM_EVAL_COG_TASKS_ONLY=1``: a TaskManager of lm-eval's defaults indexes our folder (and the
#: caller's ``--include_path``) alone, skipping lm-eval's ~14,000 task YAMLs (about 20 s of every
#: start on a 2-core machine). For runs of ``cog_*`` tasks only: lm-eval's own tasks are then unknown.
TASKS_ONLY_ENV = "LM_EVAL_COG_TASKS_ONLY"
BASELINE_MODEL = "cog_baseline"
BASELINE_TARGET = "lm_eval_cog.lmeval.baseline_model:BaselineLM"


def task_dir() -> Path:
    """The folder of the task YAMLs: packaged as ``lm_eval_cog/task_configs`` in a wheel,
    the top-level ``task_configs/`` in a source checkout or editable install."""
    here = Path(__file__).resolve().parent
    packaged = here / "task_configs"
    return packaged if packaged.is_dir() else here.parent / "task_configs"


#: What lm-eval's own task-plugin discovery (PR #4015's draft) adds to ``lm_eval.tasks.manager``.
PLUGIN_DISCOVERY_ATTRS = ("discover_plugin_task_paths", "TASKS_ENTRY_POINT_GROUP")


def discovers_task_plugins(manager_module) -> bool:
    """Whether this lm-eval finds task folders through entry points (then our hook stands aside)."""
    return any(hasattr(manager_module, name) for name in PLUGIN_DISCOVERY_ATTRS)


def _patch_manager(module) -> None:
    if discovers_task_plugins(module):
        return
    cls = module.TaskManager
    if getattr(cls.__init__, "_lm_eval_cog", False):
        return
    original = cls.__init__
    signature = inspect.signature(original)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        # Only an index of lm-eval's default tasks gains ours: include_defaults=False means
        # "exactly the caller's folders" (lm-eval's test_include_defaults_false_with_custom_path).
        if bound.arguments.get("include_defaults", True):
            include_path = bound.arguments.get("include_path")
            paths = [] if include_path is None else [include_path] if isinstance(include_path, (str, Path)) else list(include_path)
            ours = task_dir()
            if ours.is_dir() and not any(_same(p, ours) for p in paths):
                paths.append(str(ours))
            bound.arguments["include_path"] = paths or None
            if tasks_only() and ours.is_dir():
                bound.arguments["include_defaults"] = False
        original(*bound.args, **bound.kwargs)

    __init__._lm_eval_cog = True  # type: ignore[attr-defined]
    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    __init__.__signature__ = signature  # type: ignore[attr-defined]
    cls.__init__ = __init__


def tasks_only() -> bool:
    """``LM_EVAL_COG_TASKS_ONLY`` is set: index our tasks (and ``--include_path``), not lm-eval's."""
    return os.environ.get(TASKS_ONLY_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _patch_registry(module) -> None:
    original = module.get_model
    if getattr(original, "_lm_eval_cog", False):
        return

    def get_model(model_name: str):
        register_baseline(module)
        return original(model_name)

    get_model._lm_eval_cog = True  # type: ignore[attr-defined]
    get_model.__wrapped__ = original  # type: ignore[attr-defined]
    get_model.__doc__ = original.__doc__
    module.get_model = get_model


def _patch_evaluator(module) -> None:
    original = module.simple_evaluate
    if getattr(original, "_lm_eval_cog", False):
        return
    signature = inspect.signature(original)

    @functools.wraps(original)
    def simple_evaluate(*args, **kwargs):
        try:
            bound = signature.bind_partial(*args, **kwargs).arguments
        except TypeError:  # lm-eval reports bad arguments itself
            bound = {}
        warn_dropped_metadata(bound.get("tasks"), bound.get("metadata"), bound.get("task_manager"))
        return original(*args, **kwargs)

    simple_evaluate._lm_eval_cog = True  # type: ignore[attr-defined]
    module.simple_evaluate = simple_evaluate


def ours(name: object) -> bool:
    """A task or group of this package (lm-eval 0.5 names group members ``group::task``)."""
    return isinstance(name, str) and name.rsplit("::", 1)[-1].startswith("cog_")


def patch_tracker(module) -> None:
    """``results_*.json`` and ``samples_*.jsonl`` hold strict JSON for our tasks.

    lm-eval writes an undefined float as a bare ``NaN`` token, which strict JSON readers
    reject; our tasks have such values (a metric no episode defines, a missing chance
    level). The writers get a copy in which our tasks' and groups' non-finite floats are
    ``null``; other tasks' entries are passed on untouched, and the caller's dict is not
    changed except by what lm-eval itself adds to it.
    """
    cls = module.EvaluationTracker
    if getattr(cls.save_results_aggregated, "_lm_eval_cog", False):
        return
    from lm_eval_cog.strict_json import finite

    save_aggregated, save_samples = cls.save_results_aggregated, cls.save_results_samples

    @functools.wraps(save_aggregated)
    def save_results_aggregated(self, results, *args, **kwargs):
        if not isinstance(results, dict):
            return save_aggregated(self, results, *args, **kwargs)
        cleaned = {key: {k: finite(v) if ours(k) else v for k, v in value.items()}
                   for key, value in results.items() if isinstance(value, dict) and any(map(ours, value))}
        copy = {**results, **cleaned}
        outcome = save_aggregated(self, copy, *args, **kwargs)
        results.update({k: v for k, v in copy.items() if k not in cleaned})  # lm-eval's additions
        return outcome

    @functools.wraps(save_samples)
    def save_results_samples(self, task_name, samples, *args, **kwargs):
        if ours(task_name) and isinstance(samples, list):
            samples = [finite(sample) for sample in samples]
        return save_samples(self, task_name, samples, *args, **kwargs)

    save_results_aggregated._lm_eval_cog = True  # type: ignore[attr-defined]
    cls.save_results_aggregated = save_results_aggregated
    cls.save_results_samples = save_results_samples


def warn_dropped_metadata(tasks, metadata, task_manager) -> None:
    """Warn when ``simple_evaluate(metadata=...)`` would not reach our tasks (see the module docstring)."""
    if not metadata or task_manager is None:
        return
    names = [tasks] if isinstance(tasks, str) else list(tasks or [])
    if not any(isinstance(t, str) and t.startswith("cog_") for t in names):
        return
    reached = getattr(task_manager, "metadata", None) or {}
    dropped = sorted(k for k, v in dict(metadata).items() if reached.get(k) != v)
    if dropped:
        warnings.warn(
            f"simple_evaluate(metadata=...) does not reach the tasks when task_manager= is given "
            f"(lm-eval passes it only to a TaskManager it builds): {', '.join(dropped)} ignored. "
            f"Pass TaskManager(metadata={{...}}) instead.",
            UserWarning,
            stacklevel=3,
        )


def register_baseline(registry_module=None) -> None:
    """Register ``cog_baseline`` after lm-eval's own models (idempotent)."""
    if registry_module is None:
        import lm_eval.api.registry as registry_module
    import lm_eval.models  # noqa: F401 - must come first, see the module docstring

    if BASELINE_MODEL not in registry_module.model_registry:
        registry_module.model_registry.register(BASELINE_MODEL, target=BASELINE_TARGET)


def _same(a, b: Path) -> bool:
    try:
        return Path(a).resolve() == b
    except OSError:
        return False


def _patch_cli(module) -> None:
    """``lm_eval run``: our pre-flight check before lm-eval's task index (``lmeval/preflight.py``)."""
    from lm_eval_cog.lmeval.preflight import install as install_preflight

    install_preflight(module)


#: The attribute a model built from model arguments keeps them in (see :func:`patch_model_args`).
MODEL_ARGS_ATTR = "cog_model_args"


def patch_model_args(module) -> None:
    """``LM.create_from_arg_string`` / ``create_from_arg_obj`` leave the arguments on the model they
    build (parsed as lm-eval parses them, with the additional config it passes: batch size, device).
    Imports nothing: ``lm_eval.api.model`` is imported early, in the middle of lm-eval's own imports."""
    cls = module.LM
    parse = getattr(getattr(module, "utils", None), "simple_parse_args_string", None)
    for name in ("create_from_arg_string", "create_from_arg_obj"):
        original = cls.__dict__.get(name)
        if not isinstance(original, classmethod) or getattr(original.__func__, "_lm_eval_cog", False):
            continue
        cls_method = _remembering(original.__func__, parse if name == "create_from_arg_string" else None)
        setattr(cls, name, classmethod(cls_method))


def _remembering(create, parse):
    @functools.wraps(create)
    def remembering(cls, arg, additional_config=None):
        lm = create(cls, arg, additional_config)
        try:
            args = dict(parse(arg) if parse is not None and isinstance(arg, str) else arg or {})
            args.update({k: v for k, v in (additional_config or {}).items() if v is not None})
            setattr(lm, MODEL_ARGS_ATTR, args)
        except Exception:  # noqa: BLE001 - an unusual model or argument: no record, the model is unchanged
            pass
        return lm

    remembering._lm_eval_cog = True  # type: ignore[attr-defined]
    return remembering


def _patch_hf(module) -> None:
    from lm_eval_cog.lmeval.data_parallel import patch_hflm  # only when lm-eval's HF model is imported

    patch_hflm(module)


_PATCHES = {
    "lm_eval._cli.run": _patch_cli,
    "lm_eval.tasks.manager": _patch_manager,
    "lm_eval.api.registry": _patch_registry,
    "lm_eval.evaluator": _patch_evaluator,
    "lm_eval.loggers.evaluation_tracker": patch_tracker,
    "lm_eval.api.model": patch_model_args,
    "lm_eval.models.huggingface": _patch_hf,
}


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader, patch) -> None:
        self._loader, self._patch = loader, patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        try:
            self._patch(module)
        except Exception as exc:  # noqa: BLE001 - never break lm-eval itself
            warnings.warn(f"lm_eval_cog: could not hook {module.__name__} ({exc}); "
                          f"use --include_path {task_dir()}", stacklevel=2)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        patch = _PATCHES.get(fullname)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _PatchingLoader(spec.loader, patch)
        return spec


def install() -> None:
    """Install the finder (once), unless switched off by ``LM_EVAL_COG_NO_AUTOLOAD``."""
    if os.environ.get(DISABLE_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        return
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    for name, patch in _PATCHES.items():  # already imported (e.g. installed mid-process)
        if name in sys.modules:
            patch(sys.modules[name])
    sys.meta_path.insert(0, _Finder())


install()
