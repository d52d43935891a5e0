"""False-belief stories, ToMi style (Le et al., 2019; Wimmer & Perner, 1983; Baron-Cohen et al., 1985).

A story: 2-3 agents (names from a bank) and 2-4 containers in one room; every agent
enters, the object is in container X, and then (optionally) a *distractor* move while
everyone watches, the departure of agent A (and maybe of a third agent C, before or
after the move), the *critical move* of the object by agent B, and (optionally) A
re-entering after the move, which does not show A the past move. Agents see exactly
the events that happen while they are in the room, and see who else is there.

The five questions of one story are consecutive documents (``index // 5`` is the
story, ``index % 5`` the question), one condition each:

* ``first_order_false``: "Where will A look for the ball?" -> where A last saw it; the
  lure is the true location (the reality-based prepotent answer);
* ``first_order_true``: the true-belief control after Ullman (2023): the same story and
  question with one event displaced so that A witnesses the critical move (A leaves
  only after it, or re-enters before it); key = the true location;
* ``second_order_false``: "Where does P think that Q will look for the ball?" for a pair
  whose second-order belief (the location after the last move both P and Q watched) is
  not the true location, which is the lure;
* ``reality``: "Where is the ball really?"; ``memory``: "Where was the ball at the
  beginning?" (the controls of ToMi: the story's facts were followed).

Options: the story's containers, in a random order shared by the five questions.

Effects (sign: positive = a reality bias):

* ``false_belief_effect`` = acc(first_order_true) - acc(first_order_false);
* ``joint_false_belief``: share of complete stories (all five documents present) whose
  first-order false-belief question *and* its reality and memory controls are right;
  the reading of a false-belief success that rules out a reader who lost track of the
  story (Le et al., 2019, whose ToMi stories carry the same controls);
* ``reality_error_share``: share of false-belief errors (first and second order) that
  name the true location.

The ``prepotent`` player answers the true location: false_belief_effect 1,
joint_false_belief 0, reality_error_share 1. Chance: 1/k for k containers (mean over
documents, ``acc_chance``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from lm_eval_cog.paradigms.base import episode_seed, require_int, require_probability
from lm_eval_cog.probes._false_belief_banks import CONTAINERS, NAMES, OBJECTS, ROOMS
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, cycle, normalize_answer

CONDITIONS = ("first_order_false", "first_order_true", "second_order_false", "reality", "memory")
QUESTIONS_PER_STORY = len(CONDITIONS)
#: What a third agent does: watches throughout, leaves before the critical move, or after it.
THIRD_AGENT_ROLES = ("stays", "leaves_early", "leaves_late")
#: How the true-belief version differs from the false-belief one (one event displaced).
VARIANTS = ("late_leave", "reentry")
MAX_CONTAINERS = 6
T = TypeVar("T")

#: An event: (kind, agent, source, destination); kinds enter, leave, start (the object
#: is in a container: everybody present sees it), move.
Event = tuple[str, str, str, str]


@dataclass(frozen=True)
class FalseBeliefParams:
    """Attributes:
    min_containers: Fewest containers in a story, 2.. (2).
    max_containers: Most containers in a story, min_containers..6 (4).
    three_agents: Probability of a third agent (0.5).
    distractor: Probability of a distractor move everybody watches before A leaves
        (0.5); needs at least 3 containers, so that it leaves three distinct locations.
    """

    min_containers: int = 2
    max_containers: int = 4
    three_agents: float = 0.5
    distractor: float = 0.5

    def __post_init__(self) -> None:
        require_int("false_belief", "min_containers", self.min_containers, 2)
        require_int("false_belief", "max_containers", self.max_containers, 2)
        if self.max_containers > MAX_CONTAINERS:
            raise ValueError(f"false_belief parameter 'max_containers' must be <= {MAX_CONTAINERS}, got {self.max_containers}")
        if self.max_containers < self.min_containers:
            raise ValueError(
                f"false_belief parameter 'max_containers' must be >= min_containers ({self.min_containers}), "
                f"got {self.max_containers}"
            )
        require_probability("false_belief", "three_agents", self.three_agents)
        require_probability("false_belief", "distractor", self.distractor)
        if self.distractor > 0 and self.max_containers < 3:
            raise ValueError("false_belief parameter 'distractor' must be 0 when max_containers < 3 (it needs 3 containers)")


# -- belief tracking ----------------------------------------------------------------------


def track(events: Sequence[Event]) -> tuple[str, str, dict[str, str], dict[tuple[str, str], str]]:
    """Simulate the story: (start location, true location, first-order beliefs per agent,
    second-order beliefs per (thinker, target)). An agent updates on the moves it watches;
    P's belief about Q's belief updates on the moves both watch (P sees Q in the room)."""
    present: set[str] = set()
    start = where = ""
    first: dict[str, str] = {}
    second: dict[tuple[str, str], str] = {}
    for kind, agent, _, dst in events:
        if kind == "enter":
            present.add(agent)
        elif kind == "leave":
            present.discard(agent)
        else:  # start or move: everybody present sees where the object now is
            start = start or dst
            where = dst
            first.update({a: dst for a in present})
            second.update({(p, q): dst for p in present for q in present if p != q})
    return start, where, first, second


# -- story ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Story:
    room: str
    obj: str
    containers: list[str]  # in the story's order of mention
    options: list[str]  # the same, in the order of the choices
    agents: list[str]  # [A (false belief), B (mover), C (third, optional)]
    false_events: list[Event]
    true_events: list[Event]
    variant: str
    third_role: str
    distractor: bool
    pair: tuple[str, str]  # (thinker, target) of the second-order question


def _pick(rng: np.random.Generator, bank: Sequence[str], k: int) -> list[str]:
    return [bank[int(j)] for j in rng.choice(len(bank), size=k, replace=False)]


def _other(rng: np.random.Generator, containers: Sequence[str], not_this: str) -> str:
    rest = [c for c in containers if c != not_this]
    return rest[int(rng.integers(len(rest)))]


def _shuffled(rng: np.random.Generator, items: Sequence[T]) -> list[T]:
    return [items[int(j)] for j in rng.permutation(len(items))]


def make_story(rng: np.random.Generator, params: FalseBeliefParams) -> Story:
    """One story family; every draw happens whatever the question, so the five
    documents drawn from the same story seed tell the same story."""
    n_containers = int(rng.integers(params.min_containers, params.max_containers + 1))
    n_agents = 3 if rng.random() < params.three_agents else 2
    agents = _pick(rng, NAMES, n_agents)
    room = ROOMS[int(rng.integers(len(ROOMS)))]
    obj = OBJECTS[int(rng.integers(len(OBJECTS)))]
    containers = _pick(rng, CONTAINERS, n_containers)
    options = [containers[int(j)] for j in rng.permutation(n_containers)]
    distractor = n_containers >= 3 and rng.random() < params.distractor
    variant = VARIANTS[int(rng.integers(len(VARIANTS)))]
    third_role = THIRD_AGENT_ROLES[int(rng.integers(len(THIRD_AGENT_ROLES)))] if n_agents == 3 else "none"
    a, b = agents[0], agents[1]

    events: list[Event] = [("enter", name, "", "") for name in _shuffled(rng, agents)]
    where = containers[int(rng.integers(n_containers))]
    events.append(("start", "", "", where))
    if distractor:
        mover = agents[int(rng.integers(n_agents))]
        dst = _other(rng, containers, where)
        events.append(("move", mover, where, dst))
        where = dst
    before: list[Event] = [("leave", a, "", "")]
    after: list[Event] = [("enter", a, "", "")] if variant == "reentry" else []
    if third_role == "leaves_early":
        before.append(("leave", agents[2], "", ""))
    elif third_role == "leaves_late":
        after.append(("leave", agents[2], "", ""))
    critical = ("move", b, where, _other(rng, containers, where))
    false_events = events + _shuffled(rng, before) + [critical] + _shuffled(rng, after)
    true_events = _true_version(false_events, critical, a, variant)

    _, truth, _, second = track(false_events)
    pairs = [(p, q) for p in agents for q in agents if p != q and second[(p, q)] != truth]
    pair = pairs[int(rng.integers(len(pairs)))]
    return Story(room, obj, containers, options, agents, false_events, true_events, variant, third_role, distractor, pair)


def _true_version(events: list[Event], critical: Event, a: str, variant: str) -> list[Event]:
    """The minimal pair of the false-belief story: one event of A displaced so that A
    watches the critical move (A's departure moved just after it, or A's return just
    before it); the sentences are the same, only their order differs."""
    kind = "leave" if variant == "late_leave" else "enter"
    k = max(j for j, e in enumerate(events) if e[:2] == (kind, a))  # A's only leave / return
    rest = events[:k] + events[k + 1 :]
    c = rest.index(critical) + (1 if variant == "late_leave" else 0)
    return rest[:c] + [events[k]] + rest[c:]


# -- text ---------------------------------------------------------------------------------


def _listing(words: Sequence[str]) -> str:
    items = [f"a {w}" for w in words]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def narrate(story: Story, events: Sequence[Event]) -> list[str]:
    """The story's sentences: the containers, then one sentence per event."""
    lines = [f"The {story.room} contains {_listing(story.containers)}."]
    for kind, agent, src, dst in events:
        if kind == "enter":
            lines.append(f"{agent} entered the {story.room}.")
        elif kind == "leave":
            lines.append(f"{agent} left the {story.room}.")
        elif kind == "start":
            lines.append(f"The {story.obj} is in the {dst}.")
        else:
            lines.append(f"{agent} moved the {story.obj} from the {src} to the {dst}.")
    return lines


