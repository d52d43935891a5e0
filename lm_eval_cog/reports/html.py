"""Self-contained HTML pages: one document with inline CSS and an inline table sorter, nothing fetched.

The pages are opened from disk, mailed around and printed, so they must never load anything from the
network (no CDN, fonts or scripts); figures are embedded as PNG data URIs.
"""

from __future__ import annotations

import fnmatch
import html
import math
import numbers
import os
from collections.abc import Sequence
from pathlib import Path

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.files import refuse_links, write_text
from lm_eval_cog.reports.plotting import FigureFile

#: lm-eval's own output files: never overwritten, whatever the output folder.
LM_EVAL_FILES = ("results_*.json", "samples_*.jsonl")

MISSING = "—"


class Markup(str):
    """A trusted HTML fragment (built by this package): ``table`` puts it in as is, unescaped."""

    __slots__ = ()


class Num:
    """A numeric cell with its own display text: sorted by ``value``, shown as ``text``."""

    __slots__ = ("text", "value")

    def __init__(self, value: float | None, text: str | None = None) -> None:
        self.value = value
        self.text = fmt(value) if text is None else text


def fmt(value: object, digits: int = 4) -> str:
    """A number for a table: ``digits`` significant digits; None/NaN/inf as an em dash."""
    if value is None or isinstance(value, bool):
        return MISSING if value is None else str(value)
    if isinstance(value, numbers.Integral):
        return str(value)
    if isinstance(value, numbers.Real):
        return f"{float(value):.{digits}g}" if math.isfinite(value) else MISSING
    return str(value)


#: Standard errors below this are floating-point noise of a constant metric (e.g. 55.77 ± 1.3e-10
#: from summing equal values), shown as 0.
STDERR_NOISE = 1e-9


def fmt_stderr(value: object, digits: int = 4) -> str:
    """A standard error for a table: as :func:`fmt`, with floating-point noise (< 1e-9) shown as 0."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) and abs(value) < STDERR_NOISE:
        return "0"
    return fmt(value, digits)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _cell(value: object, tag: str = "td") -> str:
    if isinstance(value, Num):
        number, text = value.value, value.text
    elif _is_number(value):
        number, text = value, fmt(value)
    else:
        if value is None:  # a number that is not there: a dash, sorted last
            return f'<{tag} class="missing">{MISSING}</{tag}>'
        text = value if isinstance(value, Markup) else html.escape(str(value))
        return f"<{tag}>{text}</{tag}>"
    text = html.escape(text)
    if number is None or not math.isfinite(float(number)):
        # No data-value: the sorter puts missing numbers last in either direction.
        return f'<{tag} class="missing">{text}</{tag}>'
    return f'<{tag} class="num" data-value="{float(number)!r}">{text}</{tag}>'


def table(
    headers: Sequence[object],
    rows: Sequence[Sequence[object]],
    *,
    sortable: bool = True,
    classes: str = "",
    caption: str = "",
) -> str:
    """An HTML table; every cell escaped unless it is ``Markup``; numbers (and ``Num``) get ``data-value``."""
    names = " ".join(c for c in ("sortable" if sortable else "", classes) if c)
    attr = f' class="{html.escape(names)}"' if names else ""
    head = "".join(f"<th>{h if isinstance(h, Markup) else html.escape(str(h))}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    # The wrapper scrolls a wide table sideways instead of widening the page.
    return Markup(
        f'<div class="table-wrap"><table{attr}>{cap}<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n'
        "</tbody></table></div>"
    )


def figure(fig: FigureFile, *, page_dir: Path | None = None) -> str:
    """The PNG embedded as a data URI, the caption, and a link to the SVG relative to the page's folder.

    Without ``page_dir`` the page is taken to sit beside the figure folder (``figures/<stem>.svg``).
    """
    if page_dir is None:
        svg_href = f"{fig.svg.parent.name}/{fig.svg.name}"
    else:
        svg_href = Path(os.path.relpath(fig.svg, page_dir)).as_posix()
    title = html.escape(fig.title)
    caption = f" {html.escape(fig.caption)}" if fig.caption else ""
    return Markup(
        f'<figure><img src="{fig.data_uri()}" alt="{title}">'
        f"<figcaption><strong>{title}.</strong>{caption} "
        f'<a href="{html.escape(svg_href)}">SVG</a></figcaption></figure>'
    )


def warnings_box(messages: Sequence[str]) -> str:
    """A visible list of warnings (empty string when there are none)."""
    if not messages:
        return ""
    items = "".join(f"<li>{html.escape(m)}</li>" for m in messages)
    return Markup(f'<div class="warnings" role="alert"><strong>Warnings</strong><ul>{items}</ul></div>')


# ---------------------------------------------------------------- writing files safely


def _input_folders(inputs: Sequence[Path]) -> list[Path]:
    """The lm-eval output folders behind the inputs: a folder given as is, a file's parent folder."""
    folders = []
    for p in inputs:
        p = Path(p).resolve()
        folders.append(p.parent if p.is_file() else p)
    return folders


