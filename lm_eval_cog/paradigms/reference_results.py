"""Published reference numbers (Hao et al. Tables I-IV and Fig. 2; Kennedy & Nowak Tables 1-2;
CogProbe (Cui et al.) Table 3 in English, Chinese and Spanish).

``reference_results.json`` (next to this module, beside ``chance_levels.json``) holds one
record per number printed in the papers whose paradigms this package reproduces, each tied
to the task of this package it compares with. This module reads and validates it; it uses
the standard library only, so reports can import it without lm-eval or numpy.

>>> rows = lookup(task="cog_wcst", metric="categories_completed", model="claude-3-5-sonnet-20240620")
>>> sorted({(r.table, r.mean) for r in rows})
[('I', 5.0), ('III', 5.0), ('IV', 5.0)]
>>> constant("kennedy_worst_case_wcst").value
0.75
>>> r = lookup(source="cogprobe2025", language="en", condition="Inductive Reasoning",
...            model="Qwen3-32B (Off)", metric="avg_queries_solved")[0]
>>> (r.mean, r.released, r.trust, r.task)
(7.18, 7.182, 'ok', 'cog_wason246')

CogProbe records carry ``language`` (en/zh/es), a ``trust`` verdict ("ok", "suspect",
"unreproducible"; the note says why) and ``released``, the value recomputed from the
authors' released outputs where it was checked. Records of the other sources omit the three
optional fields: they read as language "en", trust "ok", released None.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

REFERENCE_FILE = Path(__file__).with_name("reference_results.json")
SCHEMA_VERSION = 1

#: Tables (or figures) each source may cite.
KNOWN_TABLES: dict[str, frozenset[str]] = {
    "hao2025": frozenset({"I", "II", "III", "IV", "Fig. 2"}),
    "kennedy2024": frozenset({"1", "2"}),
    "cogprobe2025": frozenset({"3"}),
}
#: Metric names: the package's own where they exist (wcst/lnt scoring), plus the visual
#: probe's (Hao Table II), Fig. 2's CC / 5 and Table III's printed decline.
KNOWN_METRICS = frozenset(
    {
        "acc",
        "categories_completed",
        "perseverative_errors",
        "non_perseverative_errors",
        "trials_to_first_category",
        "conceptual_level_responses",
        "failure_to_maintain_set",
        "acc_count",
        "acc_color",
        "acc_shape",
        "acc_number",
        "acc_overall",
        "cc_standardized",
        "categories_completed_decline",
        # CogProbe Table 3: baseline, change after reflection, induction's Avg. Query, goal decomposition's F1
        "delta",
        "avg_queries_solved",
        "f1",
        "f1_delta",
    }
)
#: ``fraction_change`` is a signed change of a fraction (in [-1, 1]); ``queries`` a mean query count.
KNOWN_UNITS = frozenset({"count", "trials", "percent", "fraction", "fraction_change", "queries"})
KNOWN_N_UNITS = frozenset({"runs", "participants", "trials", "items"})
KNOWN_LANGUAGES = frozenset({"en", "zh", "es"})
#: ok: no known problem; suspect: inconsistent within the paper or a mislabelled model;
#: unreproducible: the authors' released outputs give a different number.
KNOWN_TRUST = frozenset({"ok", "suspect", "unreproducible"})
#: Tasks lm-eval itself ships that a record may name instead of a cog_* task.
EXTERNAL_TASKS = frozenset({"gsm8k"})
#: The fields of a record, in file order; ``model_id``, ``sd``, ``note`` and ``task`` (nothing in the
#: package or lm-eval compares) may be null.
RECORD_FIELDS = (
    "source",
    "table",
    "model",
    "model_id",
    "condition",
    "metric",
    "mean",
    "sd",
    "n",
    "n_unit",
    "unit",
    "task",
    "printed",
    "note",
)
#: Optional fields (schema-compatible extension) and their defaults.
OPTIONAL_FIELDS = {"language": "en", "trust": "ok", "released": None}
_NULLABLE = frozenset({"model_id", "sd", "note", "task"})
_STRINGS = ("source", "table", "model", "condition", "metric", "n_unit", "unit", "task", "printed")
_TASK = re.compile(r"^cog_[a-z0-9_]+$")
#: A printed cell: ``63.12 (4.67)``, ``11.00 (-)`` or a bare ``96.97``.
_PRINTED = re.compile(r"^(-?\d+(?:\.\d+)?)(?: \((\d+(?:\.\d+)?|-)\))?$")
#: A printed change (CogProbe Table 3): ``↑0.023``, ``↓0.270`` or ``=`` (unchanged).
_PRINTED_CHANGE = re.compile(r"^(?:([↑↓])(\d+(?:\.\d+)?)|=)$")


@dataclass(frozen=True)
class Record:
    """One published number: ``mean`` (``sd``) over ``n`` ``n_unit``, in ``unit``."""

    source: str
    table: str
    model: str
    model_id: str | None
    condition: str
    metric: str
    mean: float
    sd: float | None
    n: int
    n_unit: str
    unit: str
    task: str | None
    printed: str
    note: str | None
    language: str = "en"
    trust: str = "ok"
    released: float | None = None

    @property
    def key(self) -> tuple[str, str, str, str, str, str]:
        """Unique within the file."""
        return (
            self.source,
            self.table,
            self.language,
            self.model,
            self.condition,
            self.metric,
        )


@dataclass(frozen=True)
class Constant:
    """An analytic bound or scale stated in a paper."""

    name: str
    source: str
    where: str
    value: float
    printed: str
    formula: str
    metric: str
    tasks: tuple[str, ...]
    note: str | None


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def check(data: Mapping[str, Any]) -> list[str]:
    """Problems with a parsed reference file (empty when valid).

    Checks the top-level layout, each record's fields and types, that its source and table
    are known (and cited in ``sources``), that ``mean``/``sd`` are the numbers of its
    ``printed`` cell (for every unit used here the stored value equals the printed one; a
    ``fraction_change`` is printed ``↑x``/``↓x``/``=``), the optional ``language``/``trust``/
    ``released`` fields, that a non-``ok`` trust comes with a note, and that no two records
    share a key.
    """
    problems: list[str] = []
    if not isinstance(data, Mapping):
        return ["top level is not an object"]
    if data.get("schema_version") != SCHEMA_VERSION:
        problems.append(f"schema_version is {data.get('schema_version')!r}, expected {SCHEMA_VERSION}")
    sources = data.get("sources")
    if not isinstance(sources, Mapping) or not sources:
        problems.append("sources: missing or empty")
        sources = {}
    for name, src in sources.items():
        if name not in KNOWN_TABLES:
            problems.append(f"sources: unknown source {name!r}")
        if not isinstance(src, Mapping) or not isinstance(src.get("citation"), str) or not src["citation"].strip():
            problems.append(f"sources[{name!r}]: no citation")
            continue
        tables = src.get("tables")
        if not isinstance(tables, Mapping) or set(tables) != set(KNOWN_TABLES.get(name, ())):
            problems.append(f"sources[{name!r}].tables: {sorted(tables or ())} != {sorted(KNOWN_TABLES.get(name, ()))}")
    records = data.get("records")
    if not isinstance(records, list) or not records:
        return problems + ["records: missing or empty"]
    seen: dict[tuple, int] = {}
    for i, r in enumerate(records):
        where = f"records[{i}]"
        if not isinstance(r, Mapping):
            problems.append(f"{where}: not an object")
            continue
        extra = set(r) - set(RECORD_FIELDS)
        if not set(RECORD_FIELDS) <= set(r) or not extra <= set(OPTIONAL_FIELDS):
            bad_fields = (set(RECORD_FIELDS) - set(r)) | (extra - set(OPTIONAL_FIELDS))
            problems.append(f"{where}: fields {sorted(bad_fields)} missing or unexpected")
            continue
        bad = [f for f in RECORD_FIELDS if r[f] is None and f not in _NULLABLE]
        bad += [f for f in _STRINGS if r[f] is not None and (not isinstance(r[f], str) or not r[f].strip())]
        bad += [f for f in ("model_id", "note") if r[f] is not None and (not isinstance(r[f], str) or not r[f].strip())]
        if bad:
            problems.append(f"{where}: bad {sorted(set(bad))}")
            continue
        language = r.get("language", OPTIONAL_FIELDS["language"])
        trust = r.get("trust", OPTIONAL_FIELDS["trust"])
        released = r.get("released")
        where = f"{where} {r['source']}/{r['table']}/{language}/{r['model']}/{r['condition']}/{r['metric']}"
        if language not in KNOWN_LANGUAGES:
            problems.append(f"{where}: unknown language {language!r}")
        if trust not in KNOWN_TRUST:
            problems.append(f"{where}: unknown trust {trust!r}")
        elif trust != "ok" and r["note"] is None:
            problems.append(f"{where}: trust {trust!r} without a note saying why")
        if released is not None and not _is_number(released):
            problems.append(f"{where}: released is not a number or null")
        if r["source"] not in KNOWN_TABLES or r["source"] not in sources:
            problems.append(f"{where}: unknown source")
        elif r["table"] not in KNOWN_TABLES[r["source"]]:
            problems.append(f"{where}: unknown table")
        if r["metric"] not in KNOWN_METRICS:
            problems.append(f"{where}: unknown metric")
        if r["unit"] not in KNOWN_UNITS:
            problems.append(f"{where}: unknown unit")
        if r["n_unit"] not in KNOWN_N_UNITS:
            problems.append(f"{where}: unknown n_unit")
        if r["task"] is not None and not _TASK.match(r["task"]) and r["task"] not in EXTERNAL_TASKS:
            problems.append(f"{where}: task {r['task']!r} is not a cog_* name")
        if not _is_number(r["mean"]):
            problems.append(f"{where}: mean is not a number")
        if r["sd"] is not None and (not _is_number(r["sd"]) or r["sd"] < 0):
            problems.append(f"{where}: sd is not a non-negative number or null")
        if not isinstance(r["n"], int) or isinstance(r["n"], bool) or r["n"] < 1:
            problems.append(f"{where}: n is not a positive integer")
        if r["unit"] == "fraction" and _is_number(r["mean"]) and not 0 <= r["mean"] <= 1:
            problems.append(f"{where}: fraction outside [0, 1]")
        if r["unit"] == "percent" and _is_number(r["mean"]) and not 0 <= r["mean"] <= 100:
            problems.append(f"{where}: percent outside [0, 100]")
        if r["unit"] == "fraction_change" and _is_number(r["mean"]) and not -1 <= r["mean"] <= 1:
            problems.append(f"{where}: fraction_change outside [-1, 1]")
        if r["unit"] == "queries" and _is_number(r["mean"]) and r["mean"] < 0:
            problems.append(f"{where}: negative query count")
        change = _PRINTED_CHANGE.match(r["printed"]) if r["unit"] == "fraction_change" else None
        m = None if r["unit"] == "fraction_change" else _PRINTED.match(r["printed"])
        if r["unit"] == "fraction_change":
            if not change:
                problems.append(f"{where}: printed {r['printed']!r} is not '↑x', '↓x' or '='")
            else:
                expected = (
                    0.0 if change.group(1) is None else (1 if change.group(1) == "↑" else -1) * float(change.group(2))
                )
                if _is_number(r["mean"]) and r["mean"] != expected:
                    problems.append(f"{where}: mean {r['mean']} != printed {r['printed']}")
                if r["sd"] is not None:
                    problems.append(f"{where}: sd {r['sd']} != printed None")
        elif not m:
            problems.append(f"{where}: printed {r['printed']!r} is not 'mean (sd)'")
        else:
            if _is_number(r["mean"]) and float(m.group(1)) != r["mean"]:
                problems.append(f"{where}: mean {r['mean']} != printed {m.group(1)}")
            printed_sd = None if m.group(2) in (None, "-") else float(m.group(2))
            if printed_sd != r["sd"]:
                problems.append(f"{where}: sd {r['sd']} != printed {m.group(2)!r}")
        key = (
            r["source"],
            r["table"],
            language,
            r["model"],
            r["condition"],
            r["metric"],
        )
        if key in seen:
            problems.append(f"{where}: duplicate key (first at records[{seen[key]}])")
        seen.setdefault(key, i)
    for j, c in enumerate(data.get("constants") or ()):
        if not isinstance(c, Mapping) or not {"name", "source", "value", "formula", "tasks"} <= set(c):
            problems.append(f"constants[{j}]: missing fields")
        elif c["source"] not in KNOWN_TABLES or not _is_number(c["value"]):
            problems.append(f"constants[{j}] {c['name']}: unknown source or non-numeric value")
    return problems


def validate(data: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` listing every problem :func:`check` finds."""
    problems = check(data)
    if problems:
        raise ValueError("invalid reference results:\n  " + "\n  ".join(problems))


