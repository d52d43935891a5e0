"""Wisconsin Card Sorting Test as a text environment: params, card texts, reply parsing, env.

Pure Python + numpy. The deck itself (dimensions, key cards, drawing test cards) is in
:mod:`.cards`. See ``README.md`` in this folder for the protocol, the variants and every
choice that differs from the source papers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import (
    AMBIGUOUS,
    NO_ANSWER,
    STRATEGY_INSTRUCTIONS,
    Env,
    Outcome,
    ParseFailure,
    Reading,
    Strategy,
    coerce_strategy,
    read_choice,
    require_int,
)
from lm_eval_cog.paradigms.images import IMAGE_PLACEHOLDER, TurnImage
from lm_eval_cog.paradigms.switching import CriterionSchedule
from lm_eval_cog.paradigms.wcst.cards import (
    COLOUR,
    COLOURS,
    DIMENSIONS,
    KEY_CARDS,
    N_OPTIONS,
    NUMBER,
    SHAPE,
    SHAPES,
    draw_fixed_key_cards,
    draw_per_trial_options,
    matched_dimensions,
)

# --------------------------------------------------------------------------- #
# Stimuli
# --------------------------------------------------------------------------- #

_NUMBER_WORDS = ("one", "two", "three", "four")
_PLURALS = {"triangle": "triangles", "star": "stars", "cross": "crosses", "circle": "circles"}

#: Replies are the positions of the cards a player chooses among: "1".."4".
CHOICES: tuple[str, ...] = tuple(str(i + 1) for i in range(N_OPTIONS))

#: Schedules and decks (values of ``WCSTParams.schedule`` / ``.deck``).
SCHEDULE_CRITERION = "criterion"
SCHEDULE_FIXED = "fixed"
SCHEDULES: tuple[str, ...] = (SCHEDULE_CRITERION, SCHEDULE_FIXED)
DECK_FIXED_KEYS = "fixed_keys"
DECK_PER_TRIAL = "per_trial_options"
DECKS: tuple[str, ...] = (DECK_FIXED_KEYS, DECK_PER_TRIAL)

#: Number of blocks of the fixed schedule (Reflection-Bench: each of 3 rules twice).
FIXED_BLOCKS = 6

#: Themes (values of ``WCSTParams.theme``): Hao et al.'s cards, or their ALIEN transfer.
THEME_CARDS = "cards"
THEME_ALIEN = "alien"
THEMES: tuple[str, ...] = (THEME_CARDS, THEME_ALIEN)
#: ALIEN surface values of the abstract ones (Hao et al. name the dimensions and values but not
#: which replaces which; this mapping is ours). Colour keeps its hue in brackets.
ALIEN_ORBITS: Mapping[str, str] = {"triangle": "spiral", "star": "elliptical", "cross": "Z-shaped", "circle": "circular"}
ALIEN_ATMOSPHERES: Mapping[str, str] = {
    "red": "nitrogen atmosphere (purple)",
    "green": "oxygen atmosphere (green)",
    "yellow": "helium atmosphere (yellow)",
    "blue": "hydrogen atmosphere (blue)",
}
#: Executive impairments to role-play (Hao et al. Table IV); the wording is ours.
ROLEPLAYS: Mapping[str, str] = {
    "goal_maintenance": (
        "Role-play a person with impaired goal maintenance: you have difficulty keeping the current "
        "sorting rule in mind and applying it consistently, even after it was confirmed correct."
    ),
    "inhibitory_control": (
        "Role-play a person with impaired inhibitory control: you have difficulty suppressing impulsive "
        "responses and are easily distracted by salient but irrelevant card features."
    ),
    "adaptive_updating": (
        "Role-play a person with impaired adaptive updating: when feedback shows a rule no longer works, "
        "you have difficulty switching to a new rule."
    ),
}
ROLEPLAY_CLOSING = "Stay in this role for the whole test and answer every trial in the required format."

#: Modalities (values of ``WCSTParams.modality``): cards described in words (Hao et al.'s TI), or
#: drawn, one image per trial (their VI, for vision-language models).
MODALITY_TEXT = "text"
MODALITY_IMAGE = "image"
MODALITIES: tuple[str, ...] = (MODALITY_TEXT, MODALITY_IMAGE)


def card_text(card: Mapping[str, Any]) -> str:
    """Text of a card, e.g. ``"one red triangle"``, ``"two green stars"``.

    The count is written as a word so that the only digits the model sees are
    card positions (1-4), which keeps the reply parser unambiguous.
    """
    n = int(card[NUMBER])
    shape = card[SHAPE] if n == 1 else _PLURALS[card[SHAPE]]
    return f"{_NUMBER_WORDS[n - 1]} {card[COLOUR]} {shape}"


def alien_text(card: Mapping[str, Any]) -> str:
    """ALIEN text of a card, e.g. ``"two moons, elliptical orbits, helium atmosphere (yellow)"``."""
    n = int(card[NUMBER])
    moons = "moon" if n == 1 else "moons"
    orbit = ALIEN_ORBITS[card[SHAPE]] + (" orbit" if n == 1 else " orbits")
    return f"{_NUMBER_WORDS[n - 1]} {moons}, {orbit}, {ALIEN_ATMOSPHERES[card[COLOUR]]}"


def describe(card: Mapping[str, Any], theme: str = THEME_CARDS) -> str:
    """A card's text in the theme's words."""
    return alien_text(card) if theme == THEME_ALIEN else card_text(card)


def draw_criterion_rules(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` rules: the first uniform, each next one uniform among the two other rules."""
    rules = [DIMENSIONS[int(rng.integers(len(DIMENSIONS)))]]
    while len(rules) < n:
        others = [d for d in DIMENSIONS if d != rules[-1]]
        rules.append(others[int(rng.integers(len(others)))])
    return rules[:n]


