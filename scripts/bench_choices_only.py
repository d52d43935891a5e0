"""The choices-only language-model baseline on every static probe: accuracy vs chance per probe and condition.

    python scripts/bench_choices_only.py                                   # embedded SmolLM2, seed 1, 100 items
    python scripts/bench_choices_only.py --items 300 --seed 1 --seed 2 --out choices_only.json
    python scripts/bench_choices_only.py --model_args pretrained=PATH --device cuda:0 --batch_size 32

A real lm-eval model scores each option after the options listing alone, the question removed
(``lm-eval-cog audit --model``'s baseline, Balepur et al. ACL 2024), on the ``_mc`` items of every
probe (the pure generator, so no lm-eval task loading). Prints, per probe and audit cell, the
accuracy, chance (mean of 1/k), the margin, and whether it is a shortcut by the audit's rule
(margin > 0.05 and Holm-significant at 0.05 over all these rows). ``--out`` writes the rows as strict
JSON for ``scripts/audit_table.py``, with each item's credit (``credits``: per probe, in the order
of :func:`~lm_eval_cog.audit.probes.probe_items`, seed by seed, so any later breakdown, e.g. by the
towers' question, needs no model). Too slow for CI on a CPU (see docs/static-probes.md for timings).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict

from lm_eval_cog.audit.probes import probe_items
from lm_eval_cog.audit.table import audit_items, flag
from lm_eval_cog.lmeval.audit_cli import CHOICES_ONLY
from lm_eval_cog.lmeval.audit_source import choices_only_credits, load_model
from lm_eval_cog.probes.core import REGISTRY
from lm_eval_cog.strict_json import dumps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, action="append", help="probe seed (repeat; default 1)")
    ap.add_argument("--items", type=int, default=100, help="items per probe and seed (default 100)")
    ap.add_argument("--probe", action="append", help="only this probe (repeat; default all 24)")
    ap.add_argument("--model", default="hf", help="lm-eval model (default hf)")
    ap.add_argument("--model_args", default=None, help="default: the embedded SmolLM2, float32")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--batch_size", default="16")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args()
    if args.items < 1:
        ap.error("--items must be at least 1")
    unknown = sorted(set(args.probe or ()) - set(REGISTRY))
    if unknown:
        ap.error(f"--probe: unknown probe {unknown[0]!r} (known: {', '.join(sorted(REGISTRY))})")
    seeds = tuple(args.seed or (1,))
    if args.model_args is None:
        from lm_eval_cog.smollm2 import model_dir

        args.model_args = f"pretrained={model_dir()},dtype=float32"
    start = time.monotonic()
    lm = load_model(args.model, args.model_args, args.batch_size, args.device)
    rows, per_item = [], {}
    for name in sorted(args.probe or REGISTRY):
        items = probe_items(name, seeds, args.items)
        per_item[name] = credits = choices_only_credits(lm, args.model_args, items)
        rows += [r for r in audit_items(f"cog_{name}_mc", items, {CHOICES_ONLY: credits})
                 if r.strategy == CHOICES_ONLY]
        print(f"# {name}: {len(items)} items, {time.monotonic() - start:.0f} s", flush=True)
        _write(args.out, seeds, args, flag(rows), per_item)  # after each probe: a long run keeps what it measured
    rows = flag(rows)
    print(f"{'task':<26}{'cell':<16}{'n':>5}{'acc':>8}{'chance':>8}{'margin':>8}  verdict")
    for r in rows:
        verdict = "SHORTCUT" if r.flagged else ("above +0.05 (not significant)" if r.margin > 0.05 else "ok")
        print(f"{r.task:<26}{r.condition:<16}{r.n:>5}{r.accuracy:>8.3f}{r.chance:>8.3f}{r.margin:>+8.3f}  {verdict}")
    above = sorted({r.task for r in rows if r.margin > 0.05})
    print(f"# {time.monotonic() - start:.0f} s; seeds {list(seeds)}, {args.items} items each; "
          f"cells above chance + 0.05 in: {', '.join(above) or 'none'}; flagged: {sum(r.flagged for r in rows)}")
    _write(args.out, seeds, args, rows, per_item)


def _write(out: str | None, seeds: tuple[int, ...], args: argparse.Namespace, rows: list,
           per_item: dict[str, list[float]]) -> None:
    if out:
        doc = {"seeds": list(seeds), "items": args.items, "model_args": args.model_args,
               "rows": [asdict(r) for r in rows], "credits": per_item}
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(dumps(doc, indent=1))


if __name__ == "__main__":
    main()
