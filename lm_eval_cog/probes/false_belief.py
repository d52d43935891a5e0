"""False-belief stories, ToMi style (Le et al., 2019; Wimmer & Perner, 1983; Baron-Cohen et al., 1985).

A story: 2-3 agents (names from a bank), k containers (3-4 by default) in one room and
two objects. Every agent enters and the object of the questions is in one container;
then agent B moves it k - 1 times, through every other container, while the protagonist
A watches some of the moves and misses others: A's departures and returns fall between
the moves (a third agent C may stay, leave before the last move or after it). Agents see
exactly the events that happen while they are in the room, and see who else is there.
Last, B (who knows where the object is) puts a second object in one container and moves
it through all the others, in a random order: every container is then named
as often as any other (once in the room's description, once by each object) and the
order in which the containers were last named is random, so that "the first / last /
most often named container" is the key of no question more often than chance (the
listing sentence names them in a random order too).

What A sees (``seen``, cycled by story so that A's belief is each earlier location
equally often): with k - 1 = 2 moves A misses the last move having seen neither move
(belief: the start) or the first only (the first stop); with 3 moves also the first two,
or the second only (the second stop). The true-belief version of the story is its
minimal pair after Ullman (2023): one event of A displaced so that A sees the last move
(A's last departure moved just after it, or A's return just before it, ``variant``), so
A has then seen both moves, or the last one only (the reverse), as it falls.

A story with k containers has 2k questions, consecutive documents (``story``; ``questions``
= 2k), one condition each:

* ``first_order_false``: "Where will A look for the ball?" -> where A last saw it; the
  lure is the true location (the reality-based prepotent answer);
* ``first_order_true``: the same question on the true-belief version; key = the true
  location;
* ``second_order_false``: "Where does P think that Q will look for the ball?" for a pair
  whose second-order belief (the location after the last move both P and Q watched) is
  neither the true location (the lure) nor where Q last saw the ball: P's false belief about
  Q's belief (Perner & Wimmer, 1985), so that Q's own belief does not answer it;
* ``reality``: "Where is the ball really?";
* ``memory``: where the ball was at a stop before the last ("at the beginning", "after it was
  moved the first time", "before it was moved the second time", ...), 2k - 4 questions: the
  controls of ToMi (the story's facts were followed), one or two per earlier stop, so that
  **every container of the story is the key of exactly two of its 2k questions**.

Why (version 3; issue 28): with version 2's five questions per story (two keyed by the true
location), "always the object's last location" (reality bias: Mitchell, Robinson, Isaacs & Nye,
1996; curse of knowledge: Birch & Bloom, 2007) scored 0.40 pooled against a chance of 0.29.
Now the true location, the first location and each other stop are each the key of 2 of the 2k
questions, so any strategy that answers one stop of the object's path (the last, the first, ...)
scores exactly 1/k on the headline; so, within a point, does answering where the person asked about
last saw the object (the first-order answer to every question: right on the two first-order
questions, and on a memory question only where the protagonist is a third agent). The declared
heuristics (:attr:`FalseBelief.heuristics`) are these three and the most-named container (every
container is named equally often: no basis). Where reality bias is
the tested error (the false-belief questions), the headline does not reward it; the conditions
and effects report it. The price: memory questions are 2k - 4 of a story's 2k (3 of 7 documents at
3 and 4 containers), so ``acc`` is partly a memory score; the theory-of-mind readings are
``acc_first_order_false``, ``acc_second_order_false``, ``false_belief_effect`` and
``joint_false_belief``. Each condition fixes the role of its key (the reality question is always
the true location), so the shortcut audit pools all of them into one cell (``audit_cells``).

Options: the story's containers, in a random order shared by the story's questions.

Effects (sign: positive = a reality bias):

* ``false_belief_effect`` = acc(first_order_true) - acc(first_order_false);
* ``joint_false_belief``: share of complete stories (all their documents present) whose
  first-order false-belief question *and* its reality and memory controls are all right;
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
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from lm_eval_cog.paradigms.base import episode_seed, require_int, require_probability
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes._false_belief_banks import CONTAINERS, NAMES, OBJECTS, ROOMS
from lm_eval_cog.probes.aggregations import difference_side
from lm_eval_cog.probes.core import Probe, normalize_answer
from lm_eval_cog.stderr import mean_stderr, with_stderr

CONDITIONS = ("first_order_false", "first_order_true", "second_order_false", "reality", "memory")
#: The questions of a story before its memory questions, in order (question numbers 0-3).
FIXED_QUESTIONS = CONDITIONS[:4]
#: Memory questions name the stop by the move before or after it.
ORDINALS = ("first", "second", "third", "fourth", "fifth")
#: What a third agent does: watches throughout, leaves before the last move, or after it.
THIRD_AGENT_ROLES = ("stays", "leaves_early", "leaves_late")
#: How the true-belief version differs from the false-belief one (one event displaced).
VARIANTS = ("late_leave", "reentry")
MAX_CONTAINERS = 6
#: Stories drawn before a task gives up on a new one (a repeat is rare).
MAX_STORY_DRAWS = 200
T = TypeVar("T")

#: An event: (kind, agent, thing, destination). Kinds: enter, leave, start (the object of the
#: questions is in a container: everybody present sees it), put (an agent puts the second object
#: in a container), move. ``thing`` is "object" (the object of the questions) or "other".
Event = tuple[str, str, str, str]


@dataclass(frozen=True)
class FalseBeliefParams:
    """Attributes:
    min_containers: Fewest containers in a story, 2.. (3); the object moves once fewer
        times than there are containers (a 2-container story has one move).
    max_containers: Most containers in a story, min_containers..6 (4).
    three_agents: Probability of a third agent (0.5).
    """

    min_containers: int = 3
    max_containers: int = 4
    three_agents: float = 0.5

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


# -- belief tracking ----------------------------------------------------------------------


def track(events: Sequence[Event]) -> tuple[str, str, dict[str, str], dict[tuple[str, str], str]]:
    """Simulate the story for the object of the questions: (start location, true location,
    first-order beliefs per agent, second-order beliefs per (thinker, target)). An agent updates
    on the moves it watches; P's belief about Q's belief updates on the moves both watch (P sees
    Q in the room). The second object's events change no belief about it."""
    present: set[str] = set()
    start = where = ""
    first: dict[str, str] = {}
    second: dict[tuple[str, str], str] = {}
    for kind, agent, thing, dst in events:
        if kind == "enter":
            present.add(agent)
        elif kind == "leave":
            present.discard(agent)
        elif thing == "object":  # start or move: everybody present sees where it now is
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
    other: str  # the second object
    containers: list[str]  # in the order of the room's description
    options: list[str]  # the same, in the order of the choices
    path: list[str]  # the object's locations: the start, then after each move
    agents: list[str]  # [A (false belief), B (mover), C (third, optional)]
    false_events: list[Event]
    true_events: list[Event]
    seen: tuple[bool, ...]  # which moves A watches in the false-belief story
    variant: str
    third_role: str
    pair: tuple[str, str]  # (thinker, target) of the second-order question
    memory: list[tuple[int, int]]  # the memory questions: (stop, wording 0 or 1), in order


