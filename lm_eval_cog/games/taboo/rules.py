"""Reading Taboo replies and checking clues for taboo words (pure functions, linear in the reply).

Two taboo checks, both run on every clue (the move record logs both):

* :func:`paper_hits`, clembench's check as Momentè et al. ran it (the default rule): the clue is
  lowercased, ASCII punctuation is removed, it is split on white space, stop words are dropped, and
  each token's Snowball stem is compared with the stems of the target and related words (exact
  equality). clembench removed substring matching on purpose (clemcore#9): *train* is a fair clue
  for *rain*.
* :func:`strict_hits`, ours: the paper's hits, plus the same stem equality on every letter run of
  the accent-folded clue (stop words included) and on every join of adjacent runs, so that split,
  accented and inflected forms (``gov ernments``, ``polítics``, ``lik es``) are caught while a word
  that merely contains a taboo word (*train*, *hearth*, *start*, *portrait*) is not.

Cost: both checks are linear in the clue. A Snowball stem is computed only for a token that can
share a taboo word's stem, one that starts as that stem does (:func:`stem_prefix`): regular
expressions find them, so the other tokens cost no Python step. Joins of adjacent runs stop at
:data:`JOIN_SLACK` letters beyond the longest taboo word.
"""

from __future__ import annotations

import itertools
import re
import string
import unicodedata
from collections.abc import Callable, Collection, Sequence
from functools import lru_cache

from lm_eval_cog.games.base import fold, strip_reply

CLUE_TAG = "CLUE:"
GUESS_TAG = "GUESS:"
#: How many letters a join of adjacent letter runs may have beyond the longest taboo word: room for
#: the inflections and derivations the Snowball stemmer removes ("gov ernments" for "government",
#: "pol iticians" for "political"); a longer join cannot share a stem with any of them in practice.
JOIN_SLACK = 10
#: A join spans at most this many characters per letter of its longest allowed length: room for a
#: separator of three characters between letters ("g - o - v ..."), never a whole page.
JOIN_SPREAD = 4
#: Apostrophes the Snowball stemmer maps to "'" and strips at the start of a word.
_APOSTROPHES = "\u2018\u2019\u201b"

_PUNCTUATION = str.maketrans("", "", string.punctuation)
# Maximal runs of letters (any script): word characters minus digits and "_". Linear, no backtracking.
_LETTER = r"[^\W\d_]"
_NON_LETTER = r"[\W\d_]"
_LETTER_RUN = re.compile(rf"{_LETTER}+")


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


