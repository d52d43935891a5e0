"""The base of every static probe: documents, answer reading, per-document scores, and the registry.

The probes themselves are the modules of :mod:`lm_eval_cog.probes`; this base sits in the
paradigm layer so that a paradigm that asks a probe's items (``reflect``) and the probes
both build on it, and it finds the probes by name (:func:`get_probe`), importing none.

A probe is a pure generator (no lm-eval, no torch) of single-prompt items with an
exact key. Its documents serve two lm-eval forms of one task:

* ``cog_<probe>_mc`` (``multiple_choice``): the model's log-likelihood of each
  choice after ``prompt`` + "Answer:"; base models run it.
* ``cog_<probe>_gen`` (``generate_until``): the model writes a reply ending with an
  ``Answer: ...`` line; the ``answer_line`` filter keeps its answer as
  :mod:`lm_eval_cog.answers` reads replies (the rule is written down there), and
  :meth:`Probe.read_answer` maps it onto a choice, or onto nothing (invalid: wrong *and*
  counted in ``invalid_rate``, never turned into a choice).

Every document has these fields (plus the probe's own):

``probe``, ``index``, ``seed``
    Provenance: document i of a task is drawn from a generator seeded with (task seed, i)
    (redrawn from it while it repeats an earlier document: see :meth:`Probe.generate`).
``prompt``
    The item, with its instructions (and the options where the probe shows them).
``choices``, ``gold``
    The answer options and the index of the right one.
``condition``
    The experimental condition of the item (e.g. ``congruent``); its accuracy is
    reported as ``acc_<condition>``.
``lure``
    Index of the prepotent wrong answer (e.g. the word in an incongruent Stroop
    item), or -1 where the prepotent response is right or there is none. The
    ``prepotent`` reference player answers it (else ``gold``); the MC form reports
    the lure margin log p(gold) - log p(lure).

Conditions are assigned by index in a fixed cycle, so that ``--limit`` keeps them
balanced.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog import answers
from lm_eval_cog.answers import AnswerText
from lm_eval_cog.paradigms.base import episode_seed, require_int, unknown_name_message

#: What the ``answer_line`` filter keeps of a reply without an answer (see the YAML).
NO_ANSWER = "[invalid]"
#: Draws per document before a probe is declared too small for the number of items asked.
MAX_DRAWS = 200
#: The package that holds the probes, and its modules that are not probes (a probe's helpers start with "_").
PROBES_PACKAGE = "lm_eval_cog.probes"
_NOT_PROBES = {"core", "aggregations", "reference"}
#: The probes, by name -> module: every module ``lm_eval_cog.probes.<name>`` (not a
#: subpackage, not private) defines ``PROBE``, an instance of :class:`Probe` named ``<name>``.
#: Found by name, as paradigms are, so this module imports none of them.
REGISTRY: dict[str, str] = {
    m.name: f"{PROBES_PACKAGE}.{m.name}"
    for m in pkgutil.iter_modules([str(Path(__file__).parent.parent / "probes")])
    if not m.ispkg and not m.name.startswith("_") and m.name not in _NOT_PROBES
}
#: Standard metrics aggregated otherwise than by the mean: name -> (aggregation, higher_is_better).
#: ``ece``: the MC form's implicit calibration (see :meth:`Probe.score_mc`); ``brier_score`` is the mean
#: over the items with finite log-likelihoods (an invalid item's is NaN, left out; null when none is).
CALIBRATION: dict[str, tuple[str, bool]] = {
    "ece": ("ece", False),
    "brier_score": ("lm_eval_cog.stderr.nanmean", False),  # NANMEAN
}
#: The aggregation of the per-condition accuracies and the lure margins: a mean over the documents
#: that define them (NaN elsewhere: another condition, an invalid ``_mc`` item).
NANMEAN = "lm_eval_cog.stderr.nanmean"
#: The reference players of ``--model cog_baseline`` on probes.
POLICIES = ("random", "optimal", "prepotent")
#: The probes' characteristic non-ideal player (``policy="heuristic"``, as every paradigm declares one).
HEURISTIC = "prepotent"


@dataclasses.dataclass(frozen=True)
class Heuristic:
    """A construct-irrelevant strategy that a probe's literature knows (atmosphere for syllogisms,
    matching bias for Wason's selection task, familiarity for n-back, ...): a way to answer that
    does not do the task. The shortcut audit plays it beside its surface strategies; a probe whose
    headline a heuristic lifts above chance measures the heuristic, not the ability.

    Attributes:
        name: Short name, unique within the probe (``atmosphere``).
        citation: One line: where the heuristic comes from (``Woodworth & Sells 1935``).
        scores: ``(stem, options) -> one score per option`` (the highest picked, ties split evenly),
            or ``None`` where the item gives it nothing to go on (a uniform guess). It sees only what
            the model is shown: the prompt with its options listing cut (``stem``) and the option
            texts, never the document's fields.
        conditions: The conditions it applies to (empty: every condition).
    """

    name: str
    citation: str
    scores: Callable[[str, Sequence[str]], Sequence[float] | None]
    conditions: tuple[str, ...] = ()


def normalize_answer(text: str) -> str:
    """The comparable form of an answer: NFKC, case-folded, inner blanks collapsed,
    quotes, brackets, Markdown and final punctuation stripped ("**Blue.**" -> "blue").
    (:func:`lm_eval_cog.answers.normalize`.)"""
    return answers.normalize(text)


class Probe:
    """Base class of a probe: subclasses set the class attributes and :meth:`item`.

    Attributes:
        name: Registry name; tasks are ``cog_<name>_mc`` / ``cog_<name>_gen``.
        ability: The ability group (``inhibition``, ``working_memory``, ...).
        Params: A frozen dataclass of the probe's parameters; it validates itself in
            ``__post_init__`` (an invalid value raises a ``ValueError`` naming it).
        conditions: Every value ``condition`` takes, in the order reported.
        lure_conditions: The conditions whose items have a lure (``lure_margin_<c>``).
        effects: Extra per-document metrics: name -> (aggregation function name in
            :mod:`lm_eval_cog.probes.aggregations`, higher_is_better).
        default_items: Items per task (300 distinct items: a standard error <= 0.029 on accuracy, about
            0.05 per condition of three).
        version: The tasks' ``metadata.version``: bump it with any change to the items.
    """

    name: ClassVar[str]
    ability: ClassVar[str]
    Params: ClassVar[type]
    conditions: ClassVar[tuple[str, ...]]
    lure_conditions: ClassVar[tuple[str, ...]] = ()
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {}
    default_items: ClassVar[int] = 300
    version: ClassVar[float] = 1.0
    #: Conditions the shortcut audit pools into one cell: those whose key is fixed by the condition
    #: (n-back ``target`` is always "yes"), where a constant answer is right by design within the
    #: condition and only the pooled cell can show a blind strategy. Condition -> cell name.
    audit_cells: ClassVar[Mapping[str, str]] = {}
    #: The known construct-irrelevant heuristics of the probe's literature (:class:`Heuristic`); the
    #: shortcut audit plays each one per condition.
    heuristics: ClassVar[tuple[Heuristic, ...]] = ()

    # -- generation -------------------------------------------------------------------
    def item(self, rng: np.random.Generator, params: Any, index: int) -> dict[str, Any]:
        """Item ``index`` drawn from ``rng`` (seeded from (task seed, index)): at least
        ``prompt``, ``choices``, ``gold``, ``condition``, ``lure``."""
        raise NotImplementedError

    def make_params(self, overrides: Mapping[str, Any] | None = None) -> Any:
        """``Params`` with ``overrides``, every name checked (a typo names itself)."""
        overrides = dict(overrides or {})
        fields = {f.name for f in dataclasses.fields(self.Params)}
        for key in overrides:
            if key not in fields:
                raise ValueError(unknown_name_message(f"{self.name} parameter", key, fields))
        return self.Params(**overrides)

    def generate(self, seed: int, n: int, params: Any = None) -> list[dict[str, Any]]:
        """``n`` distinct documents: no two are the same item up to option order (:meth:`identity`).

        Document i is drawn from a generator seeded with (``seed``, i); when it repeats an earlier
        document, the same generator draws again. So document i depends on (``seed``, i), ``params``
        and the documents before it: ``--limit`` N always gets the first N documents of the full set.
        A probe whose parameters allow fewer distinct items than asked raises a ``ValueError``.
        """
        seed = require_int("metadata", "seed", seed, 0)
        n = require_int("metadata", "items", n, 1)
        params = self.make_params() if params is None else params
        docs = []
        seen: set[Any] = set()
        for index in range(n):
            doc_seed = episode_seed(seed, index)
            rng = np.random.default_rng(doc_seed)
            for _ in range(MAX_DRAWS):
                body = self.item(rng, params, index)
                key = self.identity(body)
                if key not in seen:
                    break
            else:
                raise ValueError(
                    f"{self.name}: item {index} repeats an earlier item in {MAX_DRAWS} draws: these parameters "
                    f"allow about {len(seen)} distinct items; ask for fewer (metadata 'items') or widen the parameters"
                )
            seen.add(key)
            doc = {"probe": self.name, "index": index, "seed": doc_seed, **body}
            self.check_doc(doc)
            docs.append(doc)
        return docs

    def identity(self, doc: Mapping[str, Any]) -> Any:
        """What makes two items the same item, whatever the order of their options.

        Default: the prompt with its options listing (``", ".join(choices)``) put in sorted order,
        the set of options and the key's text. A probe that lists its options otherwise overrides it.
        """
        choices = [str(c) for c in doc["choices"]]
        prompt = doc["prompt"].replace(", ".join(choices), ", ".join(sorted(choices)))
        return prompt, frozenset(choices), choices[doc["gold"]], doc["condition"]

    def check_doc(self, doc: Mapping[str, Any]) -> None:
        """Fail loudly on a malformed document (a generator bug, never the model's fault)."""
        choices = doc["choices"]
        if len(choices) < 2 or len({normalize_answer(c) for c in choices}) != len(choices):
            raise AssertionError(f"{self.name} item {doc['index']}: choices must be >= 2 distinct answers: {choices}")
        if not 0 <= doc["gold"] < len(choices):
            raise AssertionError(f"{self.name} item {doc['index']}: gold {doc['gold']} out of range")
        if doc["lure"] != -1 and not (0 <= doc["lure"] < len(choices) and doc["lure"] != doc["gold"]):
            raise AssertionError(f"{self.name} item {doc['index']}: lure {doc['lure']} invalid")
        if doc["condition"] not in self.conditions:
            raise AssertionError(f"{self.name} item {doc['index']}: unknown condition {doc['condition']!r}")
        if doc["lure"] != -1 and doc["condition"] not in self.lure_conditions:
            raise AssertionError(f"{self.name} item {doc['index']}: a lure in condition {doc['condition']!r}")

    def audit_cell(self, condition: str) -> str:
        """The audit cell of ``condition`` (see :attr:`audit_cells`)."""
        return self.audit_cells.get(condition, condition)

    # -- answers ----------------------------------------------------------------------
    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """The choice an answer names: its index, -1 for a well-formed answer that is
        none of the choices (wrong, not invalid), None if unreadable (invalid).

        ``answer`` is what :meth:`read_answer` passes: an :class:`~lm_eval_cog.answers.AnswerText`,
        whose string is the cleaned answer (:func:`lm_eval_cog.answers.clean_answer`: no
        explanation, no leading article, case-folded) and whose ``line`` / ``block`` are
        the answer line / its continuation lines as written. Called with a plain string
        (as in tests), that string is the answer, uncleaned.

        Default: a closed answer set; the answer must equal one choice after
        :func:`normalize_answer`, as written or cleaned (on both sides: "the numbers
        increase" and "numbers increase" are one answer); anything else is invalid.
        """
        raw = normalize_answer(getattr(answer, "line", answer))
        keys = [normalize_answer(c) for c in doc["choices"]]
        if raw in keys:
            return keys.index(raw)
        if not isinstance(answer, AnswerText):
            return None
        wanted = str(answer)
        for cleaned in (keys, [answers.clean_answer(c) for c in doc["choices"]]):
            hits = [k for k, key in enumerate(cleaned) if key == wanted]
            if len(hits) == 1:
                return hits[0]
        return None

    def read_answer(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """The choice of a ``_gen`` answer under the one rule of :mod:`lm_eval_cog.answers`:
        None (invalid) for no answer (:data:`NO_ANSWER`) and for an answer that hedges,
        offers alternatives, corrects itself or negates (:func:`lm_eval_cog.answers.doubtful`,
        words inside a choice's text excepted); else :meth:`read` of the cleaned answer.

        ``answer``: an :class:`~lm_eval_cog.answers.AnswerText` (from
        :func:`lm_eval_cog.answers.find_answer`), or the text the ``answer_line`` filter
        kept (its first line is the answer line, all of it the block).
        """
        if not isinstance(answer, AnswerText):
            if not isinstance(answer, str) or answer == NO_ANSWER:
                return None
            answer = answers.as_answer(answer)
        if not answer or answers.doubtful(answer.line, [str(c) for c in doc["choices"]]):
            return None
        return self.read(doc, answer)

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        """Per-document values of :attr:`effects` for the answer ``pred`` (None: invalid)."""
        return {}

    # -- scores -----------------------------------------------------------------------
    def in_form(self, doc: Mapping[str, Any], form: str) -> bool:
        """Whether the ``form`` (``mc`` or ``gen``) task asks document ``doc``. Default: both forms ask
        every document; a probe whose question has no fair multiple-choice version (the towers' full
        plan) keeps it to the generation form, where the answer is scored without options."""
        return True

    def form_effects(self, form: str) -> list[str]:
        """The :attr:`effects` a ``form`` task reports (default: all of them)."""
        return list(self.effects)

    def metric_names(self, form: str) -> list[str]:
        """Every metric a document of ``form`` (``mc`` or ``gen``) can report, in order."""
        mc = form == "mc"
        names = ["acc", "acc_norm", "brier_score", "ece", "invalid_rate"] if mc else ["acc", "invalid_rate"]
        names += ["lure_margin"] if mc and self.lure_conditions else []
        names += ["acc_chance"] + [f"acc_{c}" for c in self.conditions]
        names += [f"lure_margin_{c}" for c in self.lure_conditions] if form == "mc" else []
        return names + self.form_effects(form)

    def scored_condition(self, doc: Mapping[str, Any]) -> str | None:
        """The condition whose ``acc_<condition>`` the document counts in: its own (default), or None
        where a probe keeps a kind of item out of the per-condition accuracies."""
        return doc["condition"]

    def score(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        """Metrics of one answer (``pred``: choice index, -1 other, None invalid)."""
        correct = float(pred == doc["gold"])
        scored = self.scored_condition(doc)
        return {
            "acc": correct,
            "acc_chance": 1.0 / len(doc["choices"]),
            **({f"acc_{scored}": correct} if scored is not None else {}),
            **self.effect_values(doc, pred),
        }

    def score_gen(self, doc: Mapping[str, Any], answer: str) -> dict[str, Any]:
        """Metrics of a ``_gen`` reply, given its answer (what the ``answer_line`` filter
        kept, or an :class:`~lm_eval_cog.answers.AnswerText`; :data:`NO_ANSWER`: none)."""
        pred = self.read_answer(doc, answer)
        return {**self.score(doc, pred), "invalid_rate": float(pred is None)}

    def score_reply(self, doc: Mapping[str, Any], reply: str) -> dict[str, Any]:
        """Metrics of a raw ``_gen`` reply: its answer found by :func:`lm_eval_cog.answers.find_answer`."""
        found = answers.find_answer(reply)
        return self.score_gen(doc, NO_ANSWER if found is None else found)

    @property
    def custom_aggregations(self) -> dict[str, tuple[str, bool]]:
        """Every metric not aggregated by the mean: the calibration metrics, the lure margins (means of
        the finite values) and the effects."""
        partial = {m: (NANMEAN, True) for m in self.partial_metrics("mc")}
        return {**CALIBRATION, **partial, **self.effects}

    def partial_metrics(self, form: str) -> list[str]:
        """The metrics a document reports only in its own condition (``acc_<condition>``; in the MC
        form the lure margins, of lured items): NaN elsewhere in lm-eval's per-document rows
        (``probe_task.process_mc``), so their aggregation is a mean of the defined values."""
        margins = ["lure_margin", *(f"lure_margin_{c}" for c in self.lure_conditions)]
        return [f"acc_{c}" for c in self.conditions] + (margins if form == "mc" and self.lure_conditions else [])

    def score_mc(self, doc: Mapping[str, Any], lls: Sequence[float]) -> dict[str, Any]:
        """Metrics of a ``_mc`` item from the log-likelihood of each choice.

        Implicit calibration (a base model states no confidence): p = softmax of the
        choices' log-likelihoods. ``brier_score`` = sum over choices of (p_k - 1[k = gold])^2
        (Brier 1950; lm-eval's multi-class ``brier_score``), 0 best, 2 worst;
        ``ece`` gets (p of the chosen answer, correct) for the expected calibration error.

        A log-likelihood that is not finite (NaN, ±inf: a broken or overflowing backend; a real
        model's log-probability of a choice is finite) makes the item invalid, as an unreadable
        ``_gen`` answer is: wrong (``acc``, ``acc_norm`` and its condition 0), counted in
        ``invalid_rate``, never a choice; its confidence, Brier score and lure margin are NaN, so the
        calibration metrics and margins are over the valid items only (null when none is valid).
        """
        lls = np.asarray(lls, dtype=float)
        if not np.isfinite(lls).all():
            # np.argmax would pick the first NaN as the "choice", and a NaN confidence would land in
            # no ECE bin while counting in its total: a NaN backend scored as perfect.
            out = {**self.score(doc, None), "acc_norm": 0.0, "brier_score": math.nan, "ece": (math.nan, 0.0),
                   "invalid_rate": 1.0}
            if doc["lure"] != -1:
                out["lure_margin"] = out[f"lure_margin_{doc['condition']}"] = math.nan
            return out
        lengths = np.array([float(len(c)) for c in doc["choices"]])
        pred = int(np.argmax(lls))
        probs = np.exp(lls - lls.max())
        probs /= probs.sum()
        truth = np.zeros_like(probs)
        truth[doc["gold"]] = 1.0
        out = {
            **self.score(doc, pred),
            "acc_norm": float(int(np.argmax(lls / lengths)) == doc["gold"]),
            "brier_score": float(np.sum((probs - truth) ** 2)),
            "ece": (float(probs[pred]), float(pred == doc["gold"])),
            "invalid_rate": 0.0,
        }
        if doc["lure"] != -1:
            margin = float(lls[doc["gold"]] - lls[doc["lure"]])
            out["lure_margin"] = out[f"lure_margin_{doc['condition']}"] = margin
        return out

    # -- reference players ------------------------------------------------------------
    def policy_choice(self, policy: str, doc: Mapping[str, Any], rng: np.random.Generator) -> int:
        """The choice of a reference player: ``random`` (uniform), ``optimal`` (the key),
        ``prepotent`` (the lure where there is one, else the key); ``heuristic`` is ``prepotent``."""
        if policy == "heuristic":
            policy = HEURISTIC
        if policy == "optimal":
            return int(doc["gold"])
        if policy == "prepotent":
            return int(doc["lure"] if doc["lure"] != -1 else doc["gold"])
        if policy == "random":
            return int(rng.integers(len(doc["choices"])))
        raise ValueError(unknown_name_message("probe policy", policy, (*POLICIES, "heuristic")))


def get_probe(name: str) -> Probe:
    """The probe registered as ``name`` (a typo gets the registry's suggestions)."""
    if name not in REGISTRY:
        raise ValueError(unknown_name_message("probe", name, REGISTRY))
    probe = importlib.import_module(REGISTRY[name]).PROBE
    if probe.name != name:
        raise AssertionError(f"module {REGISTRY[name]} defines probe {probe.name!r}, not {name!r}")
    return probe
