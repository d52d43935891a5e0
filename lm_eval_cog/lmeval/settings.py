"""A task's run settings from its merged metadata (YAML, ``--model_args``, ``--metadata``), validated.

The task classes build their settings here, and the ``lm_eval`` pre-flight check
(:mod:`lm_eval_cog.lmeval.preflight`) runs the same checks on the YAML's metadata before lm-eval
builds its task index: one function per kind of task, so the two cannot disagree. Nothing here
imports lm-eval, ``datasets`` or torch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from lm_eval_cog.lmeval.metadata_keys import check_metadata_keys, check_misplaced_parameters
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import Paradigm, coerce_strategy, require_int
# probe_base, not probes.core: the interactive path must not import rapidfuzz (the vLLM lane has none).
from lm_eval_cog.paradigms.probe_base import Probe, get_probe

DEFAULT_EPISODES = 30
ODDBALL = "oddball"


@dataclasses.dataclass(frozen=True)
class InteractiveSettings:
    """What an interactive task's metadata resolves to."""

    paradigm: Paradigm
    preset: str
    strategy: str
    overrides: dict[str, Any]
    params: Any
    episodes: int
    task_seed: int | None


def paradigm_overrides(meta: Mapping[str, Any], paradigm: str) -> dict[str, Any]:
    """The parameter overrides of a task: its YAML's ``variant`` (what makes the task, e.g.
    ``{fixed_rule: shape}``), then ``metadata.<paradigm>`` (the user's ``--metadata``) on top.

    lm-eval merges ``--metadata`` into the YAML's metadata key by key, so a variant kept under
    ``<paradigm>`` would be replaced, not extended, by ``--metadata '{"wcst": {...}}'``.
    """
    merged: dict[str, Any] = {}
    for key in ("variant", paradigm):
        part = meta.get(key) or {}
        if not isinstance(part, dict):
            raise ValueError(f"metadata.{key} must be a dict of parameter overrides, got {part!r}")
        merged.update(part)
    return merged


def interactive_settings(meta: Mapping[str, Any], task: object = None) -> InteractiveSettings:
    """Validate every name and value of an interactive task's metadata (``ValueError`` naming it)."""
    for key in ("paradigm", "preset", "strategy"):
        if key not in meta:
            raise ValueError(f"task {task!r}: metadata.{key} is required for an interactive task")
    paradigm = get_paradigm(meta["paradigm"])
    strategy = coerce_strategy(meta["strategy"]).value
    overrides = paradigm_overrides(meta, paradigm.name)
    params = paradigm.make_params(meta["preset"], strategy, overrides)
    episodes = require_int("metadata", "episodes", meta.get("episodes", DEFAULT_EPISODES), 1)
    task_seed = None if meta.get("seed") is None else require_int("metadata", "seed", meta["seed"], 0)
    check_metadata_keys(meta)
    return InteractiveSettings(paradigm, meta["preset"], strategy, overrides, params, episodes, task_seed)


def probe_and_params(meta: Mapping[str, Any]) -> tuple[Probe, Any]:
    """A static probe task's probe and its parameters (``metadata.<probe>`` overrides applied)."""
    if "probe" not in meta:
        raise ValueError("metadata.probe is required for a probe task (e.g. probe: stroop)")
    probe = get_probe(meta["probe"])
    overrides = meta.get(probe.name) or {}
    if not isinstance(overrides, dict):
        raise ValueError(f"metadata.{probe.name} must be a dict of parameter overrides, got {overrides!r}")
    return probe, probe.make_params(overrides)


def probe_settings(meta: Mapping[str, Any], default_seed: int) -> tuple[Probe, Any, int, int]:
    """A static probe task's probe, parameters, item count and seed, validated."""
    probe, params = probe_and_params(meta)
    items = require_int("metadata", "items", meta.get("items", probe.default_items), 1)
    seed = require_int("metadata", "seed", meta.get("seed", default_seed), 0)
    check_metadata_keys(meta)
    return probe, params, items, seed


def _fields(params_cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(params_cls)] if dataclasses.is_dataclass(params_cls) else []


def refuse_fewshot(task: str, value: Any) -> None:
    """``--num_fewshot N`` (N > 0) on an interactive task: refused, with why."""
    if value not in (None, 0):
        raise ValueError(
            f"{task}: --num_fewshot {value} is not supported by interactive tasks. An episode has no "
            "worked examples to prepend: the paradigm's instructions and the feedback after every answer "
            "are the whole protocol. Leave --num_fewshot out (or pass 0)."
        )


def check_task_metadata(meta: Mapping[str, Any], task: str, task_class: str = "",
                        user_metadata: Mapping[str, Any] | None = None) -> None:
    """Every check a task of this package makes of its metadata when lm-eval builds it, without building
    it; with ``user_metadata`` (``--metadata`` alone), also a parameter of its paradigm or probe put at
    the top level (:func:`~lm_eval_cog.lmeval.metadata_keys.check_misplaced_parameters`)."""
    if "paradigm" in meta:
        settings = interactive_settings(meta, task)
        check_misplaced_parameters(user_metadata or {}, settings.paradigm.name, _fields(settings.paradigm.params_cls))
    elif "probe" in meta:
        probe, *_ = probe_settings(meta, 0)
        check_misplaced_parameters(user_metadata or {}, probe.name, _fields(probe.Params))
    elif ODDBALL in task_class:
        from lm_eval_cog.probes.oddball.stimuli import OddballParams

        require_int("metadata", "episodes", meta.get("episodes", 1), 1)
        require_int("metadata", "seed", meta.get("seed", 0), 0)
        overrides = meta.get(ODDBALL) or {}
        if not isinstance(overrides, dict):
            raise ValueError(f"metadata.{ODDBALL} must be a dict of parameter overrides, got {overrides!r}")
        try:
            OddballParams(**overrides)
        except TypeError as error:
            raise ValueError(f"metadata.{ODDBALL}: {error}") from None
        check_metadata_keys(meta)
    else:
        if meta.get("seed") is not None:
            require_int("metadata", "seed", meta["seed"], 0)
        check_metadata_keys(meta)
