"""Every static probe passes the shortcut audit: no blind strategy beats chance by more than 0.05.

Three seeds other than the default (1234), pooled per probe: the audit's cells then hold a few
hundred items each, and the Holm correction over a probe's rows keeps sampling noise from being
called a shortcut (see ``lm_eval_cog.audit.table``). Every family is played: the surface strategies,
the heuristics the probe declares, and the learned artefact detectors, trained on two more seeds
(4, 5; 200 items each) and tested on the audited ones; the detectors again trained on four seeds of
400 items (4-7), which find more. A probe that fails here can be answered
without doing the task; the message names the strategy, the cell and the margin.

``STRONG_KNOWN`` lists the probes whose four-seed detectors still find a shortcut (issue 28): each is
an xfail(strict=True), so a fixed generator turns it into an XPASS failure: remove the entry then.
The default-budget audit has no known shortcut left (the towers' rows went with Hanoi 3.0 / London
4.0).
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from lm_eval_cog.audit.probes import audit_probe
from lm_eval_cog.audit.table import Row, to_text
from lm_eval_cog.probes.core import REGISTRY

SEEDS = (1, 2, 3)
ITEMS = 400  # per seed
TRAIN_SEEDS = (4, 5)
TRAIN_ITEMS = 200  # per training seed

#: Detectors trained on four seeds of 400 items find more than the default two of 200 (2026-11-28,
#: docs/static-probes.md: rule execution 0.40, span 0.42, Wason 0.35, fixed in their next versions):
#: every probe is audited that way too.
STRONG_TRAIN_SEEDS = (4, 5, 6, 7)
STRONG_TRAIN_ITEMS = 400
#: Probes whose four-seed detector still finds a shortcut (issue 28), each a strict xfail: the towers'
#: next moves (surface detector 0.41 / 0.45 on next-move items alone; pooled London 0.326 at seeds
#: 1-3, Hanoi 0.307 here and 0.331 at seeds 11-13, against 0.267).
STRONG_KNOWN = ("tower_london",)
STRONG_PROBES = sorted(REGISTRY)


@lru_cache(maxsize=None)
def _audit(name: str) -> tuple[Row, ...]:
    return tuple(audit_probe(name, SEEDS, ITEMS, train_seeds=TRAIN_SEEDS, train_items=TRAIN_ITEMS))


def _group(name: str) -> pytest.MarkDecorator:
    """A probe's tests on one xdist worker, so that its audit (cached) is computed once."""
    return pytest.mark.xdist_group(f"probe_audit_{name}")


@pytest.mark.parametrize("name", [pytest.param(name, marks=_group(name)) for name in sorted(REGISTRY)])
def test_no_blind_strategy_beats_chance_by_more_than_five_points(name: str) -> None:
    flagged = [r for r in _audit(name) if r.flagged]
    assert not flagged, f"{name}: blind strategies above chance + 0.05:\n" + to_text(flagged)


@lru_cache(maxsize=None)
def _strong_audit(name: str) -> tuple[Row, ...]:
    rows = audit_probe(name, SEEDS, ITEMS, train_seeds=STRONG_TRAIN_SEEDS, train_items=STRONG_TRAIN_ITEMS)
    return tuple(r for r in rows if r.strategy.startswith("detector:"))


def _strong_marks(name: str) -> list[pytest.MarkDecorator]:
    known = [pytest.mark.xfail(strict=True, reason="issue 28: tower next moves, surface detector")]
    return [_group(name), *(known if name in STRONG_KNOWN else [])]


@pytest.mark.parametrize("name", [pytest.param(name, marks=_strong_marks(name)) for name in STRONG_PROBES])
def test_no_detector_trained_on_four_seeds_finds_a_shortcut(name: str) -> None:
    flagged = [r for r in _strong_audit(name) if r.flagged]
    assert not flagged, f"{name}: detectors above chance + 0.05:\n" + to_text(flagged)
