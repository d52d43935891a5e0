"""Small hand-built lm-eval output folders for the report data-layer tests (no lm_eval run needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_results(
    folder: Path,
    results: dict[str, dict[str, Any]],
    *,
    model: str = "hf",
    model_args: Any = "pretrained=org/tiny-model",
    stamp: str = "2025-01-01T00-00-00.000001",
    date: float | None = 1735689600.0,
    groups: dict[str, dict[str, Any]] | None = None,
    group_subtasks: dict[str, list[str]] | None = None,
    configs: dict[str, dict] | None = None,
    higher_is_better: dict[str, dict[str, bool]] | None = None,
    n_samples: dict[str, int] | None = None,
    samples: dict[str, list[dict]] | None = None,
    version: str = "0.4.13",
) -> Path:
    """Write ``results_<stamp>.json`` (and ``samples_<task>_<stamp>.jsonl``) like lm-eval does."""
    folder.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "results": results,
        "groups": groups or {},
        "group_subtasks": group_subtasks or {},
        "configs": configs or {},
        "versions": {t: 1.0 for t in results},
        "higher_is_better": higher_is_better or {},
        "n-samples": {
            t: {"original": n, "effective": n} for t, n in (n_samples or {}).items()
        },
        "config": {"model": model, "model_args": model_args, "limit": None},
        "lm_eval_version": version,
    }
    if date is not None:
        data["date"] = date
    path = folder / f"results_{stamp}.json"
    path.write_text(
        json.dumps(data, indent=2), encoding="utf-8"
    )  # NaN written bare, as lm-eval does
    for task, rows in (samples or {}).items():
        lines = "".join(json.dumps(row) + "\n" for row in rows)
        (folder / f"samples_{task}_{stamp}.jsonl").write_text(lines, encoding="utf-8")
    return path


def mc_sample(doc_id: int, n_choices: int, acc: float, *, legacy: bool = False) -> dict:
    """An lm-eval multiple-choice sample line: one loglikelihood request per choice.

    lm-eval 0.4.13 writes ``arguments`` as ``{"gen_args_<i>": {"arg_0": ..., "arg_1": ...}}``;
    older 0.4 releases wrote a list of ``[context, continuation]`` pairs (``legacy``).
    """
    if legacy:
        arguments: Any = [[f"q{doc_id}", f" choice{i}"] for i in range(n_choices)]
    else:
        arguments = {
            f"gen_args_{i}": {"arg_0": f"q{doc_id}", "arg_1": f" choice{i}"}
            for i in range(n_choices)
        }
    return {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}"},
        "target": 0,
        "arguments": arguments,
        "resps": [[[-1.0 - i, False]] for i in range(n_choices)],
        "filtered_resps": [[-1.0 - i, False] for i in range(n_choices)],
        "acc": acc,
    }
