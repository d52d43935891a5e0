"""Golden stimuli: a change in stimulus generation or seed derivation is a versioned change.

``tests/golden_stimuli.json`` pins, per task, ``metadata.version`` and a SHA-256 of the
first episodes' stimuli (``scripts/golden_stimuli.py`` says what is hashed). A hash that
changes under an unchanged version fails, and so does a version bumped without
regenerating the file.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "golden_stimuli.py"
_spec = importlib.util.spec_from_file_location("golden_stimuli", _SCRIPT)
golden = importlib.util.module_from_spec(_spec)
sys.modules["golden_stimuli"] = golden
_spec.loader.exec_module(golden)

TASKS = golden.task_configs()
STORED = golden.load_golden()


def test_every_task_has_golden_stimuli_and_none_is_stale():
    missing = sorted(set(TASKS) - set(STORED))
    stale = sorted(set(STORED) - set(TASKS))
    assert not missing, f"no golden stimuli for {missing}: run {golden.REGENERATE}"
    assert not stale, f"{stale} in {golden.GOLDEN_FILE.name} are no longer tasks: run {golden.REGENERATE}"


@pytest.mark.parametrize("task", sorted(TASKS))
def test_stimuli_match_the_golden_hash_of_their_version(task):
    path, config = TASKS[task]
    if task not in STORED:
        pytest.skip("reported by test_every_task_has_golden_stimuli_and_none_is_stale")
    stored = STORED[task]
    where = path.relative_to(golden.ROOT)
    now = golden.version(config)
    assert now == stored["version"], (
        f"metadata.version of {task} changed ({stored['version']} -> {now}) but {golden.GOLDEN_FILE.name} "
        f"was not regenerated: run {golden.REGENERATE}"
    )
    assert golden.stimuli_hash(config) == stored["sha256"], (
        f"stimuli of {task} changed: bump metadata.version in {where} and run {golden.REGENERATE}"
    )


def test_hash_changes_with_the_task_seed():
    # The same task with another seed must hash differently, or the pin would catch nothing.
    for task in ("cog_wcst", "cog_nback", "cog_oddball"):
        _, config = TASKS[task]
        assert golden.stimuli_hash(config, seed=1235) != golden.stimuli_hash(config)


def test_hash_changes_with_a_stimulus_parameter():
    _, config = TASKS["cog_wcst"]
    other = json.loads(json.dumps(config))
    other["metadata"]["wcst"] = {"trials": 63}  # one trial fewer: the third episode loses its last card
    assert golden.stimuli_hash(other) != golden.stimuli_hash(config)


def test_hash_does_not_depend_on_the_metrics_or_the_log(monkeypatch):
    # Metrics are computed from the log after the episode: a change in either must not move
    # the pin. Metrics that raise and a log scrambled after every trial give the same hash.
    import dataclasses

    import lm_eval_cog.paradigms.nback as nback

    _, config = TASKS["cog_nback"]
    before = golden.stimuli_hash(config)

    class ScrambledLog(nback.PARADIGM.env_cls):
        def _step(self, reply):
            result = super()._step(reply)
            self.log[-1] = {"outcome": "scrambled"}
            return result

    def metrics(log, params=None):
        raise AssertionError("the stimuli hash computed metrics")

    monkeypatch.setattr(nback, "PARADIGM", dataclasses.replace(nback.PARADIGM, env_cls=ScrambledLog, metrics=metrics))
    assert golden.stimuli_hash(config) == before
