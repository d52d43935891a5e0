"""Metacognition, the second-pass judgement of one's own answer: request texts, a lenient
reply parser, and its metrics.

After a model has answered an item, it is asked to judge its own answer (CogProbe's
"rationality judgement": Reasonable / Not reasonable), to state a confidence from 0 to
100, to explain itself, and to give a new answer or "None" (Cui et al., *Measuring the
Unmeasurable*, CogProbe/CogEval: Self-checking, Rationality Evaluation, Error Correction).
This module is pure Python (no lm-eval, no numpy): the ``reflect`` paradigm
(:mod:`lm_eval_cog.paradigms.reflect`) and any interactive paradigm with a final answer
use it.

Names: *metacognition* is this second pass (this module, :mod:`lm_eval_cog.lmeval.metacognition_task`,
the ``cog_metacognition`` group); ``reflect`` is the paradigm that asks a probe's item and then
this request (its name is the tasks' ``metadata.paradigm`` and the ``cog_<probe>_reflect`` task
names); *the reflection* is the model's reply to the request (its fields and metrics keep the
word, e.g. ``reflection_missing_rate``). Reflection-Bench (``cog_reflection_bench``, Li et al.)
is an unrelated battery.

Two request texts:

* :func:`conversation_request` (ours): a second user turn in the same conversation, so a
  backend's prefix cache serves the first turn; it asks for one JSON object and says what
  the confidence is about (that the answer above is right).
* :func:`cogprobe_request`: CogProbe's English reflection template, verbatim
  (``evaluation script/gpt.py`` and ``llama3.py``, with the ``rationality_prompt`` and
  ``confidence_prompt`` of their items). They send it as a fresh single-turn conversation;
  see the paradigm's README for how it is sent here.

**Parsing** (:func:`parse_reflection`) is lenient about form and strict about content: a
JSON object anywhere in the reply (code fences, single quotes, trailing commas, Python
literals, key variants such as ``"rationality judgement"``), else ``key: value`` lines as
CogProbe's own prompt asks for them (``Reasonableness: Not reasonable``, ``Confidence
level: 85``). Every field that cannot be read is recorded as missing and counted; none
is given a default. In particular an unreadable confidence is missing, never 0 (their
parser sets 0 and keeps the row), and "Not reasonable" is always read (their calibration
script recognises only "unreasonable" and silently drops those rows).

**Metrics** (:func:`episode_values`, :func:`aggregate`), over the episodes of a task. Per
episode i: F_i = 1 if the first answer is right (an unreadable first answer is wrong),
R_i = 1 if the final answer is right, L_i = "Reasonable" if F_i else "Not reasonable" (the
label), J_i the judgement (or missing), p_i = confidence / 100 (or missing). The final
answer is the new answer when one is given, else the first answer; a new answer that names
no choice is wrong (it is not replaced by the first one).

=====================  ===========================================================  =======================
metric                 definition                                                   episodes counted (else NaN)
=====================  ===========================================================  =======================
acc_first              mean F_i                                                     all
acc_final              mean R_i                                                     all
delta                  acc_final - acc_first (CogProbe Table 3's change)            all
correction_rate        P(R = 1 | F = 0): wrong answers made right                   first answer wrong
damage_rate            P(R = 0 | F = 1): right answers made wrong                   first answer right
revision_rate          share with a new answer other than the first                 all
self_check_acc         P(J = L); a missing judgement counts as a miss               all
brier_answer           mean (p_i - F_i)^2 (Brier, 1950)                             confidence readable
cqs_answer             1 - brier_answer (CogProbe's appendix: o = answer correct)   confidence readable
cqs_judgement          1 - mean (p_i - 1[J_i = L_i])^2 (their code's outcome)       confidence and judgement readable
invalid_rate           share of reflections with no readable field                  all
first_invalid_rate     share of first answers that name no choice (unreadable)      all
judgement_missing_rate share without a readable judgement                           all
confidence_missing_rate share without a readable confidence in [0, 100]             all
reflection_missing_rate share without a reflection text                             all
revision_invalid_rate  share whose new answer was given but names no choice         all
=====================  ===========================================================  =======================

Each metric is the mean of a per-episode value that is NaN outside its denominator, so
lm-eval's ``nanmean`` over episodes gives exactly the ratio above (e.g. correction_rate =
#(first wrong, final right) / #(first wrong)); with no episode in the denominator the task
reports NaN. CQS = 1 - Brier is CogProbe's "Confidence Quality Score" (their appendix).
"""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lm_eval_cog.answers import find_answer

