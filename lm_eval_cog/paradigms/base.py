"""The contract every interactive paradigm implements, and the pieces they share.

A paradigm is pure Python (numpy at most): it knows nothing of lm-eval, torch or
models. It provides

* a frozen ``Params`` dataclass with named presets, validated in ``__post_init__``;
* an :class:`Env` (Gymnasium-style ``reset``/``step``) that turns a raw model
  reply into the next user message and appends typed records to ``env.log``;
* a pure ``metrics(log, params)`` function over that log;
* scripted reference agents (chance and ceiling rows, and test oracles).

These are bundled in a :class:`Paradigm` descriptor exposed as ``PARADIGM`` by
the paradigm's package, so that adding a paradigm is one new module (plus a YAML).
"""

from __future__ import annotations

import abc
import dataclasses
import difflib
import enum
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from lm_eval_cog import answers


class Outcome(str, enum.Enum):
    """Outcome of one trial. ``INVALID`` is never a pass and never a random choice."""

    CORRECT = "correct"
    ERROR = "error"
    INVALID = "invalid"


class Strategy(str, enum.Enum):
    """Prompting strategies (Reflection-Bench A.1; Hao et al.'s STA / CoT)."""

    DIRECT = "direct"
    FREE = "free"
    COT = "cot"


@dataclass(frozen=True)
class ParseFailure:
    """A reply that yields no usable choice. ``code`` is stable and selects the feedback text."""

    code: str
    detail: str = ""


#: Reply could not be read: no choice found.
NO_ANSWER = "no_answer"
#: Reply names two or more different choices.
AMBIGUOUS = "ambiguous"


class ParsePath(str, enum.Enum):
    """How a reply was read: the ``parse`` field of every trial record.

    ``FALLBACK`` marks choices read without the closing line that ``free``/``cot``
    ask for; its share per task (``fallback_share``) says how much of a score rests on it.
    """

    #: The text after the reply's last ``Answer:`` marker names exactly one choice.
    ANSWER_LINE = "answer_line"
    #: ``direct``, no usable answer line: the whole reply names exactly one choice.
    WHOLE_REPLY = "whole_reply"
    #: ``free``/``cot``, no usable answer line: the sole choice of the whole reply or of its last sentence.
    FALLBACK = "fallback"
    #: No choice was read (the :class:`ParseFailure` code says why).
    INVALID = "invalid"


@dataclass(frozen=True)
class Reading:
    """A parsed reply: the choice (or :class:`ParseFailure`) and how it was read."""

    value: Any
    path: ParsePath


# Why the ``Answer:`` line: with ``cot``/``free`` the model writes prose that
# mentions several options; a closing line makes the final choice extractable.
STRATEGY_INSTRUCTIONS: Mapping[Strategy, str] = {
    Strategy.DIRECT: "Respond only with your choice, without any other information or analysis.",
    Strategy.FREE: "End your reply with a line of the form 'Answer: <your choice>'.",
    Strategy.COT: (
        "Let's think step by step. Then end your reply with a line of the form "
        "'Answer: <your choice>'."
    ),
}

# Line breaks as ``str.splitlines`` knows them.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# A sentence ends at a line break, or at . ! ? (。) followed by blanks, possibly after
# closing quotes, brackets or Markdown emphasis ("card 4.** Then"). Each run of closing
# characters follows one stop, so the backtracking over it is linear in total.
_SENTENCE_END = re.compile(rf"[.!?\u3002][)\]\"'*_]*(?=\s)|[{_LINE_BREAKS}]")


def normalize_reply(reply: str) -> str:
    """The text the parsers read: Unicode NFKC (full-width "Answer：２" -> "Answer:2").

    Applied once, in :func:`read_choice`, so that every paradigm reads the same text;
    the transcript keeps the raw reply.
    """
    return unicodedata.normalize("NFKC", reply)


