"""2-4-6 metrics, from the log alone (a saved JSON log rescores identically).

The scorer reads these fields of the per-reply records of
:class:`~lm_eval_cog.paradigms.wason246.env.Wason246Env`: ``hidden``, ``initial``, ``kind``,
``triple``, ``expect``, ``answer``, ``rule``, ``invalid`` and ``parse``. The stated rule is
re-read from its text by the same checked reader and evaluated by tree walking.

**Exact.** A stated rule is correct iff it gives the hidden rule's answer on every triple of
the domain the instructions promise, ``[-query_bound, query_bound]^3`` (8 x 10^9 triples by
default; values beyond it can never be queried and are outside the task). The verdict is a
proof either way (:func:`score_rule`): first the evaluation set E is searched for a
difference (the episode's own triples, the grid ``[-grid, grid]^3``, 226,981 triples by
default, and a fixed sample of the domain beyond it, 2,000 of the hidden rule's positives and
2,000 uniform triples, :func:`~lm_eval_cog.paradigms.wason246.hypotheses.far_triples`): fast,
and most wrong rules differ there. A rule that agrees on all of E goes to the SMT solver z3
(:func:`~lm_eval_cog.paradigms.wason246.equivalence.difference`), which proves equivalence on
the whole domain or finds the far triple where the rules differ (``x < y < z or x == 999``).
Either way a wrong rule comes with a **counterexample**: the triple and what each rule says
there (:class:`~lm_eval_cog.paradigms.wason246.equivalence.Counterexample`). A rule z3 cannot
decide within :data:`~lm_eval_cog.paradigms.wason246.equivalence.SOLVER_TIMEOUT_S` seconds is
**undecided**: never correct (the env refuses it as an invalid reply, so a played log holds one
only if a rescoring machine is much slower than the playing one).

CogProbe's released outputs show a lenient check that accepted rules differing from the hidden
one inside any grid (``y * y == x * z and x < y < z`` for doubling): those are wrong here, and so
is their accepted ``(x + y == z) and (x < 100) and ...``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import FALLBACK_SHARE, FALLBACK_SHARE_SPEC, MetricSpec
from lm_eval_cog.paradigms.measures import fallback_share, ratio
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.equivalence import Counterexample, UndecidedError, counterexample, difference
from lm_eval_cog.paradigms.wason246.rules import Rule, RuleError, parse_rule

ACC = "acc"
AGREEMENT = "agreement"
CONSISTENT = "consistent"
QUERIES = "queries"
AVG_QUERIES_SOLVED = "avg_queries_solved"
POSITIVE_TEST_SHARE = "positive_test_share"
EXPECTATION_ACC = "expectation_acc"
INVALID_RATE = "invalid_rate"

metric_specs: tuple[MetricSpec, ...] = (
    MetricSpec(ACC, True, "1 if the stated rule gives the hidden rule's answer on every triple of the domain "
                          "[-query_bound, query_bound]^3 (decided exactly, by search and the SMT solver z3), else 0 "
                          "(no readable rule, or one the solver could not decide in time: 0)."),
    MetricSpec(AGREEMENT, True, "Balanced agreement of the stated rule with the hidden one over the grid and the seen "
                                "triples: mean of the shares of hidden-positive and hidden-negative triples it "
                                "classifies as the hidden rule does (a constant rule scores 0.5); NaN without a rule."),
    MetricSpec(CONSISTENT, True, "1 if the stated rule fits every answer the model saw (initial triple and queries): "
                                 "a lenient score, like CogProbe's; 0 without a rule."),
    MetricSpec(QUERIES, False, "Queries asked (answered Yes/No) in the episode."),
    MetricSpec(AVG_QUERIES_SOLVED, False, "Queries asked in a solved episode, NaN otherwise: its mean over episodes "
                                          "is CogProbe's Avg. Query (NaN when none is solved)."),
    MetricSpec(POSITIVE_TEST_SHARE, False, "Share of queries the model expected a 'Yes' for (Klayman & Ha's positive "
                                           "tests, as stated in the query line); NaN without queries."),
    MetricSpec(EXPECTATION_ACC, True, "Share of queries whose stated expectation matched the answer; NaN without queries."),
    MetricSpec(INVALID_RATE, False, "Share of replies that could not be read (no QUERY/RULE line, bad query, bad rule)."),
    FALLBACK_SHARE_SPEC,
)
METRIC_NAMES: tuple[str, ...] = tuple(s.name for s in metric_specs)


@dataclass(frozen=True)
class RuleScore:
    """How a stated rule compares with the hidden one.

    ``exact``: equal on the whole domain (proved); ``counterexample``: a triple where they differ
    (None when exact or undecided); ``undecided``: why equivalence could not be decided (then
    ``exact`` is False and there is no counterexample).
    """

    exact: bool
    consistent: bool
    agreement: float
    counterexample: Counterexample | None = None
    undecided: str | None = None


@lru_cache(maxsize=512)
def _rule(text: str, variable_bound: int) -> Rule | None:
    try:
        return parse_rule(text, variable_bound)
    except RuleError:
        return None


@lru_cache(maxsize=512)
def _rule_mask(text: str, grid: int, variable_bound: int) -> np.ndarray:
    rule = _rule(text, variable_bound)
    assert rule is not None
    out = rule.evaluate(*hyp.grid(grid))
    out.setflags(write=False)
    return out


def evaluation_extra(hidden: str, seen: Sequence[Sequence[int]], grid: int, query_bound: int) -> np.ndarray:
    """The triples of the evaluation set outside the grid: the far sample and the seen triples
    beyond it, each once (rows sorted)."""
    extra = np.concatenate([hyp.far_triples(hidden, query_bound), np.asarray(seen, dtype=np.int64).reshape(-1, 3)])
    extra = extra[np.abs(extra).max(axis=1) > grid]
    return unique_rows(extra)


def unique_rows(triples: np.ndarray) -> np.ndarray:
    """``np.unique(triples, axis=0)`` (each row once, in lexicographic order), through one int64
    key per row: NumPy sorts rows as a structured view, about 40 times slower, and this runs
    at every scored rule (measured: half the time of a Wason 2-4-6 reflection episode)."""
    bound = int(np.abs(triples).max()) if triples.size else 0
    span = 2 * bound + 1
    if span**3 >= 2**62:  # keys would overflow: NumPy's own way
        return np.unique(triples, axis=0)
    shifted = triples + bound  # non-negative, so the key's order is the rows' lexicographic order
    keys = (shifted[:, 0] * span + shifted[:, 1]) * span + shifted[:, 2]
    _, first = np.unique(keys, return_index=True)
    return triples[first]


@lru_cache(maxsize=512)
def solver_difference(text: str, hidden: str, query_bound: int) -> tuple[int, int, int] | str | None:
    """z3's answer for a readable rule against hidden rule ``hidden`` over ``[-query_bound, query_bound]^3``:
    a triple where they differ, None if equivalent, or the reason it is undecided (a string).
    Cached, so the env's verdict and every rescoring in the process agree and pay once."""
    rule, truth = _rule(text, query_bound), hyp.rule_of(hidden)
    assert rule is not None
    if rule.canonical == truth.canonical:
        return None
    try:
        return difference(rule, truth, query_bound)
    except UndecidedError as error:
        return error.reason


