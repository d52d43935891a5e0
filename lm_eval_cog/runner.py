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
    """One exchange. ``dropped_turns``: how many of the oldest turns (after the env's pinned
    ones) were left out of this turn's prompt to fit the context window (the system message never is);
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
    #: Games: the role whose conversation this turn belongs to (None for a one-player paradigm).
    role: str | None = None
    #: False for a question the game asks aside (a probe): answered once, then left out of the
    #: role's later prompts, as clembench does with its probes.
    kept: bool = True

    def record(self) -> dict[str, Any]:
        """The turn as JSON-ready data (``image``: what it shows, and only for turns that have one;
        ``role`` and ``kept`` only for games)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("image", "role", "kept")}
        if self.image is not None:
            out["image"] = dict(getattr(self.image, "shows", self.image))
        if self.role is not None:
            out["role"], out["kept"] = self.role, self.kept
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
    #: A game role's conversation: the :class:`GameEpisode` it belongs to (scripted players keep
    #: one agent per game, not per role).
    owner: Any = field(default=None, repr=False, compare=False)
    #: Leading turns never dropped to fit the context window (``Env.pinned_turns``).
    pinned: int = 0
    #: Whether old turns may be dropped at all (``Env.trims_history``; False for the games).
    trims: bool = True

    @property
    def live(self) -> bool:
        return self.status == RUNNING

    @property
    def current(self) -> Turn:
        return self.turns[-1]

    def kept_turns(self, drop: int = 0) -> list[int]:
        """Indices of the turns in the prompt when ``drop`` turns are dropped: the pinned ones, then
        all but the ``drop`` oldest of the others (the current turn always)."""
        pinned = min(self.pinned, len(self.turns) - 1)
        return [*range(pinned), *range(pinned + drop, len(self.turns))]

    def messages(self, drop: int = 0) -> list[dict[str, str]]:
        """Chat messages for the current turn, leaving out the ``drop`` oldest turns after the pinned ones."""
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        for i in self.kept_turns(drop)[:-1]:
            t = self.turns[i]
            if not t.kept:  # a question asked aside, answered once
                continue
            msgs.append({"role": "user", "content": t.user})
            msgs.append({"role": "assistant", "content": t.reply or ""})
        msgs.append({"role": "user", "content": self.current.user})
        return msgs

    def fail(self, reason: str) -> None:
        self.status = FAILED
        self.error = reason

    def transcript(self) -> dict[str, Any]:
        """Everything needed to recompute the metrics offline (JSON-serialisable)."""
        return _transcript(self)


class GameEpisode:
    """An episode of a dialogue game: one conversation (a :class:`Episode`, its *seat*) per model role.

    The game's environment (:class:`lm_eval_cog.games.base.GameEnv`) names the role it awaits
    (``env.due``); each round the runner sends that seat's prompt in the same batched call as
    every other live episode's due seat. In self-play one model plays every seat, each with its
    own history: a player sees only what the game master forwards to it.
    """

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.env: Env | None = None
        self.seats: dict[str, Episode] = {}
        #: Every turn of every seat, in the order played.
        self.turns: list[Turn] = []
        self.info: dict[str, Any] = {}
        self.status = RUNNING
        self.error: str | None = None
        self.closing: str | None = None
        self._settings: dict[str, Any] = {}

    @property
    def live(self) -> bool:
        return self.status == RUNNING

    @property
    def settings(self) -> dict[str, Any]:
        return self._settings

    @settings.setter
    def settings(self, value: dict[str, Any]) -> None:
        self._settings = value
        for seat in self.seats.values():
            seat.settings = value

    @property
    def system(self) -> str:
        return ""

    @property
    def current(self) -> Turn:
        return self.turns[-1]

    def due(self) -> Episode:
        """The seat whose reply the game awaits."""
        return self.seats[self.env.due]

    def open(self, message: str, info: dict[str, Any]) -> None:
        """Hand the game's next message to the seat it addresses."""
        role = self.env.due
        seat = self.seats.get(role)
        if seat is None:
            system = self.env.system_prompts.get(role, "")
            seat = self.seats[role] = Episode(
                spec=self.spec, env=self.env, system=system, settings=self._settings, owner=self,
                pinned=getattr(self.env, "pinned_turns", 0), trims=getattr(self.env, "trims_history", True),
            )  # fmt: skip
        turn = Turn(user=message, role=role, kept=not info.get("ephemeral", False))
        seat.turns.append(turn)
        seat.info = self.info = info
        self.turns.append(turn)

    def advance(self, reply: str) -> None:
        going_on = _step(self, reply, "game step")
        if going_on is not None:
            self.open(*going_on)

    def fail(self, reason: str) -> None:
        self.status = FAILED
        self.error = reason

    def transcript(self) -> dict[str, Any]:
        """As :meth:`Episode.transcript`, with every turn tagged with its role and each role's system prompt."""
        return _transcript(self, systems={role: seat.system for role, seat in self.seats.items()})