def answer_text(text: str) -> str | None:
    """The answer line of ``text`` as written, or None without an answer marker.

    The rule is :mod:`lm_eval_cog.answers`' (:func:`~lm_eval_cog.answers.find_answer`): the
    last marker that begins a line or a sentence wins; its text runs to the end of its
    line, or is the next non-blank line after a bare marker:
    "My answer: I think 3. Answer: 1" -> "1"; "Answer:", a line break, "2" -> "2";
    "A common wrong answer is: 2" (inside a sentence) -> None.
    """
    found = answers.find_answer(text)
    return None if found is None else found.line


def last_sentence_start(text: str) -> int:
    """Index in ``text`` where its last sentence starts.

    Trailing characters that are neither letters nor digits (closing emoji, Markdown
    rules, blanks) do not make a sentence: in "I pick left. :)" the last sentence is
    "I pick left".
    """
    end = len(text)
    while end and not text[end - 1].isalnum():
        end -= 1
    start = 0
    for match in _SENTENCE_END.finditer(text, 0, end):
        start = match.end()
    return start


def _distinct(choices: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(choices))


def read_choice(
    reply: str,
    strategy: Strategy,
    find_choices: Callable[[str], Sequence[tuple[int, Any]]],
) -> Reading:
    """Read one choice from a raw reply: a :class:`Reading` of the choice or a :class:`ParseFailure`.

    ``find_choices(text)`` returns ``(position, choice)`` pairs for every choice
    mentioned in ``text`` (paradigm-specific). The reply is NFKC-normalised first.
    Rules, shared by all paradigms:

    1. **Answer line.** When the reply has an answer marker (:func:`answer_text`: the
       last one that begins a line or a sentence), its head decides (the line without a
       trailing parenthetical, "because" clause or further sentence:
       :func:`lm_eval_cog.answers.answer_head`): one distinct choice there is the answer
       (``answer_line``), unless the line hedges ("maybe", "?", "I think":
       :func:`lm_eval_cog.answers.hedged`) or the choice is negated within its clause
       ("not 2", "anything but left": :func:`lm_eval_cog.answers.negated_at`), which is
       ``no_answer``, never that choice nor a fallback; two or more choices are
       ``ambiguous``. An answer line naming no choice is ignored (rules 2-3 read the
       whole reply).
    2. ``direct``: the whole reply must name exactly one distinct choice (repeats are
       fine): ``whole_reply``; none is ``no_answer``, two or more ``ambiguous``.
    3. ``free``/``cot`` (asked for an answer line but gave none): a choice is accepted
       only when it is the sole distinct choice of the whole reply, or else of the
       reply's last sentence (``fallback``). Anything else is ``ambiguous``: "I will
       pick right, since left has paid nothing." names both arms in one sentence and
       is never read as either.
    4. In rules 2-3 too, a choice negated within its clause ("I would not pick left",
       "not card 2") is never read, nor one that the reply (``direct``) or the sentence
       stating it (``free``/``cot``: that of its last mention) hedges ("maybe 2",
       "I pick 2, I think"): ``no_answer``.

    >>> find = keyword_finder({"left": "left", "right": "right"})
    >>> read_choice("My answer: left. Answer: right", Strategy.COT, find)
    Reading(value='right', path=<ParsePath.ANSWER_LINE: 'answer_line'>)
    >>> read_choice("Left paid nothing. I pick right.", Strategy.COT, find).value
    'right'
    >>> read_choice("I will pick right, since left has paid nothing.", Strategy.COT, find).value.code
    'ambiguous'
    """
    if not isinstance(reply, str) or not reply.strip():
        return _invalid(NO_ANSWER, "empty reply")
    text = normalize_reply(reply)
    answer = answer_text(text)
    if answer is not None:
        head = answers.answer_head(answer)
        mentions = find_choices(head)
        named = _distinct(c for _, c in mentions)
        if len(named) == 1:
            if answers.hedged(answer):
                return _invalid(NO_ANSWER, "the answer line hedges")
            if _negated(head, mentions):
                return _invalid(NO_ANSWER, "the answer line negates its choice")
            return Reading(named[0], ParsePath.ANSWER_LINE)
        if len(named) > 1:
            return _invalid(AMBIGUOUS, f"answer line names {len(named)} different choices")
        # An empty or unreadable answer line: read the whole reply.
    found = find_choices(text)
    named = _distinct(c for _, c in found)
    if not named:
        return _invalid(NO_ANSWER, "no choice found in reply")
    direct = strategy is Strategy.DIRECT
    if len(named) == 1:
        if _negated(text, found) or answers.hedged(text if direct else _sentence_at(text, found[-1][0])):
            return _invalid(NO_ANSWER, "the reply hedges or negates its only choice")
        return Reading(named[0], ParsePath.WHOLE_REPLY if direct else ParsePath.FALLBACK)
    if direct:
        return _invalid(AMBIGUOUS, f"reply names {len(named)} different choices")
    start = last_sentence_start(text)
    closing = [(position, c) for position, c in found if position >= start]
    last = _distinct(c for _, c in closing)
    if len(last) == 1:
        if _negated(text, closing) or answers.hedged(_sentence_at(text, closing[-1][0])):
            return _invalid(NO_ANSWER, "the last sentence hedges or negates its only choice")
        return Reading(last[0], ParsePath.FALLBACK)
    return _invalid(
        AMBIGUOUS,
        f"reply names {len(named)} different choices, its last sentence {len(last)}, and it has no answer line",
    )