def check_output_dir(out_dir: Path, inputs: Sequence[Path]) -> None:
    """Refuse an output folder that is an input folder or inside one: lm-eval's folders stay untouched."""
    out = Path(out_dir).resolve()
    for folder in _input_folders(inputs):
        if out == folder or folder in out.parents:
            raise ReportInputError(
                f"output folder {out_dir} is inside the input folder {folder}: "
                "write reports elsewhere so lm-eval's output stays untouched"
            )


def _check_new(path: Path, inputs: Sequence[Path], root: Path | None = None) -> None:
    """Refuse ``path`` where writing it would touch an input or go through a link (see :func:`write_new`)."""
    target = path.resolve()
    for p in inputs:
        if Path(p).resolve() == target:
            raise ReportInputError(f"refusing to write {path}: it is one of the input files")
    check_output_dir(target.parent, inputs)
    if target.exists() and any(fnmatch.fnmatch(target.name, pat) for pat in LM_EVAL_FILES):
        raise ReportInputError(f"refusing to overwrite {path}: it is an lm-eval output file")
    refuse_links(path, path.parent if root is None else Path(root))


def write_new(path: Path, text: str, inputs: Sequence[Path], root: Path | None = None) -> None:
    """Write ``text`` to ``path`` unless that would touch an input: an input file, a file inside an
    input folder, or an existing lm-eval ``results_*.json`` / ``samples_*.jsonl``; nor through a
    symbolic link at ``path`` or in a folder between the output folder ``root`` and it."""
    path = Path(path)
    _check_new(path, inputs, root)
    write_text(path, text, root)


def check_outputs(out_dir: Path, files: Sequence[str], folders: Sequence[str] = (), inputs: Sequence[Path] = ()) -> None:
    """Every check :func:`write_new` makes, for every file a command will write, before it writes any:
    a refused ``report.md`` must not leave a fresh ``index.html`` and ``figures/`` behind. ``folders``
    (``figures``, ``episodes``) get files whose names depend on the data: any link in them is refused."""
    out_dir = Path(out_dir)
    for name in files:
        _check_new(out_dir / name, inputs, out_dir)
    for name in folders:
        folder = out_dir / name
        refuse_links(folder, out_dir)
        if folder.is_dir():
            for entry in sorted(folder.rglob("*")):
                refuse_links(entry, out_dir)


# ---------------------------------------------------------------- the page


_CSS = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --band: #f6f8fa;
        --right: #1a7f37; --wrong: #cf222e; --invalid: #9a6700; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       color: var(--fg); background: #fff; margin: 0 auto; padding: 1.5rem 2rem; max-width: 96rem; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.3rem; margin-top: 2.2rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1.1rem; margin-top: 1.6rem; }
a { color: #0969da; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--band); padding: .5rem .7rem;
      border-radius: 4px; margin: .3rem 0; }
