"""Go/no-go in one prompt (Donders, 1868/1969; Wessel, 2018): copy each go letter, "-" for a no-go letter.

Item: the rule with the item's own letter sets ("Go letters: B, D, K, M, R, W." and
"No-go letters: F, P, T.", in either order), a history of 16-24 earlier items shown with
their correct responses (``7. K -> K``, ``8. P -> -``), 80% go as in the prepotency
literature (Young et al., 2009; Wessel, 2018), then ``Item 21 is R. What is the response to
it? Options: -, R.`` The choices are the probed letter and "-" (the no-go symbol). Every
no-go item of the history follows a run of go items (runs of random lengths); the run just
before the probe has ``run_length`` go items, ``short`` (1-2) or ``long`` (6-9), so that a
long run of copying builds up the prepotent response.

The letter sets are drawn per item (version 3; issue 28): :data:`GO_SET` go letters and
:data:`NOGO_SET` no-go letters from :data:`LETTERS`, so every letter is a go letter in some
items and a no-go letter in others, with the same probability of being probed in either
condition. Version 2's no-go letters were X, Y and Z in every item: a classifier that saw
only the option texts, trained on other seeds, scored 1.00 against 0.50 without reading
the rule or the history. The rule names both sets, each probe letter once, after "-":
so how often, how early and how late the item names an option tells nothing of its kind.

The probed letter never occurs in the history: the history holds out one go letter and
one no-go letter, and the probe is the held-out letter of its kind, so the answer is
never shown for that stimulus and must come from the rule, not from copying an earlier
line. Held out in both conditions alike, so the history never tells a go probe from a
no-go one.

Conditions cycle by index as (go, short), (no-go, short), (go, long), (no-go, long):

* ``go``: the probe is a go letter; the key is the letter itself;
* ``nogo``: the probe is a no-go letter; the key is "-", the lure is the letter (copying, a
  commission).

The key's option position is counterbalanced by index within each condition (the key
comes first in half the items). Since the key is the letter in every go item and "-" in
every no-go item by design, the shortcut audit pools the two conditions into one cell
(``audit_cells``), where "always the letter" or "always -" (and so any rule that picks
by wording, e.g. fewest words) scores 1/2. Declared heuristic (:attr:`GoNoGo.heuristics`):
``prepotent_go``, copying every letter.

The probed items are balanced 1:1 while each history keeps the 80/20 ratio: a
document's prepotency comes from its own prompt (the model never sees the other
documents), so the ratio across documents only sets how many no-go probes measure the
commission rate. Balance doubles them against 80/20, and it makes d' of an
always-copying player exactly 0 (equal signal and noise counts under the log-linear
correction).

Effects (rates pooled over the documents):

* ``commission_rate`` = no-go probes answered with the letter / no-go probes (lower is
  better; the failure of inhibition);
* ``omission_rate`` = go probes answered "-" / go probes (lower is better);
* ``dprime`` = z(H) - z(F) with the log-linear correction: hits = go probes answered
  with their letter, false alarms = no-go probes answered with their letter;
  another letter is neither (higher is better);
* ``run_length_effect`` = commission rate after a long run - after a short run
  (positive: the prepotency grows with the run of go items).

An invalid reply on a no-go probe is not a commission (but it is wrong: acc). A
copying player (``prepotent``) scores commission 1, omission 0, d' 0 and run-length
effect 0; chance accuracy is 1/2.

Reading (gen form): the letter (any case, decorated), "-" (or a typographic dash:
the same symbol), or the history's own form "R -> R"; another single letter is wrong
(-1); anything else is invalid.

References: Donders (1868/1969), On the speed of mental processes; Young et al.
(2009); Wessel (2018), Prepotent motor activity and inhibitory control demands in
different variants of the go/no-go paradigm (Psychophysiology): frequent go trials
are what make withholding demand inhibition.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int, require_probability
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.aggregations import NEITHER, SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

NOGO_RESPONSE = "-"
#: The letters an item's sets are drawn from: capitals except the letters easily taken for digits or
#: each other (I, O, Q) and A (an English word: "Item 5 is A." reads as an article).
LETTERS = "BCDEFGHJKLMNPRSTUVWXYZ"
#: Letters per item in the go set and the no-go set (one of each is held out of the history for the probe).
GO_SET = 6
NOGO_SET = 3
RULE = f"Go/no-go task. Rule: write {NOGO_RESPONSE} for a no-go letter and copy a go letter."
CONDITIONS = ("go", "nogo")
RUNS = ("short", "long")
#: Symbols read as the no-go response: hyphen-minus, en dash, em dash, minus sign.
_DASHES = {"-", "\u2013", "\u2014", "\u2212"}
#: The history's own form of a response, "R -> R".
_ARROW = re.compile(r"^([a-z])\s*(?:->|\u2192|=>|:)\s*(\S+)$")


@dataclass(frozen=True)
class GoNoGoParams:
    """Attributes:
    history_min, history_max: Bounds of the number of history items (16, 24).
    nogo_share: Share of no-go items in the history, in (0, 0.5] (0.2).
    short_run_max: A short run before the probe has 1..short_run_max go items (2).
    long_run_min, long_run_max: Bounds of a long run before the probe (6, 9).
    """

    history_min: int = 16
    history_max: int = 24
    nogo_share: float = 0.2
    short_run_max: int = 2
    long_run_min: int = 6
    long_run_max: int = 9

    def __post_init__(self) -> None:
        what = "gonogo"
        require_int(what, "history_min", self.history_min, 2)
        require_int(what, "history_max", self.history_max, 2)
        require_probability(what, "nogo_share", self.nogo_share, low=0.01, high=0.5)
        require_int(what, "short_run_max", self.short_run_max, 1)
        require_int(what, "long_run_min", self.long_run_min, 1)
        require_int(what, "long_run_max", self.long_run_max, 1)
        if self.history_max < self.history_min:
            raise ValueError(f"gonogo parameter 'history_max' must be >= history_min, got {self.history_max}")
        if self.long_run_min <= self.short_run_max:
            raise ValueError(f"gonogo parameter 'long_run_min' must be > short_run_max, got {self.long_run_min}")
        if self.long_run_max < self.long_run_min:
            raise ValueError(f"gonogo parameter 'long_run_max' must be >= long_run_min, got {self.long_run_max}")
        for length in range(self.history_min, self.history_max + 1):
            nogos = nogo_count(length, self.nogo_share)
            if nogos < 1:
                raise ValueError(
                    f"gonogo parameter 'nogo_share' must leave a no-go item in {length} history items, "
                    f"got {self.nogo_share}"
                )
            # Each history no-go follows at least one go item, then comes the longest final run.
            if length - nogos - self.long_run_max < nogos:
                raise ValueError(
                    f"gonogo parameter 'long_run_max' ({self.long_run_max}) leaves no room for {nogos} no-go "
                    f"items, each after a go item, in {length} history items: raise 'history_min' "
                    f"({self.history_min}) or lower 'nogo_share' ({self.nogo_share})"
                )


def nogo_count(length: int, share: float) -> int:
    """No-go items in a history of ``length`` items (``share`` rounded half up)."""
    return int(np.floor(length * share + 0.5))


def _run_lengths(rng: np.random.Generator, total: int, parts: int) -> list[int]:
    """A random composition of ``total`` into ``parts`` positive run lengths."""
    cuts = sorted(int(c) + 1 for c in rng.choice(total - 1, size=parts - 1, replace=False))
    bounds = [0, *cuts, total]
    return [b - a for a, b in itertools.pairwise(bounds)]


def _pick(rng: np.random.Generator, letters: str, *excluded: str) -> str:
    """One of ``letters`` other than ``excluded`` (the held-out letter, the one just shown)."""
    pool = [c for c in letters if c not in excluded]
    return pool[int(rng.integers(len(pool)))]


def history_stimuli(rng: np.random.Generator, runs: list[int], final: int, go: str, nogo: str) -> list[str]:
    """The history: each run of go items (letters of ``go``) followed by a no-go item (of ``nogo``),
    then the final run; no letter right after itself."""
    stimuli: list[str] = []
    for go_items in [*runs, final]:
        for _ in range(go_items):
            stimuli.append(_pick(rng, go, stimuli[-1] if stimuli else ""))
        stimuli.append(_pick(rng, nogo))
    stimuli.pop()  # the final run is followed by the probe, not by a history no-go
    return stimuli


def copy_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Response prepotency (Donders 1868/1969; Wessel 2018): copy the letter, as the frequent go
    items of the history do, whatever the rule says of it."""
    scores = [float(o != NOGO_RESPONSE) for o in options]
    return scores if 0 < sum(scores) < len(scores) else None


