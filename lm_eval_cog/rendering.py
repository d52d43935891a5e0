"""Turn an episode's conversation into one prompt string that fits the context window.

Two formats:

* **chat**: the backend's chat template (``apply_chat_template(messages) -> str``);
* **plain** (no template): ``system`` + ``\\n\\nUser: ...\\nAssistant:`` turns, with each
  raw reply appended unchanged, so that turn t+1's prompt starts with turn t's
  prompt + reply byte for byte (what prefix caching needs). Generation stops at
  :data:`PLAIN_STOP`.

Old turns are dropped whole, oldest first, until the prompt fits
``max_prompt_tokens``; the instructions (system message) and the current user
message are never dropped. Dropping is monotone within an episode (a turn once
dropped stays dropped) so the prompt prefix changes as rarely as possible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.runner import Episode

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

    def messages(self, ep: Episode, drop: int) -> list[dict[str, str]]:
        msgs = [{**m, "content": encodable(m["content"])} for m in ep.messages(drop)]
        if self.system_instruction:
            if msgs[0]["role"] == "system":
                msgs[0] = {"role": "system", "content": f"{self.system_instruction}\n\n{msgs[0]['content']}"}
            else:
                msgs.insert(0, {"role": "system", "content": self.system_instruction})
        return msgs

    def to_prompt(self, messages: list[dict[str, str]]) -> Any:
        """The backend's prompt object: a string, or what its chat template returns
        (lm-eval's chat-completions models return a JSON wrapper)."""
        if self.chat_template is None:
            return render_plain(messages)
        prompt = self.chat_template(messages)
        # Some templates reject or silently drop the system role (lm-eval's HF wrapper
        # swallows the TemplateError): never lose the instructions.
        if isinstance(prompt, str) and messages[0]["role"] == "system":
            if messages[0]["content"].strip()[:200] not in prompt:
                prompt = self.chat_template(fold_system(messages))
        return prompt

    def render(self, ep: Episode) -> tuple[Any, int, int]:
        """(prompt, dropped turns, prompt tokens) for the episode's current turn.

        Raises :class:`ContextOverflow` when even the instructions plus the current
        message exceed the budget.
        """
        history = len(ep.turns) - 1
        drop = ep.turns[-2].dropped_turns if history else 0
        while True:
            prompt = self.to_prompt(self.messages(ep, drop))
            n = self.count_tokens(prompt_text(prompt))
            if self.max_prompt_tokens is None or n <= self.max_prompt_tokens:
                return prompt, drop, n
            if drop >= history:
                raise ContextOverflow(
                    f"prompt of {n} tokens exceeds the budget of {self.max_prompt_tokens} tokens "
                    f"(context length minus generation budget) even with all {history} old turns dropped"
                )
            drop += 1
