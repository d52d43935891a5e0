"""Rule execution: a SCAN-style command grammar with nonce verbs (Lake & Baroni, 2018).

CogProbe's *Rule Execution* operation, "applying learned or instructed rules
systematically" (Song et al., 2025), re-created with exact keys: the prompt defines
made-up verbs ("dax means JUMP") and the grammar's rules in full, then gives one
command to execute; the answer is the action sequence. The grammar is SCAN's
(Lake & Baroni, 2018) with its semantics stated:

* ``V left`` -> LTURN V; ``V right`` -> RTURN V (V: the verb's action);
* ``V opposite left`` -> LTURN LTURN V; ``V around left`` -> (LTURN V) four times;
* ``P twice`` / ``P thrice`` -> the phrase's actions two / three times;
* ``A and B`` -> A's actions then B's; ``A after B`` -> B's actions then A's.

Verbs are drawn per item from a bank of nonce words and mapped to a random
permutation of JUMP, LOOK, RUN, WALK, so nothing but the stated rules gives the key.
Conditions cycle by index, each adding one operation to the one before:

* ``primitive``: one verb with a direction ("dax around left");
* ``repetition``: the same with ``twice`` / ``thrice`` ("dax around left twice");
* ``conjunction``: two repeated phrases joined by ``and`` (reading order is right);
* ``after``: two repeated phrases joined by ``after``: the actions run in the reverse
  of reading order. Executing in reading order is the prepotent error (``lure``).

``conjunction`` and ``after`` items are drawn from the same distribution of phrase
pairs, so their difference isolates the order reversal. Every key has at most
``max_actions`` actions.

Gen form: an open answer, read as action words (JUMP LOOK RUN WALK LTURN RTURN, any
case) separated by spaces and/or commas; a well-formed sequence that is no choice is
wrong (-1), anything else (verbs, arrows, hedges, prose) is invalid. MC form: four
sequences, the 2 x 2 crossing of two slips of rule execution: the key, each slip
alone, and both slips together. Every option is then one slip from two others and two
slips from the third, so the key is not the option most similar to the others (as it
was with one-slip foils around it), and every foil is a sequence some command
produces. The slips:

* ``binding``: one phrase does the action of another defined verb (two phrases: the
  two verbs' actions swapped);
* ``side``: left and right swapped in one phrase;
* ``count``: twice and thrice swapped in one phrase (the phrase is "twice" or "thrice"
  at random, so the key is as often among the shorter options as among the longer);
* ``order``: the two phrases in the other order (``reversed_order`` for ``and``;
  for ``after`` the phrases in reading order, ``reading_order``: the lure).

The pairs of slips, per condition (cycled by index): ``primitive`` binding x side;
``repetition`` count x binding, count x side; ``conjunction`` and ``after`` order x
binding, order x side, order x count. Within each condition every block of four items
has the key once at each rank of the options in text order (the rank is reached by
redrawing the item); the key's position is drawn per item (version 2.1: cycled with the
rank, rank minus position was the block's index, which the block's pair of slips also
shows, and a surface detector trained on four seeds read 0.40-0.43 on repetition items).

Chance: 1/4. Effects (lower is better):

* ``composition_cost`` = acc(primitive) - acc(conjunction): the cost of composing
  phrases (Lake & Baroni's compositional generalisation);
* ``reversal_cost`` = acc(conjunction) - acc(after): the cost of executing against
  reading order;
* ``order_error_share`` = share of ``after`` errors (invalid answers included) that
  execute in reading order.

The ``prepotent`` player (always executes in reading order) scores 1, 1, 1, 0:
composition_cost 0, reversal_cost 1, order_error_share 1.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, key_place, normalize_answer

CONDITIONS = ("primitive", "repetition", "conjunction", "after")
ACTIONS = ("JUMP", "LOOK", "RUN", "WALK")
TURNS = {"left": "LTURN", "right": "RTURN"}
#: Every word an answer may use.
VOCABULARY = frozenset(ACTIONS) | frozenset(TURNS.values())
DIRECTIONS = ("left", "right", "opposite left", "opposite right", "around left", "around right")
REPEATS = {"twice": 2, "thrice": 3}
#: Options per item: the key and three foils.
OPTIONS = 4
#: Draws of an item that must put the key at its rank in text order before any rank is accepted.
RANK_DRAWS = 200
#: The two slips whose 2 x 2 combinations are the options, per condition (cycled by index).
SLIP_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {
    "primitive": (("binding", "side"),),
    "repetition": (("count", "binding"), ("count", "side")),
    "conjunction": (("order", "binding"), ("order", "side"), ("order", "count")),
    "after": (("order", "binding"), ("order", "side"), ("order", "count")),
}
#: Nonce verbs (Lake & Baroni's "dax", "fep", "wif", "lug" and kin): no English word, no action word.
VERB_BANK = (
    "dax", "wif", "lug", "zup", "fep", "blick", "kiki", "gorp", "mib", "vosk",
    "pilk", "dorp", "yim", "sorf", "nelk", "wug", "toma", "modi", "tufa", "gazzer",
)
#: Longest possible key: two "around" phrases repeated three times (8 x 3 x 2).
MOST_ACTIONS = 48
_SEPARATORS = re.compile(r"\s*,\s*|\s+")  # one comma, or blanks


@dataclass(frozen=True)
class RuleExecutionParams:
    """Attributes:
    verbs: Nonce verbs defined in each prompt (4), 2..4 (each maps to its own action).
    max_actions: Longest key in actions (24), 8..48: two repeated phrases never exceed it.
    """

    verbs: int = 4
    max_actions: int = 24

    def __post_init__(self) -> None:
        require_int("rule_execution", "verbs", self.verbs, 2)
        require_int("rule_execution", "max_actions", self.max_actions, 8)
        if self.verbs > len(ACTIONS):
            raise ValueError(f"rule_execution parameter 'verbs' must be <= {len(ACTIONS)}, got {self.verbs}")
        if self.max_actions > MOST_ACTIONS:
            raise ValueError(
                f"rule_execution parameter 'max_actions' must be <= {MOST_ACTIONS} (the longest command), "
                f"got {self.max_actions}"
            )


@dataclass(frozen=True)
class Phrase:
    """A verb's action with its direction and repetition count (1: none)."""

    action: str
    direction: str
    times: int = 1


