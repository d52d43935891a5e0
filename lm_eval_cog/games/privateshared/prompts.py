"""What the game master says to the answerer (this project's wording of clembench's protocol)."""

from __future__ import annotations

from collections.abc import Sequence

from lm_eval_cog.games.privateshared.experiments import Experiment
from lm_eval_cog.games.privateshared.instances import Instance

ANSWER_TAG = "ANSWER:"
ASIDE_TAG = "ASIDE:"
ME_TAG = "ME:"
#: Closes every probe (clembench's wording of the probe instruction).
PROBE_CODA = "Answer this question with yes or no and then stop."
#: Follows every request of the questioner. clembench logs such a coda but never sends it; we send it.
REQUEST_CODA = 'Answer only this question, in one short sentence that starts with "ANSWER:".'
#: Inserted right after "ME: " on the 2nd..5th try of a probe (index = try - 1; the first try has none).
RETRY_SUFFIXES: tuple[str, ...] = (
    "",
    "Please answer this question carefully.",
    "Please read the question again and answer it carefully.",
    "Please answer this question carefully and in the required format.",
    "This is the last time this question is asked: please answer it carefully.",
)
#: How many times a probe is asked before the game aborts.
PROBE_TRIES = len(RETRY_SUFFIXES)
CLOSING = "All the questions have been answered. The game is over."
CLOSING_ABORTED = "Your reply was not in the required form. The game is over."


def instructions(experiment: Experiment, instance: Instance) -> str:
    """The rules and the answerer's private information (clembench's initial prompt, in our words)."""
    partner = experiment.partner
    info = "\n".join([f"WHAT: {experiment.what}", *(f"{slot.upper()}: {value}" for slot, value in instance.slots.items())])
    return "\n\n".join([
        f"Let's play a game. {experiment.scenario}",
        info,
        f"{partner[0].upper()}{partner[1:]} will ask you for this information, one question at a time. "
        f'Their questions start with "{experiment.tag}:". Reply to each of them with a single line that starts '
        f'with "{ANSWER_TAG}", like "{ANSWER_TAG} <your answer>", and give only what was asked for.',
        f'Now and then I, the game master, will ask you a question of my own. My questions start with "{ME_TAG}". '
        f'Reply to them with a single line that starts with "{ASIDE_TAG}", like "{ASIDE_TAG} <your answer>". '
        f"{partner[0].upper()}{partner[1:]} does not see these questions and answers.",
        "Keep your answers short and direct.",
    ])  # fmt: skip


def request(experiment: Experiment, text: str) -> str:
    """A questioner's turn: its tagged request, then the coda."""
    return f"{experiment.tag}: {text}\n\n{REQUEST_CODA}"


def probe(question: str, attempt: int) -> str:
    """The game master's probe ``question`` on try ``attempt`` (1-based; later tries add a suffix after "ME: ")."""
    suffix = RETRY_SUFFIXES[attempt - 1]
    return f"{ME_TAG} {suffix + ' ' if suffix else ''}{question} {PROBE_CODA}"


# ---------------------------------------------------------------- the paper's messages
def paper_request(experiment: Experiment, text: str) -> str:
    """clembench's request as sent: the tagged request alone (its closing instruction was only logged)."""
    return f"{experiment.tag}: {text}"


def paper_probe(question: str, attempt: int, suffixes: Sequence[str]) -> str:
    """clembench's probe on try ``attempt``: its retry suffix inserted after "ME: " and followed by a
    space, on the first try too (the suffix is then empty: "ME:  Does ...", as clembench sent it)."""
    return f"{ME_TAG} {suffixes[attempt - 1]} {question} {PROBE_CODA}"
