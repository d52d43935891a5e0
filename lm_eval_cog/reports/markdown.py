"""Markdown for report.md and comparison.md: every text from the inputs escaped, tables with one row per line.

Model arguments, labels, task and metric names come from results files. Unescaped, ``<script>`` or
``<img onerror=...>`` would be live HTML in every viewer that renders Markdown's inline HTML, ``[x](...)``
a link, ``|`` a new table cell and a line break a new block. :func:`md` backslash-escapes the characters
that start such constructs (CommonMark lets any ASCII punctuation be escaped so) and folds line breaks
into spaces; what this package builds itself (links to its own files, emphasis) is :class:`Md` and passes
as it is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from lm_eval_cog.reports.html import MISSING, Markup, Num, fmt

#: Backslash (first: an input's own backslash must not escape ours), code, emphasis, links and images,
#: inline HTML and entities, table cells.
_SPECIAL = re.compile(r"[\\`*\[\]<>&|]")
#: CommonMark's line endings: inside a cell or a heading, one would end the block.
_BREAK = re.compile(r"\r\n?|\n")


class Md(str):
    """Trusted Markdown built by this package: :func:`md` and :func:`table` leave it as it is."""

    __slots__ = ()


def md(text: object) -> str:
    """``text`` as literal Markdown text on one line (``Md`` unchanged)."""
    if isinstance(text, Md):
        return text
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), _BREAK.sub(" ", str(text)))


def _cell(value: object) -> str:
    if isinstance(value, Md):
        return value
    if isinstance(value, Num):
        text = value.text
    elif isinstance(value, Markup):  # a trusted HTML fragment: its text without the tags
        text = html.unescape(re.sub(r"<[^>]+>", "", value))
    elif value is None:
        text = MISSING
    else:
        text = fmt(value)
    return md(text)


def table(headers: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub Markdown table; numbers formatted as in the pages, every text cell escaped."""
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
