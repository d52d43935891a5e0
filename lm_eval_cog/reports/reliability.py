"""Reliability of a task's score: split-half coefficients across models, a split-half consistency check
within one model, and agreement between runs that differ only in the task seed.

Pure statistics on plain data (a unit's value keyed by its ``doc_id``, scores keyed by model or seed);
nothing here reads files or imports lm-eval, so every formula is tested on hand-built numbers.

A *unit* is one logged sample: one item of a static probe, one episode of an interactive task. Its value
is the headline metric's per-sample value (lm-eval logs it under the metric's name, e.g. ``"acc": 1.0``
or ``"score": 57.8``); units whose value is undefined (NaN, null, missing, or not a plain number) are
skipped.

Why two split-half statistics: a reliability coefficient is a correlation across the *people* (here,
models) that a test measures; with one model there is nothing to correlate, so a single run gets a
consistency check (do its two halves give the same score within sampling error?) and ``compare`` over
three or more models gets the coefficient.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: A unit's identity: lm-eval's ``doc_id`` (an integer; text tolerated from other writers).
UnitKey = int | str
#: A task seed as recorded (``metadata.seed`` or a transcript's ``task_seed``).
Seed = int | str

#: Fewest models for a correlation across models: two points always lie on a line.
MIN_MODELS = 3
#: Fewest units for a split-half statistic: two per half (a half's SD needs two).
MIN_UNITS = 4
#: Random half-splits drawn when there are more distinct splits than this; else every split is used.
N_RANDOM = 1000
#: Seed of the random splits: the same inputs give the same report, byte for byte.
RANDOM_SEED = 1000
#: |z| at or above which the two halves of one run are said to differ (about p < 0.05, two-sided).
Z_LIMIT = 2.0
#: p below which seeds are said to disagree beyond sampling error.
ALPHA = 0.05


# ---------------------------------------------------------------- formulas


def spearman_brown(r: float, factor: float = 2.0) -> float:
    """Reliability of a test ``factor`` times as long as the one whose reliability is ``r``:
    ``factor * r / (1 + (factor - 1) * r)``. NaN where the denominator is 0 (r = -1 for a doubling)."""
    denominator = 1.0 + (factor - 1.0) * r
    if denominator == 0:
        return math.nan
    return factor * r / denominator


def _is_value(value: object) -> bool:
    # bools are flags, not scores (as in compare's matrix); NaN and inf are undefined.
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _constant(values: np.ndarray) -> bool:
    """No spread (up to rounding): a correlation with it is undefined."""
    scale = max(1.0, float(np.max(np.abs(values))))
    return float(np.ptp(values)) <= 1e-12 * scale


def unit_order(key: UnitKey) -> tuple[int, float, str]:
    """Sort key of units: integer doc_ids numerically, any other text after them."""
    if isinstance(key, int) and not isinstance(key, bool):
        return (0, float(key), "")
    return (1, 0.0, str(key))


@dataclass(frozen=True)
class UnitValues:
    """The defined per-unit values of one run's task, and how many logged units had none."""

    values: dict[UnitKey, float]
    undefined: int


def unit_values(samples: Iterable[Mapping], metric: str) -> UnitValues:
    """Per-unit values of ``metric`` (``"name,filter"`` or ``"name"``) from lm-eval's sample lines.

    A task with several filters logs one line per document and filter (field ``"filter"``): only the
    headline's filter counts. A doc_id logged twice keeps its last line (lm-eval writes each once).
    """
    name, _, filt = metric.partition(",")
    values: dict[UnitKey, float] = {}
    undefined = 0
    for sample in samples:
        if filt and sample.get("filter") not in (None, filt):
            continue
        key = sample.get("doc_id")
        value = sample.get(name)
        if not isinstance(key, (int, str)) or isinstance(key, bool) or not _is_value(value):
            undefined += 1
            continue
        values[key] = float(value)
    return UnitValues(values, undefined)


def odd_even(keys: Iterable[UnitKey]) -> tuple[list[UnitKey], list[UnitKey]]:
    """Units 1, 3, 5, ... and units 2, 4, 6, ... in doc_id order."""
    ordered = sorted(keys, key=unit_order)
    return ordered[0::2], ordered[1::2]


def _band(r: float) -> str:
    # Conventional reading of a reliability coefficient (Nunnally: 0.7 for research use, 0.9 for
    # decisions about individuals); a band, not a verdict, which the text says.
    if r >= 0.9:
        return "high"
    if r >= 0.7:
        return "acceptable"
    if r >= 0.5:
        return "moderate"
    return "low"


