"""Cued letter-number task switching (Rogers & Monsell, 1995): apply the cued task set.

Each trial shows a cue (``LETTER`` or ``NUMBER``) and a letter-number pair such as
``G7``. LETTER: is the letter a vowel (A, E, I, U) or a consonant (G, K, M, R)?
NUMBER: is the number even (2, 4, 6, 8) or odd (3, 5, 7, 9)? The two answers of each
task are mapped to two arbitrary response words drawn per item (e.g. vowel -> "lamp",
consonant -> "river"; even -> "river", odd -> "lamp"), so a task set must be applied,
not a category named. The prompt states both rules (in every condition), shows ``k``
earlier trials of the block with their cues, stimuli and correct responses, then the
target trial; the options are the two response words (chance 1/2).

Conditions (cycle by index):

* ``single``: pure block, every trial of the history has the target's task;
* ``repeat``: mixed block, the target's cue is the previous trial's cue;
* ``switch``: mixed block, the target's cue differs from the previous trial's.

Fields (also balanced by index): ``congruency`` (``congruent``: both tasks give the
same response word to the target stimulus; ``incongruent``: they differ) and
``cueing`` of mixed blocks (``predictable``: alternating runs AABB as Rogers &
Monsell's; ``random``: each cue drawn at random; ``none`` in pure blocks).
The lure is the response the *previous trial's task* gives when it differs from the
key: only on incongruent switch trials (on single and repeat trials the previous
task is the right one).

Counterbalanced by index within each condition (each in half the items, every
combination within 32 blocks of 12 items): the key is the first option; the key is the
first response word the rules name; the key is the last history trial's response; the
key is the more frequent response of the history (never a tie); the key comes first in
alphabetical order. The target shares neither its letter nor its number with a history trial
(version 3; issue 28: copying the response of the last trial with the same letter scored 0.61),
so no earlier response can be retrieved for it. Declared heuristics
(:attr:`TaskSwitch.heuristics`): ``response_repetition`` and ``episodic_retrieval``, at chance. The response words all have five letters. So neither the options'
order, length or spelling nor the place and number of their mentions tells the key.

Effects (accuracy versions of the reaction-time costs; Monsell, 2003; Kiesel et al., 2010):

* ``switch_cost`` = acc(repeat) - acc(switch) (> 0: switching costs accuracy);
* ``mixing_cost`` = acc(single) - acc(repeat) (> 0: holding two task sets costs);
* ``congruency_effect`` = acc(congruent) - acc(incongruent) (> 0: the other task's
  response interferes);
* ``lure_share`` = share of switch-trial errors that give the previous task's
  response (random errors: 1/2, since congruent switch errors cannot be lures).

A player that applies the previous trial's task (the ``prepotent`` player) scores
switch_cost 0.5, mixing_cost 0, congruency_effect 1/3 and lure_share 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lm_eval_cog.paradigms.base import require_int
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.aggregations import NEITHER, SIDE_A, SIDE_B
from lm_eval_cog.probes.core import Probe, cycle

CONDITIONS = ("single", "repeat", "switch")
CONGRUENCIES = ("congruent", "incongruent")
CUEINGS = ("predictable", "random")
LETTER, NUMBER = "letter", "number"
TASKS = (LETTER, NUMBER)
CUES = {LETTER: "LETTER", NUMBER: "NUMBER"}
# Rogers & Monsell's (1995) stimulus sets.
VOWELS, CONSONANTS = "AEIU", "GKMR"
EVENS, ODDS = "2468", "3579"
#: Response words: common, unrelated to letters, numbers and each other, all of five letters
#: (so that no response is the longer one).
RESPONSE_WORDS = ("lemon", "river", "north", "south", "apple", "stone", "cloud", "piano", "tiger", "maple")
#: Subsets of the bits of the block counter t whose parities set the counterbalanced properties:
#: independent over GF(2), so over 32 blocks every combination comes once, and all contain
#: bit 0, so each property is balanced in every two consecutive blocks.
_MASKS = {"key_first_option": 1, "key_first_named": 3, "key_last_response": 5, "key_more_responses": 9,
          "key_first_alphabetically": 17}
#: Largest history: enough for a block, short enough for any context window.
MAX_HISTORY = 20


@dataclass(frozen=True)
class TaskSwitchParams:
    """Attributes:
    min_history: Fewest earlier trials shown, >= 3 (6): a mixed block then always
        shows both tasks.
    max_history: Most earlier trials shown, min_history..20 (10); k is uniform in between.
    """

    min_history: int = 6
    max_history: int = 10

    def __post_init__(self) -> None:
        require_int("task_switch", "min_history", self.min_history, 3)
        require_int("task_switch", "max_history", self.max_history, 3)
        if not self.min_history <= self.max_history <= MAX_HISTORY:
            raise ValueError(
                f"task_switch parameter 'max_history' must be in min_history..{MAX_HISTORY} "
                f"({self.min_history}..{MAX_HISTORY}), got {self.max_history}"
            )


def category(task: str, stimulus: str) -> int:
    """0 or 1: the answer of ``task`` to a stimulus such as ``"G7"`` (0: vowel / even)."""
    if task == LETTER:
        return 0 if stimulus[0] in VOWELS else 1
    return 0 if stimulus[1] in EVENS else 1


def _rule(words: list[str], first: str, first_set: str, second: str, second_set: str) -> str:
    """E.g. 'a vowel (A, E, I, U) -> "lamp", a consonant (G, K, M, R) -> "river"'."""
    return f'{first} ({", ".join(first_set)}) -> "{words[0]}", {second} ({", ".join(second_set)}) -> "{words[1]}"'


def _draw_stimulus(rng: np.random.Generator) -> str:
    return "".join(pool[int(rng.integers(len(pool)))] for pool in (VOWELS + CONSONANTS, EVENS + ODDS))


def balance_bits(index: int) -> dict[str, bool]:
    """The counterbalanced properties of item ``index`` (see :data:`_MASKS`): a new combination
    every 12 items, after the condition (3), congruency (2) and cueing (2) cycles."""
    t = index // 12
    return {name: bin(t & mask).count("1") % 2 == 0 for name, mask in _MASKS.items()}


def target_stimulus(rng: np.random.Generator, responses: dict[str, list[str]], target: str, answer: str,
                    congruent: bool, history: list[str]) -> str | None:
    """A stimulus that ``target`` answers with ``answer`` and the other task answers alike
    (``congruent``) or not, whose letter and number are both absent from ``history`` (so no earlier
    trial's response can be copied by its letter or its number: "the response of the last trial with
    the same letter" scored 0.61 on version 2; issue 28); None if the history leaves none."""
    used_letters, used_numbers = {h[0] for h in history}, {h[1] for h in history}
    fits = [
        letter + number
        for letter in VOWELS + CONSONANTS if letter not in used_letters
        for number in EVENS + ODDS if number not in used_numbers
    ]
    fits = [
        stim for stim in fits
        if responses[target][category(target, stim)] == answer
        and (responses[LETTER][category(LETTER, stim)] == responses[NUMBER][category(NUMBER, stim)]) == congruent
    ]
    return fits[int(rng.integers(len(fits)))] if fits else None


def history_stimuli(rng: np.random.Generator, responses: dict[str, list[str]], tasks: list[str], answer: str,
                    last_is_answer: bool, answer_more: bool) -> list[str]:
    """Stimuli of the history trials: the last trial's response is the key iff ``last_is_answer``,
    and the key is the more frequent response iff ``answer_more`` (never a tie)."""
    while True:
        stimuli = [_draw_stimulus(rng) for _ in tasks]
        said = [responses[task][category(task, stim)] for task, stim in zip(tasks, stimuli)]
        mine = said.count(answer)
        if (said[-1] == answer) == last_is_answer and 2 * mine != len(said) and (2 * mine > len(said)) == answer_more:
            return stimuli


def _mixed_tasks(rng: np.random.Generator, k: int, condition: str, cueing: str, target: str) -> list[str]:
    """Tasks of the k history trials of a mixed block ending in a ``condition`` target."""
    other = NUMBER if target == LETTER else LETTER
    last = target if condition == "repeat" else other
    if cueing == "predictable":
        # Alternating runs of two (AABB...): the target is the second trial of its run
        # on a repeat, the first on a switch; going back, the runs alternate tasks.
        position = 1 if condition == "repeat" else 0
        tasks = []
        for back in range(1, k + 1):
            run = (position - back) // 2  # 0: the target's run, -1: the run before, ...
            tasks.append(target if run % 2 == 0 else other)
        return tasks[::-1]
    while True:
        tasks = [TASKS[int(rng.integers(2))] for _ in range(k - 1)] + [last]
        if len(set(tasks)) == 2:  # a mixed block shows both tasks
            return tasks


_TRIAL = re.compile(r"^Trial \d+: (?:LETTER|NUMBER) (\w\d) -> (\w+|\?)$", re.MULTILINE)


def _trials(stem: str) -> tuple[list[tuple[str, str]], str] | None:
    """(the earlier trials as (stimulus, response), the target stimulus) of a prompt."""
    trials = _TRIAL.findall(stem)
    if not trials or trials[-1][1] != "?":
        return None
    return trials[:-1], trials[-1][0]


def repetition_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Response repetition (Rogers & Monsell, 1995; Schuch & Koch, 2004): give the previous trial's response."""
    found = _trials(stem)
    if found is None or not found[0]:
        return None
    return [float(o == found[0][-1][1]) for o in options]


def retrieval_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Episodic retrieval (Logan, 1988; Waszak, Hommel & Allport, 2003): give the response of the last
    earlier trial that shares the target's letter or number; None where none does."""
    found = _trials(stem)
    if found is None:
        return None
    earlier, target = found
    same = [response for stim, response in earlier if stim[0] == target[0] or stim[1] == target[1]]
    return [float(o == same[-1]) for o in options] if same else None


class TaskSwitch(Probe):
    name = "task_switch"
    ability = "flexibility"
    Params = TaskSwitchParams
    conditions = CONDITIONS
    lure_conditions = ("switch",)
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "switch_cost": ("difference", False),
        "mixing_cost": ("difference", False),
        "congruency_effect": ("difference", False),
        "lure_share": ("conditional_mean", False),
    }
    version = 3.0
    heuristics = (
        Heuristic("response_repetition", "Rogers & Monsell 1995; Schuch & Koch 2004 (repeat the last response)",
                  repetition_scores),
        Heuristic("episodic_retrieval", "Logan 1988; Waszak, Hommel & Allport 2003 (the response a seen stimulus got)",
                  retrieval_scores),
    )

    def item(self, rng: np.random.Generator, params: TaskSwitchParams, index: int) -> dict[str, Any]:
        condition = cycle(CONDITIONS, index)
        congruency = cycle(CONGRUENCIES, index // len(CONDITIONS))
        cueing = "none" if condition == "single" else cycle(CUEINGS, index // (2 * len(CONDITIONS)))
        bits = balance_bits(index)
        k = int(rng.integers(params.min_history, params.max_history + 1))
        target = TASKS[int(rng.integers(2))]
        if condition == "single":
            tasks = [target] * k
        else:
            tasks = _mixed_tasks(rng, k, condition, cueing, target)
        # words[0] is named first (the letter rule's vowel response); the key is words[0] in
        # half the items, and the alphabetically first word in half of them.
        pair = sorted(RESPONSE_WORDS[int(i)] for i in rng.choice(len(RESPONSE_WORDS), 2, replace=False))
        answer, other = pair if bits["key_first_alphabetically"] else pair[::-1]
        words = [answer, other] if bits["key_first_named"] else [other, answer]
        # responses[task][category]: the letter task maps vowel -> words[0], consonant ->
        # words[1]; the number task maps even -> words[0] or words[1] at random.
        flip = int(rng.integers(2))
        responses = {LETTER: words, NUMBER: words[::-1] if flip else list(words)}
        # The target stimulus has the item's congruency and shares neither its letter nor its number
        # with a history trial, so no earlier response can be copied (a history that leaves no such
        # stimulus is redrawn).
        stimulus = None
        while stimulus is None:
            history = history_stimuli(rng, responses, tasks, answer, bits["key_last_response"], bits["key_more_responses"])
            stimulus = target_stimulus(rng, responses, target, answer, congruency == "congruent", history)
        choices = [answer, other] if bits["key_first_option"] else [other, answer]
        previous = tasks[-1]
        prepotent = responses[previous][category(previous, stimulus)]
        lines = [
            "Task switching. Each trial shows a cue and a letter-number pair.",
            f"If the cue is LETTER, classify the letter: {_rule(responses[LETTER], 'a vowel', VOWELS, 'a consonant', CONSONANTS)}.",
            f"If the cue is NUMBER, classify the number: {_rule(responses[NUMBER], 'an even number', EVENS, 'an odd number', ODDS)}.",
            "Earlier trials of this block, with their correct responses:",
        ]
        lines += [
            f"Trial {t + 1}: {CUES[task]} {stim} -> {responses[task][category(task, stim)]}"
            for t, (task, stim) in enumerate(zip(tasks, history))
        ]
        lines += [
            f"Trial {k + 1}: {CUES[target]} {stimulus} -> ?",
            f"What is the correct response to trial {k + 1}? Options: {', '.join(choices)}.",
        ]
        return {
            "prompt": "\n".join(lines),
            "choices": choices,
            "gold": choices.index(answer),
            "condition": condition,
            "lure": choices.index(prepotent) if prepotent != answer else -1,
            "congruency": congruency,
            "cueing": cueing,
            "task": target,
            "previous_task": previous,
            "stimulus": stimulus,
            "history": k,
        }

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]

        def side(a: bool, b: bool) -> int:
            return SIDE_A if a else SIDE_B if b else NEITHER

        return {
            "switch_cost": (side(cond == "repeat", cond == "switch"), correct),
            "mixing_cost": (side(cond == "single", cond == "repeat"), correct),
            "congruency_effect": (side(doc["congruency"] == "congruent", doc["congruency"] == "incongruent"), correct),
            "lure_share": (cond == "switch" and not correct, float(doc["lure"] != -1 and pred == doc["lure"])),
        }


PROBE = TaskSwitch()
