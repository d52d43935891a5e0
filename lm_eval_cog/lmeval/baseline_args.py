"""``--model_args`` of ``cog_baseline``, checked without lm-eval: the model and ``lm_eval``'s
pre-flight check (:mod:`lm_eval_cog.lmeval.preflight`) refuse the same mistakes in the same words."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lm_eval_cog.paradigms import available, get_paradigm
from lm_eval_cog.paradigms.base import unknown_name_message
from lm_eval_cog.paradigms.probe_base import POLICIES as PROBE_POLICIES
from lm_eval_cog.probes.oddball.agents import AGENTS as ODDBALL_AGENTS

#: Scripted replies to the single-turn probes, by the ``probe`` field of their documents.
PROBE_AGENTS = {"oddball": ODDBALL_AGENTS}
#: ``--model_args`` of this model; lm-eval adds its own generic ones (from --batch_size,
#: --max_batch_size, --device), which a scripted player has no use for.
MODEL_ARGS = ("policy",)
LM_EVAL_ARGS = ("batch_size", "max_batch_size", "device")


def known_policies() -> list[str]:
    """Every policy some task of this package accepts (each task checks its own list when played)."""
    names = {"random", "heuristic", *PROBE_POLICIES}
    for name in available():
        names.update(get_paradigm(name).policies())
    for agents in PROBE_AGENTS.values():
        names.update(agents)
    return sorted(names)


def check_baseline_args(policy: Any, extra: Iterable[str]) -> None:
    """Refuse a misspelt model argument (``polcy=optimal`` must not play the default policy
    silently) and an unknown policy: one ``ValueError`` line naming each."""
    unknown = sorted(k for k in extra if k not in LM_EVAL_ARGS)
    if unknown:
        raise ValueError(" ".join(unknown_name_message("cog_baseline model_args", k, MODEL_ARGS) for k in unknown))
    if not isinstance(policy, str) or not policy:
        raise ValueError(f"cog_baseline: model_args policy must be a policy name, got {policy!r}")
    if policy not in known_policies():
        raise ValueError(unknown_name_message("cog_baseline policy", policy, known_policies()))
