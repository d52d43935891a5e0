"""Wason selection task (Wason, 1968), abstract and deontic (Griggs & Cox, 1982).

Item: four cards, each with one visible side, and a conditional rule "if p then q";
which cards must be turned over to test the rule? The answer is always the p card and
the not-q card (the only ones that can hide a violation). The options are five card
sets, named by their visible sides in the order the cards are shown: p; p and q (the
matching-bias answer, Evans & Lynch, 1973); p and not-q (the key); p, q and not-q;
all four: the commonest answers in Wason's data (Johnson-Laird & Wason, 1970).

Conditions alternate by index:

* ``abstract``: letters and numbers, with a random rule ("If a card has a vowel on
  one side, then it has an even number on the other side"; antecedent on the letter
  or the number side, each class picked at random) and random cards;
* ``deontic``: a permission rule with random content: drinking age (Griggs & Cox,
  1982: "If a person is drinking beer, they must be over 18 years old"), postage
  (Johnson-Laird, Legrenzi & Legrenzi, 1972) or entry vaccination (Cheng & Holyoak,
  1985), with random drinks, ages, stamps, diseases and a nonce country.

The ``_gen`` answer is a set of visible sides ("7, A", "A and 7"): order-insensitive;
a well-formed set of the shown cards that is none of the options (e.g. "K") is
wrong (-1); anything else (an unknown card, "A or 7", prose) is invalid.

Effects: ``content_effect`` = acc(deontic) - acc(abstract) (> 0: the deontic
facilitation humans show, about 0.7 in Griggs & Cox 1982; 0 for a content-blind
logician); ``matching_error_share`` = share of errors (both conditions) that choose
p and q (1/4 for random errors). The ``prepotent`` player is the human pattern:
matching (p and q, the lure) on abstract items, right on deontic ones: content_effect
1, matching_error_share 1. Chance is 1/5.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.probes._syllogism_nonce import nonce_word
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("abstract", "deontic")
ROLES = ("p", "not_p", "q", "not_q")
#: The card sets offered, by role; the key is ("p", "not_q"), the lure ("p", "q").
OPTION_SETS = (("p",), ("p", "q"), ("p", "not_q"), ("p", "q", "not_q"), ROLES)
KEY, MATCHING = ("p", "not_q"), ("p", "q")
DEONTIC = ("drinking", "postage", "entry")

VOWELS, CONSONANTS = "AEIU", "BDFGKLMNPRSTVZ"  # no O (zero), no Y (half vowel)
EVENS, ODDS = "2468", "3579"
ALCOHOL = ("beer", "wine", "whisky", "cider", "vodka", "rum", "gin")
SOFT = ("cola", "juice", "water", "milk", "tea", "lemonade", "coffee")
DISEASES = ("cholera", "typhoid", "measles", "polio", "rabies", "tetanus", "diphtheria")
QUESTION = "Which cards must you turn over"
ANSWER_FORM = (
    "Answer with the visible sides of exactly the cards that must be turned over, separated by commas."
)


@dataclass(frozen=True)
class WasonParams:
    """Attributes:
    deontic_contents: How many deontic contents to draw from, 1..3 (3): drinking age,
        then postage, then entry vaccination.
    """

    deontic_contents: int = len(DEONTIC)

    def __post_init__(self) -> None:
        from lm_eval_cog.paradigms.base import require_int

        require_int("wason_selection", "deontic_contents", self.deontic_contents, 1)
        if self.deontic_contents > len(DEONTIC):
            raise ValueError(
                f"wason_selection parameter 'deontic_contents' must be in 1..{len(DEONTIC)}, got {self.deontic_contents}"
            )


def _pick(rng: np.random.Generator, options: str | tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _abstract(rng: np.random.Generator) -> tuple[str, str, dict[str, str]]:
    """(setting, rule, visible side by role) of a letter/number item."""
    letter_first = bool(rng.integers(2))
    vowel, even = bool(rng.integers(2)), bool(rng.integers(2))
    letters = {"yes": _pick(rng, VOWELS if vowel else CONSONANTS), "no": _pick(rng, CONSONANTS if vowel else VOWELS)}
    numbers = {"yes": _pick(rng, EVENS if even else ODDS), "no": _pick(rng, ODDS if even else EVENS)}
    letter_class, number_class = ("a vowel" if vowel else "a consonant"), ("an even number" if even else "an odd number")
    if letter_first:
        rule = f"If a card has {letter_class} on one side, then it has {number_class} on the other side."
        sides = {"p": letters["yes"], "not_p": letters["no"], "q": numbers["yes"], "not_q": numbers["no"]}
    else:
        rule = f"If a card has {number_class} on one side, then it has {letter_class} on the other side."
        sides = {"p": numbers["yes"], "not_p": numbers["no"], "q": letters["yes"], "not_q": letters["no"]}
    setting = "Each of four cards has a letter on one side and a number on the other side."
    return setting, rule, sides


def _deontic(rng: np.random.Generator, content: str) -> tuple[str, str, dict[str, str]]:
    """(setting, rule, visible side by role) of a permission rule."""
    if content == "drinking":
        limit = int(_pick(rng, ("18", "21")))
        drink = _pick(rng, ALCOHOL)
        sides = {"p": drink, "not_p": _pick(rng, SOFT), "q": str(int(rng.integers(limit + 2, 66))),
                 "not_q": str(int(rng.integers(13, limit - 1)))}
        setting = ("You are checking that the rules are kept in a bar. Each of four cards shows a person: one side "
                   "says what the person is drinking, the other side the person's age in years.")
        rule = f"If a person is drinking {drink}, they must be over {limit} years old."
    elif content == "postage":
        high = int(_pick(rng, ("40", "50", "60", "75", "90")))
        low = int(_pick(rng, ("10", "15", "20", "25", "30")))
        sides = {"p": "sealed", "not_p": "unsealed", "q": f"{high}c", "not_q": f"{low}c"}
        setting = ("You are checking letters in a post office. Each of four cards shows a letter: one side says "
                   "whether the envelope is sealed or unsealed, the other side shows its only stamp "
                   "(e.g. 10c for a 10-cent stamp).")
        rule = f"If a letter is sealed, it must carry a {high}-cent stamp."
    else:
        country = nonce_word(rng).capitalize()
        needed, other = (DISEASES[int(k)] for k in rng.permutation(len(DISEASES))[:2])
        sides = {"p": "entering", "not_p": "transit", "q": needed, "not_q": other}
        setting = (f"You are an immigration officer at the airport of {country}. Each of four cards shows a "
                   f"passenger's form: one side says whether the passenger is entering {country} or only in "
                   "transit, the other side names the one disease the passenger is vaccinated against.")
        rule = f"If a passenger is entering {country}, they must be vaccinated against {needed}."
    return setting, rule, sides


class WasonSelection(Probe):
    name = "wason_selection"
    ability = "logical_reasoning"
    Params = WasonParams
    conditions = CONDITIONS
    lure_conditions = ("abstract",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "content_effect": ("difference", False),
        "matching_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: WasonParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        if condition == "abstract":
            content = "letters"
            setting, rule, sides = _abstract(rng)
            task = "to find out whether the rule is true or false for these four cards?"
        else:
            content = _pick(rng, DEONTIC[: params.deontic_contents])
            setting, rule, sides = _deontic(rng, content)
            task = "to find out whether anyone is breaking the rule?"
        roles = [ROLES[int(k)] for k in rng.permutation(len(ROLES))]
        cards = [sides[r] for r in roles]
        options = [OPTION_SETS[int(k)] for k in rng.permutation(len(OPTION_SETS))]
        choices = [", ".join(sides[r] for r in roles if r in option) for option in options]
        prompt = (
            f"{setting} You see one side of each card: {', '.join(cards)}.\nRule: {rule}\n"
            f"{QUESTION} {task} Turn over only the cards you need.\nOptions:\n"
            + "\n".join(f"- {c}" for c in choices) + f"\n{ANSWER_FORM}"
        )
        matching = options.index(MATCHING)
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": options.index(KEY),
            "condition": condition,
            "lure": matching if condition == "abstract" else -1,
            "cards": cards,
            "roles": roles,
            "rule": rule,
            "content": content,
            "matching": matching,
        }

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """The option naming the same set of cards, in any order and with any of the
        separators ", ; & and"; -1 for another set of the shown cards; None otherwise."""
        text = normalize_answer(answer)
        text = re.sub(r"^(?:the\s+)?cards?\s*:?\s*", "", text)  # "cards A and 7", "the cards: A, 7"
        if not text:
            return None
        parts = [normalize_answer(p) for p in re.split(r"\s*(?:[,;&+]|\band\b)\s*", text)]
        labels = {normalize_answer(card) for card in doc["cards"]}
        if text == "none":
            return -1  # a well-formed empty selection
        if not all(parts) or any(p not in labels for p in parts):
            return None
        chosen = set(parts)
        for k, choice in enumerate(doc["choices"]):
            if {normalize_answer(c) for c in choice.split(", ")} == chosen:
                return k
        return -1

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        side = difference_side(cond, "deontic", "abstract")
        return {
            "content_effect": (side, correct),
            "matching_error_share": (not correct, float(pred == doc["matching"])),
        }


PROBE = WasonSelection()
