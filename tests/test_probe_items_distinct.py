"""Every probe's items are distinct within a seed and nearly disjoint between seeds (issue 28).

Within a seed no question stem repeats, even with other options: a repeated stem is a repeated
question, so a model's one answer would count twice and the seed's item count would overstate its
evidence. Between two seeds under 1% of the items are identical: a seed is meant as a fresh sample
of the generator's space, and a space too small to give one is a defect of the generator (two seeds
shared 42 identical Tower of London items when issue 28 was filed). The stem is what the audit calls it
(the prompt without its options listing: :func:`lm_eval_cog.audit.probes.doc_item`). Two items are
identical where the base :meth:`~lm_eval_cog.paradigms.probe_base.Probe.identity` says so: the same
question, options and key, the options in any order (stricter than exact equality). Not a probe's own
override: some count a question asked again with other options as the same item (analogy, trail
making), which within a seed is right and between seeds is not "identical". The probes' own tests
check their 1,200-item sets; this is the one test of stems and seeds.
"""

from __future__ import annotations

from collections import Counter

import pytest

from lm_eval_cog.audit.probes import doc_item, effective_pool
from lm_eval_cog.paradigms.probe_base import Probe
from lm_eval_cog.probes.core import REGISTRY, get_probe

ITEMS = 300
SEEDS = (1, 2)


def _stem(doc: dict) -> str:
    return doc_item(doc).stem


#: Probes whose spaces are too small for it (issue 28): strict xfails of the between-seeds test, so a fix
#: shows as XPASS.
KNOWN_REPEATS = {
    "hanoi": "seeds 1 and 2 share 13 of 300 items (version 3.0; 6 on 2.4): 8 are next-move items, whose "
             "draws for balanced slots and neutral heuristics settle on fewer problems; 3-disc problems are a third",
    "tower_london": "3 balls: 36 states (216 with the peg orders); seeds 1 and 2 share 8 of 300 items (version "
                    "4.0; 5 on 3.1) (balls: 4 shares none: test_a_larger_tower_of_london_meets_both_rules)",
}


def _seeds(name: str, params: dict | None = None) -> tuple[Probe, list[list[dict]]]:
    probe = get_probe(name)
    return probe, [probe.generate(seed, ITEMS, probe.make_params(params or {})) for seed in SEEDS]


def _assert_distinct_stems(name: str, seeds: list[list[dict]]) -> None:
    for docs in seeds:
        repeated = [stem for stem, k in Counter(map(_stem, docs)).items() if k > 1]
        assert not repeated, f"{name}: {len(repeated)} question stems repeat within a seed, e.g. {repeated[0]!r}"


def _assert_seeds_share_under_one_percent(name: str, probe: Probe, seeds: list[list[dict]]) -> None:
    first, second = ({Probe.identity(probe, d) for d in docs} for docs in seeds)
    assert len(first & second) < 0.01 * ITEMS, f"{name}: seeds {SEEDS} share {len(first & second)} of {ITEMS} items"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_no_question_stem_repeats_within_a_seed(name):
    _assert_distinct_stems(name, _seeds(name)[1])


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_REPEATS[n])) if n in KNOWN_REPEATS else n
     for n in sorted(REGISTRY)],
)
def test_two_seeds_share_under_one_percent_of_items(name):
    _assert_seeds_share_under_one_percent(name, *_seeds(name))


def test_a_larger_tower_of_london_meets_both_rules():
    probe, seeds = _seeds("tower_london", {"balls": 4})
    _assert_distinct_stems("tower_london (4 balls)", seeds)
    _assert_seeds_share_under_one_percent("tower_london (4 balls)", probe, seeds)


def test_the_stem_check_fails_on_a_repeated_question_with_other_options():
    ask = "Complete the analogy: Norway is to Oslo as Kenya is to ?\nOptions: {}\nAnswer with one word."
    a = {"prompt": ask.format("Nairobi, yen"), "choices": ["Nairobi", "yen"], "gold": 0, "condition": "x"}
    b = {"prompt": ask.format("lira, Nairobi"), "choices": ["lira", "Nairobi"], "gold": 1, "condition": "x"}
    assert _stem(a) == _stem(b) and (a["prompt"], a["choices"]) != (b["prompt"], b["choices"])


def test_items_with_reordered_options_count_as_shared_between_seeds():
    probe = get_probe("gonogo")
    doc = probe.generate(1, 1)[0]
    order = list(reversed(range(len(doc["choices"]))))
    choices = [doc["choices"][i] for i in order]
    moved = {**doc, "choices": choices, "gold": order.index(doc["gold"]),
             "prompt": doc["prompt"].replace(", ".join(doc["choices"]), ", ".join(choices))}
    assert moved["prompt"] != doc["prompt"] and Probe.identity(probe, moved) == Probe.identity(probe, doc)


def test_effective_pool_is_the_birthday_count_of_repeats():
    # 4 draws, one pair equal: 4² / (2 x 1) = 8; 3 equal draws make 3 pairs: 3² / 6 = 1.5.
    assert effective_pool(["a", "a", "b", "c"]) == 8.0
    assert effective_pool(["a", "a", "a"]) == 1.5
    assert effective_pool(["a", "b", "c"]) == float("inf")
