"""Classification by stated rules over nonce features, with an exemplar lure (Allen & Brooks, 1991).

Rule types after Bruner, Goodnow & Austin (1956) and Shepard, Hovland & Jenkins (1961).

CogProbe's *Classification* operation, "categorizing stimuli or concepts into
predefined groups based on shared properties or rules" (Song et al., 2025; there CLINC150
intents), re-created with exact keys. Every object has four features of three values
each (colour, shape, surface, pattern: 81 objects). The prompt defines four made-up
categories by rules, one of each type:

* single feature: "any object that is red";
* conjunctive: "any object that is red and spiky";
* disjunctive: "any object that is red or spiky (or both)";
* negation: "any object that is round and not red";

then shows ``exemplars`` sorted objects per category and asks for the category of a new
object. Every object shown fits exactly one rule, so the key is the rule that fits.
Conditions cycle by index; the type of the key's rule cycles underneath, so each
(condition, rule type) pair has the same number of items, and under that the key's
place among the options (the order the rules are listed in): every place equally often
in every (condition, rule type) cell:

* ``rule_only``: the new object differs from every exemplar in >= 2 features;
* ``positive_match``: it differs in one feature from exactly one exemplar, of its own
  category (similarity and rule agree);
* ``negative_match``: it differs in one feature from exactly one exemplar, of another
  category (``lure``): the one changed feature breaks that category's rule and makes
  the key's rule fit. Allen & Brooks (1991) found participants who knew the rule still
  misclassified such items, by their similarity to a remembered exemplar.

Effects (lower is better): ``similarity_effect`` = acc(positive_match) -
acc(negative_match); ``exemplar_error_share`` = share of ``negative_match`` errors
(invalid answers included) that name the near exemplar's category (1/3 by chance over
the three wrong names); ``complexity_cost`` = acc(single-feature key) - acc(two-literal
keys: conjunctive, disjunctive, negation); ``disjunction_cost`` = acc(conjunctive key) -
acc(disjunctive key) (disjunctive concepts are the harder ones: Bruner et al., 1956;
Bourne, 1970). Chance 1/4. The ``prepotent`` player (the near exemplar's category)
scores 1, 1, 0: similarity_effect 1, exemplar_error_share 1, the rule-type costs 0.

Gen: the answer line must be one category name (a leading "a"/"an"/"the" is allowed);
anything else is invalid.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B, difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("rule_only", "positive_match", "negative_match")
RULE_TYPES = ("single_feature", "conjunctive", "disjunctive", "negation")
FEATURES = {
    "colour": ("red", "blue", "green"),
    "shape": ("round", "square", "triangular"),
    "surface": ("spiky", "furry", "smooth"),
    "pattern": ("striped", "spotted", "plain"),
}
DIMENSIONS = tuple(FEATURES)
#: Every object, as a tuple of value indices in the order of DIMENSIONS.
OBJECTS = tuple(itertools.product(*(range(len(v)) for v in FEATURES.values())))
#: Nonce nouns (Gopnik & Sobel's "blicket", Berko's "wug" and kin).
NAME_BANK = (
    "blicket", "toma", "wug", "dax", "fep", "kiki", "gorp", "zav", "tulver", "modi",
    "pilk", "vosk", "nelk", "sorf", "dorp", "yim", "gazzer", "tufa", "mib", "zup",
)
_ARTICLES = ("a ", "an ", "the ")
_MAX_TRIES = 5_000

#: A rule: its type and two literals (dimension index, value index); single-feature rules
#: use the first only; a negation rule is "first and not second".
Rule = tuple[str, tuple[int, int], tuple[int, int]]


@dataclass(frozen=True)
class ClassificationParams:
    """Attributes:
    exemplars: Sorted example objects shown per category (2), 1..3.
    """

    exemplars: int = 2

    def __post_init__(self) -> None:
        require_int("classification", "exemplars", self.exemplars, 1)
        if self.exemplars > 3:
            raise ValueError(f"classification parameter 'exemplars' must be <= 3, got {self.exemplars}")


def rule_text(rule: Rule) -> str:
    kind, (d1, v1), (d2, v2) = rule
    a, b = FEATURES[DIMENSIONS[d1]][v1], FEATURES[DIMENSIONS[d2]][v2]
    return {
        "single_feature": a,
        "conjunctive": f"{a} and {b}",
        "disjunctive": f"{a} or {b} (or both)",
        "negation": f"{a} and not {b}",
    }[kind]


def describe(obj: tuple[int, ...]) -> str:
    return ", ".join(FEATURES[d][v] for d, v in zip(DIMENSIONS, obj))


def distance(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """Number of features in which two objects differ."""
    return sum(x != y for x, y in zip(a, b))


# Sets of objects as bit masks over OBJECTS (bit i: OBJECTS[i]): drawing an item tests
# many rule sets, and set algebra on 81-bit ints keeps that fast.
ALL = (1 << len(OBJECTS)) - 1
_HAS = {(d, v): sum(1 << i for i, o in enumerate(OBJECTS) if o[d] == v) for d in range(4) for v in range(3)}
#: Objects one feature away from object i, and two or more away.
NEAR = [sum(1 << j for j, b in enumerate(OBJECTS) if distance(a, b) == 1) for a in OBJECTS]
FAR = [ALL & ~(NEAR[i] | 1 << i) for i in range(len(OBJECTS))]


def rule_mask(rule: Rule) -> int:
    """The objects a rule fits."""
    kind, first, second = rule
    a, b = _HAS[first], _HAS[second]
    return {"single_feature": a, "conjunctive": a & b, "disjunctive": a | b, "negation": a & ~b & ALL}[kind]


def exclusive_members(rules: list[Rule]) -> list[int]:
    """For each rule, the objects that fit it and no other rule."""
    masks = [rule_mask(r) for r in rules]
    out = []
    for k, mask in enumerate(masks):
        others = 0
        for j, other in enumerate(masks):
            others |= other if j != k else 0
        out.append(mask & ~others)
    return out


def members_of(mask: int) -> list[int]:
    return [i for i in range(len(OBJECTS)) if mask >> i & 1]


def draw_rule(rng: np.random.Generator, kind: str) -> Rule:
    d1, d2 = (int(d) for d in rng.choice(len(DIMENSIONS), 2, replace=False))
    return kind, (d1, int(rng.integers(3))), (d2, int(rng.integers(3)))


class Classification(Probe):
    name = "classification"
    ability = "rule_application"  # CogProbe's procedural rule execution: stated category rules, applied
    Params = ClassificationParams
    conditions = CONDITIONS
    lure_conditions = ("negative_match",)
    version = 2.0
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "similarity_effect": ("difference", False),
        "exemplar_error_share": ("conditional_mean", False),
        "complexity_cost": ("difference", False),
        "disjunction_cost": ("difference", False),
    }

    def item(self, rng: np.random.Generator, params: ClassificationParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        rule_type = RULE_TYPES[(index // len(CONDITIONS)) % len(RULE_TYPES)]
        # The key's place among the options (= the order the rules are listed in): a Latin square
        # over (rule type, place) whose row shifts every four items of the condition, so that every
        # (condition, rule type) cell has the key at every place and any run of items is balanced.
        j = index // len(CONDITIONS)
        place = (j + j // len(RULE_TYPES)) % len(RULE_TYPES)
        for _ in range(_MAX_TRIES):
            drawn = self._draw(rng, params, condition, rule_type, place)
            if drawn is not None:
                break
        else:  # pragma: no cover - the tests generate thousands of items without reaching it
            raise RuntimeError("classification: no item met the constraints")
        names, rules, shown, obj, gold, lure = drawn
        return {
            "prompt": self._prompt(names, rules, shown, obj),
            "choices": list(names),
            "gold": gold,
            "condition": condition,
            "lure": lure,
            "rule_type": rule_type,
            "object": describe(obj),
            "exemplar_count": len(shown),
        }

    @staticmethod
    def _draw(
        rng: np.random.Generator, params: ClassificationParams, condition: str, rule_type: str, place: int
    ) -> tuple[list[str], list[Rule], list[tuple[tuple[int, ...], int]], tuple[int, ...], int, int] | None:
        """Names, rules (one of each type; the key's at ``place``, the others in random order),
        exemplars, the new object, its category and the lure; None when this draw admits no item.

        The new object comes first; then the near exemplar the condition asks for (none,
        one of its own category, one of another), and every other exemplar at >= 2
        features from it, so the near one is the only near one."""
        names = [NAME_BANK[int(k)] for k in rng.choice(len(NAME_BANK), len(RULE_TYPES), replace=False)]
        others = [t for t in RULE_TYPES if t != rule_type]
        kinds = [others[int(k)] for k in rng.permutation(len(others))]
        kinds.insert(place, rule_type)
        rules = [draw_rule(rng, kind) for kind in kinds]
        members = exclusive_members(rules)
        gold = kinds.index(rule_type)
        own = members_of(members[gold])
        if not own:
            return None
        at = own[int(rng.integers(len(own)))]
        near = [
            (o, k) for k in range(len(rules)) if (k == gold) == (condition == "positive_match")
            for o in members_of(members[k] & NEAR[at])
        ]
        if condition != "rule_only" and not near:
            return None
        chosen = [near[int(rng.integers(len(near)))]] if condition != "rule_only" else []
        for k in range(len(rules)):
            far = members_of(members[k] & FAR[at])
            wanted = params.exemplars - sum(c == k for _, c in chosen)
            if len(far) < wanted:
                return None
            chosen += [(far[int(j)], k) for j in rng.choice(len(far), wanted, replace=False)]
        shown = [(OBJECTS[chosen[int(j)][0]], chosen[int(j)][1]) for j in rng.permutation(len(chosen))]
        lure = chosen[0][1] if condition == "negative_match" else -1
        return names, rules, shown, OBJECTS[at], gold, lure

    @staticmethod
    def _prompt(
        names: list[str], rules: list[Rule], shown: list[tuple[tuple[int, ...], int]], obj: tuple[int, ...]
    ) -> str:
        parts = [f"a {d} ({', '.join(v[:-1])} or {v[-1]})" for d, v in FEATURES.items()]
        dims = ", ".join(parts[:-1]) + f" and {parts[-1]}"
        lines = [
            f"Four kinds of made-up objects are defined by rules. Every object has {dims}.",
            *(f"- A {n} is any object that is {rule_text(r)}." for n, r in zip(names, rules)),
            "Every object below fits exactly one of these rules. Some objects already sorted by the rules:",
            *(f"- {describe(e)}: {names[c]}" for e, c in shown),
            f"New object: {describe(obj)}.",
            f"Which kind is the new object? Answer with one word: {', '.join(names[:-1])} or {names[-1]}.",
        ]
        return "\n".join(lines)

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """One category name, optionally after "a" / "an" / "the"; anything else is invalid."""
        wanted = normalize_answer(answer)
        for article in _ARTICLES:
            if wanted.startswith(article):
                wanted = normalize_answer(wanted[len(article):])
                break
        for k, choice in enumerate(doc["choices"]):
            if normalize_answer(choice) == wanted:
                return k
        return None

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond, kind = doc["condition"], doc["rule_type"]
        match = difference_side(cond, "positive_match", "negative_match")
        return {
            "similarity_effect": (match, correct),
            "exemplar_error_share": (cond == "negative_match" and not correct, float(pred is not None and pred == doc["lure"])),
            "complexity_cost": (SIDE_A if kind == "single_feature" else SIDE_B, correct),
            "disjunction_cost": (difference_side(kind, "conjunctive", "disjunctive"), correct),
        }


PROBE = Classification()