def unit(action: str, direction: str, turn_first: bool = True) -> list[str]:
    """One execution of ``verb direction``; ``turn_first=False`` acts before turning (a foil)."""
    kind, _, side = direction.rpartition(" ")
    turns = [TURNS[side]] * (2 if kind == "opposite" else 1)
    step = turns + [action] if turn_first else [action] + turns
    return step * (4 if kind == "around" else 1)


def execute(phrases: list[Phrase], turn_first: bool = True) -> list[str]:
    """The actions of phrases run one after the other."""
    return [a for p in phrases for _ in range(p.times) for a in unit(p.action, p.direction, turn_first)]


def phrase_length(direction: str, times: int) -> int:
    return len(unit("JUMP", direction)) * times


def _flip(direction: str) -> str:
    kind, _, side = direction.rpartition(" ")
    other = "right" if side == "left" else "left"
    return f"{kind} {other}".strip()


def _replace(phrases: list[Phrase], at: int, **changes: Any) -> list[Phrase]:
    return [Phrase(**{**p.__dict__, **changes}) if k == at else p for k, p in enumerate(phrases)]


def _slip(slip: str, phrases: list[Phrase], at: int, other: str) -> list[Phrase]:
    """``phrases`` with one slip of rule execution: ``binding`` (one phrase: it does the action
    ``other``, another defined verb's; two phrases: their verbs' actions swapped), ``side`` (phrase
    ``at``'s left and right swapped), ``count`` (its twice and thrice swapped) or ``order`` (the
    phrases run in the other order)."""
    if slip == "order":
        return phrases[::-1]
    if slip == "binding" and len(phrases) == 2:
        # A swap, not a third action: with the third, the key would be the only option whose first
        # phrase does its action (the foils would start with the other phrase's, or the third).
        first, second = phrases
        return [replace(first, action=second.action), replace(second, action=first.action)]
    if slip == "binding":
        return _replace(phrases, at, action=other)
    if slip == "side":
        return _replace(phrases, at, direction=_flip(phrases[at].direction))
    return _replace(phrases, at, times=5 - phrases[at].times)  # count: twice <-> thrice


