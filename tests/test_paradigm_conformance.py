"""Every registered paradigm passes the environment contract (``paradigms.checks``), and the check bites."""

from __future__ import annotations

import dataclasses

import pytest

from lm_eval_cog.paradigms import available, get_paradigm
from lm_eval_cog.paradigms.base import ParsePath, Reading
from lm_eval_cog.paradigms.checks import ParadigmCheckError, check_paradigm
from lm_eval_cog.paradigms.nback import NBackEnv


@pytest.mark.parametrize("name", available())
def test_paradigm_passes_the_contract_checks(name):
    """Seeding, bounds, junk replies, random agent validity and JSON rescoring, for every preset."""
    check_paradigm(get_paradigm(name))


def test_every_reflection_bench_paradigm_is_registered_with_easy_and_hard_presets():
    """The suite's paradigms exist and expose Table 1's two settings."""
    for name in ("wpt", "nback", "igt", "prlt", "mbt"):
        assert {"easy", "hard"} <= set(get_paradigm(name).presets), name
    assert {"reflection_bench", "reflection_bench_hard"} <= set(get_paradigm("wcst").presets)


class _UnseededNBack(NBackEnv):
    """A broken env: its stimuli come from a fixed generator, whatever the seed."""

    def _reset(self, options):
        import numpy as np

        self.rng = np.random.default_rng(0)
        return super()._reset(options)


def test_check_paradigm_rejects_an_env_that_ignores_its_seed():
    """The conformance check can fail: stimuli identical for every seed are reported."""
    broken = dataclasses.replace(get_paradigm("nback"), env_cls=_UnseededNBack)
    with pytest.raises(ParadigmCheckError, match="identical stimuli"):
        check_paradigm(broken)


def test_check_paradigm_rejects_a_paradigm_without_fallback_share():
    """Every paradigm must report how much of its score rests on the free/cot fallback."""
    nback = get_paradigm("nback")
    specs = tuple(s for s in nback.metric_specs if s.name != "fallback_share")
    with pytest.raises(ParadigmCheckError, match="does not report 'fallback_share'"):
        check_paradigm(dataclasses.replace(nback, metric_specs=specs))


def test_check_paradigm_rejects_a_parser_that_reads_junk_as_a_choice(monkeypatch):
    """A paradigm whose parser accepts anything fails the junk check."""
    import lm_eval_cog.paradigms.nback.env as nback_env

    monkeypatch.setattr(nback_env, "read_reply", lambda reply, strategy: Reading("no", ParsePath.WHOLE_REPLY))
    with pytest.raises(ParadigmCheckError, match="junk replies were read as choices"):
        check_paradigm(get_paradigm("nback"))
