"""What a blind strategy may see of a multiple-choice item: the stem and the option texts.

An :class:`AuditItem` is built from what the model is shown (the task's ``doc_to_text``) and the
task's choices. The options listing is cut from the prompt, so that "mentioned in the prompt"
means mentioned in the item itself, not in the list of options every item repeats:

* a line or sentence that starts with ``Options:`` / ``Choices:`` (and everything after it);
* else, labelled option lines (``A. Paris`` / ``(b) Rome`` / ``3) Oslo``) whose labels are the
  task's choices, as in MMLU-style prompts: their texts become the options the strategies compare;
* else, a final run of the choices in order, separated by short separators.

Pure Python: no lm-eval, no torch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: Options listing introduced by a label: cut from the label to the end of the prompt.
_LISTING = re.compile(r"(?im)(?:^|(?<=[.?!:]\s))[ \t]*(?:options|choices|answer options)[ \t]*:")
#: A labelled option line: label, then ``.`` / ``)`` / ``:``, then the text.
_LABELLED = re.compile(r"(?m)^[ \t]*\(?([A-Za-z0-9]{1,2})[.):][ \t]+(\S[^\n]*)$")
#: The longest separator between two options of a final run (", ", " or ", "; ", newline + bullet).
_MAX_GAP = 8


class AuditInputError(ValueError):
    """A task the audit cannot read (unknown, not multiple-choice, without documents); the message names it."""


@dataclass(frozen=True)
class AuditItem:
    """One item as a blind strategy sees it.

    Attributes:
        stem: The prompt with the options listing removed.
        options: The option texts (labelled options resolved to their texts).
        gold: Index of the key.
        condition: The item's condition (``all`` for tasks that have none).
        labels: The task's own choices (equal to ``options`` unless the prompt labels them).
        source: The document's own condition where ``condition`` pools it into an audit cell (a probe's
            ``audit_cells``); empty when they are the same. Declared heuristics name these conditions.
    """

    stem: str
    options: tuple[str, ...]
    gold: int
    condition: str = "all"
    labels: tuple[str, ...] = ()
    source: str = ""

    @property
    def source_condition(self) -> str:
        """The document's own condition (before any pooling into an audit cell)."""
        return self.source or self.condition

    def __post_init__(self) -> None:
        if len(self.options) < 2:
            raise ValueError(f"an item needs at least 2 options, got {len(self.options)}")
        if not 0 <= self.gold < len(self.options):
            raise ValueError(f"gold {self.gold} is not an option index (0..{len(self.options) - 1})")


def _labelled_options(prompt: str, choices: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """(stem, texts) when every choice is a short label that heads one line of the prompt."""
    if not all(0 < len(c.strip()) <= 2 for c in choices):
        return None
    wanted = [c.strip().casefold() for c in choices]
    found: dict[str, tuple[int, int, str]] = {}
    for match in _LABELLED.finditer(prompt):
        label = match.group(1).casefold()
        if label in wanted:
            found[label] = (match.start(), match.end(), match.group(2).strip())
    if set(found) != set(wanted):
        return None
    start = min(s for s, _, _ in found.values())
    end = max(e for _, e, _ in found.values())
    stem = "\n".join(part for part in (prompt[:start].strip(), prompt[end:].strip()) if part)
    return stem, tuple(found[label][2] for label in wanted)


def _final_run_start(prompt: str, choices: Sequence[str]) -> int | None:
    """Start of a final run ``c0, c1, ..., ck`` of the choices in order, if the prompt ends with one."""
    lowered = prompt.casefold()
    end = len(prompt)
    starts = []
    for choice in reversed(choices):
        where = lowered.rfind(choice.casefold(), 0, end)
        if where < 0 or end - (where + len(choice)) > (_MAX_GAP if starts else 40):
            return None
        starts.append(where)
        end = where
    return starts[-1]


def split_prompt(prompt: str, choices: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """(stem, option texts) of a prompt: see the module docstring."""
    listing = None
    for listing in _LISTING.finditer(prompt):
        pass
    if listing is not None:
        return prompt[: listing.start()].strip(), tuple(choices)
    labelled = _labelled_options(prompt, choices)
    if labelled is not None:
        return labelled
    start = _final_run_start(prompt, choices)
    if start is not None:
        return prompt[:start].strip(), tuple(choices)
    return prompt.strip(), tuple(choices)


def make_item(prompt: str, choices: Sequence[str], gold: int, condition: str = "all", source: str = "") -> AuditItem:
    """The :class:`AuditItem` of a shown prompt and the task's choices (``source``: the document's own
    condition when ``condition`` is the audit cell that pools it)."""
    choices = tuple(str(c) for c in choices)
    stem, options = split_prompt(prompt, choices)
    source = "" if str(source) == str(condition) else str(source)
    return AuditItem(stem=stem, options=options, gold=int(gold), condition=str(condition), labels=choices,
                     source=source)
