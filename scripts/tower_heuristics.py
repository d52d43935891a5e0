"""The declared tower heuristics' accuracy per question (count / next / plan), beside chance.

The audit pools a tower probe's questions in one cell; this breaks its heuristics down by question,
where the plan and next-move defects show (docs/static-probes.md, issue 28).

    python scripts/tower_heuristics.py hanoi --seeds 3 4 --items 360
"""

from __future__ import annotations

import argparse

from lm_eval_cog.audit.probes import accuracy_by_question
from lm_eval_cog.probes.core import get_probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=["hanoi", "tower_london"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--items", type=int, default=360)
    args = parser.parse_args()
    probe = get_probe(args.probe)
    docs = [doc for seed in args.seeds for doc in probe.generate(seed, args.items)]
    table = {h.name: accuracy_by_question(docs, h) for h in probe.heuristics}
    questions = ("count", "next", "plan")
    print(f"{args.probe}, seeds {args.seeds} x {args.items} items")
    print(f"{'strategy':16s}" + "".join(f"{q:>8s}" for q in questions))
    first = next(iter(table.values()))
    print(f"{'chance':16s}" + "".join(f"{first[q][1]:8.3f}" for q in questions))
    for name, by_question in table.items():
        print(f"{name:16s}" + "".join(f"{by_question[q][0]:8.3f}" for q in questions))

if __name__ == "__main__":
    main()
