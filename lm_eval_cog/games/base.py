"""The contract every dialogue game implements, and the scores all games share.

A game (clembench's Taboo, Wordle, Reference Game, ...) is pure Python, like a paradigm: a
:class:`GameEnv` is its game master, a :class:`~lm_eval_cog.paradigms.base.Paradigm` descriptor
(``PARADIGM`` in the game's package) bundles it with its parameters, metrics and reference
players, and the runner plays it lock-step with every other episode
(:class:`lm_eval_cog.runner.GameEpisode`). What a game adds to a paradigm:

* **Roles.** ``GameEnv.roles`` names the roles a model plays (in self-play the same model plays
  them all, each with its own conversation). Roles played by code (Wordle's evaluator,
  Private/Shared's questioner) are the game master's own business. ``env.due`` names the role
  whose reply the game awaits; ``step(reply)`` takes that role's reply and returns the message for
  the role due next. ``info["ephemeral"]`` marks a message asked aside (a probe): answered once and
  left out of that role's later prompts.
* **One log record per model call** (:func:`move`): the role, what the reply was read as, and a
  status: ``valid``; ``violation`` (readable but against a rule that loses the game, e.g. a taboo
  word); ``rejected`` (readable, refused, asked again, e.g. a word not in Wordle's list); ``invalid``
  (not in the required form). Then exactly one :func:`end` record: ``success``, ``lose`` or
  ``aborted``, with the game's quality score (``main_score``, 0-100; None when aborted).
* **Shared metrics** (:func:`common_metrics`, as clembench defines them, with its known bugs
  fixed: a lost game is never aborted, an aborted one never lost).

The game's own ``metrics(log, params)`` adds its extras to :func:`common_metrics`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from lm_eval_cog.paradigms.base import Env, MetricSpec, Paradigm
from lm_eval_cog.paradigms.measures import ratio

VALID, VIOLATION, REJECTED, INVALID = "valid", "violation", "rejected", "invalid"
MOVE_STATUSES = (VALID, VIOLATION, REJECTED, INVALID)
SUCCESS, LOSE, ABORTED = "success", "lose", "aborted"
OUTCOMES = (SUCCESS, LOSE, ABORTED)
#: Characters of a reply kept in a log record's ``content`` (the transcript keeps the whole reply).
CONTENT_CHARS = 200

COMMON_METRIC_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec("main_score", True, "The game's quality score (0-100), mean over played (not aborted) episodes."),
    MetricSpec("played", True, "1 - aborted: share of episodes played to a win or a loss within the rules."),
    MetricSpec(
        "clemscore", True,
        "main_score x played per game (played a share), as clembench defines it with % played / 100 (0-100): "
        "the mean over episodes of the main score, an aborted or failed episode counting 0. Momente et al. "
        "report it / 100.",
    ),
    MetricSpec("success", True, "1 for a won episode (0 when lost or aborted)."),
    MetricSpec("lose", False, "1 for an episode lost within the rules (0 when won or aborted)."),
    MetricSpec("aborted", False, "1 for an episode ended by a reply that broke the required form."),
    MetricSpec("request_count", False, "Model calls in the episode (reprompts and probe retries included)."),
    MetricSpec("parsed_request_count", True, "Model calls whose reply had the required form."),
    MetricSpec("violated_request_count", False, "Model calls whose reply did not have the required form."),
    MetricSpec("request_success_ratio", True, "parsed_request_count / request_count."),
)  # fmt: skip
COMMON_METRICS = tuple(s.name for s in COMMON_METRIC_SPECS)


class GameEnv(Env):
    """A game master. Subclasses set ``roles``, keep ``self.due`` on the role awaited, fill
    ``self.system_prompts`` (role -> system prompt; clembench has none, so usually empty) and log
    through :meth:`record_move` and :meth:`finish`."""

    #: The roles a model plays, in the order they first speak.
    roles: ClassVar[tuple[str, ...]] = ()
    #: A game's history is never trimmed: its first message holds the rules, the target word, the
    #: private slot values. A prompt longer than the context window fails the episode (not played,
    #: the reason in its transcript), as clembench's ContextExceededError ends it.
    trims_history = False

    def __init__(self, params: Any) -> None:
        super().__init__(params)
        self.due: str = self.roles[0] if self.roles else ""
        self.system_prompts: dict[str, str] = {}
        self.outcome: str | None = None

    def record_move(self, action: str, status: str, content: Any = None, reason: str = "", **extra: Any) -> dict[str, Any]:
        """Log the reply of the role now due; returns the record (games may add fields to it)."""
        rec = move(self.due, self.turns, action, status, content, reason, **extra)
        self.log.append(rec)
        return rec

    def finish(self, outcome: str, main_score: float | None, **extra: Any) -> dict[str, Any]:
        """Log the end of the game (once)."""
        if self.outcome is not None:
            raise RuntimeError(f"{type(self).__name__}: the game already ended ({self.outcome})")
        self.outcome = outcome
        rec = end(outcome, main_score, **extra)
        self.log.append(rec)
        return rec


def move(role: str, call: int, action: str, status: str, content: Any = None, reason: str = "", **extra: Any) -> dict[str, Any]:
    """A log record of one model call: ``call`` is the 1-based index of the call in the episode."""
    if status not in MOVE_STATUSES:
        raise ValueError(f"move status must be one of {MOVE_STATUSES}, got {status!r}")
    if isinstance(content, str) and len(content) > CONTENT_CHARS:
        content = content[:CONTENT_CHARS] + "…"
    return {"type": "move", "role": role, "call": call, "action": action, "status": status, "content": content,
            "reason": reason, **extra}  # fmt: skip


def end(outcome: str, main_score: float | None, **extra: Any) -> dict[str, Any]:
    """The log record that ends a game: its outcome and quality score (None when aborted)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}, got {outcome!r}")
    if (outcome == ABORTED) != (main_score is None):
        raise ValueError(f"main_score must be None exactly when the game is aborted (outcome {outcome}, score {main_score})")
    return {"type": "end", "outcome": outcome, "main_score": main_score, **extra}


