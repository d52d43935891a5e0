"""The game's words: targets with their clues, by frequency band, and the allowed guesses.

They come from ``lm_eval_cog/games/data/wordle_words.json`` (schema and provenance: the README
in this folder), read once per process on first use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lm_eval_cog.games import paper

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "wordle_words.json"
WORD_LENGTH = 5


@dataclass(frozen=True)
class Target:
    """A word to find and the crossword clue the clue variants show."""

    word: str
    clue: str


@dataclass(frozen=True)
class WordData:
    """Targets by band (``high``, ``medium``, ...) and the words a guess may be."""

    bands: Mapping[str, tuple[Target, ...]]
    allowed: frozenset[str]
    #: ``allowed`` in a fixed order: what scripted players draw from (a set's order varies by process).
    allowed_sorted: tuple[str, ...]


def word_data() -> WordData:
    """The words of :data:`DATA_FILE` (cached per path)."""
    return _load(DATA_FILE)


@lru_cache(maxsize=4)
def _load(path: Path) -> WordData:
    raw = json.loads(path.read_text(encoding="utf-8"))
    allowed = frozenset(raw["allowed"].split())
    bands = {
        name: tuple(_target(path, entry, allowed) for entry in band["words"]) for name, band in raw["bands"].items()
    }
    return WordData(bands=bands, allowed=allowed, allowed_sorted=tuple(sorted(allowed)))


def _target(path: Path, entry: Mapping[str, object], allowed: frozenset[str]) -> Target:
    # A target the guesser may not type (not in the list) or without a clue would make an
    # episode unwinnable or the clue variants meaningless: refuse the file loudly.
    word, clue = entry.get("word"), entry.get("clue")
    well_formed = isinstance(word, str) and len(word) == WORD_LENGTH and word.isascii() and word.isalpha()
    if not (well_formed and word.islower()):
        raise ValueError(f"{path}: target {word!r} is not a {WORD_LENGTH}-letter lowercase word")
    if word not in allowed:
        raise ValueError(f"{path}: target {word!r} is not in the allowed guesses")
    if not isinstance(clue, str) or not clue.strip():
        raise ValueError(f"{path}: target {word!r} has no clue")
    return Target(word=word, clue=" ".join(clue.split()))


@lru_cache(maxsize=1)
def paper_allowed() -> frozenset[str]:
    """The allowed guesses with the paper's instances: ours plus the paper's targets. The paper's own
    list (3Blue1Brown's, from NYT Wordle) is not shipped: its redistribution terms are unclear."""
    targets = {i["target"] for exp in paper.load("wordle")["experiments"] for i in exp["instances"]}
    return word_data().allowed | targets
