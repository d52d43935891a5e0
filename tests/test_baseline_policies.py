"""cog_baseline's policy names that span tasks: ``heuristic`` (each paradigm's characteristic
non-ideal player, the probes' lure-taker) and ``random`` as a guesser on any multiple-choice task."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from lm_eval_cog.lmeval.baseline_model import BaselineLM
from lm_eval_cog.lmeval.compat import make_instance
from lm_eval_cog.paradigms import available, get_paradigm
from lm_eval_cog.probes.core import get_probe


@pytest.mark.parametrize("name", available())
def test_heuristic_names_one_of_the_paradigms_own_agents(name):
    paradigm = get_paradigm(name)
    assert paradigm.heuristic in paradigm.agents and paradigm.heuristic not in ("optimal", "random")
    params = paradigm.make_params()
    agent = paradigm.make_agent("heuristic", params, np.random.default_rng(0))
    assert type(agent) is type(paradigm.make_agent(paradigm.heuristic, params, np.random.default_rng(0)))


def test_heuristic_on_a_probe_takes_the_prepotent_lure():
    probe = get_probe("stroop")
    docs = probe.generate(seed=0, n=12)
    lm = BaselineLM(policy="heuristic")
    chosen = [lm._probe_choice(doc) for doc in docs]
    expected = [probe.policy_choice("prepotent", doc, np.random.default_rng(0)) for doc in docs]
    assert chosen == expected


def _requests(task: str, docs: int, choices: int) -> list:
    return [
        make_instance("loglikelihood", ("Q?", f" {c}"), doc={"q": d}, idx=c, metadata=(task, d, 1))
        for d in range(docs)
        for c in range(choices)
    ]


def test_random_guesses_any_multiple_choice_task_uniformly_and_reproducibly():
    requests = _requests("mmlu_anatomy", docs=800, choices=4)
    first = BaselineLM(policy="random").loglikelihood(requests)
    assert first == BaselineLM(policy="random").loglikelihood(requests)
    assert all(-1.0 < ll <= 0.0 and greedy is False for ll, greedy in first)
    picks = Counter(int(np.argmax([ll for ll, _ in first[d * 4 : d * 4 + 4]])) for d in range(800))
    # 800 uniform picks over 4 options: each count ~ Binomial(800, 1/4), mean 200, sd 12.2
    assert all(150 < picks[c] < 250 for c in range(4)), picks
    # another task's document 0 is another draw
    assert BaselineLM(policy="random").loglikelihood(_requests("arc_easy", 1, 4)) != first[:4]


@pytest.mark.parametrize("policy", ["optimal", "heuristic"])
def test_other_policies_refuse_tasks_they_do_not_know(policy):
    with pytest.raises(NotImplementedError, match="policy=random also guesses"):
        BaselineLM(policy=policy).loglikelihood(_requests("mmlu_anatomy", 1, 4))
