"""Prefix reuse for lm-eval's HF model (``lm_eval.models.huggingface.HFLM``): a turn costs its new
tokens, not the whole conversation again.

An episode's prompt at turn t is its prompt at turn t-1, the reply, and the feedback. HFLM's
``generate_until`` prefills every prompt from its first token, so a 64-trial episode costs the sum
of all its prefixes (vLLM's prefix cache avoids this; ``hf`` is lm-eval's default backend and the
embedded CPU path). For the turn, :class:`PrefixCache` wraps ``_model_generate`` on the instance:

* HFLM has already tokenised, left-padded and chunked the prompts (its ``--batch_size``); row i
  of a chunk is ``pads + n_i tokens``. Each row is compared, token id by token id, with the stored
  entries (prompt + reply tokens of earlier calls and their key/value states); the longest common
  prefix is the part that may be reused. Only identical ids at identical positions are reused: a
  row that differs early (another episode, a dropped turn, left truncation) is prefilled from there.
* With S = the most tokens any row of the chunk lacks, every row's first ``N - S`` columns come
  from the entries (one left-padded ``DynamicCache``) and ``generate`` prefills only the last S
  columns. Input ids, attention mask, stop criteria, sampling and decoding stay HFLM's own.
* After the call each row's states (prompt + reply) become an entry for the next turn; an entry
  no row of a turn used (a finished episode) is dropped at the end of the turn. Above the budget,
  the largest entries are evicted (logged); their episodes are prefilled in full next turn.

``LM_EVAL_COG_HF_PREFIX_REUSE=0`` switches it off (HFLM's own path, untouched);
``LM_EVAL_COG_HF_PREFIX_BUDGET_MB`` caps the stored states (default: a quarter of the GPU's memory
on CUDA, of the machine's RAM elsewhere). Only for decoder-only models whose layers all use full
attention (a sliding-window layer keeps a window, not the prefix): others keep HFLM's path.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Iterator
from typing import Any

_LOG = logging.getLogger("lm_eval.cog")

#: Environment variable: ``0``/``off``/``false`` switches prefix reuse off (default on).
REUSE_ENV = "LM_EVAL_COG_HF_PREFIX_REUSE"
#: Environment variable: MiB of key/value states kept between turns.
BUDGET_ENV = "LM_EVAL_COG_HF_PREFIX_BUDGET_MB"
_OFF, _ON = ("0", "off", "false", "no"), ("1", "on", "true", "yes", "")
_MIB = 1 << 20
#: Turns a stored conversation waits to be extended before it is dropped: a game's role may sit
#: out rounds (Taboo's describer waits one, Wordle's critic two).
KEEP_IDLE_TURNS = 3


def reuse_enabled_from_env() -> bool:
    raw = os.environ.get(REUSE_ENV, "").strip().lower()
    if raw in _OFF:
        return False
    if raw in _ON:
        return True
    raise ValueError(f"{REUSE_ENV} must be one of 1/on/true or 0/off/false, got {os.environ[REUSE_ENV]!r}")


def budget_from_env(device: Any) -> int:
    """Bytes of stored states: ``LM_EVAL_COG_HF_PREFIX_BUDGET_MB``, or a quarter of the device's memory."""
    raw = os.environ.get(BUDGET_ENV, "").strip()
    if raw:
        try:
            mib = float(raw)
        except ValueError:
            mib = float("nan")
        if not mib > 0 or mib == float("inf"):
            raise ValueError(f"{BUDGET_ENV} must be a positive number of MiB, got {raw!r}")
        return int(mib * _MIB)
    return default_budget(device)


def default_budget(device: Any) -> int:
    import torch

    if str(device).startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_properties(torch.device(device)).total_memory // 4
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (ValueError, OSError, AttributeError):
        return 4096 * _MIB


def prompt_key(lm: Any, prompt: str) -> tuple[int, ...]:
    """The token ids of ``prompt`` as HFLM's ``generate_until`` encodes it (no truncation: the
    renderer keeps prompts within the context window)."""
    ids, _ = lm.tok_batch_encode([prompt])
    return tuple(ids[0].tolist())


def applies(lm: Any) -> bool:
    """lm-eval's text HF model (not its multimodal subclass) with a decoder-only model."""
    cls = type(lm)
    return (
        cls.__module__ == "lm_eval.models.huggingface"
        and getattr(lm, "backend", None) == "causal"
        and hasattr(lm, "_model_generate")
        and hasattr(getattr(lm, "model", None), "generate")
    )