@lru_cache(maxsize=4)
def _read(path: str) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    validate(data)
    return data


def load_raw(path: str | Path | None = None) -> dict[str, Any]:
    """The validated file as parsed JSON (cached; do not mutate)."""
    return _read(str(path or REFERENCE_FILE))


def load(path: str | Path | None = None) -> list[Record]:
    """Every record of the (validated) file, in file order (optional fields filled with defaults)."""
    return [Record(**{**OPTIONAL_FIELDS, **r}) for r in load_raw(path)["records"]]


def constants(path: str | Path | None = None) -> list[Constant]:
    """The analytic bounds and scales (Kennedy's worst cases, Hao's CC / 5)."""
    out = []
    for c in load_raw(path).get("constants") or ():
        fields = {f: c.get(f) for f in Constant.__dataclass_fields__}
        fields["tasks"] = tuple(c.get("tasks") or ())
        out.append(Constant(**fields))
    return out


def constant(name: str, path: str | Path | None = None) -> Constant:
    """One constant by name (``KeyError`` if absent)."""
    for c in constants(path):
        if c.name == name:
            return c
    raise KeyError(name)


def sources(path: str | Path | None = None) -> dict[str, str]:
    """Source key -> full citation."""
    return {k: v["citation"] for k, v in load_raw(path)["sources"].items()}


