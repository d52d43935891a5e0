"""lm-eval's per-task warnings that do not apply to our tasks are said once per run or not at all
(``lmeval/quiet.py``); other tasks keep them, and the metric-count warning stays where it can mislead."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_cog.lmeval import quiet

LM_EVAL_COG = shutil.which("lm-eval-cog", path=str(Path(sys.executable).parent)) or shutil.which("lm-eval-cog")
KWARGS_TAIL = ("\nFor example --metadata='{\"max_seq_lengths\":[4096, 8192]}'. For details see task Readme.")


def counts_warning(task: str) -> str:
    return (f"[{task}] Metrics were not scored on the same number of documents (acc,none=12, acc_congruent,none=4, "
            "interference,none=8). Each metric was aggregated over only the documents that produced it; ...")


@pytest.mark.parametrize(
    "groups, misleads",
    [
        ({}, False),                                                  # run alone: nothing is weighted
        ({"g": {"acc": True}}, False),                                # weighted, but acc has every document
        ({"g": {"acc": False, "acc_congruent": False}}, False),       # our groups: weight_by_size false
        ({"g": {"acc": False}, "h": {"acc_congruent": True}}, True),  # a size-weighted metric on 4 of 12
        ({"g": {"interference": True}}, True),                        # 8 of 12
    ],
)
def test_the_metric_count_warning_misleads_only_where_a_group_weights_a_short_metric_by_size(groups, misleads):
    counts = {"acc,none": 12, "acc_congruent,none": 4, "interference,none": 8}
    assert quiet.count_warning_misleads("cog_stroop_mc", counts, groups) is misleads


def test_our_groups_never_weight_by_size_so_the_warning_is_dropped_for_our_tasks():
    from lm_eval_cog.task_index import entries

    weighted = [(e.name, m) for e in entries().values() for m, w in e.aggregates if w]
    assert weighted == []


def test_custom_kwargs_is_one_info_line_for_our_tasks_and_kept_for_others(caplog, monkeypatch):
    quiet.install()
    monkeypatch.setattr(quiet._FILTER, "hinted", False)
    task_log, agg_log = logging.getLogger(quiet.TASK_LOGGER), logging.getLogger(quiet.AGGREGATION_LOGGER)
    with caplog.at_level(logging.INFO):
        for task in ("cog_stroop_mc", "cog_flanker_mc", "ruler_niah", "cog_span_gen"):
            task_log.warning(f"{task}: Custom kwargs can be passed to `--metadata` in console (as json string) or "
                             f"to the TaskManager.{KWARGS_TAIL}")
        agg_log.warning(counts_warning("cog_stroop_mc"))
        agg_log.warning(counts_warning("mmlu_anatomy"))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert [w.split(":")[0].split("]")[0] for w in warnings] == ["ruler_niah", "[mmlu_anatomy"]
    assert infos == [quiet.METADATA_HINT]


def test_an_audit_of_five_probe_tasks_repeats_no_line():
    # Before: two "Custom kwargs" lines per task (144 of an audit's 239 lines for cog_static_mc).
    proc = subprocess.run([LM_EVAL_COG, "audit", "cog_inhibition_mc", "--items", "12"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    for probe in ("counting_stroop", "flanker", "gonogo", "hayling", "stroop"):  # the five tasks' rows
        assert any(line.startswith(f"cog_{probe}_mc ") for line in lines), (probe, lines)
    assert len(lines) == len(set(lines)), [line for line in lines if lines.count(line) > 1]
    assert "Custom kwargs" not in proc.stderr
