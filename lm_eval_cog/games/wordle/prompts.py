"""What the game master says (our wording of the paper's protocol: same tags, same order)."""

from __future__ import annotations

from lm_eval_cog.games.base import LOSE, SUCCESS
from lm_eval_cog.games.wordle.params import Variant

#: Shown for an explanation the reply left out (the paper's code crashed on it in the critic variant).
NO_EXPLANATION = "(none)"

_GUESS_FORMAT = "guess: <your 5-letter word>\nexplanation: <why you chose it, in one line>"
_AGREEMENT_FORMAT = "agreement: <yes or no>\nexplanation: <why, in one line>"
GUESS_REMINDER = f"Reply only in this format:\n{_GUESS_FORMAT}"
AGREEMENT_REMINDER = f"Reply only in this format:\n{_AGREEMENT_FORMAT}"


def guesser_rules(variant: Variant, max_guesses: int, clue: str) -> str:
    """The guesser's first message: the rules, and the clue in the clue variants."""
    parts = [
        f"Let's play Wordle. Find a secret English word of exactly 5 letters. You have {max_guesses} attempts.",
        "After each guess you get feedback on every letter of your guess, written letter<colour>:\n"
        "green: the letter is in the word, at this position;\n"
        "yellow: the letter is in the word, but at another position;\n"
        "red: the letter is not in the word (or not as many times as your guess uses it).",
    ]
    if variant.clue:
        parts.append("You also get a clue about the word, written 'clue: <clue>'.")
    if variant.critic:
        parts.append(
            "Each attempt has two steps. First you guess. A critic, who sees the same clue but not the word, "
            "then tells you whether it agrees with your guess ('guess_agreement: yes' or 'no', with its reasons "
            "as 'agreement_explanation: ...'). Then you give your final guess for the attempt: the same word or "
            "another. Only the final guess counts and gets feedback."
        )
    parts += [
        f"Reply with exactly two lines and nothing else:\n{_GUESS_FORMAT}",
        "Write the word in lowercase letters only, with no punctuation or formatting. It must be a real English "
        "word; a word that is not in the game's list is refused and you are asked again.",
        "For example:\nguess: crane\nexplanation: A common word with five frequent letters.\n"
        "Feedback on it could read:\nguess_feedback: c<red> r<yellow> a<green> n<red> e<red>",
    ]
    if variant.clue:
        parts.append(f"clue: {clue}")
    return "\n\n".join(parts)


def feedback_message(feedback: str) -> str:
    """The guesser's message after a committed guess that was not the word."""
    return f"guess_feedback: {feedback}\n\n{GUESS_REMINDER}"


def reprompt_message() -> str:
    """The guesser's message after a well-formed guess missing from the allowed list."""
    return f"Your guess is not a valid word for this game. Try again with another word.\n\n{GUESS_REMINDER}"


def critic_rules(max_guesses: int) -> str:
    """The critic's rules (its first message starts with them)."""
    return "\n\n".join([
        f"You are the critic in a game of Wordle. A guesser tries to find a secret English word of 5 letters "
        f"in {max_guesses} attempts. Neither of you knows the word. You see the clue the guesser got, its guess "
        f"and its explanation. Say whether you agree that the guess is the word.",
        f"Reply with exactly two lines and nothing else:\n{_AGREEMENT_FORMAT}",
        "For example:\nagreement: no\n"
        "explanation: A crane is a bird or a machine, but the clue asks for a piece of furniture.",
    ])  # fmt: skip


def critic_message(clue: str, guess: str, explanation: str | None, *, first: bool, max_guesses: int) -> str:
    """What the critic judges: the rules first, later a format reminder after it."""
    case = f"clue: {clue}\nguess: {guess}\nexplanation: {explanation or NO_EXPLANATION}"
    return f"{critic_rules(max_guesses)}\n\n{case}" if first else f"{case}\n\n{AGREEMENT_REMINDER}"


def verdict_message(clue: str, agreement: str, explanation: str | None) -> str:
    """The critic's opinion, forwarded to the guesser for its final guess."""
    return (
        f"clue: {clue}\nguess_agreement: {agreement}\nagreement_explanation: {explanation or NO_EXPLANATION}"
        f"\n\n{GUESS_REMINDER}"
    )


def closing_message(outcome: str, target: str, guesses: int, reason: str = "") -> str:
    """The text that ends the game (nobody answers it)."""
    if outcome == SUCCESS:
        return f"Well done: '{target}' is the word, found in {guesses} guess{'es' if guesses != 1 else ''}."
    if outcome == LOSE:
        return f"No guesses left. The word was '{target}'."
    return f"The game is over: {reason}."
