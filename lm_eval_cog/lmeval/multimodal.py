"""What the seam needs to send images to lm-eval's multimodal models (lm-eval 0.4.13).

How those models take images (``hf-multimodal`` = ``HFMultimodalLM``, ``vllm-vlm`` =
``VLLM_VLM``, the API models = ``TemplateAPI``):

* a request's ``args`` are a 3-tuple ``(prompt, gen_kwargs, {"visual": [PIL images]})``, the
  images in the order of the prompt's ``<image>`` placeholders; a ``generate_until`` call whose
  *first* request has 2 args is run as text-only for *all* its requests, so visual and text
  requests go in separate calls (:func:`split_calls`), and a visual request never has 0 images;
* ``apply_chat_template`` turns each message's string content into a list of typed parts,
  in place (the renderer hands it a copy);
* ``tok_encode`` counts a placeholder as a few text tokens while the processor expands it
  into the image's hundreds: prompts with images are counted by the model's processor
  (:func:`image_token_counter`), otherwise estimated loudly;
* ``max_images`` truncates images silently (per message in the template, per request at
  encoding), ``vllm-vlm`` keeps ``<image>`` literally without a chat template, and the API
  models read images only from a chat-template prompt: :func:`preflight` refuses these set-ups
  before any model call, with the flag that fixes them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from typing import Any

from lm_eval_cog import runner
from lm_eval_cog.paradigms.images import IMAGE_PLACEHOLDER

_LOG = logging.getLogger("lm_eval.cog")
#: Tokens per image when the model has no processor to count them (an API model): GPT-4o's
#: high-detail count for our 760 x 576 images (85 + 170 per 512-px tile, 4 tiles), the largest
#: of the three APIs Hao et al. used (Claude ~ w*h/750 = 584, Gemini 258). Hao et al. §F.
FALLBACK_IMAGE_TOKENS = 765


def is_visual(ep: runner.Episode) -> bool:
    """An episode whose turns carry images (its first turn has one)."""
    return bool(ep.turns) and ep.turns[0].image is not None


def _class_names(lm: Any) -> set[str]:
    return {cls.__name__ for cls in type(lm).__mro__}


def preflight(lm: Any, episodes: Sequence[runner.Episode], settings: Sequence[dict[str, Any]]) -> None:
    """Refuse, before any model call, a visual episode this model cannot be shown (ValueError)."""
    for ep, setting in zip(episodes, settings):
        if not ep.live or not is_visual(ep):
            continue
        task = ep.spec.get("task")
        name = type(lm).__name__
        if not getattr(lm, "MULTIMODAL", False):
            raise ValueError(
                f"task {task} shows images, but model {name} takes text only: use a vision-language model "
                "(--model hf-multimodal or vllm-vlm), or the text version of the task"
            )
        chat = bool(setting.get("apply_chat_template"))
        if not chat and "VLLM_VLM" in _class_names(lm):
            raise ValueError(
                f"task {task}: vllm-vlm keeps the <image> placeholders as text unless the chat template "
                "places the images: pass --apply_chat_template"
            )
        if not chat and "TemplateAPI" in _class_names(lm):
            raise ValueError(f"task {task}: API models take images only in chat messages: pass --apply_chat_template")
        limit = getattr(lm, "max_images", None)
        params = getattr(ep.env, "params", None)
        keep = getattr(params, "image_history", None)
        most = keep if keep is not None else getattr(params, "max_turns", math.inf)
        if isinstance(limit, int) and most > limit:
            raise ValueError(
                f"task {task}: its prompts hold up to {most} images (image_history={keep}), but the model takes "
                f"at most max_images={limit} and would drop the others silently. Pass "
                f"--metadata '{{\"{ep.spec.get('paradigm')}\": {{\"image_history\": {limit}}}}}' "
                "(API models read only the newest images) or raise max_images in --model_args"
            )


def visual_args(prompt: Any, gen_kwargs: dict[str, Any], images: Sequence[Any]) -> tuple:
    """A visual request's ``args``: ``(prompt, gen_kwargs, {"visual": [PIL images]})``."""
    if not images:
        raise ValueError("a visual request needs at least one image (lm-eval would run it as text)")
    return (prompt, gen_kwargs, {"visual": [image.render() for image in images]})


def split_calls(requests: Sequence[Any]) -> list[list[int]]:
    """Positions of the text requests and of the visual ones: one ``generate_until`` call each
    (a multimodal model decides text vs images from the first request of a call)."""
    text = [i for i, r in enumerate(requests) if len(r.args) < 3]
    visual = [i for i, r in enumerate(requests) if len(r.args) >= 3]
    return [group for group in (text, visual) if group]


def image_token_counter(lm: Any, count_text: Callable[[str], int]) -> Callable[[str, list[Any]], int]:
    """Prompt length with its images, ``(text, [TurnImage]) -> tokens``.

    With a processor (``hf-multimodal``, ``vllm-vlm``): its real count,
    ``len(processor(text=[prompt], images=[images])["input_ids"][0])``, after the steps lm-eval
    takes before encoding (placeholders -> the model's image token without a chat template; the
    ``image_width``/``image_height``/``image_max_side`` resize). Without one (API models):
    ``count_text(text)`` plus :data:`FALLBACK_IMAGE_TOKENS` per image, with a warning.
    """
    processor = getattr(lm, "processor", None)
    if processor is None:
        warned: list[bool] = []

        def estimate(text: str, images: list[Any]) -> int:
            if not warned:
                _LOG.warning(
                    f"{type(lm).__name__} has no processor to count image tokens: each image is counted as "
                    f"{FALLBACK_IMAGE_TOKENS} tokens (GPT-4o's high-detail count for a 760x576 image)"
                )
                warned.append(True)
            return count_text(text) + FALLBACK_IMAGE_TOKENS * len(images)

        return estimate

    def count(text: str, images: list[Any]) -> int:
        pixels = [_as_model_sees(lm, image.render()) for image in images]
        image_token = getattr(lm, "image_token", None)
        if image_token and IMAGE_PLACEHOLDER in text:  # no chat template: lm-eval's replace_placeholders
            text = text.replace(IMAGE_PLACEHOLDER, image_token)
        flat = getattr(getattr(lm, "config", None), "model_type", "") == "llava"  # as hf-multimodal does
        encoded = processor(text=[text], images=pixels if flat else [pixels])
        return len(encoded["input_ids"][0])

    return count


def _as_model_sees(lm: Any, image: Any) -> Any:
    sizes = (getattr(lm, "image_width", None), getattr(lm, "image_height", None), getattr(lm, "image_max_side", None))
    if not any(sizes):
        return image
    from lm_eval.models.utils import resize_image

    return resize_image(image, *sizes)


__all__ = [
    "FALLBACK_IMAGE_TOKENS",
    "image_token_counter",
    "is_visual",
    "preflight",
    "split_calls",
    "visual_args",
]
