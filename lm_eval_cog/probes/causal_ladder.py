"""Causal ladder (CLadder-style, Jin et al., 2023; Pearl's ladder of causation, Pearl & Mackenzie, 2018).

Item: a small causal graph over three binary variables with nonce names, its
structure in words ("no other causal links and no hidden common causes"), the
conditional probability of every variable given its parents (two decimals), and a
yes/no question about the treatment X and the outcome Y. The key is computed from
the *stated* numbers. Structures (Z is the third variable):

* ``chain`` X -> Z -> Y; ``fork`` X -> Y <- Z (CLadder's fork: two causes of Y);
  ``collider`` X -> Y, X -> Z <- Y; ``mediator`` X -> Z -> Y and X -> Y;
* ``confounder`` Z -> X, Z -> Y, X -> Y: the only structure where seeing differs
  from doing. A share ``reversal_share`` of the items are confounder graphs built as
  Simpson-like reversals: the association has the opposite sign of the causal
  effect (and of the effect on the treated); in every other item all three agree.
  Reversals are spread evenly over each rung's items (:func:`is_reversal`).

Conditions cycle by index, one per rung, over the same distribution of graphs:

* ``rung1`` (association): is Y = 1 more likely among units observed with X = 1 than
  with X = 0? yes iff P(Y=1 | X=1) - P(Y=1 | X=0) > 0;
* ``rung2`` (intervention): the sign of the average treatment effect
  ATE = P(Y=1 | do(X=1)) - P(Y=1 | do(X=0)) (backdoor adjustment / truncated
  factorisation);
* ``rung3`` (counterfactual): the sign of the effect of treatment on the treated,
  ETT = P(Y=1 | X=1) - P(Y_{X=0}=1 | X=1): "for the units that actually have X = 1,
  is Y = 1 more likely than it would have been had their X been set to 0?" It is a
  rung-3 quantity in CLadder's taxonomy (ATT), well defined in the stated Markovian
  model and exactly computable: sum_z P(z | X=1) [P(Y=1|X=1,z) - P(Y=1|X=0,z)] under
  confounding, the ATE elsewhere (X is then a root).

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

The associational reader scores acc 1 / 1 - s / 1 - s on the rungs (s the realised
share of reversal items, about 0.5), ladder_drop = counterfactual_drop = s,
confounding_effect = 1 and confounding_error_share = 1. Chance is 0.5.
Gen: the answer line must be yes or no (Momentè et al., 2025, score CLadder by the
yes/no that begins the reply; here the whole answer line must be that word).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_probability
from lm_eval_cog.probes.aggregations import NEITHER, SIDE_A, SIDE_B, difference_side
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("rung1", "rung2", "rung3")
STRUCTURES = ("chain", "fork", "collider", "mediator", "confounder")
#: Parents of each variable ("X" treatment, "Y" outcome, "Z" third), in a causal order.
PARENTS: dict[str, dict[str, tuple[str, ...]]] = {
    "chain": {"X": (), "Z": ("X",), "Y": ("Z",)},
    "fork": {"X": (), "Z": (), "Y": ("X", "Z")},
    "collider": {"X": (), "Y": ("X",), "Z": ("X", "Y")},
    "mediator": {"X": (), "Z": ("X",), "Y": ("X", "Z")},
    "confounder": {"Z": (), "X": ("Z",), "Y": ("X", "Z")},
}
YES, NO = 0, 1
CHOICES = ["yes", "no"]
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "bl", "dr", "gl", "kr", "pl", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("b", "d", "g", "k", "l", "m", "n", "p", "r", "s", "t", "x")
_MAX_TRIES = 10_000

Cpt = dict[str, dict[tuple[int, ...], float]]


@dataclass(frozen=True)
class CausalLadderParams:
    """Attributes:
    reversal_share: Share of items whose graph is a Simpson-like reversal (0.5), in [0, 1].
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


def draw_cpt(rng: np.random.Generator, structure: str) -> Cpt:
    """P(V=1 | parents) for every variable and parent assignment, in 0.05..0.95 (two decimals)."""
    cpt: Cpt = {}
    for var, parents in PARENTS[structure].items():
        rows = [tuple(int(b) for b in np.binary_repr(k, len(parents))) if parents else () for k in range(2 ** len(parents))]
        cpt[var] = {row: int(rng.integers(5, 96)) / 100 for row in rows}
    return cpt


