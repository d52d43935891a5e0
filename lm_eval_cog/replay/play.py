"""Playing published episodes through our game masters, with the runner an ``lm_eval`` run uses.

:class:`TranscriptPlayer` is a :class:`lm_eval_cog.runner.Player`: asked for a role's reply, it
returns that role's next published reply. Our game master decides what each reply means and when
the game ends; a game that asks for more replies than the transcript holds fails with that reason.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_eval_cog import runner
from lm_eval_cog.games.base import common_metrics, end_record
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.replay.clembench import Outcome, PublishedEpisode, TranscriptError, reference_outcome, where
from lm_eval_cog.replay.instances import Rebuild, rebuild

FAILED = "failed"


class TranscriptExhausted(RuntimeError):
    """Our game asked a role for a reply the published transcript does not have."""


class TranscriptPlayer:
    """Replies with the published replies: for each game episode, each role's replies in order."""

    def __init__(self) -> None:
        self.queues: dict[int, dict[str, deque[str]]] = {}

    def add(self, game_episode: Any, replies: dict[str, list[str]]) -> None:
        self.queues[id(game_episode)] = {role: deque(texts) for role, texts in replies.items()}

    def respond(self, episodes: Sequence[runner.Episode]) -> list[str | BaseException]:
        out: list[str | BaseException] = []
        for seat in episodes:
            role = seat.current.role or ""
            queue = self.queues.get(id(seat.owner), {}).get(role)
            if not queue:
                out.append(TranscriptExhausted(f"the transcript has no further {role} reply"))
            else:
                out.append(queue.popleft())
        return out

    def left(self, game_episode: Any) -> int:
        """Published replies our game never asked for."""
        return sum(len(q) for q in self.queues.get(id(game_episode), {}).values())


@dataclass
class Replayed:
    """One episode's replay: where it is, the reference, ours, and what the game logged."""

    path: Path
    game: str
    experiment: str
    episode: int
    model: str
    reference: Outcome | None = None
    ours: Outcome | None = None
    error: str | None = None
    requests: int | None = None
    unused_replies: int = 0
    log: list[dict[str, Any]] = field(default_factory=list, repr=False)
    published: PublishedEpisode | None = field(default=None, repr=False)
    rebuilt: Rebuild | None = field(default=None, repr=False)


def replay(items: Sequence[tuple[Path, PublishedEpisode | TranscriptError]], *, preset: str = "default") -> list[Replayed]:
    """Replay every readable episode together (one lock-step run, as ``lm_eval`` plays a task);
    an unreadable one is a row with its reason, and the others still run."""
    rows: list[Replayed] = []
    specs: list[dict[str, Any]] = []
    planned: list[tuple[Replayed, dict[str, list[str]]]] = []
    for path, item in items:
        if isinstance(item, TranscriptError):
            try:
                game, experiment, episode, model = where(path)
            except (TypeError, ValueError):
                game, experiment, episode, model = "?", "?", -1, ""
            rows.append(Replayed(path, game, experiment, episode, model, error=str(item)))
            continue
        row = Replayed(path, item.game, item.experiment, item.episode, item.model, published=item)
        rows.append(row)
        try:
            row.reference = reference_outcome(item, paper=preset == "paper")
            row.rebuilt = rebuild(item)
            get_paradigm(row.rebuilt.game).make_params(preset, None, dict(row.rebuilt.overrides))
            replies: dict[str, list[str]] = {}
            for reply in item.replies(row.rebuilt.programmatic):
                role = row.rebuilt.roles.get(reply.player)
                if role is None:
                    raise TranscriptError(f"Player {reply.player} has no role in {row.rebuilt.game}")
                replies.setdefault(role, []).append(reply.text)
        except (TranscriptError, ValueError) as exc:
            row.error = str(exc)
            continue
        except Exception as exc:  # noqa: BLE001 - a malformed transcript is this episode's row, not the run's end
            row.error = f"cannot rebuild the episode: {type(exc).__name__}: {exc}"
            continue
        specs.append({"paradigm": row.rebuilt.game, "preset": preset, "strategy": None,
                      "overrides": dict(row.rebuilt.overrides), "seed": 0, "index": 0,
                      "instance": row.rebuilt.instance})  # fmt: skip
        planned.append((row, replies))
    if not specs:
        return rows
    from lm_eval_cog.paradigms import make_env

    episodes = runner.start_episodes(specs, make_env)
    player = TranscriptPlayer()
    for ep, (_, replies) in zip(episodes, planned):
        player.add(ep, replies)
    runner.run_lockstep(episodes, player, progress=False)
    for ep, (row, _) in zip(episodes, planned):
        _record(row, ep, player)
    return rows


def _record(row: Replayed, ep: Any, player: TranscriptPlayer) -> None:
    log = list(ep.env.log) if ep.env is not None else []
    row.log = log
    row.unused_replies = player.left(ep)
    last = end_record(log)
    if ep.status == runner.FAILED or last is None:
        reason = ep.error or f"the game did not end ({ep.status})"
        row.ours = Outcome(FAILED, None, reason.split(" at /")[0])
        return
    metrics = common_metrics(log)
    row.requests = int(metrics["request_count"])
    main = last["main_score"]
    row.ours = Outcome(last["outcome"], None if main is None else float(main), "replay")
