"""How many distinct questions each cell of a probe effectively draws from, and the items two seeds
are expected to share.

    python scripts/probe_item_pools.py hanoi --seeds 100-129 --items 360
    python scripts/probe_item_pools.py hanoi --seeds 100-119 --params '{"min_discs": 5, "max_discs": 6}'

A cell is a condition (with the towers' question: count / next / plan). Its effective pool is
estimated from the repeats among its items over many seeds (``lm_eval_cog.audit.probes.
effective_pool``); two seeds of ``--share-items`` items are then expected to share about
sum over cells of (items per cell)² / pool. ``tests/test_probe_items_distinct.py`` checks one seed
pair; this says what to expect of any pair.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from lm_eval_cog.audit.probes import doc_item, effective_pool
from lm_eval_cog.probes.core import REGISTRY, get_probe


def seed_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    try:
        seeds = list(range(int(first), int(last or first) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds must be N or N-M, got {text!r}") from None
    if len(seeds) < 2:
        raise argparse.ArgumentTypeError(f"--seeds needs at least two seeds, got {text!r}")
    return seeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("probe", choices=sorted(REGISTRY))
    ap.add_argument("--seeds", type=seed_range, default=seed_range("100-119"), help="N-M (default 100-119)")
    ap.add_argument("--items", type=int, default=None, help="items per seed (default: the probe's default)")
    ap.add_argument("--share-items", type=int, default=300, help="seed size for the expected share (300)")
    ap.add_argument("--params", type=json.loads, default=None, help="probe parameters as JSON")
    args = ap.parse_args()
    probe = get_probe(args.probe)
    try:
        params = probe.make_params(args.params or {})
    except ValueError as err:
        ap.error(f"--params: {err}")
    items = args.items or probe.default_items
    cells: dict[str, list[str]] = defaultdict(list)
    for seed in args.seeds:
        for doc in probe.generate(seed, items, params):
            stem = doc_item(doc).stem  # the question without its options listing, as the stems test reads it
            cells[" ".join(filter(None, (doc.get("question"), doc["condition"])))].append(stem)
    expected = 0.0
    print(f"{args.probe}: seeds {args.seeds[0]}-{args.seeds[-1]} x {items} items")
    for cell, stems in sorted(cells.items()):
        pool = effective_pool(stems)
        per_seed = len(stems) / len(args.seeds) * args.share_items / items
        expected += per_seed**2 / pool
        print(f"  {cell:16s} draws {len(stems):5d}  distinct {len(set(stems)):5d}  pool ~ {pool:,.0f}")
    print(f"expected items shared by two seeds of {args.share_items}: {expected:.1f}")


if __name__ == "__main__":
    main()