def _pick(rng: np.random.Generator, bank: Sequence[str], k: int) -> list[str]:
    return [bank[int(j)] for j in rng.choice(len(bank), size=k, replace=False)]


def _shuffled(rng: np.random.Generator, items: Sequence[T]) -> list[T]:
    return [items[int(j)] for j in rng.permutation(len(items))]


def _placed(rng: np.random.Generator, items: Sequence[str], item: str, at: int) -> list[str]:
    """``items`` in a random order with ``item`` at position ``at``."""
    rest = _shuffled(rng, [x for x in items if x != item])
    return rest[:at] + [item] + rest[at:]


def story_design(params: FalseBeliefParams, story: int) -> tuple[int, int, str, int]:
    """(containers, belief stop, variant, cycle count) of story number ``story``, by construction.

    The number of containers cycles over the parameters' range; within each (``u`` = the story's
    count among those with as many containers) the stop where A last saw the object (0 = the start,
    j = after move j) cycles over every stop before the last, and the true-belief variant
    alternates within each stop. ``u`` also places the true location in the order of the room's
    description, of the second object's path and of the choices (see :func:`make_story`).
    """
    n_k = params.max_containers - params.min_containers + 1
    k = params.min_containers + story % n_k
    u = story // n_k
    moves = k - 1
    return k, u % moves, VARIANTS[(u // moves) % len(VARIANTS)], u


def story_size(params: FalseBeliefParams, story: int) -> int:
    """Questions of story number ``story``: 2k for its k containers (each container the key of two)."""
    return 2 * story_design(params, story)[0]


def locate(params: FalseBeliefParams, index: int) -> tuple[int, int]:
    """(story, question number) of document ``index``: stories follow one another, each with its
    :func:`story_size` questions (the container counts cycle, so a cycle of stories has a fixed size)."""
    n_k = params.max_containers - params.min_containers + 1
    per_cycle = sum(story_size(params, j) for j in range(n_k))
    story, rest = n_k * (index // per_cycle), index % per_cycle
    while rest >= story_size(params, story):
        rest -= story_size(params, story)
        story += 1
    return story, rest


def memory_questions(rng: np.random.Generator, moves: int, keyed: Sequence[int]) -> list[tuple[int, int]]:
    """The memory questions of a story, as (stop, wording): every stop before the last is asked
    2 - (how many of ``keyed``, the stops of the false-belief keys, it is) times, so that with the two
    questions keyed by the true location every container is the key of exactly two questions. A stop
    asked twice gets both wordings, once: one drawn at random."""
    out = []
    for stop in range(moves):
        times = 2 - sum(k == stop for k in keyed)
        wordings = [0, 1] if times == 2 else [int(rng.integers(2))] if times == 1 else []
        out += [(stop, w) for w in wordings]
    return out


def seen_pattern(moves: int, stop: int, alone: bool) -> tuple[bool, ...]:
    """Which moves A watches in the false-belief story, A's belief being the object's location
    after move ``stop``: the first ``stop`` moves, or (``alone``, from stop 2) move ``stop`` only;
    never the last."""
    if alone and stop >= 2:
        return tuple(i == stop for i in range(1, moves + 1))
    return tuple(i <= stop for i in range(1, moves + 1))


def make_story(rng: np.random.Generator, params: FalseBeliefParams, story: int = 0) -> Story:
    """Story family number ``story``; every draw happens whatever the question, so the five
    documents drawn from the same story seed tell the same story."""
    k, stop, variant, u = story_design(params, story)
    moves = k - 1
    n_agents = 3 if rng.random() < params.three_agents else 2
    agents = _pick(rng, NAMES, n_agents)
    room = ROOMS[int(rng.integers(len(ROOMS)))]
    obj, other = _pick(rng, OBJECTS, 2)
    path = _pick(rng, CONTAINERS, k)  # the object visits every container once
    truth = path[-1]
    # The true location's place in the description, the second object's path and the choices
    # cycles with u (each over k, shifted by one every k stories); the other containers fall at random.
    containers = _placed(rng, path, truth, (u + u // k) % k)
    other_path = _placed(rng, path, truth, u % k)
    options = _placed(rng, path, truth, (u + u // k + u // k**2) % k)
    third_role = THIRD_AGENT_ROLES[int(rng.integers(len(THIRD_AGENT_ROLES)))] if n_agents == 3 else "none"
    seen = seen_pattern(moves, stop, bool(rng.integers(2)))
    a, b = agents[0], agents[1]

    events: list[Event] = [("enter", name, "", "") for name in _shuffled(rng, agents)]
    events.append(("start", "", "object", path[0]))
    present = True
    for i, dst in enumerate(path[1:], 1):
        before: list[Event] = []
        if present != seen[i - 1]:
            before.append(("leave" if present else "enter", a, "", ""))
            present = seen[i - 1]
        if i == moves and third_role == "leaves_early":
            before.append(("leave", agents[2], "", ""))
        events += _shuffled(rng, before) + [("move", b, "object", dst)]
    after: list[Event] = [("enter", a, "", "")] if variant == "reentry" else []
    if third_role == "leaves_late":
        after.append(("leave", agents[2], "", ""))
    events += _shuffled(rng, after)
    false_events = events + _other_object(b, other_path)
    critical = ("move", b, "object", truth)
    true_events = _true_version(false_events, critical, a, variant)

    _, truth, first, second = track(false_events)
    # P's false belief about Q's belief: neither the truth nor Q's own belief ((A, B) always qualifies:
    # A missed the last move, B made it), so "where Q last saw it" does not answer the question.
    pairs = [(p, q) for p in agents for q in agents if p != q and second[(p, q)] not in (truth, first[q])]
    pair = pairs[int(rng.integers(len(pairs)))]
    memory = memory_questions(rng, moves, [path.index(first[a]), path.index(second[pair])])
    return Story(room, obj, other, containers, options, path, agents, false_events, true_events, seen, variant,
                 third_role, pair, memory)


def _other_object(mover: str, other_path: Sequence[str]) -> list[Event]:
    """The second object's events, after everything else: the mover, who knows where the object
    of the questions is, puts it in the first container of ``other_path`` and moves it through the
    others in turn. Nobody else handles the containers, so that nobody could have seen the object
    of the questions while doing it (another reading would give another answer)."""
    return [("put", mover, "other", other_path[0])] + [("move", mover, "other", dst) for dst in other_path[1:]]


def _true_version(events: list[Event], critical: Event, a: str, variant: str) -> list[Event]:
    """The minimal pair of the false-belief story: one event of A displaced so that A
    watches the last move (A's last departure moved just after it, or A's return just
    before it); the sentences are the same, only their order differs."""
    kind = "leave" if variant == "late_leave" else "enter"
    k = max(j for j, e in enumerate(events) if e[:2] == (kind, a))  # A's last departure / return
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
    for kind, agent, thing, dst in events:
        name = story.obj if thing == "object" else story.other
        if kind == "enter":
            lines.append(f"{agent} entered the {story.room}.")
        elif kind == "leave":
            lines.append(f"{agent} left the {story.room}.")
        elif kind == "start":
            lines.append(f"The {name} is in the {dst}.")
        elif kind == "put":
            lines.append(f"{agent} put a {name} in the {dst}.")
        else:
            lines.append(f"{agent} moved the {name} to the {dst}.")
    return lines


def condition_of(question: int) -> str:
    """The condition of a story's question number ``question`` (4 on: memory)."""
    return FIXED_QUESTIONS[question] if question < len(FIXED_QUESTIONS) else "memory"


def memory_text(obj: str, stop: int, wording: int) -> str:
    """Where the object was at ``stop`` (0: the start), named by the move after it or before it."""
    if wording == 1:
        return f"Where was the {obj} before it was moved the {ORDINALS[stop]} time?"
    if stop == 0:
        return f"Where was the {obj} at the beginning?"
    return f"Where was the {obj} after it was moved the {ORDINALS[stop - 1]} time?"


def question_text(story: Story, question: int) -> str:
    a, obj = story.agents[0], story.obj
    condition = condition_of(question)
    if condition in ("first_order_false", "first_order_true"):
        return f"Where will {a} look for the {obj}?"
    if condition == "second_order_false":
        return f"Where does {story.pair[0]} think that {story.pair[1]} will look for the {obj}?"
    if condition == "reality":
        return f"Where is the {obj} really?"
    return memory_text(obj, *story.memory[question - len(FIXED_QUESTIONS)])


def _answer(story: Story, question: int) -> str:
    condition = condition_of(question)
    events = story.true_events if condition == "first_order_true" else story.false_events
    _, truth, first, second = track(events)
    if condition == "memory":
        return story.path[story.memory[question - len(FIXED_QUESTIONS)][0]]
    return {
        "first_order_false": first[story.agents[0]],
        "first_order_true": first[story.agents[0]],
        "second_order_false": second[story.pair],
        "reality": truth,
    }[condition]


# -- declared heuristics: read from the prompt's text alone ----------------------------------

_ENTER = re.compile(r"^(\w+) entered the \w+\.$")
_LEAVE = re.compile(r"^(\w+) left the \w+\.$")
_START = re.compile(r"^The (\w+) is in the (\w+)\.$")
_MOVE = re.compile(r"^\w+ moved the (\w+) to the (\w+)\.$")
_FIRST_Q = re.compile(r"^Question: Where will (\w+) look for the \w+\?$", re.MULTILINE)
_SECOND_Q = re.compile(r"^Question: Where does \w+ think that (\w+) will look for the \w+\?$", re.MULTILINE)


def _read_story(stem: str) -> tuple[list[tuple[str, set[str]]], str | None] | None:
    """The asked object's locations in story order, each with who was in the room to see it
    (the start, then each move), and the agent whose search the question asks about (None if the
    question names none); None if the stem is not a story."""
    parts = stem.split("\n\n")
    if len(parts) < 3:
        return None
    lines = parts[1].split("\n")
    starts = [m for line in lines if (m := _START.match(line))]
    if len(starts) != 1:
        return None
    obj = starts[0].group(1)
    present: set[str] = set()
    seen: list[tuple[str, set[str]]] = []
    for line in lines:
        if m := _ENTER.match(line):
            present.add(m.group(1))
        elif m := _LEAVE.match(line):
            present.discard(m.group(1))
        elif (m := _START.match(line) or _MOVE.match(line)) and m.group(1) == obj:
            seen.append((m.group(2), set(present)))
    asked = _FIRST_Q.search(stem) or _SECOND_Q.search(stem)
    return seen, asked.group(1) if asked else None


def _one_hot(options: Sequence[str], location: str) -> list[float]:
    return [float(o == location) for o in options]


def reality_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Reality bias (Mitchell et al. 1996) / the curse of knowledge (Birch & Bloom 2007): the object's
    true, last location, whatever the question."""
    read = _read_story(stem)
    return _one_hot(options, read[0][-1][0]) if read else None


def first_location_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The object's first location, whatever the question (the original location, Wimmer & Perner 1983)."""
    read = _read_story(stem)
    return _one_hot(options, read[0][0][0]) if read else None


def looker_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """Where the person the question asks about last saw the object (the looker of a first- or
    second-order question; else the protagonist, the first agent who leaves the room): a first-order
    answer to every question (Wimmer & Perner 1983; Perner & Wimmer 1985)."""
    read = _read_story(stem)
    if read is None:
        return None
    seen, looker = read
    if looker is None:
        leavers = [m.group(1) for line in stem.split("\n\n")[1].split("\n") if (m := _LEAVE.match(line))]
        if not leavers:
            return None
        looker = leavers[0]
    watched = [where for where, present in seen if looker in present]
    return _one_hot(options, watched[-1]) if watched else None


def most_named_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    """The container the story names most often (story statistics that answer ToM-bAbi questions
    without tracking beliefs: Le, Boureau & Nickel 2019)."""
    parts = stem.split("\n\n")
    if len(parts) < 2:
        return None
    words = Counter(re.findall(r"[a-z]+", parts[1]))
    return [float(words[o]) for o in options]


class FalseBelief(Probe):
    name = "false_belief"
    ability = "theory_of_mind"
    version = 3.0
    Params = FalseBeliefParams
    conditions = CONDITIONS
    lure_conditions = ("first_order_false", "second_order_false")
    #: Each condition fixes its key's role (reality: the true location; first-order true: the true
    #: location too), so reality bias is right or wrong there by design: the audit pools the
    #: conditions, where every stop of the object's path is the key of 2 of a story's 2k questions.
    audit_cells: ClassVar[dict[str, str]] = {c: "stories" for c in CONDITIONS}
    heuristics = (
        Heuristic("reality_bias", "Mitchell, Robinson, Isaacs & Nye 1996; Birch & Bloom 2007 (the true location)",
                  reality_scores),
        Heuristic("first_location", "Wimmer & Perner 1983 (the object's original location, for every question)",
                  first_location_scores),
        Heuristic("looker_last_saw", "Wimmer & Perner 1983; Perner & Wimmer 1985 (where the person asked "
                  "about last saw it: a first-order answer to every question)", looker_scores),
        Heuristic("most_named", "Le, Boureau & Nickel 2019 (story statistics answer ToM-bAbi without beliefs)",
                  most_named_scores),
    )
    effects: ClassVar[dict[str, tuple[str, bool]]] = {
        "false_belief_effect": ("difference", False),
        "joint_false_belief": ("lm_eval_cog.probes.false_belief.joint_false_belief", True),
        "reality_error_share": ("conditional_mean", False),
    }

    def generate(self, seed: int, n: int, params: Any = None) -> list[dict[str, Any]]:
        """As :meth:`Probe.generate`, except that :meth:`item` draws from the seed of its
        story's first document, so the 2k questions of a story share it (a story that repeats
        an earlier one is drawn again from the same generator); document i still depends only
        on (``seed``, i) and the documents before it, and its ``seed`` field (the reference
        players' randomness) stays its own."""
        seed = require_int("metadata", "seed", seed, 0)
        n = require_int("metadata", "items", n, 1)
        params = self.make_params() if params is None else params
        docs = []
        seen: set[str] = set()
        state: dict[str, Any] = {}
        for index in range(n):
            story, question = locate(params, index)
            if question == 0:
                state = self._new_story(episode_seed(seed, index), params, story, seen)
            rng = np.random.default_rng()
            rng.bit_generator.state = state
            body = self.item(rng, params, index)
            doc = {"probe": self.name, "index": index, "seed": episode_seed(seed, index), **body}
            self.check_doc(doc)
            docs.append(doc)
        return docs

    def _new_story(self, story_seed: int, params: FalseBeliefParams, story: int, seen: set[str]) -> dict[str, Any]:
        """The generator state from which story ``story`` is drawn: the story seed's, advanced past
        any story that tells an earlier story again."""
        rng = np.random.default_rng(story_seed)
        for _ in range(MAX_STORY_DRAWS):
            state = rng.bit_generator.state
            told = "\n".join(narrate(drawn := make_story(rng, params, story), drawn.false_events))
            if told not in seen:
                seen.add(told)
                return state
        raise ValueError(
            f"{self.name}: story {story} repeats an earlier story in {MAX_STORY_DRAWS} draws; ask for fewer items"
        )

    def item(self, rng: np.random.Generator, params: FalseBeliefParams, index: int) -> dict[str, Any]:
        """Question ``q`` of story ``s`` (:func:`locate`), drawn from ``rng`` (the story's generator)."""
        number, q = locate(params, index)
        condition = condition_of(q)
        story = make_story(rng, params, number)
        events = story.true_events if condition == "first_order_true" else story.false_events
        question = question_text(story, q)
        prompt = (
            "Read the story and answer the question with one of the containers.\n\n"
            + "\n".join(narrate(story, events))
            + f"\n\nQuestion: {question}\nOptions: {', '.join(story.options)}."
        )
        answer = _answer(story, q)
        truth = track(events)[1]
        lured = condition in self.lure_conditions
        return {
            "prompt": prompt,
            "choices": list(story.options),
            "gold": story.options.index(answer),
            "condition": condition,
            "lure": story.options.index(truth) if lured else -1,
            "story": number,
            "questions": 2 * len(story.containers),
            "question": question,
            "memory_stop": story.memory[q - len(FIXED_QUESTIONS)][0] if condition == "memory" else -1,
            "agents": list(story.agents),
            "moves": len(story.path) - 1,
            "seen": [bool(s) for s in story.seen],
            "variant": story.variant,
            "third_agent": story.third_role,
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
            "joint_false_belief": (int(doc["story"]), cond, correct, int(doc["questions"])),
            "reality_error_share": (lured_error, float(pred == doc["lure"])),
        }


def _joint_per_story(items: Sequence[tuple[int, str, float, int]]) -> list[float]:
    """1/0 per complete story (as many documents as its ``questions``): its first-order false-belief,
    reality and memory questions all right."""
    stories: dict[int, list[tuple[str, float]]] = {}
    size: dict[int, int] = {}
    for story, condition, correct, questions in items:
        stories.setdefault(int(story), []).append((str(condition), float(correct)))
        size[int(story)] = int(questions)
    complete = [s for k, s in stories.items() if len(s) == size[k]]
    controls = ("first_order_false", "reality", "memory")
    return [float(all(correct == 1.0 for condition, correct in s if condition in controls)) for s in complete]


@with_stderr(lambda items: mean_stderr(_joint_per_story(items)))
def joint_false_belief(items: Sequence[tuple[int, str, float, int]]) -> float:
    """Share of stories whose first-order false-belief, reality and memory questions are
    all right, over items ``(story, condition, correct, questions of the story)``; only complete
    stories count (``--limit`` may cut the last one); NaN if none is complete.
    Its standard error is over stories (the unit that is sampled), not questions."""
    joint = _joint_per_story(items)
    return sum(joint) / len(joint) if joint else math.nan


PROBE = FalseBelief()
