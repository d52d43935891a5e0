"""Scripted 2-4-6 players: the ideal querier (ceiling), a random querier (chance), a confirmer.

Agents see what a model sees plus ``info`` (``initial``, ``last_triple``, ``last_answer``,
``rule_due``), never the hidden rule. They know the hypothesis space H (the six families
with the preset's parameter values), which a model is not told: the ideal querier's query
count is a lower bound for any player, not a human norm.

The **ideal querier** is the Bayes-optimal eliminator over H. Its belief over the hypotheses
that fit the initial triple is the posterior of the generating process, P(h | t) ∝ P(h) /
N_h for the hypotheses whose admissible initial triples (N_h of them) include t (the size
principle; with a fixed initial triple, as in ``wason1960``, the prior). It follows the
decision tree of grid queries that minimises the expected number of queries needed to leave
a single hypothesis (exact dynamic programming over subsets; H has 18 members, the
candidates after the initial triple at most a handful), then states that hypothesis.
:func:`expected_ideal_queries` gives its exact expectation by enumerating every hidden rule
and admissible initial triple.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import AgentFactory
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.env import (
    NO,
    WASON1960,
    WASON_RULE,
    YES,
    Wason246Params,
    triple_text,
    wason_triple,
)


def query_line(triple: Sequence[int], expect: bool) -> str:
    return f"QUERY: {triple_text(triple)} (expect {YES if expect else NO})"


def rule_line(spec: str) -> str:
    return f"RULE: {hyp.expression(spec)}"


# --------------------------------------------------------------------------- #
# The ideal querier's plan
# --------------------------------------------------------------------------- #


def candidates(params: Wason246Params, initial: Sequence[int]) -> dict[str, Fraction]:
    """The hypotheses the initial triple leaves, with their (unnormalised) posterior weights."""
    specs, grid = params.hypotheses, params.grid
    prior = hyp.prior(specs)
    fitting = [s for s in specs if hyp.follows(s, initial, grid)]
    if params.rule_set == WASON1960:
        return {s: prior[s] for s in fitting}
    index = hyp.grid_index(initial, grid)
    out = {}
    for s in fitting:
        admissible = hyp.accepted(s, specs, grid)
        if index is not None and np.any(admissible == index):
            out[s] = prior[s] / len(admissible)
    return out


@lru_cache(maxsize=4096)
def _splits(specs: tuple[str, ...], grid: int) -> tuple[tuple[int, int], ...]:
    """(code, first grid index) of every distinct answer pattern of ``specs`` over the grid.

    Bit i of a code is hypothesis i's answer to that triple.
    """
    codes = np.zeros(hyp.grid_size(grid), dtype=np.int64)
    for i, spec in enumerate(specs):
        codes |= hyp.mask(spec, grid).astype(np.int64) << i
    values, first = np.unique(codes, return_index=True)
    return tuple((int(c), int(i)) for c, i in zip(values, first))


@lru_cache(maxsize=4096)
def plan(specs: tuple[str, ...], weights: tuple[Fraction, ...], grid: int) -> Mapping[int, tuple[Fraction, int]]:
    """The optimal decision tree: subset bitmask -> (expected-cost numerator, grid index to query).

    cost(S) = 0 for one hypothesis, else W(S) + min over the grid's splits of S into a
    non-empty yes part Y and no part S - Y of cost(Y) + cost(S - Y): every query costs the
    weight still in play. Ties go to the smaller grid index (deterministic).
    """
    splits = _splits(specs, grid)
    memo: dict[int, tuple[Fraction, int]] = {}

    def weight(subset: int) -> Fraction:
        return sum((w for i, w in enumerate(weights) if subset >> i & 1), Fraction(0))

    def cost(subset: int) -> Fraction:
        if subset & (subset - 1) == 0:  # one hypothesis (or none) left
            return Fraction(0)
        if subset not in memo:
            best: tuple[Fraction, int] | None = None
            seen: set[int] = set()
            for code, index in splits:
                yes = code & subset
                if yes in seen or yes == 0 or yes == subset:
                    continue
                seen.add(yes)
                total = cost(yes) + cost(subset & ~yes)
                if best is None or (total, index) < best:
                    best = (total, index)
            if best is None:
                raise ValueError(f"hypotheses {specs} cannot be told apart on the grid")
            memo[subset] = (weight(subset) + best[0], best[1])
        return memo[subset][0]

    cost((1 << len(specs)) - 1)
    return memo


def ideal_queries(params: Wason246Params, initial: Sequence[int], hidden: str) -> int:
    """Queries the ideal querier asks when ``hidden`` is the rule (its path down the tree)."""
    cands = candidates(params, initial)
    specs = tuple(cands)
    tree = plan(specs, tuple(cands.values()), params.grid)
    subset, asked = (1 << len(specs)) - 1, 0
    while subset & (subset - 1):
        index = tree[subset][1]
        yes = sum(1 << i for i, s in enumerate(specs) if hyp.mask(s, params.grid)[index])
        subset &= yes if hyp.mask(hidden, params.grid)[index] else ~yes
        asked += 1
    return asked


def expected_ideal_queries(params: Wason246Params) -> Fraction:
    """The ideal querier's exact expected number of queries under the preset's draw.

    ``cogprobe6``: sum over hidden rules h of P(h) times the mean, over h's admissible initial
    triples, of the queries it asks (triples grouped by the candidate set they leave).
    ``wason1960``: the mean over the scales k of the queries for k * (2, 4, 6) under ``x < y < z``.
    """
    if params.rule_set == WASON1960:
        scales = params.wason_scales
        return Fraction(sum(ideal_queries(params, wason_triple(k), WASON_RULE) for k in scales), len(scales))
    specs, grid = params.hypotheses, params.grid
    prior = hyp.prior(specs)
    admissible = np.zeros((len(specs), hyp.grid_size(grid)), dtype=bool)
    for i, s in enumerate(specs):
        admissible[i, hyp.accepted(s, specs, grid)] = True
    total = Fraction(0)
    for spec in specs:
        triples = hyp.accepted(spec, specs, grid)
        # Triples leaving the same candidate set get the same tree, hence the same count.
        _, first, counts = np.unique(admissible[:, triples].T, axis=0, return_index=True, return_counts=True)
        queries = sum(
            int(count) * ideal_queries(params, hyp.grid_triple(int(triples[i]), grid), spec)
            for i, count in zip(first, counts)
        )
        total += prior[spec] * Fraction(queries, len(triples))
    return total


class IdealAgent:
    """The Bayes-optimal eliminating querier over H (see the module doc): the ceiling."""

    def __init__(self, params: Wason246Params, rng: np.random.Generator) -> None:
        self.params = params
        self.specs: tuple[str, ...] = ()
        self.subset = 0
        self.tree: Mapping[int, tuple[Fraction, int]] = {}
        self.weights: tuple[Fraction, ...] = ()

    def _start(self, initial: Sequence[int]) -> None:
        cands = candidates(self.params, initial)
        self.specs, self.weights = tuple(cands), tuple(cands.values())
        self.tree = plan(self.specs, self.weights, self.params.grid)
        self.subset = (1 << len(self.specs)) - 1

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        if not self.specs:
            self._start(info["initial"])
        grid = self.params.grid
        if info.get("last_answer") is not None:
            t = info["last_triple"]
            yes = sum(1 << i for i, s in enumerate(self.specs) if hyp.follows(s, t, grid))
            self.subset &= yes if info["last_answer"] == YES else ~yes
        left = [i for i in range(len(self.specs)) if self.subset >> i & 1]
        if len(left) <= 1 or info.get("rule_due"):
            best = max(left, key=lambda i: (self.weights[i], -i)) if left else 0
            return rule_line(self.specs[best])
        index = self.tree[self.subset][1]
        triple = hyp.grid_triple(index, grid)
        w_yes = sum(self.weights[i] for i in left if hyp.mask(self.specs[i], grid)[index])
        return query_line(triple, 2 * w_yes >= sum(self.weights[i] for i in left))


# --------------------------------------------------------------------------- #
# Random and confirmatory players
# --------------------------------------------------------------------------- #


class _Observer:
    """Remembers every answered triple (the initial one is a 'Yes')."""

    def __init__(self, params: Wason246Params, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng
        self.seen: dict[tuple[int, int, int], bool] = {}
        self.asked = 0

    def _observe(self, info: Mapping[str, Any]) -> None:
        if not self.seen:
            self.seen[tuple(info["initial"])] = True
        if info.get("last_answer") is not None:
            self.seen[tuple(info["last_triple"])] = info["last_answer"] == YES

    def consistent(self) -> list[str]:
        """Hypotheses of H that fit every answer seen, in H's order."""
        grid = self.params.grid
        return [s for s in self.params.hypotheses if all(hyp.follows(s, t, grid) == v for t, v in self.seen.items())]


