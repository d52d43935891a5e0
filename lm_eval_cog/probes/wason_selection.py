"""Wason selection task (Wason, 1968), abstract and deontic (Griggs & Cox, 1982).

Item: four cards, each with one visible side, and a conditional rule "if p then q";
which cards must be turned over to test the rule? The answer is always the p card and
the not-q card (the only ones that can hide a violation).

Options: the four card pairs that take one card of each side of the rule, named by their
visible sides in the order the cards are shown: p and not-q (the key); p and q (the
matching-bias answer, Evans & Lynch, 1973, and with "p" alone the commonest error in
Wason's data, Johnson-Laird & Wason, 1970); not-p and q; not-p and not-q. Every option
is a pair and every card is in two of them, so no option stands out by its shape or by
the cards it shares with the others (a single card, three or four cards, or a pair of
two letters would be an option the key never is). The options are built to give the
key no surface cue: the p and not-p cards differ in length, the longer one alternating
within each condition, while q and not-q are as long as each other (abstract cards are
one character each): the key is the shortest or longest option as often as any other;
the cards' display order is chosen so that the key's rank in sorted order (numbers by
value, then text) cycles over the four ranks and the key is the most and the least
similar option in spelling (mean edit similarity to the others) 1/4 of the time each;
its position among the choices cycles too. The cards are shown as ``[A] [K] [4] [7]``,
so that no option is written in the prompt.

Conditions alternate by index:

* ``abstract``: letters and numbers, with a random rule ("If a card has a vowel on
  one side, then it has an even number on the other side"; antecedent on the letter
  or the number side, each class picked at random) and random cards;
* ``deontic``: a permission rule about one of two nonce-named things (Cheng & Holyoak's
  permission schema, 1985): an age limit on a film (as the drinking age of Griggs & Cox,
  1982: "If a person has a ticket for Velmor, they must be over 15 years old"), postage
  by destination (Johnson-Laird, Legrenzi & Legrenzi, 1972: "If a letter is addressed to
  Velmor, it must carry a 50-cent stamp", the not-q stamp always cheaper) or a
  vaccination required of arrivals from a country (Cheng & Holyoak, 1985), with random
  ages, stamps and diseases.

No option text carries information about the key across items. Abstract cards take
their roles from random classes, so each letter-number pair is the key as often as any
other pair of its roles. Every deontic option names one of the item's two nonce names,
fresh in each item and drawn alike (which one the rule names follows the length design),
so deontic option texts do not recur across items (which age or stamp is not-q, the
younger or cheaper one, the rule itself says). Real names could not do this: with the
drinking age "beer, 16" is always the violating pair and "cola, 16" never, and the
contrapositive rule ("If a person is under 18, they must not drink beer") has the same
violating pair.

The ``_gen`` answer is a set of visible sides ("7, A", "A and 7"): order-insensitive;
a well-formed set of the shown cards that is none of the options (e.g. "K", or "A" alone)
is wrong (-1); anything else (an unknown card, "A or 7", prose) is invalid.

Effects: ``content_effect`` = acc(deontic) - acc(abstract) (> 0: the deontic
facilitation humans show, about 0.7 in Griggs & Cox 1982; 0 for a content-blind
logician); ``matching_error_share`` = share of errors (both conditions) that choose
p and q (1/3 for random errors). The ``prepotent`` player is the human pattern:
matching (p and q, the lure) on abstract items, right on deontic ones: content_effect
1, matching_error_share 1. Chance is 1/4.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.probes._syllogism_nonce import nonce_words
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, edit_similarity, normalize_answer

CONDITIONS = ("abstract", "deontic")
ROLES = ("p", "not_p", "q", "not_q")
#: The card sets offered, by role: one card of each side of the rule. The key is
#: ("p", "not_q"), the lure ("p", "q").
OPTION_SETS = (("p", "q"), ("p", "not_q"), ("not_p", "q"), ("not_p", "not_q"))
KEY, MATCHING = ("p", "not_q"), ("p", "q")
N_OPTIONS = len(OPTION_SETS)
DEONTIC = ("cinema", "postage", "entry")

VOWELS, CONSONANTS = "AEIU", "BDFGKLMNPRSTVZ"  # no O (zero), no Y (half vowel)
EVENS, ODDS = "2468", "3579"
#: Stamp values in cents (two digits: the q and not-q stamps are as long as each other).
STAMPS = (10, 15, 20, 25, 30, 40, 50, 60, 75, 90)
#: Diseases by length: the needed vaccine and the other one are as long as each other.
DISEASES = ("mumps", "polio", "rabies", "typhus", "cholera", "typhoid", "measles", "tetanus", "hepatitis", "influenza")
QUESTION = "Which cards must you turn over"
TASKS = {
    "abstract": "to find out whether the rule is true or false for these four cards?",
    "deontic": "to find out whether anyone is breaking the rule?",
}
ANSWER_FORM = (
    "Answer with the visible sides of exactly the cards that must be turned over, separated by commas."
)
#: Card sets drawn before an item gives up (one fits in a few draws).
MAX_DRAWS = 500
#: Where the key stands among the options by mean spelling similarity to the other options
#: (normalized edit distance): the most similar ("typical"), the least ("odd"), in between
#: ("neither"), or all alike ("tie"); by the key's rank in sorted order (the row), four items
#: each. Every table makes the key the most and the least similar option 1/4 of the time (a
#: four-way tie counts 1/4) with only the (rank, class) pairs that the display orders of its cards
#: can give: abstract cards (one character each) tie in most orders and are never odd when second
#: or third in sorted order; deontic tables differ by which of p and not-p is longer.
SIMILARITY_CLASSES: dict[tuple[str, bool], tuple[tuple[str, ...], ...]] = {
    ("abstract", False): (
        ("odd", "tie", "neither", "tie"),
        ("typical", "tie", "neither", "tie"),
        ("typical", "tie", "neither", "tie"),
        ("odd", "tie", "neither", "tie"),
    ),
    ("deontic", False): (
        ("odd", "typical", "neither", "neither"),
        ("typical", "neither", "typical", "neither"),
        ("typical", "neither", "neither", "neither"),
        ("odd", "odd", "odd", "neither"),
    ),
    ("deontic", True): (
        ("odd", "neither", "odd", "neither"),
        ("typical", "neither", "typical", "neither"),
        ("typical", "neither", "typical", "neither"),
        ("odd", "neither", "odd", "neither"),
    ),
}
SIMILARITY_CLASSES[("abstract", True)] = SIMILARITY_CLASSES[("abstract", False)]


@dataclass(frozen=True)
class WasonParams:
    """Attributes:
    deontic_contents: How many deontic contents to draw from, 1..3 (3): film age limit,
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


