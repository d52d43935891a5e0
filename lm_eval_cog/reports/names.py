"""File names and HTML ids made from task names and model labels: safe, short, distinct and deterministic.

A task name is text from a results file. Two names can clean up to the same file name
(``cog_wcst_direct`` and ``cog_wcst_direct?``), or to names that differ only in case (one file on a
case-insensitive file system); one page or figure would then overwrite the other and two sections share
an id. :func:`unique_slugs` gives each name its own, the same for the same set of names in any order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

#: Longest stem written (file systems allow 255 bytes; the figure kinds and suffixes need the rest).
MAX_STEM = 80
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def digest(text: str, width: int = 8) -> str:
    """The first ``width`` hex digits of the text's SHA-256 (lone surrogates from JSON hashed as they are)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:width]


def _hashed(base: str, name: str, width: int = 8) -> str:
    return f"{base[: MAX_STEM - width - 1]}-{digest(name, width)}"


def _capped(base: str, name: str) -> str:
    """``base`` itself when short enough, else cut and made distinct by the hash of the full ``name``."""
    return base if len(base) <= MAX_STEM else _hashed(base, name)


def slug(name: str) -> str:
    """A file name / anchor for a task (lm-eval task names are safe already; this keeps odd ones so)."""
    return _capped(_UNSAFE.sub("_", name).strip("._") or "task", name)


def safe_stem(name: str) -> str:
    """A figure file stem for a task or label (as :func:`slug`, keeping leading dots out only by the ``_``)."""
    return _capped(_UNSAFE.sub("_", name).strip("_") or "task", name)


def unique_slugs(names: Iterable[str]) -> dict[str, str]:
    """Name -> slug, no two alike (also ignoring case). Of names that would share a slug, the first (sorted)
    that is its own slug, else the first, keeps it (``cog_wcst_direct`` stays ``episodes/cog_wcst_direct.html`` next to
    ``cog_wcst_direct?``); the others get their name's hash. The same names give the same slugs in any order."""
    base = {n: slug(n) for n in sorted(set(names))}
    groups: dict[str, list[str]] = {}
    for n, b in base.items():
        groups.setdefault(b.casefold(), []).append(n)
    plain = {next((n for n in group if n == base[n]), group[0]) for group in groups.values()}
    for width in (8, 16):
        out = {n: b if n in plain else _hashed(b, n, width) for n, b in base.items()}
        if len({v.casefold() for v in out.values()}) == len(out):
            return out
    # A hashed slug met another name's plain one: hash every name in full (distinct names, distinct hashes).
    return {n: _hashed(b, n, 64) for n, b in base.items()}
