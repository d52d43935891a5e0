"""Reading the Reference Game's replies (clembench's regexes as Momentè et al. ran them).

Both are applied with ``re.match`` to the reply with surrounding white space removed (what
clembench's backends hand the game master). Both are linear: no part of them can backtrack
more than once over a character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The giver's reply: the tag, one white-space character, the expression on one line; at most
#: trailing line breaks after it (``remainder`` must be empty). DOTALL off: ``.`` stops at a line break.
EXPRESSION = re.compile(r"^expression:\s(?P<content>.+)\n*(?P<remainder>.*)", re.IGNORECASE)
#: The follower's reply: only its start must match ("liberal parsing", as clembench's scorer):
#: "Answer: First." and "Answer: 2nd, I think" are read; "1st" is read as "1".
ANSWER = re.compile(r"^answer:\s(?P<content>first|second|third|1|2|3|1st|2nd|3rd)", re.IGNORECASE)
#: The position (0-2) each answer names.
ANSWER_POSITIONS = {
    "first": 0, "1": 0, "1st": 0,
    "second": 1, "2": 1, "2nd": 1,
    "third": 2, "3": 2, "3rd": 2,
}  # fmt: skip


@dataclass(frozen=True)
class Expression:
    content: str

    @property
    def length(self) -> int:
        """Characters of the expression (clembench's 'Generated Expression Length')."""
        return len(self.content)

    @property
    def tokens(self) -> int:
        """Pieces of the expression split on single spaces (clembench's 'Number of Tokens')."""
        return len(self.content.split(" "))


def read_expression(reply: str) -> Expression | None:
    """The giver's expression, or None when the reply is not one ``Expression:`` line."""
    found = EXPRESSION.match(reply)
    if found is None or found["remainder"]:
        return None
    return Expression(found["content"])


def read_answer(reply: str) -> tuple[str, int] | None:
    """(the answer as written, the position 0-2 it names), or None when the reply does not start
    with ``Answer:`` and a position."""
    found = ANSWER.match(reply)
    if found is None:
        return None
    return found["content"], ANSWER_POSITIONS[found["content"].lower()]
