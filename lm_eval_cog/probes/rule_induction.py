"""Rule induction: a static companion of Wason's 2-4-6 task (Wason, 1960).

Item: "A hidden rule decides which triples of whole numbers fit it. The triple
(6, 8, 10) fits the rule.", then 6-10 more triples labelled "fits" / "does not fit"
by the hidden rule, drawn from CogProbe's rule families with random parameters
(Song et al., 2025: ascending, increases by k, ascending multiples of k, z = x + y,
each number r times the one before) and a few more (all multiples of k, all odd,
last largest, x, 2x, 3x). The hidden rule's family is uniform over the six that can
differ from the initial triple's obvious pattern both ways
(``_rule_induction_rules.HIDDEN``). Values are whole numbers in 1..``max_value``.

The initial triple is built to fit a second rule, the *obvious* one: the most salient
surface pattern it shows (equal steps, then equal ratios, then x, 2x, 3x, then
z = x + y), as "increases by 2" for 2-4-6, the hypothesis Wason's participants held
and kept confirming with positive tests (Wason, 1960; Klayman & Ha, 1987). The labels
refute it. Conditions cycle by index:

* ``choose_rule``: which of 4 rules (in words, all fitting the initial triple) is the
  hidden rule? Exactly one fits every label; ``lure`` = the obvious rule;
* ``apply_rule``: does a new triple fit the hidden rule? yes/no, the triple chosen so
  that the obvious rule gives the other answer (``lure``); yes and no are equally
  likely.

Effect: ``obvious_rule_share`` = share of ``choose_rule`` errors (invalid answers
included) that pick the obvious rule: chance 1/3 (one of the three wrong options),
1 for a player who holds on to the first pattern (the ``prepotent`` player, who also
scores 0 on both conditions). Chance accuracy: 0.25 / 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes import _rule_induction_rules as rules
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("choose_rule", "apply_rule")
YES_NO = ["yes", "no"]
_POOL = 24  # triples drawn per source when looking for a triple with given verdicts
_MAX_TRIES = 2_000

Triple = rules.Triple


@dataclass(frozen=True)
class RuleInductionParams:
    """Attributes:
    min_labels, max_labels: Range of the number of labelled triples (6, 10); min_labels >= 4.
    max_value: Largest number in a triple (99), >= 30.
    """

    min_labels: int = 6
    max_labels: int = 10
    max_value: int = 99

    def __post_init__(self) -> None:
        require_int("rule_induction", "min_labels", self.min_labels, 4)
        require_int("rule_induction", "max_labels", self.max_labels, 4)
        require_int("rule_induction", "max_value", self.max_value, 30)
        if self.max_labels < self.min_labels:
            raise ValueError(
                f"rule_induction parameter 'max_labels' must be >= min_labels ({self.min_labels}), got {self.max_labels}"
            )


def _find(rng: np.random.Generator, sources: list[str], top: int, want: Any, avoid: set[Triple]) -> Triple | None:
    """A triple satisfying ``want`` among positives of ``sources`` and random triples."""
    pool = [rules.positive(rng, s, top) for s in sources for _ in range(_POOL)]
    pool += [rules.random_triple(rng, top) for _ in range(_POOL)]
    hits = [t for t in pool if t not in avoid and want(t)]
    return hits[int(rng.integers(len(hits)))] if hits else None


def _draw_item(
    rng: np.random.Generator, params: RuleInductionParams, family: str, query_fits: bool
) -> dict[str, Any] | None:
    """One attempt: hidden rule of ``family``, obvious rule, initial triple, distractors,
    query and labels (None: this draw admits no item)."""
    top = params.max_value
    obvious = rules.draw_spec(rng, rules.SALIENT)
    hidden = rules.draw_spec(rng, (family,))
    if hidden == obvious:
        return None
    start = _find(
        rng, [obvious, hidden], top, lambda t: rules.holds(hidden, t) and rules.obvious(t) == obvious, set()
    )
    if start is None:
        return None
    distractors: list[str] = []
    for _ in range(40):
        spec = rules.draw_spec(rng)
        if spec not in (hidden, obvious, *distractors) and rules.holds(spec, start):
            distractors.append(spec)
        if len(distractors) == 2:
            break
    else:
        return None
    query = _find(
        rng, [hidden, obvious], top,
        lambda t: rules.holds(hidden, t) == query_fits and rules.holds(obvious, t) != query_fits, {start},
    )
    if query is None:
        return None
    shown = {start, query}
    labelled: list[Triple] = []
    for rival in (obvious, *distractors):  # one triple refuting each wrong candidate
        if any(rules.holds(hidden, t) != rules.holds(rival, t) for t in labelled):
            continue
        refuter = _find(rng, [hidden, rival], top, lambda t, r=rival: rules.holds(hidden, t) != rules.holds(r, t), shown)
        if refuter is None:
            return None
        labelled.append(refuter)
        shown.add(refuter)
    n_labels = int(rng.integers(params.min_labels, params.max_labels + 1))
    while len(labelled) < n_labels:  # fill with fitting and non-fitting triples in equal measure
        fits = bool(rng.random() < 0.5)
        extra = _find(rng, [hidden], top, lambda t, f=fits: rules.holds(hidden, t) == f, shown)
        if extra is None:
            return None
        labelled.append(extra)
        shown.add(extra)
    if len({rules.holds(hidden, t) for t in labelled}) < 2:  # show both verdicts
        return None
    order = rng.permutation(len(labelled))
    return {
        "hidden": hidden, "obvious": obvious, "distractors": distractors, "start": start,
        "labelled": [labelled[int(k)] for k in order], "query": query,
    }


def _header(start: Triple, labelled: list[Triple], hidden: str) -> str:
    lines = [
        "A hidden rule decides which triples of whole numbers fit it.",
        f"The triple {_show(start)} fits the rule. Here are more triples, labelled by the rule:",
    ]
    lines += [f"{_show(t)}: {'fits' if rules.holds(hidden, t) else 'does not fit'}" for t in labelled]
    return "\n".join(lines)


def _show(t: Triple) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})"


class RuleInduction(Probe):
    name = "rule_induction"
    ability = "induction"
    Params = RuleInductionParams
    conditions = CONDITIONS
    lure_conditions = CONDITIONS
    effects: ClassVar[dict[str, tuple[str, bool]]] = {"obvious_rule_share": ("conditional_mean", False)}

    def item(self, rng: np.random.Generator, params: RuleInductionParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        query_fits = bool(rng.random() < 0.5)
        family = rules.HIDDEN[int(rng.integers(len(rules.HIDDEN)))]
        found = None
        for _ in range(_MAX_TRIES):
            found = _draw_item(rng, params, family, query_fits)
            if found is not None:
                break
        if found is None:  # pragma: no cover - every family pair is retried until one works
            raise RuntimeError("rule_induction: no item found")
        candidates = [found["hidden"], found["obvious"], *found["distractors"]]
        candidates = [candidates[int(k)] for k in rng.permutation(4)]
        header = _header(found["start"], found["labelled"], found["hidden"])
        if condition == "choose_rule":
            choices = [rules.words(c) for c in candidates]
            prompt = (
                header + "\nWhich of these rules is the hidden rule?\n" + "\n".join(f"- {c}" for c in choices)
                + "\nAnswer with the rule, copied exactly as written."
            )
            gold, lure = candidates.index(found["hidden"]), candidates.index(found["obvious"])
        else:
            choices = list(YES_NO)
            prompt = header + f"\nDoes the triple {_show(found['query'])} fit the hidden rule? Answer yes or no."
            gold, lure = (0, 1) if query_fits else (1, 0)
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": gold,
            "condition": condition,
            "lure": lure,
            "hidden": found["hidden"],
            "obvious": found["obvious"],
            "candidates": candidates,
            "start": list(found["start"]),
            "labelled": [[*t, int(rules.holds(found["hidden"], t))] for t in found["labelled"]],
            "query": list(found["query"]),
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        error = doc["condition"] == "choose_rule" and pred != doc["gold"]
        return {"obvious_rule_share": (error, float(pred == doc["lure"]))}


PROBE = RuleInduction()
