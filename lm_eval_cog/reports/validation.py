"""Checks on what the report tools read: JSON that parses, stays shallow and holds only numbers a float can carry.

lm-eval's files are trusted to be lm-eval's only as far as these checks go: a results or samples file is
anybody's JSON, so every shape the tools rely on is checked here once, on load, and a file that breaks
one is a :class:`ReportInputError` naming the file and the field, never a traceback later on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from lm_eval_cog.reports.errors import ReportInputError

#: Deepest nesting accepted. lm-eval's results and samples stay below 20 levels; the limit keeps every
#: later recursive walk (json.dumps, repr) far from Python's recursion limit.
MAX_DEPTH = 100

#: Characters of an offending value quoted in an error message.
_QUOTE = 60


def quote(value: Any) -> str:
    """A short printable form of ``value`` for an error message (long numbers and strings cut)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        text = str(value)  # a 400-digit number is unreadable: its head and its length say enough
        return f"{text[:12]}… ({len(text.lstrip('-'))} digits)"
    text = repr(value)
    return text if len(text) <= _QUOTE else text[: _QUOTE - 1] + "…"


def field_name(parts: tuple[Any, ...]) -> str:
    """``("results", "t", "acc,none")`` -> ``results['t']['acc,none']``; list positions as ``[3]``.
    (A key of a JSON object is always text, so it is quoted; a list position never is.)"""
    if not parts:
        return "the top level"
    head, *rest = parts
    named = head if isinstance(head, str) else f"[{head}]"  # a list at the top has no name to start with
    return named + "".join(f"[{p!r}]" for p in rest)


def load_json(text: str, where: str) -> Any:
    """``json.loads(text)``; anything it cannot read (also nesting too deep for the parser, or an integer
    too long for Python's digit limit) is a :class:`ReportInputError` that starts with ``where``."""
    try:
        return json.loads(text)  # lm-eval writes NaN and Infinity bare, which json accepts
    except RecursionError:
        raise ReportInputError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # JSONDecodeError, and int("1" * 5000)'s digit limit
        raise ReportInputError(f"{where}: not valid JSON ({exc})") from None


def _bad_number(value: Any) -> bool:
    """An integer no float can hold (the tools compute in floats)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    try:
        float(value)
    except OverflowError:
        return True
    return False


def check_tree(value: Any, where: str, prefix: tuple[Any, ...] = ()) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and integers too large for a float, naming the field.

    Iterative, so that the walk itself cannot hit the recursion limit it guards against.
    """
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, prefix)]
    while stack:
        node, path = stack.pop()
        if len(path) - len(prefix) > MAX_DEPTH:
            shown = field_name(path[: len(prefix) + 3])
            raise ReportInputError(f"{where}: {shown}… is nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, Mapping):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
        elif _bad_number(node):
            raise ReportInputError(f"{where}: {field_name(path)} is a number too large for a float: {quote(node)}")


def count(value: Any, where: str, field: str) -> int | None:
    """A sample count: a non-negative whole number (``4`` or ``4.0``), or None when absent (null)."""
    if value is None:
        return None
    whole = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if isinstance(value, bool) or not whole or value < 0:
        raise ReportInputError(f"{where}: {field} is not a sample count: {quote(value)}")
    return int(value)


def mapping(value: Any, where: str, field: str) -> dict:
    """``value`` when it is a JSON object, else an error naming the field."""
    if not isinstance(value, dict):
        raise ReportInputError(f"{where}: {field} is not an object: {quote(value)}")
    return value


def mapping_or_null(value: Any, where: str, field: str) -> dict:
    """As :func:`mapping`, with null (lm-eval's "nothing here") read as ``{}``."""
    return {} if value is None else mapping(value, where, field)


def string_list(value: Any, where: str, field: str) -> list[str]:
    """``value`` when it is a list of strings, else an error naming the field."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReportInputError(f"{where}: {field} is not a list of names: {quote(value)}")
    return value