class RandomAgent(_Observer):
    """Chance: K ~ uniform{0..max_queries} uniform grid triples with coin-flip expectations, then a
    hypothesis drawn from the hidden rule's own distribution (a family uniformly, then its
    parameter), whatever the answers. Its expected accuracy is exactly sum_h P(h)^2
    (:func:`random_chance`): it guesses from H blindly, as a model cannot even do."""

    def __init__(self, params: Wason246Params, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        self.budget = int(rng.integers(params.max_queries + 1))

    def _guess(self) -> str:
        specs = self.params.hypotheses
        weights = hyp.prior(specs)
        p = np.array([float(weights[s]) for s in specs])
        return specs[int(self.rng.choice(len(specs), p=p / p.sum()))]

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        self._observe(info)
        if self.asked >= self.budget or info.get("rule_due"):
            return rule_line(self._guess())
        self.asked += 1
        g = self.params.grid
        triple = tuple(int(v) for v in self.rng.integers(-g, g + 1, size=3))
        return query_line(triple, bool(self.rng.integers(2)))


class RandomConsistentAgent(RandomAgent):
    """Random queries as :class:`RandomAgent`, then a hypothesis drawn uniformly among those of H
    consistent with every answer: what knowing H buys without any query strategy."""

    def _guess(self) -> str:
        options = self.consistent()
        return options[int(self.rng.integers(len(options)))]


def random_chance(params: Wason246Params) -> Fraction:
    """:class:`RandomAgent`'s exact expected accuracy: P(guess = hidden) = sum_h P(h)^2, or
    P(inc) under ``wason1960`` (its hidden rule is always ``inc``)."""
    weights = hyp.prior(params.hypotheses)
    if params.rule_set == WASON1960:
        return weights[WASON_RULE]
    return sum((w * w for w in weights.values()), Fraction(0))


class ConfirmatoryAgent(_Observer):
    """Positive testing only (Klayman & Ha, 1987; Wason's subjects): holds the most specific
    hypothesis consistent with the answers (fewest grid triples), tests only triples it predicts
    to follow the rule, expecting "Yes", moves on when one is refused, and states its hypothesis
    after ``CONFIRMATIONS`` answers in a row have confirmed it."""

    CONFIRMATIONS = 3

    def __init__(self, params: Wason246Params, rng: np.random.Generator) -> None:
        super().__init__(params, rng)
        self.streak = 0

    def act(self, message: str, info: Mapping[str, Any]) -> str:
        self._observe(info)
        grid = self.params.grid
        options = sorted(self.consistent(), key=lambda s: int(hyp.mask(s, grid).sum()))
        belief = options[0]
        self.streak = self.streak + 1 if info.get("last_answer") == YES else 0
        if self.streak >= self.CONFIRMATIONS or info.get("rule_due"):
            return rule_line(belief)
        seen = [hyp.grid_index(t, grid) for t in self.seen]
        fresh = np.setdiff1d(np.flatnonzero(hyp.mask(belief, grid)), [i for i in seen if i is not None])
        if not len(fresh):
            return rule_line(belief)
        return query_line(hyp.grid_triple(int(fresh[int(self.rng.integers(len(fresh)))]), grid), True)


AGENTS: Mapping[str, AgentFactory] = {
    "optimal": IdealAgent,
    "random": RandomAgent,
    "random_consistent": RandomConsistentAgent,
    "confirmatory": ConfirmatoryAgent,
}
