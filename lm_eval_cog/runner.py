"""Lock-step episode runner: all episodes of a run advance together, one turn at a time.

Each turn, the prompts of every episode still running go to the player in ONE
batched call (for an lm-eval backend: one ``generate_until``). The runner knows
nothing of lm-eval or torch: a :class:`Player` turns live episodes into replies.

Failure isolation: if a batched call raises (or passes ``turn_timeout``), each
episode of the batch is retried alone, so only the episodes whose own request fails
are marked ``failed`` (with the reason) and the others go on.

Turn timeout: Python cannot stop a call that hangs, so with a timeout the player is
called in a daemon thread and abandoned when the time is up (its late reply is
discarded; a daemon thread never keeps the process alive at exit).
"""

from __future__ import annotations

import dataclasses
import threading
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from lm_eval_cog.paradigms.base import Env

RUNNING = "running"
COMPLETED = "completed"  # the environment ended the episode
TRUNCATED = "truncated"  # the environment's turn bound was reached
FAILED = "failed"  # an error (backend, environment, context window); see ``error``


@dataclass
class Turn:
    """One exchange. ``dropped_turns``: how many of the oldest turns were left out of
    this turn's prompt to fit the context window (the instructions never are);
    ``prompt_tokens``: its length; ``cached_tokens``: how many of them the backend's prefix
    cache served (vLLM's, or the hf backend's kept key/value states)."""

    user: str
    reply: str | None = None
    dropped_turns: int = 0
    prompt_tokens: int | None = None
    #: Prompt tokens the backend served from its prefix cache (vLLM, hf); None when not reported.
    cached_tokens: int | None = None
    #: The image of this turn's user message (visual paradigms, :class:`~lm_eval_cog.paradigms.images.TurnImage`),
    #: drawn only when a model needs it. The transcript keeps what it shows, never the pixels;
    #: a turn read back from a transcript holds that description (a dict) instead.
    image: Any = field(default=None, repr=False, compare=False)

    def record(self) -> dict[str, Any]:
        """The turn as JSON-ready data (``image``: what it shows, and only for turns that have one)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "image"}
        if self.image is not None:
            out["image"] = dict(getattr(self.image, "shows", self.image))
        return out


@dataclass
class Episode:
    """A running episode: the environment plus the conversation so far."""

    spec: dict[str, Any]
    env: Env | None = None
    system: str = ""
    turns: list[Turn] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    status: str = RUNNING
    error: str | None = None
    closing: str | None = None
    #: Per-episode settings of the player (e.g. chat template on/off, gen_kwargs).
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def live(self) -> bool:
        return self.status == RUNNING

    @property
    def current(self) -> Turn:
        return self.turns[-1]

    def messages(self, drop: int = 0) -> list[dict[str, str]]:
        """Chat messages for the current turn, leaving out the ``drop`` oldest turns."""
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        for t in self.turns[drop:-1]:
            msgs.append({"role": "user", "content": t.user})
            msgs.append({"role": "assistant", "content": t.reply or ""})
        msgs.append({"role": "user", "content": self.current.user})
        return msgs

    def fail(self, reason: str) -> None:
        self.status = FAILED
        self.error = reason

    def transcript(self) -> dict[str, Any]:
        """Everything needed to recompute the metrics offline (JSON-serialisable)."""
        return {
            **self.spec,
            "status": self.status,
            "error": self.error,
            "system": self.system,
            "turns": [t.record() for t in self.turns],
            "closing": self.closing,
            "trials": list(self.env.log) if self.env is not None else [],
        }


class Player(Protocol):
    """Produces one reply per live episode; called once per turn with all of them.

    May return an exception object in place of a reply to fail just that episode;
    raising fails the whole call (the runner then retries episode by episode).
    """

    def respond(self, episodes: Sequence[Episode]) -> list[str | BaseException]: ...


def start_episodes(specs: Iterable[dict[str, Any]], make_env: Callable[[dict[str, Any]], Env]) -> list[Episode]:
    """Build and reset one environment per spec (``spec["seed"]`` seeds the episode)."""
    episodes = []
    for spec in specs:
        ep = Episode(spec=dict(spec))
        try:
            ep.env = make_env(spec)
            message, ep.info = ep.env.reset(seed=spec["seed"])
            ep.system = ep.env.system_prompt
            ep.turns.append(Turn(user=message, image=turn_image(ep.env)))
        except Exception as exc:  # noqa: BLE001 - recorded, the other episodes go on
            ep.fail(_reason("environment reset", exc))
        episodes.append(ep)
    return episodes


class TurnTimeout(TimeoutError):
    """The player gave no reply within the turn timeout."""


def run_lockstep(
    episodes: list[Episode],
    player: Player,
    *,
    progress: bool | str = True,
    turn_timeout: float | None = None,
) -> list[Episode]:
    """Advance all live episodes together until every one has ended. Returns ``episodes``.

    ``turn_timeout``: seconds one player call may take (None: no limit); an episode
    whose own request passes it fails with the reason.
    """
    bar = _progress_bar(episodes, progress)
    try:
        while live := [ep for ep in episodes if ep.live]:
            replies = _respond_isolated(player, live, turn_timeout)
            for ep, reply in zip(live, replies):
                if isinstance(reply, BaseException):
                    ep.fail(_reason("model request", reply))
                    continue
                if isinstance(reply, (bytes, bytearray)):
                    # Undecodable bytes survive as lone surrogates (lossless; the
                    # transcript escapes them, see transcripts.dumps).
                    reply = bytes(reply).decode("utf-8", "surrogateescape")
                if not isinstance(reply, str):
                    ep.fail(f"model request failed: the backend returned {type(reply).__name__} {reply!r:.200}, not a str")
                    continue
                _advance(ep, reply)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(live=sum(ep.live for ep in episodes), refresh=False)
    finally:
        if bar is not None:
            bar.close()
    return episodes


def run_one_at_a_time(episodes: list[Episode], player: Player, *, progress: bool | str = False) -> list[Episode]:
    """Play episodes sequentially (the anchors' way); used by the benchmark as the baseline."""
    for ep in episodes:
        run_lockstep([ep], player, progress=progress)
    return episodes


def _advance(ep: Episode, reply: str) -> None:
    ep.current.reply = reply
    try:
        message, terminated, truncated, ep.info = ep.env.step(reply)
    except Exception as exc:  # noqa: BLE001
        ep.fail(_reason("environment step", exc))
        return
    if terminated or truncated:
        ep.status = COMPLETED if terminated else TRUNCATED
        ep.closing = message
    else:
        ep.turns.append(Turn(user=message, image=turn_image(ep.env)))


def turn_image(env: Env) -> Any:
    """The image of the env's current message (visual paradigms implement ``turn_image``), or None."""
    get = getattr(env, "turn_image", None)
    return get() if get is not None else None


def _respond_isolated(player: Player, live: list[Episode], timeout: float | None = None) -> list[str | BaseException]:
    try:
        replies = list(_call(player, live, timeout))
        if len(replies) != len(live):
            raise RuntimeError(f"player returned {len(replies)} replies for {len(live)} episodes")
        return replies
    except Exception as batch_exc:  # noqa: BLE001
        if len(live) == 1:
            return [batch_exc]
    out: list[str | BaseException] = []
    for ep in live:
        try:
            (reply,) = _call(player, [ep], timeout)
            out.append(reply)
        except Exception as exc:  # noqa: BLE001
            out.append(exc)
    return out


def _call(player: Player, episodes: list[Episode], timeout: float | None) -> list[str | BaseException]:
    # A limit longer than a thread can wait (inf, or past threading.TIMEOUT_MAX, ~292 years)
    # is no limit: Thread.join would raise OverflowError and fail every episode.
    if timeout is None or timeout >= threading.TIMEOUT_MAX:
        return player.respond(episodes)
    result: list[Any] = []

    def work() -> None:
        try:
            result.append(("ok", player.respond(episodes)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            result.append(("error", exc))

    worker = threading.Thread(target=work, name="cog-turn", daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        raise TurnTimeout(f"no reply within the turn timeout of {timeout:g} s ({len(episodes)} episode(s) in the call)")
    kind, value = result[0]
    if kind == "error":
        raise value
    return value


def _reason(where: str, exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" at {last[0].filename}:{last[0].lineno}" if last else ""
    return f"{where} failed: {type(exc).__name__}: {exc}{at}"


def _progress_bar(episodes: list[Episode], progress: bool | str):
    if not progress:
        return None
    from tqdm.auto import tqdm

    max_turns = max((getattr(ep.env.params, "max_turns", 0) for ep in episodes if ep.env is not None), default=0)
    desc = progress if isinstance(progress, str) else "cog episodes"
    return tqdm(total=max_turns or None, desc=desc, unit="turn")