def draw_fixed_rules(rng: np.random.Generator) -> list[str]:
    """Six block rules: each rule twice, in random order, no two consecutive blocks equal."""
    base = np.array([0, 0, 1, 1, 2, 2])
    while True:
        order = rng.permutation(base)
        if all(order[i] != order[i + 1] for i in range(len(order) - 1)):
            return [DIMENSIONS[int(i)] for i in order]


# --------------------------------------------------------------------------- #
# Params
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class WCSTParams:
    """Parameters of one WCST protocol (defaults: Hao et al.'s WCST-64).

    Attributes:
        strategy: Prompting strategy (``direct``/``free``/``cot``); a string is coerced.
        trials: Number of trials (cards sorted) in an episode.
        criterion: Consecutive correct sorts that complete a category (Hao 10, Kennedy 6).
        schedule: ``"criterion"``: the rule switches, unannounced, to a different rule when a
            category is completed; ``"fixed"``: the rule changes every ``trials // 6`` trials
            regardless of performance, each rule used twice (Reflection-Bench).
        deck: ``"fixed_keys"``: Hao's four key cards and unambiguous test cards;
            ``"per_trial_options"``: four options generated per trial (Kennedy & Nowak).
        exclusivity_hint: Include Hao's sentence "There will be no combination of these
            characteristics to define the rule" (off for the Table III ablation).
        fixed_rule: ``None`` (the rule switches), or ``"shape"``/``"colour"``/``"number"``:
            one rule for the whole test (Kennedy & Nowak's component tasks, Table 1);
            categories are still counted, the rule never changes.
        announce_rule: State the fixed rule in the instructions (Kennedy & Nowak's
            component prompts); requires ``fixed_rule``.
        theme: ``"cards"``, or ``"alien"`` (Hao et al.'s transfer to an unfamiliar domain:
            orbit type / atmosphere / number of moons in place of shape / colour / number;
            same logic, the log keeps the abstract dimensions).
        roleplay: ``None`` or an executive impairment to role-play (Hao et al. Table IV):
            ``"goal_maintenance"``, ``"inhibitory_control"``, ``"adaptive_updating"``;
            the wording is ours (the paper does not publish it).
        modality: ``"text"`` (cards described in words) or ``"image"``: each trial's cards are
            drawn as one image (Hao et al.'s visual input; :mod:`.visual`), which replaces the
            card descriptions in the messages (models need lm-eval's multimodal interface).
        image_history: with ``modality="image"``, how many of the latest images stay in the
            conversation: ``None`` keeps all (Hao et al. resent the whole history, their Table VI),
            ``k`` keeps the last ``k``; an older image is replaced by a short text note. Old turns
            dropped to fit the context window take their images with them.
    """

    strategy: Strategy = Strategy.COT
    trials: int = 64
    criterion: int = 10
    schedule: str = SCHEDULE_CRITERION
    deck: str = DECK_FIXED_KEYS
    exclusivity_hint: bool = True
    fixed_rule: str | None = None
    announce_rule: bool = False
    theme: str = THEME_CARDS
    roleplay: str | None = None
    modality: str = MODALITY_TEXT
    image_history: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        object.__setattr__(self, "trials", require_int("wcst", "trials", self.trials, 1))
        object.__setattr__(self, "criterion", require_int("wcst", "criterion", self.criterion, 1))
        if self.schedule not in SCHEDULES:
            raise ValueError(
                f"wcst parameter 'schedule' must be one of {', '.join(SCHEDULES)}, got {self.schedule!r}"
            )
        if self.deck not in DECKS:
            raise ValueError(f"wcst parameter 'deck' must be one of {', '.join(DECKS)}, got {self.deck!r}")
        if not isinstance(self.exclusivity_hint, bool):
            raise ValueError(f"wcst parameter 'exclusivity_hint' must be a bool, got {self.exclusivity_hint!r}")
        if self.fixed_rule is not None and self.fixed_rule not in DIMENSIONS:
            raise ValueError(
                f"wcst parameter 'fixed_rule' must be null or one of {', '.join(DIMENSIONS)}, got {self.fixed_rule!r}"
            )
        if self.fixed_rule is not None and self.schedule == SCHEDULE_FIXED:
            raise ValueError("wcst parameter 'fixed_rule' needs schedule 'criterion' (schedule 'fixed' changes rules)")
        if not isinstance(self.announce_rule, bool):
            raise ValueError(f"wcst parameter 'announce_rule' must be a bool, got {self.announce_rule!r}")
        if self.announce_rule and self.fixed_rule is None:
            raise ValueError("wcst parameter 'announce_rule' needs 'fixed_rule' (only a fixed rule can be announced)")
        if self.theme not in THEMES:
            raise ValueError(f"wcst parameter 'theme' must be one of {', '.join(THEMES)}, got {self.theme!r}")
        if self.roleplay is not None and self.roleplay not in ROLEPLAYS:
            raise ValueError(
                f"wcst parameter 'roleplay' must be null or one of {', '.join(ROLEPLAYS)}, got {self.roleplay!r}"
            )
        self._check_modality()
        if self.schedule == SCHEDULE_FIXED and self.trials % FIXED_BLOCKS != 0:
            raise ValueError(
                f"wcst parameter 'trials' must be a multiple of {FIXED_BLOCKS} with schedule 'fixed' "
                f"(each rule used twice in equal blocks), got {self.trials!r}"
            )

    def _check_modality(self) -> None:
        if self.modality not in MODALITIES:
            raise ValueError(f"wcst parameter 'modality' must be one of {', '.join(MODALITIES)}, got {self.modality!r}")
        if self.image_history is not None:
            object.__setattr__(self, "image_history", require_int("wcst", "image_history", self.image_history, 1))
            if self.modality != MODALITY_IMAGE:
                raise ValueError("wcst parameter 'image_history' needs modality 'image' (text trials have no images)")
        if self.modality == MODALITY_IMAGE and self.theme != THEME_CARDS:
            # The images draw shapes and colours; drawing orbits and atmospheres would be another stimulus set.
            raise ValueError(f"wcst parameter 'theme' must be {THEME_CARDS!r} with modality 'image', got {self.theme!r}")

    @property
    def max_turns(self) -> int:
        """Turn cap used by :class:`~lm_eval_cog.paradigms.base.Env`: one turn per trial."""
        return self.trials

    @property
    def block_length(self) -> int:
        """Trials per rule block under the fixed schedule."""
        return self.trials // FIXED_BLOCKS