def quantities(structure: str, cpt: Cpt) -> tuple[float, float, float]:
    """(association, ATE, ETT) by the textbook formulas of each structure (the test
    recomputes them by enumerating the joint)."""
    px, pz, py = cpt["X"], cpt["Z"], cpt["Y"]
    if structure == "collider":  # Z is a common effect: P(Y | X) is stated, nothing to adjust.
        effect = py[(1,)] - py[(0,)]
        return effect, effect, effect
    if structure == "fork":  # X and Z independent roots: adjusting and conditioning coincide.
        effect = sum((pz[()] if z else 1 - pz[()]) * (py[(1, z)] - py[(0, z)]) for z in (0, 1))
        return effect, effect, effect
    if structure in ("chain", "mediator"):  # X is a root: P(Y | do(X)) = P(Y | X).
        def p_y(x: int) -> float:
            return sum(
                (pz[(x,)] if z else 1 - pz[(x,)]) * (py[(z,)] if structure == "chain" else py[(x, z)]) for z in (0, 1)
            )
        effect = p_y(1) - p_y(0)
        return effect, effect, effect
    # Confounder: backdoor adjustment over Z; conditioning weighs Z by P(z | x).
    p_z = {1: pz[()], 0: 1 - pz[()]}
    p_x_given_z = {z: px[(z,)] for z in (0, 1)}
    p_x1 = sum(p_z[z] * p_x_given_z[z] for z in (0, 1))
    p_z_given_x = {
        (z, 1): p_z[z] * p_x_given_z[z] / p_x1 for z in (0, 1)
    } | {(z, 0): p_z[z] * (1 - p_x_given_z[z]) / (1 - p_x1) for z in (0, 1)}
    assoc = sum(p_z_given_x[(z, 1)] * py[(1, z)] - p_z_given_x[(z, 0)] * py[(0, z)] for z in (0, 1))
    ate = sum(p_z[z] * (py[(1, z)] - py[(0, z)]) for z in (0, 1))
    ett = sum(p_z_given_x[(z, 1)] * (py[(1, z)] - py[(0, z)]) for z in (0, 1))
    return assoc, ate, ett


def is_reversal(index: int, share: float) -> bool:
    """Whether item ``index`` is a reversal: the j-th item of each rung (j = index // 3) is
    one when ceil((j + 1) * share) > ceil(j * share), so every rung holds the share
    exactly (to one item) from its first item on, and ``--limit`` keeps it."""
    j = index // len(CONDITIONS)
    return math.ceil((j + 1) * share - 1e-9) > math.ceil(j * share - 1e-9)


def draw_graph(
    rng: np.random.Generator, params: CausalLadderParams, reversal: bool
) -> tuple[str, Cpt, tuple[float, float, float]]:
    """A structure and its probabilities with every quantity beyond the margin: a reversal
    (association against ATE and ETT) if ``reversal``, else all three agree."""
    for _ in range(_MAX_TRIES):
        structure = "confounder" if reversal else STRUCTURES[int(rng.integers(len(STRUCTURES)))]
        cpt = draw_cpt(rng, structure)
        values = quantities(structure, cpt)
        if min(abs(v) for v in values) < params.margin:
            continue
        signs = [v > 0 for v in values]
        if (signs[0] != signs[1] and signs[0] != signs[2]) if reversal else signs[0] == signs[1] == signs[2]:
            return structure, cpt, values
    raise RuntimeError("causal_ladder: no graph met the margin")  # pragma: no cover - margin <= 0.15 always succeeds


def _condition_text(names: dict[str, str], parents: tuple[str, ...], row: tuple[int, ...]) -> str:
    return ", ".join(f"{names[p]} = {v}" for p, v in zip(parents, row))


def describe(structure: str, cpt: Cpt, names: dict[str, str]) -> str:
    """The graph in words and its probabilities, one line each, parents in causal order."""
    links = [f"{names[p]} causes {names[v]}" for v, parents in PARENTS[structure].items() for p in parents]
    lines = [
        f"Three binary variables (each 0 or 1) describe the units of a population: {names['X']}, {names['Y']} and {names['Z']}.",
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
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "ladder_drop": ("difference", False),
        "counterfactual_drop": ("difference", False),
        "confounding_effect": ("difference", False),
        "confounding_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: CausalLadderParams, index: int) -> dict[str, Any]:
        rung = cycle(CONDITIONS, index)
        reversal = is_reversal(index, params.reversal_share)
        structure, cpt, (assoc, ate, ett) = draw_graph(rng, params, reversal)
        names: dict[str, str] = {}
        while len(set(names.values())) < 3:
            names = {v: nonce_word(rng) for v in ("X", "Y", "Z")}
        queried = {"rung1": assoc, "rung2": ate, "rung3": ett}[rung]
        gold = YES if queried > 0 else NO
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