def _sentence_at(text: str, position: int) -> str:
    """The sentence of ``text`` that holds ``position`` (what the hedge check reads in a
    ``free``/``cot`` reply without an answer line: the sentence that states the choice)."""
    start = last_sentence_start(text[: position + 1])
    end = _SENTENCE_END.search(text, position)
    return text[start : end.end() if end else len(text)]


def _negated(text: str, mentions: Sequence[tuple[int, Any]]) -> bool:
    """Is any of these mentions negated within its clause (:func:`lm_eval_cog.answers.negated_at`)?"""
    return any(answers.negated_at(text, position) for position, _ in mentions)


def _invalid(code: str, detail: str) -> Reading:
    return Reading(ParseFailure(code, detail), ParsePath.INVALID)


def extract_choice(
    reply: str,
    strategy: Strategy,
    find_choices: Callable[[str], Sequence[tuple[int, Any]]],
) -> Any | ParseFailure:
    """The choice :func:`read_choice` reads, or its :class:`ParseFailure` (without the path)."""
    return read_choice(reply, strategy, find_choices).value


def keyword_finder(patterns: Mapping[Any, str]) -> Callable[[str], list[tuple[int, Any]]]:
    """A ``find_choices`` for paradigms whose choices are words: ``{choice: regex}``.

    Each regex is matched case-insensitively as a whole word; the result lists
    ``(position, choice)`` for every mention, as :func:`read_choice` expects.
    """
    compiled = [(choice, re.compile(rf"\b(?:{rx})\b", re.IGNORECASE)) for choice, rx in patterns.items()]

    def find(text: str) -> list[tuple[int, Any]]:
        return sorted((m.start(), choice) for choice, rx in compiled for m in rx.finditer(text))

    return find


def join_message(*parts: str) -> str:
    """One user message from its non-empty parts (feedback, then the next stimulus)."""
    return "\n\n".join(part for part in parts if part)