.muted, .note { color: var(--muted); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0 1rem; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; word-break: break-all; }
table { border-collapse: collapse; margin: .6rem 0 1.2rem; font-size: .9rem; max-width: 100%; }
caption { caption-side: top; text-align: left; color: var(--muted); padding-bottom: .3rem; }
th, td { border: 1px solid var(--line); padding: .25rem .55rem; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }  /* long task names wrap: the summary fits a 1400-px window */
thead th { background: var(--band); }
td.num, td.missing { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.table-wrap { overflow-x: auto; max-width: 100%; }
ul.refs { margin: 0; padding-left: 1rem; min-width: 14rem; font-size: .85em; }
td.missing { color: var(--muted); }
tbody tr:nth-child(even) { background: #fbfcfd; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th::after { content: " \\2195"; color: #b0b8c0; font-size: .8em; }
table.sortable thead th[aria-sort="ascending"]::after { content: " \\25B2"; color: var(--fg); }
table.sortable thead th[aria-sort="descending"]::after { content: " \\25BC"; color: var(--fg); }
figure { margin: 1rem 0 1.5rem; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: .88rem; max-width: 60rem; }
.warnings { border: 1px solid #d4a72c; border-left: 6px solid #d4a72c; background: #fff8c5;
            padding: .5rem .9rem; margin: 1rem 0; }
.warnings ul { margin: .3rem 0 0; padding-left: 1.2rem; }
.error { color: var(--wrong); font-weight: 600; }
nav.toc ul { columns: 3 16rem; padding-left: 1.2rem; }
section.task { border-top: 1px solid var(--line); margin-top: 2rem; }
details.episode { border: 1px solid var(--line); border-radius: 4px; margin: .5rem 0; padding: .3rem .7rem; }
details.episode > summary { cursor: pointer; font-weight: 600; }
details.episode[open] > summary { margin-bottom: .4rem; }
.trial-right { border-left: 5px solid var(--right); background: #dafbe1; }
.trial-wrong { border-left: 5px solid var(--wrong); background: #ffebe9; }
.trial-invalid { border-left: 5px solid var(--invalid); background: #fff8c5; }
.trial-right, .trial-wrong, .trial-invalid { padding: .15rem .5rem; margin: .15rem 0; }
.trial-none { border-left: 5px solid var(--line); }
.trial-right, .trial-wrong, .trial-invalid, .trial-none { padding: .15rem .5rem; margin: .25rem 0; }
details.episode.episode-failed { border-color: var(--wrong); }
.episode-error { color: var(--wrong); font-weight: 600; }
.episode-metrics, .episodes-note, .read-as, .target, .image-note, .no-reply { color: var(--muted); margin: .2rem 0; }
details.system-prompt { margin: .3rem 0; } details.system-prompt > summary { cursor: pointer; color: var(--muted); }
ol.turns { padding-left: 2rem; margin: .3rem 0; }
.turn pre { margin: .1rem 0 .3rem; padding: .25rem .5rem; background: rgba(255, 255, 255, .65); }
.who { font-weight: 600; font-size: .85em; color: var(--muted); }
.turn .mark { display: inline-block; font-weight: 700; font-size: .85em; margin: .1rem 0; }
.trial-right .mark { color: var(--right); } .trial-wrong .mark { color: var(--wrong); }
.trial-invalid .mark { color: var(--invalid); }
.label-right { color: var(--right); font-weight: 700; }
.label-wrong { color: var(--wrong); font-weight: 700; }
.label-invalid { color: var(--invalid); font-weight: 700; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  a { color: inherit; }
  table.sortable thead th::after { content: ""; }
  figure, table, details.episode { break-inside: avoid; }
  .trial-right, .trial-wrong, .trial-invalid, .warnings, thead th { print-color-adjust: exact;
    -webkit-print-color-adjust: exact; }
}
"""

# Sorts every table.sortable by a click on (or Enter on) a header: numbers by data-value when every
# filled cell of the column has one, else text; missing values last in both directions.
_JS = """
(function () {
  function key(cell, numeric) {
    if (!cell) return null;
    if (numeric) {
      var v = cell.getAttribute('data-value');
      if (v === null || v === '') return null;
      var n = parseFloat(v);
      return isNaN(n) ? null : n;
    }
    var t = cell.textContent.trim();
    return t === '' || t === '\\u2014' ? null : t.toLowerCase();
  }
  function isNumeric(rows, i) {
    var seen = false;
    for (var r = 0; r < rows.length; r++) {
      var c = rows[r].cells[i];
      if (!c) continue;
      var t = c.textContent.trim();
      if (c.hasAttribute('data-value')) { seen = true; }
      else if (t !== '' && t !== '\\u2014') { return false; }
    }
    return seen;
  }
  function sortBy(table, th, i) {
    var body = table.tBodies[0];
    if (!body) return;
    var rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
    var numeric = isNumeric(rows, i);
    rows.sort(function (a, b) {
      var x = key(a.cells[i], numeric), y = key(b.cells[i], numeric);
      if (x === null && y === null) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      if (numeric) return dir * (x - y);
      return dir * x.localeCompare(y, undefined, {numeric: true});
    });
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    if (!table.tHead || !table.tHead.rows.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.tabIndex = 0;
      th.title = 'Sort by this column';
      th.addEventListener('click', function () { sortBy(table, th, i); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(table, th, i); }
      });
    });
  });
})();
"""


def page(title: str, body_html: str) -> str:
    """A complete HTML5 document: the escaped title as <title> and <h1>, the body, inline CSS and JS."""
    t = html.escape(title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{t}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<h1>{t}</h1>\n{body_html}\n"
        f"<script>{_JS}</script>\n</body>\n</html>\n"
    )