def full_attention_only(model: Any) -> bool:
    """Every layer keeps all past positions (no sliding window, no recurrent state)."""
    config = getattr(model, "config", None)
    config = getattr(config, "get_text_config", lambda: config)()
    layer_types = getattr(config, "layer_types", None)
    if layer_types is not None:
        return all(t == "full_attention" for t in layer_types)
    return getattr(config, "sliding_window", None) is None or not getattr(config, "use_sliding_window", True)


@dataclasses.dataclass
class _Entry:
    tokens: Any  # 1-D LongTensor on the CPU: the ids whose states are stored
    states: list[tuple[Any, Any]]  # per layer (keys, values), each [1, heads, len, head_dim]
    nbytes: int
    turn: int  # the turn that made it


class PrefixCache:
    """Stored key/value states of one run's conversations; see the module docstring."""

    def __init__(self, lm: Any, budget_bytes: int) -> None:
        self.lm = lm
        self.budget = int(budget_bytes)
        self.entries: list[_Entry] = []
        self.turns = 0
        #: Totals for the log and the benchmark: prompt tokens seen, reused, evictions.
        self.prompt_tokens = 0
        self.reused_tokens = 0
        self.evicted = 0
        self._warned_eviction = False

    @classmethod
    def of(cls, lm: Any) -> PrefixCache | None:
        """The cache for ``lm``, or None where reuse is off or does not apply (logged once)."""
        if not applies(lm) or not reuse_enabled_from_env():
            return None
        if not full_attention_only(lm.model):
            _LOG.info("hf prefix reuse: off for this model (sliding-window or recurrent layers); full prefill per turn")
            return None
        budget = budget_from_env(getattr(lm, "device", "cpu"))
        _LOG.info(
            f"hf prefix reuse: on, budget {budget / _MIB:.0f} MiB of key/value states "
            f"({BUDGET_ENV} sets it, {REUSE_ENV}=0 switches reuse off)"
        )
        return cls(lm, budget)

    @property
    def stored_bytes(self) -> int:
        return sum(e.nbytes for e in self.entries)

    @contextlib.contextmanager
    def turn(self) -> Iterator[dict[tuple[int, ...], list[int]]]:
        """Within the block, ``lm.generate_until`` reuses stored prefixes. Yields
        ``{row token ids: [reused tokens, ...]}`` of every row generated in the block."""
        self.turns += 1
        reused: dict[tuple[int, ...], list[int]] = {}
        original = self.lm._model_generate

        def _model_generate(context, max_length, stop, **kwargs):
            return self._generate(original, context, max_length, stop, kwargs, reused)

        self.lm._model_generate = _model_generate  # instance attribute: the class stays untouched
        try:
            yield reused
        finally:
            del self.lm._model_generate
            # What no row extended for KEEP_IDLE_TURNS turns belongs to a finished (or replayed)
            # episode. Not after one turn: a game's role sits out the rounds its partner plays.
            self.entries = [e for e in self.entries if self.turns - e.turn < KEEP_IDLE_TURNS]
            self._evict()

    # -- one chunk -------------------------------------------------------------------------------

    def _generate(self, original, context, max_length, stop, kwargs, reused):
        mask = kwargs.get("attention_mask")
        given_cache = {"cache", "past_key_values"} & kwargs.keys()
        if given_cache or mask is None or context.dim() != 2 or mask.shape != context.shape:
            return original(context, max_length, stop, **kwargs)
        ids, mask_cpu = context.detach().cpu(), mask.detach().cpu()
        n_rows, width = ids.shape
        lengths = [int(x) for x in mask_cpu.sum(dim=1)]
        if any(not bool(mask_cpu[i, width - n:].all()) for i, n in enumerate(lengths)):
            return original(context, max_length, stop, **kwargs)  # not left-padded: no reuse
        rows = [ids[i, width - n :] for i, n in enumerate(lengths)]
        matches = [self._longest_prefix(row) for row in rows]
        # At least one token per row is fed, so every row gets fresh logits.
        covered = [min(common, n - 1) for (_, common), n in zip(matches, lengths)]
        suffix = max(n - c for n, c in zip(lengths, covered))
        past = width - suffix
        cache = self._new_cache()
        if past > 0:
            self._fill(cache, [e for e, _ in matches], [max(0, n - suffix) for n in lengths], past)
        out = original(context, max_length, stop, **{_cache_kwarg(): cache}, **kwargs)
        consumed = set()
        for i, (entry, common), n in zip(range(n_rows), matches, lengths):
            use = max(0, n - suffix)
            reused.setdefault(tuple(rows[i].tolist()), []).append(use)
            self.prompt_tokens += n
            self.reused_tokens += use
            if entry is not None and common == len(entry.tokens):
                consumed.add(id(entry))  # the row's new entry extends all of it: free it now
        self.entries = [e for e in self.entries if id(e) not in consumed]
        self._store(cache, out, lengths, width)
        return out

    def _longest_prefix(self, row) -> tuple[_Entry | None, int]:
        import torch

        best, best_len = None, 0
        for entry in self.entries:
            if entry.turn == self.turns:
                continue  # made by another row of this turn: never this row's own history
            m = min(len(row), len(entry.tokens))
            if m <= best_len:
                continue
            differ = torch.nonzero(row[:m] != entry.tokens[:m])
            common = int(differ[0, 0]) if len(differ) else m
            if common > best_len:
                best, best_len = entry, common
        return best, best_len

    def _new_cache(self):
        from transformers import DynamicCache

        return DynamicCache()

    def _fill(self, cache, entries, uses, past: int) -> None:
        """Left-pad each row's reused states to ``past`` columns, one tensor per layer."""
        import torch

        template = next(e for e, u in zip(entries, uses) if u > 0)
        for layer, (k0, v0) in enumerate(template.states):
            keys = torch.zeros((len(entries), k0.shape[1], past, k0.shape[3]), dtype=k0.dtype, device=k0.device)
            values = torch.zeros((len(entries), v0.shape[1], past, v0.shape[3]), dtype=v0.dtype, device=v0.device)
            for i, (entry, use) in enumerate(zip(entries, uses)):
                if use:
                    k, v = entry.states[layer]
                    keys[i, :, past - use :] = k[0, :, :use]
                    values[i, :, past - use :] = v[0, :, :use]
            cache.update(keys, values, layer)

    def _store(self, cache, out, lengths: list[int], width: int) -> None:
        """Each row's prompt + reply states (trailing padding after an early stop left out)."""
        layers = _layers(cache)
        if not layers:
            return
        stored = layers[0][0].shape[2]  # the last generated token has no states yet
        pad = getattr(getattr(self.lm, "tokenizer", None), "pad_token_id", None)
        ids = out.detach().cpu()
        for i, n in enumerate(lengths):
            start, end = width - n, stored
            while pad is not None and end > width and int(ids[i, end - 1]) == pad:
                end -= 1
            states = [(k[i : i + 1, :, start:end].clone(), v[i : i + 1, :, start:end].clone()) for k, v in layers]
            nbytes = sum(k.element_size() * k.nelement() + v.element_size() * v.nelement() for k, v in states)
            self.entries.append(_Entry(ids[i, start:end].clone(), states, nbytes, self.turns))

    def _evict(self) -> None:
        total = self.stored_bytes
        if total <= self.budget:
            return
        gone: set[int] = set()
        freed = 0
        for entry in sorted(self.entries, key=lambda e: e.nbytes, reverse=True):
            if total - freed <= self.budget:
                break
            gone.add(id(entry))
            freed += entry.nbytes
        self.entries = [e for e in self.entries if id(e) not in gone]  # as consumed entries are freed
        dropped = len(gone)
        self.evicted += dropped
        message = (
            f"hf prefix reuse: {total / _MIB:.0f} MiB of states over the {self.budget / _MIB:.0f} MiB budget "
            f"({BUDGET_ENV}); evicted {dropped} conversations ({freed / _MIB:.0f} MiB), "
            "prefilled in full next turn"
        )
        if not self._warned_eviction:
            _LOG.warning(message)
            self._warned_eviction = True
        else:
            _LOG.info(message)


def _cache_kwarg() -> str:
    """``generate``'s name for a given cache: ``cache`` since transformers 5 (``past_key_values``
    still works there, with a FutureWarning), ``past_key_values`` before."""
    from transformers.generation import utils

    return "cache" if "cache" in getattr(utils, "ALL_CACHE_NAMES", ()) else "past_key_values"


def _layers(cache) -> list[tuple[Any, Any]]:
    """(keys, values) per layer, on transformers 5 (``cache.layers``) and 4.x (``key_cache``)."""
    if hasattr(cache, "layers"):
        return [(layer.keys, layer.values) for layer in cache.layers if getattr(layer, "keys", None) is not None]
    return list(zip(getattr(cache, "key_cache", []), getattr(cache, "value_cache", [])))


__all__ = ["BUDGET_ENV", "REUSE_ENV", "PrefixCache", "applies"]
