"""One lm-eval task class for every interactive paradigm.

A task YAML names the class, a paradigm, a preset and a strategy::

    task: cog_wcst
    class: !function lm_eval_cog.lmeval.task.InteractiveTask
    metadata: {version: 1.0, paradigm: wcst, preset: wcst64, strategy: cot}

Each document is one episode (index ``i``); each document yields one
``cog_episode`` request, which lm-eval's evaluator dispatches to
``lm.cog_episode`` (see :mod:`lm_eval_cog.lmeval.seam`). The config keeps
``output_type: generate_until`` so that ``--gen_kwargs`` reaches these tasks.

Run parameters come from the task metadata, which lm-eval merges from the YAML,
``--model_args`` and ``--metadata`` (the CLI wins):

* ``episodes`` (default 30): number of episodes (``--limit`` still applies);
* ``seed``: task seed; episode i is seeded from (seed, i) alone. Default: lm-eval's
  ``--seed`` fourth value (its task-side seed, 1234 by default);
* ``<paradigm>`` (e.g. ``wcst``): a dict of parameter overrides, validated by name,
  e.g. ``--metadata '{"wcst": {"trials": 40}}'``; applied over the YAML's ``variant``
  (the parameters that define a task, e.g. ``{fixed_rule: shape}``).

Besides the paradigm's metrics each task reports ``episode_failed`` and the chance level
of its primary metric (``<metric>_chance``: mean score of random players,
``<metric>_chance_p95``: their 95th percentile, Reflection-Bench's significance
threshold), both per episode, from ``paradigms/chance_levels.json``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import datasets
from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

from lm_eval_cog import runner
from lm_eval_cog.lmeval import seam
from lm_eval_cog.lmeval.compat import make_instance, metric_fn_names, process_results_metric
from lm_eval_cog.lmeval.settings import DEFAULT_EPISODES, interactive_settings, paradigm_overrides  # noqa: F401 - API
from lm_eval_cog.lmeval.settings import refuse_fewshot as _refuse_fewshot
from lm_eval_cog.paradigms import chance, make_env
from lm_eval_cog.paradigms.base import episode_seed
from lm_eval_cog.rendering import Renderer, render_plain
from lm_eval_cog.stderr import nanmean
from lm_eval_cog.transcripts import CACHED_METRIC, FAILED_METRIC, score_transcript

_LOG = logging.getLogger(__name__)
DEFAULT_TASK_SEED = 1234  # lm-eval's default fewshot/task seed
REQUEST_TYPE = seam.REQUEST_TYPE
seam.install()  # every lm-eval model gains ``cog_episode`` once a cog task is loaded
# Generation defaults per strategy: replies that reason need room; all greedy.
_DEFAULT_GEN = {
    "direct": {"until": [], "max_gen_toks": 32, "do_sample": False},
    "free": {"until": [], "max_gen_toks": 256, "do_sample": False},
    "cot": {"until": [], "max_gen_toks": 512, "do_sample": False},
}
_RUN_KEYS = ("episodes", "seed")


class InteractiveTask(ConfigurableTask):
    """An lm-eval task whose documents are seeded episodes of an interactive paradigm."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        cfg = {k: v for k, v in (config or {}).items() if k != "class"}
        meta = dict(cfg.get("metadata") or {})
        # Validates every name and value now, before any model call (the same checks as lm_eval's pre-flight).
        settings = interactive_settings(meta, cfg.get("task"))
        self.paradigm, strategy, overrides = settings.paradigm, settings.strategy, settings.overrides
        self.params, self.episodes, self.task_seed = settings.params, settings.episodes, settings.task_seed

        cfg["output_type"] = "generate_until"
        cfg.setdefault("test_split", "test")
        cfg["generation_kwargs"] = {**_DEFAULT_GEN[strategy], **(cfg.get("generation_kwargs") or {})}
        cfg["metric_list"] = [
            {"metric": s.name, "aggregation": nanmean, "higher_is_better": s.higher_is_better}
            for s in self.paradigm.metric_specs
        ] + [
            {"metric": FAILED_METRIC, "aggregation": "mean", "higher_is_better": False},
            {"metric": CACHED_METRIC, "aggregation": nanmean, "higher_is_better": True},
        ]
        # Chance level of the primary metric for these parameters (NaN once a parameter
        # leaves the preset): constants, reported beside the score in the results JSON.
        self.chance = chance.for_params(self.paradigm, meta["preset"], self.params)
        cfg["metric_list"] += [
            {"metric": name, "aggregation": "mean", "higher_is_better": True}
            for name in chance.metric_names(self.paradigm.primary_metric)
        ]
        # Every value comes from process_results; lm-eval 0.5 needs them marked so (compat).
        cfg["metric_list"] = [{**m, "metric": process_results_metric(m["metric"])} for m in cfg["metric_list"]]
        # Marks metrics as computed by process_results (no per-metric functions).
        cfg["process_results"] = "InteractiveTask.process_results"
        cfg["metadata"] = meta
        self._preset, self._strategy, self._overrides = meta["preset"], strategy, overrides
        self._chat: dict[str, Any] = {"apply_chat_template": False, "system_instruction": None}
        self._fewshot_seed = DEFAULT_TASK_SEED
        super().__init__(config=cfg)
        # The evaluator groups requests by this; the config keeps generate_until for --gen_kwargs.
        self.OUTPUT_TYPE = REQUEST_TYPE
        # Episodes that show images (wcst modality "image"): lm-eval's evaluator then refuses a
        # text-only model before any request ("... require multimodal input ..."), as it does for
        # a YAML task with doc_to_image.
        if getattr(self.params, "modality", None) == "image":
            self.MULTIMODAL = True

    # ---------------------------------------------------------------- documents
    def download(self, dataset_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        docs = {
            "index": list(range(self.episodes)),
            "paradigm": [self.paradigm.name] * self.episodes,
            "preset": [self._preset] * self.episodes,
            "strategy": [self._strategy] * self.episodes,
            "overrides": [json.dumps(self._overrides, sort_keys=True)] * self.episodes,
        }
        self.dataset = datasets.DatasetDict({"test": datasets.Dataset.from_dict(docs)})

    def set_fewshot_seed(self, seed: int | None = None) -> None:
        super().set_fewshot_seed(seed)
        if seed is not None:
            self._fewshot_seed = int(seed)

    def doc_to_text(self, doc: dict[str, Any], doc_to_text: Any = None) -> str:
        """The episode's first prompt in the plain format: ``--system_instruction``, the
        paradigm's instructions and the first trial. The runner renders the real prompts turn
        by turn; this one is what ``--write_out`` prints and the samples' ``arguments`` hold."""
        (ep,) = runner.start_episodes([self.episode_spec(doc)], make_env)
        if not ep.live:
            return f"{doc['paradigm']} episode {doc['index']}: {ep.error}"
        renderer = Renderer(chat_template=None, count_tokens=len, system_instruction=self._chat["system_instruction"])
        return render_plain(renderer.messages(runner.due_conversation(ep), 0))

    def doc_to_target(self, doc: dict[str, Any], doc_to_target: Any = None) -> str:
        return ""

    def episode_spec(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Everything needed to rebuild the episode: paradigm, params, seeds."""
        task_seed = self.task_seed if self.task_seed is not None else self._fewshot_seed
        return {
            "task": self.config.task,
            "paradigm": doc["paradigm"],
            "preset": doc["preset"],
            "strategy": doc["strategy"],
            "overrides": json.loads(doc["overrides"]),
            "task_seed": task_seed,
            "index": doc["index"],
            "seed": episode_seed(task_seed, doc["index"]),
        }

    # ---------------------------------------------------------------- lm-eval options
    def set_config(self, key: str, value: Any, update: bool = False) -> None:
        if key == "num_fewshot":  # lm-eval 0.4.13's --num_fewshot
            _refuse_fewshot(self.config.task, value)
        super().set_config(key, value, update)

    def set_num_fewshot(self, num_fewshot: int) -> None:  # lm-eval 0.5's --num_fewshot
        _refuse_fewshot(self.config.task, num_fewshot)
        super().set_num_fewshot(num_fewshot)  # type: ignore[misc]

    def override_metric(self, metric_name: str) -> None:
        # --predict_only. lm-eval 0.5 rebuilds its scorer for OUTPUT_TYPE, which here is the
        # request type (cog_episode); the replies are scored as the generate_until they are.
        self.OUTPUT_TYPE = "generate_until"
        try:
            super().override_metric(metric_name)
        finally:
            self.OUTPUT_TYPE = REQUEST_TYPE

    def build_all_requests(self, **kwargs: Any) -> Any:
        # --cache_requests would replay requests built with earlier parameters (the cache key
        # is task, shots and rank, not --metadata): ours cost nothing to build, so never cache.
        if kwargs.get("cache_requests") or kwargs.get("rewrite_requests_cache"):
            _LOG.info(f"{self.config.task}: --cache_requests does not apply to interactive tasks (built fresh)")
        kwargs["cache_requests"] = kwargs["rewrite_requests_cache"] = False
        return super().build_all_requests(**kwargs)

    # ---------------------------------------------------------------- requests
    def fewshot_context(self, doc: dict[str, Any], num_fewshot: int, **kwargs: Any) -> str:
        # The real prompts are rendered turn by turn by the runner; remember how.
        self._chat = {
            "apply_chat_template": bool(kwargs.get("apply_chat_template")),
            "system_instruction": kwargs.get("system_instruction"),
        }
        return self.doc_to_text(doc)

    def construct_requests(self, doc: dict[str, Any], ctx: str, **kwargs: Any) -> Instance:
        payload = {
            "spec": self.episode_spec(doc),
            "gen_kwargs": dict(self.config.generation_kwargs or {}),
            **self._chat,
        }
        return make_instance(
            REQUEST_TYPE,
            (ctx, payload),
            doc=doc,
            task_name=self.config.task,
            doc_id=kwargs.get("doc_id"),
            metadata=kwargs.get("metadata"),
        )

    # ---------------------------------------------------------------- scoring
    def process_results(self, doc: dict[str, Any], results: list[Any]) -> dict[str, float]:
        if "bypass" in metric_fn_names(self):  # --predict_only
            return {"bypass": None}
        return {
            **score_transcript(results[0], self.paradigm),
            **chance.reported(self.paradigm.primary_metric, self.chance),
        }