def lookup(
    *,
    task: str | None = None,
    metric: str | None = None,
    model: str | None = None,
    condition: str | None = None,
    source: str | None = None,
    table: str | None = None,
    language: str | None = None,
    trust: str | None = None,
    records: Iterable[Record] | None = None,
) -> list[Record]:
    """Records matching every given filter (``None`` = any).

    ``trust="ok"`` keeps only the numbers with no known problem (CogProbe's suspect and
    unreproducible cells drop out).

    ``model`` matches the printed name or the API id, case-insensitively.
    """
    want = model.casefold() if model is not None else None
    out = []
    for r in load() if records is None else records:
        if task is not None and r.task != task:
            continue
        if metric is not None and r.metric != metric:
            continue
        if condition is not None and r.condition != condition:
            continue
        if source is not None and r.source != source:
            continue
        if table is not None and r.table != table:
            continue
        if language is not None and r.language != language:
            continue
        if trust is not None and r.trust != trust:
            continue
        if want is not None and want not in {r.model.casefold(), (r.model_id or "").casefold()}:
            continue
        out.append(r)
    return out


__all__ = [
    "KNOWN_LANGUAGES",
    "KNOWN_TRUST",
    "REFERENCE_FILE",
    "Constant",
    "Record",
    "check",
    "constant",
    "constants",
    "load",
    "load_raw",
    "lookup",
    "sources",
    "validate",
]
