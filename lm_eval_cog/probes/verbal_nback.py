"""Verbal n-back in one prompt (Kirchner, 1958; Gong et al., 2024): does the last letter repeat n back?

Asks whether the last letter shown is the same as the letter n positions before it.

Companion of the interactive n-back (``cog_nback*``, one letter per turn): here the
whole history is visible, so the probe measures in-context indexing of a letter
stream, not maintenance across turns (Momentè et al., 2025, ran Gong's task multi-turn).

Blocks follow Gong et al. (2024), the data Momentè et al. used: 24 lower-case
consonants per block with exactly 8 targets (a letter equal to the one n back), for
n = 1..3; on top of that each block has a controlled number of **lures**: a letter that
repeats the one n-1 or n+1 positions back (n+1 only for n = 1) but is not a target.
Every other letter repeats none of those three. A document is one trial of such a block:

    This is a 2-back task: ...
    Letters so far: k t k r r b
    Is the last letter the same as the letter 2 positions before it? Answer yes or no.

The prompt shows the block up to and including the probed letter (the online
situation of trial k: later letters unseen), rather than the whole block with a
position number, which would add a counting demand (where is letter 17?) that
language models fail for reasons unrelated to working memory. Choices: ``yes`` / ``no``
(words that are natural continuations of "Answer:", unlike Gong's ``m`` / ``-``).

Conditions = trial type, cycled by index in the order target, lure, lure, target (:data:`SLOTS`):
``target`` (key yes) and ``lure`` (key no; the lure is "yes", the familiarity response), half
the items each. Under that cycle the option order alternates (yes first, no first) and n cycles
beneath it, so
every (type, option order, n) cell is balanced and the key is each option and each position
half the time. A condition fixes its key (a target is always "yes"), so the shortcut audit
pools the two into one cell (``audit_cells``), where a constant answer, position or length
scores 1/2. n is a parameter, so it is reported through effects rather than conditions.

Why no nontarget trials (version 3; issue 28): a nontarget letter repeats none of the last n+1
letters, so familiarity (Kane et al., 2007: "yes" to any recently seen letter, the heuristic the
lures exist to catch) answers it right without locating the n-back letter; with version 2's
mix (targets 1/2, lures and nontargets 1/4 each) familiarity scored 0.75. With targets and
lures half and half, familiarity, "always yes" and "always no" all score 1/2, so the headline
accuracy (the mean over both types, i.e. the balanced accuracy of discriminating targets from
lures) does not reward it; the blocks still hold nontarget letters. Declared heuristic
(:attr:`VerbalNBack.heuristics`): ``familiarity``.

Effects (pooled over documents; a reply that is not "yes" counts as "no"):
``hit_rate`` = P(yes | target); ``false_alarm_rate`` = P(yes | not a target), which with
lure-only noise trials equals ``lure_false_alarm_rate`` = P(yes | lure) (kept so that
results stay comparable with Gong's scoring); ``dprime`` = z(hit rate) - z(false-alarm rate)
over those counts, with the package's log-linear correction (Hautus, 1995) where Gong et al.
replaced rates of 0 and 1 by 0.01 and 0.99; ``accuracy_n1``..``accuracy_n3`` = accuracy at each
n (NaN for an n not generated; Momentè et al. report the 3-back accuracy). Higher is better for
hit rate, d' and accuracies, lower for the false-alarm rates. Chance: 1/2 (so is "always yes",
"always no" and familiarity). The ``prepotent`` player answers "yes" to lures (familiarity):
hit rate 1, false-alarm rates 1, accuracy 1/2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.core import Probe

#: Lower-case consonants (Gong et al.'s blocks use lower-case letters; no vowels, so no words).
LETTERS = "bcdfghjklmnpqrstvwxz"
CONDITIONS = ("target", "lure")
#: The trial type of item ``index`` is ``SLOTS[index % 4]``: targets and lures are half the items
#: each, so yes and no are equally often the key, and so is familiarity's answer (version 3: a
#: nontarget, a letter none of the last n+1 letters repeats, is answered by familiarity alone);
#: each parity of the index holds one of each, so a strategy cross-fitted on odd / even items sees
#: the same key distribution in both.
SLOTS = ("target", "lure", "lure", "target")
MAX_N = 3
#: Blocks drawn before giving up: a block fails when no lure letter differs from the n-back one
#: (n >= 2 after two 1-back repeats in a row; rare).
_MAX_TRIES = 1000


def lure_lags(n: int) -> tuple[int, ...]:
    """Distances whose repeats are lures for n-back: n-1 and n+1 (no lag 0 for n = 1)."""
    return (n + 1,) if n == 1 else (n - 1, n + 1)


def trial_type(letters: Sequence[str], i: int, n: int) -> str:
    """``target`` / ``lure`` / ``nontarget`` of position ``i`` (>= n) of a block."""
    if letters[i] == letters[i - n]:
        return "target"
    if any(i - lag >= 0 and letters[i] == letters[i - lag] for lag in lure_lags(n)):
        return "lure"
    return "nontarget"


@dataclass(frozen=True)
class VerbalNBackParams:
    """Attributes:
    n_values: The n of the items, cycled, each in 1..3 (1, 2, 3 as Gong et al.).
    block_length: Letters per block (24, Gong et al.).
    targets: Targets per block (8, Gong et al.).
    lures: Lures per block (4): repeats at n-1 / n+1 that are not targets.
    """

    n_values: tuple[int, ...] = (1, 2, 3)
    block_length: int = 24
    targets: int = 8
    lures: int = 4

    def __post_init__(self) -> None:
        values = self.n_values
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)) or not values:
            raise ValueError(f"verbal_nback parameter 'n_values' must be a non-empty list of ints, got {values!r}")
        for n in values:
            require_int("verbal_nback", "n_values", n, 1)
            if n > MAX_N:
                raise ValueError(f"verbal_nback parameter 'n_values' must hold ints in 1..{MAX_N}, got {n!r}")
        if len(set(values)) != len(values):
            raise ValueError(f"verbal_nback parameter 'n_values' must not repeat a value, got {values!r}")
        object.__setattr__(self, "n_values", tuple(int(n) for n in values))  # a JSON list from --metadata
        require_int("verbal_nback", "block_length", self.block_length, 2)
        require_int("verbal_nback", "targets", self.targets, 1)
        require_int("verbal_nback", "lures", self.lures, 1)
        # Trials are positions n..length-1 and one must stay a nontarget; for n = 1 a lure
        # (a repeat 2 back) cannot follow a target (it would repeat 1 back), so each lure
        # also blocks the position before it for targets.
        for n in self.n_values:
            room = self.block_length - n - 1 - (self.lures if n == 1 else 0)
            if self.targets + self.lures > room:
                raise ValueError(
                    f"verbal_nback parameter 'targets' + 'lures' must be <= {room} for block_length "
                    f"{self.block_length} and n = {n} (room for a nontarget), got {self.targets} + {self.lures}"
                )

def draw_block(rng: np.random.Generator, n: int, params: VerbalNBackParams) -> list[str]:
    """A block with exactly ``targets`` targets and ``lures`` lures among positions >= n."""
    length = params.block_length
    for _ in range(_MAX_TRIES):
        lure_at = {int(i) for i in rng.choice(np.arange(n + 1, length), params.lures, replace=False)}
        blocked = lure_at | ({i - 1 for i in lure_at} if n == 1 else set())
        free = np.array([i for i in range(n, length) if i not in blocked])
        target_at = {int(i) for i in rng.choice(free, params.targets, replace=False)}
        block = _fill(rng, n, length, target_at, lure_at)
        if block is not None:
            return block
    raise AssertionError(f"verbal_nback: no block with n={n} and these parameters after {_MAX_TRIES} tries")


def _fill(rng: np.random.Generator, n: int, length: int, target_at: set[int], lure_at: set[int]) -> list[str] | None:
    """Letters left to right: each position gets exactly its planned type (None: a lure is impossible)."""
    block: list[str] = []
    for i in range(length):
        if i in target_at:
            block.append(block[i - n])
            continue
        near = {block[i - lag] for lag in (n, *lure_lags(n)) if i - lag >= 0}
        if i in lure_at:
            options = sorted({block[i - lag] for lag in lure_lags(n)} - {block[i - n]})
            if not options:
                return None
            block.append(options[int(rng.integers(len(options)))])
        elif i < n:
            block.append(LETTERS[int(rng.integers(len(LETTERS)))])
        else:
            options = [c for c in LETTERS if c not in near]
            block.append(options[int(rng.integers(len(options)))])
    return block


_TASK = re.compile(r"This is a (\d)-back task")
_LETTERS = re.compile(r"Letters so far: ([a-z ]+)")


def familiarity_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Familiarity (Kane et al., 2007; Oberauer, 2005): "yes" when the last letter is among the n+1
    letters before it, whatever its lag, "no" otherwise; it answers every lure "yes"."""
    task, shown = _TASK.search(stem), _LETTERS.search(stem)
    if task is None or shown is None:
        return None
    n, letters = int(task.group(1)), shown.group(1).split()
    familiar = letters[-1] in letters[-2 - n : -1]
    return [float((o.strip().casefold() == "yes") == familiar) for o in options]


