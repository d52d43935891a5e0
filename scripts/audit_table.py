"""The audit table of docs/static-probes.md: per probe, the best cell of each strategy family.

    python scripts/audit_table.py                                     # seeds 1-3 x 400 items, detectors on 4-5 x 200
    python scripts/audit_table.py --choices-only choices_only.json    # + the LM column (scripts/bench_choices_only.py)
    python scripts/audit_table.py --probe span --probe hanoi          # some probes only
    python scripts/audit_table.py --save rows.json; python scripts/audit_table.py --load rows.json --choices-only lm.json

Families: surface strategies, the probe's declared heuristics, the learned detectors (trained on the
training seeds, tested on the audited ones), and the choices-only language model (read from the JSON
that ``scripts/bench_choices_only.py --out`` writes, as it is too slow to rerun here). Each family's
best cell is its row with the largest margin over chance across the probe's cells; "shortcuts"
counts the flagged rows (margin > 0.05 and Holm-significant over the probe's rows, as
``tests/test_probe_audit.py`` tests them; the choices-only rows are flagged over the LM's own rows, as
the benchmark script does). Prints Markdown. ``--save`` keeps every probe's rows as JSON, ``--load``
renders from them without re-auditing (the audit of 24 probes takes minutes).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict

from lm_eval_cog.audit.probes import audit_probe
from lm_eval_cog.audit.table import Row, family
from lm_eval_cog.probes.core import REGISTRY
from lm_eval_cog.strict_json import dumps

FAMILIES = ("surface", "heuristic", "detector", "choices_only_model")
HEADERS = {"surface": "surface", "heuristic": "declared heuristics", "detector": "learned detectors",
           "choices_only_model": "choices-only LM"}


def _best(rows: Sequence[Row]) -> str:
    if not rows:
        return "none declared"
    best = max(rows, key=lambda r: r.margin)
    name = best.strategy.split(":", 1)[-1]
    return f"`{name}` ({best.condition}) {best.accuracy:.2f} vs {best.chance:.2f}, {best.margin:+.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--items", type=int, default=400, help="items per probe and audited seed")
    ap.add_argument("--train-seeds", type=int, nargs="+", default=[4, 5])
    ap.add_argument("--train-items", type=int, default=200, help="items per probe and training seed")
    ap.add_argument("--choices-only", default=None, help="JSON of scripts/bench_choices_only.py --out")
    ap.add_argument("--probe", action="append", help="only this probe (repeat)")
    ap.add_argument("--save", default=None, help="write every probe's audit rows here (JSON)")
    ap.add_argument("--load", default=None, help="render from rows --save wrote, without auditing")
    args = ap.parse_args()
    if set(args.seeds) & set(args.train_seeds):
        ap.error("--train-seeds must not repeat an audited seed")
    lm: dict[str, list[Row]] = {}
    lm_note = "not run"
    if args.choices_only:
        with open(args.choices_only, encoding="utf-8") as handle:
            doc = json.load(handle)
        for r in doc["rows"]:
            lm.setdefault(r["task"], []).append(Row(**r))
        lm_note = f"seeds {doc['seeds']}, {doc['items']} items each"
    saved: dict[str, list[Row]] = {}
    if args.load:
        with open(args.load, encoding="utf-8") as handle:
            doc = json.load(handle)
        args.seeds, args.items, args.train_seeds, args.train_items = (
            doc["seeds"], doc["items"], doc["train_seeds"], doc["train_items"])
        saved = {name: [Row(**r) for r in rows] for name, rows in doc["probes"].items()}
    print(f"Audited seeds {args.seeds} ({args.items} items each); detectors trained on seeds {args.train_seeds} "
          f"({args.train_items} items each); choices-only LM: {lm_note}.\n")
    print("| probe | " + " | ".join(HEADERS[f] for f in FAMILIES) + " | shortcuts |")
    print("|---" * (len(FAMILIES) + 2) + "|")
    for name in sorted(args.probe or REGISTRY):
        task = f"cog_{name}_mc"
        rows = saved.get(name) or audit_probe(name, args.seeds, args.items, train_seeds=args.train_seeds,
                                              train_items=args.train_items)
        saved[name] = rows
        by_family = {f: [r for r in rows if family(r.strategy) == f] for f in FAMILIES}
        by_family["choices_only_model"] = lm.get(task, [])
        cells = [_best(by_family[f]) if (f != "choices_only_model" or task in lm) else "not run" for f in FAMILIES]
        shortcuts = [r for f in FAMILIES for r in by_family[f] if r.flagged]
        counts = ", ".join(f"{sum(family(r.strategy) == f for r in shortcuts)} {f}" for f in FAMILIES
                           if any(family(r.strategy) == f for r in shortcuts)) or "none"
        print(f"| `{name}` | " + " | ".join(cells) + f" | {counts} |", flush=True)
    if args.save:
        doc = {"seeds": args.seeds, "items": args.items, "train_seeds": args.train_seeds,
               "train_items": args.train_items, "probes": {n: [asdict(r) for r in rows] for n, rows in saved.items()}}
        with open(args.save, "w", encoding="utf-8") as handle:
            handle.write(dumps(doc, indent=1))


if __name__ == "__main__":
    main()
