"""Reading Taboo replies and checking clues for taboo words (pure functions, linear in the reply).

Two taboo checks, both run on every clue (the move record logs both):

* :func:`paper_hits`, clembench's check as Momentè et al. ran it: the clue is lowercased, ASCII
  punctuation is removed, it is split on white space, stopwords are dropped, and each token's
  Snowball stem is compared with the stems of the target and related words (exact equality).
* :func:`strict_hits`, ours (the default that decides the game): the paper's hits, plus the stem
  check on stopwords too, plus compound and substring variants the paper misses (see its docstring).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from functools import lru_cache

from lm_eval_cog.games.base import fold, strip_reply

CLUE_TAG = "CLUE:"
GUESS_TAG = "GUESS:"
#: Shortest shared string the substring rules count: shorter ones ("art" in "start", "ear" in
#: "year") are mostly chance overlaps, not hidden taboo words.
MIN_PART = 4

_PUNCTUATION = str.maketrans("", "", string.punctuation)
# Maximal runs of letters (any script): word characters minus digits and "_". Linear, no backtracking.
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def read_tagged(reply: str, tag: str) -> str | None:
    """The text after ``tag`` when the stripped reply starts with it (case-sensitive, at position 0,
    as clembench checks), stripped; None when it does not."""
    text = strip_reply(reply)
    if not text.startswith(tag):
        return None
    return text[len(tag) :].strip()


def normalise_guess(text: str) -> str:
    """A guess as compared with the target: stripped, NFKC + case-folded, ASCII punctuation removed.

    Line breaks stay, so a guess of several lines never equals a one-word target.
    """
    return fold(text.strip()).translate(_PUNCTUATION)


def normalise_clue(text: str) -> str:
    """A clue as compared with earlier clues (repetition count): folded, white space collapsed."""
    return " ".join(fold(text).split())


@lru_cache(maxsize=1)
def _stemmer():
    # Imported here: nltk is only needed once a clue is checked. The Snowball stemmer is code,
    # it needs no nltk data download.
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """NLTK's English Snowball stem of ``word`` (the stemmer lowercases it)."""
    return _stemmer().stem(word)


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """scikit-learn's English stop words. Imported on first use: scikit-learn takes ~1.7 s to import
    (scipy, pandas), which every ``cog_baseline`` start would pay, since it lists every game's policies."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


def letters(text: str) -> str:
    """``text`` folded (NFKC + casefold), letters only: "Flash-Light" -> "flashlight"."""
    return "".join(_LETTER_RUN.findall(fold(text)))


def paper_tokens(clue: str, stop: frozenset[str] | None = None) -> list[str]:
    """The clue tokens clembench checks: lowercased, ASCII punctuation removed, split on white
    space (clembench split on single spaces), stopwords (``stop``, default :func:`stopwords`) dropped."""
    words = clue.strip().lower().translate(_PUNCTUATION).split()
    stop = stopwords() if stop is None else stop
    return [w for w in dict.fromkeys(words) if w not in stop]


def paper_hits(clue: str, taboo_words: Sequence[str], stop: frozenset[str] | None = None) -> list[str]:
    """Clembench's rule: every (clue token, taboo word) pair with equal Snowball stems, as
    ``"token ~ word"``. ``clue`` is the text after ``CLUE:``; ``taboo_words`` the target and related
    words; ``stop`` the stop words skipped (default :func:`stopwords`)."""
    stems = {stem(w.lower()): w for w in taboo_words}
    return [f"{token} ~ {stems[stem(token)]}" for token in paper_tokens(clue, stop) if stem(token) in stems]


def strict_hits(clue: str, taboo_words: Sequence[str]) -> list[str]:
    """The paper's hits (:func:`paper_hits`) plus what it misses. With tokens read from the folded
    clue (NFKC + casefold; both the maximal letter runs and each white-space word with its
    non-letters removed, so "flash-light" gives "flash", "light" and "flashlight"), a clue breaks
    the rule when

    * a token (stopwords included) has the stem of a taboo word ("fire" for the related word "firing":
      sklearn's stopword list holds content words such as "fire" and "system");
    * a token contains a taboo word of >= ``MIN_PART`` letters ("superflashlightish");
    * a token of >= ``MIN_PART`` letters that is not a stopword is contained in a taboo word ("light"
      for "flashlight");
    * consecutive letter runs spell a taboo word, starting at the start of one and ending at the end
      of another ("flash light", "flash-light", "as sure" for "assure"; not "not one" for "tone").
    """
    hits = paper_hits(clue, taboo_words)
    runs = _LETTER_RUN.findall(fold(clue))
    tokens = list(dict.fromkeys([*runs, *(letters(w) for w in clue.split())]))
    forms = {letters(w): w for w in taboo_words if letters(w)}
    stems = {stem(f): w for f, w in forms.items()}
    stop = stopwords()
    for token in tokens:
        if not token:
            continue
        if stem(token) in stems:
            hits.append(f"{token} ~ {stems[stem(token)]}")
        for form, word in forms.items():
            if len(form) >= MIN_PART and form in token and token != form:
                hits.append(f"{token} contains {word}")
            elif len(token) >= MIN_PART and token not in stop and token in form and token != form:
                hits.append(f"{token} is part of {word}")
    hits.extend(f"{spelled} spells {forms[form]}" for form, spelled in _spelled_across(runs, forms))
    return list(dict.fromkeys(hits))


def _spelled_across(runs: Sequence[str], forms: Iterable[str]) -> list[tuple[str, str]]:
    """(form, the runs that spell it) for every form that two or more consecutive letter runs spell
    exactly (the form starts where a run starts and ends where a later run ends)."""
    joined = "".join(runs)
    starts: dict[int, int] = {}  # offset in ``joined`` where run i starts -> i
    ends: dict[int, int] = {}  # offset where run i ends -> i
    offset = 0
    for i, run in enumerate(runs):
        starts[offset] = i
        offset += len(run)
        ends[offset] = i
    found = []
    for form in forms:
        at = joined.find(form)
        while at != -1:
            first, last = starts.get(at), ends.get(at + len(form))
            if first is not None and last is not None and last > first:
                found.append((form, " ".join(runs[first : last + 1])))
                break
            at = joined.find(form, at + 1)
    return found