def design(index: int) -> tuple[int, str, bool, int]:
    """(key sort rank, key similarity class, p card longer than not-p, key position) of item
    ``index``, by construction.

    Within each condition (``j`` = the item's count in it) the key's rank among the options in
    sorted order (numbers by value, then text) cycles every item and its similarity class
    (:data:`SIMILARITY_CLASSES`) every 4; whether the p card is longer than the not-p card (which
    makes the key and the matching pair the two longest options, else the two shortest) alternates
    every 16 items; the key's position among the choices cycles with the rank, shifted by one every
    4 and every 16 items (every (rank, position) pair once in 16 items).
    """
    j = index // len(CONDITIONS)
    rank, p_longer = j % N_OPTIONS, bool((j // 16) % 2)
    similar = SIMILARITY_CLASSES[(cycle(CONDITIONS, index), p_longer)][rank][(j // N_OPTIONS) % N_OPTIONS]
    return rank, similar, p_longer, (j + j // N_OPTIONS + j // 16) % N_OPTIONS


def _pick(rng: np.random.Generator, options: str | tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _pick_two(rng: np.random.Generator, options: tuple[str, ...]) -> tuple[str, str]:
    a, b = (options[int(k)] for k in rng.choice(len(options), 2, replace=False))
    return a, b


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


def _names(rng: np.random.Generator, p_longer: bool) -> tuple[str, str, str]:
    """(place, p name, not-p name): three distinct capitalised nonce names, the p name longer than
    the not-p name when ``p_longer`` (shorter otherwise). The two card names are drawn alike, so
    that which of them the rule names carries no information."""
    while True:
        place, first, second = (w.capitalize() for w in nonce_words(rng, 3))
        if len(first) != len(second):
            longer, shorter = (first, second) if len(first) > len(second) else (second, first)
            return (place, longer, shorter) if p_longer else (place, shorter, longer)


def _deontic(rng: np.random.Generator, content: str, p_longer: bool) -> tuple[str, str, dict[str, str]] | None:
    """(setting, rule, visible side by role) of a permission rule about one of two nonce-named
    films, countries of address or countries of departure (p longer than not-p when ``p_longer``,
    shorter otherwise), with q and not-q cards as long as each other; None when this draw misses
    that."""
    place, p, not_p = _names(rng, p_longer)
    if content == "cinema":
        limit = int(_pick(rng, ("12", "15", "18")))
        # Two-digit ages at least 2 years from the limit on either side.
        sides = {"p": p, "not_p": not_p, "q": str(int(rng.integers(limit + 2, 66))),
                 "not_q": str(int(rng.integers(10, limit - 1)))}
        setting = ("You are checking tickets at a cinema. Each of four cards shows a visitor: one side names the "
                   "film the visitor has a ticket for, the other side the visitor's age in years.")
        rule = f"If a person has a ticket for {p}, they must be over {limit} years old."
    elif content == "postage":
        low, high = sorted(int(v) for v in rng.choice(STAMPS, 2, replace=False))
        sides = {"p": p, "not_p": not_p, "q": f"{high}c", "not_q": f"{low}c"}
        setting = ("You are checking letters in a post office. Each of four cards shows a letter: one side names "
                   "the country it is addressed to, the other side shows its only stamp "
                   "(e.g. 10c for a 10-cent stamp).")
        rule = f"If a letter is addressed to {p}, it must carry a {high}-cent stamp."
    else:
        needed, other = _pick_two(rng, DISEASES)
        sides = {"p": p, "not_p": not_p, "q": needed, "not_q": other}
        setting = (f"You are an immigration officer at the airport of {place}. Each of four cards shows a "
                   "passenger's form: one side names the country the passenger arrives from, the other side "
                   "the one disease the passenger is vaccinated against.")
        rule = f"If a passenger arrives from {p}, they must be vaccinated against {needed}."
    if len(sides["q"]) != len(sides["not_q"]):
        return None
    return setting, rule, sides


def _option_text(sides: Mapping[str, str], roles: list[str], option: tuple[str, ...]) -> str:
    """A card set named by its visible sides, in the order the cards are shown."""
    return ", ".join(sides[r] for r in roles if r in option)


def _sort_key(text: str) -> tuple:
    """Sort order of an option for a reader who sorts them: numbers by value, then text."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in re.findall(r"\d+|\D+", text))


@functools.lru_cache(maxsize=4096)
def folded_similarity(a: str, b: str) -> float:
    """:func:`~lm_eval_cog.probes.core.edit_similarity`, case-insensitive."""
    return edit_similarity(a.casefold(), b.casefold())


@functools.lru_cache(maxsize=4096)
def similarity_class(texts: tuple[str, ...], of: int) -> str | None:
    """``texts[of]``'s place by mean edit similarity to the other texts: "typical" (the most
    similar, alone), "odd" (the least, alone), "neither" (strictly in between), "tie" (all alike);
    None when it ties with another text for the most or the least similar (rounded, so that the
    order of summing cannot break a tie)."""
    means = [
        round(sum(folded_similarity(texts[i], texts[k]) for k in range(len(texts)) if k != i) / (len(texts) - 1), 9)
        for i in range(len(texts))
    ]
    if len(set(means)) == 1:
        return "tie"
    mine = means[of]
    if mine not in (max(means), min(means)):
        return "neither"
    if means.count(mine) > 1:
        return None
    return "typical" if mine == max(means) else "odd"


def _display_order(rng: np.random.Generator, sides: Mapping[str, str], rank: int, similar: str) -> list[str] | None:
    """A display order of the cards (by role) in which the key is the ``rank``-th option in sorted
    order and of similarity class ``similar``; None if there is none."""
    key = OPTION_SETS.index(KEY)
    fits = []
    for order in itertools.permutations(ROLES):
        texts = [_option_text(sides, list(order), o) for o in OPTION_SETS]
        values = [_sort_key(t) for t in texts]
        if sorted(values).index(values[key]) == rank and similarity_class(tuple(texts), key) == similar:
            fits.append(list(order))
    return fits[int(rng.integers(len(fits)))] if fits else None


class WasonSelection(Probe):
    name = "wason_selection"
    ability = "logical_reasoning"
    version = 2.0
    Params = WasonParams
    conditions = CONDITIONS
    lure_conditions = ("abstract",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "content_effect": ("difference", False),
        "matching_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: WasonParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        rank, similar, p_longer, position = design(index)
        for _ in range(MAX_DRAWS):
            content = "letters" if condition == "abstract" else _pick(rng, DEONTIC[: params.deontic_contents])
            drawn = _abstract(rng) if content == "letters" else _deontic(rng, content, p_longer)
            roles = None if drawn is None else _display_order(rng, drawn[2], rank, similar)
            if roles is not None:
                break
        else:  # pragma: no cover - a card set fits within a few draws
            raise AssertionError(f"wason_selection item {index}: no cards fit the design")
        setting, rule, sides = drawn
        cards = [sides[r] for r in roles]
        foils = [o for o in OPTION_SETS if o != KEY]
        foils = [foils[int(k)] for k in rng.permutation(len(foils))]
        options = foils[:position] + [KEY] + foils[position:]
        choices = [_option_text(sides, roles, option) for option in options]
        prompt = (
            f"{setting} You see one side of each card: {' '.join(f'[{c}]' for c in cards)}.\nRule: {rule}\n"
            f"{QUESTION} {TASKS[condition]} Turn over only the cards you need.\nOptions:\n"
            + "\n".join(f"- {c}" for c in choices) + f"\n{ANSWER_FORM}"
        )
        matching = options.index(MATCHING)
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": position,
            "condition": condition,
            "lure": matching if condition == "abstract" else -1,
            "cards": cards,
            "roles": roles,
            "rule": rule,
            "content": content,
            "matching": matching,
        }

    def identity(self, doc: Mapping[str, Any]) -> Any:
        """The prompt with its option lines in sorted order (they are listed one per line)."""
        block = "\n".join(f"- {c}" for c in doc["choices"])
        prompt = doc["prompt"].replace(block, "\n".join(f"- {c}" for c in sorted(doc["choices"])))
        return prompt, frozenset(doc["choices"]), doc["choices"][doc["gold"]], doc["condition"]

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
