"""``--model cog_baseline --model_args policy=<name>``: scripted reference agents as an lm-eval model.

They play the same environments through the same runner and write ordinary
results JSON: the chance (``random``) and ceiling (``optimal``) rows of a table,
plus heuristics (e.g. ``perseverative``). The agent of episode i is seeded from
the episode seed, so reruns are identical.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM

from lm_eval_cog import runner
from lm_eval_cog.lmeval import run_names
from lm_eval_cog.lmeval.seam import run_requests
from lm_eval_cog.lmeval.baseline_args import LM_EVAL_ARGS, MODEL_ARGS, PROBE_AGENTS  # noqa: F401 - API
from lm_eval_cog.lmeval.baseline_args import check_baseline_args, known_policies  # noqa: F401 - API
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import agent_rng, unknown_name_message
from lm_eval_cog.probes.core import REGISTRY as STATIC_PROBES
from lm_eval_cog.probes.core import get_probe

# Runs of this model land in <output_path>/cog_baseline__<policy>/, not in a random-named folder.
run_names.install()


class ScriptedPlayer:
    """One reference agent per episode; replies from ``agent.act(message, info)``."""

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self._agents: dict[int, Any] = {}

    def respond(self, episodes: Sequence[runner.Episode]) -> list[str | BaseException]:
        replies: list[str | BaseException] = []
        for ep in episodes:
            try:
                replies.append(self._agent(ep).act(ep.current.user, ep.info))
            except Exception as exc:  # noqa: BLE001 - recorded as this episode's failure
                replies.append(exc)
        return replies

    def _agent(self, ep: runner.Episode) -> Any:
        # A game's seats share one agent (it reads the role from info), as in the chance simulations.
        key = id(ep.owner if ep.owner is not None else ep)
        if key not in self._agents:
            paradigm = get_paradigm(ep.spec["paradigm"])
            self._agents[key] = paradigm.make_agent(self.policy, ep.env.params, agent_rng(ep.spec["seed"]))
        return self._agents[key]


class BaselineLM(LM):
    """An lm-eval model that only plays interactive ``cog_*`` tasks, with a scripted policy."""

    #: The visual tasks (``cog_wcst_visual*``) are the same episodes drawn: the agents play them
    #: from the structured stimulus (no image is ever drawn), so lm-eval must not refuse them.
    MULTIMODAL = True

    def __init__(self, policy: str = run_names.DEFAULT_POLICY, **kwargs: Any) -> None:
        super().__init__()
        check_baseline_args(policy, kwargs)  # lm_eval's pre-flight makes the same check earlier
        self.policy = policy

    def cog_episode(self, requests: Sequence[Instance]) -> list[str]:
        """Interactive tasks: every episode played by the policy's agent, in lock step."""
        # Validate the policy against every paradigm requested before playing anything.
        for spec in {req.args[1]["spec"]["paradigm"] for req in requests}:
            paradigm = get_paradigm(spec)
            params = paradigm.make_params()
            paradigm.make_agent(self.policy, params, np.random.default_rng(0))
        return run_requests(requests, ScriptedPlayer(self.policy), progress=True)

    def _probe_choice(self, doc: Any) -> int | None:
        """The choice of a static probe's document (``cog_<probe>_mc/_gen``), or None
        for any other document. The same for both forms of the task."""
        if not isinstance(doc, dict) or doc.get("probe") not in STATIC_PROBES:
            return None
        return get_probe(doc["probe"]).policy_choice(self.policy, doc, agent_rng(doc["seed"]))

    def loglikelihood(self, requests: Sequence[Instance], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        """Static probes' ``_mc`` forms: log-likelihood 0 for the policy's choice, -1 for the others.

        Any other multiple-choice task (e.g. MMLU): only ``policy=random`` plays it, as a random
        guesser, the chance row beside a model's; the other policies need the task's rules.
        """
        out = []
        for req in requests:
            choice = self._probe_choice(req.doc)
            if choice is None:
                out.append(self._guess(req))
            else:
                out.append((0.0, True) if req.idx == choice else (-1.0, False))
        return out

    def _guess(self, req: Instance) -> tuple[float, bool]:
        """A log-likelihood drawn uniformly from (-1, 0], seeded by (task, document, choice), so the
        highest one (lm-eval's ``acc``) is a uniformly random choice and reruns are identical."""
        if self.policy != "random":
            self._static()
        key = f"{req.task_name}\0{req.doc_id}\0{req.idx}".encode()
        seed = int.from_bytes(hashlib.sha256(key).digest()[:8], "little")
        return -float(np.random.default_rng(seed).random()), False

    def generate_until(self, requests: Sequence[Instance], disable_tqdm: bool = False) -> list[str]:
        """Single-turn probes of this package (``cog_oddball``, the static probes' ``_gen``
        forms): the policy's scripted reply."""
        replies = []
        for req in requests:
            doc = req.doc if isinstance(req.doc, dict) else {}
            choice = self._probe_choice(doc)
            if choice is not None:
                replies.append(f"Answer: {doc['choices'][choice]}")
                continue
            agents = PROBE_AGENTS.get(doc.get("probe"))
            if agents is None:
                self._static()
            if self.policy not in agents:
                raise ValueError(unknown_name_message(f"{doc['probe']} policy", self.policy, sorted(agents)))
            replies.append(agents[self.policy](doc, agent_rng(doc["seed"])))
        return replies

    def _static(self, *args: Any, **kwargs: Any) -> list[Any]:
        raise NotImplementedError(
            f"cog_baseline policy={self.policy!r} plays this package's cog_* tasks only (e.g. --tasks cog_wcst); "
            "policy=random also guesses at any multiple-choice task; other tasks need a language model"
        )

    loglikelihood_rolling = _static

    @property
    def tokenizer_name(self) -> str:
        return f"cog_baseline-{self.policy}"
