"""The syllogism heuristics of the reasoning literature, played from the printed syllogism alone.

Each reads the two premises and the conclusion as the prompt prints them ("All X are Y.",
"No X are Y.", "Some X are Y.", "Some X are not Y.") and judges the conclusion without doing the
logic the item asks for:

* **atmosphere** (Woodworth & Sells, 1935): accept a conclusion that is negative when a premise is
  negative and particular when a premise is particular (universal and affirmative otherwise);
* **conversion** (Chapman & Chapman, 1959): read "All X are Y" as also "All Y are X" and "Some X
  are not Y" as also "Some Y are not X", then judge validity correctly (by model checking over the
  Venn regions) from the converted premises;
* **min** (Chater & Oaksford's min-heuristic, 1999): accept a conclusion whose quantifier is that of
  the least informative premise (All > Some > No > Some-not).

Pure Python, used by :mod:`lm_eval_cog.probes.syllogism` (the heuristics it declares) and by its
generator, which draws the invalid items so that each heuristic's verdict is as common among them
as among the valid ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

#: Sentence patterns by mood, the negative particular first ("Some X are not Y" also reads as I).
PATTERNS = (
    ("O", re.compile(r"Some (.+?) are not (.+?)\.")),
    ("A", re.compile(r"All (.+?) are (.+?)\.")),
    ("E", re.compile(r"No (.+?) are (.+?)\.")),
    ("I", re.compile(r"Some (.+?) are (.+?)\.")),
)
#: Informativeness order of the min-heuristic (Chater & Oaksford, 1999), most informative first.
INFORMATIVENESS = "AIEO"
Proposition = tuple[str, str, str]  # (mood, subject, predicate)


def parse(sentence: str) -> Proposition | None:
    """(mood, subject, predicate) of a categorical sentence; None if it is none."""
    for mood, pattern in PATTERNS:
        found = pattern.fullmatch(sentence.strip())
        if found:
            return mood, found.group(1), found.group(2)
    return None


def read_syllogism(stem: str) -> tuple[Proposition, Proposition, Proposition, bool] | None:
    """(premise 1, premise 2, conclusion, existential import) of a printed syllogism; None if the
    stem holds none."""
    lines = {}
    for label in ("Premise 1", "Premise 2", "Conclusion"):
        found = re.search(rf"^{label}: (.+)$", stem, re.MULTILINE)
        if found is None:
            return None
        lines[label] = parse(found.group(1))
    if None in lines.values():
        return None
    return lines["Premise 1"], lines["Premise 2"], lines["Conclusion"], "at least one member" in stem


def _mask(prop: Proposition, index: dict[str, int], cells: int) -> tuple[int, bool]:
    """(the cells that decide ``prop``, whether it needs one of them occupied): a cell is a non-empty set
    of terms as a bitmask (term i = bit i), a model the set of occupied cells as a bitmask over cells.
    A and E hold when none of their cells is occupied (an X outside Y; an X inside Y), I and O when one is."""
    mood, x, y = prop
    bx, by = 1 << index[x], 1 << index[y]
    inside = {"A": lambda c: c & bx and not c & by, "E": lambda c: c & bx and c & by,
              "I": lambda c: c & bx and c & by, "O": lambda c: c & bx and not c & by}[mood]
    return sum(1 << c for c in range(1, cells) if inside(c)), mood in "IO"


@lru_cache(maxsize=4096)
def follows(premises: tuple[Proposition, ...], conclusion: Proposition, existential_import: bool) -> bool:
    """Whether ``conclusion`` holds in every Venn model of ``premises`` (and, with existential import,
    of every term having a member): every set of occupied regions is tried."""
    terms = sorted({t for _, x, y in (*premises, conclusion) for t in (x, y)})
    index = {t: i for i, t in enumerate(terms)}
    cells = 1 << len(terms)
    masks = [_mask(p, index, cells) for p in premises]
    goal, goal_needs = _mask(conclusion, index, cells)
    members = [sum(1 << c for c in range(1, cells) if c >> i & 1) for i in range(len(terms))]
    for model in range(0, 1 << cells, 2):  # cell 0 (no term) never counts
        if existential_import and not all(model & m for m in members):
            continue
        if all(bool(model & m) == needs for m, needs in masks) and bool(model & goal) != goal_needs:
            return False
    return True


def atmosphere_accepts(p1: Proposition, p2: Proposition, conclusion: Proposition) -> bool:
    """Woodworth & Sells (1935): the conclusion has the premises' atmosphere."""
    moods = p1[0] + p2[0]
    negative, particular = any(m in "EO" for m in moods), any(m in "IO" for m in moods)
    expected = {(False, False): "A", (True, False): "E", (False, True): "I", (True, True): "O"}
    return conclusion[0] == expected[negative, particular]


def conversion_accepts(p1: Proposition, p2: Proposition, conclusion: Proposition, existential_import: bool) -> bool:
    """Chapman & Chapman (1959): valid once the A and O premises are also read converted."""
    premises = [p1, p2]
    premises += [(m, y, x) for m, x, y in (p1, p2) if m in "AO"]
    # The terms renamed by order of appearance, so that forms repeat in the cache whatever their words.
    names: dict[str, str] = {}
    for _, x, y in (*premises, conclusion):
        names.setdefault(x, str(len(names)))
        names.setdefault(y, str(len(names)))
    renamed = tuple((m, names[x], names[y]) for m, x, y in premises)
    return follows(renamed, (conclusion[0], names[conclusion[1]], names[conclusion[2]]), existential_import)


def min_accepts(p1: Proposition, p2: Proposition, conclusion: Proposition) -> bool:
    """Chater & Oaksford (1999): the conclusion takes the least informative premise's quantifier."""
    least = max(p1[0], p2[0], key=INFORMATIVENESS.index)
    return conclusion[0] == least


def verdict_scores(accepts: bool, options: Sequence[str]) -> list[float]:
    """Scores of the options ``valid`` / ``invalid`` for a heuristic that accepts (or rejects) the conclusion."""
    return [float((o.strip().casefold() == "valid") == accepts) for o in options]


def atmosphere_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    read = read_syllogism(stem)
    return None if read is None else verdict_scores(atmosphere_accepts(*read[:3]), options)


def conversion_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    read = read_syllogism(stem)
    return None if read is None else verdict_scores(conversion_accepts(*read), options)


def min_scores(stem: str, options: Sequence[str]) -> list[float] | None:
    read = read_syllogism(stem)
    return None if read is None else verdict_scores(min_accepts(*read[:3]), options)
