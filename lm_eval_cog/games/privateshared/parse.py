"""Reading the answerer's replies (clembench's rules; linear in the reply's length).

Both readers take the reply already stripped of surrounding white space
(:func:`lm_eval_cog.games.base.strip_reply`, as clembench's backends hand it over) and return
``(reading, reason)``: the reading, or None and why the reply is not in the required form.
"""

from __future__ import annotations

from lm_eval_cog.games.base import first_line
from lm_eval_cog.games.privateshared.prompts import ANSWER_TAG, ASIDE_TAG

YES, NO = "yes", "no"


def read_answer(text: str) -> tuple[str | None, str]:
    """A reply to the questioner: one line starting with ``ANSWER:`` (case-sensitive) -> the text after the tag."""
    if not text.startswith(ANSWER_TAG):
        return None, f"does not start with {ANSWER_TAG!r}"
    if first_line(text) != text:
        return None, "has more than one line"
    return text[len(ANSWER_TAG):].strip(), ""


def read_aside(text: str) -> tuple[str | None, str]:
    """A reply to a probe: one line starting with ``ASIDE:`` whose rest, lower-cased, starts with
    "yes" or "no" (so "Nope" is no, as in clembench) -> ``"yes"`` or ``"no"``."""
    if not text.startswith(ASIDE_TAG):
        return None, f"does not start with {ASIDE_TAG!r}"
    if first_line(text) != text:
        return None, "has more than one line"
    # clembench removes every occurrence of the tag before reading the rest.
    rest = text.replace(ASIDE_TAG, "").strip().lower()
    if rest.startswith(YES):
        return YES, ""
    if rest.startswith(NO):
        return NO, ""
    return None, "says neither yes nor no"


def mentions(text: str, value: str) -> bool:
    """Does ``text`` give ``value``? (Case-insensitive substring, as clembench checks slot values.)"""
    return value.lower() in text.lower()
