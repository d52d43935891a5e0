"""Categorical syllogisms and belief bias (Evans, Barston & Pollard, 1983).

Item: two premises and a conclusion about three categories S, M, P in one of the 256
mood-figure forms (moods A "All X are Y", E "No X are Y", I "Some X are Y", O "Some X
are not Y"; figures 1-4 place the middle term M; premise 1 holds P, premise 2 holds S,
the conclusion is "S ... P"), and the question "Does the conclusion follow
necessarily from the premises?" with options ``valid`` / ``invalid``.

Semantics (stated in every prompt): by default **traditional, with existential
import**: every category has at least one member, which makes 24 of the 256 forms
valid (Barbara, ..., the weakened moods, Darapti, Felapton, Bramantip, Fesapo).
``existential_import=False`` gives the modern (Boolean) reading: nothing is assumed
to exist and 15 forms are valid. The key comes from the classical rules of the
syllogism (middle term distributed, no illicit process, not two negative premises, a
negative conclusion exactly when a premise is negative, and, without existential
import, no particular conclusion from two universal premises); the tests re-derive
it by model checking over the 2^8 Venn-region assignments.

Every invalid item is *indeterminate*: its conclusion is consistent with the premises
but not forced by them (as in Evans et al., 1983), so an invalid conclusion is never
rejected just for contradicting the premises. Invalid forms are drawn to look like valid
ones: an invalid item takes the *profile* of a valid form drawn as for a valid item: the
conclusion's mood, whether the conclusion matches the premises' "atmosphere" (negative if a
premise is, particular if a premise is; Woodworth & Sells, 1935) and whether it follows once the
A and O premises are also read converted ("All A are B" as "All B are A"; Chapman & Chapman,
1959), which every valid form does. So neither the conclusion's mood ("All ..." conclusions
are almost never valid), nor the atmosphere heuristic (about 0.7 alone), nor illicit
conversion (0.86 on version 2, whose invalid forms were rarely valid under conversion; issue
28) predicts validity, in any condition. Declared heuristics (:attr:`Syllogism.heuristics`,
:mod:`._syllogism_heuristics`): ``atmosphere``, ``conversion`` and Chater & Oaksford's ``min``
(1999), each at chance or below in every audit cell.

Conditions cycle by index (in the order nonce_valid, agree, nonce_invalid, conflict, so
that items of even and of odd index hold valid and invalid keys alike):

* ``nonce_valid`` / ``nonce_invalid``: S, M, P are nonce words (no belief, no
  contamination);
* ``agree``: real categories for S and P (nonce middle term, so only the conclusion
  has a believability), and believability agrees with validity (valid-believable or
  invalid-unbelievable, alternating);
* ``conflict``: believability conflicts with validity (valid-unbelievable or
  invalid-believable); the lure is the believability answer.

Believability comes from a hand-written bank of category relations
(:mod:`._syllogism_beliefs`): a believable conclusion is true of the world ("All roses
are flowers", "No dogs are fish"), an unbelievable one false ("Some roses are not
flowers").

Effects: ``belief_bias_index`` = acc(agree) - acc(conflict) (> 0: belief bias; 0 for
a pure logician); ``belief_error_share`` = share of the errors on belief items
(agree + conflict) that give the believability answer (0.5 for random errors, 1 when
every error follows belief). The ``prepotent`` player answers by belief: 1 and 1.
Chance is 1/2.

Options: ``valid`` and ``invalid``, in the order the question names them; "valid"
comes first in every other pair of items of a condition, so the key is each position
equally often in every cell. The nonce conditions fix their key by design, so the
shortcut audit pools them into one cell (``audit_cells``: ``nonce``), where the key is
"valid" half the time: a constant answer, a position or the shorter word scores 1/2.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import product
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._syllogism_beliefs import PAIRS, RELATIONS
from lm_eval_cog.probes._syllogism_heuristics import (
    atmosphere_accepts,
    atmosphere_scores,
    conversion_accepts,
    conversion_scores,
    min_scores,
)
from lm_eval_cog.probes._syllogism_nonce import nonce_words
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("nonce_valid", "nonce_invalid", "agree", "conflict")
#: The condition of item ``index`` is ``SLOTS[index % 4]``: each parity of the index holds one
#: nonce valid and one nonce invalid slot (a strategy cross-fitted on odd / even items sees the
#: same keys in both halves).
SLOTS = ("nonce_valid", "agree", "nonce_invalid", "conflict")
MOODS = "AEIO"
#: figure -> (terms of premise 1, terms of premise 2), each (subject, predicate).
FIGURES = {1: (("M", "P"), ("S", "M")), 2: (("P", "M"), ("S", "M")), 3: (("M", "P"), ("M", "S")), 4: (("P", "M"), ("M", "S"))}
TEMPLATES = {"A": "All {} are {}.", "E": "No {} are {}.", "I": "Some {} are {}.", "O": "Some {} are not {}."}
#: The contradictory of each mood (A <-> O, E <-> I).
CONTRADICTORY = {"A": "O", "O": "A", "E": "I", "I": "E"}


def _distributed(term: str, mood: str, subject: str, predicate: str) -> bool:
    """Whether a proposition distributes ``term``: A its subject, E both, I none, O its predicate."""
    return (term == subject and mood in "AE") or (term == predicate and mood in "EO")


def valid_by_rules(moods: str, figure: int, existential_import: bool) -> bool:
    """Validity of the form ``moods`` (e.g. "AAA") in ``figure`` by the rules of the syllogism."""
    (s1, p1), (s2, p2) = FIGURES[figure]
    m1, m2, mc = moods
    major, minor = (m1, s1, p1), (m2, s2, p2)
    if not (_distributed("M", *major) or _distributed("M", *minor)):
        return False  # undistributed middle
    if _distributed("S", mc, "S", "P") and not _distributed("S", *minor):
        return False  # illicit minor
    if _distributed("P", mc, "S", "P") and not _distributed("P", *major):
        return False  # illicit major
    negatives = (m1 in "EO") + (m2 in "EO")
    if negatives == 2 or negatives != (mc in "EO"):
        return False  # two negatives, or a negative on one side only
    # Without existential import two universals cannot give a particular (existential fallacy).
    return existential_import or not (m1 in "AE" and m2 in "AE" and mc in "IO")


def forms(existential_import: bool) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(valid forms, indeterminate invalid forms): the invalid ones whose conclusion's
    contradictory does not follow either, i.e. the conclusion is possible but not necessary."""
    valid, indeterminate = [], []
    for m1, m2, mc in product(MOODS, repeat=3):
        for figure in FIGURES:
            if valid_by_rules(m1 + m2 + mc, figure, existential_import):
                valid.append((m1 + m2 + mc, figure))
            elif not valid_by_rules(m1 + m2 + CONTRADICTORY[mc], figure, existential_import):
                indeterminate.append((m1 + m2 + mc, figure))
    return valid, indeterminate


