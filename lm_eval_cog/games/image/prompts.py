"""What the Image Game's game master says (our wording of clembench's protocol)."""

from __future__ import annotations

from lm_eval_cog.games.grids import EMPTY, Grid, empty_grid, render
from lm_eval_cog.games.image.params import MAX_COMMANDS

NEXT_COMMAND = "What is your next command?"

GIVER_RULES = (
    "Let's play a drawing game. You are the instruction giver. You see a target 5x5 grid below; each cell "
    f"is a capital letter or {EMPTY} (empty). The other player, the drawer, cannot see it: the drawer starts "
    f"from an empty 5x5 grid (every cell {EMPTY}) and applies your commands to it. Your task is to make the "
    "drawer reproduce the target grid, step by step, with one command per turn. Name rows and columns "
    "clearly, for example: put the letter B in row 1, columns 2 and 4. "
    f"You can give at most {MAX_COMMANDS} commands.\n"
    "Each of your replies must be exactly one line of the form\n"
    "Command: <your instruction>\n"
    "and nothing else. When the drawing is complete, reply\n"
    "Command: DONE"
)

DRAWER_RULES = (
    "Let's play a drawing game. You are the drawer. You start from an empty 5x5 grid:\n"
    f"{render(empty_grid())}\n"
    "The other player will give you commands, one per turn, telling you which cells to fill with which "
    "capital letters. Apply each command to your current grid, then reply with ONLY the whole current grid: "
    f"5 rows of 5 cells, one row per line, cells separated by single spaces, each cell a capital letter or "
    f"{EMPTY}. No other text."
)

CLOSING = "The game is over."


def giver_first_prompt(target: Grid) -> str:
    """Rules, the target grid, and the question."""
    return f"{GIVER_RULES}\n\nTarget grid:\n{render(target)}\n\n{NEXT_COMMAND}"


def drawer_prompt(command_line: str, first: bool) -> str:
    """The giver's command line, after the rules the first time."""
    return f"{DRAWER_RULES}\n\n{command_line}" if first else command_line


# ---------------------------------------------------------------- the paper's messages
def paper_giver_first_prompt(header: str, target_text: str, question: str) -> str:
    """clembench's first giver message: its header, the target grid as the instance writes it (some
    with a trailing line break) and the question, joined by line breaks as its game master joins them."""
    return f"{header}\n{target_text}\n{question}\n"


def paper_drawer_prompt(header: str, command_line: str, first: bool) -> str:
    """clembench's drawer message: the header and the command line on the first turn, then the
    command line alone."""
    return f"{header}\n{command_line}" if first else command_line
