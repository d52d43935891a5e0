"""CSV files that a spreadsheet opens as data, never as formulas.

Model labels and task names come from results files. A cell that starts with ``=``, ``+``, ``-`` or ``@``
(or a tab or a line break, which some spreadsheets skip before one of those) is run as a formula by
Excel, LibreOffice and Google Sheets: ``=HYPERLINK(...)`` in a model name would be a live link, and
worse formulas exist. As OWASP recommends, such a text cell is written with a leading ``'``, which the
spreadsheet shows as text. Numbers are written as numbers (``repr``, so they round-trip), never escaped:
a negative score stays a number.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Sequence

#: First characters that make a cell a formula (and their full-width forms, which some spreadsheets fold).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def text_cell(text: str) -> str:
    """``text`` as a cell that cannot start a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def number_cell(value: float | None) -> str:
    """Full precision (repr) so the CSV round-trips; empty for missing, NaN or infinite."""
    if value is None or not math.isfinite(value):
        return ""
    return str(value) if isinstance(value, numbers.Integral) else repr(float(value))


def cell(value: object) -> str:
    """A number (or None) as a number, anything else as escaped text."""
    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        return number_cell(value)
    return text_cell(str(value))


def csv_text(rows: Sequence[Sequence[object]]) -> str:
    """The rows as CSV text (``\n`` line ends), each cell through :func:`cell`."""
    buffer = io.StringIO()
    minimal = csv.writer(buffer, lineterminator="\n")
    # The writer quotes a field holding its line terminator ("\n") but not a lone "\r", which readers
    # take as a line end: a row with one is written fully quoted.
    quoted = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for row in rows:
        cells = [cell(v) for v in row]
        (quoted if any("\r" in c for c in cells) else minimal).writerow(cells)
    return buffer.getvalue()