def question_text(story: Story, condition: str) -> str:
    a, obj = story.agents[0], story.obj
    if condition in ("first_order_false", "first_order_true"):
        return f"Where will {a} look for the {obj}?"
    if condition == "second_order_false":
        return f"Where does {story.pair[0]} think that {story.pair[1]} will look for the {obj}?"
    if condition == "reality":
        return f"Where is the {obj} really?"
    return f"Where was the {obj} at the beginning?"


def _answer(story: Story, condition: str) -> str:
    events = story.true_events if condition == "first_order_true" else story.false_events
    start, truth, first, second = track(events)
    return {
        "first_order_false": first[story.agents[0]],
        "first_order_true": first[story.agents[0]],
        "second_order_false": second[story.pair],
        "reality": truth,
        "memory": start,
    }[condition]


class FalseBelief(Probe):
    name = "false_belief"
    ability = "theory_of_mind"
    Params = FalseBeliefParams
    conditions = CONDITIONS
    lure_conditions = ("first_order_false", "second_order_false")
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "false_belief_effect": ("difference", False),
        "joint_false_belief": ("lm_eval_cog.probes.false_belief.joint_false_belief", True),
        "reality_error_share": ("conditional_mean", False),
    }

    def generate(self, seed: int, n: int, params: Any = None) -> list[dict[str, Any]]:
        """As :meth:`Probe.generate`, except that :meth:`item` draws from the seed of its
        story's first document, so the five questions of a story share it; document i
        still depends only on (``seed``, i), and its ``seed`` field (the reference
        players' randomness) stays its own."""
        seed = require_int("metadata", "seed", seed, 0)
        n = require_int("metadata", "items", n, 1)
        params = self.make_params() if params is None else params
        docs = []
        for index in range(n):
            story_seed = episode_seed(seed, index - index % QUESTIONS_PER_STORY)
            body = self.item(np.random.default_rng(story_seed), params, index)
            doc = {"probe": self.name, "index": index, "seed": episode_seed(seed, index), **body}
            self.check_doc(doc)
            docs.append(doc)
        return docs

    def item(self, rng: np.random.Generator, params: FalseBeliefParams, index: int) -> dict[str, Any]:
        """Question ``index % 5`` of the story drawn from ``rng`` (the story's generator)."""
        condition = cycle(CONDITIONS, index)
        story = make_story(rng, params)
        events = story.true_events if condition == "first_order_true" else story.false_events
        question = question_text(story, condition)
        prompt = (
            "Read the story and answer the question with one of the containers.\n\n"
            + "\n".join(narrate(story, events))
            + f"\n\nQuestion: {question}\nOptions: {', '.join(story.options)}."
        )
        answer = _answer(story, condition)
        truth = track(events)[1]
        lured = condition in self.lure_conditions
        return {
            "prompt": prompt,
            "choices": list(story.options),
            "gold": story.options.index(answer),
            "condition": condition,
            "lure": story.options.index(truth) if lured else -1,
            "story": index // QUESTIONS_PER_STORY,
            "question": question,
            "agents": list(story.agents),
            "variant": story.variant,
            "third_agent": story.third_role,
            "distractor": bool(story.distractor),
            "true_location": truth,
        }

    def read(self, doc: dict[str, Any], answer: str) -> int | None:
        """A closed set of containers; "the box" and "in the box" read as "box"."""
        wanted = normalize_answer(answer)
        for prefix in ("in the ", "the "):
            wanted = wanted.removeprefix(prefix)
        for k, choice in enumerate(doc["choices"]):
            if normalize_answer(choice) == wanted:
                return k
        return None

    def effect_values(self, doc: dict[str, Any], pred: int | None) -> dict[str, Any]:
        correct = float(pred == doc["gold"])
        cond = doc["condition"]
        side = difference_side(cond, "first_order_true", "first_order_false")
        lured_error = cond in self.lure_conditions and not correct
        return {
            "false_belief_effect": (side, correct),
            "joint_false_belief": (int(doc["story"]), cond, correct),
            "reality_error_share": (lured_error, float(pred == doc["lure"])),
        }


def joint_false_belief(items: Sequence[tuple[int, str, float]]) -> float:
    """Share of stories whose first-order false-belief, reality and memory questions are
    all right, over items ``(story, condition, correct)``; only stories with all five
    questions count (``--limit`` may cut the last one); NaN if none is complete."""
    stories: dict[int, dict[str, float]] = {}
    for story, condition, correct in items:
        stories.setdefault(int(story), {})[str(condition)] = float(correct)
    complete = [s for s in stories.values() if set(s) == set(CONDITIONS)]
    if not complete:
        return math.nan
    joint = [all(s[c] == 1.0 for c in ("first_order_false", "reality", "memory")) for s in complete]
    return sum(joint) / len(joint)


PROBE = FalseBelief()