class Env(abc.ABC):
    """Base class of interactive paradigms (Gymnasium's ``reset``/``step``, no reward).

    Subclasses assign all episode state in :meth:`_reset` and implement
    :meth:`_step`. ``step`` before ``reset`` raises. Every episode is bounded by
    ``params.max_turns``: reaching it sets ``truncated``.
    """

    #: Paradigm name, e.g. ``"wcst"``.
    name: ClassVar[str] = ""
    #: How many leading turns are never dropped to fit the context window (the runner drops the
    #: oldest turns after them): 1 where the first message holds what the whole episode needs
    #: (Wason's example triple, a reflection's item); the system message is never dropped.
    pinned_turns: ClassVar[int] = 0
    #: False: no turn is ever dropped; a prompt longer than the context window fails the episode
    #: with its reason (the games, as clembench's ContextExceededError).
    trims_history: ClassVar[bool] = True

    def __init__(self, params: Any) -> None:
        self.params = params
        self.rng: np.random.Generator | None = None
        self.log: list[dict[str, Any]] = []
        self.system_prompt: str = ""
        self.turns = 0
        self._done = True
        self._reset_called = False

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a new episode from ``seed``; return (first user message, info)."""
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed!r}")
        self.rng = np.random.default_rng(int(seed))
        self.log = []
        self.turns = 0
        self._done = False
        self._reset_called = True
        message, info = self._reset(options or {})
        return message, info

    def step(self, reply: str) -> tuple[str, bool, bool, dict[str, Any]]:
        """Apply the model's raw reply; return (next message, terminated, truncated, info).

        When ``terminated`` or ``truncated`` the message is the closing feedback,
        which needs no reply.
        """
        if not self._reset_called:
            raise RuntimeError(f"{type(self).__name__}.step() called before reset()")
        if self._done:
            raise RuntimeError(f"{type(self).__name__}.step() called after the episode ended")
        self.turns += 1
        message, terminated, info = self._step(reply)
        truncated = not terminated and self.turns >= self.params.max_turns
        self._done = terminated or truncated
        return message, terminated, truncated, info

    @abc.abstractmethod
    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Build the episode (using ``self.rng`` only) and set ``self.system_prompt``."""

    @abc.abstractmethod
    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        """Score one reply, append to ``self.log``; return (message, terminated, info)."""


class Agent(Protocol):
    """A scripted player: sees what the model sees plus the structured ``info``."""

    def act(self, message: str, info: Mapping[str, Any]) -> str: ...


AgentFactory = Callable[[Any, np.random.Generator], Agent]