PRESETS: Mapping[str, WCSTParams] = {
    # Hao et al.: WCST-64, switch after 10 consecutive correct, fixed key cards.
    "wcst64": WCSTParams(),
    # Kennedy & Nowak: 25 trials, switch after 6, four options generated per trial.
    "kennedy": WCSTParams(trials=25, criterion=6, deck=DECK_PER_TRIAL),
    # Reflection-Bench (easy): 72 trials, rule changes every 12 trials; identifiable
    # key cards instead of theirs (which hold two 1s and no 3). Criterion 10 only
    # defines categories / streak metrics.
    "reflection_bench": WCSTParams(trials=72, criterion=10, schedule=SCHEDULE_FIXED),
    # Reflection-Bench hard: 90 trials, the rule changes every 15 trials.
    "reflection_bench_hard": WCSTParams(trials=90, criterion=10, schedule=SCHEDULE_FIXED),
}


# --------------------------------------------------------------------------- #
# Reply parsing
# --------------------------------------------------------------------------- #

_COLOUR_RE = "|".join(COLOURS)
_SHAPE_RE = "|".join(SHAPES)
_NUMWORD_RE = "|".join(_NUMBER_WORDS)
# Characters that join two numbers into one expression: decimals and lists (. ,), times
# (:), fractions (/ and NFKC's fraction slash), ranges (hyphen, en/em dash, minus).
_JOINERS = r".,:/\-\u2013\u2014\u2212\u2044"
# A digit 1-4 that stands alone: not part of a word ("x2", "3rd"), of a longer, signed or
# decimal number ("12", "-2", "+2", "0.3", ".3"), of a range, time, list or fraction
# ("1-4", "4-5", "2:30", "1,2", "1/4") or of a percentage ("2%"). A hyphen after a letter
# is a word's, not a sign ("card-2" is card 2). The lookbehinds follow the digit (and
# include it), so they run only where a digit 1-4 is: linear time, and fast.
_STANDALONE_DIGIT = (
    rf"[1-4](?<![\w.,][1-4])(?<!\d[{_JOINERS}][1-4])(?<![+\u00b1\u2212][1-4])(?<!(?<![^\W\d_])-[1-4])"
    rf"(?![\w%\u00b0]|[{_JOINERS}]\d)"
)
# "[two ]green star(s)" / "[2 ]green stars": a (possibly counted) description of a card.
_DESCRIPTION = re.compile(
    rf"\b(?:(?:(?P<d>{_STANDALONE_DIGIT})|(?P<w>{_NUMWORD_RE}))\s+)?"
    rf"(?P<c>{_COLOUR_RE})\s+(?P<s>{_SHAPE_RE})(?:e?s)?\b",
    re.IGNORECASE,
)
# "card two", "option three", "card #two" (number words only after card/option).
# One optional "#" between blanks: never two quantifiers over the same blanks.
_CARD_WORD = re.compile(rf"\b(?:card|option|system)\s*(?:#\s*)?(?P<n>{_NUMWORD_RE})\b", re.IGNORECASE)
# A standalone digit 1-4 ("2", "Card 3", "**4**", "(3)", "2.", "Card 2:").
_DIGIT = re.compile(rf"(?P<n>{_STANDALONE_DIGIT})")


