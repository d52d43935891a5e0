"""Causal ladder (CLadder-style, Jin et al., 2023; Pearl's ladder of causation, Pearl & Mackenzie, 2018).

Item: a small causal graph over three or four binary variables with nonce names, its
structure in words ("no other causal links and no hidden common causes"), the
conditional probability of every variable given its parents (two decimals), and a
yes/no question about the treatment X and the outcome Y. The key is computed from
the *stated* numbers.

Every structure has a backdoor path from X to Y, so that in every structure seeing can
differ from doing; they differ in the path, in how the effect of X travels and in what a
fourth variable W does (Z and W are the other variables, roles never named):

* ``confounder``: Z -> X, Z -> Y, X -> Y (Z a common cause: adjust for it);
* ``chain``: Z -> X, Z -> Y, X -> W -> Y (the effect runs along a chain through W);
* ``mediator``: Z -> X, Z -> Y, X -> W -> Y and X -> Y (a direct and a mediated effect:
  adjusting for the mediator W would be wrong);
* ``collider``: Z -> X, Z -> Y, X -> Y, X -> W <- Y (W a common effect: not to adjust for);
* ``fork``: W -> X, W -> Y, Z -> X, X -> Y (W the common cause; Z a second cause of X only).

A share ``reversal_share`` of each rung's items are *reversals*, Simpson-like: the
association has the opposite sign of the causal effect (and of the effect on the
treated); in the others all three agree. Reversals and agreements, and yes and no keys,
are counterbalanced by construction within every structure of every rung
(:func:`design`): neither the structure, nor the associational answer, nor "flip the
association on such graphs" predicts the key of a rung 2 or rung 3 item (each scores
1/2 at the default share). Probabilities come from one sampler for reversals and
agreements alike (backdoor links strong, the effect of X weaker), so the numbers' size
does not give a reversal away either.

Conditions cycle by index, one per rung, over the same distribution of graphs:

* ``rung1`` (association): is Y = 1 more likely among units observed with X = 1 than
  with X = 0? yes iff P(Y=1 | X=1) - P(Y=1 | X=0) > 0;
* ``rung2`` (intervention): the sign of the average treatment effect
  ATE = P(Y=1 | do(X=1)) - P(Y=1 | do(X=0)) (backdoor adjustment for X's parents);
* ``rung3`` (counterfactual): the sign of the effect of treatment on the treated,
  ETT = P(Y=1 | X=1) - P(Y_{X=0}=1 | X=1): "for the units that actually have X = 1,
  is Y = 1 more likely than it would have been had their X been set to 0?" It is a
  rung-3 quantity in CLadder's taxonomy (ATT), well defined in the stated Markovian
  model and exactly computable: sum over the values pa of X's parents of
  P(pa | X=1) [P(Y=1 | X=1, pa) - P(Y=1 | X=0, pa)].

Every item keeps |association|, |ATE| and |ETT| >= ``margin``: no near ties.
``lure`` (rung2, rung3) = the associational answer where it differs from the key
(the reversal items), else -1: an associational reader (the ``prepotent`` player)
answers every question with the rung-1 answer.

Effects (sign: positive = worse, except none):

* ``ladder_drop`` = acc(rung1) - acc(rung2); ``counterfactual_drop`` = acc(rung1) -
  acc(rung3): the climb costs accuracy;
* ``confounding_effect`` = acc(rung 2-3 items where association agrees) -
  acc(rung 2-3 reversal items);
* ``confounding_error_share`` = share of rung 2-3 errors (invalid answers included)
  that give the associational answer. A yes/no error on a reversal item is always
  the associational answer, so the share is taken over all rung 2-3 errors: a model
  whose errors ignore confounding scores the share of reversal items
  (``reversal_share``, 0.5), an associational reader 1.

The associational reader scores acc 1 / 1 - s / 1 - s on the rungs (s the share of
reversal items, 0.5 by default), ladder_drop = counterfactual_drop = s,
confounding_effect = 1 and confounding_error_share = 1. Chance is 0.5, and so is
"always yes" in every cell (keys yes and no alternate by construction).
Gen: the answer line must be yes or no (Momentè et al., 2025, score CLadder by the
yes/no that begins the reply; here the whole answer line must be that word).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_probability
from lm_eval_cog.probes.aggregations import NEITHER, SIDE_A, SIDE_B, difference_side
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("rung1", "rung2", "rung3")
STRUCTURES = ("chain", "fork", "collider", "mediator", "confounder")
#: Parents of each variable ("X" treatment, "Y" outcome, "Z" and "W" the others), in a causal order.
PARENTS: dict[str, dict[str, tuple[str, ...]]] = {
    "confounder": {"Z": (), "X": ("Z",), "Y": ("X", "Z")},
    "chain": {"Z": (), "X": ("Z",), "W": ("X",), "Y": ("W", "Z")},
    "mediator": {"Z": (), "X": ("Z",), "W": ("X",), "Y": ("X", "W", "Z")},
    "collider": {"Z": (), "X": ("Z",), "Y": ("X", "Z"), "W": ("X", "Y")},
    "fork": {"W": (), "Z": (), "X": ("W", "Z"), "Y": ("X", "W")},
}
#: |change in P(child = 1)| per parent: the last link of each causal path from X into Y
#: (margin + this range), every other link. Effect links weaker than backdoor links let the
#: backdoor path outweigh the effect (a reversal) or not, from one sampler.
EFFECT_RANGE, STRONG_RANGE = (0.0, 0.3), (0.35, 0.8)
#: Per-row jitter of a conditional probability (so that the tables are not exactly additive).
JITTER = 0.05
YES, NO = 0, 1
CHOICES = ["yes", "no"]
NUMBER_WORDS = {3: "Three", 4: "Four"}
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "bl", "dr", "gl", "kr", "pl", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("b", "d", "g", "k", "l", "m", "n", "p", "r", "s", "t", "x")
_MAX_TRIES = 20_000

Cpt = dict[str, dict[tuple[int, ...], float]]


@dataclass(frozen=True)
class CausalLadderParams:
    """Attributes:
    reversal_share: Share of each rung's items whose graph is a Simpson-like reversal (0.5), in [0, 1].
    margin: Smallest |association|, |ATE| and |ETT| of an item (0.05), in [0.01, 0.15].
    """

    reversal_share: float = 0.5
    margin: float = 0.05

    def __post_init__(self) -> None:
        require_probability("causal_ladder", "reversal_share", self.reversal_share)
        require_probability("causal_ladder", "margin", self.margin, low=0.01, high=0.15)


def nonce_word(rng: np.random.Generator) -> str:
    """A pronounceable nonce word: CV + CVC (e.g. "tobrel"), so no prior knowledge applies."""
    return "".join(bank[int(rng.integers(len(bank)))] for bank in (_ONSETS, _VOWELS, _ONSETS, _VOWELS, _CODAS))


def descendants(structure: str, var: str) -> set[str]:
    """The variables with a directed path from ``var`` (not ``var`` itself)."""
    children = {v for v, parents in PARENTS[structure].items() if var in parents}
    return children.union(*(descendants(structure, c) for c in children))


def _effect_link(structure: str, parent: str, child: str) -> bool:
    """Whether ``parent -> child`` is the last link of a causal path from X into Y."""
    return child == "Y" and (parent == "X" or parent in descendants(structure, "X"))


def draw_cpt(rng: np.random.Generator, structure: str, margin: float) -> Cpt:
    """P(V=1 | parents) for every variable and parent assignment, in 0.05..0.95 (two decimals):
    a base plus one signed change per parent that is 1, plus a little jitter per row."""
    cpt: Cpt = {}
    for var, parents in PARENTS[structure].items():
        changes = []
        for parent in parents:
            effect = _effect_link(structure, parent, var)
            low, high = (margin + EFFECT_RANGE[0], margin + EFFECT_RANGE[1]) if effect else STRONG_RANGE
            changes.append(float(rng.uniform(low, high)) * (1 if rng.integers(2) else -1))
        low = 0.05 - sum(c for c in changes if c < 0)
        high = 0.95 - sum(c for c in changes if c > 0)
        base = float(rng.uniform(low, high)) if low <= high else (low + high) / 2
        rows = {}
        for row in itertools.product((0, 1), repeat=len(parents)):
            value = base + sum(c * r for c, r in zip(changes, row)) + float(rng.uniform(-JITTER, JITTER))
            rows[row] = min(95, max(5, round(value * 100))) / 100
        cpt[var] = rows
    return cpt


def joint(structure: str, cpt: Cpt) -> dict[tuple[tuple[str, int], ...], float]:
    """The observational joint: every assignment (as sorted (variable, value) pairs) -> its probability."""
    names = sorted(PARENTS[structure])
    out = {}
    for values in itertools.product((0, 1), repeat=len(names)):
        v = dict(zip(names, values))
        weight = 1.0
        for var, parents in PARENTS[structure].items():
            p1 = cpt[var][tuple(v[p] for p in parents)]
            weight *= p1 if v[var] else 1 - p1
        out[tuple(sorted(v.items()))] = weight
    return out


def _prob(table: dict[tuple[tuple[str, int], ...], float], event: dict[str, int], given: dict[str, int]) -> float:
    """P(event | given) from the joint."""
    den = sum(p for a, p in table.items() if all(dict(a)[k] == v for k, v in given.items()))
    num = sum(p for a, p in table.items() if all(dict(a)[k] == v for k, v in {**given, **event}.items()))
    return num / den


def quantities(structure: str, cpt: Cpt) -> tuple[float, float, float]:
    """(association, ATE, ETT) from the observational joint: conditioning on X; adjusting for
    X's parents (they block every backdoor path: the model is Markovian) weighted by P(pa), and
    by P(pa | X = 1) for the treated (the test recomputes all three on a twin network)."""
    table = joint(structure, cpt)
    y = {"Y": 1}
    assoc = _prob(table, y, {"X": 1}) - _prob(table, y, {"X": 0})
    parents = PARENTS[structure]["X"]
    ate = ett = 0.0
    for values in itertools.product((0, 1), repeat=len(parents)):
        pa = dict(zip(parents, values))
        effect = _prob(table, y, {"X": 1, **pa}) - _prob(table, y, {"X": 0, **pa})
        ate += _prob(table, pa, {}) * effect
        ett += _prob(table, pa, {"X": 1}) * effect
    return assoc, ate, ett


def is_reversal(j: int, share: float) -> bool:
    """Whether the ``j``-th item of a rung is a reversal: when ceil((j + 1) * share) > ceil(j * share),
    so every rung holds the share exactly (to one item) from its first item on, and ``--limit``
    keeps it."""
    return math.ceil((j + 1) * share - 1e-9) > math.ceil(j * share - 1e-9)


def design(index: int, share: float) -> tuple[str, bool, int]:
    """(structure, reversal, key) of item ``index``, the j-th of its rung (j = index // 3).

    Reversals by :func:`is_reversal`; the reversals and the agreements of a rung each form a
    stream, and the m-th item of a stream gets structure m mod 5 and key yes when
    (m mod 5 + m // 5) is even (yes and no alternate over the structures, the other way round
    in the next round). So at any share every structure holds reversals and agreements in the
    rung's proportion, each with yes and no keys in turn, and yes and no stay balanced from
    the first items on."""
    j = index // len(CONDITIONS)
    reversal = is_reversal(j, share)
    before = math.ceil(j * share - 1e-9)  # reversals among the rung's items 0..j-1
    m = before if reversal else j - before
    structure = STRUCTURES[m % len(STRUCTURES)]
    key = YES if (m % len(STRUCTURES) + m // len(STRUCTURES)) % 2 == 0 else NO
    return structure, reversal, key


def draw_graph(
    rng: np.random.Generator, params: CausalLadderParams, structure: str, reversal: bool, rung: str, key: int
) -> tuple[Cpt, tuple[float, float, float]]:
    """Probabilities of ``structure`` with every quantity beyond the margin, a reversal
    (association against ATE and ETT) if ``reversal``, else all three agreeing, and the
    quantity ``rung`` asks about of the sign ``key`` names."""
    asked = CONDITIONS.index(rung)
    for _ in range(_MAX_TRIES):
        cpt = draw_cpt(rng, structure, params.margin)
        values = quantities(structure, cpt)
        if min(abs(v) for v in values) < params.margin or (values[asked] > 0) != (key == YES):
            continue
        signs = [v > 0 for v in values]
        if (signs[0] != signs[1] and signs[0] != signs[2]) if reversal else signs[0] == signs[1] == signs[2]:
            return cpt, values
    raise RuntimeError("causal_ladder: no graph met the margin")  # pragma: no cover - the tests reach margin 0.15


def _condition_text(names: dict[str, str], parents: tuple[str, ...], row: tuple[int, ...]) -> str:
    return ", ".join(f"{names[p]} = {v}" for p, v in zip(parents, row))


def describe(structure: str, cpt: Cpt, names: dict[str, str]) -> str:
    """The graph in words and its probabilities, one line each, parents in causal order."""
    variables = [v for v in ("X", "Y", "Z", "W") if v in PARENTS[structure]]
    listed = ", ".join(names[v] for v in variables[:-1]) + f" and {names[variables[-1]]}"
    links = [f"{names[p]} causes {names[v]}" for v, parents in PARENTS[structure].items() for p in parents]
    lines = [
        f"{NUMBER_WORDS[len(variables)]} binary variables (each 0 or 1) describe the units of a population: {listed}.",
        "Causal structure: " + "; ".join(links) + ". There are no other causal links and no hidden common causes.",
        "Probabilities:",
    ]
    for var, parents in PARENTS[structure].items():
        for row, p in cpt[var].items():
            given = f" | {_condition_text(names, parents, row)}" if parents else ""
            lines.append(f"P({names[var]} = 1{given}) = {p:.2f}")
    return "\n".join(lines)


def question(rung: str, x: str, y: str) -> str:
    if rung == "rung1":
        return f"Is {y} = 1 more likely among units observed with {x} = 1 than among units observed with {x} = 0?"
    if rung == "rung2":
        return (
            f"If {x} were set to 1 by an intervention, would {y} = 1 be more likely than if {x} "
            f"were set to 0 by an intervention?"
        )
    return (
        f"Consider the units that actually have {x} = 1. For these units, is {y} = 1 more likely "
        f"than it would have been had their {x} been set to 0?"
    )


class CausalLadder(Probe):
    name = "causal_ladder"
    ability = "causal_reasoning"
    Params = CausalLadderParams
    conditions = CONDITIONS
    lure_conditions = ("rung2", "rung3")
    version = 2.0
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "ladder_drop": ("difference", False),
        "counterfactual_drop": ("difference", False),
        "confounding_effect": ("difference", False),
        "confounding_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: CausalLadderParams, index: int) -> dict[str, Any]:
        rung = cycle(CONDITIONS, index)
        structure, reversal, gold = design(index, params.reversal_share)
        cpt, (assoc, ate, ett) = draw_graph(rng, params, structure, reversal, rung, gold)
        variables = list(PARENTS[structure])
        names: dict[str, str] = {}
        while len(set(names.values())) < len(variables):
            names = {v: nonce_word(rng) for v in variables}
        associational = YES if assoc > 0 else NO
        prompt = (
            describe(structure, cpt, names)
            + f"\nQuestion: {question(rung, names['X'], names['Y'])} Answer yes or no."
        )
        return {
            "prompt": prompt,
            "choices": list(CHOICES),
            "gold": gold,
            "condition": rung,
            "lure": associational if rung != "rung1" and associational != gold else -1,
            "structure": structure,
            "reversal": reversal,
            "associational": associational,
            "effects": [round(assoc, 6), round(ate, 6), round(ett, 6)],
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        rung = doc["condition"]
        causal = rung != "rung1"
        agree_side = NEITHER if not causal else SIDE_B if doc["reversal"] else SIDE_A
        return {
            "ladder_drop": (difference_side(rung, "rung1", "rung2"), correct),
            "counterfactual_drop": (difference_side(rung, "rung1", "rung3"), correct),
            "confounding_effect": (agree_side, correct),
            "confounding_error_share": (causal and not correct, float(pred == doc["associational"])),
        }


PROBE = CausalLadder()
