"""Pronounceable nonce words from a seeded syllable generator (contamination resistance).

A word is two consonant-vowel syllables and an optional final consonant (e.g.
"vuneb", "glodi", "zwotak"). A small blocklist drops the
real words the pattern can still produce; a rare accidental English word is harmless
(the probes never rely on a word's meaning), which is why the list is short.

Used by the logic probes (``syllogism``, ``deduction``, ``wason_selection``); a
candidate for a shared ``probes/_nonce.py`` if other probes need it.
"""

from __future__ import annotations

import numpy as np

ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "bl", "dr", "gl", "kr", "pl", "sn", "tr", "zw")
VOWELS = ("a", "e", "i", "o", "u")
CODAS = ("", "", "k", "l", "m", "n", "p", "t")
#: Real English words the pattern can produce (only those it can produce are kept).
BLOCKLIST = frozenset(
    {
        "bagel", "banal", "baron", "basin", "begin", "begun", "bison", "data", "debut", "demo", "demon",
        "denim", "digit", "donut", "dozen", "fatal", "felon", "feral", "fetal", "final", "gala", "gamut",
        "gavel", "given", "golem", "guru", "kapok", "kilo", "label", "lapel", "lava", "legal", "lemon",
        "level", "liken", "lima", "limit", "limo", "linen", "lumen", "madam", "mama", "medal", "melon", "memo",
        "menu", "merit", "metal", "modal", "model", "modem", "moral", "motel", "mural", "nana", "natal",
        "naval", "navel", "nodal", "novel", "pagan", "panel", "papa", "pedal", "penal", "peso", "petal",
        "pilot", "pita", "pivot", "plural", "polo", "posit", "puma", "pupil", "ramen", "raven", "regal",
        "remit", "renal", "resin", "risen", "rival", "rivet", "robin", "robot", "rosin", "rural", "sabot",
        "salon", "satin", "sedan", "semen", "seven", "siren", "soda", "sofa", "solo", "taken", "talon",
        "tenet", "tenon", "tidal", "tofu", "toga", "token", "tonal", "total", "totem", "tuba", "tulip", "tuna",
        "venal", "venom", "visa", "visit", "vital", "vomit", "zero",
    }
)


def nonce_word(rng: np.random.Generator) -> str:
    """One lower-case nonce word."""
    while True:
        parts = [ONSETS[int(rng.integers(len(ONSETS)))] + VOWELS[int(rng.integers(len(VOWELS)))] for _ in range(2)]
        word = "".join(parts) + CODAS[int(rng.integers(len(CODAS)))]
        if word not in BLOCKLIST:
            return word


def nonce_words(rng: np.random.Generator, n: int, avoid: frozenset[str] = frozenset()) -> list[str]:
    """``n`` distinct nonce words, none in ``avoid`` and none a prefix of another
    (so that "blorp" and "blorpa" never meet in one item)."""
    words: list[str] = []
    while len(words) < n:
        word = nonce_word(rng)
        if word in avoid or any(word.startswith(w) or w.startswith(word) for w in words):
            continue
        words.append(word)
    return words
