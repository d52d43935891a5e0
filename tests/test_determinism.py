"""Same seed, same stimuli: across runs and across processes; different seeds, different stimuli."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from lm_eval_cog.paradigms import available, get_paradigm
from lm_eval_cog.paradigms.base import episode_seed
from lm_eval_cog.probes.oddball.stimuli import documents

#: A fixed reply script (valid or not, depending on the paradigm): stimuli must not depend on it.
REPLIES = ("1", "yes", "left arm", "sunny", "AAA", "no idea")


def stimuli_digest(name: str, preset: str, task_seed: int, episodes: int = 3) -> str:
    """Hash of every message and trial log of ``episodes`` episodes answered by ``REPLIES``."""
    paradigm = get_paradigm(name)
    params = paradigm.make_params(preset)
    record = []
    for index in range(episodes):
        env = paradigm.env_cls(params)
        message, _ = env.reset(seed=episode_seed(task_seed, index))
        messages = [env.system_prompt, message]
        for turn in range(params.max_turns):
            message, terminated, truncated, _ = env.step(REPLIES[turn % len(REPLIES)])
            messages.append(message)
            if terminated or truncated:
                break
        record.append({"messages": messages, "log": env.log})
    return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()


def oddball_digest(task_seed: int) -> str:
    return hashlib.sha256(json.dumps(documents(task_seed, 10), sort_keys=True).encode()).hexdigest()


CASES = [(name, preset) for name in available() for preset in get_paradigm(name).presets]

_CHILD = """
import json, sys
sys.path.insert(0, {tests!r})
from test_determinism import CASES, oddball_digest, stimuli_digest
print(json.dumps({{"paradigms": [stimuli_digest(n, p, 1234) for n, p in CASES], "oddball": oddball_digest(1234)}}))
"""


def test_stimuli_are_identical_in_a_fresh_process():
    """Another interpreter (another hash seed, nothing cached) builds byte-identical episodes."""
    from pathlib import Path

    env = {"PYTHONHASHSEED": "12345"}
    import os

    proc = subprocess.run([sys.executable, "-c", _CHILD.format(tests=str(Path(__file__).parent))],
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    assert child["paradigms"] == [stimuli_digest(n, p, 1234) for n, p in CASES]
    assert child["oddball"] == oddball_digest(1234)


def plays_fixed_instances(name: str, preset: str) -> bool:
    """A game's ``paper`` preset plays the paper's instances, whatever the seed (docs/games.md)."""
    return getattr(get_paradigm(name).presets[preset], "instances", None) == "paper"


@pytest.mark.parametrize("name, preset", CASES)
def test_same_seed_same_stimuli_different_seed_different_stimuli(name, preset):
    """Rerunning with the task seed reproduces every message; another task seed changes them
    (except where the preset plays fixed instances: then it must change nothing)."""
    assert stimuli_digest(name, preset, 1234) == stimuli_digest(name, preset, 1234)
    if plays_fixed_instances(name, preset):
        assert stimuli_digest(name, preset, 1234) == stimuli_digest(name, preset, 99)
    else:
        assert stimuli_digest(name, preset, 1234) != stimuli_digest(name, preset, 99)


def test_oddball_passages_depend_on_the_seed_only():
    """Same seed: the same passages; another seed: other passages; passage i ignores the count."""
    assert oddball_digest(1234) == oddball_digest(1234) != oddball_digest(99)
    assert documents(1234, 3) == documents(1234, 10)[:3]
