"""Reading the guesser's and the critic's replies, check by check as the paper's game master does.

A reply is read after stripping surrounding white space. Checks, in order (the paper's error
keys; every failure here aborts the game):

1. it starts with the lowercase tag (``guess:`` or ``agreement:``), case-sensitive: ``INVALID_START_WORD``;
2. it has at most 2 lines: ``UNKNOWN_TAGS``;
3. the tag (any case) occurs exactly once, with a non-empty value: ``MORE_THAN_ONE_GUESS``;
4. the value, lowercased, has no spaces and only letters (``str.isalpha``): ``INVALID_FORMAT``;
5. guess: exactly 5 letters (``INVALID_WORD_LENGTH``); agreement: ``yes`` or ``no``
   (``NOT_VALID_CRITIC_WORD``).

Whether a guess is in the allowed list (a reprompt, not an abort) is the game master's check.
Every pattern is a literal tag followed by ``[^\\n]*`` and nothing after it: no backtracking, so
reading is linear in the reply's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lm_eval_cog.games.wordle.words import WORD_LENGTH

GUESS_TAG, AGREEMENT_TAG, EXPLANATION_TAG = "guess", "agreement", "explanation"
AGREEMENTS = ("yes", "no")

INVALID_START_WORD = "INVALID_START_WORD"
UNKNOWN_TAGS = "UNKNOWN_TAGS"
MORE_THAN_ONE_GUESS = "MORE_THAN_ONE_GUESS"
INVALID_FORMAT = "INVALID_FORMAT"
INVALID_WORD_LENGTH = "INVALID_WORD_LENGTH"
NOT_VALID_CRITIC_WORD = "NOT_VALID_CRITIC_WORD"
#: Not a parse failure: a well-formed guess missing from the allowed list (reprompted).
NOT_VALID_WORD_FOR_GAME = "NOT_VALID_WORD_FOR_GAME"

_MAX_LINES = 2
# As the paper: the tag anywhere in the reply, any case, its value up to the end of the line.
_PATTERNS = {tag: re.compile(rf"{tag}:([^\n]*)", re.IGNORECASE) for tag in (GUESS_TAG, AGREEMENT_TAG, EXPLANATION_TAG)}


@dataclass(frozen=True)
class Reading:
    """A well-formed reply: the tag's value (stripped, lowercased) and the explanation
    (stripped, to the end of its line; None when missing: it is optional)."""

    value: str
    explanation: str | None


@dataclass(frozen=True)
class FormError:
    """Why a reply is not in the required form (``key``: the paper's error key)."""

    key: str
    reason: str


def read_guess(reply: str) -> Reading | FormError:
    """The guesser's reply (stripped): ``guess: <word>`` and optionally ``explanation: ...``."""
    reading = _read_tagged(reply, GUESS_TAG)
    if isinstance(reading, FormError):
        return reading
    if len(reading.value) != WORD_LENGTH:
        return FormError(INVALID_WORD_LENGTH, f"the guess has {len(reading.value)} letters, not {WORD_LENGTH}")
    return reading


def read_agreement(reply: str) -> Reading | FormError:
    """The critic's reply (stripped): ``agreement: yes|no`` and optionally ``explanation: ...``."""
    reading = _read_tagged(reply, AGREEMENT_TAG)
    if isinstance(reading, FormError):
        return reading
    if reading.value not in AGREEMENTS:
        return FormError(NOT_VALID_CRITIC_WORD, "the agreement is neither 'yes' nor 'no'")
    return reading


def _read_tagged(reply: str, tag: str) -> Reading | FormError:
    """Checks 1-4 of the module docstring for ``tag``."""
    if not reply.startswith(f"{tag}:"):
        return FormError(INVALID_START_WORD, f"the reply does not start with '{tag}:'")
    if reply.count("\n") >= _MAX_LINES:  # the paper splits on "\n" only
        return FormError(UNKNOWN_TAGS, f"the reply has more than {_MAX_LINES} lines")
    value = _single(reply, tag)
    if not value:
        return FormError(MORE_THAN_ONE_GUESS, f"'{tag}:' must occur exactly once, with a value")
    value = value.lower()
    if " " in value or not value.isalpha():
        return FormError(INVALID_FORMAT, f"the {tag} must be one word of letters only")
    return Reading(value=value, explanation=_single(reply, EXPLANATION_TAG))


def _single(reply: str, tag: str) -> str | None:
    """The stripped value of ``tag`` when it occurs exactly once, else None."""
    values = _PATTERNS[tag].findall(reply)
    return values[0].strip() if len(values) == 1 else None