def moves(log: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in log if r.get("type") == "move"]


def end_record(log: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    ends = [r for r in log if r.get("type") == "end"]
    return ends[-1] if ends else None


def common_metrics(log: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The metrics every game reports, from its log.

    An episode without an end record (stopped by the turn bound) counts as aborted: it was not
    played to a result within the rules.
    """
    calls = moves(log)
    last = end_record(log)
    outcome = last["outcome"] if last is not None else ABORTED
    aborted = outcome == ABORTED
    main = math.nan if aborted else float(last["main_score"])
    parsed = sum(r["status"] != INVALID for r in calls)
    return {
        "main_score": main,
        "played": float(not aborted),
        "clemscore": 0.0 if aborted else main,
        "success": float(outcome == SUCCESS),
        "lose": float(outcome == LOSE),
        "aborted": float(aborted),
        "request_count": float(len(calls)),
        "parsed_request_count": float(parsed),
        "violated_request_count": float(len(calls) - parsed),
        "request_success_ratio": ratio(parsed, len(calls)),
    }


def game_paradigm(*, name: str, params_cls: type, env_cls: type[Env], heuristic: str, paper: Any,
                  **fields: Any) -> Paradigm:
    """A game's :class:`~lm_eval_cog.paradigms.base.Paradigm`: what every game shares is set here (two
    presets, ``default`` and ``paper``, ``clemscore`` as the primary metric, a failed episode counted as
    not played); ``paper`` is the game's ``paper`` preset (the paper's instances, messages and rules:
    docs/games.md); ``fields`` are the game's own (``metrics``, ``metric_specs``, ``agents``)."""
    presets = {"default": params_cls(), "paper": paper}
    return Paradigm(name=name, params_cls=params_cls, presets=presets, default_preset="default", env_cls=env_cls,
                    heuristic=heuristic, primary_metric="clemscore", failed_scores=FAILED_SCORES,
                    **fields)  # fmt: skip


#: A game episode that crashed (backend or game master) is never dropped from the game's score:
#: clembench loses it from both numerator and denominator; here it counts as not played, and
#: ``episode_failed`` says why (``Paradigm.failed_scores`` of every game).
FAILED_SCORES: Mapping[str, float] = {"played": 0.0, "clemscore": 0.0}


# ---------------------------------------------------------------- reading replies
_TAG_SPACE = re.compile(r"[ \t]+")


def strip_reply(reply: str) -> str:
    """A reply as clembench's backends hand it to the game master: surrounding white space removed."""
    return reply.strip() if isinstance(reply, str) else ""


def fold(text: str) -> str:
    """Unicode NFKC and case folding: what a comparison of words sees (full-width or styled
    letters fold to ASCII; look-alike letters from other scripts stay different)."""
    return unicodedata.normalize("NFKC", text).casefold()


def first_line(text: str) -> str:
    """The first line of ``text`` (linear; ``splitlines`` would split the whole text)."""
    for i, ch in enumerate(text):
        if ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
            return text[:i]
    return text
