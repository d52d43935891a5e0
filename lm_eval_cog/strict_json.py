"""Strict JSON for every file and stream we write: no ``NaN`` or ``Infinity`` tokens.

Python's ``json`` writes ``NaN`` for an undefined float, which browsers, ``jq``, most
languages' standard parsers and leaderboard back-ends reject. An undefined value
(a metric with no defined episode, a missing chance level) is written as ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """A copy of ``value`` with every non-finite float (NaN, ±inf; numpy's too) as ``None``.

    Dicts, lists and tuples are walked (tuples become lists, as JSON has them);
    everything else is returned as it is.
    """
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, dict):
            copy: Any = {}
            for k, v in item.items():
                copy[k] = v
                stack.append((copy, k, v))
            parent[key] = copy
        elif isinstance(item, (list, tuple)):
            copy = list(item)
            stack.extend((copy, i, v) for i, v in enumerate(copy))
            parent[key] = copy
        elif _non_finite(item):
            parent[key] = None
    return root[0]


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):  # numpy.float64 too (a float subclass)
        return not math.isfinite(value)
    dtype = getattr(value, "dtype", None)  # numpy.float32/16 scalars
    if getattr(dtype, "kind", None) == "f" and getattr(value, "ndim", 1) == 0:
        return not math.isfinite(float(value))
    return False


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`finite` ``(value)``, refusing anything non-finite that is left."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)
