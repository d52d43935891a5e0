"""The Reference Game's game master: one expression from the giver, one answer from the follower."""

from __future__ import annotations

from typing import Any

from lm_eval_cog.games import paper
from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, GameEnv, strip_reply
from lm_eval_cog.games.grids import filled_cells, render
from lm_eval_cog.games.reference.instances import CATEGORIES, POSITIONS, Instance, draw_instance, paper_instance
from lm_eval_cog.games.reference.params import ReferenceParams
from lm_eval_cog.games.reference.prompts import (
    CLOSING,
    follower_prompt,
    giver_prompt,
    paper_follower_prompt,
    paper_giver_prompt,
)
from lm_eval_cog.games.reference.rules import read_answer, read_expression

GIVER, FOLLOWER = "giver", "follower"


class ReferenceEnv(GameEnv):
    """Giver describes the target among three grids; follower picks it from its own ordering."""

    name = "reference"
    roles = (GIVER, FOLLOWER)
    params: ReferenceParams
    instance: Instance

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        index = int(options.get("index", 0))
        given = options.get("instance")  # a replayed transcript's instance (lm_eval_cog.replay)
        if given is not None:
            self.instance = given
        elif self.params.instances == "paper":
            category, row = paper.pick("reference", self.params.experiment, index)
            self.instance = paper_instance(category, row)
        elif self.params.experiment == "all":
            # Six categories x three target positions: any 18 consecutive episodes are balanced.
            category, position = CATEGORIES[index % len(CATEGORIES)], (index // len(CATEGORIES)) % POSITIONS
            self.instance = draw_instance(self.rng, category, position)
        else:
            self.instance = draw_instance(self.rng, self.params.experiment, None)
        self.due = GIVER
        if self.params.messages == "paper":
            return paper_giver_prompt(paper.load("reference")["giver_template"], self.instance), self._info()
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
        if self.params.messages == "paper":
            template = paper.load("reference")["follower_template"]
            return paper_follower_prompt(template, self.instance, text), False, self._info()
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