class VerbalNBack(Probe):
    name = "verbal_nback"
    ability = "working_memory"
    Params = VerbalNBackParams
    conditions = CONDITIONS
    lure_conditions = ("lure",)
    audit_cells: ClassVar[Mapping[str, str]] = {c: "trials" for c in CONDITIONS}
    version = 3.0
    heuristics = (
        Heuristic("familiarity", "Kane et al. 2007; Oberauer 2005 (familiarity: yes to a recently seen letter)",
                  familiarity_scores),
    )
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "hit_rate": ("pooled_rate", True),
        "false_alarm_rate": ("pooled_rate", False),
        "lure_false_alarm_rate": ("pooled_rate", False),
        "dprime": ("pooled_dprime", True),
        **{f"accuracy_n{k}": ("conditional_mean", True) for k in range(1, MAX_N + 1)},
    }

    def item(self, rng: np.random.Generator, params: VerbalNBackParams, index: int) -> dict[str, Any]:
        condition = SLOTS[index % len(SLOTS)]
        yes_first = (index // len(SLOTS)) % 2 == 0
        n = params.n_values[(index // (2 * len(SLOTS))) % len(params.n_values)]
        block = draw_block(rng, n, params)
        types = {i: trial_type(block, i, n) for i in range(n, len(block))}
        candidates = [i for i, t in types.items() if t == condition]
        position = candidates[int(rng.integers(len(candidates)))]
        shown = block[: position + 1]
        lag = f"{n} position{'s' if n > 1 else ''}"
        prompt = (
            f"This is a {n}-back task: letters are shown one at a time, and for each new letter you decide "
            f"whether it is the same as the letter {lag} before it.\n"
            f"Letters so far: {' '.join(shown)}\n"
            f"Is the last letter the same as the letter {lag} before it? Answer yes or no."
        )
        choices = ["yes", "no"] if yes_first else ["no", "yes"]
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index("yes" if condition == "target" else "no"),
            "condition": condition,
            "lure": choices.index("yes") if condition == "lure" else -1,
            "n": int(n),
            "position": position + 1,
            "letters": "".join(shown),
            "block": "".join(block),
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        yes = int(pred is not None and pred >= 0 and doc["choices"][pred] == "yes")
        signal = int(doc["condition"] == "target")
        lure = int(doc["condition"] == "lure")
        correct = float(pred == doc["gold"])
        return {
            "hit_rate": (yes * signal, signal),
            "false_alarm_rate": (yes * (1 - signal), 1 - signal),
            "lure_false_alarm_rate": (yes * lure, lure),
            "dprime": (yes * signal, signal, yes * (1 - signal), 1 - signal),
            **{f"accuracy_n{k}": (doc["n"] == k, correct) for k in range(1, MAX_N + 1)},
        }


PROBE = VerbalNBack()
