"""What the Reference Game's game master says (our wording of clembench's protocol)."""

from __future__ import annotations

from lm_eval_cog.games.grids import EMPTY, MARK, Grid, render
from lm_eval_cog.games.reference.instances import Instance

POSITION_NAMES = ("First", "Second", "Third")

_GRIDS = f"Each grid has 5 rows of 5 cells; an empty cell is shown as {EMPTY} and a filled cell as {MARK}."

GIVER_RULES = (
    "Let's play a reference game. You will see three 5x5 grids: a target grid and two distractor grids. "
    + _GRIDS
    + " Another player sees the same three grids in a different order and does not know which one is the "
    "target. Your task is to write a referring expression that lets the other player pick out the target "
    "grid, and neither of the distractor grids, from your expression alone."
)
GIVER_FORMAT = (
    "Reply with exactly one line of the form\n"
    "Expression: <your referring expression>\n"
    "and no other text."
)

FOLLOWER_RULES = (
    "Let's play a reference game. You will see three 5x5 grids. "
    + _GRIDS
    + " Another player saw the same three grids and wrote a referring expression for one of them. "
    "Your task is to say which grid the expression refers to."
)
FOLLOWER_FORMAT = (
    "Which grid does the expression refer to? Reply with exactly one line of the form\n"
    "Answer: <first, second or third>\n"
    "and no other text."
)

CLOSING = "The game is over."


def giver_prompt(instance: Instance) -> str:
    """The giver's only message: rules, the target first, then the two distractors."""
    first, second = instance.distractors
    return "\n\n".join((
        GIVER_RULES,
        f"Target grid:\n{render(instance.target)}",
        f"Distractor grid 1:\n{render(first)}",
        f"Distractor grid 2:\n{render(second)}",
        GIVER_FORMAT,
    ))  # fmt: skip


def follower_prompt(instance: Instance, expression: str) -> str:
    """The follower's only message: rules, the three grids in its order, the giver's reply."""
    grids = [f"{name} grid:\n{render(g)}" for name, g in zip(POSITION_NAMES, instance.follower_grids())]
    return "\n\n".join((
        FOLLOWER_RULES,
        *grids,
        f"The other player's expression:\n{expression}",
        FOLLOWER_FORMAT,
    ))  # fmt: skip


# ---------------------------------------------------------------- the paper's messages
#: Where the paper's templates take the three grids (``paper_reference.json``).
GRID_SLOTS = ("$GRID1$", "$GRID2$", "$GRID3$")
#: Where the paper's follower template takes the giver's reply.
EXPRESSION_SLOT = "TARGET_EXPRESSION"


def _fill(template: str, grids: tuple[Grid, ...]) -> str:
    for slot, grid in zip(GRID_SLOTS, grids):
        template = template.replace(slot, render(grid))
    return template


def paper_giver_prompt(template: str, instance: Instance) -> str:
    """clembench's giver prompt: the template with the target and the two distractors."""
    return _fill(template, (instance.target, *instance.distractors))


def paper_follower_prompt(template: str, instance: Instance, expression: str) -> str:
    """clembench's follower prompt: the template with the follower's grids, then the giver's reply
    in place of ``TARGET_EXPRESSION`` (last, so a reply is never read as a slot)."""
    return _fill(template, instance.follower_grids()).replace(EXPRESSION_SLOT, expression)
