"""``cog_scripted_vlm``: a scripted vision-language model for tests, registered only by importing this module.

No vision-language model with weights ships on PyPI, and CI has no network, so the visual
path is tested with this stand-in. It is honest in two ways:

* **the request contract** of lm-eval's ``hf-multimodal`` (``HFMultimodalLM``) is asserted on
  every request: ``args`` is ``(prompt: str, gen_kwargs: dict, {"visual": [PIL images]})``,
  at least one image, and the prompt holds exactly one image slot per image, in order (the
  ``<image>`` placeholders, or after ``--apply_chat_template`` the image parts that
  ``HFMultimodalLM.apply_chat_template`` itself, called unbound on this object, made);
* **the cards are read from the pixels alone** (:func:`decode`), knowing only the layout
  constants (card = white region, symbol = saturated region, the palette, the symbol masks),
  never the request's document or the episode's log.

It then plays like the WCST ``optimal`` agent on the decoded cards (the feedback is read from
the prompt, its own last answer from its memory of the episode), or, asked the visual probe's
question, describes what it decoded. ``corrupt`` (model_args) damages each image before
decoding, to show that the score rests on the pixels: ``merge_yellow`` paints yellow as green.

Its ``processor`` counts a prompt as its words plus :data:`IMAGE_TOKENS` per image, so the
seam's processor-based token count is exercised.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from lm_eval.api.model import LM
from lm_eval.api.registry import model_registry
from PIL import Image
from scipy import ndimage

from lm_eval_cog.paradigms.wcst import visual
from lm_eval_cog.paradigms.wcst.agents import OptimalAgent
from lm_eval_cog.paradigms.wcst.cards import COLOUR, NUMBER, SHAPE, SHAPES
from lm_eval_cog.paradigms.wcst.env import WCSTParams

NAME = "cog_scripted_vlm"
IMAGE_PLACEHOLDER = "<image>"  # lm-eval's DEFAULT_IMAGE_PLACEHOLDER
#: What this model's chat template writes for an image part.
TEMPLATE_IMAGE = "<|image|>"
#: Tokens one image expands into (a fixed-size processor, like CLIP-based ones).
IMAGE_TOKENS = 100
#: A card is at least this many white pixels; a symbol at least this many saturated ones.
MIN_CARD_AREA = 5_000
MIN_SYMBOL_AREA = 100
#: Saturation (max - min channel) above which a pixel belongs to a symbol.
SATURATION = 80

_PALETTE_NAMES = list(visual.PALETTE)
_PALETTE = np.array([visual.PALETTE[c] for c in _PALETTE_NAMES], dtype=float)
_MASKS = {s: np.asarray(visual.shape_mask(s), dtype=bool) for s in SHAPES}


# --------------------------------------------------------------------------- decoding


def _crop(mask: np.ndarray) -> np.ndarray:
    rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
    return mask[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two masks aligned at their bounding boxes' top-left corners."""
    a, b = _crop(a), _crop(b)
    h, w = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
    pa, pb = np.zeros((h, w), bool), np.zeros((h, w), bool)
    pa[: a.shape[0], : a.shape[1]] = a
    pb[: b.shape[0], : b.shape[1]] = b
    return float((pa & pb).sum() / max(1, (pa | pb).sum()))


def _decode_card(rgb: np.ndarray, saturated: np.ndarray, box: tuple[slice, slice]) -> dict[str, Any]:
    """The card inside ``box``: count, colour and shape of its saturated components."""
    labels, n = ndimage.label(saturated[box])
    sizes = ndimage.sum_labels(np.ones_like(labels), labels, index=np.arange(1, n + 1))
    symbols = [k + 1 for k in range(n) if sizes[k] >= MIN_SYMBOL_AREA]
    if not symbols:
        return {SHAPE: None, COLOUR: None, NUMBER: 0}
    ink = np.isin(labels, symbols)
    mean = rgb[box][ink].mean(axis=0)
    colour = _PALETTE_NAMES[int(np.argmin(((_PALETTE - mean) ** 2).sum(axis=1)))]
    first = labels == symbols[0]
    shape = max(SHAPES, key=lambda s: _iou(first, _MASKS[s]))
    return {SHAPE: shape, COLOUR: colour, NUMBER: len(symbols)}