def draw_shapes(rng: np.random.Generator, condition: str, max_actions: int) -> list[tuple[str, int]]:
    """(direction, times) of each phrase in reading order, uniform over the shapes whose
    key fits ``max_actions``."""
    if condition == "primitive":
        return [(DIRECTIONS[int(rng.integers(len(DIRECTIONS)))], 1)]
    single = [(d, t) for d in DIRECTIONS for t in REPEATS.values() if phrase_length(d, t) <= max_actions]
    if condition == "repetition":
        return [single[int(rng.integers(len(single)))]]
    pairs = [(a, b) for a in single for b in single if phrase_length(*a) + phrase_length(*b) <= max_actions]
    return list(pairs[int(rng.integers(len(pairs)))])


def phrase_text(verb: str, direction: str, times: int) -> str:
    repeat = {t: w for w, t in REPEATS.items()}.get(times)
    return f"{verb} {direction}" + (f" {repeat}" if repeat else "")


RULES = (
    'Rules (V stands for the action of the verb):\n'
    '- "<verb> left" gives LTURN V (turn left, then do the action); "<verb> right" gives RTURN V.\n'
    '- "<verb> opposite left" gives LTURN LTURN V; "<verb> opposite right" gives RTURN RTURN V.\n'
    '- "<verb> around left" gives LTURN V LTURN V LTURN V LTURN V; "<verb> around right" gives '
    "RTURN V RTURN V RTURN V RTURN V.\n"
    '- A phrase is a verb with its direction words. "<phrase> twice" gives the actions of the phrase two times; '
    '"<phrase> thrice" gives them three times.\n'
    "- A command has one part, or two parts joined by \"and\" or \"after\"; a part is a phrase with its "
    "repetition word, if any.\n"
    '- "<first> and <second>" gives the actions of the first part, then those of the second part.\n'
    '- "<first> after <second>" gives the actions of the second part, then those of the first part.'
)


