"""The cog_cogprobe groups: members exist, the offline group loads offline, the README maps all 16 operations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

FOLDER = Path(__file__).resolve().parents[1] / "task_configs" / "cogprobe"
OPERATIONS = (
    "Task Identification", "Goal Decomposition", "Factual Recall", "Episodic Memory", "Classification",
    "Rule Execution", "Logical Deduction", "Causal Reasoning", "Mathematical Computation", "Association",
    "Analogy", "Inductive Reasoning", "Self-checking", "Rationality Evaluation", "Error Correction",
    "Working Memory Update",
)
#: Members that download a dataset from the Hugging Face Hub (only in cog_cogprobe_full).
HUB_TASKS = {"bigbench_intent_recognition_multiple_choice", "triviaqa", "gsm8k_cot_zeroshot", "copa"}


def _members(name: str) -> list[str]:
    return yaml.safe_load((FOLDER / f"_{name}.yaml").read_text())["task"]


@pytest.fixture(scope="module")
def task_manager():
    from lm_eval.tasks import TaskManager

    return TaskManager()


def test_every_member_is_a_known_task_or_group(task_manager):
    known = set(task_manager.all_tasks)
    for group in ("cog_cogprobe", "cog_cogprobe_full"):
        missing = [t for t in _members(group) if t not in known]
        assert not missing, f"{group}: {missing}"
    assert set(_members("cog_cogprobe_full")) == {"cog_cogprobe"} | HUB_TASKS


def test_the_offline_group_holds_only_generated_tasks_and_loads_offline(task_manager, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    members = _members("cog_cogprobe")
    assert all(t.startswith("cog_") for t in members) and not HUB_TASKS & set(members)
    loaded = task_manager.load(["cog_cogprobe"])  # builds every document: nothing is downloaded
    assert set(loaded["tasks"]) == set(members) and set(loaded["groups"]) == {"cog_cogprobe"}


def test_the_readme_maps_every_operation_once_and_names_only_group_members_or_known_tasks(task_manager):
    text = (FOLDER / "README.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| Macro")]
    operations = [re.match(r"\| [^|]+ \| ([^(|]+?) (?:\(|\|)", row)[1].strip() for row in rows if "---" not in row]
    assert operations == list(OPERATIONS)
    named = set(re.findall(r"`((?:cog|bigbench|gsm8k|copa|triviaqa)[a-z0-9_]*)`", text))
    assert named <= set(task_manager.all_tasks) | set(task_manager.all_groups)
