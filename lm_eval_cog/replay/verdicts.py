"""The verdict on a replayed episode: ``identical``, ``documented:<difference>`` or ``unexplained``.

A difference is documented when one of :data:`DIFFERENCES` explains it: each names a difference
listed in ``docs/games.md`` ("Differences from clembench", the name in backticks) and recognises, from
our game's log and the published transcript, the episodes it changes. An episode that could not be
replayed gets ``error`` with its reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.games.base import INVALID, moves
from lm_eval_cog.replay.play import Replayed

IDENTICAL, UNEXPLAINED, ERROR = "identical", "unexplained", "error"
DOCUMENTED = "documented"


@dataclass(frozen=True)
class Difference:
    """A known difference between our game and a published run's, and the test for it."""

    name: str
    explains: Callable[[Replayed], bool]


def _last_move(row: Replayed) -> Mapping[str, Any]:
    calls = moves(row.log)
    return calls[-1] if calls else {}


def _reference_answer_v16(row: Replayed) -> bool:
    # v1.6's game master refused every follower answer not exactly "Answer: first|second|third"
    # (e.g. "Answer: 1||"); the paper's code and ours read it with the liberal pattern.
    last = _last_move(row)
    return (row.game == "referencegame" and row.reference is not None and row.reference.outcome == "aborted"
            and last.get("role") == "follower" and last.get("status") != INVALID)  # fmt: skip


def _taboo_strict_rule(row: Replayed) -> bool:
    # Our strict rule (substring and stopword variants) lost the game on a clue clembench's stem check passes.
    last = _last_move(row)
    return (row.game == "taboo" and last.get("action") == "clue" and bool(last.get("taboo_strict"))
            and not last.get("taboo_paper"))  # fmt: skip


def _wordle_v16_reply_form(row: Replayed) -> bool:
    # v1.6 found "guess:" anywhere in a reply of any length; the paper's game master (and ours) abort
    # a reply that does not start with the tag or has more than two lines.
    last = _last_move(row)
    reason = str(last.get("reason", ""))
    return (row.game.startswith("wordle") and last.get("status") == INVALID
            and reason.startswith(("INVALID_START_WORD", "UNKNOWN_TAGS")))  # fmt: skip


def _image_v16_instruction_tag(row: Replayed) -> bool:
    # v1.6's giver wrote "Instruction: ..."; the paper's game (and ours) asks for "Command: ...".
    last = _last_move(row)
    return (row.game == "imagegame" and last.get("role") == "giver" and last.get("status") == INVALID
            and str(last.get("content", "")).lower().startswith("instruction:"))  # fmt: skip


#: Every difference a replay may name, in docs/games.md's words (``documented:<name>``).
DIFFERENCES: tuple[Difference, ...] = (
    Difference("reference-v1.6-answer-pattern", _reference_answer_v16),
    Difference("taboo-strict-rule", _taboo_strict_rule),
    Difference("wordle-v1.6-reply-form", _wordle_v16_reply_form),
    Difference("image-v1.6-instruction-tag", _image_v16_instruction_tag),
)


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def verdict(row: Replayed) -> str:
    """The row's verdict (see the module's docstring)."""
    if row.error is not None or row.ours is None:
        return ERROR
    if row.reference is None:
        return f"{ERROR}"
    if row.ours.outcome == row.reference.outcome and same(row.ours.main_score, row.reference.main_score):
        return IDENTICAL
    for difference in DIFFERENCES:
        if difference.explains(row):
            return f"{DOCUMENTED}:{difference.name}"
    return UNEXPLAINED
