"""The Reference Game's game master: one expression from the giver, one answer from the follower."""

from __future__ import annotations

from typing import Any

from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, GameEnv, strip_reply
from lm_eval_cog.games.grids import filled_cells, render
from lm_eval_cog.games.reference.instances import CATEGORIES, POSITIONS, Instance, draw_instance
from lm_eval_cog.games.reference.params import ReferenceParams
from lm_eval_cog.games.reference.prompts import CLOSING, follower_prompt, giver_prompt
from lm_eval_cog.games.reference.rules import read_answer, read_expression

GIVER, FOLLOWER = "giver", "follower"


class ReferenceEnv(GameEnv):
    """Giver describes the target among three grids; follower picks it from its own ordering."""

    name = "reference"
    roles = (GIVER, FOLLOWER)
    params: ReferenceParams

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        index = int(options.get("index", 0))
        if self.params.experiment == "all":
            # Six categories x three target positions: any 18 consecutive episodes are balanced.
            category, position = CATEGORIES[index % len(CATEGORIES)], (index // len(CATEGORIES)) % POSITIONS
        else:
            category, position = self.params.experiment, None
        # A given instance (a replayed transcript's, lm_eval_cog.replay) is played instead of a drawn one.
        self.instance: Instance = options.get("instance") or draw_instance(self.rng, category, position)
        self.due = GIVER
        return giver_prompt(self.instance), self._info()

    def _info(self) -> dict[str, Any]:
        """What the scripted players may read (never shown to a model)."""
        return {
            "role": self.due,
            "experiment": self.instance.category,
            "target_cells": [list(cell) for cell in filled_cells(self.instance.target)],
            "target_position": self.instance.target_position,
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        text = strip_reply(reply)
        if self.due == GIVER:
            return self._giver(text)
        return self._follower(text)

    def _giver(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        expression = read_expression(text)
        if expression is None:
            self.record_move("expression", INVALID, text, "not one line 'Expression: <expression>'")
            return self._end(ABORTED, None)
        self.record_move("expression", VALID, expression.content, expression_length=expression.length,
                         expression_tokens=expression.tokens)  # fmt: skip
        self.due = FOLLOWER
        # The giver's whole reply, tag included, is what the follower reads (as in clembench).
        return follower_prompt(self.instance, text), False, self._info()

    def _follower(self, text: str) -> tuple[str, bool, dict[str, Any]]:
        answer = read_answer(text)
        if answer is None:
            self.record_move("answer", INVALID, text, "does not start with 'Answer: first|second|third'")
            return self._end(ABORTED, None)
        written, position = answer
        won = position == self.instance.target_position
        self.record_move("answer", VALID, written, chosen_position=position,
                         target_position=self.instance.target_position)  # fmt: skip
        return self._end(SUCCESS if won else LOSE, 100.0 if won else 0.0)

    def _end(self, outcome: str, main_score: float | None) -> tuple[str, bool, dict[str, Any]]:
        self.finish(outcome, main_score, experiment=self.instance.category, target=render(self.instance.target),
                    target_position=self.instance.target_position)  # fmt: skip
        return CLOSING, True, self._info()