class RandomAgent:
    """Chooses uniformly among ``info["choices"]`` (the valid replies of this turn)."""

    def __init__(self, params: Any, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        choices = info["choices"]
        return str(choices[int(self.rng.integers(len(choices)))])


@dataclass(frozen=True)
class MetricSpec:
    """One metric reported to lm-eval (``"<name>,none"`` in the results JSON)."""

    name: str
    higher_is_better: bool
    doc: str


#: Every paradigm reports how much of its score rests on the free/cot fallback.
FALLBACK_SHARE = "fallback_share"
FALLBACK_SHARE_SPEC = MetricSpec(
    FALLBACK_SHARE,
    False,
    "Share of replies whose choice was read by the fallback (free/cot reply without an 'Answer:' line: "
    "its sole choice, or its last sentence's); 0 with direct. NaN for logs without a 'parse' field.",
)


@dataclass(frozen=True)
class Paradigm:
    """Everything the glue needs to know about one paradigm."""

    name: str
    params_cls: type
    presets: Mapping[str, Any]
    default_preset: str
    env_cls: type[Env]
    metrics: Callable[[Sequence[Mapping[str, Any]], Any], dict[str, float]]
    metric_specs: tuple[MetricSpec, ...]
    agents: Mapping[str, AgentFactory]
    #: The metric that chance levels are computed for (Reflection-Bench's 0-100 score).
    primary_metric: str = "score"
    #: Parameters that cannot change a random player's score distribution (what the model
    #: is told, not what happens): a preset's stored chance level still applies when they change.
    chance_invariant: tuple[str, ...] = ("strategy",)
    #: The agent ``policy="heuristic"`` plays: the paradigm's characteristic non-ideal strategy
    #: (e.g. perseveration on the WCST), so that one name gives a third reference row on any task.
    heuristic: str | None = None
    #: Scores of an episode that failed (backend or environment error), where not NaN: a game
    #: counts it as not played (``{"played": 0, "clemscore": 0}``) instead of leaving it out.
    failed_scores: Mapping[str, float] = dataclasses.field(default_factory=dict)

    def make_params(
        self,
        preset: str | None = None,
        strategy: str | Strategy | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> Any:
        """Params from a preset, a strategy and field overrides, validated by name."""
        preset = preset or self.default_preset
        if preset not in self.presets:
            raise ValueError(unknown_name_message(f"{self.name} preset", preset, self.presets))
        changes = dict(overrides or {})
        if strategy is not None:
            changes["strategy"] = strategy
        fields = {f.name for f in dataclasses.fields(self.params_cls)}
        for key in changes:
            if key not in fields:
                raise ValueError(unknown_name_message(f"{self.name} parameter", key, sorted(fields)))
        return dataclasses.replace(self.presets[preset], **changes)

    def make_agent(self, policy: str, params: Any, rng: np.random.Generator) -> Agent:
        """Instantiate a reference agent by name (``random`` is always available)."""
        agents = {"random": RandomAgent, **self.agents}
        if policy == "heuristic" and self.heuristic is not None:
            policy = self.heuristic
        if policy not in agents:
            raise ValueError(unknown_name_message(f"{self.name} policy", policy, self.policies()))
        return agents[policy](params, rng)

    def policies(self) -> list[str]:
        """Every name :meth:`make_agent` accepts (``heuristic`` where the paradigm names one)."""
        return sorted({"random", *self.agents, *(["heuristic"] if self.heuristic is not None else [])})


def unknown_name_message(what: str, given: str, allowed: Sequence[str] | Mapping[str, Any]) -> str:
    """'Unknown X 'y'. Did you mean: ...? Allowed: ...' (lm-eval's registry style)."""
    allowed = sorted(allowed)
    close = difflib.get_close_matches(str(given), allowed, n=3)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return f"Unknown {what} {given!r}.{hint} Allowed: {', '.join(allowed)}."


def require_int(what: str, name: str, value: Any, minimum: int) -> int:
    """``value`` as an int >= ``minimum``, else a ``ValueError`` naming the parameter,
    e.g. "wcst parameter 'trials' must be a positive int, got 0"."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        kind = {0: "non-negative", 1: "positive"}.get(minimum, f">= {minimum}")
        raise ValueError(f"{what} parameter {name!r} must be a {kind} int, got {value!r}")
    return int(value)


def require_probability(what: str, name: str, value: Any, *, low: float = 0.0, high: float = 1.0) -> float:
    """``value`` as a float in ``[low, high]``, else a ``ValueError`` naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not (
        low <= float(value) <= high
    ):
        raise ValueError(f"{what} parameter {name!r} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


def coerce_strategy(value: str | Strategy) -> Strategy:
    """Strategy from a string, with a clear error naming the parameter."""
    if isinstance(value, Strategy):
        return value
    try:
        return Strategy(value)
    except ValueError:
        raise ValueError(unknown_name_message("strategy", value, [s.value for s in Strategy])) from None


def episode_seed(task_seed: int, index: int) -> int:
    """Seed of episode ``index`` of a task, from (task seed, index) alone.

    Every model sees the same stimuli for the same (seed, index), whatever
    ``--limit`` or the order in which episodes run.
    """
    if task_seed < 0 or index < 0:
        raise ValueError(f"seed and episode index must be non-negative, got seed={task_seed}, index={index}")
    return int(np.random.SeedSequence([int(task_seed), int(index)]).generate_state(1, dtype=np.uint32)[0])


def agent_rng(seed: int) -> np.random.Generator:
    """The generator of the reference agent playing the episode seeded ``seed``.

    Derived from the episode seed but independent of the stimuli's generator, so
    ``--model cog_baseline`` and the chance simulations play identical episodes.
    """
    return np.random.default_rng(np.random.SeedSequence([int(seed), 1]))
