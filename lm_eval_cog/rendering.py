"""Turn an episode's conversation into one prompt string that fits the context window.

Two formats:

* **chat**: the backend's chat template (``apply_chat_template(messages) -> str``);
* **plain** (no template): ``system`` + ``\\n\\nUser: ...\\nAssistant:`` turns, with each
  raw reply appended unchanged, so that turn t+1's prompt starts with turn t's
  prompt + reply byte for byte (what prefix caching needs). Generation stops at
  :data:`PLAIN_STOP`.

Old turns are dropped whole, oldest first, until the prompt fits
``max_prompt_tokens``; the system message, the env's pinned leading turns
(``Env.pinned_turns``: where the first message holds the task itself) and the current
user message are never dropped. Dropping is monotone within an episode (a turn once
dropped stays dropped) so the prompt prefix changes as rarely as possible. A game
(``Env.trims_history`` False) drops nothing: its first message holds the rules and the
private instance, so a prompt too long fails the episode, as clembench's
ContextExceededError does.

Images (visual paradigms): a turn's user message holds one :data:`IMAGE_PLACEHOLDER` where
its image goes. Of the turns kept, the images of the last ``image_history`` (a parameter of
the episode, ``None`` = all) keep their placeholder; older ones become :data:`IMAGE_DROPPED`,
so the placeholders and :meth:`Renderer.images` stay in step (lm-eval's multimodal models
pair the n-th placeholder with the n-th image). Any other ``<image>`` text (a reply that
writes one, an instruction) is defused to :data:`DEFUSED_PLACEHOLDER`: it would make a model
expect an image that is not there.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.paradigms.images import IMAGE_PLACEHOLDER
from lm_eval_cog.runner import Episode

#: What replaces the placeholder of an image no longer kept in the conversation.
IMAGE_DROPPED = "[image of an earlier trial, no longer shown]"
#: What a literal placeholder outside an image turn becomes (no model reads it as an image).
DEFUSED_PLACEHOLDER = "<image\u200b>"

#: Stop sequence of the plain format: the model must not write the next user turn.
PLAIN_STOP = "\nUser:"


#: Lone surrogates: how undecodable bytes of a backend reply survive in a str (surrogateescape).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with lone surrogates (a backend's undecodable bytes) replaced by U+FFFD:
    a tokenizer cannot encode them. The transcript keeps the raw reply."""
    return LONE_SURROGATE.sub("\ufffd", text)


class ContextOverflow(RuntimeError):
    """Even with every old turn dropped, the prompt does not fit the context window."""


def render_plain(messages: list[dict[str, str]]) -> str:
    """The plain transcript format (see module docstring)."""
    parts: list[str] = []
    for m in messages:
        if m["role"] == "system":
            parts.append(m["content"] + "\n\n")
        elif m["role"] == "user":
            parts.append(("\n" if parts and not parts[-1].endswith("\n\n") else "") + "User: " + m["content"])
        else:
            parts.append("\nAssistant:" + m["content"])
    return "".join(parts) + "\nAssistant:"


def prompt_text(prompt: Any) -> str:
    """The text of a prompt object (a string, or a wrapper with a ``prompt`` field)."""
    return prompt if isinstance(prompt, str) else str(getattr(prompt, "prompt", prompt))


