"""Wason selection task (Wason, 1968), abstract and deontic (Griggs & Cox, 1982).

Item: four cards, each with one visible side, and a conditional rule "if p then q";
which cards must be turned over to test the rule? The answer is always the p card and
the not-q card (the only ones that can hide a violation).

Options: the four card pairs that take one card of each side of the rule, named by their
visible sides in the order the cards are shown: p and not-q (the key); p and q; not-p and q;
not-p and not-q. The **matching** pair is the two cards the rule's words name (Evans & Lynch,
1973: people pick them, negated or not), and the rules are drawn so that it is each of the four
pairs equally often (version 3; see "Rule forms" below). Every option
is a pair and every card is in two of them, so no option stands out by its shape or by
the cards it shares with the others (a single card, three or four cards, or a pair of
two letters would be an option the key never is). The options are built to give the
key no surface cue: the p and not-p cards differ in length, the longer one alternating
within each condition, while q and not-q are as long as each other (abstract cards are
one character each): the key is the shortest or longest option as often as any other;
the cards' display order is chosen so that the key's rank in sorted order (numbers by
value, then text) cycles over the four ranks and the key is the most and the least
similar option in spelling (mean edit similarity to the others) 1/4 of the time each;
its position among the choices is drawn per item (version 3.1; it cycled with the rest until
then). The cards are shown as ``[A] [K] [4] [7]``, so that no option is written in the prompt.

Conditions alternate by index:

* ``abstract``: letters and numbers, with a random rule ("If a card has a vowel on
  one side, then it has an even number on the other side"; antecedent on the letter
  or the number side, each class picked at random) and random cards;
* ``deontic``: a permission rule about one of two nonce-named things (Cheng & Holyoak's
  permission schema, 1985): an age limit on a film (as the drinking age of Griggs & Cox,
  1982: "If a person has a ticket for Velmor, they must be over 16 years old"), postage
  by destination (after Johnson-Laird, Legrenzi & Legrenzi, 1972, whose rule was on the
  envelope's stamp: "If a letter is addressed to Velmor, it must weigh less than 30 grams")
  or the length of stay allowed on arrivals from a country, with random limits and values.

Rule forms (version 3; issue 28). Abstract rules negate neither side, the "if" side, the "then"
side or both, at random (the negations paradigm of Evans & Lynch, 1973): the cards the rule's
words name are then p and q, not-p and q, p and not-q (the key: matching is right) or not-p and
not-q, and the card named in the "if" part is p half the time. Deontic rules name the p card or,
negated, the not-p card ("If a person has a ticket for any film other than Velmor, ..."), half and
half, and their limit is a minimum ("over 16", "at least 30 grams", "at least 14 days") or a
maximum ("under 16", "less than 30 grams", "fewer than 14 days") half and half, on the same
quantity (version 3.1: a unit no longer tells the direction), so the violating value is the
smaller one as often as the larger, and the limit is never on a card.
Before, every rule named p and every violating value was the smaller: "the card the 'if' part
names plus the smallest number shown" scored 0.97 on deontic items (chance 0.25); now 0.27.
Declared heuristics (:attr:`WasonSelection.heuristics`): ``matching`` (Evans & Lynch, 1973) and
``if_card`` (Evans's if-heuristic, 1989): both at chance in each condition.

No option text carries information about the key across items. Abstract cards take
their roles from random classes, so each letter-number pair is the key as often as any
other pair of its roles. Every deontic option names one of the item's two nonce names,
fresh in each item and drawn alike (which one the rule names follows the length design),
so deontic option texts do not recur across items (which value is not-q, the smaller or
the larger one, the rule itself says). Real names could not do this: with the
drinking age "beer, 16" is always the violating pair and "cola, 16" never, and the
contrapositive rule ("If a person is under 18, they must not drink beer") has the same
violating pair.

The ``_gen`` answer is a set of visible sides ("7, A", "A and 7"): order-insensitive;
a well-formed set of the shown cards that is none of the options (e.g. "K", or "A" alone)
is wrong (-1); anything else (an unknown card, "A or 7", prose) is invalid.

Effects: ``content_effect`` = acc(deontic) - acc(abstract) (> 0: the deontic
facilitation humans show, about 0.7 in Griggs & Cox 1982; 0 for a content-blind
logician); ``matching_error_share`` = share of errors (both conditions) that choose
the matching pair where it is wrong (1/3 for random errors). The ``prepotent`` player is the
human pattern: matching (the lure, where it is wrong) on abstract items, right on deontic ones:
acc(abstract) is the share of abstract rules negating only their "then" side (about 1/4),
content_effect about 0.75, matching_error_share 1. Chance is 1/4.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._syllogism_nonce import nonce_words
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, edit_similarity, key_place, normalize_answer

CONDITIONS = ("abstract", "deontic")
ROLES = ("p", "not_p", "q", "not_q")
#: The card sets offered, by role: one card of each side of the rule. The key is
#: ("p", "not_q"); the matching pair (the lure on abstract items, where it is wrong) is any of them.
OPTION_SETS = (("p", "q"), ("p", "not_q"), ("not_p", "q"), ("not_p", "not_q"))
KEY = ("p", "not_q")
N_OPTIONS = len(OPTION_SETS)
DEONTIC = ("cinema", "postage", "entry")

VOWELS, CONSONANTS = "AEIU", "BDFGKLMNPRSTVZ"  # no O (zero), no Y (half vowel)
EVENS, ODDS = "2468", "3579"


@dataclass(frozen=True)
class Limit:
    """One deontic rule form: its setting, the rule's "then" part (``{}``: the limit), the limits
    drawn, the range of the card values and how a card shows one (``{}``: the value)."""

    setting: str
    rule: str
    limits: tuple[int, ...]
    bottom: int
    top: int
    card: str


_CINEMA = ("You are checking tickets at a cinema. Each of four cards shows a visitor: one side names the film the "
           "visitor has a ticket for, the other side the visitor's age in years.")
_POST = "You are checking letters in a post office. Each of four cards shows a letter: one side names the country it is addressed to, the other side "
_ENTRY = ("You are an immigration officer at the airport of {place}. Each of four cards shows a passenger's form: one "
          "side names the country the passenger arrives from, the other side ")
#: The deontic rule forms by (content, the limit is a minimum): each content has a minimum form
#: (the violating value is the smaller) and a maximum form (the larger), drawn half and half, on one
#: quantity with one unit, the same limits and the same range. Until version 3.1 each direction had a
#: quantity of its own (stamps in cents and passports in months were minima, weights in grams and
#: stays in days maxima), so a card's unit told the direction, and a classifier that saw only the
#: options ("12 months" is a violation) scored 0.38 on deontic items (chance 0.25).
LIMITS: dict[tuple[str, bool], Limit] = {
    ("cinema", True): Limit(_CINEMA, "they must be over {} years old", (14, 16, 18), 10, 65, "{}"),
    ("cinema", False): Limit(_CINEMA, "they must be under {} years old", (14, 16, 18), 10, 65, "{}"),
    ("postage", True): Limit(_POST + "shows its weight (e.g. 10g for 10 grams).",
                             "it must weigh at least {} grams", (20, 30, 40, 50), 10, 95, "{}g"),
    ("postage", False): Limit(_POST + "shows its weight (e.g. 10g for 10 grams).",
                              "it must weigh less than {} grams", (20, 30, 40, 50), 10, 95, "{}g"),
    ("entry", True): Limit(_ENTRY + "how many days the passenger plans to stay.",
                           "they must stay at least {} days", (14, 21, 30), 10, 90, "{} days"),
    ("entry", False): Limit(_ENTRY + "how many days the passenger plans to stay.",
                            "they must stay fewer than {} days", (14, 21, 30), 10, 90, "{} days"),
}
#: The "if" part of each content's rule (``{}``: the named card, or "any film other than" it).
NAMED_SUBJECT = {
    "cinema": "a person has a ticket for {}",
    "postage": "a letter is addressed to {}",
    "entry": "a passenger arrives from {}",
}
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
        then postage, then entry conditions.
    """

    deontic_contents: int = len(DEONTIC)

    def __post_init__(self) -> None:
        from lm_eval_cog.paradigms.base import require_int

        require_int("wason_selection", "deontic_contents", self.deontic_contents, 1)
        if self.deontic_contents > len(DEONTIC):
            raise ValueError(
                f"wason_selection parameter 'deontic_contents' must be in 1..{len(DEONTIC)}, got {self.deontic_contents}"
            )