class RuleExecution(Probe):
    name = "rule_execution"
    ability = "rule_application"  # CogProbe's procedural rule execution: instructed rules, applied
    Params = RuleExecutionParams
    conditions = CONDITIONS
    lure_conditions = ("after",)
    version = 2.1
    effects: ClassVar[Mapping[str, tuple[str, bool]]] = {
        "composition_cost": ("difference", False),
        "reversal_cost": ("difference", False),
        "order_error_share": ("conditional_mean", False),
    }

    def item(self, rng: np.random.Generator, params: RuleExecutionParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        # Within the condition, every block of four items has the key at each rank among the options
        # in text order (e.g. LTURN before RTURN, "twice" before "thrice"); the pair of slips changes
        # from block to block; the key's position is drawn per item (below).
        j = index // len(CONDITIONS)
        rank = (j + j // OPTIONS) % OPTIONS
        slips = cycle(SLIP_PAIRS[condition], j // OPTIONS)
        for attempt in itertools.count():
            # A count slip makes two options longer or shorter: the slipped phrase is "twice" or
            # "thrice" at random (the rank cycle then balances them), not as the length limit favours.
            times = REPEATS[("twice", "thrice")[int(rng.integers(2))]] if "count" in slips else None
            names = [VERB_BANK[int(k)] for k in rng.choice(len(VERB_BANK), params.verbs, replace=False)]
            actions = [ACTIONS[int(k)] for k in rng.choice(len(ACTIONS), params.verbs, replace=False)]
            shapes = draw_shapes(rng, condition, params.max_actions)
            used = [int(k) for k in rng.choice(params.verbs, len(shapes), replace=False)]  # distinct verbs
            reading = [Phrase(actions[v], d, t) for v, (d, t) in zip(used, shapes)]
            executed = reading[::-1] if condition == "after" else reading
            places = [k for k, p in enumerate(executed) if times is None or p.times == times]
            if not places:
                continue
            at = places[int(rng.integers(len(places)))]
            others = [a for a in actions if a != executed[at].action]
            other = others[int(rng.integers(len(others)))]
            kinds, sequences = self._square(condition, slips, executed, at, other)
            texts = [" ".join(q) for q in sequences]
            # A tight max_actions may leave some rank unreachable (e.g. only "twice" phrases of two
            # actions): after RANK_DRAWS draws any rank will do.
            if len(set(texts)) == OPTIONS and (sorted(texts).index(texts[0]) == rank or attempt >= RANK_DRAWS):
                break
        rest = [int(k) + 1 for k in rng.permutation(OPTIONS - 1)]
        words = [phrase_text(names[v], d, t) for v, (d, t) in zip(used, shapes)]
        command = (" after " if condition == "after" else " and ").join(words)
        prompt = self._prompt(names, actions, command)
        # Cycled with the rank (version 2.0), rank - position was the block's index, which the
        # block's pair of slips (visible in the foils) also tells: a detector trained on four seeds
        # read 0.40-0.43 on repetition items (chance 0.25).
        position = key_place(prompt, OPTIONS)
        order = rest[:position] + [0] + rest[position:]
        return {
            "prompt": prompt,
            "choices": [" ".join(sequences[k]) for k in order],
            "gold": position,
            "condition": condition,
            "lure": order.index(kinds.index("reading_order")) if condition == "after" else -1,
            "command": command,
            "foil_kinds": [kinds[k] for k in order],
            "length": len(sequences[0]),
        }

    @staticmethod
    def _square(
        condition: str, slips: tuple[str, str], executed: list[Phrase], at: int, other: str
    ) -> tuple[list[str], list[list[str]]]:
        """(kinds, sequences) of the four options: the key, each slip alone, and both slips.

        Every option is one slip from two others and two slips from the third, so none is the
        most typical by construction (one-slip foils around the key would make it the medoid).
        """
        names = {"order": "reading_order" if condition == "after" else "reversed_order"}
        kinds, sequences = [], []
        for first, second in ((False, False), (True, False), (False, True), (True, True)):
            phrases = executed
            applied = [slip for slip, on in zip(slips, (first, second)) if on]
            for slip in sorted(applied, key=lambda x: x == "order"):  # ``at`` names a phrase before reordering
                phrases = _slip(slip, phrases, at, other)
            kinds.append("+".join(names.get(slip, slip) for slip in applied) or "key")
            sequences.append(execute(phrases))
        return kinds, sequences

    @staticmethod
    def _prompt(names: list[str], actions: list[str], command: str) -> str:
        verbs = "; ".join(f"{n} means {a}" for n, a in zip(names, actions))
        words = ", ".join([*actions, "LTURN"]) + " and RTURN"
        return (
            "Made-up verbs stand for actions, and a command is turned into a sequence of actions by the rules below.\n"
            f"Verbs: {verbs}.\n{RULES}\n"
            f"Command: {command}\n"
            f"Write the whole sequence of actions in order, separated by spaces, using only the words {words}."
        )

    def read(self, doc: Mapping[str, Any], answer: str) -> int | None:
        """Action words separated by spaces and/or commas: the choice it equals, -1 if none;
        anything else is invalid (None)."""
        text = normalize_answer(answer).upper()
        parts = _SEPARATORS.split(text) if text else []
        if not parts or any(p not in VOCABULARY for p in parts):
            return None
        sequence = " ".join(parts)
        for k, choice in enumerate(doc["choices"]):
            if choice == sequence:
                return k
        return -1

    def effect_values(self, doc: Mapping[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]


        return {
            "composition_cost": (difference_side(cond, "primitive", "conjunction"), correct),
            "reversal_cost": (difference_side(cond, "conjunction", "after"), correct),
            "order_error_share": (cond == "after" and not correct, float(pred is not None and pred == doc["lure"])),
        }


PROBE = RuleExecution()
