"""The declared tower heuristics' accuracy per question (count / next / plan), beside chance.

The audit pools a tower probe's questions in one cell; this breaks its heuristics down by question,
where the plan and next-move defects show (docs/static-probes.md, issue 28).

    python scripts/tower_heuristics.py hanoi --seeds 3 4 --items 360
    python scripts/tower_heuristics.py tower_london --choices-only docs/data/choices_only_smollm2.json
    python scripts/tower_heuristics.py hanoi --by-depth       # next-move and plan items, per depth

``--choices-only`` adds the choices-only language model's accuracy per question, from the per-item
credits that ``scripts/bench_choices_only.py --out`` stores (at that file's seeds and items).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

from lm_eval_cog.audit.probes import accuracy_by_question
from lm_eval_cog.probes.core import get_probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=["hanoi", "tower_london"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--items", type=int, default=360)
    parser.add_argument("--choices-only", default=None, help="JSON of scripts/bench_choices_only.py --out")
    parser.add_argument("--by-depth", action="store_true", help="next-move and plan columns per depth instead")
    args = parser.parse_args()
    probe = get_probe(args.probe)
    docs = [doc for seed in args.seeds for doc in probe.generate(seed, args.items)]
    if args.by_depth:
        print(by_depth(probe, docs, f"{args.probe}, seeds {args.seeds} x {args.items} items"))
        return
    table = {h.name: accuracy_by_question(docs, h) for h in probe.heuristics}
    questions = ("count", "next", "plan")
    print(f"{args.probe}, seeds {args.seeds} x {args.items} items")
    print(f"{'strategy':16s}" + "".join(f"{q:>8s}" for q in questions))
    first = next(iter(table.values()))
    print(f"{'chance':16s}" + "".join(_cell(first.get(q), 1) for q in questions))
    for name, by_question in table.items():
        print(f"{name:16s}" + "".join(_cell(by_question.get(q), 0) for q in questions))
    if args.choices_only:
        print(choices_only_line(probe, args.choices_only, questions))


def by_depth(probe, docs, title: str) -> str:
    """Each heuristic's accuracy on next-move / plan items per depth: where the greedy strategies win
    (at d2 the goal-directed move is always the key's first move)."""
    depths = [c for c in probe.conditions if any(d["condition"] == c for d in docs)]
    lines = [f"{title}: next move / plan", f"{'strategy':16s}" + "".join(f"{c:>12s}" for c in depths)]
    for heuristic in probe.heuristics:
        cells = []
        for condition in depths:
            got = accuracy_by_question([d for d in docs if d["condition"] == condition], heuristic)
            cells.append("/".join(f"{got[q][0]:.2f}" if q in got else "-" for q in ("next", "plan")))
        lines.append(f"{heuristic.name:16s}" + "".join(f"{c:>12s}" for c in cells))
    return "\n".join(lines)


def _cell(pair: tuple[float, float] | None, which: int) -> str:
    return f"{'-':>8s}" if pair is None else f"{pair[which]:8.3f}"  # a question without items: "-"


def choices_only_line(probe, path: str, questions: tuple[str, ...]) -> str:
    """The choices-only LM's accuracy per question, from its stored per-item credits."""
    with open(path, encoding="utf-8") as handle:
        stored = json.load(handle)
    credits = (stored.get("credits") or {}).get(probe.name)
    if credits is None:
        sys.exit(f"--choices-only: {path} holds no per-item credits of {probe.name}")
    docs = [doc for seed in stored["seeds"] for doc in probe.generate(seed, stored["items"])]
    by_question: dict[str, list[float]] = defaultdict(list)
    for doc, value in zip(docs, credits, strict=True):
        by_question[doc["question"]].append(value)
    means = "".join(_cell((sum(v) / len(v), 0.0) if (v := by_question.get(q)) else None, 0) for q in questions)
    return f"{'choices-only LM':16s}{means}   (seeds {stored['seeds']} x {stored['items']})"

if __name__ == "__main__":
    main()