class Player(Protocol):
    """Produces one reply per live episode; called once per turn with all of them.

    May return an exception object in place of a reply to fail just that episode;
    raising fails the whole call (the runner then retries episode by episode).
    """

    def respond(self, episodes: Sequence[Episode]) -> list[str | BaseException]: ...


def start_episodes(specs: Iterable[dict[str, Any]], make_env: Callable[[dict[str, Any]], Env]) -> list[Any]:
    """Build and reset one environment per spec (``spec["seed"]`` seeds the episode)."""
    episodes: list[Episode | GameEpisode] = []
    for spec in specs:
        # A game's given instance (lm_eval_cog.replay) goes to reset, never into the transcript.
        spec = dict(spec)
        instance = spec.pop("instance", None)
        ep: Episode | GameEpisode = Episode(spec=spec)
        try:
            env = make_env(spec)
            if getattr(env, "roles", None):  # a game: one conversation per model role
                ep = GameEpisode(spec=ep.spec)
            ep.env = env
            # The index lets a game deal its instances out by experiment (episode i: experiment i mod k).
            options = {"index": spec.get("index", 0)}
            if instance is not None:
                options["instance"] = instance
            message, info = env.reset(seed=spec["seed"], options=options)
            if isinstance(ep, GameEpisode):
                ep.open(message, info)
            else:
                ep.info = info
                ep.system = env.system_prompt
                ep.pinned, ep.trims = getattr(env, "pinned_turns", 0), getattr(env, "trims_history", True)
                ep.turns.append(Turn(user=message, image=turn_image(env)))
        except Exception as exc:  # noqa: BLE001 - recorded, the other episodes go on
            ep.fail(_reason("environment reset", exc))
        episodes.append(ep)
    return episodes


class TurnTimeout(TimeoutError):
    """The player gave no reply within the turn timeout."""


def run_lockstep(
    episodes: list[Any],
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
            # One conversation per live episode: the episode itself, or a game's due seat.
            replies = _respond_isolated(player, [due_conversation(ep) for ep in live], turn_timeout)
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
                ep.advance(reply) if isinstance(ep, GameEpisode) else _advance(ep, reply)
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


def due_conversation(ep: Episode | GameEpisode) -> Episode:
    """The conversation a reply is awaited in: the episode itself, or a game's due seat."""
    return ep.due() if isinstance(ep, GameEpisode) else ep


def _advance(ep: Episode, reply: str) -> None:
    going_on = _step(ep, reply, "environment step")
    if going_on is not None:
        ep.turns.append(Turn(user=going_on[0], image=turn_image(ep.env)))


def _step(ep: Episode | GameEpisode, reply: str, where: str) -> tuple[str, dict[str, Any]] | None:
    """Hand ``reply`` (to the episode's current turn) to its environment. Returns the next message and
    info while the episode goes on; None once it ended (status, closing message) or failed (reason)."""
    ep.current.reply = reply
    try:
        message, terminated, truncated, info = ep.env.step(reply)
    except Exception as exc:  # noqa: BLE001
        ep.fail(_reason(where, exc))
        return None
    if terminated or truncated:
        ep.status = COMPLETED if terminated else TRUNCATED
        ep.closing, ep.info = message, info
        return None
    ep.info = info
    return message, info


def _transcript(ep: Episode | GameEpisode, **extra: Any) -> dict[str, Any]:
    return {
        **ep.spec,
        "status": ep.status,
        "error": ep.error,
        "system": ep.system,
        **extra,
        "turns": [t.record() for t in ep.turns],
        "closing": ep.closing,
        "trials": list(ep.env.log) if ep.env is not None else [],
    }


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
    if any(isinstance(ep, GameEpisode) for ep in episodes):
        max_turns = 0  # a game's bound is a safety net far above its usual length: no misleading total
    desc = progress if isinstance(progress, str) else "cog episodes"
    return tqdm(total=max_turns or None, desc=desc, unit="turn")
