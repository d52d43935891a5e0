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
  young and : sound, country : capital and : language, worker : workplace and : tool;
  ``_analogy_bank.py``); A : B and C : D are two pairs of one relation; the options are
  D, another tail of that relation (the same kind of word as the key, so only the
  pairing with C decides) and two partners by the domain's other relation: in lure items
  C's own (the lure) and the other tail's head's, in controls those of two more heads.
  Every item holds two kinds of two words, so that "leave out the odd kind of word"
  singles out nothing, and a lure item two same-head pairs, so that "pick one of the two
  words that belong together" singles out nothing either;
* ``nonce``: made-up words whose relations are *stated* as facts in the prompt
  ("a blick is the young of a dax", "a wug lives in a pell", ...): five pairs of the
  analogy's relation and two pairs of a second relation, one of which links C to
  the lure, the other A to a fifth word (so that C's and A's second links cannot
  decide). World knowledge cannot help; the key is exact by construction.

Conditions (cycled by index): ``semantic_lure``, ``semantic_control``, ``nonce_lure``,
``nonce_control``. In the lure conditions one option is the **associative
distractor**: a word linked to C by another relation (cat -> meow when the analogy asks
for the young, Spain -> Spanish when it asks for the capital; in nonce items C's stated
second-relation partner), the answer of a reasoner who matches C to its strongest
associate instead of mapping the relation (the "relational shift": children and novices
choose associates; Gentner, 1988; Gentner & Toupin, 1986). The control conditions
replace it by one more tail of the relation (semantic: another head's partner by the
other relation). The semantic associates are themselves tails of the other relation,
keys of other items as often as any tail: a lure's text never gives it away. Options
are shown in the prompt, counterbalanced by construction: within each condition the key
takes the four places in turn and, in the lure conditions, the associate the three
other places in turn (:func:`placement`). Chance: 1/4.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes._analogy_bank import NONCE_RELATIONS, NONCE_WORDS, RELATIONS
from lm_eval_cog.probes.aggregations import SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("semantic_lure", "semantic_control", "nonce_lure", "nonce_control")
LURE_CONDITIONS = ("semantic_lure", "nonce_lure")
OPTIONS = 4
#: Pairs of the analogy's relation in a nonce item: A:B, C:D and three more tails.
NONCE_PAIRS = 5
#: Every word a gen answer may name: a well-formed answer even when it is no option.
VOCABULARY = frozenset(
    normalize_answer(w) for pairs in RELATIONS.values() for pair in pairs for w in pair
) | frozenset(normalize_answer(w) for w in NONCE_WORDS)


@dataclass(frozen=True)
class AnalogyParams:
    """Attributes:
    nonce_facts: Facts of the second relation in a nonce item, 2.. (2): C's link to the
        lure, A's link to another word, and the rest links of other heads (more
        irrelevant facts to search through).
    """

    nonce_facts: int = 2

    def __post_init__(self) -> None:
        require_int("analogy", "nonce_facts", self.nonce_facts, 1)
        if not 2 <= self.nonce_facts <= NONCE_PAIRS:
            raise ValueError(
                f"analogy parameter 'nonce_facts' must be in 2..{NONCE_PAIRS} (C's and A's links at least, one "
                f"per head of the analogy's relation at most), got {self.nonce_facts}"
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


class Analogy(Probe):
    name = "analogy"
    ability = "induction"
    Params = AnalogyParams
    conditions = CONDITIONS
    lure_conditions = LURE_CONDITIONS
    version = 2.0
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
        relation, second = _pick(rng, names, 2)
        words = _pick(rng, list(NONCE_WORDS), 2 * NONCE_PAIRS + params.nonce_facts)
        heads, tails = words[:NONCE_PAIRS], words[NONCE_PAIRS : 2 * NONCE_PAIRS]
        partners = words[2 * NONCE_PAIRS :]
        # heads[0] : tails[0] is A : B, heads[1] : tails[1] is C : D; C's second-relation
        # partner is the associate, A's is partners[1]; further partners link other heads.
        linked = [heads[1], heads[0], *heads[2 : 1 + params.nonce_facts]]
        facts = [NONCE_RELATIONS[relation].format(h=h, t=t) for h, t in zip(heads, tails)]
        facts += [NONCE_RELATIONS[second].format(h=h, t=t) for h, t in zip(linked, partners)]
        facts = _pick(rng, facts, len(facts))
        others = _pick(rng, tails[2:], OPTIONS - 1 - lured)
        options = [tails[1], partners[0], *others] if lured else [tails[1], *others]
        preamble = "Here are some facts about a made-up world:\n" + "".join(f"- {f}.\n" for f in facts)
        preamble += "Using only these facts, answer the question.\n"
        return {
            "preamble": preamble, "options": options, "a": heads[0], "b": tails[0], "c": heads[1],
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
