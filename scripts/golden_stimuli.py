"""Golden stimuli: a SHA-256 of the first episodes' stimuli of every task, pinned per task version.

    .venv-dev/bin/python scripts/golden_stimuli.py            # print the hashes, compare with the file
    .venv-dev/bin/python scripts/golden_stimuli.py --write    # store them in tests/golden_stimuli.json

A change in stimulus generation or in seed derivation must be deliberate: it bumps the
task's ``metadata.version`` (results of two versions are not comparable) and rewrites
``tests/golden_stimuli.json``; ``tests/test_golden_stimuli.py`` fails otherwise.

What is hashed, for the first :data:`EPISODES` episodes with the default task seed:

* interactive tasks (``class: InteractiveTask``, or ``MetacognitionTask`` whose episode i asks the
  probe's document i): the paradigm, preset, strategy and
  overrides of the YAML's metadata; each episode (seed ``episode_seed(seed, i)``) is
  played to its end by the paradigm's ``random`` agent on ``agent_rng(seed)`` (what
  ``--model cog_baseline`` plays), and the system prompt, every user message and every
  ``info`` the env hands the agent (card, options, letters, sensors... everything a player
  sees) go into the hash. The env's log and the metrics are not hashed: a change in a
  metric changes no stimulus. (Feedback is part of the user messages, so a change in
  how a trial is judged correct does change the hash: it changes what the model sees.)
* the oddball and static probes (``custom_dataset``): the first documents their dataset
  function builds from the YAML's metadata (default seed); a probe YAML's ``include:``
  (its form's shared settings) is merged first.

Group YAMLs (``group:``) have no stimuli of their own and are skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TASK_DIR = ROOT / "task_configs"
GOLDEN_FILE = ROOT / "tests" / "golden_stimuli.json"
#: Episodes (documents) hashed per task.
EPISODES = 3
#: The default task seed (lm-eval's ``--seed`` fourth value; ``metadata.seed`` overrides).
DEFAULT_SEED = 1234
REGENERATE = "python scripts/golden_stimuli.py --write"


class _TagLoader(yaml.SafeLoader):
    """Reads lm-eval task YAMLs without importing anything: ``!function x.y`` -> ``"x.y"``."""


_TagLoader.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_scalar(node))


def task_configs(task_dir: Path = TASK_DIR) -> dict[str, tuple[Path, dict[str, Any]]]:
    """``{task name: (yaml path, config)}`` for every task YAML (groups skipped)."""
    tasks: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path in sorted(task_dir.rglob("*.yaml")):
        config = yaml.load(path.read_text("utf-8"), Loader=_TagLoader) or {}
        if "group" in config or not isinstance(config.get("task"), str):
            continue
        if "include" in config:  # the static probes' shared settings (lm-eval merges them the same way)
            base = yaml.load((path.parent / config["include"]).read_text("utf-8"), Loader=_TagLoader) or {}
            config = {**base, **{k: v for k, v in config.items() if k != "include"}}
        tasks[config["task"]] = (path, config)
    return tasks


def version(config: dict[str, Any]) -> Any:
    """The task's ``metadata.version`` as written in its YAML."""
    return (config.get("metadata") or {}).get("version")


def _canonical(value: Any) -> str:
    """Stable JSON text (sorted keys; numpy scalars as Python numbers)."""

    def default(o: Any) -> Any:
        if hasattr(o, "tolist"):
            return o.tolist()
        raise TypeError(f"cannot hash a {type(o).__name__} in the stimuli: {o!r}")

    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=default)


def interactive_stimuli(config: dict[str, Any], episodes: int = EPISODES, seed: int | None = None) -> Iterator[str]:
    """The stimuli of the first ``episodes`` episodes of an interactive task, as text pieces."""
    from lm_eval_cog.lmeval.task import paradigm_overrides
    from lm_eval_cog.paradigms import get_paradigm
    from lm_eval_cog.paradigms.base import agent_rng, episode_seed

    meta = config["metadata"]
    paradigm = get_paradigm(meta["paradigm"])
    overrides = paradigm_overrides(meta, paradigm.name)
    params = paradigm.make_params(meta["preset"], meta["strategy"], overrides)
    task_seed = seed if seed is not None else int(meta.get("seed", DEFAULT_SEED))
    for index in range(episodes):
        ep_seed = episode_seed(task_seed, index)
        if str(config.get("class", "")).endswith("MetacognitionTask"):  # episode i asks the probe's document i
            params = paradigm.make_params(meta["preset"], meta["strategy"], {**overrides, "document": [task_seed, index]})
        env = paradigm.env_cls(params)
        agent = paradigm.make_agent("random", params, agent_rng(ep_seed))
        # The index as the runner passes it: a game deals its experiments out by it.
        message, info = env.reset(seed=ep_seed, options={"index": index})
        yield _canonical({"episode": index, "seed": ep_seed, "system": env.system_prompt})
        done = False
        while not done:
            yield _canonical({"user": message, "info": info})
            message, terminated, truncated, info = env.step(agent.act(message, info))
            done = terminated or truncated
        yield _canonical({"closing": message, "info": info})


def dataset_stimuli(config: dict[str, Any], episodes: int = EPISODES, seed: int | None = None) -> Iterator[str]:
    """The first ``episodes`` documents of a ``custom_dataset`` task (the oddball and static probes)."""
    import importlib

    module, _, name = str(config["custom_dataset"]).rpartition(".")
    build = getattr(importlib.import_module(module), name)
    meta = dict(config.get("metadata") or {}, episodes=episodes, items=episodes)
    if seed is not None:
        meta["seed"] = seed
    for split, rows in sorted(build(**meta).items()):
        for row in rows:
            yield _canonical({"split": split, "document": row})


def stimuli_hash(config: dict[str, Any], episodes: int = EPISODES, seed: int | None = None) -> str:
    """SHA-256 (hex) of the stimuli of a task's first ``episodes`` episodes (see the module docstring)."""
    if str(config.get("class", "")).endswith(("InteractiveTask", "MetacognitionTask")):
        pieces = interactive_stimuli(config, episodes, seed)
    elif "custom_dataset" in config:
        pieces = dataset_stimuli(config, episodes, seed)
    else:
        raise ValueError(f"task {config.get('task')!r}: neither an interactive task nor a custom_dataset task")
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def compute_all(task_dir: Path = TASK_DIR) -> dict[str, dict[str, Any]]:
    """``{task: {"version": ..., "sha256": ...}}`` for every task."""
    return {
        task: {"version": version(config), "sha256": stimuli_hash(config)}
        for task, (_, config) in task_configs(task_dir).items()
    }


def load_golden(path: Path = GOLDEN_FILE) -> dict[str, dict[str, Any]]:
    return json.loads(path.read_text("utf-8")) if path.exists() else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"store the hashes in {GOLDEN_FILE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    current = compute_all()
    if args.write:
        GOLDEN_FILE.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n", "utf-8")
        print(f"wrote {len(current)} tasks to {GOLDEN_FILE.relative_to(ROOT)}")
        return 0
    golden = load_golden()
    differ = 0
    for task, entry in current.items():
        stored = golden.get(task)
        state = "ok" if stored == entry else "new" if stored is None else "CHANGED"
        differ += state != "ok"
        print(f"{task:40s} v{entry['version']}  {entry['sha256'][:16]}  {state}")
    for task in sorted(set(golden) - set(current)):
        differ += 1
        print(f"{task:40s} stored but no longer a task")
    if differ:
        print(f"\n{differ} task(s) differ from {GOLDEN_FILE.relative_to(ROOT)}; after a deliberate change: {REGENERATE}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
