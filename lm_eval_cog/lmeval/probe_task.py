"""lm-eval hooks of the static probes' YAML tasks (the only probe code that knows lm-eval).

A probe task is an ordinary YAML task::

    task: cog_stroop_mc
    include: ../_probe_mc.yaml           # class, dataset, process_results, form
    metadata: {version: 1.0, probe: stroop}
    metric_list: [...]                   # acc, acc_<condition>, effects (aggregation: !function)

``dataset`` builds the documents with the probe's pure generator; ``process_mc`` /
``process_gen`` score them with the probe. Run parameters come from the task metadata,
merged by lm-eval with ``--metadata`` (the CLI wins):

* ``items``: documents per task (default: the probe's, 300);
* ``seed``: task seed; default lm-eval's ``--seed`` fourth value (1234 by default);
* ``<probe>`` (e.g. ``stroop``): a dict of parameter overrides, validated by name,
  e.g. ``--metadata '{"stroop": {"colours": 6}}'``.

:class:`ProbeTask` adds two things lm-eval's YAML cannot express: the documents
follow ``--seed`` (``custom_dataset`` never sees it), and every metric the probe
reports is checked against the YAML's ``metric_list`` when the task is built.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import datasets

from lm_eval_cog.answers import find_answer
from lm_eval_cog.lmeval.compat import GenerateTaskBase, MultipleChoiceTaskBase, process_results_metric
from lm_eval_cog.lmeval.settings import probe_settings
from lm_eval_cog.probes.core import NO_ANSWER, Probe, get_probe

DEFAULT_SEED = 1234  # lm-eval's default task-side (fewshot) seed
FORMS = {"multiple_choice": "mc", "generate_until": "gen"}


def dataset(**metadata: Any) -> dict[str, datasets.Dataset]:
    """``custom_dataset``: the probe's documents for ``seed`` (see the module docstring)."""
    probe, params, items, seed = probe_settings(metadata, DEFAULT_SEED)
    return {"test": _documents(probe.name, seed, items, params)}


@lru_cache(maxsize=64)
def _documents(probe: str, seed: int, items: int, params: Any) -> datasets.Dataset:
    # The _mc and _gen tasks of a probe ask for the same documents: generated once per process
    # (the planners of the tower probes take seconds). A Dataset is immutable, so one can be shared.
    return datasets.Dataset.from_list(get_probe(probe).generate(seed, items, params))


def answer_of(reply: Any) -> str:
    """What the ``answer_line`` filter keeps of one reply: the text of its answer (the
    answer line, then its continuation lines) as :func:`lm_eval_cog.answers.find_answer`
    reads it, or :data:`~lm_eval_cog.paradigms.probe_base.NO_ANSWER` (``[invalid]``) without one."""
    found = find_answer(reply) if isinstance(reply, str) else None
    return NO_ANSWER if found is None else found.block


def answer_filter(resps: Any, docs: Any) -> list[list[str]]:
    """lm-eval ``custom`` filter (``filter_fn``) of the ``_gen`` tasks: :func:`answer_of`
    of every response of every document (lm-eval's ``take_first`` then keeps the first)."""
    return [[answer_of(reply) for reply in replies] for replies in resps]


def _every_metric(probe: Probe, form: str, scores: dict[str, Any]) -> dict[str, Any]:
    """``scores`` with NaN for the metrics of other conditions (aggregated by ``nanmean``).

    Every document reports every metric: under ``accelerate launch`` lm-eval gathers the
    per-document values of the metric names rank 0 saw, from every rank, so a metric absent on
    one rank (``acc_neutral`` with no neutral item among its documents) was a ``KeyError``, and
    one absent on rank 0 was dropped. It also keeps the per-rank lists aligned document by
    document (:mod:`lm_eval_cog.lmeval.data_parallel` restores the document order from them).
    """
    return {**dict.fromkeys(probe.partial_metrics(form), math.nan), **scores}


def process_gen(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """``process_results`` of a ``_gen`` task: ``results[0]`` is what the ``answer_line``
    filter kept (:func:`answer_of`), read by :meth:`~lm_eval_cog.paradigms.probe_base.Probe.read_answer`."""
    probe = get_probe(doc["probe"])
    return _every_metric(probe, "gen", probe.score_gen(doc, results[0]))


def process_mc(doc: dict[str, Any], results: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    """``process_results`` of a ``_mc`` task: one ``(loglikelihood, is_greedy)`` per choice."""
    probe = get_probe(doc["probe"])
    return _every_metric(probe, "mc", probe.score_mc(doc, [ll for ll, _ in results]))


def _form_docs(probe: Probe, form: str, then: Any = None) -> Any:
    """``process_docs`` of a probe task: the documents its form asks (:meth:`Probe.in_form`), then the
    YAML's own ``process_docs`` if it has one. Both forms share one generated set, so document i is
    the same item in both and in the reflection tasks."""

    def process(docs: datasets.Dataset) -> datasets.Dataset:
        keep = [i for i, doc in enumerate(docs) if probe.in_form(doc, form)]
        docs = docs if len(keep) == len(docs) else docs.select(keep)
        return docs if then is None else then(docs)

    return process


class _SeededProbe:
    """A YAML probe task whose documents follow lm-eval's ``--seed``.

    lm-eval builds the dataset when the task is made and only then hands over its
    task-side seed (``set_fewshot_seed``); the documents are rebuilt from it unless
    ``--metadata`` names a seed, exactly as the interactive tasks derive their episodes.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        cfg = {k: v for k, v in (config or {}).items() if k != "class"}
        meta = cfg.get("metadata") or {}
        probe, *_ = probe_settings(meta, DEFAULT_SEED)  # bad parameters fail here, before any model call
        form = FORMS.get(cfg.get("output_type", ""))
        if form is None:
            raise ValueError(f"task {cfg.get('task')!r}: a probe task is multiple_choice or generate_until")
        declared = [m["metric"] for m in cfg.get("metric_list") or []]
        expected = probe.metric_names(form)
        if sorted(declared) != sorted(expected):
            raise ValueError(
                f"task {cfg.get('task')!r}: metric_list must name exactly the metrics probe {probe.name!r} "
                f"reports; missing {sorted(set(expected) - set(declared))}, extra {sorted(set(declared) - set(expected))}"
            )
        self._metadata_seed = meta.get("seed") is not None
        cfg["process_docs"] = _form_docs(probe, form, cfg.get("process_docs"))
        cfg["metric_list"] = [{**m, "metric": process_results_metric(m["metric"])} for m in cfg["metric_list"]]
        super().__init__(config=cfg)
        self._doc_seed = DEFAULT_SEED

    def set_fewshot_seed(self, seed: int | None = None) -> None:
        super().set_fewshot_seed(seed)
        if seed is None or self._metadata_seed or int(seed) == self._doc_seed:
            return
        self._doc_seed = int(seed)
        self.dataset = dataset(**{**(self.config.metadata or {}), "seed": self._doc_seed})


class ProbeTask(_SeededProbe, GenerateTaskBase):
    """The ``_gen`` form (lm-eval 0.5 needs the class of the output type, 0.4.13 has one)."""


class ProbeMCTask(_SeededProbe, MultipleChoiceTaskBase):
    """The ``_mc`` form."""
