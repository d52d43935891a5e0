"""cog_momente: Momentè et al.'s battery resolves in lm-eval, its offline part loads offline, and the
working-memory member follows Gong et al.'s block design."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lm_eval_cog.paradigms.nback import PRESETS, NBackEnv, draw_sequence

FOLDER = Path(__file__).resolve().parents[1] / "task_configs" / "momente"
#: lm-eval's own tasks in the battery: each downloads its dataset from the Hub.
HUB_TASKS = {"logiqa2", "winogrande", "eq_bench", "social_iqa"}


def _members(name: str) -> list[str]:
    return yaml.safe_load((FOLDER / f"_{name}.yaml").read_text())["task"]


@pytest.fixture(scope="module")
def task_manager():
    from lm_eval.tasks import TaskManager

    return TaskManager()


def test_every_member_is_a_task_or_group_lm_eval_knows(task_manager):
    known = set(task_manager.all_tasks)
    for group in ("cog_momente", "cog_momente_offline"):
        missing = [t for t in _members(group) if t not in known]
        assert not missing, f"{group}: {missing}"


def test_the_offline_group_is_the_battery_without_its_hub_tasks(task_manager, monkeypatch):
    assert set(_members("cog_momente")) == set(_members("cog_momente_offline")) | HUB_TASKS
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    loaded = task_manager.load(["cog_momente_offline"])  # builds every document: nothing is downloaded
    assert "cog_nback_3back" in loaded["tasks"] and "cog_wcst_kennedy_direct" in loaded["tasks"]


def test_the_readme_names_every_member(task_manager):
    text = (FOLDER / "README.md").read_text()
    assert all(f"`{member}`" in text for member in _members("cog_momente"))


@pytest.mark.parametrize("seed", range(20))
def test_gong3_blocks_have_24_consonants_8_targets_and_no_feedback(seed):
    import numpy as np

    params = PRESETS["gong3"]
    letters, targets = draw_sequence(np.random.default_rng(seed), params)
    assert len(letters) == 24 and sum(t is True for t in targets) == 8 and targets[:3] == [None] * 3
    assert not set(letters) & set("AEIOUY")
    # a target repeats the letter 3 back; no other comparable letter does
    assert all((letters[i] == letters[i - 3]) == targets[i] for i in range(3, 24))
    env = NBackEnv(params)
    env.reset(seed=seed)
    message, *_ = env.step("Not Available")
    assert message.startswith("Letter 2:")  # no "Correct." before the next letter
    assert "3 steps before" in env.system_prompt
