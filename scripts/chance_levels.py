"""Chance levels of every scored paradigm and preset, and of the Reflection-Bench groups.

    python scripts/chance_levels.py                  # 100,000 random episodes per entry (~15 min, 2 cores)
    python scripts/chance_levels.py --sims 2000 --out /tmp/chance.json   # a quick look

For every paradigm and preset, plays ``--sims`` episodes of the ``random`` reference
agent (uniform over each trial's valid choices) through the same environment and
scorer as the models, episode i seeded from (SIM_SEED, i), and records the mean,
standard deviation and 95th percentile (Reflection-Bench's significance threshold) of
the primary metric. The oddball probe's reference is the ``random`` commenter
(three sentences of the passage repeated). A group's overall chance level is the
distribution of the mean of one random episode per scored task. Deterministic: the
same arguments give the same file, whatever ``--workers``.

Writes ``lm_eval_cog/paradigms/chance_levels.json`` (shipped with the package; tasks
report its values as ``<metric>_chance`` / ``<metric>_chance_p95``) and prints a table
with the standard error of each mean, to show that three significant digits hold.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from lm_eval_cog._autoload import task_dir
from lm_eval_cog.paradigms import available, chance, get_paradigm
from lm_eval_cog.paradigms.base import agent_rng, episode_seed

ODDBALL = ("oddball", "default")


def _paradigm_chunk(args: tuple[str, str, int, int]) -> np.ndarray:
    name, preset, start, count = args
    paradigm = get_paradigm(name)
    return chance.simulate(paradigm, paradigm.make_params(preset), count, start=start)


def simulate_paradigm(name: str, preset: str, sims: int, pool: ProcessPoolExecutor | None) -> np.ndarray:
    """The primary metric of random episodes 0..sims-1, in episode order."""
    size = max(1, math.ceil(sims / 16))
    chunks = [(name, preset, start, min(size, sims - start)) for start in range(0, sims, size)]
    parts = pool.map(_paradigm_chunk, chunks) if pool else map(_paradigm_chunk, chunks)
    return np.concatenate(list(parts))


def simulate_oddball(sims: int) -> np.ndarray:
    """Scores of the random commenter on passages 0..sims-1 (sentence embeddings memoised)."""
    from lm_eval_cog.embeddings import embed
    from lm_eval_cog.probes.oddball.agents import random_comment
    from lm_eval_cog.probes.oddball.scoring import surprise
    from lm_eval_cog.probes.oddball.stimuli import make_passage

    cache: dict[str, np.ndarray] = {}

    def cached_embed(texts):
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, embed(missing)))
        return np.stack([cache[t] for t in texts])

    scores = []
    for i in range(sims):
        seed = episode_seed(chance.SIM_SEED, i)
        passage = make_passage(seed)
        scores.append(100.0 * surprise(random_comment(passage, agent_rng(seed)), cached_embed))
    return np.array(scores)


class _TagTolerantLoader(yaml.SafeLoader):
    """Reads our task YAMLs without importing what their ``!function`` tags name."""


_TagTolerantLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def task_entries() -> tuple[dict[str, tuple[str, str]], dict[str, list[str]]]:
    """(task -> (paradigm or probe, preset), group -> member tasks) from the shipped YAMLs."""
    tasks: dict[str, tuple[str, str]] = {}
    groups: dict[str, list[str]] = {}
    for path in sorted(task_dir().rglob("*.yaml")):
        config = yaml.load(path.read_text(), Loader=_TagTolerantLoader)
        if "group" in config:
            groups[config["group"]] = list(config["task"])
        elif config.get("task") == "cog_oddball":
            tasks["cog_oddball"] = ODDBALL
        elif "paradigm" in (config.get("metadata") or {}):
            tasks[config["task"]] = (config["metadata"]["paradigm"], config["metadata"]["preset"])
    return tasks, groups


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sims", type=int, default=100_000, help="random episodes per paradigm and preset")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=chance.CHANCE_FILE)
    ap.add_argument("--no-oddball", action="store_true", help="skip the oddball probe (needs the embedder)")
    ap.add_argument(
        "--paradigm", action="append", default=None,
        help="simulate only this paradigm (repeatable) and keep every other stored level (implies --no-oddball)",
    )
    ap.add_argument(
        "--preset", action="append", default=None,
        help="with --paradigm: simulate only this preset (repeatable; e.g. the static probe a reflect preset asks)",
    )
    args = ap.parse_args()
    if args.preset and not args.paradigm:
        ap.error("--preset needs --paradigm")
    if args.paradigm:
        unknown = sorted(set(args.paradigm) - set(available()))
        if unknown:
            ap.error(f"unknown paradigm(s) {unknown}; available: {available()}")
        args.no_oddball = True
    previous = json.loads(args.out.read_text()) if args.paradigm and args.out.exists() else {}

    samples: dict[tuple[str, str], np.ndarray] = {}
    metrics: dict[tuple[str, str], str] = {}
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) if args.workers > 1 else contextlib.nullcontext() as pool:
        for name in args.paradigm or available():
            paradigm = get_paradigm(name)
            presets = [p for p in paradigm.presets if not args.preset or p in args.preset]
            if args.preset and not presets:
                ap.error(f"no preset {args.preset} in {name}; available: {sorted(paradigm.presets)}")
            for preset in presets:
                samples[(name, preset)] = simulate_paradigm(name, preset, args.sims, pool)
                metrics[(name, preset)] = paradigm.primary_metric
    if not args.no_oddball:
        samples[ODDBALL] = simulate_oddball(args.sims)
        metrics[ODDBALL] = "score"

    levels: dict[str, dict[str, Any]] = {
        name: dict(entries) for name, entries in previous.get("levels", {}).items()
        if name not in (args.paradigm or ()) or args.preset
    }
    print(f"{'paradigm':<14}{'preset':<24}{'metric':<20}{'mean':>9}{'se':>8}{'p95':>9}{'sd':>8}{'sims':>9}")
    for (name, preset), values in samples.items():
        level = chance.summarise(metrics[(name, preset)], values)
        levels.setdefault(name, {})[preset] = _entry(level)
        print(f"{name:<14}{preset:<24}{level.metric:<20}{level.mean:>9.3f}{level.se:>8.3f}{level.p95:>9.3f}"
              f"{level.sd:>8.3f}{level.sims:>9}")  # fmt: skip

    tasks, groups = task_entries()
    group_levels: dict[str, Any] = dict(previous.get("groups", {}))
    for group, members in sorted(groups.items()):
        if any(t not in tasks for t in members):
            continue  # a group of static probes or of groups: no episode-level chance score
        keys = {t: tasks[t] for t in members}
        if any(key not in samples for key in keys.values()):
            continue  # a member was not simulated (--no-oddball, --paradigm): its stored level stays
        # As the group's aggregate_metric_list does: tasks without a "score" (MBT) drop out.
        scored = [t for t, key in keys.items() if metrics[key] == "score"]
        if not scored:
            continue  # no member reports a "score" (e.g. cog_metacognition): no group chance score
        level = chance.summarise("score", np.mean([samples[keys[t]] for t in scored], axis=0))
        group_levels[group] = {**_entry(level), "tasks": scored}
        print(f"group {group:<34}{level.mean:>9.3f}{level.se:>8.3f}{level.p95:>9.3f}{level.sd:>8.3f}")

    args.out.write_text(
        json.dumps(
            {
                "about": "Chance levels: random players' primary metric per single episode (see README).",
                "generated_by": previous.get("generated_by", f"python scripts/chance_levels.py --sims {args.sims}"),
                "sim_seed": chance.SIM_SEED,
                "levels": levels,
                "groups": group_levels,
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )
    print(f"wrote {args.out} in {time.perf_counter() - started:.0f} s")


def _entry(level: chance.ChanceLevel) -> dict[str, Any]:
    return {"metric": level.metric, "mean": round(level.mean, 4), "p95": round(level.p95, 4),
            "sd": round(level.sd, 4), "sims": level.sims}  # fmt: skip


if __name__ == "__main__":
    main()