def score_rule(text: str, hidden: str, seen: Sequence[Sequence[int]], grid: int, query_bound: int) -> RuleScore | None:
    """Compare the rule written ``text`` with the hidden rule ``hidden`` (a spec); None if unreadable.

    ``seen`` are the episode's triples (initial and queries). ``agreement`` is measured on the
    evaluation set E: the grid plus :func:`evaluation_extra` (the far sample of the query domain
    and the seen triples beyond the grid). ``exact`` is decided on the whole domain: a difference
    on E (the seen triples first, then the grid, then the rest) is the counterexample; without
    one, z3 decides (:func:`solver_difference`).
    """
    rule = _rule(text, query_bound)
    if rule is None:
        return None
    truth_rule = hyp.rule_of(hidden)
    extra = evaluation_extra(hidden, seen, grid, query_bound)
    stated = np.concatenate([_rule_mask(text, grid, query_bound), rule.evaluate(*extra.T)])
    truth = np.concatenate([hyp.mask(hidden, grid), truth_rule.evaluate(*extra.T)])
    positives = int(truth.sum())
    negatives = truth.size - positives
    hits = int((stated & truth).sum())
    rejections = int((~stated & ~truth).sum())
    agreement = (hits / positives + rejections / negatives) / 2
    misfits = [t for t in seen if rule.holds(*t) != hyp.follows(hidden, t, grid)]
    found: Sequence[int] | str | None
    if misfits:  # a triple the model saw: the most telling counterexample
        found = misfits[0]
    elif hits != positives or rejections != negatives:
        index = int(np.flatnonzero(stated != truth)[0])
        size = hyp.grid_size(grid)
        found = hyp.grid_triple(index, grid) if index < size else tuple(extra[index - size])
    else:
        found = solver_difference(text, hidden, query_bound)
    undecided = found if isinstance(found, str) else None
    counter = None if found is None or undecided else counterexample(rule, truth_rule, found)
    return RuleScore(exact=found is None, consistent=not misfits, agreement=agreement,
                     counterexample=counter, undecided=undecided)


def wason246_metrics(log: Sequence[Mapping[str, Any]], params: Any) -> dict[str, float]:
    """All metrics of one episode (NaN everywhere for an empty log).

    Args:
        log: Per-reply records (``Wason246Env.log`` or its JSON round trip), in turn order.
        params: The episode's ``Wason246Params`` (``grid`` and ``query_bound`` are read).
    """
    if not log:
        return {name: math.nan for name in METRIC_NAMES}
    queries = [r for r in log if r["kind"] == "query"]
    rules = [r for r in log if r["kind"] == "rule"]
    seen = [log[0]["initial"], *(r["triple"] for r in queries)]
    score = None if not rules else score_rule(rules[-1]["rule"], log[0]["hidden"], seen, params.grid, params.query_bound)
    solved = score is not None and score.exact
    return {
        ACC: float(solved),
        AGREEMENT: math.nan if score is None else score.agreement,
        CONSISTENT: float(score is not None and score.consistent),
        QUERIES: float(len(queries)),
        AVG_QUERIES_SOLVED: float(len(queries)) if solved else math.nan,
        POSITIVE_TEST_SHARE: ratio(sum(r["expect"] == "yes" for r in queries), len(queries)),
        EXPECTATION_ACC: ratio(sum(r["expect"] == r["answer"] for r in queries), len(queries)),
        INVALID_RATE: sum(r["invalid"] is not None for r in log) / len(log),
        FALLBACK_SHARE: fallback_share(log),
    }