FORMS = {flag: forms(flag) for flag in (True, False)}


def profile(moods: str, figure: int, existential_import: bool) -> tuple[str, bool, bool]:
    """What the surface and the known heuristics see of a form: the conclusion's mood, whether the
    atmosphere heuristic accepts it (Woodworth & Sells, 1935) and whether illicit conversion does
    (Chapman & Chapman, 1959; :mod:`._syllogism_heuristics`)."""
    (s1, p1), (s2, p2) = FIGURES[figure]
    first, second, conclusion = (moods[0], s1, p1), (moods[1], s2, p2), (moods[2], "S", "P")
    return (moods[2], atmosphere_accepts(first, second, conclusion),
            conversion_accepts(first, second, conclusion, existential_import))


@functools.cache
def twins(existential_import: bool) -> dict[tuple[str, bool, bool], list[tuple[str, int]]]:
    """Profile -> the indeterminate invalid forms of that profile, for every profile of a valid form
    (computed on first use: a few hundred model checks)."""
    valid, invalid = FORMS[existential_import]
    wanted = {profile(m, f, existential_import) for m, f in valid}
    moods = {p[0] for p in wanted}
    out: dict[tuple[str, bool, bool], list[tuple[str, int]]] = {p: [] for p in sorted(wanted)}
    for m, f in invalid:
        if m[2] in moods and (found := profile(m, f, existential_import)) in out:
            out[found].append((m, f))
    return out


def draw_form(rng: np.random.Generator, valid: bool, existential_import: bool) -> tuple[str, int]:
    """A form: a valid one drawn uniformly; for an invalid item, then an invalid form of its profile."""
    valid_forms = FORMS[existential_import][0]
    moods, figure = valid_forms[int(rng.integers(len(valid_forms)))]
    if valid:
        return moods, figure
    matching = twins(existential_import)[profile(moods, figure, existential_import)]
    return matching[int(rng.integers(len(matching)))]


def plural(word: str) -> str:
    """A nonce noun in the plural ("vuneb" -> "vunebs", "glox" -> "gloxes")."""
    return word + ("es" if word.endswith(("s", "x")) else "s")


def sentence(mood: str, subject: str, predicate: str) -> str:
    return TEMPLATES[mood].format(subject, predicate)


