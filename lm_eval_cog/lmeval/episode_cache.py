"""lm-eval's ``--use_cache DIR``, read and written turn by turn, so that an interrupted run resumes.

``--use_cache`` wraps the model in ``lm_eval.api.model.CachingLM``, which caches only
``loglikelihood``/``generate_until`` calls made *through the wrapper*; ``cog_episode``
passes straight to the inner model (``CachingLM.__getattr__``), so without this module
the episodes' turns were written (HF's per-reply ``cache_hook.add_partial``) but never read.

The wrapper leaves its database on the inner model as ``lm.cache_hook.dbdict`` (a
``SqliteDict``). A turn's request is keyed exactly as lm-eval keys a ``generate_until``
request, ``hash_args("generate_until", (prompt, gen_kwargs))``: the rendered prompt
(the whole conversation so far) and the generation settings. So the rows HF writes
reply by reply are found again, even those of a turn cut off half-way. Replaying a
finished turn rebuilds the episode exactly (environments are deterministic given the
seed and the replies), and the run continues where it stopped.

Model identity: lm-eval's key has none (one database per model is the user's job). A
row ``lm_eval_cog:model`` records the model that wrote the database; another model is
refused before any request, rather than silently fed a different model's replies.

Sampled generation (``do_sample`` or ``temperature > 0``) is neither read nor written,
as in ``CachingLM``: identical prompts of two episodes must not share one draw.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

# lm-eval's own key (0.4.13 and 0.5 alike), so that its rows and ours are the same rows.
from lm_eval.api.model import hash_args

_LOG = logging.getLogger("lm_eval.cog")
IDENTITY_KEY = "lm_eval_cog:model"
#: Side rows: ``<key>:cached_tokens`` keeps vLLM's prefix-cache count of a reply, so a
#: resumed run reports the same ``prefix_cached_share`` as an uninterrupted one.
_CACHED_TOKENS_SUFFIX = ":cached_tokens"


class CacheMismatch(ValueError):
    """The ``--use_cache`` database was written by another model."""


@dataclass(frozen=True)
class Hit:
    reply: str
    cached_tokens: int | None


def model_identity(lm: Any) -> str:
    """Backend class, model name and dtype, as far as the backend exposes them
    (hf: ``model.name_or_path``/``model.dtype``; vllm: ``model_args["model"]``; API: ``model``)."""
    model = getattr(lm, "_model", None) or getattr(lm, "model", None)
    name = model if isinstance(model, str) else getattr(model, "name_or_path", None)
    if name is None and isinstance(getattr(lm, "model_args", None), dict):
        name = lm.model_args.get("model")
    dtype = getattr(model, "dtype", None) if not isinstance(model, str) else None
    parts = [f"{type(lm).__module__}.{type(lm).__qualname__}", str(name)]
    if dtype is not None:
        parts.append(str(dtype))
    return " ".join(parts)


def is_sampled(gen_kwargs: dict[str, Any]) -> bool:
    temperature = gen_kwargs.get("temperature")
    return bool(gen_kwargs.get("do_sample")) or (isinstance(temperature, (int, float)) and temperature > 0)


class TurnCache:
    """The ``--use_cache`` database of one run, for turn requests ``(prompt, gen_kwargs)``."""

    def __init__(self, db: Any, identity: str) -> None:
        self.db = db
        self.path = getattr(db, "filename", "?")
        stored = db.get(IDENTITY_KEY)
        if stored is not None and stored != identity:
            raise CacheMismatch(
                f"--use_cache database {self.path} holds replies of model {stored!r}, "
                f"but this run's model is {identity!r}: give this model its own --use_cache path"
            )
        if stored is None:
            db[IDENTITY_KEY] = identity
            db.commit()
        self._warned_sampling = False

    @classmethod
    def of(cls, lm: Any) -> TurnCache | None:
        """The database ``CachingLM`` attached to ``lm``, or None without ``--use_cache``."""
        db = getattr(getattr(lm, "cache_hook", None), "dbdict", None)
        return None if db is None else cls(db, model_identity(lm))

    def key(self, args: tuple[Any, dict[str, Any]]) -> str | None:
        if is_sampled(args[1]):
            if not self._warned_sampling:
                _LOG.warning("--use_cache: sampled generation is not cached (as in lm-eval); a rerun replays no turn")
                self._warned_sampling = True
            return None
        return hash_args("generate_until", args)

    def get(self, args: tuple[Any, dict[str, Any]]) -> Hit | None:
        key = self.key(args)
        if key is None:
            return None
        reply = self.db.get(key)
        if not isinstance(reply, str):
            return None
        return Hit(reply, self.db.get(key + _CACHED_TOKENS_SUFFIX))

    def put(self, args: tuple[Any, dict[str, Any]], reply: str, cached_tokens: int | None) -> None:
        key = self.key(args)
        if key is None:
            return
        self.db[key] = reply
        if cached_tokens is not None:
            self.db[key + _CACHED_TOKENS_SUFFIX] = cached_tokens

    def commit(self) -> None:
        """Blocks until the turn's rows are on disk: a kill after this loses no finished turn."""
        self.db.commit()


__all__ = ["CacheMismatch", "Hit", "TurnCache", "is_sampled", "model_identity"]
