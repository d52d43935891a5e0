"""The Image Game's game master: the giver sends commands, the drawer returns its whole grid."""

from __future__ import annotations

from typing import Any

from lm_eval_cog.games import paper
from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, GameEnv, strip_reply
from lm_eval_cog.games.grids import Grid, empty_grid, parse_grid, render
from lm_eval_cog.games.image.instances import EXPERIMENTS, Instance, draw_instance, paper_instance
from lm_eval_cog.games.image.params import MAX_COMMANDS, ImageParams
from lm_eval_cog.games.image.prompts import (
    CLOSING,
    NEXT_COMMAND,
    drawer_prompt,
    giver_first_prompt,
    paper_drawer_prompt,
    paper_giver_first_prompt,
)
from lm_eval_cog.games.image.rules import read_command
from lm_eval_cog.games.image.scoring import SUCCESS_F1, changed_cells, score_grid

GIVER, DRAWER = "giver", "drawer"


class ImageEnv(GameEnv):
    """Giver (sees the target) and drawer (sees only the commands) alternate, at most 25 commands."""

    name = "image"
    roles = (GIVER, DRAWER)
    params: ImageParams

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        experiment, index = self.params.experiment, int(options.get("index", 0))
        given = options.get("instance")  # a replayed transcript's instance (lm_eval_cog.replay)
        if given is not None:
            self.instance: Instance = given
            self.target_text = render(given.target)
        elif self.params.instances == "paper":
            experiment, row = paper.pick("image", experiment, index)
            self.instance = paper_instance(experiment, row)
            self.target_text = row["target_grid"]
        else:
            if experiment == "all":
                experiment = EXPERIMENTS[index % len(EXPERIMENTS)]
            self.instance = draw_instance(self.rng, experiment)
            self.target_text = render(self.instance.target)
        self.commands = 0
        self.command = ""
        #: The drawer's last grid in the required form (None before its first).
        self.drawn: Grid | None = None
        self.last_f1 = 0.0
        self.due = GIVER
        if self.params.messages == "paper":
            data = paper.load("image")
            first = paper_giver_first_prompt(data["giver_header"], self.target_text, data["question"])
            return first, self._info()
        return giver_first_prompt(self.instance.target), self._info()

    def _info(self) -> dict[str, Any]:
        """What the scripted players may read (never shown to a model)."""
        return {
            "role": self.due,
            "experiment": self.instance.experiment,
            "target": [list(row) for row in self.instance.target],
            "command": self.command,
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        text = strip_reply(reply)
        return self._giver(text) if self.due == GIVER else self._drawer(text)

    def _giver(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        command = read_command(text)
        if command is None:
            self.record_move("command", INVALID, text, "not one line 'Command: <instruction>' or 'Command: DONE'")
            return self._end(ABORTED)
        if command.done:
            self.record_move("done", VALID, text)
            return self._end(self._drawing_outcome())
        self.record_move("command", VALID, command.instruction, command_length=len(command.instruction))
        self.commands += 1
        self.command = command.instruction
        self.due = DRAWER
        # Only the command line is forwarded; the rules come with the first one.
        first = self.commands == 1
        if self.params.messages == "paper":
            return paper_drawer_prompt(paper.load("image")["drawer_header"], command.line, first), False, self._info()
        return drawer_prompt(command.line, first=first), False, self._info()

    def _drawer(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        grid = parse_grid(text)
        if isinstance(grid, str):
            self.record_move("grid", INVALID, text, f"not a 5x5 grid: {grid}")
            return self._end(ABORTED)
        score = score_grid(grid, self.instance.target)
        changed = changed_cells(self.drawn or empty_grid(), grid)
        self.record_move("grid", VALID, render(grid), precision=score.precision, recall=score.recall, f1=score.f1,
                         changed_cells=changed)  # fmt: skip
        self.drawn, self.last_f1 = grid, score.f1
        if self.commands == MAX_COMMANDS:
            return self._end(self._drawing_outcome())
        self.due = GIVER
        return self._question(), False, self._info()

    def _question(self) -> str:
        """What the giver is asked after each drawing (the paper's question, or ours)."""
        return paper.load("image")["question"] if self.params.messages == "paper" else NEXT_COMMAND

    def _drawing_outcome(self) -> str:
        """Won when the last drawing reaches F1 99; a DONE before any drawing is a loss (F1 0)."""
        return SUCCESS if self.drawn is not None and self.last_f1 >= SUCCESS_F1 else LOSE

    def _end(self, outcome: str) -> tuple[str, bool, dict[str, Any]]:
        main = None if outcome == ABORTED else self.last_f1
        self.finish(outcome, main, experiment=self.instance.experiment, target=render(self.instance.target),
                    commands=self.commands)  # fmt: skip
        return CLOSING, True, self._info()