@dataclass(frozen=True)
class SyllogismParams:
    """Attributes:
    existential_import: True (default): traditional logic, every category has members
        (24 valid forms); False: modern logic, nothing assumed to exist (15 valid forms).
    """

    existential_import: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.existential_import, bool):
            raise ValueError(  # noqa: TRY004 - every bad parameter is a ValueError naming it
                f"syllogism parameter 'existential_import' must be true or false, got {self.existential_import!r}"
            )


SEMANTICS = {
    True: "each category mentioned has at least one member",
    False: 'nothing is assumed to exist: "All X are Y" is true when there are no X, and "Some X are Y" says that at least one X exists',
}


class Syllogism(Probe):
    name = "syllogism"
    ability = "logical_reasoning"
    Params = SyllogismParams
    conditions = CONDITIONS
    lure_conditions = ("conflict",)
    audit_cells: ClassVar[dict[str, str]] = {"nonce_valid": "nonce", "nonce_invalid": "nonce"}
    version = 3.0
    heuristics = (
        Heuristic("atmosphere", "Woodworth & Sells 1935 (atmosphere effect)", atmosphere_scores),
        Heuristic("conversion", "Chapman & Chapman 1959 (illicit conversion of A and O premises)", conversion_scores),
        Heuristic("min", "Chater & Oaksford 1999 (min-heuristic of the probability heuristics model)", min_scores),
    )
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "belief_bias_index": ("difference", False),
        "belief_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: SyllogismParams, index: int) -> dict[str, Any]:
        condition = cycle(SLOTS, index)
        round_ = index // len(SLOTS)
        if condition.startswith("nonce"):
            valid = condition == "nonce_valid"
            believable = ""
        else:
            # Alternate the two kinds of each belief condition: valid on even rounds.
            valid = round_ % 2 == 0
            believable = "believable" if valid == (condition == "agree") else "unbelievable"
        moods, figure = draw_form(rng, valid, params.existential_import)
        terms = self._terms(rng, moods[2], believable)
        (s1, p1), (s2, p2) = FIGURES[figure]
        premises = [sentence(moods[0], terms[s1], terms[p1]), sentence(moods[1], terms[s2], terms[p2])]
        conclusion = sentence(moods[2], terms["S"], terms["P"])
        # "valid" first in rounds 0, 1 (mod 4): crossed with the belief kinds, which alternate by round.
        choices = ["valid", "invalid"] if (round_ // 2) % 2 == 0 else ["invalid", "valid"]
        gold = choices.index("valid" if valid else "invalid")
        belief_answer = -1 if not believable else choices.index("valid" if believable == "believable" else "invalid")
        prompt = (
            "Logic puzzle. Assume that the premises are true, even where they seem false, and that "
            f"{SEMANTICS[params.existential_import]}. The conclusion is valid if it must be true whenever "
            "both premises are true; otherwise it is invalid, even if it happens to be true.\n"
            f"Premise 1: {premises[0]}\nPremise 2: {premises[1]}\nConclusion: {conclusion}\n"
            f"Does the conclusion follow necessarily from the premises? Answer {choices[0]} or {choices[1]}."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": gold,
            "condition": condition,
            "lure": belief_answer if condition == "conflict" else -1,
            "premises": premises,
            "conclusion": conclusion,
            "form": f"{moods}-{figure}",
            "valid": valid,
            "believable": believable,
            "belief_answer": belief_answer,
        }

    def identity(self, doc: dict[str, Any]) -> Any:
        """The prompt with the question's "Answer X or Y." in a fixed order (the options are named there)."""
        named = f"Answer {doc['choices'][0]} or {doc['choices'][1]}."
        prompt = doc["prompt"].replace(named, "Answer " + " or ".join(sorted(doc["choices"])) + ".")
        return prompt, frozenset(doc["choices"]), doc["choices"][doc["gold"]], doc["condition"]

    @staticmethod
    def _terms(rng: np.random.Generator, conclusion_mood: str, believable: str) -> dict[str, str]:
        """S, M, P: three nonce nouns, or real S and P whose relation makes the conclusion
        (believable) true or (unbelievable) false, with a nonce M."""
        if not believable:
            return dict(zip("SMP", (plural(w) for w in nonce_words(rng, 3))))
        relations = RELATIONS[(conclusion_mood, believable == "believable")]
        pairs = PAIRS[relations[int(rng.integers(len(relations)))]]
        s, p = pairs[int(rng.integers(len(pairs)))]
        return {"S": s, "M": plural(nonce_words(rng, 1)[0]), "P": p}

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        side = difference_side(cond, "agree", "conflict")
        belief_error = bool(doc["believable"]) and not correct
        return {
            "belief_bias_index": (side, correct),
            "belief_error_share": (belief_error, float(pred == doc["belief_answer"])),
        }


PROBE = Syllogism()