def _few(n_models: int) -> str:
    return f" (only {n_models} models: a rough estimate)" if n_models < 10 else ""


# ---------------------------------------------------------------- split-half across models


@dataclass(frozen=True)
class SplitHalfReliability:
    """Split-half reliability of a task across models (Spearman-Brown corrected to the full length).

    ``odd_even_*``: units 1, 3, 5, ... against 2, 4, 6, ... in doc_id order. ``random_*``: the
    corrected coefficient over every half-split (or ``splits`` random ones when there are more than
    :data:`N_RANDOM`): mean and 2.5-97.5 percentile range; None when no split had spread in both halves.
    """

    models: tuple[str, ...]
    n_units: int
    odd_even_r: float
    odd_even_sb: float
    random_mean_sb: float | None
    random_low_sb: float | None
    random_high_sb: float | None
    splits: int
    exhaustive: bool
    interpretation: str


def _half_means(matrix: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each model's mean over each split's first half and over its second half (models x splits)."""
    first = masks.astype(float)
    second = 1.0 - first
    return matrix @ first.T / first.sum(axis=1), matrix @ second.T / second.sum(axis=1)


def _split_masks(n_units: int, n_random: int, seed: int, chunk: int = 100) -> Iterator[tuple[np.ndarray, bool]]:
    """Boolean masks (splits x units) of each split's first half (n // 2 units), in chunks, each with
    whether they are every split: every split when there are at most ``n_random`` of them, else
    ``n_random`` random ones (chunked, so that 1000 splits of 14,000 MMLU items stay small)."""
    size = n_units // 2
    # With an even count, A|B and B|A are one split (r is symmetric): keep those with unit 0 in A.
    count = math.comb(n_units, size) // (1 if n_units % 2 else 2)
    if count <= n_random:  # counted first: listing C(300, 150) splits is not an option
        chosen = [c for c in itertools.combinations(range(n_units), size) if n_units % 2 or 0 in c]
        masks = np.zeros((len(chosen), n_units), dtype=bool)
        for i, c in enumerate(chosen):
            masks[i, list(c)] = True
        yield masks, True
        return
    rng = np.random.default_rng(seed)
    for start in range(0, n_random, chunk):
        m = min(chunk, n_random - start)
        order = np.argsort(rng.random((m, n_units)), axis=1)
        masks = np.zeros((m, n_units), dtype=bool)
        np.put_along_axis(masks, order[:, :size], True, axis=1)
        yield masks, False


def _split_rs(matrix: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Pearson r across models between the two halves of each split; splits with a constant half dropped."""
    a, b = _half_means(matrix, masks)
    scale = max(1.0, float(np.abs(matrix).max()))
    ok = (np.ptp(a, axis=0) > 1e-12 * scale) & (np.ptp(b, axis=0) > 1e-12 * scale)  # as _constant
    a, b = a[:, ok] - a[:, ok].mean(axis=0), b[:, ok] - b[:, ok].mean(axis=0)
    r = (a * b).sum(axis=0) / np.sqrt((a * a).sum(axis=0) * (b * b).sum(axis=0))
    return np.clip(r, -1.0, 1.0)


def split_half_across_models(
    values: Mapping[str, Mapping[UnitKey, float]],
    *,
    n_random: int = N_RANDOM,
    seed: int = RANDOM_SEED,
) -> tuple[SplitHalfReliability | None, str | None]:
    """Split-half reliability over the units every model has a defined value for.

    Each model's half score is the mean of its values in that half; r is Pearson's across models between
    the two halves' scores; the coefficient is ``spearman_brown(r)``. Returns ``(result, None)``, or
    ``(None, reason)`` when it cannot be computed (fewer than 3 models, fewer than 4 shared units, an
    odd/even half with the same score for every model).
    """
    models = [m for m in values]
    if len(models) < MIN_MODELS:
        return None, f"{len(models)} model(s) with per-unit values: a coefficient across models needs {MIN_MODELS}"
    shared = set.intersection(*(set(values[m]) for m in models))
    if len(shared) < MIN_UNITS:
        return None, f"{len(shared)} unit(s) scored for every model: split halves need at least {MIN_UNITS}"
    ordered = sorted(shared, key=unit_order)
    matrix = np.array([[values[m][k] for k in ordered] for m in models], dtype=float)
    odd = np.array([i % 2 == 0 for i in range(len(ordered))])  # positions 0, 2, ... are units 1, 3, ...
    x, y = (a[:, 0] for a in _half_means(matrix, odd[None, :]))
    for name, half in (("odd", x), ("even", y)):
        if _constant(half):
            return None, f"every model has the same {name}-half score: no spread to correlate"
    r = float(stats.pearsonr(x, y).statistic)
    sb = spearman_brown(r)
    if not math.isfinite(sb):
        return None, f"odd/even halves correlate at r = {r:.2f}: no Spearman-Brown value"

    rs: list[np.ndarray] = []
    exhaustive = False
    if n_random > 0:
        for masks, exhaustive in _split_masks(len(ordered), n_random, seed):
            rs.append(_split_rs(matrix, masks))
    sbs = np.array([spearman_brown(float(v)) for v in np.concatenate(rs)]) if rs else np.zeros(0)
    sbs = sbs[np.isfinite(sbs)]  # r = -1 has no corrected value
    used = len(sbs)
    random_mean = low = high = None
    if used:
        random_mean = float(sbs.mean())
        low, high = (float(v) for v in np.percentile(sbs, [2.5, 97.5]))
    text = (
        f"odd/even r_SB = {sb:.2f} over {len(models)} models and {len(ordered)} units: {_band(sb)}"
        f"{_few(len(models))}"
    )
    if random_mean is not None:
        text += f"; random splits {random_mean:.2f} [{low:.2f}, {high:.2f}]"
    return (
        SplitHalfReliability(
            models=tuple(models),
            n_units=len(ordered),
            odd_even_r=r,
            odd_even_sb=sb,
            random_mean_sb=random_mean,
            random_low_sb=low,
            random_high_sb=high,
            splits=used,
            exhaustive=exhaustive,
            interpretation=text,
        ),
        None,
    )


# ---------------------------------------------------------------- split-half consistency within one model


@dataclass(frozen=True)
class SplitHalfConsistency:
    """Do the odd and even halves of one run give the same score within sampling error?

    ``se`` = sqrt(se_odd^2 + se_even^2) with each half's se = sample SD (n - 1) / sqrt(n); ``z`` =
    ``difference`` / ``se``, None when the halves differ but neither has any spread (z infinite).
    """

    n_odd: int
    n_even: int
    odd_mean: float
    even_mean: float
    difference: float  # odd - even
    se_odd: float
    se_even: float
    se: float
    z: float | None
    agree: bool
    interpretation: str


def _se(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1) / math.sqrt(len(values)))


