"""Which cognitive ability a task measures, for per-ability means on leaderboards and profiles.

Sources: the package's group YAMLs (``task_configs/**/_cog_*.yaml``: the static-probe abilities,
Kennedy's interactive flexibility group, the metacognition group), then the interactive paradigms
under the names their READMEs give them (Reflection-Bench's dimensions: Li et al. 2024), then a
short table of well-known lm-eval tasks under Momentè et al.'s (2025, App. C) ability names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import yaml

from lm_eval_cog._autoload import task_dir

#: Group YAML -> ability. Names follow Momentè et al. App. C where they overlap ("working memory",
#: "cognitive flexibility", "inhibitory control", "planning", "logical reasoning", "causal
#: reasoning", "theory of mind"); the rest are the groups' own (README "Groups" section).
GROUP_ABILITIES = {
    "cog_inhibition": "inhibitory control",
    "cog_working_memory": "working memory",
    "cog_flexibility_static": "cognitive flexibility",
    "cog_flexibility": "cognitive flexibility",
    "cog_planning": "planning",
    "cog_logical_reasoning": "logical reasoning",
    "cog_causal_reasoning": "causal reasoning",
    "cog_theory_of_mind": "theory of mind",
    "cog_induction": "induction",
    "cog_rule_application": "rule application",
    "cog_metacognition": "metacognition",
    # Momentè et al.'s second leg: interactive dialogue games (clembench), beside benchmarks and tests.
    "cog_games": "dialogue games",
}
# The static probes' groups per form (``cog_inhibition_mc``, ``cog_inhibition_gen``, ...): same ability.
GROUP_ABILITIES.update(
    {f"{group}_{form}": ability for group, ability in list(GROUP_ABILITIES.items())
     if group not in ("cog_flexibility", "cog_metacognition", "cog_games") for form in ("mc", "gen")}
)

#: Interactive paradigms by task-name prefix (first match wins, so longer prefixes come first).
#: WCST and LNT: set shifting (their READMEs; Momentè's "cognitive flexibility"). The Reflection-Bench
#: paradigms carry that benchmark's dimension, as in their READMEs' titles: n-back working memory,
#: WPT prediction, DC-IGT counterfactual thinking, PRLT belief updating, MBT meta-reflection, oddball
#: perception. Wason 2-4-6 is CogProbe's "Inductive Reasoning" operation; with a metacognition turn, like
#: the other ``_reflect`` tasks, it measures metacognition (CogProbe's second pass).
PARADIGM_ABILITIES = (
    ("cog_game", "dialogue games"),  # cog_game_<name>: a task outside cog_games too
    ("cog_wason246_reflect", "metacognition"),
    ("cog_wason246", "induction"),
    (
        "cog_wcst_visual_probe",
        "visual perception",
    ),  # Hao's feature-recognition probe, not sorting
    ("cog_wcst", "cognitive flexibility"),
    ("cog_lnt", "cognitive flexibility"),
    ("cog_nback", "working memory"),
    ("cog_wpt", "prediction"),
    ("cog_igt", "counterfactual thinking"),
    ("cog_prlt", "belief updating"),
    ("cog_mbt", "meta-reflection"),
    ("cog_oddball", "perception"),
)

#: Well-known lm-eval tasks (regular expressions on the task name) under Momentè et al.'s ability
#: names where they used the benchmark (logiqa2, winogrande, social_iqa, eq_bench) and plain
#: descriptive names for the usual leaderboard benchmarks.
LM_EVAL_ABILITIES = (
    (r"leaderboard_mmlu_pro|mmlu.*|cmmlu.*|kmmlu.*", "knowledge"),
    (r"leaderboard_bbh.*|bbh.*|leaderboard_musr.*", "multi-step reasoning"),
    (
        r"leaderboard_math.*|gsm8k.*|minerva_math.*|hendrycks_math.*|mathqa",
        "mathematical reasoning",
    ),
    (r"leaderboard_gpqa.*|gpqa.*", "knowledge"),
    (r"leaderboard_ifeval|ifeval", "instruction following"),
    (
        r"arc_.*|hellaswag|winogrande|piqa|openbookqa|commonsense_qa",
        "commonsense reasoning",
    ),
    (r"logiqa2?.*", "logical reasoning"),
    (r"siqa|social_iqa", "social commonsense"),
    (r"eq_bench", "emotional intelligence"),
    (r"truthfulqa.*", "truthfulness"),
)


@lru_cache(maxsize=1)
def group_definitions() -> dict[str, dict]:
    """Every group YAML of the package: group name -> its parsed YAML (``task`` list, aggregates)."""
    out: dict[str, dict] = {}
    for path in sorted(Path(task_dir()).rglob("_cog_*.yaml")):
        # The group files hold plain YAML (no !function tags, unlike the task templates), so
        # safe_load reads them; a file it cannot read is a template, not a group.
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and isinstance(data.get("group"), str):
            out[data["group"]] = data
    return out


def _member_names(entries: object) -> list[str]:
    names = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str):
            names.append(entry)
        elif isinstance(entry, dict) and isinstance(entry.get("task"), str):
            names.append(entry["task"])
    return names


def _leaf_tasks(group: str, groups: dict[str, dict], seen: frozenset[str] = frozenset()) -> list[str]:
    """The tasks of ``group``, through its subgroups (``cog_inhibition`` -> ``cog_inhibition_mc`` -> tasks)."""
    out = []
    for member in _member_names(groups.get(group, {}).get("task")):
        if member in groups and member not in seen:
            out += _leaf_tasks(member, groups, seen | {group})
        else:
            out.append(member)
    return out


@lru_cache(maxsize=1)
def _task_abilities() -> dict[str, str]:
    groups = group_definitions()
    out: dict[str, str] = {}
    for group, ability in GROUP_ABILITIES.items():
        for task in _leaf_tasks(group, groups):
            out.setdefault(task, ability)
    return out


def ability_of(task: str) -> str | None:
    """The ability ``task`` measures; None for groups and for tasks we cannot place ("other")."""
    if task in group_definitions() or task in GROUP_ABILITIES:
        return None
    known = _task_abilities().get(task)
    if known is not None:
        return known
    for prefix, ability in PARADIGM_ABILITIES:
        if task == prefix or task.startswith(prefix + "_"):
            return ability
    if re.fullmatch(r"cog_.+_reflect(_.+)?", task):
        return "metacognition"
    for pattern, ability in LM_EVAL_ABILITIES:
        if re.fullmatch(pattern, task):
            return ability
    return None


def abilities(tasks: Iterable[str]) -> dict[str, list[str]]:
    """Ability -> its tasks (abilities and tasks sorted; tasks without an ability left out)."""
    out: dict[str, list[str]] = {}
    for task in sorted(set(tasks)):
        ability = ability_of(task)
        if ability is not None:
            out.setdefault(ability, []).append(task)
    return dict(sorted(out.items()))
