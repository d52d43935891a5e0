"""Reading the Image Game giver's replies (clembench's regexes); drawn grids are read by
:func:`lm_eval_cog.games.grids.parse_grid`.

Applied to the reply with surrounding white space removed (as clembench's backends hand it over).
Both patterns are anchored and linear: each white-space run or line is backtracked over at most once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: "Command: DONE" in any case and spacing ends the game.
DONE = re.compile(r"^\s*command\s*:\s*done\s*$", re.IGNORECASE)
#: Any other reply must be one line "Command: <instruction>" (a trailing line break at most;
#: stripping removes it). Two non-empty lines do not match: the game aborts.
COMMAND = re.compile(r"^command: [^\n]+\n?$", re.IGNORECASE)
_TAG = len("command: ")


@dataclass(frozen=True)
class Command:
    """A readable giver reply: ``DONE``, or the line forwarded to the drawer."""

    line: str
    done: bool

    @property
    def instruction(self) -> str:
        """The text after ``Command: `` (what ``command_length`` counts)."""
        return self.line[_TAG:]


def read_command(reply: str) -> Command | None:
    """The giver's command, ``done`` for "Command: DONE", or None when the reply is not one
    ``Command:`` line."""
    if DONE.match(reply):
        return Command(reply, done=True)
    if COMMAND.match(reply):
        return Command(reply.rstrip("\n"), done=False)
    return None

