"""Chance levels: the stored table covers every scored paradigm and preset, and a fresh simulation agrees."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lm_eval_cog.paradigms import available, chance, get_paradigm, is_game

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "chance_levels.py"
CASES = [(name, preset) for name in available() for preset in get_paradigm(name).presets]


#: Simulated episodes behind a stored level, and fresh ones in this test: a game's episode costs
#: up to 100 times a paradigm's (Private/Shared probes every slot after every answer).
STORED_SIMS, FRESH_SIMS = {"paradigm": 100_000, "game": 20_000}, {"paradigm": 2000, "game": 300}
#: Paradigms whose episodes cost ~20 ms (a probe item and a reflection turn, SMT-checked rules):
#: fewer fresh episodes, still judged within 4.5 of their own standard errors.
SLOW = {"reflect": 600, "wason246_reflect": 600}


@pytest.mark.parametrize("name, preset", CASES)
def test_stored_level_agrees_with_a_fresh_independent_simulation(name, preset):
    """New random episodes (indices the script never used) land within 4.5 standard errors."""
    level = chance.stored(name, preset)
    assert level is not None, f"no stored chance level for {name}/{preset}: run {SCRIPT.name}"
    paradigm = get_paradigm(name)
    kind = "game" if is_game(name) else "paradigm"
    assert level.metric == paradigm.primary_metric and level.sims >= STORED_SIMS[kind]
    fresh = chance.simulate(paradigm, paradigm.make_params(preset), SLOW.get(name, FRESH_SIMS[kind]), start=10**7)
    se = np.hypot(fresh.std(ddof=1) / np.sqrt(len(fresh)), level.se)
    assert abs(fresh.mean() - level.mean) <= 4.5 * se  # <=: a random Wordle player never wins (se 0)


def test_stored_levels_cover_the_probe_and_the_groups():
    """Oddball's random-comment level and each Reflection-Bench group's overall level are stored."""
    assert chance.stored("oddball", "default") is not None
    for group in ("cog_reflection_bench", "cog_reflection_bench_free", "cog_reflection_bench_cot",
                  "cog_reflection_bench_hard"):  # fmt: skip
        assert chance.stored_group(group) is not None, group
    easy, hard = chance.stored_group("cog_reflection_bench"), chance.stored_group("cog_reflection_bench_hard")
    # The overall mean is the mean of the members' means (MBT has no score and drops out).
    members = [("wpt", "easy"), ("wcst", "reflection_bench"), ("oddball", "default"), ("nback", "easy"),
               ("igt", "easy"), ("prlt", "easy")]  # fmt: skip
    assert easy.mean == pytest.approx(np.mean([chance.stored(*m).mean for m in members]), abs=1e-3)
    assert hard.mean == pytest.approx(
        np.mean([chance.stored(*m).mean for m in [("wpt", "hard"), ("wcst", "reflection_bench_hard"),
                                                  ("nback", "hard"), ("igt", "hard"), ("prlt", "hard")]]),
        abs=1e-3,
    )  # fmt: skip


def test_known_chance_values_follow_from_the_protocols():
    """Analytic checks: WCST random accuracy is 1/4; MBT random anticipation 1/2; n-back random
    (right on the n forced 'not available' trials, a coin flip on the rest) is (n + (T - n)/2) / T."""
    assert chance.stored("wcst", "reflection_bench").mean == pytest.approx(25.0, abs=0.05)
    assert chance.stored("mbt", "easy").mean == pytest.approx(0.5, abs=0.002)
    assert chance.stored("nback", "easy").mean == pytest.approx(100 * (2 + 25) / 52, abs=0.05)
    assert chance.stored("nback", "hard").mean == pytest.approx(100 * (4 + 24) / 52, abs=0.05)
    assert chance.stored("nback", "gong3").mean == pytest.approx(100 * (3 + 21 / 2) / 24, abs=0.05)


def test_level_applies_only_to_the_presets_parameters():
    """A strategy change keeps the preset's level; any other change drops it."""
    paradigm = get_paradigm("prlt")
    cot = paradigm.make_params("easy", "cot")
    assert chance.for_params(paradigm, "easy", cot) == chance.stored("prlt", "easy")
    assert chance.for_params(paradigm, "easy", dataclasses.replace(cot, trials=60)) is None
    assert chance.for_params(paradigm, "hard", cot) is None


def test_script_is_deterministic_whatever_the_worker_count(tmp_path):
    """Same arguments, same file, with one worker or two."""
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"chance_{workers}.json"
        proc = subprocess.run(
            [sys.executable, str(SCRIPT), "--sims", "40", "--workers", str(workers), "--no-oddball", "--out", str(out)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1]
    assert outs[0]["levels"]["nback"]["easy"]["sims"] == 40
