"""The audit's figures: per task, condition and strategy, blind accuracy against chance.

Chance is uniform guessing, the mean of 1/k over the items (Balepur et al.'s and Zheng et al.'s
reference); the best constant strategies (each position, the majority answer text) are rows of their
own, so an unbalanced key distribution shows as a strategy above chance.

A strategy is *flagged* as a shortcut when its accuracy exceeds chance by more than the threshold
(0.05 by default) **and** that excess is not sampling noise: the one-sided exact binomial test against
chance, Holm-corrected over every row of the audit (``p_holm``), is below ``alpha`` (0.05). Dozens of
strategies on a few hundred items each will put some noisy point estimates above chance + 0.05; the
correction keeps those from being called shortcuts, while a real shortcut of that size on a few hundred
items is far beyond it. Intervals are Wilson 95% intervals over the items, one-sided as the test is:
lower bounds, printed as ``>= 0.243``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from lm_eval_cog.audit.items import AuditItem
from lm_eval_cog.audit.strategies import credits

#: A blind strategy above chance by more than this is a shortcut (the issue's and our threshold).
DEFAULT_THRESHOLD = 0.05
#: Family-wise error rate of calling sampling noise a shortcut.
DEFAULT_ALPHA = 0.05
ALL = "all"


@dataclass(frozen=True)
class Row:
    """One strategy on one cell (task x condition)."""

    task: str
    condition: str
    strategy: str
    n: int
    distinct: int
    accuracy: float
    chance: float
    margin: float
    ci_low: float
    ci_high: float
    p: float
    p_holm: float
    flagged: bool
    #: Where a declared heuristic comes from (empty for the other strategies).
    citation: str = ""

    @property
    def family(self) -> str:
        """``surface``, ``heuristic``, ``detector`` or ``choices_only_model`` (see :func:`family`)."""
        return family(self.strategy)


def family(strategy: str) -> str:
    """The family of a strategy, from its name: declared heuristics are ``heuristic:<name>``, learned
    detectors ``detector:<name>``; the choices-only model is its own; everything else is surface."""
    if ":" in strategy:
        return strategy.split(":", 1)[0]
    return "choices_only_model" if strategy == "choices_only_model" else "surface"


def _row(task: str, condition: str, strategy: str, values: Sequence[float], chance: float, distinct: int,
         citation: str = "") -> Row:
    from scipy.stats import binomtest  # here: `lm-eval-cog --help` does not load scipy

    n = len(values)
    accuracy = sum(values) / n
    successes = min(n, max(0, round(sum(values))))
    test = binomtest(successes, n, p=min(max(chance, 1e-12), 1 - 1e-12), alternative="greater")
    ci = test.proportion_ci(confidence_level=0.95, method="wilson")
    return Row(task, condition, strategy, n, distinct, accuracy, chance, accuracy - chance, float(ci.low),
               float(ci.high), float(test.pvalue), float("nan"), False, citation)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1), in the input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def flag(rows: Sequence[Row], threshold: float = DEFAULT_THRESHOLD, alpha: float = DEFAULT_ALPHA) -> list[Row]:
    """``rows`` with ``p_holm`` and ``flagged`` set (Holm over all of them: see the module docstring)."""
    adjusted = holm([r.p for r in rows])
    return [
        replace(r, p_holm=q, flagged=r.margin > threshold + 1e-12 and q < alpha) for r, q in zip(rows, adjusted)
    ]

def _identity(item: AuditItem) -> tuple:
    return item.stem, tuple(sorted(item.options)), item.options[item.gold]


def audit_items(task: str, items: Sequence[AuditItem],
                extra: Mapping[str, Sequence[float | None]] | None = None,
                threshold: float = DEFAULT_THRESHOLD, citations: Mapping[str, str] | None = None) -> list[Row]:
    """Rows of every strategy on every condition of ``items`` and on all of them (``condition='all'``),
    not yet flagged (:func:`flag` does that over all the tasks of one audit).

    ``extra``: more strategies' per-item credits (the choices-only model, declared heuristics, learned
    detectors), aligned with ``items``; ``None`` leaves an item out of that strategy (a heuristic
    declared for other conditions): its rows are over the items it was played on, and a cell it never
    played has no row (nor has ``all`` where it holds the same items as one condition). ``citations``:
    strategy -> where it comes from (declared heuristics).
    """
    if not items:
        raise ValueError(f"task {task!r} has no items to audit")
    table: dict[str, Sequence[float | None]] = dict(credits(items))
    for name, values in (extra or {}).items():
        if len(values) != len(items):
            raise ValueError(f"strategy {name!r}: {len(values)} credits for {len(items)} items")
        table[name] = list(values)
    cells: dict[str, list[int]] = {ALL: list(range(len(items)))}
    conditions = sorted({item.condition for item in items})
    if conditions != [ALL] and len(conditions) > 1:
        for condition in conditions:
            cells[condition] = [i for i, item in enumerate(items) if item.condition == condition]
    rows = []
    for strategy, values in table.items():
        played = {condition: [i for i in members if values[i] is not None] for condition, members in cells.items()}
        for condition, members in played.items():
            if not members:
                continue
            if condition == ALL and len(members) < len(items) and any(
                    played[c] == members for c in played if c != ALL):
                continue
            chance = sum(1.0 / len(items[i].options) for i in members) / len(members)
            distinct = len({_identity(items[i]) for i in members})
            rows.append(_row(task, condition, strategy, [float(values[i]) for i in members], chance, distinct,
                             (citations or {}).get(strategy, "")))
    order = {condition: n for n, condition in enumerate(cells)}
    rows.sort(key=lambda r: order[r.condition])  # stable: strategies keep their order within a cell
    return rows


def best_rows(rows: Sequence[Row]) -> list[Row]:
    """Per (task, condition), the strategy with the largest margin (first in strategy order on ties)."""
    best: dict[tuple[str, str], Row] = {}
    for row in rows:
        key = (row.task, row.condition)
        if key not in best or row.margin > best[key].margin + 1e-12:
            best[key] = row
    return list(best.values())


def _finite(value: object) -> object:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _record(row: Row) -> dict[str, object]:
    return {**{k: _finite(v) for k, v in asdict(row).items()}, "family": row.family}


def to_json(rows: Sequence[Row], notes: Sequence[str] = ()) -> str:
    """Strict JSON (no NaN): every row, the best row per cell, and the audit's notes (detectors
    skipped or how they were trained)."""
    doc = {
        "rows": [_record(r) for r in rows],
        "best": [_record(r) for r in best_rows(rows)],
        "notes": list(notes),
    }
    return json.dumps(doc, indent=1, allow_nan=False)


def _cell(value: object) -> str:
    """A CSV cell; text that a spreadsheet would run as a formula gets a leading quote (OWASP)."""
    if isinstance(value, float):
        return f"{value:.6g}"
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def to_csv(rows: Sequence[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    fields = list(Row.__dataclass_fields__) + ["family"]
    writer.writerow(fields)
    for row in rows:
        writer.writerow([_cell(getattr(row, f)) for f in fields])
    return out.getvalue()


def _verdict(row: Row) -> str:
    if row.flagged:
        return "SHORTCUT"
    return "noise?" if row.margin > DEFAULT_THRESHOLD else "ok"


def interval_text(low: float, high: float) -> str:
    """The 95% interval of an accuracy: the test is one-sided (greater than chance), so its Wilson
    interval is a lower bound, ``>= 0.243``; ``[0.243, 0.612]`` only where it has an upper end below 1."""
    return f">= {low:.3f}" if high >= 1.0 else f"[{low:.3f}, {high:.3f}]"


def to_text(rows: Sequence[Row]) -> str:
    """The best blind strategy per task and condition, as an aligned plain-text table."""
    best = best_rows(rows)
    header = ("task", "condition", "n", "distinct", "best blind strategy", "acc", "chance", "margin",
              "acc 95% (one-sided)", "flag")  # fmt: skip
    lines = [header] + [
        (r.task, r.condition, str(r.n), str(r.distinct), r.strategy, f"{r.accuracy:.3f}", f"{r.chance:.3f}",
         f"{r.margin:+.3f}", interval_text(r.ci_low, r.ci_high), _verdict(r))
        for r in best
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines) + "\n"


def to_markdown(rows: Sequence[Row], notes: Sequence[str] = ()) -> str:
    """The same table in Markdown (cells escaped), the declared heuristics' citations and the notes."""

    def esc(text: str) -> str:
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")

    out = ["| task | condition | n | distinct | best blind strategy | acc | chance | margin |",
           "|---|---|---:|---:|---|---:|---:|---:|"]
    for r in best_rows(rows):
        out.append(f"| {esc(r.task)} | {esc(r.condition)} | {r.n} | {r.distinct} | {esc(r.strategy)} | "
                   f"{r.accuracy:.3f} | {r.chance:.3f} | {r.margin:+.3f} |")
    cited = sorted({(r.strategy, r.citation) for r in rows if r.citation})
    if cited:
        out += ["", "Declared heuristics:", ""] + [f"- {esc(s)}: {esc(c)}" for s, c in cited]
    if notes:
        out += ["", "Notes:", ""] + [f"- {esc(n)}" for n in notes]
    return "\n".join(out) + "\n"
