"""Verbal analogies A : B :: C : ? (Gentner, 1983; Sternberg, 1977; CogProbe's "Analogy", Cui et al.).

CogProbe defines the operation as "identifying relational similarities between
different domains" and reuses E-KAR-like items (A : B with four options, scored partly
by an LLM judge). Here the items are generated with exact keys: "dog is to puppy as
cat is to ?" with four one-word options, of which exactly one stands to C in the
relation that links A to B (Gentner's structure mapping: the relation, not the
words' attributes or associations, must be carried over; Sternberg's encoding ->
inference -> mapping -> application).

Domains:

* ``semantic``: a hand-written bank of three domains with two relations each (animal :
  young and : sound, country : capital and : currency, worker : workplace and : tool;
  ``_analogy_bank.py``, where no tail shares its head's first letter or is derived from it);
  A : B and C : D are two pairs of one relation; the options are
  D, another tail of that relation (the same kind of word as the key, so only the
  pairing with C decides) and two partners by the domain's other relation: in lure items
  C's own (the lure) and the other tail's head's, in controls those of two more heads.
  Every item holds two kinds of two words, so that "leave out the odd kind of word"
  singles out nothing, and a lure item two same-head pairs, so that "pick one of the two
  words that belong together" singles out nothing either;
* ``nonce``: made-up words whose relations are *stated* as facts in the prompt
  ("a blick is the young of a dax", "a pell is the home of a wug", ...), each relation in two
  wordings, head first or tail first, drawn at random. C is stated with every option: the key
  by the analogy's relation with C in A's role; in lure items the associate by a second
  relation in that same role; the other options with C in the other role (a role reversal:
  "a wug works in a C" where the analogy asks what C works in), by the analogy's relation or a
  third one. Every option is also the tail of the analogy's relation for one more head, so each
  option is in two facts, and A has a second link too. So "the option stated with C" (1.00 on
  nonce controls before version 3; issue 28), "a tail of the relation", how often an option is
  named and where C stands in a fact single out nothing: only the relation and C's role in it
  do. World knowledge cannot help; the key is exact by construction.

Conditions (cycled by index): ``semantic_lure``, ``semantic_control``, ``nonce_lure``,
``nonce_control``. In the lure conditions one option is the **associative
distractor**: a word linked to C by another relation (cat -> meow when the analogy asks
for the young, Japan -> yen when it asks for the capital; in nonce items C's stated
second-relation partner), the answer of a reasoner who matches C to its strongest
associate instead of mapping the relation (the "relational shift": children and novices
choose associates; Gentner, 1988; Gentner & Toupin, 1986). The control conditions
replace it by one more tail of the relation (semantic: another head's partner by the
other relation; nonce: one more role reversal). Known limit: in a semantic control only the key
goes with C in the bank (a domain has two relations), so association alone finds it there; the
nonce controls have no such route. The semantic associates are themselves tails of the other relation,
keys of other items as often as any tail: a lure's text never gives it away. Options
are shown in the prompt, counterbalanced by construction: within each condition the key
takes the four places in turn and, in the lure conditions, the associate the three
other places in turn (:func:`placement`). Chance: 1/4. A seed never asks the same question twice
(version 3.1: not even with other options), so it holds at most about 1,000 items: the semantic bank
gives about 520 questions, half the items.

Effects:

* ``associative_interference`` = acc(controls) - acc(lure conditions), both domains
  pooled: positive when the associate pulls answers away (lower is better);
* ``lure_error_share``: share of errors in the lure conditions that name the
  associate (random errors: 1/3; lower is better);
* ``nonce_cost`` = acc(semantic) - acc(nonce), both lure and control items: positive
  when the model needs familiar relations (stored word pairs) to map (lower is better:
  relational reasoning that carries over to stated, unfamiliar relations).

The ``prepotent`` player (the associate where there is one, else the key) scores 0 in
the lure conditions and 1 in the controls: associative_interference 1,
lure_error_share 1, nonce_cost 0. Gen answers: one word; another word of the bank or
a nonce word is wrong (-1), anything else (a sentence, two words) invalid.

Declared heuristics (:attr:`Analogy.heuristics`): ``associate`` (the relational shift, Gentner,
1988: the option stated with C; nonce items) and ``appearance`` (Gentner's mere-appearance match,
1983: the option spelled most like C; 0.47 on semantic controls before version 3): both at chance
or below in every condition.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._analogy_bank import NONCE_RELATIONS, NONCE_WORDS, RELATIONS
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle, edit_similarity, normalize_answer

CONDITIONS = ("semantic_lure", "semantic_control", "nonce_lure", "nonce_control")
LURE_CONDITIONS = ("semantic_lure", "nonce_lure")
OPTIONS = 4
#: Nonce words of an item: A, B, A's other link, C, the key, three other options, four more heads.
NONCE_WORDS_USED = 12
MAX_NONCE_FACTS = 5
#: Every word a gen answer may name: a well-formed answer even when it is no option.
VOCABULARY = frozenset(
    normalize_answer(w) for pairs in RELATIONS.values() for pair in pairs for w in pair
) | frozenset(normalize_answer(w) for w in NONCE_WORDS)


@dataclass(frozen=True)
class AnalogyParams:
    """Attributes:
    nonce_facts: Facts of the second relation in a nonce item, 2..5 (2): A's link to another word,
        one more, and the rest links between words of no option (irrelevant facts to search through).
    """

    nonce_facts: int = 2

    def __post_init__(self) -> None:
        require_int("analogy", "nonce_facts", self.nonce_facts, 1)
        if not 2 <= self.nonce_facts <= MAX_NONCE_FACTS:
            raise ValueError(
                f"analogy parameter 'nonce_facts' must be in 2..{MAX_NONCE_FACTS}, got {self.nonce_facts}"
            )


def placement(rng: np.random.Generator, index: int, lured: bool) -> list[int]:
    """The order of the options [key, associate or tail, tail, tail]: counterbalanced by
    construction within each condition (item j = index // 4 of it), the key at place j % 4
    and, in lure conditions, the associate at each of the three other places in turn
    ((j // 4) % 3 places after the key); the remaining tails in random order."""
    j = index // len(CONDITIONS)
    place = j % OPTIONS
    order: list[int | None] = [None] * OPTIONS
    order[place] = 0
    rest = [1, 2, 3]
    if lured:
        order[(place + 1 + (j // OPTIONS) % (OPTIONS - 1)) % OPTIONS] = 1
        rest = [2, 3]
    free = [k for k in range(OPTIONS) if order[k] is None]
    for k, at in zip(rng.permutation(len(rest)), free):
        order[at] = rest[int(k)]
    return [int(k) for k in order]  # type: ignore[arg-type]


def _pick(rng: np.random.Generator, seq: list[Any], k: int) -> list[Any]:
    return [seq[int(j)] for j in rng.choice(len(seq), k, replace=False)]


_THIRD = re.compile(r"as (\w+) is to \?")


def _third_term(stem: str) -> str | None:
    found = _THIRD.search(stem)
    return None if found is None else found.group(1)


def associate_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The relational shift's associative answer (Gentner, 1988; Gentner & Toupin, 1986): the option
    that goes with C, whatever the relation. In a nonce item: an option stated in a fact with C (each
    scores 1); None without stated facts."""
    c = _third_term(stem)
    facts = [line for line in stem.split("\n") if line.startswith("- ")]
    if c is None or not facts:
        return None
    with_c = [f for f in facts if re.search(rf"(?<!\w){re.escape(c)}(?!\w)", f)]
    return [float(any(re.search(rf"(?<!\w){re.escape(o)}(?!\w)", f) for f in with_c)) for o in options]


def appearance_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """A mere-appearance match (Gentner, 1983: surface similarity instead of relational structure): the
    option spelled most like C, by the longest shared prefix, then by edit similarity."""
    c = _third_term(stem)
    if c is None:
        return None
    c = c.casefold()

    def prefix(o: str) -> int:
        return next((k for k, (x, y) in enumerate(zip(c, o)) if x != y), min(len(c), len(o)))

    return [prefix(o.casefold()) + edit_similarity(c, o.casefold()) for o in options]


class Analogy(Probe):
    name = "analogy"
    ability = "induction"
    Params = AnalogyParams
    conditions = CONDITIONS
    lure_conditions = LURE_CONDITIONS
    version = 3.1
    heuristics = (
        Heuristic("associate", "Gentner 1988; Gentner & Toupin 1986 (the relational shift: C's associate)",
                  associate_scores, ("nonce_lure", "nonce_control")),
        Heuristic("appearance", "Gentner 1983 (mere-appearance match: the option spelled like C)", appearance_scores),
    )
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "associative_interference": ("difference", False),
        "lure_error_share": ("conditional_mean", False),
        "nonce_cost": ("difference", False),
    }

    def item(self, rng: np.random.Generator, params: AnalogyParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        lured = condition in LURE_CONDITIONS
        if condition.startswith("semantic"):
            body = self._semantic(rng, lured)
        else:
            body = self._nonce(rng, lured, params)
        a, b, c = body["a"], body["b"], body["c"]
        # options[0] is the key, options[1] the associate in lure conditions.
        options = body.pop("options")
        order = placement(rng, index, lured)
        choices = [options[k] for k in order]
        prompt = body.pop("preamble") + (
            f"Complete the analogy: {a} is to {b} as {c} is to ?\n"
            f"Options: {', '.join(choices)}\n"
            f"Choose the option that is related to \"{c}\" in the same way as \"{b}\" is related to \"{a}\". "
            "Answer with one word."
        )
        return {
            "prompt": prompt,
            "choices": choices,
            "gold": order.index(0),
            "condition": condition,
            "lure": order.index(1) if lured else -1,
            **body,
        }

    def identity(self, doc: Mapping[str, Any]) -> Any:
        """The question without its options: a seed never asks the same analogy twice, even with other
        options (the semantic bank holds about 520 stems, so 150 semantic items drew ~25 repeats)."""
        return "\n".join(line for line in doc["prompt"].splitlines() if not line.startswith("Options: "))

    def _semantic(self, rng: np.random.Generator, lured: bool) -> dict[str, Any]:
        relations = sorted(RELATIONS)
        relation = relations[int(rng.integers(len(relations)))]
        pairs = list(RELATIONS[relation])
        # Rows of A, C and three other heads: two options of each relation of the domain, so the
        # options come in two kinds of two words whichever the condition. A lure item pairs C's
        # two partners (key and lure) and another head's two partners; a control item takes its
        # four words from four heads. Partners of one head can look alike (duck: duckling, quack),
        # so the key is in a same-head pair as often as the other options are.
        (a, b, _), (c, d, associate), (_, tail, partner), (_, _, spare), (_, _, third) = _pick(rng, pairs, 5)
        options = [d, associate, tail, partner] if lured else [d, spare, tail, third]
        return {"preamble": "", "options": options, "a": a, "b": b, "c": c, "relation": relation, "facts": []}

    def _nonce(self, rng: np.random.Generator, lured: bool, params: AnalogyParams) -> dict[str, Any]:
        names = sorted(NONCE_RELATIONS)
        relation, second, third = _pick(rng, names, 3)
        extra = params.nonce_facts - 2
        words = _pick(rng, list(NONCE_WORDS), NONCE_WORDS_USED + 2 * extra)
        a, b, a_link, c, key, *rest = words
        distractors, fillers, spare = rest[:3], rest[3:7], rest[7:]
        # C is linked to every option, so the option on a fact with C is any of the four: the key by the
        # analogy's relation with C in A's role; in lure items the associate by another relation in the
        # same role (C's "strongest associate"), in every item the other options with C in the other role
        # (a role reversal of the analogy's relation, or of another relation). Every option is also the
        # tail of the analogy's relation for one more head, so each option is in two facts and "a tail of
        # that relation" singles out none.
        if lured:
            links = [(second, c, distractors[0]), (relation, distractors[1], c), (third, distractors[2], c)]
        else:
            links = [(relation, distractors[0], c), (second, distractors[1], c), (third, distractors[2], c)]
        stated = [(relation, a, b), (second, a, a_link), (relation, c, key), *links]
        stated += [(relation, y, o) for y, o in zip(fillers, [key, *distractors])]
        stated += [(second, spare[2 * k], spare[2 * k + 1]) for k in range(extra)]
        facts = [NONCE_RELATIONS[r][int(rng.integers(2))].format(h=h, t=t) for r, h, t in stated]
        facts = _pick(rng, facts, len(facts))
        options = [key, *distractors]
        preamble = "Here are some facts about a made-up world:\n" + "".join(f"- {f}.\n" for f in facts)
        preamble += "Using only these facts, answer the question.\n"
        return {
            "preamble": preamble, "options": options, "a": a, "b": b, "c": c,
            "relation": relation, "facts": facts,
        }

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """One word: the option it names, -1 for another word of the banks, else invalid."""
        wanted = normalize_answer(answer)
        keys = [normalize_answer(c) for c in doc["choices"]]
        if wanted in keys:
            return keys.index(wanted)
        return -1 if wanted in VOCABULARY else None

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        cond = doc["condition"]
        correct = float(pred == doc["gold"])
        lured = cond in LURE_CONDITIONS
        return {
            "associative_interference": (SIDE_B if lured else SIDE_A, correct),
            "lure_error_share": (lured and not correct, float(pred is not None and pred == doc["lure"])),
            "nonce_cost": (SIDE_A if cond.startswith("semantic") else SIDE_B, correct),
        }


PROBE = Analogy()