# --------------------------------------------------------------------------- #
# Request texts
# --------------------------------------------------------------------------- #

REASONABLE = "Reasonable"
NOT_REASONABLE = "Not reasonable"
#: What a reflection's ``new_response`` says to keep the first answer (the templates' "None").
KEEP = "None"

#: Our request, a second turn of the same conversation. The confidence is defined as the
#: probability that the answer above is right, the outcome of ``cqs_answer``.
CONVERSATION_REQUEST = (
    "Review your answer above. Is it reasonable, that is, is it the right answer to the task?\n"
    "Reply only with a JSON object of this form:\n"
    "{\n"
    '"rationality_judgement": "Reasonable" or "Not reasonable",\n'
    '"confidence_score": <an integer from 0 to 100: how likely it is that your answer above is right>,\n'
    '"model_reflection": "<your reasoning>",\n'
    '"new_response": "None" to keep your answer, otherwise your new answer, written as the text after "Answer:"\n'
    "}"
)

#: CogProbe's ``rationality_prompt`` (every English item), verbatim.
COGPROBE_RATIONALITY_PROMPT = (
    "Please evaluate whether your answer is reasonable. If you think it is not, provide a new answer. "
    "Respond strictly using the following format:\n\n"
    "Reasonableness: Reasonable / Not reasonable (choose only one option)\n"
    "Reason: Explain in detail why you made this decision."
)
#: CogProbe's ``confidence_prompt`` (every English item), verbatim: no space after the first
#: full stop in their data files, and an en dash in "0–100".
COGPROBE_CONFIDENCE_PROMPT = (
    "Please provide a confidence level for the previous evaluation."
    "Confidence level: 0\u2013100 (a higher number indicates greater certainty)"
)
#: CogProbe's English reflection template (``meta_prompt_choice``, gpt.py / llama3.py), verbatim.
COGPROBE_TEMPLATE = (
    "The task and your response are as follows:\n"
    "------\n{system_prompt}\n"
    "Your response: {first_answer}\n------\n\n"
    "{rationality_prompt}\n{confidence_prompt}\n"
    "Please respond **only** using the following JSON structure:\n"
    "{{\n"
    '"rationality_judgement": <Reasonable / Not reasonable>,\n'
    '"confidence_score": <an integer between 0\u2013100>,\n'
    '"model_reflection": "<your reasoning>",\n'
    "\"new_response\": \"[If you consider your initial answer to be correct, write 'None'; otherwise, provide a new answer]\"\n"
    "}}"
)


def conversation_request() -> str:
    """The metacognition turn of the ``conversation`` mode (ours; the task and answer are above it)."""
    return CONVERSATION_REQUEST


def cogprobe_request(task_prompt: str, first_answer: str) -> str:
    """CogProbe's single-turn reflection prompt for ``task_prompt`` and the model's first reply.

    As in their scripts, the first reply is pasted stripped (``content.strip()``).
    """
    return COGPROBE_TEMPLATE.format(
        system_prompt=task_prompt,
        first_answer=first_answer.strip(),
        rationality_prompt=COGPROBE_RATIONALITY_PROMPT,
        confidence_prompt=COGPROBE_CONFIDENCE_PROMPT,
    )


# --------------------------------------------------------------------------- #
# Parsing
# --------------------------------------------------------------------------- #

JUDGEMENT, CONFIDENCE, REFLECTION, NEW_RESPONSE = "judgement", "confidence", "reflection", "new_response"
FIELDS: tuple[str, ...] = (JUDGEMENT, CONFIDENCE, REFLECTION, NEW_RESPONSE)
#: Field states: read, not in the reply, in the reply but unreadable.
OK, ABSENT, UNREADABLE = "ok", "absent", "unreadable"

# Keys after normalisation (case-folded, every run of non-alphanumerics -> "_").
_KEYS: Mapping[str, str] = {
    **dict.fromkeys(
        ("rationality_judgement", "rationality_judgment", "judgement", "judgment", "reasonableness",
         "rationality", "rationality_evaluation", "rationality_assessment"),
        JUDGEMENT,
    ),
    **dict.fromkeys(("confidence_score", "confidence", "confidence_level", "confidence_0_100"), CONFIDENCE),
    **dict.fromkeys(("model_reflection", "reflection", "reason", "reasoning", "explanation"), REFLECTION),
    **dict.fromkeys(
        ("new_response", "new_answer", "revised_answer", "revised_response", "corrected_answer", "new_reponse"),
        NEW_RESPONSE,
    ),
}  # fmt: skip