def fold_system(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Move the system message into the first user message (for templates without a system role)."""
    if not messages or messages[0]["role"] != "system":
        return messages
    system, rest = messages[0]["content"], [dict(m) for m in messages[1:]]
    rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
    return rest


def defuse(text: str) -> str:
    """``text`` with every image placeholder made inert (see the module docstring)."""
    return text.replace(IMAGE_PLACEHOLDER, DEFUSED_PLACEHOLDER)


def image_history(ep: Episode) -> int | None:
    """How many of the latest images an episode keeps: its parameters' ``image_history``
    (the live env's, else the transcript's stored ``params``); None keeps all."""
    params = getattr(ep.env, "params", None)
    if params is not None:
        return getattr(params, "image_history", None)
    return (ep.spec.get("params") or {}).get("image_history")


def kept_image_turns(ep: Episode, drop: int) -> list[int]:
    """Indices (into ``ep.turns``) of the turns whose image is in the prompt, oldest first."""
    with_image = [i for i in ep.kept_turns(drop) if ep.turns[i].image is not None]
    k = image_history(ep)
    return with_image if k is None else with_image[max(0, len(with_image) - k) :]


@dataclass
class Renderer:
    """Renders and trims prompts for one backend.

    ``chat_template``: renders chat messages to a string, or ``None`` for the plain
    format. ``count_tokens``: prompt length in the backend's tokens.
    ``max_prompt_tokens``: the budget (context length minus the generation budget),
    ``None`` for unbounded. ``system_instruction``: the user's ``--system_instruction``,
    put before the paradigm's instructions.
    """

    chat_template: Callable[[list[dict[str, str]]], str] | None
    count_tokens: Callable[[str], int]
    max_prompt_tokens: int | None = None
    system_instruction: str | None = None
    #: Prompt length of a prompt with images, ``(text, [TurnImage, ...]) -> tokens``: the model's
    #: processor expands each placeholder into the image's tokens. None: ``count_tokens(text)``.
    count_image_tokens: Callable[[str, list[Any]], int] | None = None

    def messages(self, ep: Episode, drop: int) -> list[dict[str, str]]:
        msgs = [{**m, "content": defuse(encodable(m["content"]))} for m in ep.messages(drop)]
        if any(t.image is not None for t in ep.turns[drop:]):
            self._place_images(msgs, ep, drop, set(kept_image_turns(ep, drop)))
        if self.system_instruction:
            instruction = defuse(self.system_instruction)
            if msgs[0]["role"] == "system":
                msgs[0] = {"role": "system", "content": f"{instruction}\n\n{msgs[0]['content']}"}
            else:
                msgs.insert(0, {"role": "system", "content": instruction})
        return msgs

    @staticmethod
    def _place_images(msgs: list[dict[str, str]], ep: Episode, drop: int, kept: set[int]) -> None:
        """Restore the placeholder of each kept image turn; older images become a note."""
        user_turns = [m for m in msgs if m["role"] == "user"]  # one per turn of ep.kept_turns(drop)
        shown = [i for i in ep.kept_turns(drop) if ep.turns[i].kept or i == len(ep.turns) - 1]
        for i, message in zip(shown, user_turns):
            if ep.turns[i].image is None:
                continue
            # The env wrote one placeholder; defuse() turned it into the inert form. Only the
            # first one is the image's (a second would be text, left inert).
            mark = IMAGE_PLACEHOLDER if i in kept else IMAGE_DROPPED
            message["content"] = message["content"].replace(DEFUSED_PLACEHOLDER, mark, 1)

    def images(self, ep: Episode, drop: int) -> list[Any]:
        """The images of the prompt rendered with ``drop`` turns dropped, in placeholder order
        (``TurnImage`` objects; ``.render()`` gives the pixels)."""
        return [ep.turns[i].image for i in kept_image_turns(ep, drop)]

    def to_prompt(self, messages: list[dict[str, str]]) -> Any:
        """The backend's prompt object: a string, or what its chat template returns
        (lm-eval's chat-completions models return a JSON wrapper)."""
        if self.chat_template is None:
            return render_plain(messages)
        # A multimodal model's template rewrites each message's content in place into a list of
        # typed parts (lm-eval's HFMultimodalLM / VLLM_VLM.apply_chat_template): give it a copy.
        prompt = self.chat_template(copy.deepcopy(messages))
        # Some templates reject or silently drop the system role (lm-eval's HF wrapper
        # swallows the TemplateError): never lose the instructions.
        if isinstance(prompt, str) and messages[0]["role"] == "system":
            if messages[0]["content"].strip()[:200] not in prompt:
                prompt = self.chat_template(copy.deepcopy(fold_system(messages)))
        return prompt

    def render(self, ep: Episode) -> tuple[Any, int, int]:
        """(prompt, dropped turns, prompt tokens) for the episode's current turn.

        Raises :class:`ContextOverflow` when even the instructions (system message, pinned
        turns) plus the current message exceed the budget, and for a game (``ep.trims`` False)
        as soon as its whole conversation does.
        """
        history = len(ep.turns) - 1
        droppable = max(0, history - ep.pinned) if ep.trims else 0
        drop = min(ep.turns[-2].dropped_turns, droppable) if history else 0
        while True:
            prompt = self.to_prompt(self.messages(ep, drop))
            images = self.images(ep, drop)
            if images and self.count_image_tokens is not None:
                n = self.count_image_tokens(prompt_text(prompt), images)
            else:
                n = self.count_tokens(prompt_text(prompt))
            if self.max_prompt_tokens is None or n <= self.max_prompt_tokens:
                return prompt, drop, n
            if drop >= droppable:
                if not ep.trims:
                    raise ContextOverflow(
                        f"context exceeded: the prompt of {n} tokens exceeds the budget of {self.max_prompt_tokens} "
                        f"tokens (context length minus generation budget); a game's history is never trimmed "
                        f"(its first message holds the rules), so the episode ends unplayed"
                    )
                raise ContextOverflow(
                    f"prompt of {n} tokens exceeds the budget of {self.max_prompt_tokens} tokens "
                    f"(context length minus generation budget) even with all {droppable} old turns dropped"
                    + (f" (the first {ep.pinned} kept: they hold the task)" if ep.pinned else "")
                )
            drop += 1
