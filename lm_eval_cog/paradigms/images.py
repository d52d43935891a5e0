"""Images of visual paradigms: what a turn shows, drawn only when a model needs the pixels.

A visual environment's user message holds :data:`IMAGE_PLACEHOLDER` where its image goes,
and the environment hands the turn a :class:`TurnImage`: a JSON description of what the
image shows (what the transcript keeps) and a function that draws it (called by the model
seam, never by the environment, so text players such as ``cog_baseline`` draw nothing).
Pixels are never serialised: an image is regenerated from the episode's seed and parameters.

The placeholder is the one lm-eval's multimodal models expect in a prompt (``<image>``,
``DEFAULT_IMAGE_PLACEHOLDER`` of ``lm_eval.models.hf_vlms`` and ``vllm_vlms``): one per
image, images in placeholder order. It is written here rather than imported so that the
paradigms never import lm-eval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Where an image goes in a message (lm-eval's ``DEFAULT_IMAGE_PLACEHOLDER``).
IMAGE_PLACEHOLDER = "<image>"


@dataclass(frozen=True, eq=False)
class TurnImage:
    """The image of one turn. ``shows``: JSON-ready, what the image shows (kept in the
    transcript, e.g. ``{"trial": 5}``; the trial log holds the cards); ``draw``: returns a
    fresh ``PIL.Image.Image`` (deterministic)."""

    shows: Mapping[str, Any]
    draw: Callable[[], Any] = field(repr=False)

    def render(self) -> Any:
        """The pixels (a new ``PIL.Image.Image`` each call; drawing functions may cache)."""
        return self.draw()


__all__ = ["IMAGE_PLACEHOLDER", "TurnImage"]
