"""Multi-hop deduction with True / False / Unknown (ProofWriter: Tafjord, Dalvi & Clark, 2021).

Item: a theory of facts ("Dablet is renem.", "Dablet is not zobik.") and rules ("If
someone is renem and not zobik then they are gluta."), all about nonce people and
nonce properties (contamination resistance), and a statement; is it True (it follows),
False (its negation follows) or Unknown (neither follows)? Labels as in FOLIO (Han et
al., 2022) and CogProbe. The semantics is classical and open-world, and the prompt
says so: what is not stated or derivable is not thereby false.

Rules quantify over one person ("someone") and there are no relations, so the theory
splits into one propositional theory per person. The generator builds a chain of
``depth`` rule applications from a fact to the statement's property (some rules need
a second, stated premise), adds distractors (a rule that would give the opposite
answer but whose premise the person lacks, a rule leading away from the chain,
facts about other people) and keeps a theory only if forward chaining gives the
intended label at exactly that depth (the minimal proof height: ProofWriter's QDep)
*and* enumerating the truth assignments gives the same label (so contraposition or
case splits never decide what chaining leaves Unknown), with every person consistent.

Conditions ``d0`` .. ``d5`` cycle by index: the number of rule applications in the
shortest proof of the statement (True) or of its negation (False). Labels rotate
True, False, Unknown within each depth, and the key's place among the three options
shifts with them (the options are a rotation of True, False, Unknown chosen so that the
key is first, second and third equally often in every (depth, label) cell, over every
nine items of a depth): neither a position nor an option's text predicts the key. An Unknown item of depth d holds the same
chain of d rules, broken: the starting fact is about another person, or a second
premise is missing or stated with the opposite sign. Statements are negative
("... is not ...") half the time in every label.

Lure (Unknown items only): the closed-world answer, negation as failure: "False" for
a positive statement (not provable, so false) and "True" for a negative one ("X is
not p" because p is not provable).

Effects: ``depth_cost`` = acc(d0) - acc(d5) (> 0: deeper proofs fail more);
``depth_slope`` = least-squares slope of item accuracy on depth, per rule application
(< 0: a depth cost; uses every depth); ``closed_world_rate`` = share of Unknown items
answered with the closed-world lure (random: 1/3). The ``prepotent`` player answers
Unknown items by negation as failure: accuracy 2/3 at every depth, no depth cost,
closed_world_rate 1. Chance is 1/3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_probability
from lm_eval_cog.probes._syllogism_nonce import nonce_words
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle
from lm_eval_cog.stderr import slope_stderr, with_stderr

MAX_DEPTH = 5
CONDITIONS = tuple(f"d{k}" for k in range(MAX_DEPTH + 1))
LABELS = ("True", "False", "Unknown")
PEOPLE = 3
#: Properties beyond the chain: second premises of chain rules, distractors.
CONJUNCT_PROPERTIES, DISTRACTOR_PROPERTIES = 2, 2
MAX_TRIES = 200

Literal = tuple[str, bool]  # (property, positive)
Rule = tuple[list[Literal], Literal]  # (body, head)
Fact = tuple[str, str, bool]  # (person, property, positive)


def negate(lit: Literal) -> Literal:
    return (lit[0], not lit[1])


def fact_text(person: str, lit: Literal) -> str:
    return f"{person} is {'' if lit[1] else 'not '}{lit[0]}."


def rule_text(rule: Rule, template: int) -> str:
    body, head = rule
    # Positive premises first: "is zib and not florp", never the ambiguous "is not florp and zib".
    ordered = sorted(body, key=lambda lit: not lit[1])
    said = " and ".join(("" if p else "not ") + q for q, p in ordered)
    then = ("" if head[1] else "not ") + head[0]
    return f"If someone is {said} then they are {then}." if template == 0 else f"Everyone who is {said} is {then}."


def forward_chain(facts: Sequence[Fact], rules: Sequence[Rule], person: str) -> dict[Literal, int]:
    """Every literal derivable about ``person`` -> the round it is first derived in (0 for a
    fact): the height of its shortest proof."""
    known: dict[Literal, int] = {(q, p): 0 for who, q, p in facts if who == person}
    height = 0
    while True:
        height += 1
        new = {head for body, head in rules if head not in known and all(lit in known for lit in body)}
        if not new:
            return known
        known.update((lit, height) for lit in new)


def classical_label(facts: Sequence[Fact], rules: Sequence[Rule], person: str, statement: Literal) -> str | None:
    """The statement's label in classical logic, by enumerating the truth assignments of
    ``person``'s properties; None if ``person``'s theory has no model."""
    props = sorted({q for _, q, _ in facts} | {q for body, head in rules for q, _ in [*body, head]} | {statement[0]})
    col = {q: k for k, q in enumerate(props)}
    table = (np.arange(2 ** len(props))[:, None] >> np.arange(len(props))[None, :]) & 1 == 1
    ok = np.ones(len(table), dtype=bool)
    for who, q, p in facts:
        if who == person:
            ok &= table[:, col[q]] == p
    for body, (hq, hp) in rules:
        fires = np.ones(len(table), dtype=bool)
        for q, p in body:
            fires &= table[:, col[q]] == p
        ok &= ~fires | (table[:, col[hq]] == hp)
    if not ok.any():
        return None
    values = set((table[ok, col[statement[0]]] == statement[1]).tolist())
    return "True" if values == {True} else "False" if values == {False} else "Unknown"


@dataclass(frozen=True)
class DeductionParams:
    """Attributes:
    second_premise_rate: Probability, 0..1 (0.5), that a chain rule needs a second,
        stated premise ("If someone is A and B then ..."); at most two per item.
    """

    second_premise_rate: float = 0.5

    def __post_init__(self) -> None:
        require_probability("deduction", "second_premise_rate", self.second_premise_rate)


class Deduction(Probe):
    name = "deduction"
    ability = "logical_reasoning"
    Params = DeductionParams
    conditions = CONDITIONS
    lure_conditions = CONDITIONS
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "depth_cost": ("difference", False),
        "depth_slope": ("lm_eval_cog.probes.deduction.slope", True),
        "closed_world_rate": ("conditional_mean", False),
    }

    version = 2.0

    def item(self, rng: np.random.Generator, params: DeductionParams, index: int) -> dict[str, Any]:
        depth = index % len(CONDITIONS)
        label = LABELS[(index // len(CONDITIONS)) % len(LABELS)]
        # The key's place: a Latin square over (label, place) whose row shifts every three items of
        # the depth, so that the place changes with every item and any run of items is balanced.
        j = index // len(CONDITIONS)
        place = (j + j // len(LABELS)) % len(LABELS)
        for _ in range(MAX_TRIES):
            theory = _build(rng, depth, label, params.second_premise_rate)
            if _accepts(theory, depth, label):
                break
        else:  # pragma: no cover - rejection is rare; a failure here is a generator bug
            raise AssertionError(f"deduction item {index}: no theory of depth {depth} labelled {label}")
        person, facts, rules, statement = theory
        choices = rotation(label, place)
        lure = -1 if label != "Unknown" else choices.index("False" if statement[1] else "True")
        templates = rng.integers(2, size=len(rules))
        lines = [f"- {fact_text(who, (q, p))}" for who, q, p in facts]
        rule_lines = [f"- {rule_text(rule, int(t))}" for rule, t in zip(rules, templates)]
        prompt = (
            "Here are facts and rules about made-up people and properties.\nFacts:\n" + "\n".join(lines)
            + "\nRules:\n" + "\n".join(rule_lines)
            + f"\nStatement: {fact_text(person, statement)}\n"
            "Answer True if the statement follows from the facts and rules, False if its negation follows from "
            "them, and Unknown if neither follows. Use only the facts and rules given: something that is not "
            f"stated or derivable is not thereby false. Options: {', '.join(choices)}."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": choices.index(label),
            "condition": cycle(CONDITIONS, index),
            "lure": lure,
            "label": label,
            "depth": depth,
            "statement": fact_text(person, statement),
        }

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        deepest = f"d{MAX_DEPTH}"
        side = difference_side(doc["condition"], "d0", deepest)
        return {
            "depth_cost": (side, correct),
            "depth_slope": (doc["depth"], correct),
            "closed_world_rate": (doc["label"] == "Unknown", float(pred == doc["lure"])),
        }


def rotation(label: str, place: int) -> list[str]:
    """The cyclic rotation of True, False, Unknown that puts ``label`` at ``place``: a Latin
    square, so that over a cell every label sits at every place equally often."""
    shift = (LABELS.index(label) - place) % len(LABELS)
    return [LABELS[(shift + k) % len(LABELS)] for k in range(len(LABELS))]


@with_stderr(lambda items: slope_stderr([float(d) for d, _ in items], [float(c) for _, c in items]))
def slope(items: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope of accuracy on depth over items ``(depth, correct)``; NaN
    without two different depths."""
    if not items:
        return float("nan")
    x = np.array([float(d) for d, _ in items])
    y = np.array([float(c) for _, c in items])
    spread = float(((x - x.mean()) ** 2).sum())
    return float(((x - x.mean()) * (y - y.mean())).sum() / spread) if spread else float("nan")


