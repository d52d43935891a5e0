"""Visual-accuracy probe of the visual WCST (Hao et al., Appendix E, eqs. 7-10, Table II).

The model is shown one trial image and asked to describe every card. Hao et al. scored,
"for each trial, [...] their ability to correctly identify the presence of five cards and
accurately describe the color, shape, and number of symbols on each card", over 64 trials:

    (7)  ACC_count   = sum_i I(c_i = 5) / 64 x 100%
    (8)  ACC_feature = sum_i sum_j I(f_ij = f*_ij) / (64 x 5) x 100%,  feature in {color, shape, number}
    (9)  P           = sum_i 0.5 x max(0, c_i - 5) / 64 x 100%
    (10) ACC_overall = ACC_count + sum_feature ACC_feature - P

**Eq. 10 as printed cannot give Table II's "Overall" column**: a perfect description scores
100 + 3 x 100 - 0 = 400, and Claude's row (100 everywhere) reads 100. The item-weighted form,
over the 16 items of a trial (1 count + 5 cards x 3 features), with 0.5 item deducted per extra
card,

    ACC_overall = (ACC_count + 5 x sum_feature ACC_feature - P) / 16,

reproduces all three rows exactly (Gemini (75 + 5 x 297.81 - 12.5)/16 = 96.97, i.e. 16 extra
cards; GPT-4o (0 + 5 x 296.56 - 50)/16 = 89.55, i.e. 64 extra cards, "almost always
misidentified 5 cards as 6"; Claude 100). It is reported as ``acc_overall``; the literal eq. 10
as ``acc_overall_eq10`` (400 for a perfect description).

Every value below is per image (document) and linear in its indicators, so the mean over the
64 documents that lm-eval takes is exactly eqs. 7-10.

The prompt is ours (Hao et al.'s, Fig. s-3, is not in the paper). Cards are matched by
position: "Card 1".."Card 4" are the top row left to right, "Card 5" the bottom card; a card
not described is wrong on all three features, extra lines are ignored; ``c_i`` is the number
on the "Cards: N" line (no such line: the count is wrong, no penalty).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.paradigms.base import agent_rng, episode_seed
from lm_eval_cog.paradigms.images import IMAGE_PLACEHOLDER
from lm_eval_cog.paradigms.wcst.cards import COLOUR, COLOURS, NUMBER, SHAPE, SHAPES
from lm_eval_cog.paradigms.wcst.env import WCSTEnv, WCSTParams

PROBE = "wcst_visual"
#: Cards in a trial image (4 key cards + the test card): eq. 7's target count.
CARDS = 5
FEATURES = (NUMBER, COLOUR, SHAPE)
#: The question (ours).
PROMPT = (
    "How many cards are in this image? Reply first with a line 'Cards: N'. Then one line per card, "
    "top row left to right and then the bottom row: 'Card k: <number of symbols> <color> <shape>'."
)
#: The document text: the image, then the question.
DOC_TEXT = f"{IMAGE_PLACEHOLDER}\n{PROMPT}"
METRICS = ("acc_overall", "acc_count", "acc_color", "acc_shape", "acc_number", "penalty", "acc_overall_eq10")

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
_PLURAL = {"triangles": "triangle", "stars": "star", "crosses": "cross", "circles": "circle"}
_COUNT_LINE = re.compile(r"cards?\s*:\s*(\d+)", re.IGNORECASE)
_CARD_LINE = re.compile(r"^\W*card\s*(\d+)\s*:(.*)$", re.IGNORECASE | re.MULTILINE)
_WORD = re.compile(r"[a-z]+|\d+")


def documents(task_seed: int) -> list[dict[str, Any]]:
    """The 64 trial images of wcst64 episode 0 of ``task_seed`` (played by ``optimal``; the
    fixed-key deck's cards do not depend on the play), one document each."""
    seed = episode_seed(task_seed, 0)
    params = WCSTParams()
    env = WCSTEnv(params)
    from lm_eval_cog.paradigms.wcst.agents import OptimalAgent

    agent = OptimalAgent(params, agent_rng(seed))
    message, info = env.reset(seed=seed)
    done = False
    while not done:
        message, terminated, truncated, info = env.step(agent.act(message, info))
        done = terminated or truncated
    return [
        {
            "probe": PROBE,
            "seed": seed,
            "trial": record["trial"],
            # Top row left to right, then the bottom card: the order the prompt asks for.
            "cards": [dict(c) for c in record["options"]] + [dict(record["card"])],
        }
        for record in env.log
    ]


def _card_features(text: str) -> dict[str, Any]:
    """Number, colour and shape named in one card line (the first of each; missing ones None)."""
    out: dict[str, Any] = {NUMBER: None, COLOUR: None, SHAPE: None}
    for word in _WORD.findall(text.lower()):
        if out[NUMBER] is None and (word.isdigit() or word in _NUMBER_WORDS):
            out[NUMBER] = int(word) if word.isdigit() else _NUMBER_WORDS[word]
        elif out[COLOUR] is None and word in COLOURS:
            out[COLOUR] = word
        elif out[SHAPE] is None and (word in SHAPES or word in _PLURAL):
            out[SHAPE] = _PLURAL.get(word, word)
    return out


def parse_description(reply: str) -> tuple[int | None, dict[int, dict[str, Any]]]:
    """``(c_i, {position 1-5: features})`` from a reply (see the module docstring)."""
    count_match = _COUNT_LINE.search(reply or "")
    count = int(count_match.group(1)) if count_match else None
    cards: dict[int, dict[str, Any]] = {}
    for match in _CARD_LINE.finditer(reply or ""):
        k = int(match.group(1))
        if 1 <= k <= CARDS and k not in cards:  # the first line for a position counts
            cards[k] = _card_features(match.group(2))
    return count, cards


def score(cards: Sequence[Mapping[str, Any]], reply: str) -> dict[str, float]:
    """Per-image values of eqs. 7-10 (percent), and the item-weighted overall."""
    count, described = parse_description(reply)
    hits = {f: sum(described.get(j + 1, {}).get(f) == card[f] for j, card in enumerate(cards)) for f in FEATURES}
    acc = {f: 100.0 * hits[f] / CARDS for f in FEATURES}
    acc_count = 100.0 * (count == CARDS)
    penalty = 100.0 * 0.5 * max(0, (count or 0) - CARDS)
    features = acc[COLOUR] + acc[SHAPE] + acc[NUMBER]
    return {
        "acc_overall": (acc_count + CARDS * features - penalty) / (1 + CARDS * len(FEATURES)),
        "acc_count": acc_count,
        "acc_color": acc[COLOUR],
        "acc_shape": acc[SHAPE],
        "acc_number": acc[NUMBER],
        "penalty": penalty,
        "acc_overall_eq10": acc_count + features - penalty,
    }


def describe(cards: Sequence[Mapping[str, Any]]) -> str:
    """A perfect reply (what a model that sees every card right writes)."""
    lines = [f"Cards: {len(cards)}"]
    lines += [f"Card {k + 1}: {c[NUMBER]} {c[COLOUR]} {c[SHAPE]}" for k, c in enumerate(cards)]
    return "\n".join(lines)


__all__ = ["DOC_TEXT", "METRICS", "PROBE", "PROMPT", "describe", "documents", "parse_description", "score"]