# Judgement labels, negative forms first so that "not reasonable" is never read as "reasonable".
# CogProbe's Spanish and Chinese labels too (their released files mix languages).
_LABELS = re.compile(
    r"not[\s_-]*reasonable|unreasonable|no[\s_-]+razonable|irrazonable|不合理|reasonable|razonable|合理",
    re.IGNORECASE,
)
_NEGATIVE = re.compile(r"^(?:not|un|no|irr|不)", re.IGNORECASE)
# A negation before a positive label that is not part of it ("not entirely reasonable").
_HEDGE = re.compile(r"\b(?:not|hardly|barely|never|no)\b|n't\b", re.IGNORECASE)
# A confidence: a number at the start of the value, optionally "%" or "/100".
# A range ("0–100", the template echoed) is no confidence.
_NUMBER = re.compile(
    r"^\s*[*_\"'`(\[]*\s*(\d{1,3}(?:\.\d+)?)\s*(%|/\s*100|percent)?(?![\d.])(?!\s*(?:-|\u2013|\u2014|to)\s*\d)",
    re.IGNORECASE,
)
# What a new answer that keeps the first one says (the templates ask for "None").
_KEEP_WORDS = {"none", "null", "nil", "n/a", "no change", "unchanged", "keep"}
# Text markers of a key: optional quotes/Markdown, the key, then ":" or "=".
# Every run is bounded ({0,n}, not *): an unbounded run of "*" at each of n start positions
# made the search quadratic (8,000 "*" took 15 s); real keys carry a few marks at most.
_KEY_ALTERNATION = "|".join(sorted((k.replace("_", r"[\s_-]{0,3}") for k in _KEYS), key=len, reverse=True))
_LINE_KEY = re.compile(
    rf"(?:^|[\s{{,\"'*_#>-])[\"'*_]{{0,6}}({_KEY_ALTERNATION})[\"'*_]{{0,6}}\s{{0,8}}"
    rf"(?:\([^)\n]{{0,20}}\))?\s{{0,8}}[:=\uff1a]",
    re.IGNORECASE,
)
#: Longest reply read (a reflection is a few hundred tokens; this bounds the parser's work).
MAX_CHARS = 20_000
#: At most this many "{" positions are tried as the start of a JSON object.
MAX_OBJECTS = 20


@dataclass(frozen=True)
class Reflection:
    """A parsed reflection. Missing fields are None and their state says why.

    Attributes:
        judgement: ``"Reasonable"``, ``"Not reasonable"`` or None (missing).
        confidence: 0..100, or None (missing: absent, out of range, not a number).
        reflection: The model's reasoning text, or None.
        new_response: The new answer's text, or None to keep the first answer (the reply
            said "None"/null, or gave no new answer at all).
        fields: Field name -> ``ok`` / ``absent`` / ``unreadable``.
        source: ``json`` (an object was decoded), ``lines`` (``key: value`` text) or ``none``.
    """

    judgement: str | None
    confidence: float | None
    reflection: str | None
    new_response: str | None
    fields: Mapping[str, str] = field(default_factory=dict)
    source: str = "none"

    @property
    def invalid(self) -> bool:
        """No field could be read: the reflection as a whole is unreadable."""
        return all(state != OK for state in self.fields.values())


def parse_reflection(reply: Any) -> Reflection:
    """Read a reflection reply leniently (see the module docstring); never raises.

    >>> r = parse_reflection('```json\\n{"rationality_judgement": "Not reasonable", "confidence_score": "85%",\\n'
    ...                      ' "model_reflection": "I misread.", "new_response": "False",}\\n```')
    >>> r.judgement, r.confidence, r.new_response, r.source
    ('Not reasonable', 85.0, 'False', 'json')
    >>> r = parse_reflection("Reasonableness: Reasonable\\nReason: it follows.\\nConfidence level: 90")
    >>> r.judgement, r.confidence, r.new_response, r.fields["new_response"]
    ('Reasonable', 90.0, None, 'absent')
    >>> parse_reflection('{"confidence_score": "very high"}').confidence is None
    True
    """
    text = unicodedata.normalize("NFKC", reply if isinstance(reply, str) else "")[:MAX_CHARS]
    obj = _find_object(text)
    if obj is not None:
        # The object is the reply's answer: a field it lacks is absent, not looked for in prose.
        return _reflection(_known_fields(obj), "json")
    # No object (or one that does not decode, e.g. CogProbe's unquoted <Reasonable>): key lines.
    raw = _line_fields(text)
    source = "lines" if raw else "none"
    if NEW_RESPONSE not in raw and raw:
        # CogProbe's rationality prompt asks for "a new answer" without naming a key: in a
        # reply without JSON, an answer line is that new answer.
        answer = last_answer_line(text)
        if answer is not None:
            raw[NEW_RESPONSE] = answer
    return _reflection(raw, source)