def _build(rng: np.random.Generator, depth: int, label: str, second_rate: float) -> tuple[str, list[Fact], list[Rule], Literal]:
    """One candidate theory: (person asked about, facts, rules, statement literal)."""
    words = nonce_words(rng, PEOPLE + depth + 1 + CONJUNCT_PROPERTIES + DISTRACTOR_PROPERTIES)
    person, other, third = (w.capitalize() for w in words[:PEOPLE])
    chain_props = words[PEOPLE : PEOPLE + depth + 1]
    conjunct_props = words[PEOPLE + depth + 1 : PEOPLE + depth + 1 + CONJUNCT_PROPERTIES]
    distractors = words[-DISTRACTOR_PROPERTIES:]

    def sign() -> bool:
        return bool(rng.integers(2))

    chain = [(q, sign()) for q in chain_props]
    rules: list[Rule] = []
    seconds: list[Literal] = []  # second premises of chain rules, stated as facts about person
    for k in range(1, depth + 1):
        body = [chain[k - 1]]
        if len(seconds) < CONJUNCT_PROPERTIES and rng.random() < second_rate:
            seconds.append((conjunct_props[len(seconds)], sign()))
            body.append(seconds[-1])
        rules.append((body, chain[k]))

    mode = "none"
    if label == "Unknown":
        mode = "missing_second" if seconds and rng.random() < 0.5 else "other_person"
    facts: list[Fact] = [(other if mode == "other_person" else person, *chain[0])]
    broken = int(rng.integers(len(seconds))) if seconds else -1
    for k, lit in enumerate(seconds):
        if mode == "missing_second" and k == broken:
            # The second premise holds for someone else, or for the person with the opposite sign.
            facts.append((other, *lit) if rng.random() < 0.5 else (person, *negate(lit)))
        else:
            facts.append((person, *lit))

    target = chain[-1]
    # Distractors: a rule to the opposite answer whose premise the person lacks (they have
    # the opposite sign), a rule leading off the chain, facts about the others.
    blocker = (distractors[0], sign())
    facts.append((person, *blocker))
    rules.append(([negate(blocker)], negate(target)))
    rules.append(([chain[int(rng.integers(depth + 1))]], (distractors[1], sign())))
    every = chain_props + distractors
    facts.append((other, every[int(rng.integers(len(every)))], sign()))
    for _ in range(1 + int(rng.integers(2))):
        facts.append((third, every[int(rng.integers(len(every)))], sign()))

    statement = {"True": target, "False": negate(target)}.get(label, target if sign() else negate(target))
    order_f, order_r = rng.permutation(len(facts)), rng.permutation(len(rules))
    return person, [facts[int(k)] for k in order_f], [rules[int(k)] for k in order_r], statement


def _accepts(theory: tuple[str, list[Fact], list[Rule], Literal], depth: int, label: str) -> bool:
    """Forward chaining and truth tables agree on ``label`` at exactly ``depth``; everyone consistent."""
    person, facts, rules, statement = theory
    if len({(w, q) for w, q, _ in facts}) != len(facts):
        return False  # a repeated or contradictory fact
    for who in {w for w, _, _ in facts}:
        known = forward_chain(facts, rules, who)
        if any(negate(lit) in known for lit in known) or classical_label(facts, rules, who, statement) is None:
            return False
    known = forward_chain(facts, rules, person)
    if statement in known:
        chained, height = "True", known[statement]
    elif negate(statement) in known:
        chained, height = "False", known[negate(statement)]
    else:
        chained, height = "Unknown", depth
    return chained == label and height == depth and classical_label(facts, rules, person, statement) == label


PROBE = Deduction()