def design(index: int) -> tuple[int, str, bool]:
    """(key sort rank, key similarity class, p card longer than not-p) of item ``index``, by
    construction.

    Within each condition (``j`` = the item's count in it) the key's rank among the options in
    sorted order (numbers by value, then text) cycles every item and its similarity class
    (:data:`SIMILARITY_CLASSES`) every 4; whether the p card is longer than the not-p card (which
    makes the key and the matching pair the two longest options, else the two shortest) alternates
    every 16 items. The key's position is not part of the design (see :meth:`WasonSelection.item`).
    """
    j = index // len(CONDITIONS)
    rank, p_longer = j % N_OPTIONS, bool((j // 16) % 2)
    similar = SIMILARITY_CLASSES[(cycle(CONDITIONS, index), p_longer)][rank][(j // N_OPTIONS) % N_OPTIONS]
    return rank, similar, p_longer


def _pick(rng: np.random.Generator, options: str | tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _abstract(rng: np.random.Generator) -> tuple[str, str, dict[str, str], tuple[str, str]]:
    """(setting, rule, visible side by role, the roles of the cards the rule names) of a letter/number item: each side of the rule names a
    random class, affirmed or negated at random (Evans & Lynch's negations paradigm, 1973), so the
    cards the rule names (the matching cards) are p and q, not-p and q, p and not-q (the key) or
    not-p and not-q equally often."""
    letter_first = bool(rng.integers(2))
    vowel, even = bool(rng.integers(2)), bool(rng.integers(2))
    not_ante, not_cons = bool(rng.integers(2)), bool(rng.integers(2))
    named = {"letter": "a vowel" if vowel else "a consonant", "number": "an even number" if even else "an odd number"}
    # The card of the named class ("yes") and one of the other class ("no").
    letters = {"yes": _pick(rng, VOWELS if vowel else CONSONANTS), "no": _pick(rng, CONSONANTS if vowel else VOWELS)}
    numbers = {"yes": _pick(rng, EVENS if even else ODDS), "no": _pick(rng, ODDS if even else EVENS)}
    ante, cons = ("letter", "number") if letter_first else ("number", "letter")
    cards = {"letter": letters, "number": numbers}
    yes, no = ("no", "yes") if not_ante else ("yes", "no")
    q_yes, q_no = ("no", "yes") if not_cons else ("yes", "no")
    sides = {"p": cards[ante][yes], "not_p": cards[ante][no], "q": cards[cons][q_yes], "not_q": cards[cons][q_no]}
    rule = (f"If a card {'does not have' if not_ante else 'has'} {named[ante]} on one side, "
            f"then it {'does not have' if not_cons else 'has'} {named[cons]} on the other side.")
    setting = "Each of four cards has a letter on one side and a number on the other side."
    return setting, rule, sides, ("not_p" if not_ante else "p", "not_q" if not_cons else "q")


def _names(rng: np.random.Generator, p_longer: bool) -> tuple[str, str, str]:
    """(place, p name, not-p name): three distinct capitalised nonce names, the p name longer than
    the not-p name when ``p_longer`` (shorter otherwise). The two card names are drawn alike, so
    that which of them the rule names carries no information."""
    while True:
        place, first, second = (w.capitalize() for w in nonce_words(rng, 3))
        if len(first) != len(second):
            longer, shorter = (first, second) if len(first) > len(second) else (second, first)
            return (place, longer, shorter) if p_longer else (place, shorter, longer)


def _deontic(rng: np.random.Generator, content: str, p_longer: bool) -> tuple[str, str, dict[str, str], tuple[str, str]]:
    """(setting, rule, visible side by role, the roles of the cards the rule names) of a permission rule about one of two nonce-named
    films, countries of address or countries of departure (p longer than not-p when ``p_longer``,
    shorter otherwise), with q and not-q cards as long as each other.

    The rule's "if" part names the p card or, negated ("any film other than Velmor"), the not-p
    card, at random; its limit is a minimum or a maximum at random (:data:`LIMITS`), so the
    violating value is the smaller or the larger one, and the limit itself is never on a card."""
    place, p, not_p = _names(rng, p_longer)
    named = not_p if rng.integers(2) else p
    minimum = bool(rng.integers(2))
    form = LIMITS[(content, minimum)]
    limit = int(_pick(rng, form.limits))
    # Two-digit values at least 2 from the limit on either side (">" and ">=" agree on every card).
    above = str(int(rng.integers(limit + 2, form.top + 1)))
    below = str(int(rng.integers(form.bottom, limit - 1)))
    q, not_q = (above, below) if minimum else (below, above)
    sides = {"p": p, "not_p": not_p, "q": form.card.format(q), "not_q": form.card.format(not_q)}
    kind = "film" if content == "cinema" else "country"
    subject = NAMED_SUBJECT[content].format(f"any {kind} other than {named}" if named == not_p else named)
    rule = f"If {subject}, {form.rule.format(limit)}."
    # The cards the rule's words match: the named card and the value that meets the limit.
    return form.setting.format(place=place), rule, sides, ("p" if named == p else "not_p", "q")


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


_CARDS = re.compile(r"\[([^\]]+)\]")
_CLASS_WORDS = {"vowel": lambda c: c in "AEIOU", "consonant": lambda c: c not in "AEIOU",
                "even": lambda c: int(c) % 2 == 0, "odd": lambda c: int(c) % 2 == 1}


def _names_card(part: str, card: str) -> bool:
    """Whether a part of the rule names ``card`` in words, whatever negation it carries: a letter
    or digit by its class ("a vowel", "an odd number"), a longer card by its text."""
    if len(card) > 1:
        return re.search(rf"(?<!\w){re.escape(card)}(?!\w)", part) is not None
    kind = ("vowel", "consonant") if card.isalpha() else ("even", "odd")
    return any(re.search(rf"\b{word}\b", part) and _CLASS_WORDS[word](card) for word in kind)


def _rule_parts(stem: str) -> tuple[str, str, list[str]] | None:
    """(the rule's "if" part, its "then" part, the cards shown) of a prompt; None if it has no rule."""
    rule = re.search(r"^Rule: If (.+?), (?:then )?(.+)$", stem, re.MULTILINE)
    cards = _CARDS.findall(stem.split("\n")[0])
    return None if rule is None or len(cards) != 4 else (rule.group(1), rule.group(2), cards)


def matching_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Matching bias (Evans & Lynch, 1973): pick the cards the rule names, negated or not; each
    option scores how many of its cards the rule's words name."""
    parts = _rule_parts(stem)
    if parts is None:
        return None
    ante, cons, _ = parts
    return [float(sum(_names_card(ante, c) or _names_card(cons, c) for c in o.split(", "))) for o in options]


def if_card_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The if-heuristic (Evans, 1989): the card the rule's "if" part names is relevant; each option
    scores 1 if it holds that card."""
    parts = _rule_parts(stem)
    if parts is None:
        return None
    ante, _, _ = parts
    return [float(any(_names_card(ante, c) for c in o.split(", "))) for o in options]


class WasonSelection(Probe):
    name = "wason_selection"
    ability = "logical_reasoning"
    version = 3.1
    Params = WasonParams
    conditions = CONDITIONS
    lure_conditions = ("abstract",)
    heuristics = (
        Heuristic("matching", "Evans & Lynch 1973 (matching bias)", matching_scores),
        Heuristic("if_card", "Evans 1989 (the if-heuristic; Johnson-Laird & Wason 1970: p is chosen by nearly all)",
                  if_card_scores),
    )
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "content_effect": ("difference", False),
        "matching_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: WasonParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        rank, similar, p_longer = design(index)
        for _ in range(MAX_DRAWS):
            content = "letters" if condition == "abstract" else _pick(rng, DEONTIC[: params.deontic_contents])
            drawn = _abstract(rng) if content == "letters" else _deontic(rng, content, p_longer)
            roles = _display_order(rng, drawn[2], rank, similar)
            if roles is not None:
                break
        else:  # pragma: no cover - a card set fits within a few draws
            raise AssertionError(f"wason_selection item {index}: no cards fit the design")
        setting, rule, sides, named = drawn
        cards = [sides[r] for r in roles]
        foils = [o for o in OPTION_SETS if o != KEY]
        foils = [foils[int(k)] for k in rng.permutation(len(foils))]
        stem = f"{setting} You see one side of each card: {' '.join(f'[{c}]' for c in cards)}.\nRule: {rule}\n"
        # In version 3.0 the position cycled with the key's rank, similarity class and longer-p
        # slot, which the options show: the surface detector read 0.32-0.35 on deontic items at fresh
        # seeds. Hashed from the question without the options listing, which the place orders.
        position = key_place(stem, N_OPTIONS)
        options = foils[:position] + [KEY] + foils[position:]
        choices = [_option_text(sides, roles, option) for option in options]
        prompt = (
            f"{stem}{QUESTION} {TASKS[condition]} Turn over only the cards you need.\nOptions:\n"
            + "\n".join(f"- {c}" for c in choices) + f"\n{ANSWER_FORM}"
        )
        matching = options.index(named)
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": position,
            "condition": condition,
            # Matching is right when the rule negates its "then" part only (Evans & Lynch, 1973).
            "lure": matching if condition == "abstract" and matching != position else -1,
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
