"""Private/Shared scores from the episode log alone (clembench's ``PrivateSharedScorer``).

Reads the move records of :class:`~lm_eval_cog.games.privateshared.env.PrivateSharedEnv`:
``action`` ``"probe"`` (fields ``round``, ``truth``: was the slot shared, ``said``: ``"yes"`` /
``"no"``) and ``"answer"`` (field ``filled``), and the end record's ``request_order``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_cog.games.base import ABORTED, INVALID, VALID, common_metrics, end_record, moves
from lm_eval_cog.games.privateshared.parse import YES
from lm_eval_cog.paradigms.base import MetricSpec
from lm_eval_cog.paradigms.measures import ratio

SLOT_FILLING_ACCURACY = "slot_filling_accuracy"
KAPPA = "kappa"
TRUNCATED_KAPPA = "truncated_kappa"
PROBE_ACCURACY = "probe_accuracy"
MIDDLE_ACCURACY = "middle_accuracy"
PROBE_RETRIES = "probe_retries"

EXTRA_SPECS: tuple[MetricSpec, ...] = (
    MetricSpec(SLOT_FILLING_ACCURACY, True, "Answers that contain the requested slot's value / slots answered."),
    MetricSpec(KAPPA, True, "Cohen's kappa between the probe answers (yes/no) and the truth (was the slot shared?), "
               "over all probes; 1 when both use one and the same label (kappa undefined, all answers right)."),
    MetricSpec(TRUNCATED_KAPPA, True, "max(0, kappa): what the main score uses."),
    MetricSpec(PROBE_ACCURACY, True, "Probe answers that match the truth / probes answered."),
    MetricSpec(MIDDLE_ACCURACY, True, "Probe accuracy in probing round int((n+1)/2) - 1 (round 2 of 0..5 for 5 slots)."),
    MetricSpec(PROBE_RETRIES, False, "Probe replies not in the required form (each one asked again)."),
)  # fmt: skip
EXTRAS = tuple(s.name for s in EXTRA_SPECS)


def kappa(truth: Sequence[bool], said: Sequence[bool]) -> float:
    """Cohen's kappa of two yes/no labellings (sklearn's), NaN for none.

    Kappa is undefined when the chance agreement is 1, i.e. when the truth and the answers use one
    and the same label throughout: then every answer is right, and we call it perfect agreement (1).
    (sklearn returns NaN there, which clembench truncates to 0.) A full game never gets there: its
    truth says "no" for every slot in round 0 and "yes" for every slot in round n.
    """
    if not truth:
        return math.nan
    if len(set(truth) | set(said)) == 1:
        return 1.0
    # Imported here: scikit-learn takes ~1.7 s to import, which no run without this game should pay.
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(list(truth), list(said)))


def main_score(slot_filling: float, truncated_kappa: float) -> float:
    """100 x the harmonic mean of slot-filling accuracy and truncated kappa (0 when both are 0)."""
    if slot_filling + truncated_kappa == 0:
        return 0.0
    return 100.0 * 2 * slot_filling * truncated_kappa / (slot_filling + truncated_kappa)


def middle_round(n_slots: int) -> int:
    """The probing round whose accuracy is ``middle_accuracy`` (clembench: int((n+1)/2) - 1)."""
    return int((n_slots + 1) / 2) - 1


def game_scores(log: Sequence[Mapping[str, Any]], n_slots: int) -> dict[str, float]:
    """The game's own scores of a played episode (every probing round answered), and ``main_score``."""
    records = moves(log)
    probes = [r for r in records if r["action"] == "probe" and r["status"] == VALID]
    answers = [r for r in records if r["action"] == "answer" and r["status"] == VALID]
    truth = [bool(r["truth"]) for r in probes]
    said = [r["said"] == YES for r in probes]
    middle = [t == s for r, t, s in zip(probes, truth, said) if r["round"] == middle_round(n_slots)]
    k = kappa(truth, said)
    sf = ratio(sum(bool(r["filled"]) for r in answers), len(answers))
    truncated = max(0.0, k)
    return {
        "main_score": main_score(sf, truncated),
        SLOT_FILLING_ACCURACY: sf,
        KAPPA: k,
        TRUNCATED_KAPPA: truncated,
        PROBE_ACCURACY: ratio(sum(t == s for t, s in zip(truth, said)), len(probes)),
        MIDDLE_ACCURACY: ratio(sum(middle), len(middle)),
        PROBE_RETRIES: float(sum(r["action"] == "probe" and r["status"] == INVALID for r in records)),
    }


def is_success(scores: Mapping[str, float]) -> bool:
    """Won: every probe answered right and every slot filled."""
    return scores[PROBE_ACCURACY] == 1.0 and scores[SLOT_FILLING_ACCURACY] == 1.0


def privateshared_metrics(log: Sequence[Mapping[str, Any]], params: Any = None) -> dict[str, float]:
    """The shared game metrics and the extras of one episode (extras NaN unless played to the end)."""
    common = common_metrics(log)
    last = end_record(log)
    if last is None or last["outcome"] == ABORTED:
        return {**common, **{name: math.nan for name in EXTRAS}}
    scores = game_scores(log, len(last["request_order"]))
    return {**common, **{name: scores[name] for name in EXTRAS}}
