"""Rule induction: a static companion of Wason's 2-4-6 task (Wason, 1960).

Item: "A hidden rule decides which triples of positive integers fit it. The triple
(2, 4, 6) fits the rule.", then 6-10 more triples labelled "fits" / "does not fit" by
the hidden rule. Rules come from CogProbe's families with their parameters (Song et al.,
2025: ascending, increases by k, ascending multiples of k, z = x + y, each number r times
the one before) and a few more (all multiples of k, all odd, last largest, x, 2x, 3x):
``_rule_induction_rules.ALL_SPECS``, 25 rules. Values are whole numbers in
1..``max_value``. The *obvious* rule is a salient surface pattern of the initial triple
(equal steps, then equal ratios, then x, 2x, 3x, then z = x + y), as "increases by 2" for
2-4-6, the hypothesis Wason's participants held and kept confirming with positive tests
(Wason, 1960; Klayman & Ha, 1987); the labels refute it. Conditions cycle by index:

* ``choose_rule``: which of 4 rules (in words, all fitting the initial triple) is the
  hidden rule? Exactly one fits every label. The initial triple is (x, 2x, 3x), as 2-4-6,
  and ``lure`` = the obvious rule = its most salient pattern other than the hidden rule
  ("increases by x" for x <= 10 unless that is the rule, then "x, 2x, 3x"; above 10,
  "x, 2x, 3x" unless that is the rule, then "sum");
* ``apply_rule``: does a new triple fit the hidden rule? yes/no. The hidden rule's family
  cycles over the six that can differ from the obvious pattern both ways
  (``_rule_induction_rules.HIDDEN``), the initial triple is built so that its most salient
  pattern is the obvious rule, and the new triple so that the obvious rule gives the other
  answer (``lure``); the key alternates yes, no. The key is unique in the whole rule space:
  every rule that fits the initial triple and every label gives the key's answer for the
  new triple (the labels include a triple refuting each rule that would answer otherwise).

Options of ``choose_rule`` are counterbalanced by construction (:func:`plan`). The items
come in groups of four that offer the same four rules in the same words (:func:`offers`:
the triple's two most salient patterns and two more rules that fit it; :func:`wordings`:
one of the equivalent wordings of each, ``WORDINGS``, with their orders by length in
characters and in words alike), and each of the four is the key of one item of the group.
So every option text is the key exactly a quarter of the times it is offered (no answer
text recurs as the key more than as a foil), and within each group the key takes each
rank by length and each rank in alphabetical order once: the shortest, the longest, the
first or last in sorted order is the key a quarter of the time. The key's place among the
options is drawn per item (version 3; issue 28): the plan is the same at every seed, and
version 2's place set by the index put each option text at its key place at every seed,
which a surface classifier trained on other seeds learned (0.44 vs 0.25). This needs
salient keys, hence the (x, 2x, 3x) triples: a salient rule can be hidden, with another
salient rule as the obvious one, only in a triple that shows two, and only (x, 2x, 3x)
triples do; the ratio and odd rules fit none and are never offered, and "x, 2x, 3x" is
offered in every item.

Effect: ``obvious_rule_share`` = share of ``choose_rule`` errors (invalid answers
included) that pick the obvious rule: chance 1/3 (one of the three wrong options),
1 for a player who always picks the obvious rule (the ``prepotent`` player, who also
scores 0 on both conditions). Chance accuracy: 0.25 / 0.5.
"""

from __future__ import annotations

import functools
import itertools
import math
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
_HASH = 2_654_435_761  # Knuth's multiplicative hash: the wordings of group g
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
    offer: tuple[str, ...] = ()  # choose_rule: the four rules offered (the hidden one among them)
    texts: tuple[str, ...] = ()  # choose_rule: their wordings, in the same order
    hidden: str = ""  # choose_rule: the hidden rule
    starts: tuple[int, ...] = ()  # choose_rule: the x of an initial triple (x, 2x, 3x) that every rule offered fits