def decode(image: Image.Image) -> list[dict[str, Any]]:
    """Every card in the image, top row left to right, then the bottom row (pixels only)."""
    rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    white = (rgb >= 250).all(axis=2)
    saturated = (rgb.max(axis=2) - rgb.min(axis=2)) > SATURATION
    labels, n = ndimage.label(white)
    boxes = ndimage.find_objects(labels)
    sizes = ndimage.sum_labels(white, labels, index=np.arange(1, n + 1))
    cards = [boxes[k] for k in range(n) if sizes[k] >= MIN_CARD_AREA]
    middle = image.height / 2
    # Reading order: rows (above / below the middle), then left to right.
    cards.sort(key=lambda b: (b[0].start > middle, b[1].start))
    return [_decode_card(rgb, saturated, box) for box in cards]


# --------------------------------------------------------------------------- corruption


def merge_yellow(image: Image.Image) -> Image.Image:
    """Yellow symbols painted green: two key cards then share a colour."""
    rgb = np.array(image.convert("RGB"))
    yellow = (rgb == np.array(visual.PALETTE["yellow"], dtype=np.uint8)).all(axis=2)
    rgb[yellow] = visual.PALETTE["green"]
    return Image.fromarray(rgb)


CORRUPTIONS = {"none": lambda image: image, "merge_yellow": merge_yellow}


# --------------------------------------------------------------------------- the model


class FakeProcessor:
    """Stands in for a HF processor: a chat template over typed parts, and token counting."""

    def apply_chat_template(self, messages, add_generation_prompt=True, continue_final_message=False, **_: Any) -> str:
        out = []
        for m in messages:
            parts = m["content"]
            assert isinstance(parts, list), "HFMultimodalLM.apply_chat_template hands typed parts to the processor"
            text = "".join(TEMPLATE_IMAGE if p["type"] == "image" else p["text"] for p in parts)
            out.append(f"<|{m['role']}|>\n{text}\n")
        return "".join(out) + ("<|assistant|>\n" if add_generation_prompt else "")

    def __call__(self, text: Sequence[str], images: Sequence[Sequence[Any]], **_: Any) -> dict[str, Any]:
        ids = []
        for prompt, imgs in zip(text, images):
            slots = prompt.count(TEMPLATE_IMAGE)
            assert slots == len(imgs), f"processor: {slots} image tokens for {len(imgs)} images"
            ids.append([0] * (len(prompt.replace(TEMPLATE_IMAGE, " ").split()) + IMAGE_TOKENS * len(imgs)))
        return {"input_ids": ids}


