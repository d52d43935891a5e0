"""Chance levels: the score distribution of random players under the same protocol.

Reflection-Bench calls a score significant when it exceeds the 95th percentile of
random choosers' scores (its Table 9). ``scripts/chance_levels.py`` simulates, for
every paradigm and preset, many episodes of the ``random`` reference agent (uniform
over the valid choices of each trial) through the very environment and scorer the
models face, and stores the mean and 95th percentile in ``chance_levels.json`` next
to this module. Tasks report them beside their score (see the README).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import Env, Paradigm, agent_rng, episode_seed

CHANCE_FILE = Path(__file__).with_name("chance_levels.json")
#: Seed of the simulations (episode i of a simulation uses ``episode_seed(SIM_SEED, i)``).
SIM_SEED = 20250101


@dataclass(frozen=True)
class ChanceLevel:
    """Distribution of one metric of single random episodes."""

    metric: str
    mean: float
    p95: float
    sd: float
    sims: int

    @property
    def se(self) -> float:
        """Standard error of ``mean``."""
        return self.sd / math.sqrt(self.sims)


def play(paradigm: Paradigm, params: Any, seed: int, policy: str = "random", index: int = 0) -> Env:
    """One episode of a reference agent, played to the end; returns the environment (and its log).

    The agent's generator is seeded from the episode seed exactly as ``--model
    cog_baseline`` seeds it, so a simulation replays what that model does. ``index`` is the
    episode's place in its task (a game deals its experiments out by it, as the runner does).
    """
    env = paradigm.env_cls(params)
    message, info = env.reset(seed=seed, options={"index": index})
    agent = paradigm.make_agent(policy, params, agent_rng(seed))
    done = False
    while not done:
        message, terminated, truncated, info = env.step(agent.act(message, info))
        done = terminated or truncated
    return env


def simulate(
    paradigm: Paradigm, params: Any, sims: int, *, seed: int = SIM_SEED, start: int = 0, policy: str = "random"
) -> np.ndarray:
    """The primary metric of episodes ``start .. start + sims - 1`` of a reference agent."""
    metric = paradigm.primary_metric
    return np.array(
        [
            paradigm.metrics(play(paradigm, params, episode_seed(seed, i), policy, index=i).log, params)[metric]
            for i in range(start, start + sims)
        ],
        dtype=float,
    )


def summarise(metric: str, values: np.ndarray) -> ChanceLevel:
    """Mean, 95th percentile (Reflection-Bench's threshold) and SD of simulated scores."""
    values = np.asarray(values, dtype=float)
    return ChanceLevel(
        metric=metric,
        mean=float(values.mean()),
        p95=float(np.percentile(values, 95)),
        sd=float(values.std(ddof=1)) if len(values) > 1 else math.nan,
        sims=int(len(values)),
    )


@lru_cache(maxsize=1)
def _table() -> Mapping[str, Any]:
    if not CHANCE_FILE.is_file():
        return {}
    return json.loads(CHANCE_FILE.read_text())


def stored(name: str, preset: str) -> ChanceLevel | None:
    """The stored chance level of a paradigm (or static probe) and preset, if computed."""
    return _level(_table().get("levels", {}).get(name, {}).get(preset))


def stored_group(name: str) -> ChanceLevel | None:
    """The stored chance level of a group's overall score (mean of one random episode per task)."""
    return _level(_table().get("groups", {}).get(name))


def _level(entry: Mapping[str, Any] | None) -> ChanceLevel | None:
    return None if entry is None else ChanceLevel(**{f.name: entry[f.name] for f in dataclasses.fields(ChanceLevel)})


def for_params(paradigm: Paradigm, preset: str, params: Any) -> ChanceLevel | None:
    """The chance level that applies to ``params``: the preset's, unless a parameter was changed.

    The prompting strategy and the paradigm's other ``chance_invariant`` parameters are
    ignored (a random player's replies do not depend on them); any other difference from
    the preset means the stored level does not apply (None).
    """
    if preset not in paradigm.presets:
        return None
    same = {name: getattr(params, name) for name in paradigm.chance_invariant}
    base = dataclasses.replace(paradigm.presets[preset], **same)
    return stored(paradigm.name, preset) if base == params else None


def metric_names(metric: str) -> tuple[str, str]:
    """Result keys reporting the chance level of ``metric``: its random-player mean and 95th percentile."""
    return f"{metric}_chance", f"{metric}_chance_p95"


def reported(metric: str, level: ChanceLevel | None) -> dict[str, float]:
    """The chance values a task reports with each document (NaN when no stored level applies)."""
    mean_key, p95_key = metric_names(metric)
    if level is None:
        return {mean_key: math.nan, p95_key: math.nan}
    return {mean_key: level.mean, p95_key: level.p95}
