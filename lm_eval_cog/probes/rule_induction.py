"""Rule induction: a static companion of Wason's 2-4-6 task (Wason, 1960).

Item: "A hidden rule decides which triples of whole numbers fit it. The triple
(6, 8, 10) fits the rule.", then 6-10 more triples labelled "fits" / "does not fit"
by the hidden rule, drawn from CogProbe's rule families with random parameters
(Song et al., 2025: ascending, increases by k, ascending multiples of k, z = x + y,
each number r times the one before) and a few more (all multiples of k, all odd,
last largest, x, 2x, 3x). The hidden rule's family cycles over the six that can
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
  that the obvious rule gives the other answer (``lure``); the key alternates yes, no.
  The key is unique in the whole rule space: every rule of the families
  (``_rule_induction_rules.ALL_SPECS``, 25 rules) that fits the initial triple and every
  label gives the key's answer for the new triple (the labels include a triple refuting
  each rule that would answer otherwise).

Options of ``choose_rule`` are counterbalanced by construction, within the condition
(item j = index // 2 of it): the key's place cycles over the four places, and each
rule is worded in one of four equivalent ways (``WORDINGS``), chosen so that the
key's rank by length (characters and words alike) and its rank in alphabetical order
among the options each cycle over the four ranks too: the shortest, the longest, the
first or last in sorted order is the key a quarter of the time.

Effect: ``obvious_rule_share`` = share of ``choose_rule`` errors (invalid answers
included) that pick the obvious rule: chance 1/3 (one of the three wrong options),
1 for a player who holds on to the first pattern (the ``prepotent`` player, who also
scores 0 on both conditions). Chance accuracy: 0.25 / 0.5.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes import _rule_induction_rules as rules
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("choose_rule", "apply_rule")
YES_NO = ["yes", "no"]
OPTIONS = 4
_POOL = 24  # triples drawn per source when looking for a triple with given verdicts
_MAX_TRIES = 2_000
_DISTRACTOR_TRIES = 40
_NUMBER = re.compile(r"(\d+)")
_WORD = re.compile(r"\w+")

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


@dataclass(frozen=True)
class Plan:
    """What item ``index`` is, by construction (see the module docstring)."""

    condition: str
    family: str  # the hidden rule's family
    query_fits: bool = False  # apply_rule: the key is "yes"
    place: int = 0  # choose_rule: the key's place among the options
    length_rank: int = 0  # choose_rule: the key's rank by length among the options (0 = shortest)
    order_rank: int = 0  # choose_rule: the key's rank in alphabetical order (0 = first)


def plan(index: int) -> Plan:
    """Item ``index``'s plan: j = index // 2 counts the items of its condition. apply_rule:
    yes / no alternate, the family changes every second item (so each family has both keys).
    choose_rule: in every run of 16 items the (place, length rank) pairs take all 16 values
    and the alphabetical rank is (place + length rank) mod 4, so each place and rank is the
    key's every fourth item, crossed with the others; the family changes every 16 items."""
    condition = cycle(CONDITIONS, index)
    j = index // len(CONDITIONS)
    hidden = rules.HIDDEN
    if condition == "apply_rule":
        return Plan(condition, hidden[(j // 2) % len(hidden)], query_fits=j % 2 == 0)
    place, length_rank = j % OPTIONS, (j // OPTIONS) % OPTIONS
    return Plan(
        condition, hidden[(j // OPTIONS**2) % len(hidden)], place=place, length_rank=length_rank,
        order_rank=(place + length_rank) % OPTIONS,
    )


def natural_key(text: str) -> tuple[tuple[int, Any], ...]:
    """Sort key of a text with its numbers by value ("multiples of 3" before "multiples of 10")."""
    return tuple((0, int(p)) if p.isdigit() else (1, p.casefold()) for p in _NUMBER.split(text) if p)


def _rank(values: list[Any], at: int) -> int | None:
    """Rank of ``values[at]`` in ascending order, None if another value ties with it."""
    if sum(v == values[at] for v in values) > 1:
        return None
    return sum(v < values[at] for v in values)


def word_options(rng: np.random.Generator, specs: list[str], key: int, plan_: Plan) -> list[str] | None:
    """One wording per rule such that the key's ranks by length in characters and in words
    are the plan's length rank and its alphabetical rank the plan's order rank, with no ties
    (None: no wording does). The wordings are tried in random order."""
    texts = [[rules.words(s, v) for v in range(len(rules.WORDINGS[rules.split(s)[0]]))] for s in specs]
    features = [[(len(t), len(_WORD.findall(t)), natural_key(t)) for t in options] for options in texts]
    combos = list(itertools.product(*(range(len(options)) for options in texts)))
    wanted = (plan_.length_rank, plan_.length_rank, plan_.order_rank)
    for k in rng.permutation(len(combos)):
        chosen = [features[i][v] for i, v in enumerate(combos[int(k)])]
        if all(_rank([f[m] for f in chosen], key) == wanted[m] for m in range(3)):
            return [texts[i][v] for i, v in enumerate(combos[int(k)])]
    return None


def _find(rng: np.random.Generator, sources: list[str], top: int, want: Any, avoid: set[Triple]) -> Triple | None:
    """A triple satisfying ``want`` among positives of ``sources`` and random triples."""
    pool = [rules.positive(rng, s, top) for s in sources for _ in range(_POOL)]
    pool += [rules.random_triple(rng, top) for _ in range(_POOL)]
    hits = [t for t in pool if t not in avoid and want(t)]
    return hits[int(rng.integers(len(hits)))] if hits else None


def consistent(start: Triple, labelled: list[Triple], hidden: str) -> list[str]:
    """Every rule of the space that fits the initial triple and agrees with every label."""
    return [
        s for s in rules.ALL_SPECS
        if rules.holds(s, start) and all(rules.holds(s, t) == rules.holds(hidden, t) for t in labelled)
    ]


def _options(
    rng: np.random.Generator, plan_: Plan, hidden: str, obvious: str, start: Triple
) -> tuple[list[str], list[str]] | None:
    """(candidate rules in option order, their words): the hidden rule at the plan's place, the
    obvious rule and two distractors fitting the initial triple elsewhere, worded by
    :func:`word_options` (apply_rule items keep the first wording: no options are shown)."""
    fitting = [s for s in rules.ALL_SPECS if s not in (hidden, obvious) and rules.holds(s, start)]
    if len(fitting) < 2:
        return None
    for _ in range(_DISTRACTOR_TRIES):
        distractors = [fitting[int(k)] for k in rng.choice(len(fitting), 2, replace=False)]
        others = [obvious, *distractors]
        others = [others[int(k)] for k in rng.permutation(len(others))]
        specs = others[: plan_.place] + [hidden] + others[plan_.place :]
        if plan_.condition == "apply_rule":
            return specs, [rules.words(s) for s in specs]
        texts = word_options(rng, specs, plan_.place, plan_)
        if texts is not None:
            return specs, texts
    return None


def _draw_item(rng: np.random.Generator, params: RuleInductionParams, plan_: Plan) -> dict[str, Any] | None:
    """One attempt: hidden rule of the plan's family, obvious rule, initial triple, options,
    query and labels (None: this draw admits no item)."""
    top = params.max_value
    obvious = rules.draw_spec(rng, rules.SALIENT)
    hidden = rules.draw_spec(rng, (plan_.family,))
    if hidden == obvious:
        return None
    start = _find(
        rng, [obvious, hidden], top, lambda t: rules.holds(hidden, t) and rules.obvious(t) == obvious, set()
    )
    if start is None:
        return None
    options = _options(rng, plan_, hidden, obvious, start)
    if options is None:
        return None
    specs, texts = options
    query = None
    if plan_.condition == "apply_rule":
        fits = plan_.query_fits
        query = _find(
            rng, [hidden, obvious], top,
            lambda t: rules.holds(hidden, t) == fits and rules.holds(obvious, t) != fits, {start},
        )
        if query is None:
            return None
    n_labels = int(rng.integers(params.min_labels, params.max_labels + 1))
    labelled = _labels(rng, params, hidden, [s for s in specs if s != hidden], start, query, n_labels)
    if labelled is None:
        return None
    order = rng.permutation(len(labelled))
    return {
        "hidden": hidden, "obvious": obvious, "specs": specs, "texts": texts, "start": start,
        "labelled": [labelled[int(k)] for k in order], "query": query,
    }


def _labels(
    rng: np.random.Generator, params: RuleInductionParams, hidden: str, rivals: list[str], start: Triple,
    query: Triple | None, n_labels: int,
) -> list[Triple] | None:
    """Labelled triples: one refuting each wrong option, then (apply_rule: a ``query``) one
    refuting each rule of the space that fits every label so far but answers the query
    otherwise, then fillers (fitting and not fitting in equal measure) up to ``n_labels``;
    None if that takes more than ``max_labels`` or both verdicts are not shown."""
    top = params.max_value
    shown = {start} | ({query} if query is not None else set())
    labelled: list[Triple] = []

    def refute(rival: str) -> bool:
        if any(rules.holds(hidden, t) != rules.holds(rival, t) for t in labelled):
            return True
        refuter = _find(rng, [hidden, rival], top, lambda t: rules.holds(hidden, t) != rules.holds(rival, t), shown)
        if refuter is None:
            return False
        labelled.append(refuter)
        shown.add(refuter)
        return True

    if not all(refute(r) for r in rivals):
        return None
    while query is not None:  # a rule of the space that would answer the query otherwise
        answer = rules.holds(hidden, query)
        wrong = [s for s in consistent(start, labelled, hidden) if rules.holds(s, query) != answer]
        if not wrong:
            break
        if not refute(wrong[int(rng.integers(len(wrong)))]):
            return None
    while len(labelled) < n_labels:
        fits = bool(rng.random() < 0.5)
        extra = _find(rng, [hidden], top, lambda t, f=fits: rules.holds(hidden, t) == f, shown)
        if extra is None:
            return None
        labelled.append(extra)
        shown.add(extra)
    if len(labelled) > params.max_labels or len({rules.holds(hidden, t) for t in labelled}) < 2:
        return None
    return labelled


def _header(start: Triple, labelled: list[Triple], hidden: str) -> str:
    lines = [
        "A hidden rule decides which triples of positive integers fit it.",
        f"The triple {_show(start)} fits the rule. Here are further triples, labelled by the rule:",
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
    version = 2.0
    effects: ClassVar[dict[str, tuple[str, bool]]] = {"obvious_rule_share": ("conditional_mean", False)}

    def item(self, rng: np.random.Generator, params: RuleInductionParams, index: int) -> dict[str, Any]:
        plan_ = plan(index)
        found = None
        for _ in range(_MAX_TRIES):
            found = _draw_item(rng, params, plan_)
            if found is not None:
                break
        if found is None:  # pragma: no cover - every family pair is retried until one works
            raise RuntimeError("rule_induction: no item found")
        specs = found["specs"]
        header = _header(found["start"], found["labelled"], found["hidden"])
        if plan_.condition == "choose_rule":
            choices = found["texts"]
            prompt = (
                header + "\nWhich of these rules is the hidden rule? Answer with the rule, copied word for word."
                + "\nOptions:\n" + "\n".join(f"- {c}" for c in choices)
            )
            gold, lure = specs.index(found["hidden"]), specs.index(found["obvious"])
        else:
            choices = list(YES_NO)
            prompt = header + f"\nDoes the triple {_show(found['query'])} fit the hidden rule? Answer yes or no."
            gold, lure = (0, 1) if plan_.query_fits else (1, 0)
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": gold,
            "condition": plan_.condition,
            "lure": lure,
            "hidden": found["hidden"],
            "obvious": found["obvious"],
            "candidates": specs,
            "start": list(found["start"]),
            "labelled": [[*t, int(rules.holds(found["hidden"], t))] for t in found["labelled"]],
            "query": list(found["query"]) if found["query"] is not None else [],
        }

    def identity(self, doc: dict[str, Any]) -> Any:
        """The prompt with its options listing ("- rule" lines) in sorted order."""
        listing = "".join(f"\n- {c}" for c in doc["choices"])
        prompt = doc["prompt"].replace(listing, "".join(f"\n- {c}" for c in sorted(doc["choices"])))
        return prompt, frozenset(doc["choices"]), doc["choices"][doc["gold"]], doc["condition"]

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        error = doc["condition"] == "choose_rule" and pred != doc["gold"]
        return {"obvious_rule_share": (error, float(pred == doc["lure"]))}


PROBE = RuleInduction()