def split_half_consistency(values: Mapping[UnitKey, float]) -> tuple[SplitHalfConsistency | None, str | None]:
    """The odd/even consistency check of one run's per-unit values; ``(None, reason)`` below 4 units."""
    if len(values) < MIN_UNITS:
        return None, f"{len(values)} unit(s) with a defined value: a split-half check needs at least {MIN_UNITS}"
    odd_keys, even_keys = odd_even(values)
    odd = np.array([values[k] for k in odd_keys], dtype=float)
    even = np.array([values[k] for k in even_keys], dtype=float)
    se_odd, se_even = _se(odd), _se(even)
    se = math.hypot(se_odd, se_even)
    diff = float(odd.mean() - even.mean())
    if se > 0:
        z: float | None = diff / se
        agree = abs(z) < Z_LIMIT
        text = (
            f"halves agree (|z| = {abs(z):.2f} < {Z_LIMIT:g})"
            if agree
            else f"halves differ (|z| = {abs(z):.2f}): the score depends on which items were drawn"
        )
    elif diff == 0:
        z, agree = 0.0, True
        text = "halves agree (every unit has the same value)"
    else:
        z, agree = None, False
        text = "halves differ, and neither half varies: the score depends on which items were drawn"
    return (
        SplitHalfConsistency(
            n_odd=len(odd),
            n_even=len(even),
            odd_mean=float(odd.mean()),
            even_mean=float(even.mean()),
            difference=diff,
            se_odd=se_odd,
            se_even=se_even,
            se=se,
            z=z,
            agree=agree,
            interpretation=text,
        ),
        None,
    )


# ---------------------------------------------------------------- seed-to-seed agreement


@dataclass(frozen=True)
class SeedScore:
    """One task's headline score in the run made with one task seed."""

    seed: Seed
    value: float
    stderr: float | None
    n: int | None = None


