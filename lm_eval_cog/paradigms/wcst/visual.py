"""The visual WCST: one trial drawn as an image (Hao et al., Sec. III-B, "visual input").

Hao et al. show, per trial, "a single image containing two rows. The top row displays the
four stimulus cards, while the bottom row shows one response card. This format is
consistent across all 64 trials". They give no geometry, colours, labels or font, so the
layout below is ours (prototyped in ``docs/research/flexibility-suite.md`` §5.4):

* canvas 760 x 576 RGB on grey (200, 200, 200): 0.44 Mpx, under Claude's 1568-px resize
  limit and within Gemini's / GPT-4o's tiling without downscaling the symbols away;
* five white cards 160 x 224 (black 2-px outline, corner radius 10): the four key cards (or
  the four options of Kennedy & Nowak's per-trial deck) in the top row, labelled "Card 1".."Card 4"
  ("Option 1".."Option 4"), and the test card in the bottom row, labelled "Your card";
* symbols filled in a saturated palette, 48 px, at fixed offsets from the card centre.

Pure Pillow + numpy: the paradigm knows nothing of models. Drawing is deterministic from the
cards (no randomness, no anti-aliasing), so an image is regenerated from seed + parameters and
never stored; the env's log keeps the cards each image shows. PNG bytes are not compared across
machines: the label font differs across Pillow versions (tests compare decoded content).
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from lm_eval_cog.paradigms.wcst.cards import COLOUR, NUMBER, SHAPE

#: Canvas and background.
WIDTH, HEIGHT = 760, 576
BACKGROUND = (200, 200, 200)
#: Cards: size, fill, outline, corner radius.
CARD_W, CARD_H = 160, 224
CARD_FILL = (255, 255, 255)
CARD_OUTLINE = (0, 0, 0)
OUTLINE_W = 2
CARD_RADIUS = 10
#: Horizontal gap between cards, and the band above each card that holds its label.
GAP = 24
LABEL_BAND = 28
LABEL_SIZE = 20
LABEL_COLOUR = (0, 0, 0)
#: Top-left corners: the four top-row cards, then the test card (bottom row, centred).
TOP_ROW_Y = LABEL_BAND
CARD_BOXES: tuple[tuple[int, int], ...] = tuple((GAP + (CARD_W + GAP) * i, TOP_ROW_Y) for i in range(4)) + (
    ((WIDTH - CARD_W) // 2, TOP_ROW_Y + CARD_H + GAP + LABEL_BAND),
)
#: Palette of the four colours (saturated, far apart in RGB, none near grey/white/black).
PALETTE: Mapping[str, tuple[int, int, int]] = {
    "red": (220, 30, 30),
    "green": (20, 150, 50),
    "yellow": (245, 200, 0),
    "blue": (30, 80, 220),
}
#: Symbol half-size (each symbol fits a 48-px box) and offsets from the card centre per count.
SYMBOL_R = 24
OFFSETS: Mapping[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((0, -36), (0, 36)),
    3: ((0, -60), (0, 0), (0, 60)),
    4: ((-34, -34), (34, -34), (-34, 34), (34, 34)),
}
KEY_LABELS = ("Card 1", "Card 2", "Card 3", "Card 4")
OPTION_LABELS = ("Option 1", "Option 2", "Option 3", "Option 4")
TEST_LABEL = "Your card"


def shape_polygon(shape: str, cx: float, cy: float, r: float = SYMBOL_R) -> list[tuple[float, float]] | None:
    """Vertices of a symbol centred at (cx, cy); None for the circle (drawn as an ellipse)."""
    if shape == "triangle":
        return [(cx, cy - r), (cx + r, cy + 0.8 * r), (cx - r, cy + 0.8 * r)]
    if shape == "star":
        # Ten vertices alternating outer / inner (0.45 r) radius, the first pointing up.
        return [
            (cx + rad * math.sin(math.pi * k / 5), cy - rad * math.cos(math.pi * k / 5))
            for k in range(10)
            for rad in ((r if k % 2 == 0 else 0.45 * r),)
        ]
    if shape == "cross":
        a = r / 3  # arm half-width
        return [
            (cx - a, cy - r), (cx + a, cy - r), (cx + a, cy - a), (cx + r, cy - a),
            (cx + r, cy + a), (cx + a, cy + a), (cx + a, cy + r), (cx - a, cy + r),
            (cx - a, cy + a), (cx - r, cy + a), (cx - r, cy - a), (cx - a, cy - a),
        ]  # fmt: skip
    if shape == "circle":
        return None
    raise ValueError(f"unknown shape {shape!r}")


def draw_symbol(draw: ImageDraw.ImageDraw, shape: str, cx: float, cy: float, fill: Any) -> None:
    """One filled symbol (no outline, no anti-aliasing: its pixels are exactly ``fill``)."""
    polygon = shape_polygon(shape, cx, cy)
    if polygon is None:
        draw.ellipse([cx - SYMBOL_R, cy - SYMBOL_R, cx + SYMBOL_R, cy + SYMBOL_R], fill=fill)
    else:
        draw.polygon(polygon, fill=fill)


def shape_mask(shape: str) -> Image.Image:
    """The symbol alone, drawn on a (2R+1)-px square mode-"1" canvas (what a decoder compares against)."""
    size = 2 * SYMBOL_R + 1
    mask = Image.new("1", (size, size), 0)
    draw_symbol(ImageDraw.Draw(mask), shape, SYMBOL_R, SYMBOL_R, 1)
    return mask


@functools.lru_cache(maxsize=1)
def _font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=LABEL_SIZE)


def draw_card(draw: ImageDraw.ImageDraw, box: tuple[int, int], card: Mapping[str, Any], label: str, palette: Mapping[str, Any]) -> None:
    """A card with its symbols, and its label centred in the band above it."""
    x, y = box
    draw.rounded_rectangle(
        [x, y, x + CARD_W - 1, y + CARD_H - 1], radius=CARD_RADIUS, fill=CARD_FILL, outline=CARD_OUTLINE, width=OUTLINE_W
    )
    cx, cy = x + CARD_W / 2, y + CARD_H / 2
    for dx, dy in OFFSETS[int(card[NUMBER])]:
        draw_symbol(draw, card[SHAPE], cx + dx, cy + dy, palette[card[COLOUR]])
    draw.text((cx, y - LABEL_BAND / 2), label, fill=LABEL_COLOUR, font=_font(), anchor="mm")


def _freeze(card: Mapping[str, Any]) -> tuple[str, str, int]:
    return (str(card[SHAPE]), str(card[COLOUR]), int(card[NUMBER]))


def render_trial(
    card: Mapping[str, Any],
    options: Sequence[Mapping[str, Any]],
    *,
    per_trial_options: bool = False,
    palette: Mapping[str, Any] | None = None,
) -> Image.Image:
    """The image of one trial: ``options`` (the key cards) in the top row, ``card`` below.

    ``per_trial_options`` labels the top row "Option k" (Kennedy & Nowak's deck) instead of
    "Card k". ``palette`` replaces :data:`PALETTE` (tests corrupt it on purpose). Identical
    arguments give identical pixels and, while cached, the same object: treat it as read-only
    (a conversation that keeps every image then holds each distinct image once in memory).
    """
    if len(options) != 4:
        raise ValueError(f"a trial image shows four top-row cards, got {len(options)}")
    frozen_palette = tuple(sorted((palette or PALETTE).items()))
    return _render_cached(_freeze(card), tuple(_freeze(o) for o in options), per_trial_options, frozen_palette)


# Images repeat: the wcst64 deck has 24 test cards, so an episode's 64 images are at most 24
# distinct ones, and a conversation that keeps every image re-sends them each turn. 128 cached
# images take ~170 MB at most.
@functools.lru_cache(maxsize=128)
def _render_cached(
    card: tuple[str, str, int], options: tuple[tuple[str, str, int], ...], per_trial: bool, palette: tuple
) -> Image.Image:
    colours = dict(palette)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    labels = OPTION_LABELS if per_trial else KEY_LABELS
    as_card = lambda t: {SHAPE: t[0], COLOUR: t[1], NUMBER: t[2]}  # noqa: E731
    for box, option, label in zip(CARD_BOXES[:4], options, labels):
        draw_card(draw, box, as_card(option), label, colours)
    draw_card(draw, CARD_BOXES[4], as_card(card), TEST_LABEL, colours)
    return image


def png_sha256(image: Image.Image) -> str:
    """SHA-256 of the image's PNG bytes (what lm-eval's sample logger hashes images to;
    stable on one machine, not across Pillow versions)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return hashlib.sha256(buffer.getvalue()).hexdigest()


__all__ = [
    "CARD_BOXES",
    "HEIGHT",
    "KEY_LABELS",
    "OFFSETS",
    "OPTION_LABELS",
    "PALETTE",
    "SYMBOL_R",
    "WIDTH",
    "png_sha256",
    "render_trial",
    "shape_mask",
]
