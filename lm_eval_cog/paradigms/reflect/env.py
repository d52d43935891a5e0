"""The ``reflect`` paradigm, metacognition over a static probe's item: params, documents, messages, env.

Pure Python + numpy. An episode is one document of a static probe
(:mod:`lm_eval_cog.probes`) in two turns: the item as the probe's ``_gen`` form asks it,
then the reflection request of :mod:`lm_eval_cog.metacognition`. See ``README.md`` here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lm_eval_cog import metacognition
from lm_eval_cog.answers import find_answer
from lm_eval_cog.paradigms.base import Env, ParsePath, Strategy, coerce_strategy, require_int
from lm_eval_cog.paradigms.probe_base import NO_ANSWER, REGISTRY, Probe, get_probe

#: Modes: ``conversation`` (our request, a second turn of the same conversation) and
#: ``cogprobe`` (CogProbe's single-turn template, with the task and the first reply pasted in).
MODES: tuple[str, ...] = ("conversation", "cogprobe")
#: Abilities whose probes get no reflection task: an inhibition item measures the prepotent
#: first response under interference, which a deliberate second look removes by design (and
#: Hayling's "wrong on purpose" and go/no-go's withheld "-" make "is your answer reasonable?"
#: ill-posed). See the README.
EXCLUDED_ABILITIES: frozenset[str] = frozenset({"inhibition"})
#: The probes that get ``cog_<probe>_reflect`` tasks (and presets): every other registered probe.
REFLECT_PROBES: tuple[str, ...] = tuple(
    sorted(name for name in REGISTRY if get_probe(name).ability not in EXCLUDED_ABILITIES)
)
#: The sentence the ``_gen`` form appends to every prompt (``task_configs/probes/_probe_gen.yaml``).
GEN_SUFFIX = '\n\nEnd your reply with a line of the form "Answer: <your answer>".'
#: Without a document, the item's index (its condition) is drawn uniformly below this bound:
#: a multiple of every probe's condition cycle (2 .. 6, and their sub-cycles), so conditions
#: are balanced in the chance simulations.
INDEX_PERIOD = 5040
CLOSING = "Thank you. The task is over."


@dataclass(frozen=True)
class ReflectParams:
    """Parameters of a reflection episode.

    Attributes:
        probe: The static probe whose item is asked (a name of ``lm_eval_cog.paradigms.probe_base.REGISTRY``).
        mode: ``conversation`` or ``cogprobe`` (see :data:`MODES`).
        probe_params: Overrides of the probe's parameters, validated by name (as the
            probe tasks' ``metadata.<probe>``).
        strategy: Only ``free``: the ``_gen`` form's instruction (an answer line, no more).
        document: ``(task seed, index)``: the episode asks document ``index`` of the probe's
            task with that seed, the very item of ``cog_<probe>_gen``; set per episode by the
            lm-eval task. None (chance simulations, conformance checks): an item drawn from
            the episode seed alone.
    """

    probe: str = "deduction"
    mode: str = "conversation"
    probe_params: Mapping[str, Any] = field(default_factory=dict)
    strategy: Strategy = Strategy.FREE
    document: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.probe not in REGISTRY:
            get_probe(self.probe)  # raises with the registry's suggestions
        if self.mode not in MODES:
            raise ValueError(f"reflect parameter 'mode' must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not isinstance(self.probe_params, Mapping):
            raise ValueError(f"reflect parameter 'probe_params' must be a dict, got {self.probe_params!r}")
        object.__setattr__(self, "probe_params", dict(self.probe_params))
        get_probe(self.probe).make_params(self.probe_params)  # a bad override names itself now
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        if self.strategy is not Strategy.FREE:
            raise ValueError(
                "reflect parameter 'strategy' must be 'free': the first turn is the static probe's _gen "
                f"prompt, which asks for an answer line and nothing else (got {self.strategy.value!r})"
            )
        if self.document is not None:
            if not isinstance(self.document, (list, tuple)) or len(self.document) != 2:
                raise ValueError(f"reflect parameter 'document' must be [task seed, index], got {self.document!r}")
            seed = require_int("reflect", "document seed", self.document[0], 0)
            index = require_int("reflect", "document index", self.document[1], 0)
            object.__setattr__(self, "document", (seed, index))

    @property
    def max_turns(self) -> int:
        """The answer, then the reflection."""
        return 2


PRESETS: Mapping[str, ReflectParams] = {name: ReflectParams(probe=name) for name in REFLECT_PROBES}


# --------------------------------------------------------------------------- #
# Documents
# --------------------------------------------------------------------------- #

# Documents of a (probe, task seed, parameters), extended by doubling: document i depends on
# (seed, i) alone, so a longer list has the shorter one as its prefix.
_DOCUMENTS: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
_MAX_CACHED = 64


def probe_document(probe: Probe, params: Any, task_seed: int, index: int) -> dict[str, Any]:
    """Document ``index`` of the probe's task seeded ``task_seed``: ``probe.generate(task_seed,
    n)[index]`` for any n > index (the probes' own rule, false-belief stories included)."""
    key = (probe.name, task_seed, repr(params))
    docs = _DOCUMENTS.get(key, [])
    if index >= len(docs):
        if len(_DOCUMENTS) >= _MAX_CACHED:
            _DOCUMENTS.clear()
        docs = probe.generate(task_seed, max(index + 1, 2 * len(docs), 8), params)
        _DOCUMENTS[key] = docs
    return copy.deepcopy(docs[index])


def drawn_document(probe: Probe, params: Any, rng: np.random.Generator, seed: int) -> dict[str, Any]:
    """An item drawn from ``rng`` alone: a uniform index (its condition), then the item."""
    index = int(rng.integers(INDEX_PERIOD))
    doc = {"probe": probe.name, "index": index, "seed": seed, **probe.item(rng, params, index)}
    probe.check_doc(doc)
    return doc


def first_prompt(doc: Mapping[str, Any]) -> str:
    """The first turn: exactly what ``cog_<probe>_gen`` sends (the prompt and the answer-line request)."""
    return f"{doc['prompt']}{GEN_SUFFIX}"


def read_first(probe: Probe, doc: Mapping[str, Any], reply: str) -> tuple[str, int | None]:
    """(answer text or ``[invalid]``, choice) as the ``_gen`` form reads a reply: its answer
    (:func:`lm_eval_cog.answers.find_answer`, what the ``answer_line`` filter keeps), mapped
    by :meth:`Probe.read_answer`."""
    found = find_answer(reply)
    if found is None:
        return NO_ANSWER, None
    return found.block, probe.read_answer(doc, found)


def reflection_message(params: ReflectParams, doc: Mapping[str, Any], first_reply: str) -> str:
    """The second turn: our request, or CogProbe's template around the task and the first reply."""
    if params.mode == "cogprobe":
        return metacognition.cogprobe_request(first_prompt(doc), first_reply)
    return metacognition.conversation_request()


# --------------------------------------------------------------------------- #
# Environment
# --------------------------------------------------------------------------- #


class ReflectEnv(Env):
    """A static probe's item, then a metacognitive reflection on the answer (CogProbe).

    Description:
        Turn 1 asks the item of ``cog_<probe>_gen`` (its prompt and the answer-line request);
        the reply is read as that task reads it. Turn 2 asks the model to judge its answer
        (Reasonable / Not reasonable), state a confidence 0-100, explain, and give a new
        answer or "None" (:mod:`lm_eval_cog.metacognition`). No feedback is ever given.

    Reply format:
        Turn 1: a reply ending with ``Answer: <answer>``. Turn 2: a JSON object (read
        leniently; every unreadable field is counted, none is defaulted).

    Scoring:
        :func:`lm_eval_cog.metacognition.episode_values` on the reflection record.

    Episode end:
        ``terminated`` after the reflection (2 turns).

    References:
        Cui et al., *Measuring the Unmeasurable* (CogProbe / CogEval), reflection protocol
        and CQS; Brier (1950).

    Version history:
        v1: first version.

    Example:
        >>> env = ReflectEnv(PRESETS["deduction"])
        >>> message, info = env.reset(seed=0)
        >>> message.endswith('"Answer: <your answer>".')
        True
        >>> message, *_ = env.step("Answer: " + info["doc"]["choices"][info["doc"]["gold"]])
        >>> message.startswith("Review your answer above.")
        True
        >>> _ = env.step('{"rationality_judgement": "Reasonable", "confidence_score": 90, "new_response": "None"}')
        >>> env.log[1]["final_correct"], env.log[1]["confidence"]
        (True, 90.0)
    """

    name = "reflect"
    pinned_turns = 1  # the first message is the item itself (no system message)

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: ReflectParams = self.params
        self._probe = get_probe(p.probe)
        probe_params = self._probe.make_params(p.probe_params)
        if p.document is None:
            self._doc = drawn_document(self._probe, probe_params, self.rng, self._seed_of_rng())
        else:
            task_seed, index = p.document
            self._doc = probe_document(self._probe, probe_params, task_seed, index)
        self.system_prompt = ""  # the _gen form sends the item alone
        self._first: int | None = None
        return first_prompt(self._doc), self._info("answer")

    def _seed_of_rng(self) -> int:
        # The episode seed (Env.reset seeded self.rng with it): kept as the document's seed.
        return int(self.rng.bit_generator.seed_seq.entropy)  # type: ignore[union-attr]

    def _info(self, phase: str) -> dict[str, Any]:
        """What agents see: the phase, the document (the probe players read its key, as
        ``cog_baseline`` does on the probes) and the valid first replies."""
        choices = [f"Answer: {c}" for c in self._doc["choices"]]
        return {"phase": phase, "doc": self._doc, "choices": choices, "first_choice": self._first}

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        if not self.log:
            return self._answer(reply)
        return self._reflect(reply)

    def _answer(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        doc = self._doc
        answer, choice = read_first(self._probe, doc, reply)
        self._first = choice
        self.log.append(
            {
                "phase": "answer",
                "probe": doc["probe"],
                "index": doc["index"],
                "doc_seed": doc["seed"],
                "condition": doc["condition"],
                "choices": list(doc["choices"]),
                "gold": doc["gold"],
                "answer": answer,
                "choice": choice,
                "correct": choice == doc["gold"],
                # The _gen rule has no fallback: without an answer line a reply is invalid.
                "parse": (ParsePath.ANSWER_LINE if choice is not None else ParsePath.INVALID).value,
            }
        )
        return reflection_message(self.params, doc, reply), False, self._info("reflection")

    def _reflect(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        doc = self._doc
        parsed = metacognition.parse_reflection(reply)
        final, revision = metacognition.final_choice(self._first, parsed.new_response, lambda t: self._probe.read_answer(doc, t))
        record = metacognition.reflection_record(parsed, first=self._first, gold=doc["gold"], final=final, revision=revision)
        self.log.append({"phase": "reflection", **record})
        return CLOSING, True, self._info("done")

    @property
    def document(self) -> dict[str, Any]:
        """The episode's probe document (for tests)."""
        return copy.deepcopy(self._doc)