class ScriptedVLM(LM):
    """See the module docstring. ``max_length``: the context window in this model's tokens."""

    MULTIMODAL = True

    def __init__(self, corrupt: str = "none", max_length: int = 1_000_000, **kwargs: Any) -> None:
        super().__init__()
        self.corrupt = CORRUPTIONS[corrupt]
        self.max_length = int(max_length)
        self.processor = FakeProcessor()
        self.image_token = TEMPLATE_IMAGE  # what lm-eval replaces <image> with when no template is applied
        # What HFMultimodalLM.apply_chat_template reads.
        self.interleave, self.max_images, self.chat_applied = True, 999, False
        self._episodes: dict[tuple[Any, Any], dict[str, Any]] = {}
        self.requests: list[tuple] = []  # every request's args, for tests

    def apply_chat_template(self, chat_history: list[dict[str, Any]], add_generation_prompt: bool = True) -> str:
        """lm-eval's own ``HFMultimodalLM.apply_chat_template``, run on this object: it rewrites the
        messages' contents in place into typed parts, then calls the processor's template."""
        from lm_eval.models.hf_vlms import HFMultimodalLM

        return HFMultimodalLM.apply_chat_template(self, chat_history, add_generation_prompt)

    @property
    def tokenizer_name(self) -> str:
        return NAME

    def chat_template(self, chat_template: bool | str = False) -> str:
        return "scripted"

    def tok_encode(self, text: str, **_: Any) -> list[int]:
        return [0] * len(text.split())

    def generate_until(self, requests: Sequence[Any], disable_tqdm: bool = False) -> list[str]:
        assert requests, "an empty generate_until call"
        visual_call = len(requests[0].args) == 3
        return [self._reply(r) if visual_call else self._text_reply(r) for r in requests]

    # -- one request
    def _check_contract(self, args: tuple) -> list[Image.Image]:
        assert len(args) == 3, f"a request of a visual call must be a 3-tuple, got {len(args)} args"
        prompt, gen_kwargs, aux = args
        assert isinstance(prompt, str) and isinstance(gen_kwargs, dict), (type(prompt), type(gen_kwargs))
        assert isinstance(aux, dict) and set(aux) == {"visual"}, aux
        images = aux["visual"]
        assert isinstance(images, list) and images, "visual must be a non-empty list"
        assert all(isinstance(im, Image.Image) for im in images), [type(im) for im in images]
        slot = TEMPLATE_IMAGE if self.chat_applied else IMAGE_PLACEHOLDER
        assert prompt.count(slot) == len(images), f"{prompt.count(slot)} {slot} slots for {len(images)} images"
        self.requests.append(args)
        return images

    def _reply(self, request: Any) -> str:
        images = self._check_contract(request.args)
        cards = decode(self.corrupt(images[-1]))  # the newest image is the current trial's
        prompt = request.args[0]
        if "How many cards are in this image?" in prompt:
            return self._describe(cards)
        return self._play(request, prompt, cards)

    @staticmethod
    def _describe(cards: list[dict[str, Any]]) -> str:
        lines = [f"Cards: {len(cards)}"]
        lines += [f"Card {k + 1}: {c[NUMBER]} {c[COLOUR]} {c[SHAPE]}" for k, c in enumerate(cards)]
        return "\n".join(lines)

    def _play(self, request: Any, prompt: str, cards: list[dict[str, Any]]) -> str:
        """The optimal agent's choice on the decoded cards; feedback read from the prompt."""
        assert len(cards) == 5, f"decoded {len(cards)} cards"
        key = (request.task_name, request.doc_id)
        state = self._episodes.get(key)
        if state is None:
            rng = np.random.default_rng([zlib.crc32(str(request.task_name).encode()), int(request.doc_id or 0)])
            state = self._episodes[key] = {"agent": OptimalAgent(WCSTParams(), rng), "last": None}
        outcome = None
        if state["last"] is not None:
            # The feedback sits between this model's last answer and the newest image.
            since = prompt.rsplit(state["last"]["reply"], 1)[-1]
            since = since.rsplit(TEMPLATE_IMAGE if self.chat_applied else IMAGE_PLACEHOLDER, 1)[0]
            outcome = "correct" if "Correct!" in since else "error" if "Incorrect." in since else None
        info = {
            "card": cards[4],
            "options": cards[:4],
            "last_outcome": outcome,
            "last_choice": None if state["last"] is None else state["last"]["choice"],
        }
        choice = int(state["agent"].act(prompt, info)) - 1
        reply = f"I compare the cards in the image. Answer: {choice + 1}"
        state["last"] = {"choice": choice, "reply": reply}
        return reply

    def _text_reply(self, request: Any) -> str:
        assert len(request.args) == 2, request.args[2:]
        assert IMAGE_PLACEHOLDER not in request.args[0], "a text request with an image placeholder"
        return "Answer: 1"

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("cog_scripted_vlm only generates")

    loglikelihood_rolling = loglikelihood


def register() -> None:
    """Register ``cog_scripted_vlm`` after lm-eval's own models (idempotent; tests only)."""
    import lm_eval.models  # noqa: F401 - lm-eval imports its models only into an empty registry

    if NAME not in model_registry:
        model_registry.register(NAME, target=ScriptedVLM)


register()
