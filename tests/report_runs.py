"""Real lm-eval output folders for the report tools' tests: five "models" through the stock
``lm_eval`` command: cog_baseline's random, optimal and heuristic players, SmolLM2-135M-Instruct
and a random-weight tiny Llama; the language models and the random player also answer two ordinary
multiple-choice tasks over local files that stand in for MMLU and BBH (nothing downloads)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from lm_eval_cli import LM_EVAL, cog_env, write_mc_task

#: Tasks the scripted players play: rule switches, n-back, rule discovery, static probes in both forms,
#: two dialogue games
#: (the reversal and deck figures are tested on played transcripts in test_reports_figures.py; each
#: interactive task costs ~1 s per metric here: lm-eval's CLI bootstraps every nanmean 100,000 times).
PLAYER_TASKS = ["cog_wcst_direct", "cog_lnt_direct", "cog_nback_3back", "cog_wason246_direct", "cog_stroop_mc",
                "cog_gonogo_gen", "cog_game_taboo", "cog_game_reference"]  # fmt: skip
#: Tasks the language models play (the cheap ones: capped replies on a 2-core CPU).
LM_TASKS = ["cog_nback_3back", "cog_stroop_mc", "cog_gonogo_gen"]
#: Ordinary lm-eval multiple-choice YAML tasks over local JSON (stand-ins for MMLU and BBH).
STANDINS = ["standin_knowledge", "standin_reasoning"]
#: Documents (episodes) per task: the scripted players' runs cost nothing; SmolLM2's n-back is the
#: dearest part.
LIMIT = 4
LM_LIMIT = 2
#: The language models' n-back is cut to 8 letters (24 cost ~90 s on CI's CPU): its parameters leave
#: the preset, so it has no stored chance level and the report shows it raw, a path worth testing too.
LM_METADATA = {"nback": {"trials": 8}}

def standin_rows(name: str) -> list[dict]:
    """Eight 4-choice questions: sums (knowledge stand-in) or alphabetical order (reasoning stand-in)."""
    rows = []
    for i in range(8):
        if name == "standin_knowledge":
            a, b = 3 + i, 4 + 2 * i
            choices = [str(a + b + d) for d in (-2, 0, 3, 7)]
            rows.append({"question": f"What is {a} plus {b}?", "choices": choices, "answer": 1})
        else:
            words = ["apple", "river", "stone", "zebra", "melon", "cloud", "tiger", "bread"]
            four = [words[(i + k) % 8] for k in (0, 2, 4, 6)]
            rows.append({"question": f"Which word comes first in the alphabet: {', '.join(four)}?",
                         "choices": four, "answer": four.index(min(four))})  # fmt: skip
    return rows


def write_standins(folder: Path) -> Path:
    for name in STANDINS:
        write_mc_task(folder, name, standin_rows(name), doc_to_text="Question: {{question}}\\nAnswer:",
                      doc_to_choice='"{{choices}}"')  # fmt: skip
    return folder


def run(out: Path, tasks: list[str], *args: str, include: Path | None = None, limit: int = LIMIT) -> Path:
    """One ``lm_eval`` invocation writing results and samples under ``out``; returns ``out``."""
    cmd = [LM_EVAL, *args, "--tasks", ",".join(tasks), "--limit", str(limit), "--output_path", str(out), "--log_samples"]
    if include is not None:
        cmd += ["--include_path", str(include)]
    env = cog_env()
    proc = subprocess.run(cmd, cwd=out.parent, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n--- stderr ---\n{proc.stderr[-6000:]}"
    return out


def make_runs(root: Path, smollm2: str, tiny: str) -> dict[str, Path]:
    """The five output folders, by model label."""
    standins = write_standins(root / "standin_tasks")
    runs = {}
    for policy in ("random", "optimal", "heuristic"):
        tasks = PLAYER_TASKS + (STANDINS if policy == "random" else [])
        runs[policy] = run(root / policy, tasks, "--model", "cog_baseline", "--model_args", f"policy={policy}",
                           include=standins)  # fmt: skip
    for label, model in (("smollm2", smollm2), ("tiny", tiny)):
        runs[label] = run(
            root / label, LM_TASKS + STANDINS, "--model", "hf",
            "--model_args", f"pretrained={model},dtype=float32,max_length=2048",
            "--apply_chat_template", "--gen_kwargs", "max_gen_toks=8", "--metadata", json.dumps(LM_METADATA),
            include=standins, limit=LM_LIMIT,
        )  # fmt: skip
    return runs
