"""The tower probes' cheap strategies per question (count / next / plan), credited as the shortcut
audit credits them (:mod:`probe_strategies`): issue 28's row "move each disc straight to its goal
peg" is a figure per question."""

from __future__ import annotations

from collections import defaultdict

from lm_eval_cog.audit.items import make_item
from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.paradigms.probe_base import Heuristic


def accuracy_by_question(docs: list[dict], heuristic: Heuristic) -> dict[str, tuple[float, float]]:
    """(accuracy, chance) of ``heuristic`` per question of ``docs`` (a uniform guess where it has no basis)."""
    got: dict[str, list[float]] = defaultdict(list)
    chance: dict[str, list[float]] = defaultdict(list)
    for doc in docs:
        item = make_item(doc["prompt"] + "\nAnswer:", doc["choices"], doc["gold"], doc["condition"])
        scores = heuristic.scores(item.stem, item.options)
        k = len(item.options)
        got[doc["question"]].append(1.0 / k if scores is None else credit(list(scores), item.gold))
        chance[doc["question"]].append(1.0 / k)
    return {q: (sum(v) / len(v), sum(chance[q]) / len(chance[q])) for q, v in got.items()}