def _reflection(raw: Mapping[str, Any], source: str) -> Reflection:
    values: dict[str, Any] = {}
    states: dict[str, str] = {}
    readers: Mapping[str, Callable[[Any], tuple[Any, bool]]] = {
        JUDGEMENT: read_judgement_value,
        CONFIDENCE: read_confidence_value,
        REFLECTION: _read_text,
        NEW_RESPONSE: read_new_response_value,
    }
    for name in FIELDS:
        if name not in raw:
            values[name], states[name] = None, ABSENT
            continue
        value, ok = _read_field(readers[name], raw[name])
        values[name], states[name] = (value, OK) if ok else (None, UNREADABLE)
    return Reflection(
        judgement=values[JUDGEMENT],
        confidence=values[CONFIDENCE],
        reflection=values[REFLECTION],
        new_response=values[NEW_RESPONSE],
        fields=states,
        source=source,
    )


def _read_field(reader: Callable[[Any], tuple[Any, bool]], raw: Any) -> tuple[Any, bool]:
    """``reader(raw)``, with a value it cannot convert unreadable: parse_reflection promises
    never to raise, and one odd field must not fail the episode (a missing value, not NaN)."""
    try:
        return reader(raw)
    except (ValueError, OverflowError, TypeError, RecursionError):
        return None, False


def normalize_key(key: str) -> str:
    """``"Rationality Judgement"`` -> ``"rationality_judgement"``."""
    return re.sub(r"[^0-9a-z]+", "_", unicodedata.normalize("NFKC", str(key)).casefold()).strip("_")


