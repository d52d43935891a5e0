"""The declared tower heuristics' accuracy per question (count / next / plan), beside chance.

The audit pools a tower probe's questions in one cell; this breaks its heuristics down by question,
where the plan and next-move defects show (docs/static-probes.md, issue 28).

    python scripts/tower_heuristics.py hanoi --seeds 3 4 --items 360
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from lm_eval_cog.audit.items import make_item
from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.probes.core import get_probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=["hanoi", "tower_london"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--items", type=int, default=360)
    args = parser.parse_args()
    probe = get_probe(args.probe)
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for seed in args.seeds:
        for doc in probe.generate(seed, args.items):
            item = make_item(doc["prompt"] + "\nAnswer:", doc["choices"], doc["gold"], doc["condition"])
            values[("chance", doc["question"])].append(1 / len(item.options))
            for heuristic in probe.heuristics:
                scores = heuristic.scores(item.stem, item.options)
                got = 1 / len(item.options) if scores is None else credit(list(scores), item.gold)
                values[(heuristic.name, doc["question"])].append(got)
    questions = ("count", "next", "plan")
    print(f"{args.probe}, seeds {args.seeds} x {args.items} items")
    print(f"{'strategy':16s}" + "".join(f"{q:>8s}" for q in questions))
    for name in ["chance"] + [h.name for h in probe.heuristics]:
        row = [sum(values[(name, q)]) / len(values[(name, q)]) for q in questions]
        print(f"{name:16s}" + "".join(f"{v:8.3f}" for v in row))


if __name__ == "__main__":
    main()
