"""Metacognitive reflection over the static probes' items (CogProbe, Cui et al.).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder and :mod:`lm_eval_cog.metacognition`.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.reflect.agents import (
    AGENTS,
    OptimalPlayer,
    OverconfidentPlayer,
    RandomPlayer,
    SecondGuessingPlayer,
    SelfCorrectingPlayer,
)
from lm_eval_cog.paradigms.reflect.env import (
    GEN_SUFFIX,
    MODES,
    PRESETS,
    REFLECT_PROBES,
    ReflectEnv,
    ReflectParams,
    drawn_document,
    first_prompt,
    probe_document,
    read_first,
    reflection_message,
)
from lm_eval_cog.paradigms.reflect.scoring import METRIC_NAMES, metric_specs, reflect_metrics

PARADIGM = Paradigm(
    name="reflect",
    params_cls=ReflectParams,
    presets=PRESETS,
    default_preset="deduction",
    env_cls=ReflectEnv,
    metrics=reflect_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="overconfident",
    # The answer after reflection: the chance level is the mean of 1 / (number of choices).
    primary_metric="acc_final",
    # What the model is asked (mode), and which task document an episode asks, change nothing
    # for a random player's score distribution over the probe's items.
    chance_invariant=("strategy", "mode", "document"),
)

__all__ = [
    "AGENTS",
    "GEN_SUFFIX",
    "METRIC_NAMES",
    "MODES",
    "PARADIGM",
    "PRESETS",
    "REFLECT_PROBES",
    "OptimalPlayer",
    "OverconfidentPlayer",
    "RandomPlayer",
    "ReflectEnv",
    "ReflectParams",
    "SecondGuessingPlayer",
    "SelfCorrectingPlayer",
    "drawn_document",
    "first_prompt",
    "metric_specs",
    "probe_document",
    "read_first",
    "reflect_metrics",
    "reflection_message",
]