@dataclass(frozen=True)
class SeedAgreement:
    """One model's scores over seeds, their spread, and Cochran's homogeneity test.

    Q = sum((x_i - m_w)^2 / se_i^2), m_w the inverse-variance weighted mean, p = chi2.sf(Q, k - 1):
    a small p says the seeds differ by more than their standard errors allow. ``q``/``p`` are None when
    a seed has no positive standard error.
    """

    scores: tuple[SeedScore, ...]
    mean: float
    sd: float  # sample SD over seeds (n - 1)
    range: float
    weighted_mean: float | None
    q: float | None
    df: int
    p: float | None
    agree: bool | None
    interpretation: str


def seed_agreement(scores: Sequence[SeedScore]) -> tuple[SeedAgreement | None, str | None]:
    """Spread and homogeneity of one model's scores over two or more seeds; ``(None, reason)`` below two."""
    scores = [s for s in scores if _is_value(s.value)]
    if len({s.seed for s in scores}) != len(scores):
        raise ValueError("one score per seed")
    if len(scores) < 2:
        return None, f"{len(scores)} seed run(s): seed agreement needs runs with two or more seeds"
    x = np.array([s.value for s in scores], dtype=float)
    k = len(x)
    spread = (float(x.mean()), float(np.std(x, ddof=1)), float(np.ptp(x)))
    lacking = [str(s.seed) for s in scores if not (_is_value(s.stderr) and s.stderr > 0)]
    if lacking:
        return (
            SeedAgreement(
                tuple(scores), *spread, None, None, k - 1, None, None,
                f"no homogeneity test: seed(s) {', '.join(lacking)} have no positive standard error",
            ),
            None,
        )
    w = 1.0 / np.array([s.stderr for s in scores], dtype=float) ** 2
    mean_w = float((w * x).sum() / w.sum())
    q = float((w * (x - mean_w) ** 2).sum())
    p = float(stats.chi2.sf(q, k - 1))
    agree = p >= ALPHA
    text = (
        f"seeds agree within their standard errors (p = {p:.3g})"
        if agree
        else f"seeds disagree beyond sampling error (p = {p:.3g})"
    )
    return SeedAgreement(tuple(scores), *spread, mean_w, q, k - 1, p, agree, text), None


@dataclass(frozen=True)
class SeedPair:
    """Pearson r across the models run with both seeds."""

    seed_a: Seed
    seed_b: Seed
    n_models: int
    r: float


@dataclass(frozen=True)
class SeedCorrelation:
    """How well one seed's scores predict another's across models: the mean r over seed pairs (a
    test-retest coefficient of a one-seed score; no Spearman-Brown step, since each side is a whole run)."""

    pairs: tuple[SeedPair, ...]
    n_models: int
    mean_r: float
    interpretation: str


def seed_agreement_across_models(
    scores: Mapping[str, Mapping[Seed, float]],
) -> tuple[SeedCorrelation | None, str | None]:
    """Pearson r across models between the runs of each pair of seeds (models run with both), averaged
    over the pairs that have at least 3 such models with spread on both sides; ``(None, reason)`` else."""
    multi = {m: {s: v for s, v in row.items() if _is_value(v)} for m, row in scores.items()}
    multi = {m: row for m, row in multi.items() if len(row) >= 2}
    if len(multi) < MIN_MODELS:
        return None, (
            f"{len(multi)} model(s) run with two or more seeds: seed agreement across models needs {MIN_MODELS}"
        )
    seeds = sorted({s for row in multi.values() for s in row}, key=lambda s: (isinstance(s, str), str(s).zfill(40)))
    pairs: list[SeedPair] = []
    for a, b in itertools.combinations(seeds, 2):
        both = [m for m, row in multi.items() if a in row and b in row]
        if len(both) < MIN_MODELS:
            continue
        x = np.array([multi[m][a] for m in both])
        y = np.array([multi[m][b] for m in both])
        if _constant(x) or _constant(y):
            continue
        pairs.append(SeedPair(a, b, len(both), float(stats.pearsonr(x, y).statistic)))
    if not pairs:
        return None, f"no pair of seeds was run by {MIN_MODELS} or more models with different scores"
    mean_r = float(np.mean([p.r for p in pairs]))
    n_models = max(p.n_models for p in pairs)
    text = f"seed-to-seed r = {mean_r:.2f} over {len(pairs)} seed pair(s): {_band(mean_r)}{_few(n_models)}"
    return SeedCorrelation(tuple(pairs), n_models, mean_r, text), None
