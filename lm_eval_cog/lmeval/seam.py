"""The seam: lm-eval's evaluator calls ``lm.cog_episode(requests)`` for our requests.

The evaluator groups every request by ``request_type`` and calls
``getattr(lm, request_type)(requests)`` once (lm-eval-internals.md). Adding, not
overriding, a ``cog_episode`` method on :class:`lm_eval.api.model.LM` makes every
backend that implements ``generate_until`` (hf, vllm, local-completions,
local-chat-completions, ...) able to play episodes: all episodes of all requested
interactive tasks advance in lock step, each turn being ONE ``generate_until``
call over the prompts of the episodes still running.

Around the run: ``--use_cache`` is read and written turn by turn (an interrupted run
resumes, :mod:`~lm_eval_cog.lmeval.episode_cache`); an optional turn timeout
(``LM_EVAL_COG_TURN_TIMEOUT`` seconds) fails an episode whose request hangs; a task
with more than :data:`FAILED_SHARE_WARNING` of its episodes failed is reported loudly.

Visual episodes (turns with images, :mod:`~lm_eval_cog.lmeval.multimodal`): each request is
``(prompt, gen_kwargs, {"visual": [images in placeholder order]})``, sent in a call of its
own beside the turn's text requests; a model that cannot be shown them is refused before
the first request.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import enum
import inspect
import logging
import math
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.model import LM

from lm_eval_cog import runner
from lm_eval_cog.lmeval import hf_backend, hf_prefix_cache, multimodal, vllm_backend
from lm_eval_cog.lmeval.compat import make_instance
from lm_eval_cog.lmeval.episode_cache import TurnCache, model_identity
from lm_eval_cog.paradigms import make_env
from lm_eval_cog.rendering import PLAIN_STOP, ContextOverflow, Renderer
from lm_eval_cog.transcripts import dumps

REQUEST_TYPE = "cog_episode"
_GEN_TOKS_KEYS = ("max_gen_toks", "max_new_tokens", "max_tokens", "max_completion_tokens")
#: Environment variable: seconds one turn's model call may take before its episodes fail.
TURN_TIMEOUT_ENV = "LM_EVAL_COG_TURN_TIMEOUT"
#: A task with a larger share of failed episodes gets a WARNING (the means leave them out).
FAILED_SHARE_WARNING = 0.10
# lm-eval's logger hierarchy: its handler, --verbosity and LMEVAL_LOG_LEVEL apply.
_LOG = logging.getLogger("lm_eval.cog")


def install() -> None:
    """Give every lm-eval model a ``cog_episode`` method (idempotent; never overrides)."""
    if not hasattr(LM, REQUEST_TYPE):
        setattr(LM, REQUEST_TYPE, _cog_episode)


def _cog_episode(self: LM, requests: Sequence[Instance]) -> list[str]:
    player = LMPlayer(self)  # refuses a --use_cache database of another model, before any request
    out = run_requests(requests, player, progress=getattr(self, "rank", 0) == 0, turn_timeout=turn_timeout_from_env())
    if player.cache is not None:
        _LOG.info(
            f"--use_cache {player.cache.path}: {player.replayed} turn requests replayed from the cache, "
            f"{player.generated} generated"
        )
    return out


def turn_timeout_from_env() -> float | None:
    """``LM_EVAL_COG_TURN_TIMEOUT`` in seconds (unset or empty: no limit)."""
    raw = os.environ.get(TURN_TIMEOUT_ENV, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise ValueError(f"{TURN_TIMEOUT_ENV} must be a positive number of seconds, got {raw!r}")
    return value


def run_requests(
    requests: Sequence[Instance],
    player: runner.Player,
    *,
    progress: bool = True,
    turn_timeout: float | None = None,
) -> list[str]:
    """Play one episode per request in lock step; return one transcript per request, in order.

    Transcripts travel as JSON strings: lm-eval's sample logger writes any other
    object as its Python ``repr``, which could not be read back offline. Each holds
    what rebuilds every prompt exactly: the model, the paradigm's system prompt, the
    user's ``system_instruction``, the chat-template switch, the generation settings
    as sent, and per turn the dropped turns (see :func:`lm_eval_cog.transcripts.rebuild_prompt`).
    """
    payloads = [req.args[1] for req in requests]
    episodes = runner.start_episodes((p["spec"] for p in payloads), make_env)
    model = model_identity(player.lm) if isinstance(player, LMPlayer) else type(player).__qualname__
    for ep, payload in zip(episodes, payloads):
        ep.spec["params"] = _jsonable(dataclasses.asdict(ep.env.params)) if ep.env is not None else None
        ep.settings = {**payload, "gen_kwargs": sent_gen_kwargs(payload)}  # read by LMPlayer
        ep.spec.update(
            model=model,
            apply_chat_template=bool(payload.get("apply_chat_template")),
            system_instruction=payload.get("system_instruction"),
            gen_kwargs=ep.settings["gen_kwargs"],
        )
    if hasattr(player, "preflight"):
        player.preflight(episodes)  # a set-up that cannot work fails the run now, not episode by episode
    runner.run_lockstep(episodes, player, progress="cog episodes" if progress else False, turn_timeout=turn_timeout)
    warn_on_failures(episodes)
    return [dumps(ep.transcript()) for ep in episodes]


def sent_gen_kwargs(settings: dict[str, Any]) -> dict[str, Any]:
    """The generation settings each turn's request carries (the plain format adds its stop)."""
    gen_kwargs = copy.deepcopy(settings["gen_kwargs"])
    if not settings.get("apply_chat_template"):
        gen_kwargs["until"] = [*_as_list(gen_kwargs.get("until")), PLAIN_STOP]
    return gen_kwargs