def plan(index: int, max_value: int = RuleInductionParams.max_value) -> Plan:
    """Item ``index``'s plan: j = index // 2 counts the items of its condition. apply_rule:
    yes / no alternate, the family changes every second item (so each family has both keys).
    choose_rule: items 4g..4g+3 (group g) offer the same four rules in the same words (the
    offers of :func:`offers` in a fixed stride; one of :func:`wordings` picked by a hash of g).
    In item 4g + p the key is the rule whose wording has length rank (p + g) mod 4: each rule
    text of a group is its key once, each length rank and alphabetical rank is the key's once
    per group. ``place`` is p, kept for reference: the item draws the key's place (see the
    module docstring)."""
    condition = cycle(CONDITIONS, index)
    j = index // len(CONDITIONS)
    hidden = rules.HIDDEN
    if condition == "apply_rule":
        return Plan(condition, hidden[(j // 2) % len(hidden)], query_fits=j % 2 == 0)
    group, place = divmod(j, OPTIONS)
    length_rank = (place + group) % OPTIONS
    table = offers(max_value)
    offer, starts = table[(group * _stride(len(table))) % len(table)]
    choices = wordings(offer)
    texts = choices[(group * _HASH) % len(choices)]
    lengths = [len(t) for t in texts]
    key = sorted(range(OPTIONS), key=lengths.__getitem__)[length_rank]
    order_rank = sorted(range(OPTIONS), key=lambda k: natural_key(texts[k])).index(key)
    return Plan(
        condition, rules.split(offer[key])[0], place=place, length_rank=length_rank, order_rank=order_rank,
        offer=offer, texts=texts, hidden=offer[key], starts=starts,
    )


def salient(t: Triple) -> list[str]:
    """The salient patterns (``_rule_induction_rules.SALIENT``) that triple ``t`` shows, most
    salient first: equal steps, equal ratios, x 2x 3x, sum."""
    return [s for s in rules.ALL_SPECS if rules.split(s)[0] in rules.SALIENT and rules.holds(s, t)]


def lure_of(start: Triple, hidden: str) -> str:
    """The obvious rule of a choose_rule item: the most salient pattern of ``start`` other than
    the hidden rule."""
    return next(s for s in salient(start) if s != hidden)


def _stride(n: int) -> int:
    """A step through ``n`` offers, coprime with ``n`` (each offer once in ``n`` groups) and large
    enough that consecutive groups offer rules for different triples."""
    step = 37
    while math.gcd(step, n) != 1:
        step += 1
    return step


@functools.cache
def offers(max_value: int) -> tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]:
    """Every set of four rules a choose_rule item can offer, with the x of the initial triples
    (x, 2x, 3x), 3x <= max_value, that they all fit: the triple's two most salient patterns
    (``step:x`` and ``x2x3x`` for x <= 10, else ``x2x3x`` and ``sum``) and two other rules of the
    space that fit it, so that whichever of the four is hidden, the obvious rule is offered."""
    top = max_value // 3
    out = []

    def fits(spec: str, x: int) -> bool:
        return rules.holds(spec, (x, 2 * x, 3 * x))

    for x in range(1, min(10, top) + 1):
        base = (f"step:{x}", "x2x3x")
        others = [s for s in rules.ALL_SPECS if s not in base and fits(s, x)]
        out += [(base + pair, (x,)) for pair in itertools.combinations(others, 2)]
    base = ("x2x3x", "sum")
    others = [s for s in rules.ALL_SPECS if s not in base and rules.split(s)[0] != "step"]
    for pair in itertools.combinations(others, 2):
        starts = tuple(x for x in range(11, top + 1) if all(fits(s, x) for s in base + pair))
        if starts:
            out.append((base + pair, starts))
    return tuple(out)


@functools.cache
def wordings(offer: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Every choice of one wording per rule offered (``_rule_induction_rules.WORDINGS``) in which the
    rules' orders by length in characters and in words are the same, with no ties, and no two
    wordings tie in alphabetical order."""
    texts = [[rules.words(s, v) for v in range(len(rules.WORDINGS[rules.split(s)[0]]))] for s in offer]
    # Each text's length, word count and sort key once, not once per combination (generation time).
    measured = [[(t, len(t), len(_WORD.findall(t)), natural_key(t)) for t in variants] for variants in texts]
    out = []
    for combo in itertools.product(*measured):
        chars = [c for _, c, _, _ in combo]
        words = [w for _, _, w, _ in combo]
        if len(set(chars)) == len(set(words)) == len({k for _, _, _, k in combo}) == len(combo) and sorted(
            range(len(combo)), key=chars.__getitem__
        ) == sorted(range(len(combo)), key=words.__getitem__):
            out.append(tuple(t for t, _, _, _ in combo))
    if not out:  # pragma: no cover - tests check every offer
        raise AssertionError(f"rule_induction: no wordings of {offer} rank alike by characters and words")
    return tuple(out)


def natural_key(text: str) -> tuple[tuple[int, Any], ...]:
    """Sort key of a text with its numbers by value ("multiples of 3" before "multiples of 10")."""
    return tuple((0, int(p)) if p.isdigit() else (1, p.casefold()) for p in _NUMBER.split(text) if p)


def _find(rng: np.random.Generator, sources: list[str], top: int, want: Any, avoid: set[Triple]) -> Triple | None:
    """A triple satisfying ``want`` among positives of ``sources`` and random triples."""
    pool = [t for s in sources for t in rules.positives(rng, s, top, _POOL)]
    pool += rules.random_triples(rng, top, _POOL)
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
    """apply_rule's candidate rules (not shown) and their first wordings: the hidden rule at the
    plan's place (0), the obvious rule and two distractors fitting the initial triple in random
    order."""
    fitting = [s for s in rules.ALL_SPECS if s not in (hidden, obvious) and rules.holds(s, start)]
    if len(fitting) < 2:
        return None
    distractors = [fitting[int(k)] for k in rng.choice(len(fitting), 2, replace=False)]
    others = [obvious, *distractors]
    others = [others[int(k)] for k in rng.permutation(len(others))]
    specs = others[: plan_.place] + [hidden] + others[plan_.place :]
    return specs, [rules.words(s) for s in specs]


def _draw_item(rng: np.random.Generator, params: RuleInductionParams, plan_: Plan) -> dict[str, Any] | None:
    """One attempt at an apply_rule item: hidden rule of the plan's family, obvious rule, initial
    triple, candidates, query and labels (None: this draw admits no item)."""
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


def _draw_choice(rng: np.random.Generator, params: RuleInductionParams, plan_: Plan) -> dict[str, Any] | None:
    """One attempt at a choose_rule item: the plan's four rules in its words, the hidden one at its
    place and the others in random order; an initial triple (x, 2x, 3x) that they all fit; labels
    refuting each rule but the hidden one (None: this draw admits no item)."""
    x = plan_.starts[int(rng.integers(len(plan_.starts)))]
    start = (x, 2 * x, 3 * x)
    hidden = plan_.hidden
    others = [s for s in plan_.offer if s != hidden]
    others = [others[int(k)] for k in rng.permutation(len(others))]
    # The key's place is drawn per item, not set by the index: the plan (offer, wording, key text) is
    # the same at every seed, so a place fixed by the index paired each text with its key place at
    # every seed, and a surface classifier trained on other seeds learned the pairs (0.44 vs 0.25).
    place = int(rng.integers(OPTIONS))
    specs = others[:place] + [hidden] + others[place:]
    texts = [plan_.texts[plan_.offer.index(s)] for s in specs]
    n_labels = int(rng.integers(params.min_labels, params.max_labels + 1))
    labelled = _labels(rng, params, hidden, others, start, None, n_labels)
    if labelled is None:
        return None
    order = rng.permutation(len(labelled))
    return {
        "hidden": hidden, "obvious": lure_of(start, hidden), "specs": specs, "texts": texts, "start": start,
        "labelled": [labelled[int(k)] for k in order], "query": None,
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
    version = 3.0
    effects: ClassVar[dict[str, tuple[str, bool]]] = {"obvious_rule_share": ("conditional_mean", False)}

    def item(self, rng: np.random.Generator, params: RuleInductionParams, index: int) -> dict[str, Any]:
        plan_ = plan(index, params.max_value)
        draw = _draw_choice if plan_.condition == "choose_rule" else _draw_item
        found = None
        for _ in range(_MAX_TRIES):
            found = draw(rng, params, plan_)
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