def find_choices(text: str, options: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """Every mention of a card in ``text`` as ``(position, option index 0-3)``.

    A mention is

    * a standalone digit 1-4 ("2", "Card 3", "**4**", "Answer: 1"), never a digit of a
      number expression: "12", "-2", "0.3", "1-4", "4-5", "2:30", "1,2", "1/4", "3rd", "2%";
    * "card"/"option" followed by a number word ("card two");
    * a description naming exactly one option: colour + shape, optionally with a
      count ("green stars", "two green stars"); when a count is given it must
      agree with that option. Digits or number words inside a description are
      counts, never card numbers.

    Descriptions of the test card never match: by construction no option shares
    both its colour and its shape with the test card. Linear in ``len(text)``.
    """
    found: list[tuple[int, int]] = []
    # Descriptions do not overlap and come in order, so their starts and ends both
    # increase: a span overlaps one iff it overlaps the last description starting before its end.
    starts: list[int] = []
    ends: list[int] = []
    for m in _DESCRIPTION.finditer(text):
        starts.append(m.start())
        ends.append(m.end())
        colour, shape = m.group("c").lower(), m.group("s").lower()
        hits = [k for k, o in enumerate(options) if o[COLOUR] == colour and o[SHAPE] == shape]
        if m.group("d") is not None or m.group("w") is not None:
            n = int(m.group("d")) if m.group("d") is not None else _NUMBER_WORDS.index(m.group("w").lower()) + 1
            hits = [k for k in hits if options[k][NUMBER] == n]
        if len(hits) == 1:
            found.append((m.start(), hits[0]))

    def free(start: int, end: int) -> bool:
        i = bisect.bisect_left(starts, end) - 1
        return i < 0 or ends[i] <= start

    for m in _CARD_WORD.finditer(text):
        if free(*m.span("n")):
            found.append((m.start(), _NUMBER_WORDS.index(m.group("n").lower())))
    for m in _DIGIT.finditer(text):
        if free(*m.span("n")):
            found.append((m.start(), int(m.group("n")) - 1))
    return sorted(found)


def read_reply(reply: str, strategy: Strategy, options: Sequence[Mapping[str, Any]]) -> Reading:
    """The chosen option index (0-3) or a :class:`ParseFailure`, and how it was read."""
    return read_choice(reply, strategy, lambda text: find_choices(text, options))


def parse_reply(
    reply: str, strategy: Strategy, options: Sequence[Mapping[str, Any]]
) -> int | ParseFailure:
    """The chosen option index (0-3) from a raw reply, or a :class:`ParseFailure`."""
    return read_reply(reply, strategy, options).value


# --------------------------------------------------------------------------- #
# Messages
# --------------------------------------------------------------------------- #

RULE_SENTENCE = (
    "The correct match depends on a rule, which will be based solely on either the number of "
    "shapes, the color of the shapes, or the shape type itself."
)
EXCLUSIVITY_SENTENCE = "There will be no combination of these characteristics to define the rule."

FEEDBACK_CORRECT = "Correct!"
FEEDBACK_INCORRECT = "Incorrect."
#: Feedback for an unreadable reply, selected by the :class:`ParseFailure` code.
FEEDBACK_INVALID: Mapping[str, str] = {
    NO_ANSWER: "Your reply could not be read: answer with the number of one card, 1-4.",
    AMBIGUOUS: "Your reply named more than one card: answer with the number of one card, 1-4.",
}
CLOSING = "That was the last card. The test is over."


#: Hao et al.'s rule sentence transposed to the ALIEN theme (ours; the paper does not print it).
ALIEN_RULE_SENTENCE = (
    "The correct match depends on a rule, which will be based solely on either the number of moons, "
    "the atmospheric composition, or the orbit type itself."
)
#: Kennedy & Nowak's component-task instructions per announced rule (their code's wording).
ANNOUNCED_RULE: Mapping[str, str] = {
    SHAPE: "Match the card to the option that has the same shape.",
    COLOUR: "Match the card to the option that has the same color.",
    NUMBER: "Match the card to the option that has the same number of shapes.",
}
ALIEN_ANNOUNCED_RULE: Mapping[str, str] = {
    SHAPE: "Match the system to the option that has the same orbit type.",
    COLOUR: "Match the system to the option that has the same atmospheric composition.",
    NUMBER: "Match the system to the option that has the same number of moons.",
}


#: What each image shows, by deck (ours: Hao et al. do not print their visual instructions).
IMAGE_INSTRUCTIONS: Mapping[str, str] = {
    DECK_FIXED_KEYS: (
        "Each trial is shown as an image: the four key cards in the top row, labelled Card 1 to Card 4, "
        "and your card in the bottom row."
    ),
    DECK_PER_TRIAL: (
        "Each trial is shown as an image: four option cards in the top row, labelled Option 1 to Option 4, "
        "and your card in the bottom row."
    ),
}
#: The question of a visual trial, by deck; the image goes where the placeholder is (ours).
IMAGE_QUESTIONS: Mapping[str, str] = {
    DECK_FIXED_KEYS: f"{IMAGE_PLACEHOLDER}\nWhich key card does your card match? Answer with its number.",
    DECK_PER_TRIAL: f"{IMAGE_PLACEHOLDER}\nWhich option does your card match? Answer with its number.",
}


def system_prompt(params: WCSTParams) -> str:
    """Task instructions (adapted from Hao et al. and Kennedy & Nowak, Appendix A)."""
    alien = params.theme == THEME_ALIEN
    item, items = ("system", "systems") if alien else ("card", "cards")
    lines = []
    if params.roleplay is not None:
        lines.append(f"{ROLEPLAYS[params.roleplay]} {ROLEPLAY_CLOSING}")
    if alien:
        lines.append(
            "You are exploring an alien civilization and categorizing extraterrestrial astronomical systems, "
            "in a version of the Wisconsin Card Sorting Test."
        )
    else:
        lines.append("You are performing the Wisconsin Card Sorting Test.")
    if params.modality == MODALITY_IMAGE:
        lines.append(IMAGE_INSTRUCTIONS[params.deck])
    if params.deck == DECK_FIXED_KEYS and params.modality == MODALITY_IMAGE:
        lines.append("In each trial you are shown a new card and must match it to one of the four key cards.")
    elif params.deck == DECK_FIXED_KEYS:
        lines.append("There are four key systems:" if alien else "There are four key cards on the table:")
        lines += [f"{item.capitalize()} {k + 1}: {describe(c, params.theme)}" for k, c in enumerate(KEY_CARDS)]
        lines.append(f"In each trial you are shown a new {item} and must match it to one of the four key {items}.")
    else:
        lines.append(
            f"In each trial you are shown a {item} and four option {items}, numbered 1 to 4, "
            f"and must match your {item} to one of the four options."
        )
    if params.announce_rule:
        lines.append((ALIEN_ANNOUNCED_RULE if alien else ANNOUNCED_RULE)[params.fixed_rule])
        lines.append("After each answer you are told whether it was correct or incorrect.")
    else:
        rule = ALIEN_RULE_SENTENCE if alien else RULE_SENTENCE
        if params.exclusivity_hint:
            rule += " " + EXCLUSIVITY_SENTENCE
        lines.append(rule)
        lines.append(
            "You are not told the rule. After each answer you are told whether it was correct or incorrect. "
            "If your match was incorrect, try a different rule; if it was correct, keep that rule. "
            "The rule may change during the test without warning."
        )
    lines.append(f"Your choice is the number of one {item}, 1-4. " + STRATEGY_INSTRUCTIONS[params.strategy])
    return "\n".join(lines)


def stimulus_text(params: WCSTParams, card: Mapping[str, Any], options: Sequence[Mapping[str, Any]]) -> str:
    """The question of one trial (with ``modality="image"``: the image placeholder and the question)."""
    if params.modality == MODALITY_IMAGE:
        return IMAGE_QUESTIONS[params.deck]
    item = "system" if params.theme == THEME_ALIEN else "card"
    if params.deck == DECK_FIXED_KEYS:
        return (
            f"Your {item}: {describe(card, params.theme)}.\n"
            f"Which key {item} does it match? Answer with its number."
        )
    lines = [f"Your {item}: {describe(card, params.theme)}.", "Options:"]
    lines += [f"Option {k + 1}: {describe(o, params.theme)}" for k, o in enumerate(options)]
    lines.append(f"Which option does your {item} match? Answer with its number.")
    return "\n".join(lines)


# --------------------------------------------------------------------------- #
# Environment
# --------------------------------------------------------------------------- #


class WCSTEnv(Env):
    """Wisconsin Card Sorting Test.

    Description:
        The model sorts ``params.trials`` cards, one per turn, to one of four cards by an
        undisclosed rule (colour, shape or number) that it must infer from "correct" /
        "incorrect" feedback. The rule changes without warning: after ``criterion``
        consecutive correct sorts (``schedule="criterion"``, Hao et al. Algorithm 1) or every
        ``trials // 6`` trials (``schedule="fixed"``, Reflection-Bench).

    Reply format:
        The number of one card, 1-4 (see :func:`find_choices`); with ``cot``/``free`` a final
        ``Answer: <n>`` line. Unreadable or ambiguous replies are ``invalid`` trials.

    Messages:
        Turn 1: the first card (and its options for ``per_trial_options``). Each later
        message: feedback on the previous reply and the next card. After the last trial:
        the closing feedback only.

    Scoring:
        A sort is correct iff the chosen card matches the test card on the rule in force
        for that trial. The answer that completes a category is checked against the rule
        in force before the switch (it is correct); the switch applies from the next trial.
        One record per trial is appended to ``self.log``; see ``scoring.wcst_metrics``.

    Episode end:
        ``terminated`` after trial ``params.trials``; never truncated (``max_turns == trials``).

    Arguments:
        params: :class:`WCSTParams`.

    References:
        Hao et al., WCST for VLLMs (Algorithm 1, eqs. 1-6); Kennedy & Nowak (2024);
        Reflection-Bench (A.3).

    Version history:
        v1: first version.

    Example:
        >>> env = WCSTEnv(PRESETS["wcst64"])
        >>> message, info = env.reset(seed=0)
        >>> message.startswith("Your card:")
        True
        >>> message, terminated, truncated, info = env.step("Answer: 1")
        >>> env.log[0]["trial"], env.log[0]["outcome"] in ("correct", "error")
        (1, True)
    """

    name = "wcst"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: WCSTParams = self.params
        rng = self.rng
        if rng is None:  # pragma: no cover - Env.reset sets it before calling _reset
            raise RuntimeError("WCSTEnv._reset() called outside reset()")
        # Everything is drawn up front, in a fixed order, so stimuli depend on the seed only.
        if p.schedule == SCHEDULE_CRITERION:
            rules = draw_criterion_rules(rng, p.trials // p.criterion + 1)
        else:
            rules = draw_fixed_rules(rng)
        if p.fixed_rule is not None:
            # Drawn as above all the same, so the cards equal the switching test's on the same seed.
            rules = [p.fixed_rule]
        if p.deck == DECK_FIXED_KEYS:
            self._cards = draw_fixed_key_cards(rng, p.trials)
            self._options = [[dict(k) for k in KEY_CARDS] for _ in range(p.trials)]
        else:
            pairs = [draw_per_trial_options(rng) for _ in range(p.trials)]
            self._cards = [c for c, _ in pairs]
            self._options = [o for _, o in pairs]
        # Hao's Algorithm 1: the run c of consecutive correct sorts completes a category at the
        # criterion; the criterion schedule then switches the rule (a fixed rule never does).
        switches = p.schedule == SCHEDULE_CRITERION and p.fixed_rule is None
        self._schedule = CriterionSchedule(rules, p.criterion, switches)
        self.system_prompt = system_prompt(p)
        info = self._info(next_trial=1, last_outcome=None, last_choice=None)
        return stimulus_text(p, self._cards[0], self._options[0]), info

    def _info(self, next_trial: int, last_outcome: str | None, last_choice: int | None) -> dict[str, Any]:
        """What agents may see: the stimulus, never the rule."""
        done = next_trial > self.params.trials
        i = next_trial - 1
        return {
            "choices": list(CHOICES),
            "card": None if done else dict(self._cards[i]),
            "options": None if done else [dict(o) for o in self._options[i]],
            "trial": next_trial,
            "last_outcome": last_outcome,
            "last_choice": last_choice,
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: WCSTParams = self.params
        trial = len(self.log) + 1
        i = trial - 1
        card, options = self._cards[i], self._options[i]
        rule, previous_rule = self._schedule.rule, self._schedule.previous

        reading = read_reply(reply, p.strategy, options)
        parsed = reading.value
        if isinstance(parsed, ParseFailure):
            choice, invalid, matched = None, parsed.code, None
            outcome = Outcome.INVALID
            feedback = FEEDBACK_INVALID[parsed.code]
        else:
            choice, invalid = int(parsed), None
            dims = matched_dimensions(card, options[choice])
            matched = dims[0] if dims else None  # at most one with unambiguous decks
            outcome = Outcome.CORRECT if rule in dims else Outcome.ERROR
            feedback = FEEDBACK_CORRECT if outcome is Outcome.CORRECT else FEEDBACK_INCORRECT

        # Hao's Algorithm 1: any non-correct selection resets c; reaching the criterion completes
        # a category (recorded as c = criterion) and resets c. A switch applies from the next
        # trial: this answer was scored above.
        streak, completed = self._schedule.count(outcome)
        self.log.append(
            {
                "trial": trial,
                "rule": rule,
                "previous_rule": previous_rule,
                "card": dict(card),
                "options": [dict(o) for o in options],
                "choice": choice,
                "invalid": invalid,
                "parse": reading.path.value,
                "matched": matched,
                "outcome": outcome.value,
                "streak": streak,
                "category_completed": completed,
                "feedback": feedback,
            }
        )
        if p.schedule == SCHEDULE_FIXED and trial % p.block_length == 0 and trial < p.trials:
            # c counts consecutive correct sorts under the rule in force (as in Algorithm 1,
            # where c is reset whenever the rule changes).
            self._schedule.switch()

        terminated = trial >= p.trials
        info = self._info(next_trial=trial + 1, last_outcome=outcome.value, last_choice=choice)
        if terminated:
            return f"{feedback}\n\n{CLOSING}", True, info
        return f"{feedback}\n\n{stimulus_text(p, self._cards[trial], self._options[trial])}", False, info

    def turn_image(self) -> TurnImage | None:
        """The image of the trial the current message asks about (``modality="image"``), drawn
        only when :meth:`TurnImage.render` is called; None in text mode and after the last trial."""
        i = len(self.log)
        if self.params.modality != MODALITY_IMAGE or not self._reset_called or i >= self.params.trials:
            return None
        card, options = self._cards[i], self._options[i]
        per_trial = self.params.deck == DECK_PER_TRIAL
        # Imported here: Pillow is needed only when pixels are (text runs never import it).
        from lm_eval_cog.paradigms.wcst.visual import render_trial

        return TurnImage(shows={"trial": i + 1}, draw=lambda: render_trial(card, options, per_trial_options=per_trial))

    @property
    def current_rule(self) -> str:
        """The rule in force for the next trial (for tests and debugging; never shown to agents)."""
        if not self._reset_called:
            raise RuntimeError("WCSTEnv.current_rule read before reset()")
        return self._schedule.rule

