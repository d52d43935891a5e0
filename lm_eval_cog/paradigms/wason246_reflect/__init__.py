"""Wason's 2-4-6 with a metacognition turn after the stated rule (CogProbe's induction
task with its metacognition pass).

Exposes :data:`PARADIGM`; see ``README.md`` in this folder, :mod:`lm_eval_cog.paradigms.wason246`
and :mod:`lm_eval_cog.metacognition`.
"""

from __future__ import annotations

from lm_eval_cog.paradigms.base import Paradigm
from lm_eval_cog.paradigms.wason246_reflect.agents import (
    AGENTS,
    ConfirmatoryReflecting,
    OptimalReflecting,
    OverconfidentReflecting,
    RandomReflecting,
    SecondGuessingReflecting,
    SelfCorrectingReflecting,
)
from lm_eval_cog.paradigms.wason246_reflect.env import (
    CLOSING,
    MODES,
    PRESETS,
    REFLECTION,
    Wason246ReflectEnv,
    Wason246ReflectParams,
    outcome,
    read_new_rule,
    reflection_message,
    same_rule,
)
from lm_eval_cog.paradigms.wason246_reflect.scoring import (
    METRIC_NAMES,
    REFLECTION_NAMES,
    RULE_STATED,
    metric_specs,
    reflection_values,
    wason246_reflect_metrics,
)

PARADIGM = Paradigm(
    name="wason246_reflect",
    params_cls=Wason246ReflectParams,
    presets=PRESETS,
    default_preset="cogprobe6",
    env_cls=Wason246ReflectEnv,
    metrics=wason246_reflect_metrics,
    metric_specs=metric_specs,
    agents=AGENTS,
    heuristic="overconfident",
    # The rule after reflection, as the reflect paradigm's primary metric.
    primary_metric="acc_final",
    # What the model is told (strategy) and which request it gets (mode) change nothing for a
    # random player's score distribution.
    chance_invariant=("strategy", "mode"),
)

__all__ = [
    "AGENTS",
    "CLOSING",
    "METRIC_NAMES",
    "MODES",
    "PARADIGM",
    "PRESETS",
    "REFLECTION",
    "REFLECTION_NAMES",
    "RULE_STATED",
    "ConfirmatoryReflecting",
    "OptimalReflecting",
    "OverconfidentReflecting",
    "RandomReflecting",
    "SecondGuessingReflecting",
    "SelfCorrectingReflecting",
    "Wason246ReflectEnv",
    "Wason246ReflectParams",
    "metric_specs",
    "outcome",
    "read_new_rule",
    "reflection_message",
    "reflection_values",
    "same_rule",
    "wason246_reflect_metrics",
]
