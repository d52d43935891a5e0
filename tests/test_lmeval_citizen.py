"""The package as a guest in lm-eval: what the start-up hook adds, and only that.

* ``TaskManager(include_defaults=False, include_path=X)`` indexes X alone (lm-eval's own
  ``test_include_defaults_false_with_custom_path``; the upstream suite itself runs in
  ``scripts/lane_lmeval_upstream.sh``);
* once lm-eval discovers task plugins itself (upstream PR #4015), the hook stands aside,
  and our ``lm_eval.tasks`` entry point resolves to the task folder the way #4015 does;
* the differences between lm-eval 0.4.13 and 0.5 stay in ``lmeval/compat.py``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import types
from pathlib import Path

import pytest
from lm_eval.tasks import TaskManager

from lm_eval_cog import _autoload
from lm_eval_cog._autoload import task_dir
from lm_eval_cog.lmeval import compat
from lm_eval_cli import write_yes_no_task

ROOT = Path(__file__).resolve().parent.parent
def _custom_folder(tmp_path: Path, name: str = "zz_custom_task") -> Path:
    return write_yes_no_task(tmp_path / "custom", name, [{"question": "Is it?", "answer": 0}])


def test_include_defaults_false_indexes_only_the_callers_folder(tmp_path):
    # lm-eval's test_include_defaults_false_with_custom_path, offline: the hook is active
    # in this process (the package is installed), yet only the caller's task is indexed.
    manager = TaskManager(include_defaults=False, include_path=str(_custom_folder(tmp_path)))
    assert manager.all_tasks == ["zz_custom_task"]


class _RecordingManager:
    def __init__(self, verbosity=None, include_path=None, include_defaults=True, metadata=None):
        self.include_path, self.include_defaults, self.metadata = include_path, include_defaults, metadata


def _fake_manager_module(**attrs) -> types.ModuleType:
    module = types.ModuleType("fake_manager")
    module.TaskManager = type("TaskManager", (_RecordingManager,), {})
    for name, value in attrs.items():
        setattr(module, name, value)
    return module


@pytest.mark.parametrize(
    "args, kwargs, expected",
    [
        ((), {}, ["OURS"]),
        ((), {"include_path": "/x"}, ["/x", "OURS"]),
        ((), {"include_path": ["/x", "/y"]}, ["/x", "/y", "OURS"]),
        ((None, "/x"), {}, ["/x", "OURS"]),  # positional, as lm-eval's signature allows
        ((), {"include_path": "/x", "include_defaults": False}, "/x"),
        ((None, "/x", False), {}, "/x"),
        ((), {"include_defaults": False}, None),
    ],
)
def test_hook_adds_our_folder_only_to_an_index_of_lm_evals_defaults(args, kwargs, expected):
    module = _fake_manager_module()
    _autoload._patch_manager(module)
    manager = module.TaskManager(*args, metadata={"k": 1}, **kwargs)
    ours = str(task_dir())
    want = [ours if p == "OURS" else p for p in expected] if isinstance(expected, list) else expected
    assert manager.include_path == want
    assert manager.metadata == {"k": 1}
    assert manager.include_defaults == kwargs.get("include_defaults", args[2] if len(args) > 2 else True)


@pytest.mark.parametrize("value, tasks_only", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_tasks_only_indexes_our_folder_and_the_callers_but_not_lm_evals(monkeypatch, value, tasks_only):
    monkeypatch.setenv(_autoload.TASKS_ONLY_ENV, value)
    module = _fake_manager_module()
    _autoload._patch_manager(module)
    manager = module.TaskManager(include_path="/x")
    assert manager.include_path == ["/x", str(task_dir())]
    assert manager.include_defaults is (not tasks_only)
    # A caller's own include_defaults=False stays exactly the caller's folders.
    assert module.TaskManager(include_path="/x", include_defaults=False).include_path == "/x"


def test_with_tasks_only_a_real_task_manager_knows_our_tasks_and_not_lm_evals(monkeypatch):
    monkeypatch.setenv(_autoload.TASKS_ONLY_ENV, "1")
    manager = TaskManager()
    assert "cog_wcst" in manager.all_tasks and "cog_games" in manager.all_groups
    assert "mmlu" not in manager.all_groups and "hellaswag" not in manager.all_tasks


def test_hook_does_not_add_our_folder_twice():
    module = _fake_manager_module()
    _autoload._patch_manager(module)
    assert module.TaskManager(include_path=str(task_dir())).include_path == [str(task_dir())]


@pytest.mark.parametrize("attr", ["discover_plugin_task_paths", "TASKS_ENTRY_POINT_GROUP"])
def test_hook_stands_aside_when_lm_eval_discovers_task_plugins_itself(attr):
    module = _fake_manager_module(**{attr: "lm_eval.tasks"})
    original = module.TaskManager.__init__
    _autoload._patch_manager(module)
    assert module.TaskManager.__init__ is original
    assert module.TaskManager().include_path is None


def _resolve_like_pr_4015(value: str) -> Path:
    """Upstream PR #4015's draft: ``pkg.module`` (an ``:attr`` is ignored) by ``find_spec``;
    a package gives its folder, a plain module the folder that holds it."""
    spec = importlib.util.find_spec(value.split(":", 1)[0])
    assert spec is not None, f"entry point {value!r} does not resolve"
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(spec.origin).resolve().parent


def _declared_task_entry_point() -> str:
    (ep,) = [e for e in importlib.metadata.entry_points(group="lm_eval.tasks") if e.name == "lm_eval_cog"]
    return ep.value


def test_task_entry_point_of_this_install_resolves_to_the_yaml_folder():
    # Runs against whatever install this is: editable in development, a wheel in CI.
    assert _declared_task_entry_point() == "lm_eval_cog.task_configs"
    folder = _resolve_like_pr_4015(_declared_task_entry_point())
    assert folder == task_dir().resolve()
    assert (folder / "wcst" / "cog_wcst.yaml").is_file()


_PROBE = """
import importlib.metadata, importlib.util, site, sys
site.addsitedir(sys.argv[1])  # runs the install's .pth files (an editable install's finder)
(ep,) = [e for e in importlib.metadata.entry_points(group="lm_eval.tasks") if e.name == "lm_eval_cog"]
spec = importlib.util.find_spec(ep.value.split(":", 1)[0])
print(ep.value, next(iter(spec.submodule_search_locations)) if spec.submodule_search_locations else spec.origin)
"""


@pytest.mark.parametrize("editable", [False, True], ids=["wheel", "editable"])
def test_task_entry_point_resolves_to_the_yaml_folder_in_wheels_and_editable_installs(tmp_path, editable):
    # Both kinds of install, whichever runs this suite: installed into a prefix, then resolved
    # by a fresh interpreter that sees nothing else (-S: no site-packages of this venv).
    prefix = tmp_path / "prefix"
    subprocess.run(
        # --ignore-installed: without it pip would uninstall this venv's own copy first.
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--ignore-installed",
         "--prefix", str(prefix),
         *(["-e"] if editable else []), str(ROOT)],
        check=True, cwd=tmp_path,
    )
    (site_dir,) = prefix.glob("lib/python*/site-packages")
    out = subprocess.run(
        [sys.executable, "-S", "-c", _PROBE, str(site_dir)], check=True, capture_output=True, text=True, cwd=tmp_path,
        env={"LM_EVAL_COG_NO_AUTOLOAD": "1", "PATH": "/usr/bin:/bin"},
    ).stdout.split()
    value, folder = out[0], Path(out[1]).resolve()
    assert value == "lm_eval_cog.task_configs"
    assert folder == (ROOT / "task_configs" if editable else site_dir / "lm_eval_cog" / "task_configs").resolve()
    assert (folder / "wcst" / "cog_wcst.yaml").is_file()


def test_metric_names_stay_names_on_lm_eval_0_4_and_become_named_callables_on_0_5():
    entry = compat.process_results_metric("acc")
    if compat.SCORER_PIPELINE:  # 0.5: never resolved against the registry's loglikelihood `acc`
        assert callable(entry) and entry.__name__ == "acc"
        with pytest.raises(RuntimeError, match="process_results"):
            entry()
    else:
        assert entry == "acc"


def test_predict_only_is_seen_through_the_installed_lm_evals_own_structures():
    from lm_eval_cog.lmeval.task import InteractiveTask

    task = InteractiveTask({"task": "t", "metadata": {"paradigm": "wcst", "preset": "wcst64", "strategy": "direct"}})
    assert "acc" in compat.metric_fn_names(task) and "bypass" not in compat.metric_fn_names(task)
    task.override_metric(metric_name="bypass")
    assert "bypass" in compat.metric_fn_names(task)
