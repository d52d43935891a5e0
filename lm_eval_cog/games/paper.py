"""The instances Momentè et al. (2025) played, for every game's ``paper`` preset.

They come from ``momentino/playpen`` at commit ``b0c97d3`` (the December-2024 clembench fork the
paper ran; MIT licence), extracted by ``scripts/build_paper_instances.py`` into
``lm_eval_cog/games/data/paper_<game>.json`` (provenance: ``data/LICENSES.md``). Each file holds
``experiments``, in the paper's order, each with its ``name`` (our parameter value) and its
``instances`` in the paper's order; the other fields are the game's own (prompt templates, texts).

Episode i of a run over all experiments plays :func:`schedule`'s entry i: the experiments
interleaved in proportion to their sizes (Taboo high, medium, low, high, ...; Wordle high, medium,
medium, ...), so that any ``--limit`` keeps the paper's mix, and every instance is played once
per ``len(schedule)`` episodes. With one experiment chosen, episode i plays its instance i.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

GAMES: tuple[str, ...] = ("taboo", "wordle", "reference", "image", "privateshared")
#: The values of every game's ``instances`` and ``messages`` parameters.
INSTANCE_SOURCES: tuple[str, ...] = ("ours", "paper")
DATA_PACKAGE, DATA_DIR = "lm_eval_cog.games", "data"


def check_choice(game: str, parameter: str, value: Any) -> None:
    """A ``ValueError`` naming the parameter unless ``value`` is ``ours`` or ``paper`` (the values
    of every game's ``instances`` and ``messages`` parameters)."""
    if value not in INSTANCE_SOURCES:
        raise ValueError(f"{game} parameter {parameter!r} must be one of {', '.join(INSTANCE_SOURCES)}, got {value!r}")


@lru_cache(maxsize=None)
def load(game: str) -> Mapping[str, Any]:
    """The paper's data of ``game`` (read once per process)."""
    if game not in GAMES:
        raise ValueError(f"no paper instances for game {game!r} (known: {', '.join(GAMES)})")
    path = resources.files(DATA_PACKAGE).joinpath(DATA_DIR).joinpath(f"paper_{game}.json")
    return json.loads(path.read_text(encoding="utf-8"))


def experiment(game: str, name: str) -> Mapping[str, Any]:
    """The paper's experiment ``name`` (our name for it) of ``game``."""
    for exp in load(game)["experiments"]:
        if exp["name"] == name:
            return exp
    raise ValueError(f"the paper has no {game} experiment {name!r}")


@lru_cache(maxsize=None)
def schedule(game: str) -> tuple[tuple[str, int], ...]:
    """(experiment name, instance index) of every instance, the experiments interleaved in
    proportion to their sizes: sorted by the instance's relative position j / n in its experiment,
    then by the experiment's order."""
    entries = [
        (j / len(exp["instances"]), k, exp["name"], j)
        for k, exp in enumerate(load(game)["experiments"])
        for j in range(len(exp["instances"]))
    ]
    return tuple((name, j) for _, _, name, j in sorted(entries))


def pick(game: str, chosen: str, index: int) -> tuple[str, Mapping[str, Any]]:
    """(experiment name, instance) that episode ``index`` plays, ``chosen`` being the game's
    ``experiment`` parameter (``all`` or one name). Indices past the last instance wrap around."""
    if chosen == "all":
        order = schedule(game)
        name, j = order[index % len(order)]
    else:
        name, j = chosen, index % len(experiment(game, chosen)["instances"])
    return name, experiment(game, name)["instances"][j]


def episodes(game: str, chosen: str = "all") -> int:
    """How many instances the paper has (over all experiments, or in ``chosen``)."""
    if chosen == "all":
        return len(schedule(game))
    return len(experiment(game, chosen)["instances"])
