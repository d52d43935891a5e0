"""lm-eval's ``--use_cache DIR``, read and written turn by turn, so that an interrupted run resumes.

``--use_cache`` wraps the model in ``lm_eval.api.model.CachingLM``, which caches only
``loglikelihood``/``generate_until`` calls made *through the wrapper*; ``cog_episode``
passes straight to the inner model (``CachingLM.__getattr__``), so without this module
the episodes' turns were never read back.

Where our rows live: in the same SQLite file as lm-eval's (``<DIR>_rank<r>.db``), but in a
table of our own, :data:`TABLE`, beside lm-eval's ``SqliteDict`` table (``unnamed``). Our
values are JSON text, decoded with ``json.loads`` only: a row of the file can be wrong, but
never code. lm-eval's rows are pickles (``SqliteDict``'s default); this module never reads
their values. ``SqliteDict`` unpickles nothing when the file is opened, and ``CachingLM``
unpickles a row only when a request made through it (a non-``cog_*`` task in the same run)
has that row's key: that is lm-eval's trust in its own file, outside this module's reach.

A turn's key is lm-eval's key for a ``generate_until`` request,
``hash_args("generate_until", (prompt, gen_kwargs))``: the rendered prompt (the whole
conversation so far) and the generation settings. A reply is written when the backend
reports it (``cache_hook.add_partial``, as HF does reply by reply), so a turn cut off
half-way keeps its finished replies; the rest at the turn's end. Replaying a finished turn
rebuilds the episode exactly (environments are deterministic given the seed and the
replies), and the run continues where it stopped.

Model identity: lm-eval's key has none. The row :data:`IDENTITY_KEY` records the model
that wrote our table (:func:`cache_identity`): backend, model name and dtype, and every model
argument the run was given (``--model_args``, as lm-eval parsed them) except those known not to
change a reply (:data:`REPLY_NEUTRAL_ARGS`: batch size, device, memory placement...). A LoRA adapter
(``peft=``, ``delta=``), another ``revision``, a quantisation (``load_in_8bit``, ``load_in_4bit``,
``autogptq``, ``gptqmodel``, ``quantization=``), ``trust_remote_code``, ``max_length`` (which trims
the prompts), chat-template arguments (``enable_thinking``, ``chat_template_args``) or a model-level
generation setting is therefore another model; an argument this module does not know is keyed too.
What the run sends per turn needs no identity: the chat template, ``--system_instruction`` and
context trimming are in the rendered prompt, ``--gen_kwargs`` in the generation settings, and both
are in each row's key. A table of another model, or with rows but no identity, or a file
written by an older lm-eval-cog (pickled rows in lm-eval's table) is refused before any
request, naming the file and both identities; ``LM_EVAL_COG_REBUILD_CACHE=1`` empties our
rows instead and starts over with this model (lm-eval's own rows are left alone).

A row that cannot be read (not JSON, not a reply, a bad prefix-cache count) is a cache
miss: its turn is generated again, and one WARNING per run gives their number.

Sampled generation (``do_sample`` or ``temperature > 0``) is neither read nor written,
as in ``CachingLM``: identical prompts of two episodes must not share one draw.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# lm-eval's own key (0.4.13 and 0.5 alike): a reply HF reports is found under the key we look up.
from lm_eval.api.model import hash_args

_LOG = logging.getLogger("lm_eval.cog")
#: Our table in lm-eval's ``--use_cache`` file: ``key TEXT`` -> JSON ``value TEXT``.
TABLE = "lm_eval_cog"
#: The row of :data:`TABLE` naming the model that wrote it (a JSON string); also the key under
#: which versions before the JSON table kept it, pickled, in lm-eval's table.
IDENTITY_KEY = "lm_eval_cog:model"
#: Environment variable: a cache this run would refuse is emptied of our rows and restarted.
REBUILD_ENV = "LM_EVAL_COG_REBUILD_CACHE"
#: lm-eval's table when its database does not say (``SqliteDict``'s default).
_LM_EVAL_TABLE = "unnamed"
#: Side rows of the older versions in lm-eval's table (their keys are matched, never their values).
_LEGACY_GLOB = "*:cached_tokens"
#: Replies reported mid-turn are written at most this often: HF reports them one by one, vLLM
#: a whole turn at once; a commit per reply would cost a disk sync per episode per turn.
_PARTIAL_FLUSH_S = 1.0


class CacheMismatch(ValueError):
    """The ``--use_cache`` database cannot be used by this run (another model, no identity, an older format)."""


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


#: Model arguments that decide where and how fast a model runs, never what it replies (lm-eval's
#: hf, vllm and API backends): left out of :func:`cache_identity`, so a rerun with another batch size
#: or device resumes from the cache. Every other argument is part of the identity.
REPLY_NEUTRAL_ARGS = frozenset({
    "batch_size", "max_batch_size", "device", "device_map", "parallelize", "max_memory_per_gpu", "max_cpu_memory",
    "offload_folder", "logits_cache", "gpu_memory_utilization", "swap_space", "data_parallel_size",
    "num_concurrent", "max_retries", "timeout",
})


def cache_identity(lm: Any) -> str:
    """:func:`model_identity` and the model arguments that can change a reply (sorted JSON), as the
    run gave them (``lm.cog_model_args``, kept by the start-up hook); a model built in Python without
    them is known by :func:`model_identity` alone."""
    args = getattr(lm, "cog_model_args", None)
    identity = model_identity(lm)
    if not isinstance(args, dict):
        return identity
    keyed = {str(k): v for k, v in args.items() if str(k) not in REPLY_NEUTRAL_ARGS}
    if not keyed:
        return identity
    # An object argument (a model instance passed in Python) is known by its type, not its repr.
    return f"{identity} {json.dumps(keyed, sort_keys=True, default=lambda o: f'<{type(o).__qualname__}>')}"


def is_sampled(gen_kwargs: dict[str, Any]) -> bool:
    temperature = gen_kwargs.get("temperature")
    return bool(gen_kwargs.get("do_sample")) or (isinstance(temperature, (int, float)) and temperature > 0)


def rebuild_from_env() -> bool:
    """``LM_EVAL_COG_REBUILD_CACHE``: 1/true/yes rebuilds a refused cache; unset, empty, 0/false/no refuse it."""
    raw = os.environ.get(REBUILD_ENV, "").strip().lower()
    if raw in ("", "0", "false", "no"):
        return False
    if raw in ("1", "true", "yes"):
        return True
    raise ValueError(f"{REBUILD_ENV} must be 1 (rebuild a cache this run cannot use) or 0, got {raw!r}")


# --------------------------------------------------------------------------- row codecs (JSON only)

def encode_turn(reply: str, cached_tokens: int | None) -> str:
    # ensure_ascii: a reply's lone surrogates (undecodable model bytes) survive as \\udcxx escapes.
    return json.dumps({"reply": reply, "cached_tokens": cached_tokens})


def decode_turn(value: Any) -> Hit | None:
    """The turn a row holds, or None for anything else: a BLOB (e.g. a pickle), bad JSON, wrong fields."""
    data = _json_or_none(value)
    if not isinstance(data, dict) or not isinstance(data.get("reply"), str):
        return None
    tokens = data.get("cached_tokens")
    # bool is an int to Python, not a token count; a negative count was never written by us.
    if tokens is not None and (type(tokens) is not int or tokens < 0):
        return None
    return Hit(data["reply"], tokens)


def decode_identity(value: Any) -> str | None:
    data = _json_or_none(value)
    return data if isinstance(data, str) else None


def _json_or_none(value: Any) -> Any:
    if not isinstance(value, str):  # sqlite is dynamically typed: a crafted row may be a BLOB or a number
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested arrays
        return None


# --------------------------------------------------------------------------- the file

def _connect(path: str) -> sqlite3.Connection:
    # check_same_thread=False: with a turn timeout the backend runs (and reports replies) in a
    # worker thread; every use goes through TurnCache._lock. timeout: lm-eval's own connection
    # to the same file may hold its write lock for a moment.
    return sqlite3.connect(path, timeout=60, check_same_thread=False)


def _create_table(conn: sqlite3.Connection) -> None:
    with conn:
        conn.execute(f'CREATE TABLE IF NOT EXISTS "{TABLE}" (key TEXT PRIMARY KEY, value TEXT NOT NULL)')


def _stored_identity(conn: sqlite3.Connection) -> tuple[bool, Any]:
    """(whether our table has any row, the identity row's raw value or None)."""
    any_row = conn.execute(f'SELECT 1 FROM "{TABLE}" LIMIT 1').fetchone() is not None
    row = conn.execute(f'SELECT value FROM "{TABLE}" WHERE key = ?', (IDENTITY_KEY,)).fetchone()
    return any_row, None if row is None else row[0]


def _legacy_rows(conn: sqlite3.Connection, lm_table: str) -> int:
    """Rows an older lm-eval-cog left in lm-eval's table (matched by key; values never read)."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (lm_table,)).fetchone()
    if exists is None:
        return 0
    query = f'SELECT COUNT(*) FROM "{_quote(lm_table)}" WHERE key = ? OR key GLOB ?'
    return conn.execute(query, (IDENTITY_KEY, _LEGACY_GLOB)).fetchone()[0]


def _refusal(conn: sqlite3.Connection, path: str, identity: str, lm_table: str) -> str | None:
    """Why this run must not use the file, or None when it may (an empty table is ours to stamp)."""
    any_row, raw = _stored_identity(conn)
    this = f"this run's model is {identity!r}"
    if any_row:
        if raw is None:
            return f"--use_cache database {path} holds lm-eval-cog replies but no model identity row, {this}"
        stored = decode_identity(raw)
        if stored is None:
            return f"--use_cache database {path} has an unreadable model identity row (not lm-eval-cog's), {this}"
        if stored != identity:
            return f"--use_cache database {path} holds replies of model {stored!r}, but {this}"
        return None
    if _legacy_rows(conn, lm_table):
        return (
            f"--use_cache database {path} was written by an older lm-eval-cog (pickled rows, which this "
            f"version never reads, so their model cannot be checked), {this}"
        )
    return None


def _rebuild(conn: sqlite3.Connection, lm_table: str) -> int:
    """Drop our rows (and an older version's, by key); lm-eval's own rows stay. Returns how many went."""
    gone = conn.execute(f'SELECT COUNT(*) FROM "{TABLE}"').fetchone()[0] + _legacy_rows(conn, lm_table)
    with conn:
        conn.execute(f'DELETE FROM "{TABLE}"')
        if gone:
            conn.execute(f'DELETE FROM "{_quote(lm_table)}" WHERE key = ? OR key GLOB ?', (IDENTITY_KEY, _LEGACY_GLOB))
    return gone


def _unreadable_rows(conn: sqlite3.Connection) -> int:
    rows = conn.execute(f'SELECT value FROM "{TABLE}" WHERE key != ?', (IDENTITY_KEY,))
    return sum(decode_turn(value) is None for (value,) in rows)


def _quote(table: str) -> str:
    return table.replace('"', '""')


# --------------------------------------------------------------------------- the cache

class TurnCache:
    """Our table of one ``--use_cache`` file, for turn requests ``(prompt, gen_kwargs)``.

    Opening it checks the model identity (see :func:`_refusal`) and counts unreadable rows,
    before any request. Writes are buffered and reach the file at :meth:`commit` (the end of
    each turn), or within :data:`_PARTIAL_FLUSH_S` of a reply the backend reports mid-turn.
    """

    def __init__(
        self, path: str | os.PathLike[str], identity: str, *, lm_table: str = _LM_EVAL_TABLE, rebuild: bool = False
    ) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._conn = _connect(self.path)
        # Closes the file when the cache is dropped (the hook left on the model holds no reference).
        weakref.finalize(self, self._conn.close)
        self._open(identity, lm_table, rebuild)
        self._pending: dict[str, str] = {}
        self._last_flush = time.monotonic()
        #: Keys looked up and missed in this run: a reply the backend reports is ours to keep only
        #: for one of these (not for a non-cog task's requests, nor a sampled turn's).
        self._awaited: set[str] = set()
        self._warned_sampling = False

    def _open(self, identity: str, lm_table: str, rebuild: bool) -> None:
        """Refuse the file, or rebuild it on request, before any request; then stamp and survey it."""
        try:
            _create_table(self._conn)
            reason = _refusal(self._conn, self.path, identity, lm_table)
        except sqlite3.DatabaseError as exc:  # e.g. a table of our name with other columns
            reason = f"--use_cache database {self.path} has an lm-eval-cog table this version cannot read ({exc})"
            if rebuild:
                with self._conn:
                    self._conn.execute(f'DROP TABLE IF EXISTS "{TABLE}"')
                _create_table(self._conn)
        if reason is not None:
            if not rebuild:
                raise CacheMismatch(
                    f"{reason}: give this model its own --use_cache path or delete this file, or set "
                    f"{REBUILD_ENV}=1 to discard lm-eval-cog's rows in it and start over"
                )
            gone = _rebuild(self._conn, lm_table)
            _LOG.warning(f"{reason}; {REBUILD_ENV} is set: {gone} lm-eval-cog rows discarded, the cache starts over")
        with self._conn:  # a fresh (or rebuilt) table is this model's from now on; a matching one keeps its row
            self._conn.execute(f'INSERT OR IGNORE INTO "{TABLE}" VALUES (?, ?)', (IDENTITY_KEY, json.dumps(identity)))
        unreadable = _unreadable_rows(self._conn)
        if unreadable:
            _LOG.warning(
                f"--use_cache {self.path}: {unreadable} cached turn(s) cannot be read (corrupt, or not written by "
                "lm-eval-cog); they are ignored and generated again"
            )

    @classmethod
    def of(cls, lm: Any) -> TurnCache | None:
        """The cache of the database ``CachingLM`` attached to ``lm``, or None without ``--use_cache``.

        Also routes the replies the backend reports mid-turn (``cache_hook.add_partial``) to it.
        """
        hook = getattr(lm, "cache_hook", None)
        if isinstance(hook, _TurnHook):  # a model playing a second time: one hook, the newest cache
            hook = hook.inner
        db = getattr(hook, "dbdict", None)
        if db is None:
            return None
        path = getattr(db, "filename", None)
        if not isinstance(path, str):  # a CachingLM that is not lm-eval 0.4/0.5's SqliteDict
            _LOG.warning(f"--use_cache: cannot locate the cache file of {type(db).__name__}; turns are not cached")
            return None
        table = getattr(db, "tablename", _LM_EVAL_TABLE)
        cache = cls(path, cache_identity(lm), lm_table=table, rebuild=rebuild_from_env())
        lm.cache_hook = _TurnHook(hook, cache)
        return cache

    def key(self, args: tuple[Any, ...]) -> str | None:
        if is_sampled(args[1]):
            if not self._warned_sampling:
                _LOG.warning("--use_cache: sampled generation is not cached (as in lm-eval); a rerun replays no turn")
                self._warned_sampling = True
            return None
        return hash_args("generate_until", args)

    def get(self, args: tuple[Any, ...]) -> Hit | None:
        key = self.key(args)
        if key is None:
            return None
        with self._lock:
            value = self._pending.get(key)
            if value is None:
                row = self._conn.execute(f'SELECT value FROM "{TABLE}" WHERE key = ?', (key,)).fetchone()
                value = None if row is None else row[0]
        hit = decode_turn(value)
        if hit is None:
            self._awaited.add(key)
        return hit

    def put(self, args: tuple[Any, ...], reply: str, cached_tokens: int | None) -> None:
        key = self.key(args)
        if key is None:
            return
        with self._lock:
            self._pending[key] = encode_turn(reply, cached_tokens)
        self._awaited.discard(key)

    def partial(self, key: str, reply: Any) -> None:
        """A reply the backend reported mid-turn under lm-eval's key (see :class:`_TurnHook`)."""
        if key not in self._awaited or not isinstance(reply, str):
            return
        with self._lock:
            self._pending[key] = encode_turn(reply, None)
            if time.monotonic() - self._last_flush >= _PARTIAL_FLUSH_S:
                self._flush()

    def commit(self) -> None:
        """Blocks until the turn's rows are on disk: a kill after this loses no finished turn."""
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            with self._conn:  # one transaction: the turn's rows land together
                self._conn.executemany(f'REPLACE INTO "{TABLE}" VALUES (?, ?)', self._pending.items())
            self._pending.clear()
        self._last_flush = time.monotonic()


class _TurnHook:
    """lm-eval's cache hook, unchanged, that also hands each ``generate_until`` reply to the cache.

    HF reports every reply as it is produced (``add_partial``); keeping them in our table is
    what lets a turn cut off half-way resume with its finished replies.
    """

    def __init__(self, inner: Any, cache: TurnCache) -> None:
        self.inner = inner
        self._cache = weakref.ref(cache)  # the cache goes with its run; the model keeps the hook

    def add_partial(self, attr: str, req: Any, res: Any) -> None:
        self.inner.add_partial(attr, req, res)
        cache = self._cache()
        if cache is None or attr != "generate_until":
            return
        try:
            key = hash_args(attr, req)
        except (TypeError, ValueError):  # an argument lm-eval's key cannot hash: not one of our turns
            return
        cache.partial(key, res)

    def __getattr__(self, name: str) -> Any:  # dbdict and whatever else lm-eval's hook has
        if name == "inner":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


__all__ = [
    "CacheMismatch",
    "Hit",
    "IDENTITY_KEY",
    "REBUILD_ENV",
    "TABLE",
    "REPLY_NEUTRAL_ARGS",
    "TurnCache",
    "cache_identity",
    "decode_turn",
    "is_sampled",
    "model_identity",
    "rebuild_from_env",
]
