"""Every static probe passes the shortcut audit: no blind strategy beats chance by more than 0.05.

Three seeds other than the default (1234), pooled per probe: the audit's cells then hold a few
hundred items each, and the Holm correction over a probe's rows keeps sampling noise from being
called a shortcut (see ``lm_eval_cog.audit.table``). A probe that fails here can be answered without
doing the task; the message names the strategy, the cell and the margin.
"""

from __future__ import annotations

import pytest

from lm_eval_cog.audit.probes import audit_probe
from lm_eval_cog.audit.table import to_text
from lm_eval_cog.probes.core import REGISTRY

SEEDS = (1, 2, 3)
ITEMS = 400  # per seed


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_no_blind_strategy_beats_chance_by_more_than_five_points(name: str) -> None:
    rows = audit_probe(name, SEEDS, ITEMS)
    flagged = [r for r in rows if r.flagged]
    assert not flagged, f"{name}: blind strategies above chance + 0.05:\n" + to_text(flagged)