def warn_on_failures(episodes: Sequence[runner.Episode], threshold: float = FAILED_SHARE_WARNING) -> None:
    """A WARNING per task with more than ``threshold`` of its episodes failed: count and first reasons."""
    by_task: dict[str, list[runner.Episode]] = defaultdict(list)
    for ep in episodes:
        by_task[str(ep.spec.get("task"))].append(ep)
    for task, eps in by_task.items():
        failed = [ep for ep in eps if ep.status == runner.FAILED]
        if len(failed) > threshold * len(eps):
            reasons = "; ".join(f"episode {ep.spec.get('index')}: {ep.error}" for ep in failed[:3])
            _LOG.warning(
                f"task {task}: {len(failed)} of {len(eps)} episodes FAILED ({len(failed) / len(eps):.0%}); "
                f"their metrics are NaN and left out of the means (see episode_failed). First reasons: {reasons}"
            )


class LMPlayer:
    """Replies come from an lm-eval model: one ``generate_until`` per call."""

    def __init__(self, lm: LM) -> None:
        self.lm = lm
        self._renderers: dict[tuple, Renderer] = {}
        self._checked_cache = False
        #: lm-eval's --use_cache database (None without it); counts of turn requests.
        self.cache = TurnCache.of(lm)
        self.replayed = 0
        self.generated = 0
        self._auto_batch = hf_backend.AutoBatch() if hf_backend.is_auto_batch(lm) else None
        #: ``--model hf``: key/value states kept between turns (None: off, or another backend).
        self.prefix_cache = hf_prefix_cache.PrefixCache.of(lm)

    def preflight(self, episodes: Sequence[runner.Episode]) -> None:
        """Refuse visual episodes this model cannot be shown (see :func:`multimodal.preflight`)."""
        multimodal.preflight(self.lm, episodes, [ep.settings for ep in episodes])

    def respond(self, episodes: Sequence[runner.Episode]) -> list[str | BaseException]:
        out: list[str | BaseException | None] = [None] * len(episodes)
        batch: list[Instance] = []
        slots: list[int] = []
        for i, ep in enumerate(episodes):
            settings = ep.settings
            gen_kwargs = copy.deepcopy(settings["gen_kwargs"])
            renderer = self._renderer(settings, gen_kwargs)
            try:
                prompt, dropped, n_tokens = renderer.render(ep)
            except ContextOverflow as exc:
                out[i] = exc
                continue
            ep.current.dropped_turns, ep.current.prompt_tokens = dropped, n_tokens
            images = renderer.images(ep, dropped)
            args = multimodal.visual_args(prompt, gen_kwargs, images) if images else (prompt, gen_kwargs)
            # lm-eval's cache key hashes images by content, so two episodes' identical texts with
            # different images are different rows.
            hit = self.cache.get(args) if self.cache is not None else None
            if hit is not None:  # finished in an earlier, interrupted run: no model call
                out[i], ep.current.cached_tokens = hit.reply, hit.cached_tokens
                self.replayed += 1
                continue
            task, index = ep.spec.get("task"), ep.spec.get("index")
            # doc_id reaches the backend on 0.4.13 too (through the metadata tuple)
            request = make_instance("generate_until", args, task_name=task, doc_id=index, metadata=(task, index, 1))
            batch.append(request)
            slots.append(i)
        if batch:
            replies: list[Any] = [None] * len(batch)
            # Text and visual requests never share a call (a multimodal model reads the first one).
            for group in multimodal.split_calls(batch):
                part = self._generate([batch[g] for g in group], [episodes[slots[g]] for g in group])
                for g, reply in zip(group, part):
                    replies[g] = reply
            self.generated += len(batch)
            for i, request, reply in zip(slots, batch, replies):
                out[i] = reply
                if self.cache is not None and isinstance(reply, str):
                    self.cache.put(request.args, reply, episodes[i].current.cached_tokens)
            if self.cache is not None:
                self.cache.commit()
        return out  # type: ignore[return-value]

    def _generate(self, batch: list[Instance], episodes: list[runner.Episode]) -> list[str]:
        """One ``generate_until`` call (one engine call on vLLM) over ``batch``."""
        if vllm_backend.is_vllm(self.lm):
            replies = self._generate_vllm(batch, episodes)
        else:
            with contextlib.ExitStack() as stack:
                if self._auto_batch is not None:
                    stack.enter_context(self._auto_batch.turn(self.lm, len(batch)))
                reused = stack.enter_context(self.prefix_cache.turn()) if self.prefix_cache is not None else None
                replies = _generate(self.lm, batch)
            if reused is not None:
                for ep, request in zip(episodes, batch):
                    hits = reused.get(hf_prefix_cache.prompt_key(self.lm, request.args[0]))
                    ep.current.cached_tokens = hits.pop(0) if hits else None
        replies = list(replies)
        if len(replies) != len(batch):
            raise RuntimeError(f"the backend returned {len(replies)} replies for {len(batch)} requests")
        return replies

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
            count_text = _token_counter(lm)
            self._renderers[key] = Renderer(
                chat_template=(lambda msgs: lm.apply_chat_template(msgs)) if key[0] else None,
                count_tokens=count_text,
                count_image_tokens=multimodal.image_token_counter(lm, count_text),
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
