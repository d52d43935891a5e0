"""Test helpers for runs through lm-eval itself: the ``lm_eval`` command of this venv, and an
ordinary lm-eval YAML task over a local JSON file (nothing downloads)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The ``lm_eval`` installed beside this interpreter (the package under test), else the one on PATH.
LM_EVAL = shutil.which("lm_eval", path=str(Path(sys.executable).parent)) or shutil.which("lm_eval")

#: lm-eval-cog's switch that leaves lm-eval's own ~14,000 task YAMLs unindexed (lm_eval_cog._autoload).
TASKS_ONLY = "LM_EVAL_COG_TASKS_ONLY"


def cog_env(*, full_index: bool = False, **extra: str) -> dict[str, str]:
    """The environment of an end-to-end ``lm_eval`` run: offline, our start-up hook on, and (unless
    ``full_index``) only our tasks and ``--include_path`` indexed: about 12 s less per start on a
    2-core machine. A few runs keep the full index, so that our tasks are also tested beside lm-eval's."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}
    env.pop("LM_EVAL_COG_NO_AUTOLOAD", None)
    if full_index:
        env.pop(TASKS_ONLY, None)
    else:
        env[TASKS_ONLY] = "1"
    return env


_MC_YAML = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files: {{test: {data}}}
test_split: test
output_type: multiple_choice
doc_to_text: "{doc_to_text}"
doc_to_target: "{{{{answer}}}}"
doc_to_choice: {doc_to_choice}
metric_list:
  - metric: acc
metadata:
  version: 1.0
"""


def write_mc_task(
    folder: Path, name: str, rows: Sequence[dict[str, Any]], *, doc_to_text: str, doc_to_choice: str
) -> Path:
    """A multiple-choice task ``name`` in ``folder`` (for ``--include_path``) over ``rows`` (each with an
    ``answer`` index), its prompt and choices as lm-eval YAML values; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"{name}.json"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = _MC_YAML.format(name=name, data=data, doc_to_text=doc_to_text, doc_to_choice=doc_to_choice)
    (folder / f"{name}.yaml").write_text(text)
    return folder


def write_yes_no_task(folder: Path, name: str, rows: Sequence[dict[str, Any]]) -> Path:
    """A multiple-choice task ``name`` in ``folder`` (for ``--include_path``) over ``rows`` of
    ``{"question": str, "answer": 0 (yes) or 1 (no)}``; returns ``folder``."""
    return write_mc_task(folder, name, rows, doc_to_text="{{question}}", doc_to_choice='["yes", "no"]')