def stem_prefix(stem_: str) -> str:
    """What every word with the Snowball stem ``stem_`` starts with, ``i`` and ``y`` alike: the stem's
    first ``max(2, len - 2)`` characters. The stemmer lowercases a word, strips one leading
    apostrophe, and then only rewrites its end (at most the stem's last two characters differ from
    the word's, as in hoping -> hope, happy -> happi; dying -> die reads y as i). Checked on every
    word of up to three letters with 50 suffixes, and on the shipped word lists
    (tests/test_game_taboo.py). "" for a stem under two characters: no word can be ruled out."""
    if len(stem_) < 2:
        return ""
    return stem_[: max(2, len(stem_) - 2)].replace("y", "i")


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """The paper rule's default stop words: scikit-learn's English list. Imported on first use:
    scikit-learn takes ~1.7 s to import (scipy, pandas), which every ``cog_baseline`` start would pay,
    since it lists every game's policies. :func:`paper_hits` takes any other set (``stop_words``)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


def letters(text: str) -> str:
    """``text`` folded (:func:`fold_accents`), letters only: "Flash-Líght" -> "flashlight"."""
    return "".join(_LETTER_RUN.findall(fold_accents(text)))


@lru_cache(maxsize=1)
def _combining_marks() -> re.Pattern[str]:
    # Every combining mark of the Basic Multilingual Plane, as one character class (a scan at C
    # speed); built once.
    marks = [cp for cp in range(0x10000) if unicodedata.combining(chr(cp))]
    ranges, first = [], marks[0]
    for prev, cp in zip(marks, [*marks[1:], None]):
        if cp != prev + 1 if cp is not None else True:
            ranges.append(f"{re.escape(chr(first))}-{re.escape(chr(prev))}" if prev > first else re.escape(chr(first)))
            first = cp
    return re.compile(f"[{''.join(ranges)}]+")


def fold_accents(text: str) -> str:
    """Unicode NFKD with combining marks removed, then case folding: "Polítics" -> "politics",
    "ｆｌａｓｈ" -> "flash". Letters of other scripts stay (a Cyrillic "а" is not "a")."""
    if text.isascii():  # no accent to fold (the common case, and a fast one)
        return text.casefold()
    return _combining_marks().sub("", unicodedata.normalize("NFKD", text)).casefold()


class _Stems:
    """The stems of the taboo words, and regular expressions that find the only tokens that can have
    one of them (those starting with a :func:`stem_prefix`): a clue may hold a million tokens, and
    stemming each would cost seconds."""

    def __init__(self, taboo_words: Sequence[str], fold_word: Callable[[str], str]) -> None:
        self.by_stem: dict[str, str] = {}
        for word in taboo_words:
            form = fold_word(word)
            if form:
                self.by_stem.setdefault(stem(form), word)
        prefixes = sorted({stem_prefix(s) for s in self.by_stem}, key=len, reverse=True)
        #: The runs of letters (in folded text) that start with a stem prefix; and the run starts
        #: where the letters, read on across any non-letters, start with one (a zero-width match, so
        #: that a run inside one such stretch may start another).
        self.runs_re = re.compile("|".join(_starting(p, f"{_LETTER}*", _LETTER) for p in prefixes))
        self.joins_re = re.compile("|".join(_starting(p[:1], f"(?={_any_iy(p[1:], _NON_LETTER + '*', True)})", _LETTER)
                                            for p in prefixes))  # fmt: skip
        #: The white-space words (of lowercased text) that start with a stem prefix, without and
        #: with one apostrophe before it (the stemmer strips it). Two expressions: one would scan
        #: 4 times slower (its first characters are no longer all ASCII).
        self.words_res = [re.compile("|".join(_starting(p, r"\S*", r"\S", lead) for p in prefixes))
                          for lead in ("", _APOSTROPHES)]  # fmt: skip
        self.shortest = min(map(len, self.by_stem), default=0)  # a word is never shorter than its stem

    def word_of(self, token: str) -> str | None:
        """The taboo word whose stem ``token`` has, or None."""
        return self.by_stem.get(stem(token)) if len(token) >= self.shortest else None


def _any_iy(prefix: str, between: str = "", lead: bool = False) -> str:
    """``prefix`` as a regular expression in which "i" and "y" match either, with ``between`` (a
    pattern) between its characters (and before the first, when ``lead``)."""
    parts = ["[iy]" if ch in "iy" else re.escape(ch) for ch in prefix]
    return (between if lead and parts else "") + between.join(parts)


def _starting(prefix: str, rest: str, inside: str, lead: str = "") -> str:
    """A pattern for ``prefix`` (its "i" and "y" alike) at the start of a stretch of ``inside``
    characters (a letter run, a white-space word), after the optional ``lead`` class, then ``rest``.
    Its first character comes first, so that the regular expression engine scans for it (3-4 times
    faster than a look-behind tried at every position). "" (no prefix): any such start."""
    if not prefix:
        return rf"(?<!{inside})(?={inside})"
    first, tail = (f"[{lead}]", _any_iy(prefix)) if lead else (_any_iy(prefix[0]), _any_iy(prefix[1:]))
    return rf"{first}(?<!{inside}{first}){tail}{rest}"


def paper_tokens(clue: str, stop_words: Collection[str] | None = None) -> list[str]:
    """The clue tokens clembench checks, each once: lowercased, ASCII punctuation removed, split on
    white space (clembench split on single spaces), stop words (default :func:`stopwords`) dropped."""
    stop = stopwords() if stop_words is None else stop_words
    words = clue.strip().lower().translate(_PUNCTUATION).split()
    return [w for w in dict.fromkeys(words) if w not in stop]


def paper_hits(clue: str, taboo_words: Sequence[str], stop_words: Collection[str] | None = None) -> list[str]:
    """Clembench's rule: every (clue token, taboo word) pair with equal Snowball stems, as
    ``"token ~ word"``, tokens as :func:`paper_tokens` reads them. ``clue`` is the text after
    ``CLUE:``; ``taboo_words`` the target and related words; ``stop_words`` the tokens never checked
    (default :func:`stopwords`)."""
    stems = _Stems(taboo_words, str.lower)
    if not stems.by_stem:
        return []
    stop = stopwords() if stop_words is None else stop_words
    text = clue.strip().lower().translate(_PUNCTUATION)
    # The white-space words that start with a stem prefix (after an apostrophe the stemmer strips).
    found = [m.group() for pattern in stems.words_res for m in pattern.finditer(text)]
    hits = []
    for token in dict.fromkeys(found):
        word = None if token in stop else stems.word_of(token)
        if word is not None:
            hits.append(f"{token} ~ {word}")
    return hits


def strict_hits(clue: str, taboo_words: Sequence[str], stop_words: Collection[str] | None = None) -> list[str]:
    """The paper's hits (:func:`paper_hits`, with ``stop_words``) plus what it misses. The clue is
    accent-folded (:func:`fold_accents`) and read as its maximal letter runs; a clue breaks the rule when

    * a run, stop words included, has the Snowball stem of a taboo word ("likes" ~ "like", "fire" ~
      "firing": a stop word list may hold content words);
    * two or more adjacent runs, joined, have the stem of a taboo word: a word split by spaces,
      hyphens, digits or any other non-letter ("gov ernments" ~ "government", "flash-light",
      "g-o-v-e-r-n-m-e-n-t", "as sure" ~ "assure"; not "not one" for "tone").

    A run that merely contains a taboo word, or is part of one, is fair ("train" for "rain",
    "hearth" for "heart", "start" for "star", "trait" for "portrait"), as in clembench.
    """
    hits = paper_hits(clue, taboo_words, stop_words)
    stems = _Stems(taboo_words, letters)
    if not stems.by_stem:
        return hits
    folded = fold_accents(clue)
    for run in dict.fromkeys(m.group() for m in stems.runs_re.finditer(folded)):
        word = stems.word_of(run)
        if word is not None:
            hits.append(f"{run} ~ {word}")
    longest = max(len(letters(w)) for w in taboo_words) + JOIN_SLACK
    hits.extend(_joined_hits(folded, stems, longest))
    return list(dict.fromkeys(hits))


def _joined_hits(folded: str, stems: _Stems, longest: int) -> list[str]:
    """Hits of joins of two or more adjacent letter runs of ``folded``, of at most ``longest`` letters
    within ``JOIN_SPREAD * longest`` characters. Joins are built only from a run where the letters,
    read on across any non-letters, start with a stem prefix (one regular expression finds these
    runs); windows of identical text are read once. Linear in the clue."""
    span = JOIN_SPREAD * longest
    hits: list[str] = []
    word_of: dict[str, str | None] = {}  # joined letters -> taboo word (a join seen before)
    seen_windows: set[tuple[str, bool]] = set()
    for match in stems.joins_re.finditer(folded):
        at = match.start()
        window = folded[at : at + span]
        cut = _LETTER_RUN.match(folded, at + span) is not None  # the window's last run goes on
        if (window, cut) in seen_windows:  # the same text: the same runs, the same hits
            continue
        seen_windows.add((window, cut))
        runs = []
        for run in itertools.islice(_LETTER_RUN.finditer(window), longest):
            if cut and run.end() == len(window):
                break  # a run cut by the window: not a whole run
            runs.append(run.group())
        joined = runs[0] if runs else ""
        for j in range(1, len(runs)):
            joined += runs[j]
            if len(joined) > longest:
                break
            if joined not in word_of:
                word_of[joined] = stems.word_of(joined)
            if word_of[joined] is not None:
                hits.append(f"{' '.join(runs[: j + 1])} ~ {word_of[joined]}")
    return hits
