"""What the game master says to each player (our wording of clembench's protocol)."""

from __future__ import annotations

from collections.abc import Sequence

from lm_eval_cog.games.taboo.rules import CLUE_TAG, GUESS_TAG


def describer_prompt(target: str, related: Sequence[str], max_clues: int) -> str:
    """The describer's first message: the rules, the target and the related (taboo) words."""
    related_list = "\n".join(f"- {word}" for word in related)
    return (
        "You are playing a word-guessing game with a partner. You are the describer: you know a "
        "target word, and your partner, the guesser, has to find it from your clues.\n\n"
        "Rules:\n"
        "- Describe the target word without saying it.\n"
        "- Do not use any word that shares a stem with the target word or with one of the related "
        "words below (\"runs\" and \"running\" share the stem \"run\"), and do not use any part of "
        "these words.\n"
        f"- Your partner has {max_clues} tries to guess the word. After each wrong guess you will "
        "see it and give a new clue.\n"
        f"- Start every reply with \"{CLUE_TAG}\" followed by your clue, for example "
        f"\"{CLUE_TAG} a small animal that purrs\". Keep your clues brief.\n"
        f"- The game ends when the word is guessed, after {max_clues} wrong guesses, or as soon as "
        "a clue breaks these rules.\n\n"
        f"Target word: {target}\n"
        f"Related words:\n{related_list}"
    )


def guesser_prompt(max_clues: int) -> str:
    """The guesser's rules (its first message adds the first clue after a blank line)."""
    return (
        "You are playing a word-guessing game with a partner. You are the guesser: your partner, "
        "the describer, knows a target word and gives you clues about it without saying it.\n\n"
        "Rules:\n"
        f"- Guess the target word. You have {max_clues} tries; after a wrong guess you get a new clue.\n"
        f"- Start every reply with \"{GUESS_TAG}\" followed by one single word, for example "
        f"\"{GUESS_TAG} cat\", and write nothing else.\n"
        f"- The game ends when you guess the word or after {max_clues} wrong guesses."
    )


def closing(outcome_text: str, target: str) -> str:
    """The closing message nobody answers."""
    return f"{outcome_text} The target word was \"{target}\". The game is over."


WON = "Correct!"
LOST_GUESSES = "No more tries."
LOST_TABOO = "The clue used a taboo word."
ABORTED_CLUE = f"The reply did not start with \"{CLUE_TAG}\"."
ABORTED_GUESS = f"The reply did not start with \"{GUESS_TAG}\"."


# ---------------------------------------------------------------- the paper's messages
def paper_describer_prompt(template: str, target: str, related: Sequence[str], max_clues: int) -> str:
    """clembench's describer prompt (the experiment's ``describer_initial_prompt``), filled as its
    game master fills it: the target, the related words as a "- word" list, the number of tries."""
    related_list = "\n".join(f"- {word}" for word in related)
    return template.replace("$TARGET_WORD$", target).replace("$REL_WORD$", related_list).replace("$N$", str(max_clues))


def paper_guesser_prompt(template: str, max_clues: int) -> str:
    """clembench's guesser prompt (the experiment's ``guesser_initial_prompt``) with the number of tries."""
    return template.replace("$N$", str(max_clues))
