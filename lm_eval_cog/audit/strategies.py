"""Blind strategies: ways to pick an option that see the item's text but never solve it.

Each strategy scores the options of one :class:`~lm_eval_cog.audit.items.AuditItem`; it picks the
options with the highest score. Ties are split evenly (an item where the key ties with two others
earns 1/3), so a strategy's accuracy is the exact expectation of breaking ties at random, with no
random numbers. A strategy that has nothing to go on for an item (``None``) guesses uniformly: 1/k.

The families follow the artefact audits of the NLP literature (Gururangan et al. 2018; Balepur et al.
2024; Zheng et al. 2024) and the task heuristics an item generator must defeat:

* ``position_<j>`` / ``position_last``: always the j-th / the last option;
* ``length_rank_<r>`` / ``longest`` / ``fewest_words`` / ``most_words``: option length (r = 0 is the
  shortest);
* ``value_rank_<r>`` / ``value_highest``: the options in natural sort order (numbers by value, times,
  then text), e.g. "the middle value";
* ``overlap_most`` / ``overlap_least``: share of the option's words that occur in the stem;
* ``recent_<r>`` / ``first_<r>``: the r-th most recently / r-th first mentioned option in the stem;
* ``mentioned_most`` / ``mentioned_least`` / ``unmentioned``: how often the stem names the option;
* ``typical_chars`` / ``odd_chars`` / ``typical_words`` / ``odd_words``: the option most / least
  similar to the other options (edit similarity of the texts; Jaccard of their word sets): a key
  built with one-edit foils is the most typical;
* ``majority_text``: the option whose text is most often the key in the other half of the items
  (cross-fitted over halves drawn by a hash of the item's text, so it cannot memorise the item it
  answers, and a generator cannot align its counterbalancing with the halves).
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from lm_eval_cog.audit.items import AuditItem

#: A strategy: the item -> one score per option (highest picked), or None (no basis: a uniform guess).
Strategy = Callable[[AuditItem], "list[float] | None"]

#: Function words left out of the overlap measure.
_STOPWORDS = frozenset(
    "a an the of to in on at by for with and or not no is are was were be been it its this that these those "
    "which what who whom whose how many much do does did you your i we they he she his her their our as from "
    "than then there here if else one".split()
)
_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: Ranks and mention orders tried (options beyond this are rare in cognitive items).
MAX_RANK = 6
MAX_MENTION = 4


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOPWORDS}


def _average_ranks(keys: Sequence[object]) -> list[float]:
    """0-based ranks of ``keys`` in ascending order, tied keys sharing the mean of their ranks."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])  # type: ignore[arg-type,return-value]
    ranks = [0.0] * len(keys)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2
        i = j + 1
    return ranks


def _at_rank(keys: Sequence[object], rank: int) -> list[float] | None:
    """Scores that pick the option(s) at ``rank`` (ties: those whose shared rank is nearest)."""
    if rank >= len(keys):
        return None
    return [-abs(r - rank) for r in _average_ranks(keys)]


def natural_key(text: str) -> tuple:
    """Sort key that orders numbers by value inside text ("9:30" < "10:00", "2 cards" < "10 cards")."""
    parts: list[tuple[int, float | str]] = []
    pos = 0
    for match in _NUMBER.finditer(text):
        if match.start() > pos:
            parts.append((1, text[pos : match.start()].casefold()))
        parts.append((0, float(match.group()) if len(match.group()) < 300 else float("inf")))
        pos = match.end()
    if pos < len(text):
        parts.append((1, text[pos:].casefold()))
    return tuple(parts)


@lru_cache(maxsize=8)
def _mentions(item: AuditItem) -> list[list[int]]:
    """Positions in the stem where each option is named (whole words, case-insensitive)."""
    out = []
    for option in item.options:
        text = option.strip()
        if not text:
            out.append([])
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(text)}(?!\w)", re.IGNORECASE)
        out.append([m.start() for m in pattern.finditer(item.stem)])
    return out


def _mention_order(item: AuditItem, nth: int, *, recent: bool) -> list[float] | None:
    mentions = _mentions(item)
    named = [i for i, m in enumerate(mentions) if m]
    if len(named) < nth:
        return None
    # Recency: the last time an option is named; primacy: the first time.
    where = {i: (max(mentions[i]) if recent else min(mentions[i])) for i in named}
    keys = [-where[i] if recent else where[i] for i in named]
    ranks = _average_ranks(keys)
    scores = [float("-inf")] * len(item.options)
    for i, r in zip(named, ranks):
        scores[i] = -abs(r - (nth - 1))
    return scores


def _mention_count(item: AuditItem, sign: int) -> list[float] | None:
    counts = [len(m) for m in _mentions(item)]
    if sum(1 for c in counts if c) < 2 or len(set(counts)) == 1:
        return None
    return [sign * c if c else float("-inf") for c in counts]


def _unmentioned(item: AuditItem) -> list[float] | None:
    counts = [len(m) for m in _mentions(item)]
    if all(counts) or not any(counts):
        return None
    return [float(c == 0) for c in counts]