class GoNoGo(Probe):
    name = "gonogo"
    ability = "inhibition"
    Params = GoNoGoParams
    conditions = CONDITIONS
    lure_conditions = ("nogo",)
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "commission_rate": ("pooled_rate", False),
        "omission_rate": ("pooled_rate", False),
        "dprime": ("pooled_dprime", True),
        "run_length_effect": ("difference", False),
    }
    # 600: the no-go half (300 probes) gives the commission rate a standard error <= 0.029.
    default_items = 600
    version = 3.0
    heuristics = (
        Heuristic("prepotent_go", "Donders 1868/1969; Wessel 2018 (the frequent go response is copied)",
                  copy_scores),
    )
    # The key is the letter in every go item and "-" in every no-go item: audited as one cell.
    audit_cells: ClassVar[Mapping[str, str]] = {c: "pooled" for c in CONDITIONS}

    def item(self, rng: np.random.Generator, params: GoNoGoParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        run = RUNS[(index // len(CONDITIONS)) % len(RUNS)]
        key_first = (index // (len(CONDITIONS) * len(RUNS))) % 2 == 0
        length = int(rng.integers(params.history_min, params.history_max + 1))
        nogos = nogo_count(length, params.nogo_share)
        if run == "short":
            final = int(rng.integers(1, params.short_run_max + 1))
        else:
            final = int(rng.integers(params.long_run_min, params.long_run_max + 1))
        runs = _run_lengths(rng, length - nogos - final, nogos)
        drawn = [LETTERS[int(c)] for c in rng.permutation(len(LETTERS))[: GO_SET + NOGO_SET]]
        go, nogo = drawn[:GO_SET], drawn[GO_SET:]
        go_out, nogo_out = go[0], nogo[0]  # held out of the history: the probe is the one of its kind
        stimuli = history_stimuli(rng, runs, final, "".join(go[1:]), "".join(nogo[1:]))
        letter = go_out if condition == "go" else nogo_out
        key = letter if condition == "go" else NOGO_RESPONSE
        other = NOGO_RESPONSE if condition == "go" else letter
        choices = [key, other] if key_first else [other, key]
        history = "\n".join(
            f"{k}. {s} -> {NOGO_RESPONSE if s in nogo else s}" for k, s in enumerate(stimuli, 1)
        )
        sets = [f"Go letters: {', '.join(sorted(go))}.", f"No-go letters: {', '.join(sorted(nogo))}."]
        if rng.integers(2):
            sets.reverse()
        probe_number = length + 1
        prompt = (
            f"{RULE}\n{sets[0]}\n{sets[1]}\nThe items so far, each with its correct response:\n{history}\n"
            f"Item {probe_number} is {letter}. What is the response to it? Options: {', '.join(choices)}."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(key),
            "condition": condition,
            "lure": choices.index(letter) if condition == "nogo" else -1,
            "letter": letter,
            "run": run,
            "run_length": final,
            "history_length": length,
            "history_nogo": nogos,
            "go_letters": "".join(sorted(go)),
            "nogo_letters": "".join(sorted(nogo)),
        }

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        text = normalize_answer(answer)
        arrow = _ARROW.match(text)
        if arrow is not None:
            if arrow.group(1) != doc["letter"].casefold():
                return None  # a response to another item: not an answer to this one
            text = normalize_answer(arrow.group(2))
        if text in _DASHES:
            return doc["choices"].index(NOGO_RESPONSE)
        if len(text) == 1 and "a" <= text <= "z":
            return doc["choices"].index(doc["letter"]) if text == doc["letter"].casefold() else -1
        return None

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        nogo = doc["condition"] == "nogo"
        copied = int(pred == doc["choices"].index(doc["letter"]))
        withheld = int(pred == doc["choices"].index(NOGO_RESPONSE))
        side = NEITHER if not nogo else SIDE_A if doc["run"] == "long" else SIDE_B
        return {
            "commission_rate": (copied if nogo else 0, int(nogo)),
            "omission_rate": (0 if nogo else withheld, int(not nogo)),
            "dprime": (0, 0, copied, 1) if nogo else (copied, 1, 0, 0),
            "run_length_effect": (side, float(copied)),
        }


PROBE = GoNoGo()
