"""Reading clembench-runs' layout: the episodes under a folder, their replies and reference scores.

Layout (any depth above it): ``[<version>/]<model pair>/<game>/<experiment>/episode_<n>/interactions.json``,
optionally with ``scores.json`` (the run's own scores) or ``scores_reference.json`` (another scorer's
result on the same transcript, e.g. the paper code's) beside it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUCCESS, LOSE, ABORTED = "success", "lose", "aborted"
_EPISODE_DIR = re.compile(r"episode_(\d+)")
#: The players of clembench's transcripts whose replies a model wrote (the game master is "GM").
_PLAYERS = {"Player 1": 1, "Player_1": 1, "Player 2": 2, "Player_2": 2}
#: Game-master actions of v1.6 that end a Taboo game (the run's own logged outcome).
_TABOO_ENDS = {"correct guess": SUCCESS, "invalid format": ABORTED, "invalid clue": LOSE, "max turns reached": LOSE}


class TranscriptError(ValueError):
    """An episode that cannot be read or replayed (the row's reason)."""


@dataclass(frozen=True)
class Reply:
    """One model reply: the clembench player (1 or 2) and its text, as published."""

    player: int
    text: str


@dataclass
class PublishedEpisode:
    """One published episode: where it is, its transcript, and the scores found beside it."""

    path: Path
    game: str
    experiment: str
    episode: int
    model: str
    interactions: dict[str, Any] = field(repr=False)
    scores: dict[str, Any] | None = field(default=None, repr=False)
    scores_reference: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def events(self) -> list[Mapping[str, Any]]:
        """Every logged event, in order (clembench nests them by round)."""
        rounds = [r for r in self.interactions.get("turns", []) if isinstance(r, list)]
        return [e for rnd in rounds for e in rnd if isinstance(e, Mapping)]

    def messages_to(self, player: int) -> list[str]:
        """What the game master sent to ``player`` (1 or 2), in order."""
        return [
            str(_action(e).get("content", ""))
            for e in self.events
            if e.get("from") == "GM" and _PLAYERS.get(str(e.get("to"))) == player
        ]

    def replies(self, programmatic: frozenset[int] = frozenset()) -> list[Reply]:
        """The model replies in the order written (``programmatic``: players played by code, skipped)."""
        out = []
        for e in self.events:
            player = _PLAYERS.get(str(e.get("from")))
            if player is None or player in programmatic or e.get("to") != "GM":
                continue
            content = _action(e).get("content")
            if not isinstance(content, str):
                raise TranscriptError(f"a reply of Player {player} is not text")
            out.append(Reply(player, content))
        return out

    def gm_actions(self) -> list[str]:
        """The types of the game master's notes to itself (``valid clue``, ``invalid format``, ...)."""
        return [str(_action(e).get("type")) for e in self.events if e.get("from") == "GM" and e.get("to") == "GM"]


def _action(event: Mapping[str, Any]) -> Mapping[str, Any]:
    action = event.get("action")
    return action if isinstance(action, Mapping) else {}


def find_episodes(root: Path) -> list[Path]:
    """Every ``interactions.json`` under ``root`` in an ``episode_<n>`` folder, sorted."""
    return sorted(p for p in root.rglob("interactions.json") if _EPISODE_DIR.fullmatch(p.parent.name))


def where(path: Path) -> tuple[str, str, int, str]:
    """(game, experiment, episode, model pair) from an ``interactions.json`` path."""
    episode_dir, experiment_dir = path.parent, path.parent.parent
    game_dir = experiment_dir.parent
    model = game_dir.parent.name if game_dir.parent != game_dir else ""
    return game_dir.name, experiment_dir.name, int(_EPISODE_DIR.fullmatch(episode_dir.name)[1]), model


def load(path: Path) -> PublishedEpisode:
    """The episode at ``path`` (its ``interactions.json``) with the scores beside it."""
    game, experiment, episode, model = where(path)
    interactions = _read_json(path)
    if not isinstance(interactions, dict) or not isinstance(interactions.get("turns"), list):
        raise TranscriptError(f"{path.name} has no 'turns' list")
    scores = _read_json(path.with_name("scores.json")) if path.with_name("scores.json").is_file() else None
    ref_path = path.with_name("scores_reference.json")
    reference = _read_json(ref_path) if ref_path.is_file() else None
    return PublishedEpisode(path, game, experiment, episode, model, interactions, scores, reference)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{path.name} is not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        # A truncated download ends mid-value: json says where.
        raise TranscriptError(f"{path.name} is not valid JSON (truncated?): {exc.msg} at line {exc.lineno}") from None


@dataclass(frozen=True)
class Outcome:
    """An episode's result: ``success``, ``lose``, ``aborted`` (or ``failed`` for ours: the replay
    could not finish it), its main score (None when aborted), and where it comes from."""

    outcome: str
    main_score: float | None
    source: str = ""

    def record(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "main_score": self.main_score, "source": self.source}


def from_episode_scores(scores: Mapping[str, Any], source: str) -> Outcome:
    """The outcome of a clembench ``episode scores`` dict (``Aborted`` first: the Dec-2024 scorer
    also sets ``Lose`` on an aborted episode)."""
    if _flag(scores.get("Aborted")):
        return Outcome(ABORTED, None, source)
    main = scores.get("Main Score")
    main = float(main) if isinstance(main, (int, float)) and math.isfinite(main) else None
    return Outcome(SUCCESS if _flag(scores.get("Success")) else LOSE, main, source)


def _flag(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 1 or value is True


def logged_outcome(ep: PublishedEpisode) -> Outcome | None:
    """The outcome the run's game master logged, where its log says it (Taboo, Reference, Image
    aborts); None where the outcome is only in scores."""
    actions = ep.gm_actions()
    if ep.game == "taboo":
        ends = [_TABOO_ENDS[a] for a in actions if a in _TABOO_ENDS]
        if not ends:
            return None
        outcome = ends[-1]
        guesses = actions.count("valid guess")
        main = None if outcome == ABORTED else (100.0 / guesses if outcome == SUCCESS else 0.0)
        return Outcome(outcome, main, "game master log")
    if "invalid format" in actions and ep.game in ("referencegame", "imagegame"):
        return Outcome(ABORTED, None, "game master log")
    if ep.game == "referencegame":
        return _reference_logged(ep)
    return None


#: The answers v1.6's Reference game master accepted, and the grid (0-2) each names.
_REFERENCE_ANSWERS = {"first": 0, "second": 1, "third": 2}
_GRID_BLOCK = r"\s*\n\n((?:[^\n]+\n){4}[^\n]+)"


def _reference_logged(ep: PublishedEpisode) -> Outcome | None:
    """The answer v1.6's game master parsed (its log's ``answer``), against the position of the target
    grid (the giver's ``Target grid``) among the follower's three: success (100) or lose (0)."""
    answers = [str(_action(e).get("answer", "")).strip().lower() for e in ep.events
               if e.get("from") == "GM" and e.get("to") == "GM" and "answer" in _action(e)]  # fmt: skip
    giver, follower = ep.messages_to(1), ep.messages_to(2)
    if not answers or answers[-1] not in _REFERENCE_ANSWERS or not giver or not follower:
        return None
    target = re.search("Target grid:" + _GRID_BLOCK, giver[0])
    shown = [re.search(f"{name}:" + _GRID_BLOCK, follower[0]) for name in ("First", "Second", "Third")]
    if target is None or any(m is None for m in shown):
        return None
    won = shown[_REFERENCE_ANSWERS[answers[-1]]][1] == target[1]
    return Outcome(SUCCESS if won else LOSE, 100.0 if won else 0.0, "game master log")


def reference_outcome(ep: PublishedEpisode, paper: bool) -> Outcome | None:
    """The reference: with ``paper``, the paper scorer's result (``scores_reference.json``; where it
    has none, the run's own as below); otherwise the run's own ``scores.json``, else the outcome its game master logged, else (where the
    run published neither) ``scores_reference.json``. None when there is none."""
    own = None
    if ep.scores is not None and isinstance(ep.scores.get("episode scores"), Mapping):
        own = from_episode_scores(ep.scores["episode scores"], "scores.json")
    own = own or logged_outcome(ep)
    ref = None
    if ep.scores_reference is not None and isinstance(ep.scores_reference.get("episode scores"), Mapping):
        ref = from_episode_scores(ep.scores_reference["episode scores"], "scores_reference.json")
    if paper:
        # Where the paper scorer failed (v1.6 Wordle logs lack keys it reads), the run's own scores.
        return ref or own
    return own or ref


def episodes(root: Path) -> Iterator[tuple[Path, PublishedEpisode | TranscriptError]]:
    """Each episode under ``root``, read, or the reason it cannot be."""
    for path in find_episodes(root):
        try:
            yield path, load(path)
        except TranscriptError as exc:
            yield path, exc
