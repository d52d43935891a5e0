"""Learned artefact detectors: classifiers that see part of an item, trained to find the key, tested held out.

The hypothesis-only / choices-only check of NLP (Gururangan et al. 2018; Poliak et al. 2018; Balepur
et al. 2024), made generic for any multiple-choice task. Each option of an item is one example
(label: is it the key?); an item's pick is its best-scored option (ties split evenly, as the
strategies'). Two detectors:

* ``options_only``: character n-grams (1-4, within words) of the option text alone, no question,
  in a logistic regression. It finds keys that look different from foils (a suffix, a word type,
  a recurring key text) whatever the rule that makes them so.
* ``surface``: gradient-boosted trees on features of the (question, option) pair that cannot solve
  the item: the option's position, its length and length rank, natural-sort value rank, digits,
  how often, how first and how recently the question names it, its word overlap with the question,
  its similarity to the other options, its first and last word, and the item's condition. They find
  combinations of surface cues that no single hand-written strategy tries (the key is never the last
  word named; the key is the only option of the asked category...).

The accuracy that counts is held out: for a generated task (its documents change with the seed),
the detectors are trained on the items of other seeds and tested on the audited ones; for a fixed
dataset, cross-fitted over grouped folds (an item's options, and every item with the same question
text, sit in one fold, so no item trains its own prediction). Training needs at least
:data:`MIN_ITEMS` items with both labels; else the detector is skipped with a note.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lm_eval_cog.audit.items import AuditItem
from lm_eval_cog.audit.strategies import _average_ranks, _char_similarity, _content, _mentions, _words, credit
from lm_eval_cog.audit.strategies import natural_key

PREFIX = "detector:"
DETECTORS = ("options_only", "surface")
#: Fewest training items a detector is trained on (below: skipped, with a note).
MIN_ITEMS = 20
DEFAULT_FOLDS = 5
#: First/last words and conditions kept as categories (the most frequent in training; others pooled).
_MAX_CATEGORIES = 60
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Detected:
    """A detector's held-out credit per audited item, or the note saying why it was skipped."""

    strategy: str
    credits: list[float] | None
    note: str = ""


# -- features -----------------------------------------------------------------------------------


def option_texts(item: AuditItem) -> list[str]:
    """What ``options_only`` sees of an item: each option's text, casefolded, nothing else."""
    return [option.casefold() for option in item.options]


def _rank(keys: Sequence[object], k: int) -> list[float]:
    """Average ranks scaled to [0, 1] (0.5 for every option of a one-option item)."""
    return [r / (k - 1) if k > 1 else 0.5 for r in _average_ranks(keys)]


def surface_features(item: AuditItem) -> list[dict[str, float | str]]:
    """What ``surface`` sees of each option: cues about the option and its place in the item, none of
    which is the task (numbers: floats; the first/last word and the condition: categories)."""
    k = len(item.options)
    lengths = [len(o) for o in item.options]
    words = [_words(o) for o in item.options]
    mentions = _mentions(item)
    counts = [len(m) for m in mentions]
    named = [i for i in range(k) if counts[i]]
    first = {i: min(mentions[i]) for i in named}
    last = {i: max(mentions[i]) for i in named}
    first_rank = dict(zip(named, _rank([first[i] for i in named], len(named)))) if named else {}
    recent_rank = dict(zip(named, _rank([-last[i] for i in named], len(named)))) if named else {}
    stem = _content(item.stem)
    length_rank = _rank(lengths, k)
    value_rank = _rank([natural_key(o) for o in item.options], k)
    count_rank = _rank(counts, k)
    out = []
    for j, option in enumerate(item.options):
        content = _content(option)
        similarity = [_char_similarity(option, item.options[m]) for m in range(k) if m != j]
        out.append({
            "k": float(k),
            "position": j / (k - 1) if k > 1 else 0.0,
            "is_first": float(j == 0),
            "is_last": float(j == k - 1),
            "chars": float(lengths[j]),
            "words": float(len(words[j])),
            "length_rank": length_rank[j],
            "value_rank": value_rank[j],
            "digits": float(len(_DIGIT.findall(option))),
            "mentions": float(counts[j]),
            "mention_rank": count_rank[j],
            "first_mention_rank": first_rank.get(j, -1.0),
            "recent_mention_rank": recent_rank.get(j, -1.0),
            "overlap": len(content & stem) / len(content) if content else 0.0,
            "similarity_mean": sum(similarity) / len(similarity) if similarity else 0.0,
            "similarity_max": max(similarity, default=0.0),
            "first_word": words[j][0] if words[j] else "",
            "last_word": words[j][-1] if words[j] else "",
            "condition": item.condition,
        })
    return out


# -- models -------------------------------------------------------------------------------------


class _OptionsOnly:
    def fit(self, items: Sequence[AuditItem]) -> _OptionsOnly:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        texts, labels = _flatten(items, option_texts)
        self.vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), sublinear_tf=True)
        x = self.vectorizer.fit_transform(texts)
        self.model = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced").fit(x, labels)
        return self

    def scores(self, items: Sequence[AuditItem]) -> list[list[float]]:
        texts, _ = _flatten(items, option_texts)
        return _per_item(items, self.model.decision_function(self.vectorizer.transform(texts)))


