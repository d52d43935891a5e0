"""Letter colours of a guess: the standard Wordle rule (used) and the paper's (logged).

Feedback reads ``letter<colour>`` per letter, space-separated, e.g. ``s<green> p<green> a<red>
r<yellow> e<green>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

GREEN, YELLOW, RED = "green", "yellow", "red"


def standard_colours(guess: str, target: str) -> tuple[str, ...]:
    """Wordle's rule, in two passes: letters in place are green; then, left to right, a letter
    is yellow while the target still has an unmatched copy of it (copies already green or
    yellow are used up), else red."""
    colours = [GREEN if g == t else RED for g, t in zip(guess, target)]
    unmatched = Counter(t for t, c in zip(target, colours) if c != GREEN)
    for i, letter in enumerate(guess):
        if colours[i] != GREEN and unmatched[letter] > 0:
            colours[i] = YELLOW
            unmatched[letter] -= 1
    return tuple(colours)


def paper_colours(guess: str, target: str) -> tuple[str, ...]:
    """The colours the paper's code gave (clembench ``GuessValidator`` before v2.0, clemcore#153).

    One pass, left to right: each letter takes the first target position holding it that no
    earlier letter took; green if that is its own position; red if the guess has the same
    letter at that position (it assumes that copy will be green); else yellow. Repeated letters
    come out wrong: target *spree*, guess *spare* ends ``e<yellow>`` (should be green).
    """
    if guess == target:
        return (GREEN,) * len(guess)
    taken: set[int] = set()
    colours = []
    for i, letter in enumerate(guess):
        j = target.find(letter)
        while j != -1 and j in taken:
            j = target.find(letter, j + 1)
        if j == -1:
            colours.append(RED)
        elif j == i:
            colours.append(GREEN)
            taken.add(j)
        elif guess[j] == letter:
            colours.append(RED)
        else:
            colours.append(YELLOW)
            taken.add(j)
    return tuple(colours)


def render(guess: str, colours: Sequence[str]) -> str:
    """``a<red> p<yellow> ...``: the feedback line the guesser reads."""
    return " ".join(f"{letter}<{colour}>" for letter, colour in zip(guess, colours))
