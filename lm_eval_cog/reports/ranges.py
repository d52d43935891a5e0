"""The values a metric can take, so that an impossible one (an accuracy of 1e308, a score of inf) is flagged.

lm-eval passes on whatever a metric function returned; a broken run or an edited file can carry a value no
model can earn. Such a value is no score: it would otherwise sort first in every ranking (or vanish as
"undefined" without a word). Ranges are known only where the metric's definition fixes them; every other
metric is only required to be finite (NaN stays lm-eval's "undefined", not an error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Shares of items or trials, whatever the task: lm-eval's accuracies and the package's rates.
_FRACTIONS = frozenset({"acc", "acc_norm", "exact_match", "episode_failed"})
_FRACTION_PREFIXES = ("acc_",)  # acc_<condition>, acc_first/acc_final, acc_chance, acc_mutual_info
_FRACTION_SUFFIXES = ("_rate", "_share")  # invalid_rate, hit_rate, fallback_share, ...
#: Paradigms whose ``score`` is 0-100 by definition (100 x acc, or Reflection-Bench's 1 - MAE / max MAE).
#: IGT's score can go negative with the balance and oddball's is an embedding distance: neither is here.
_SCORE_0_100 = frozenset({"wcst", "lnt", "nback", "wpt", "prlt"})
#: Reference columns reported beside a metric take the metric's own range.
_REFERENCE_SUFFIXES = ("_chance_p95", "_chance")


def _base(name: str) -> str:
    for suffix in _REFERENCE_SUFFIXES:
        if name.endswith(suffix):  # a bare "_chance" leaves "": no range, as for any unknown name
            return name[: -len(suffix)]
    return name


def metric_range(name: str, paradigm: str | None) -> tuple[float, float] | None:
    """(lowest, highest) possible value of metric ``name`` (no filter) of a task of ``paradigm``; None if unknown."""
    if name in _FRACTIONS or name.startswith(_FRACTION_PREFIXES) or name.endswith(_FRACTION_SUFFIXES):
        return 0.0, 1.0
    base = _base(name)
    if base != name:
        return metric_range(base, paradigm)
    if name == "score" and paradigm in _SCORE_0_100:
        return 0.0, 100.0
    return None


def stderr_range(name: str, paradigm: str | None) -> tuple[float, float]:
    """A standard error is never negative, and never wider than the metric's own range."""
    span = metric_range(name, paradigm)
    return 0.0, (span[1] - span[0]) if span else math.inf


def outside(value: float, span: tuple[float, float] | None) -> bool:
    """``value`` is no possible value: infinite, or outside a known ``span`` (NaN is "undefined", not outside)."""
    if math.isnan(value):
        return False
    if math.isinf(value):
        return True
    return span is not None and not span[0] <= value <= span[1]


@dataclass(frozen=True)
class Flag:
    """A reported value the metric cannot take, and the values it can."""

    value: float
    span: tuple[float, float] | None

    @property
    def possible(self) -> str:
        if self.span is None:
            return "a finite number"
        high = "inf" if math.isinf(self.span[1]) else f"{self.span[1]:g}"
        return f"[{self.span[0]:g}, {high}]"

    def text(self, key: str) -> str:
        """``acc,none = 1e+308 (possible: [0, 1])``."""
        return f"{key} = {self.value:g} (possible: {self.possible})"
