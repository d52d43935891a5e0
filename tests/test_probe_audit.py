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


#: Known shortcuts not yet removed: the key's *text* recurs as the key across items (a cross-fitted
#: "most frequent right answer" strategy wins), which index-aligned counterbalancing hid until the
#: strategy's halves were drawn by a hash of the item (see strategies.majority_text_scores).
#: Strict: the test fails once a probe is fixed, so the mark must go with the fix.
KNOWN_SHORTCUTS = {
    "hayling": "majority_text 0.71 vs 1/3 in suppression: the unrelated-word bank makes the same words keys",
    "rule_induction": "majority_text 0.47 vs 1/4 in choose_rule: some rule wordings are keys more often",
    "wason_selection": "majority_text 0.82 vs 1/4 in deontic: the same p/not-q card texts recur as keys",
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_SHORTCUTS[n])) if n in KNOWN_SHORTCUTS else n
        for n in sorted(REGISTRY)
    ],
)
def test_no_blind_strategy_beats_chance_by_more_than_five_points(name: str) -> None:
    rows = audit_probe(name, SEEDS, ITEMS)
    flagged = [r for r in rows if r.flagged]
    assert not flagged, f"{name}: blind strategies above chance + 0.05:\n" + to_text(flagged)