def _known_fields(obj: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = _KEYS.get(normalize_key(key))
        if name is not None and name not in out:
            out[name] = value
    return out


def _find_object(text: str) -> Mapping[Any, Any] | None:
    """The first JSON-like object of ``text`` with at least one known key, or None.

    Tried at each "{" in turn: strict JSON (``raw_decode``), then repairs for trailing
    commas, then a Python literal (single quotes, None/True/False) via ``ast.literal_eval``,
    which evaluates literals only, never code.
    """
    end = text.rfind("}")
    starts = [m.start() for m in re.finditer(r"\{", text)][:MAX_OBJECTS]
    decoder = json.JSONDecoder()
    for start in starts:
        for candidate in _decodings(decoder, text, start, end):
            if isinstance(candidate, dict) and _known_fields(candidate):
                return candidate
    return None


def _decodings(decoder: json.JSONDecoder, text: str, start: int, end: int) -> Iterable[Any]:
    try:
        yield decoder.raw_decode(text, start)[0]
    except (ValueError, RecursionError):
        pass
    if end <= start:
        return
    chunk = text[start : end + 1]
    no_trailing = re.sub(r",\s*([}\]])", r"\1", chunk)
    try:
        yield json.loads(no_trailing)
    except (ValueError, RecursionError):
        pass
    literal = re.sub(r"\bnull\b", "None", re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", chunk)))
    try:
        yield ast.literal_eval(literal)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass


def _line_fields(text: str) -> dict[str, str]:
    """``key: value`` pairs of known keys (first occurrence of each field), values raw."""
    out: dict[str, str] = {}
    matches = list(_LINE_KEY.finditer(text))
    for k, match in enumerate(matches):
        name = _KEYS.get(normalize_key(match.group(1)))
        if name is None or name in out:
            continue
        stop = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        value = text[match.end() : stop]
        if name != REFLECTION:
            value = value.strip().partition("\n")[0]  # one-line fields end at the line's end
        out[name] = _unquote(value)
    return out


def _unquote(value: str) -> str:
    """A raw line value without its JSON dressing: quotes, a trailing comma, closing braces."""
    value = value.strip().strip("*_").rstrip(",}").strip().strip("*_").strip()
    # Quotes at either end go, balanced or not (a reply cut mid-value keeps its opening quote).
    return value.strip("\"'").strip()


def read_judgement_value(value: Any) -> tuple[str | None, bool]:
    """``("Reasonable" | "Not reasonable", True)``, or ``(None, False)`` when the value names
    no label or both (e.g. the template copied: "Reasonable / Not reasonable")."""
    if not isinstance(value, str):
        return None, False
    labels = set()
    # The first hedge is found once: searching the prefix before each label was quadratic
    # ("reasonable " * 1800 took 1.5 s). A positive label after it is hedged.
    hedge = _HEDGE.search(value)
    hedge_end = hedge.end() if hedge is not None else len(value) + 1
    for m in _LABELS.finditer(value):
        if _NEGATIVE.match(m.group()):
            labels.add(NOT_REASONABLE)
        elif hedge_end <= m.start():
            return None, False  # "not entirely reasonable": a hedge, neither label
        else:
            labels.add(REASONABLE)
    if len(labels) != 1:
        return None, False
    return labels.pop(), True


def read_confidence_value(value: Any) -> tuple[float | None, bool]:
    """A confidence on the 0-100 scale: an int, or a string starting with one ("85", "85%",
    "85/100"). Out of range, not a number, or a fraction <= 1 written with a point ("0.85":
    0-1 or 0-100?) is unreadable."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, int) and not 0 <= value <= 100:
        return None, False  # checked before float(): a 400-digit integer overflows a float
    if isinstance(value, (int, float)):
        number, text = float(value), str(value)
    elif isinstance(value, str):
        match = _NUMBER.match(value)
        if match is None:
            return None, False
        number, text = float(match.group(1)), match.group(1)
    else:
        return None, False
    if not math.isfinite(number) or not 0 <= number <= 100 or ("." in text and 0 < number <= 1):
        return None, False
    return number, True


def read_new_response_value(value: Any) -> tuple[str | None, bool]:
    """``(text, True)`` for a new answer, ``(None, True)`` for "keep" (None, null, "None", ...).

    Numbers become their text (``3`` -> "3"), lists are joined with ", " (a set of cards);
    anything else (an object) is unreadable.
    """
    if value is None:
        return None, True
    if isinstance(value, bool):
        return None, False
    if isinstance(value, int):
        return str(value), True  # never through float(): a huge integer overflows it
    if isinstance(value, float):
        return (str(int(value)) if value.is_integer() else str(value)), True
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) for v in value):
        value = ", ".join(str(v) for v in value)
    if not isinstance(value, str):
        return None, False
    text = value.strip()
    if _plain(text) in _KEEP_WORDS or not _plain(text):
        return None, True
    return text, True


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip(" \t\n\"'`*_.,;:!()[]{}<>")).casefold()


def _read_text(value: Any) -> tuple[str | None, bool]:
    if isinstance(value, str) and value.strip():
        return value.strip(), True
    return None, False


def last_answer_line(text: str) -> str | None:
    """The answer line of ``text`` as the static probes' ``_gen`` form reads it (the rule of
    :mod:`lm_eval_cog.answers`: the last line- or sentence-initial marker), or None."""
    found = find_answer(text)
    return None if found is None else found.line


# --------------------------------------------------------------------------- #
# The final answer
# --------------------------------------------------------------------------- #

#: How the new answer relates to the first: none given, the same choice, another, unreadable.
KEPT, SAME, CHANGED, REVISION_UNREADABLE = "kept", "same", "changed", "unreadable"


def final_choice(
    first: int | None, new_response: str | None, read: Callable[[str], int | None]
) -> tuple[int | None, str]:
    """(final choice, revision status) from the first choice and the reflection's new answer.

    ``read`` maps an answer text onto a choice index, -1 (well-formed, no choice) or None
    (unreadable). A new answer written with an answer marker ("Answer: B") is read by its
    answer (:func:`lm_eval_cog.answers.find_answer`), else as it is. No new answer keeps the first choice; an unreadable new answer gives
    None (wrong), never the first answer.
    """
    if new_response is None:
        return first, KEPT
    found = find_answer(new_response)
    choice = read(found if found is not None and found.line else new_response)
    if choice is None:
        return None, REVISION_UNREADABLE
    return choice, (SAME if choice == first else CHANGED)


# --------------------------------------------------------------------------- #
# Metrics
# --------------------------------------------------------------------------- #

METRICS: tuple[tuple[str, bool, str], ...] = (
    ("acc_first", True, "Share of first answers that are right (an unreadable answer is wrong)."),
    ("acc_final", True, "Share of final answers that are right (the new answer if one was given, else the first)."),
    ("delta", True, "acc_final - acc_first: CogProbe Table 3's change after reflection."),
    ("correction_rate", True, "P(final right | first wrong); NaN without a wrong first answer."),
    ("damage_rate", False, "P(final wrong | first right); NaN without a right first answer."),
    ("revision_rate", False, "Share of episodes whose new answer differs from the first (or names no choice)."),
    ("self_check_acc", True, "P(judgement = label), label Reasonable iff the first answer is right; "
                             "a missing judgement is a miss."),
    ("brier_answer", False, "Mean (confidence/100 - first answer right)^2 (Brier, 1950) over readable confidences."),
    ("cqs_answer", True, "1 - brier_answer: CogProbe's CQS with o = first answer right (their appendix)."),
    ("cqs_judgement", True, "1 - mean (confidence/100 - judgement right)^2 over readable confidence and judgement "
                            "(CogProbe's code, every label parsed)."),
    ("invalid_rate", False, "Share of reflections with no readable field."),
    ("first_invalid_rate", False, "Share of first answers that name no choice (the _gen form's invalid_rate)."),
    ("judgement_missing_rate", False, "Share of reflections without a readable judgement."),
    ("confidence_missing_rate", False, "Share of reflections without a readable confidence in [0, 100]."),
    ("reflection_missing_rate", False, "Share of reflections without a reasoning text."),
    ("revision_invalid_rate", False, "Share of reflections whose new answer names no choice (scored wrong)."),
)  # fmt: skip
METRIC_NAMES: tuple[str, ...] = tuple(name for name, _, _ in METRICS)


def reflection_record(
    reflection: Reflection, *, first: int | None, gold: int, final: int | None, revision: str
) -> dict[str, Any]:
    """The JSON-ready log record of one reflection: everything :func:`episode_values` needs."""
    return {
        "first_choice": first,
        "first_correct": first == gold,
        "first_invalid": first is None,
        "judgement": reflection.judgement,
        "confidence": reflection.confidence,
        "reflection": reflection.reflection,
        "new_response": reflection.new_response,
        "fields": dict(reflection.fields),
        "source": reflection.source,
        "reflection_invalid": reflection.invalid,
        "final_choice": final,
        "final_correct": final == gold,
        "revision": revision,
    }


def episode_values(record: Mapping[str, Any]) -> dict[str, float]:
    """Every metric of :data:`METRIC_NAMES` for one episode's reflection record (NaN where the
    episode is outside the metric's denominator; see the module docstring)."""
    nan = math.nan
    first = 1.0 if record["first_correct"] else 0.0
    final = 1.0 if record["final_correct"] else 0.0
    judgement = record["judgement"]
    label = REASONABLE if record["first_correct"] else NOT_REASONABLE
    judged_right = None if judgement is None else float(judgement == label)
    p = None if record["confidence"] is None else float(record["confidence"]) / 100.0
    brier = nan if p is None else (p - first) ** 2
    return {
        "acc_first": first,
        "acc_final": final,
        "delta": final - first,
        "correction_rate": final if not first else nan,
        "damage_rate": 1.0 - final if first else nan,
        "revision_rate": float(record["revision"] in (CHANGED, REVISION_UNREADABLE)),
        "self_check_acc": judged_right or 0.0,
        "brier_answer": brier,
        "cqs_answer": 1.0 - brier,
        "cqs_judgement": nan if p is None or judged_right is None else 1.0 - (p - judged_right) ** 2,
        "invalid_rate": float(record["reflection_invalid"]),
        "first_invalid_rate": float(record["first_invalid"]),
        "judgement_missing_rate": float(judgement is None),
        "confidence_missing_rate": float(p is None),
        "reflection_missing_rate": float(record["reflection"] is None),
        "revision_invalid_rate": float(record["revision"] == REVISION_UNREADABLE),
    }


def nan_mean(values: Sequence[float]) -> float:
    """Mean of the non-NaN values; NaN when there are none (lm-eval's ``nanmean``)."""
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def aggregate(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Task-level metrics over episodes' reflection records: the mean of each per-episode
    value over the episodes where it is defined (what the task's ``nanmean`` reports)."""
    per_episode = [episode_values(r) for r in records]
    return {name: nan_mean([v[name] for v in per_episode]) for name in METRIC_NAMES}
