"""The seam: lm-eval's evaluator calls ``lm.cog_episode(requests)`` for our requests.

The evaluator groups every request by ``request_type`` and calls
``getattr(lm, request_type)(requests)`` once (lm-eval-internals.md). Adding, not
overriding, a ``cog_episode`` method on :class:`lm_eval.api.model.LM` makes every
backend that implements ``generate_until`` (hf, vllm, local-completions,
local-chat-completions, ...) able to play episodes: all episodes of all requested
interactive tasks advance in lock step, each turn being ONE ``generate_until``
call over the prompts of the episodes still running.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import inspect
import json
import math
from collections.abc import Sequence
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.model import LM

from lm_eval_cog import runner
from lm_eval_cog.lmeval import vllm_backend
from lm_eval_cog.lmeval.compat import make_instance
from lm_eval_cog.paradigms import make_env
from lm_eval_cog.rendering import PLAIN_STOP, ContextOverflow, Renderer

REQUEST_TYPE = "cog_episode"
_GEN_TOKS_KEYS = ("max_gen_toks", "max_new_tokens", "max_tokens", "max_completion_tokens")


def install() -> None:
    """Give every lm-eval model a ``cog_episode`` method (idempotent; never overrides)."""
    if not hasattr(LM, REQUEST_TYPE):
        setattr(LM, REQUEST_TYPE, _cog_episode)


def _cog_episode(self: LM, requests: Sequence[Instance]) -> list[str]:
    return run_requests(requests, LMPlayer(self), progress=getattr(self, "rank", 0) == 0)


def run_requests(requests: Sequence[Instance], player: runner.Player, *, progress: bool = True) -> list[str]:
    """Play one episode per request in lock step; return one transcript per request, in order.

    Transcripts travel as JSON strings: lm-eval's sample logger writes any other
    object as its Python ``repr``, which could not be read back offline.
    """
    payloads = [req.args[1] for req in requests]
    episodes = runner.start_episodes((p["spec"] for p in payloads), make_env)
    for ep, payload in zip(episodes, payloads):
        ep.spec["params"] = _jsonable(dataclasses.asdict(ep.env.params)) if ep.env is not None else None
        ep.settings = payload  # how to render and generate (read by LMPlayer)
    runner.run_lockstep(episodes, player, progress="cog episodes" if progress else False)
    return [json.dumps(ep.transcript(), ensure_ascii=False) for ep in episodes]


class LMPlayer:
    """Replies come from an lm-eval model: one ``generate_until`` per call."""

    def __init__(self, lm: LM) -> None:
        self.lm = lm
        self._renderers: dict[tuple, Renderer] = {}
        self._checked_cache = False

    def respond(self, episodes: Sequence[runner.Episode]) -> list[str | BaseException]:
        out: list[str | BaseException | None] = [None] * len(episodes)
        batch: list[Instance] = []
        slots: list[int] = []
        for i, ep in enumerate(episodes):
            settings = ep.settings
            gen_kwargs = copy.deepcopy(settings["gen_kwargs"])
            if not settings["apply_chat_template"]:
                gen_kwargs["until"] = [*_as_list(gen_kwargs.get("until")), PLAIN_STOP]
            try:
                prompt, dropped, n_tokens = self._renderer(settings, gen_kwargs).render(ep)
            except ContextOverflow as exc:
                out[i] = exc
                continue
            ep.current.dropped_turns, ep.current.prompt_tokens = dropped, n_tokens
            batch.append(make_instance("generate_until", (prompt, gen_kwargs), task_name=ep.spec.get("task"), doc_id=ep.spec.get("index")))
            slots.append(i)
        if batch:
            if vllm_backend.is_vllm(self.lm):
                replies = self._generate_vllm(batch, [episodes[i] for i in slots])
            else:
                replies = _generate(self.lm, batch)
            for i, reply in zip(slots, replies):
                out[i] = reply
        return out  # type: ignore[return-value]

    def _generate_vllm(self, batch: list[Instance], episodes: list[runner.Episode]) -> list[str]:
        """One engine call for the turn; records each episode's prefix-cache hits."""
        if not self._checked_cache:
            vllm_backend.warn_if_prefix_caching_off(self.lm)
            self._checked_cache = True
        with vllm_backend.one_engine_call(self.lm, len(batch)):
            with vllm_backend.cached_tokens_by_prompt(self.lm) as cached:
                replies = _generate(self.lm, batch)
        for ep, request in zip(episodes, batch):
            hits = cached.get(vllm_backend.prompt_key(self.lm, request.args[0]))
            ep.current.cached_tokens = hits.pop(0) if hits else None
        return replies

    def _renderer(self, settings: dict[str, Any], gen_kwargs: dict[str, Any]) -> Renderer:
        key = (settings["apply_chat_template"], settings["system_instruction"], _gen_budget(self.lm, gen_kwargs))
        if key not in self._renderers:
            lm = self.lm
            max_length = getattr(lm, "max_length", None)
            budget = None if not isinstance(max_length, int) else max(1, max_length - key[2])
            self._renderers[key] = Renderer(
                chat_template=(lambda msgs: lm.apply_chat_template(msgs)) if key[0] else None,
                count_tokens=_token_counter(lm),
                max_prompt_tokens=budget,
                system_instruction=key[1],
            )
        return self._renderers[key]


def _generate(lm: LM, batch: list[Instance]) -> list[str]:
    if "disable_tqdm" in inspect.signature(lm.generate_until).parameters:
        return lm.generate_until(batch, disable_tqdm=True)
    return lm.generate_until(batch)


def _gen_budget(lm: LM, gen_kwargs: dict[str, Any]) -> int:
    for key in _GEN_TOKS_KEYS:
        if gen_kwargs.get(key) is not None:
            return int(gen_kwargs[key])
    return int(getattr(lm, "max_gen_toks", 256))


def _token_counter(lm: LM):
    tokenizer_free = hasattr(lm, "tokenizer_backend") and getattr(lm, "tokenizer_backend") is None
    if tokenizer_free or not hasattr(lm, "tok_encode"):
        # No tokenizer (e.g. an API model with tokenizer_backend=None): a conservative
        # estimate (English averages ~4 characters per token).
        return lambda text: math.ceil(len(text) / 3)
    return lambda text: len(lm.tok_encode(text))


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


__all__ = ["REQUEST_TYPE", "LMPlayer", "install", "run_requests"]