def _overlap(item: AuditItem, sign: int) -> list[float] | None:
    stem = _content(item.stem)
    shares = []
    for option in item.options:
        words = _content(option)
        shares.append(len(words & stem) / len(words) if words else 0.0)
    return None if len(set(shares)) == 1 else [sign * s for s in shares]


def _typicality(item: AuditItem, similarity: Callable[[str, str], float], sign: int) -> list[float] | None:
    k = len(item.options)
    if k < 3:  # with two options each is as similar to the other: no basis
        return None
    means = [
        sum(similarity(item.options[i], item.options[j]) for j in range(k) if j != i) / (k - 1) for i in range(k)
    ]
    return None if len(set(means)) == 1 else [sign * m for m in means]


def _char_similarity(a: str, b: str) -> float:
    return Levenshtein.normalized_similarity(a.casefold(), b.casefold())


def _word_similarity(a: str, b: str) -> float:
    x, y = set(_words(a)), set(_words(b))
    return len(x & y) / len(x | y) if x | y else 1.0


def _position(j: int) -> Strategy:
    return lambda item: None if j >= len(item.options) else [float(i == j) for i in range(len(item.options))]


def _length_rank(r: int) -> Strategy:
    return lambda item: _at_rank([len(o) for o in item.options], r)


def _value_rank(r: int) -> Strategy:
    return lambda item: _at_rank([natural_key(o) for o in item.options], r)


def _recent(n: int) -> Strategy:
    return lambda item: _mention_order(item, n, recent=True)


def _first(n: int) -> Strategy:
    return lambda item: _mention_order(item, n, recent=False)


def _highest(key: Callable[[str], object]) -> Strategy:
    return lambda item: _at_rank([key(o) for o in item.options], len(item.options) - 1)


def item_strategies() -> dict[str, Strategy]:
    """Every per-item strategy by name (``majority_text`` needs the item set: see :func:`credits`)."""
    out: dict[str, Strategy] = {}
    out.update({f"position_{j}": _position(j) for j in range(MAX_RANK)})
    out["position_last"] = lambda item: [float(i == len(item.options) - 1) for i in range(len(item.options))]
    out.update({f"length_rank_{r}": _length_rank(r) for r in range(MAX_RANK)})
    out["longest"] = _highest(len)
    out["fewest_words"] = lambda item: _at_rank([len(_words(o)) for o in item.options], 0)
    out["most_words"] = _highest(lambda o: len(_words(o)))
    out.update({f"value_rank_{r}": _value_rank(r) for r in range(MAX_RANK)})
    out["value_highest"] = _highest(natural_key)
    out["overlap_most"] = lambda item: _overlap(item, 1)
    out["overlap_least"] = lambda item: _overlap(item, -1)
    out.update({f"recent_{n}": _recent(n) for n in range(1, MAX_MENTION + 1)})
    out.update({f"first_{n}": _first(n) for n in range(1, MAX_MENTION + 1)})
    out["mentioned_most"] = lambda item: _mention_count(item, 1)
    out["mentioned_least"] = lambda item: _mention_count(item, -1)
    out["unmentioned"] = _unmentioned
    out["typical_chars"] = lambda item: _typicality(item, _char_similarity, 1)
    out["odd_chars"] = lambda item: _typicality(item, _char_similarity, -1)
    out["typical_words"] = lambda item: _typicality(item, _word_similarity, 1)
    out["odd_words"] = lambda item: _typicality(item, _word_similarity, -1)
    return out


def credit(scores: list[float], gold: int) -> float:
    """Expected accuracy of picking the best-scored option, ties broken uniformly at random."""
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s == best]
    return 1.0 / len(top) if gold in top else 0.0


def _normal(text: str) -> str:
    return " ".join(_words(text))


def _fold(item: AuditItem) -> int:
    """The item's half for cross-fitting, from a hash of its text: not its index, so a generator that
    counterbalances by index cannot line its answer texts up against the folds."""
    return zlib.crc32(item.stem.encode("utf-8", "surrogatepass")) % 2


def majority_text_scores(items: Sequence[AuditItem]) -> list[list[float] | None]:
    """``majority_text``, cross-fitted: each item is scored with key counts from the other half."""
    counts = [Counter(), Counter()]  # type: list[Counter[str]]
    for item in items:
        counts[_fold(item)][_normal(item.options[item.gold])] += 1
    out: list[list[float] | None] = []
    for item in items:
        other = counts[1 - _fold(item)]
        scores = [float(other[_normal(o)]) for o in item.options]
        out.append(None if len(set(scores)) == 1 else scores)
    return out


def credits(items: Sequence[AuditItem]) -> dict[str, list[float]]:
    """Per strategy, each item's expected credit (a uniform guess, 1/k, where it has no basis)."""
    table = {name: [] for name in item_strategies()}  # type: dict[str, list[float]]
    strategies = item_strategies()
    for item in items:
        guess = 1.0 / len(item.options)
        for name, strategy in strategies.items():
            scores = strategy(item)
            table[name].append(guess if scores is None else credit(scores, item.gold))
    table["majority_text"] = [
        1.0 / len(item.options) if scores is None else credit(scores, item.gold)
        for item, scores in zip(items, majority_text_scores(items))
    ]
    return table
