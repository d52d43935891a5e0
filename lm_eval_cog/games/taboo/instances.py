"""Taboo instances: a target word and its related (taboo) words, drawn from a frequency band.

The word lists live in ``lm_eval_cog/games/data/taboo_words.json`` (its ``source`` field says where
they come from; schema in :func:`parse_bands`), read once, lazily.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

#: The paper's three experiments: frequency bands of the target word (20 episodes each).
EXPERIMENTS: tuple[str, ...] = ("high", "medium", "low")
DATA_PACKAGE = "lm_eval_cog.games"
DATA_DIR, DATA_NAME = "data", "taboo_words.json"


@dataclass(frozen=True)
class TabooWord:
    """One target word and the words the describer may not use either."""

    word: str
    related: tuple[str, ...]


def parse_bands(data: Mapping[str, Any]) -> dict[str, tuple[TabooWord, ...]]:
    """The word list of every band from the file's JSON: ``{"bands": {"high": {"words": [{"word":
    ..., "related": [...]}, ...]}, ...}}`` (other fields, e.g. ``per_million``, are ignored)."""
    bands = data.get("bands") if isinstance(data, Mapping) else None
    if not isinstance(bands, Mapping):
        raise ValueError("taboo word file: no 'bands' object")
    parsed = {}
    for band in EXPERIMENTS:
        entries = bands.get(band, {}).get("words") if isinstance(bands.get(band), Mapping) else None
        if not isinstance(entries, list) or not entries:
            raise ValueError(f"taboo word file: band {band!r} has no 'words' list")
        parsed[band] = tuple(_entry(band, i, e) for i, e in enumerate(entries))
    return parsed


def _entry(band: str, index: int, entry: Any) -> TabooWord:
    word = entry.get("word") if isinstance(entry, Mapping) else None
    related = entry.get("related") if isinstance(entry, Mapping) else None
    if not isinstance(word, str) or not word.strip():
        raise ValueError(f"taboo word file: band {band!r}, entry {index}: 'word' must be a non-empty string")
    if not isinstance(related, list) or not related or not all(isinstance(r, str) and r.strip() for r in related):
        raise ValueError(f"taboo word file: band {band!r}, entry {index} ({word!r}): 'related' must be a list of words")
    return TabooWord(word.strip(), tuple(r.strip() for r in related))


@lru_cache(maxsize=1)
def word_bands() -> dict[str, tuple[TabooWord, ...]]:
    """The shipped word lists, by band (read on first use)."""
    source = resources.files(DATA_PACKAGE).joinpath(DATA_DIR).joinpath(DATA_NAME)
    return parse_bands(json.loads(source.read_text(encoding="utf-8")))


def experiment_for(experiment: str, index: int) -> str:
    """The experiment episode ``index`` plays: ``experiment`` itself, or with ``"all"`` the
    experiments in turn (episode i plays experiment i mod 3), so any ``--limit`` stays balanced."""
    return EXPERIMENTS[index % len(EXPERIMENTS)] if experiment == "all" else experiment


def draw_word(rng: np.random.Generator, experiment: str) -> TabooWord:
    """A target drawn uniformly from the band's list."""
    words = word_bands()[experiment]
    return words[int(rng.integers(len(words)))]
