"""What every family of behaviour figures shares: reading transcripts, tallies, captions.

Each sample of an interactive task holds its episode's transcript (JSON) in ``resps[0][0]``;
its ``trials`` list is the paradigm's per-trial log. The numbers behind every figure come from
pure per-episode functions (``*_tally``) over that log, pooled over episodes by :func:`pool`.

Conventions, stated in every caption:

* Accuracy is correct / all trials: an invalid (unreadable) reply is its own outcome, never
  correct and never a random choice, so it lowers accuracy like an error does.
* A transcript that failed (``status`` ``failed``), holds no trials, or lacks a field a figure
  needs is skipped, and the number skipped is given in the caption.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.reports.names import safe_stem
from lm_eval_cog.reports.runs import transcript_in

#: Episodes are cut into this many trial blocks (IGT: 100 trials -> blocks of 20).
TRIAL_BLOCKS = 5
#: Said in every caption that shows an accuracy.
INVALID_NOTE = "Invalid (unreadable) replies count as not correct."

CORRECT, ERROR, INVALID = "correct", "error", "invalid"


# --------------------------------------------------------------------------- #
# Reading transcripts out of samples
# --------------------------------------------------------------------------- #


def transcript_of(sample: Mapping[str, Any]) -> dict[str, Any] | None:
    """The episode transcript of a sample (``resps[0][0]``), or None when it holds none
    (a static probe's sample, whose reply is plain text)."""
    return transcript_in(sample)


def usable(transcript: Mapping[str, Any]) -> bool:
    """A transcript whose trials can be analysed: not failed, with a non-empty list of records."""
    trials = transcript.get("trials")
    return (
        transcript.get("status") != "failed"
        and isinstance(trials, list)
        and bool(trials)
        and all(isinstance(t, Mapping) for t in trials)
    )


@dataclass(frozen=True)
class Played:
    """The transcripts of one task's samples: the paradigm, the usable episodes, how many were skipped."""

    paradigm: str | None
    episodes: list[tuple[dict[str, Any], Mapping[str, Any]]]  # (transcript, its sample)
    skipped: int


def played(samples: Iterable[Mapping[str, Any]]) -> Played:
    """The usable transcripts of ``samples`` in document order (samples without a transcript are ignored)."""
    ordered = sorted(samples, key=lambda s: s.get("doc_id", 0) if isinstance(s.get("doc_id"), int) else 0)
    found = [(t, s) for s in ordered if (t := transcript_of(s)) is not None]
    kinds = Counter(str(t["paradigm"]) for t, _ in found)
    paradigm = kinds.most_common(1)[0][0] if kinds else None
    good = [(t, s) for t, s in found if t["paradigm"] == paradigm and usable(t)]
    return Played(paradigm, good, len(found) - len(good))


# --------------------------------------------------------------------------- #
# Pure measures: one episode's trials -> a tally; pool() sums tallies over episodes
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Rate:
    """``hits`` out of ``n``; ``value`` is NaN when nothing was counted."""

    hits: int = 0
    n: int = 0

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else math.nan

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.hits + other.hits, self.n + other.n)


def pool(tallies: Iterable[Mapping[Any, Rate]]) -> dict[Any, Rate]:
    """Sum per-episode tallies key by key (pooled over episodes: every trial weighs the same)."""
    out: dict[Any, Rate] = {}
    for tally in tallies:
        for key, rate in tally.items():
            out[key] = out.get(key, Rate()) + rate
    return dict(sorted(out.items(), key=lambda kv: (str(type(kv[0])), kv[0])))


def is_correct(trial: Mapping[str, Any]) -> bool:
    """The trial's ``outcome`` is ``correct`` (errors and invalid replies are not); KeyError without one."""
    outcome = trial["outcome"]
    if outcome not in (CORRECT, ERROR, INVALID):
        raise ValueError(f"trial outcome {outcome!r} is not correct/error/invalid")
    return outcome == CORRECT


def block_size(n_trials: int, blocks: int = TRIAL_BLOCKS) -> int:
    """Trials per block when an episode of ``n_trials`` is cut into ``blocks`` blocks (last may be short)."""
    return max(1, math.ceil(n_trials / blocks))


# --------------------------------------------------------------------------- #
# Drawing
# --------------------------------------------------------------------------- #


def stem_of(task: str, kind: str) -> str:
    """A file stem safe on every file system: ``<task>_<kind>`` (a long task name cut, with a hash)."""
    return f"{safe_stem(task)}_{kind}"


def per_episode(episodes: Sequence[Sequence[Mapping[str, Any]]], fn: Callable[[Any], Any]) -> tuple[list[Any], int]:
    """``fn`` on each episode's trials; an episode lacking a field ``fn`` reads is skipped and counted."""
    out, skipped = [], 0
    for trials in episodes:
        try:
            out.append(fn(trials))
        except (KeyError, TypeError, ValueError, AttributeError):
            skipped += 1
    return out, skipped


def episodes_note(used: int, skipped: int) -> str:
    note = f"Pooled over {used} episode{'s' if used != 1 else ''}"
    return note + (f"; {skipped} skipped (failed or missing fields)." if skipped else ".")


def label_counts(ax: Any, xs: Sequence[float], ys: Sequence[float], ns: Sequence[int]) -> None:
    """Write n under each point (or at the axis floor for NaN), so thin points are visible as thin."""
    for x, y, n in zip(xs, ys, ns):
        ax.annotate(
            f"{n}",
            (x, 0.0 if math.isnan(y) else y),
            textcoords="offset points",
            xytext=(0, -11),
            ha="center",
            fontsize=6,
            color="#555555",
        )