class _Surface:
    _CATEGORICAL = ("first_word", "last_word", "condition")

    def fit(self, items: Sequence[AuditItem]) -> _Surface:
        from sklearn.ensemble import HistGradientBoostingClassifier

        rows, labels = _flatten(items, surface_features)
        self.numeric = sorted(k for k in rows[0] if k not in self._CATEGORICAL)
        self.vocab = {
            name: {v: i for i, (v, _) in enumerate(Counter(r[name] for r in rows).most_common(_MAX_CATEGORIES))}
            for name in self._CATEGORICAL
        }
        self.model = HistGradientBoostingClassifier(
            max_iter=100, learning_rate=0.1, max_leaf_nodes=15, min_samples_leaf=10, l2_regularization=1.0,
            categorical_features=[False] * len(self.numeric) + [True] * len(self._CATEGORICAL),
            early_stopping=False, class_weight="balanced", random_state=0,
        ).fit(self._matrix(rows), labels)
        return self

    def _matrix(self, rows: list[dict[str, float | str]]) -> np.ndarray:
        other = {name: len(vocab) for name, vocab in self.vocab.items()}  # an unseen or rare value
        return np.array([
            [float(r[name]) for name in self.numeric]
            + [float(self.vocab[name].get(r[name], other[name])) for name in self._CATEGORICAL]
            for r in rows
        ])

    def scores(self, items: Sequence[AuditItem]) -> list[list[float]]:
        rows, _ = _flatten(items, surface_features)
        return _per_item(items, self.model.predict_proba(self._matrix(rows))[:, 1])


_MODELS = {"options_only": _OptionsOnly, "surface": _Surface}


def _flatten(items: Sequence[AuditItem], features) -> tuple[list, list[int]]:  # type: ignore[no-untyped-def]
    rows, labels = [], []
    for item in items:
        rows.extend(features(item))
        labels.extend(int(j == item.gold) for j in range(len(item.options)))
    return rows, labels


def _per_item(items: Sequence[AuditItem], flat: np.ndarray) -> list[list[float]]:
    out, at = [], 0
    for item in items:
        # Rounded so that options the model cannot tell apart tie (and split the credit) exactly.
        out.append([round(float(v), 9) for v in flat[at : at + len(item.options)]])
        at += len(item.options)
    return out


def _too_few(items: Sequence[AuditItem]) -> str | None:
    if len(items) < MIN_ITEMS:
        return f"{len(items)} training items, too few (needs {MIN_ITEMS})"
    return None


def _fit_and_score(name: str, train: Sequence[AuditItem], test: Sequence[AuditItem]) -> list[float]:
    model = _MODELS[name]().fit(train)
    return [credit(s, item.gold) for s, item in zip(model.scores(test), test)]


def _fold_of(items: Sequence[AuditItem], folds: int) -> list[int]:
    """Grouped folds: items with the same question text share a group (a hash, not the index, so a
    generator's order cannot line up with the folds); groups dealt to folds by size (GroupKFold)."""
    from sklearn.model_selection import GroupKFold

    groups = [zlib.crc32(item.stem.encode("utf-8", "surrogatepass")) for item in items]
    fold = [0] * len(items)
    splitter = GroupKFold(n_splits=min(folds, len(set(groups))))
    for f, (_, test) in enumerate(splitter.split(np.zeros(len(items)), groups=groups)):
        for i in test:
            fold[i] = f
    return fold


def detect(name: str, items: Sequence[AuditItem], train: Sequence[AuditItem] | None = None,
           folds: int = DEFAULT_FOLDS) -> Detected:
    """Detector ``name``'s held-out credit on ``items``: trained on ``train`` (items of other seeds) when
    given, else cross-fitted over ``folds`` grouped folds of ``items``."""
    if name not in _MODELS:
        raise ValueError(f"unknown detector {name!r} (known: {', '.join(DETECTORS)})")
    if folds < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    strategy = PREFIX + name
    pool = list(items) if train is None else list(train)
    reason = _too_few(pool) if train is not None else (
        f"{len(items)} items, too few (needs {MIN_ITEMS})" if len(items) < MIN_ITEMS else None)
    if reason:
        return Detected(strategy, None, f"{strategy} skipped: {reason}")
    try:
        if train is not None:
            return Detected(strategy, _fit_and_score(name, train, items),
                            f"{strategy}: trained on {len(train)} items of other seeds")
        fold = _fold_of(items, folds)
        out: list[float] = [0.0] * len(items)
        for f in sorted(set(fold)):
            test_idx = [i for i in range(len(items)) if fold[i] == f]
            train_items = [items[i] for i in range(len(items)) if fold[i] != f]
            for i, value in zip(test_idx, _fit_and_score(name, train_items, [items[i] for i in test_idx])):
                out[i] = value
        return Detected(strategy, out, f"{strategy}: cross-fitted over {len(set(fold))} folds")
    except ValueError as error:  # e.g. an empty vocabulary, one class in a fold: too little to learn from
        return Detected(strategy, None, f"{strategy} skipped: {error}")
