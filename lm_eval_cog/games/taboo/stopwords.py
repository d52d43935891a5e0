"""The stop-word lists Taboo's ``paper`` rule can skip (parameter ``stopwords``).

* ``sklearn``: scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words; :func:`rules.stopwords`).
* ``nltk``: NLTK's English stop words (179 words), the list clembench's Taboo used
  (``nltk.corpus.stopwords.words("english")``). NLTK's corpus data is a separate download that
  cannot happen at run time, so the list is shipped as ``data/nltk_stopwords_english.txt``
  (provenance and licence: ``data/LICENSES.md``).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lm_eval_cog.games.taboo import rules

STOPWORD_LISTS: tuple[str, ...] = ("sklearn", "nltk")
NLTK_FILE = "nltk_stopwords_english.txt"


@lru_cache(maxsize=1)
def nltk_stopwords() -> frozenset[str]:
    """NLTK's 179 English stop words (one per line in the shipped file)."""
    text = resources.files("lm_eval_cog.games").joinpath("data").joinpath(NLTK_FILE).read_text(encoding="utf-8")
    return frozenset(text.split())


def stopword_list(name: str) -> frozenset[str]:
    """The list called ``name`` (one of :data:`STOPWORD_LISTS`)."""
    if name == "nltk":
        return nltk_stopwords()
    if name == "sklearn":
        return rules.stopwords()
    raise ValueError(f"unknown stop-word list {name!r} (known: {', '.join(STOPWORD_LISTS)})")
