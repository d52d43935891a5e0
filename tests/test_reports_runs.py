"""The report data layer: reading lm-eval results folders (runs.py) and choosing headline metrics (selection.py)."""

from __future__ import annotations

import math

import pytest
from reports_fixtures import mc_sample, write_results

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.runs import (
    TaskResult,
    canonical_model_args,
    find_results,
    load_run,
    load_runs,
    read_samples,
)
from lm_eval_cog.reports.selection import (
    headline_metric,
    parse_metric_overrides,
    validate_overrides,
)


def _row(task: str, **metrics) -> dict:
    return {"alias": task, "name": task, "sample_len": 4, **metrics}


def _result(
    task: str, metrics: dict, hib: dict | None = None, config: dict | None = None
) -> TaskResult:
    return TaskResult(task, metrics, {}, hib or {}, None, None, config or {}, False)


# ---------------------------------------------------------------- reading results files


def test_task_row_keeps_numbers_drops_bookkeeping_and_splits_stderrs(tmp_path):
    write_results(
        tmp_path,
        {
            "t": _row(
                "t",
                **{
                    "acc,none": 0.5,
                    "acc_stderr,none": 0.1,
                    "effect,none": float("nan"),
                    "effect_stderr,none": "N/A",  # custom aggregation: lm-eval writes "N/A"
                    "note,none": "text",
                },
            )
        },
        higher_is_better={"t": {"acc": True, "effect": False}},
        n_samples={"t": 4},
    )
    result = load_run(tmp_path).tasks["t"]
    assert set(result.metrics) == {
        "acc,none",
        "effect,none",
    }  # alias/name/sample_len/text dropped
    assert result.metrics["acc,none"] == 0.5
    assert math.isnan(result.metrics["effect,none"])  # NaN kept
    assert result.stderrs == {"acc,none": 0.1}  # "N/A" absent, not 0
    assert result.higher_is_better == {"acc": True, "effect": False}
    assert result.n_samples == 4
    assert result.version == "1.0"
    assert result.is_group is False


def test_groups_come_from_groups_and_from_old_style_rows_in_results(tmp_path):
    # New style: group row in "groups" (and, as 0.4.13 does, also in "results").
    write_results(
        tmp_path / "new",
        {"a": _row("a", **{"acc,none": 1.0}), "g": _row("g", **{"acc,none": 1.0})},
        groups={"g": _row("g", **{"acc,none": 1.0})},
        group_subtasks={"g": ["a"]},
    )
    # Old style: group only in "results", named in group_subtasks; standalone task listed with [].
    write_results(
        tmp_path / "old",
        {"b": _row("b", **{"acc,none": 0.0}), "h": _row("h", **{"acc,none": 0.0})},
        model_args="pretrained=org/other",
        group_subtasks={"h": ["b"], "b": []},
    )
    new, old = load_runs([tmp_path / "new", tmp_path / "old"])
    assert new.tasks["g"].is_group and not new.tasks["a"].is_group
    assert new.tasks["g"].config == {}
    assert old.tasks["h"].is_group and not old.tasks["b"].is_group
    assert old.group_subtasks == {"h": ["b"]}


def test_two_results_files_of_one_model_merge_later_date_wins_per_task(tmp_path):
    early = write_results(
        tmp_path / "m",
        {"a": _row("a", **{"acc,none": 0.1}), "b": _row("b", **{"acc,none": 0.2})},
        stamp="2025-01-01T00-00-00.1",
        date=100.0,
        samples={"a": [{"doc_id": 0}], "b": [{"doc_id": 0}]},
    )
    late = write_results(
        tmp_path / "m",
        {"b": _row("b", **{"acc,none": 0.9}), "c": _row("c", **{"acc,none": 0.3})},
        model_args="pretrained=org/tiny-model",  # same identity
        stamp="2025-01-02T00-00-00.1",
        date=200.0,
        samples={"c": [{"doc_id": 0}]},
    )
    run = load_run(tmp_path)
    assert run.results_paths == (early, late)
    assert {t: r.metrics["acc,none"] for t, r in run.tasks.items()} == {
        "a": 0.1,
        "b": 0.9,
        "c": 0.3,
    }
    # b's samples belong to the early file, which lost b: not paired with the late numbers.
    assert set(run.samples) == {"a", "c"}
    assert run.samples["c"].name == "samples_c_2025-01-02T00-00-00.1.jsonl"


def test_merge_order_follows_date_not_file_name(tmp_path):
    write_results(
        tmp_path,
        {"a": _row("a", **{"acc,none": 0.7})},
        stamp="b-later-name",
        date=100.0,
    )
    write_results(
        tmp_path,
        {"a": _row("a", **{"acc,none": 0.4})},
        stamp="a-earlier-name",
        date=200.0,
    )
    assert load_run(tmp_path).tasks["a"].metrics["acc,none"] == 0.4


def test_model_args_dict_and_string_are_one_identity(tmp_path):
    write_results(
        tmp_path / "x",
        {"a": _row("a", **{"acc,none": 0.1})},
        model_args="pretrained=org/m,dtype=float16",
    )
    write_results(
        tmp_path / "y",
        {"b": _row("b", **{"acc,none": 0.2})},
        model_args={"dtype": "float16", "pretrained": "org/m"},
    )
    runs = load_runs([tmp_path])
    assert len(runs) == 1
    assert runs[0].model_args == "dtype=float16,pretrained=org/m"
    assert set(runs[0].tasks) == {"a", "b"}


@pytest.mark.parametrize(
    ("model", "args", "label"),
    [
        (
            "hf",
            "pretrained=HuggingFaceTB/SmolLM2-135M-Instruct,dtype=float32",
            "SmolLM2-135M-Instruct",
        ),
        ("vllm", "pretrained=/models/llama-3-8b/", "llama-3-8b"),
        ("openai-chat-completions", {"model": "gpt-4o"}, "gpt-4o"),
        ("cog_baseline", {"policy": "random"}, "cog_baseline(policy=random)"),
        ("dummy", "", "dummy"),
    ],
)
def test_label_is_weights_basename_else_model_with_args(tmp_path, model, args, label):
    write_results(
        tmp_path, {"a": _row("a", **{"acc,none": 0.1})}, model=model, model_args=args
    )
    assert load_run(tmp_path).label == label


def test_label_override_and_colliding_labels_are_made_unique(tmp_path):
    write_results(
        tmp_path / "a",
        {"t": _row("t", **{"acc,none": 0.1})},
        model_args="pretrained=org-a/m",
    )
    write_results(
        tmp_path / "b",
        {"t": _row("t", **{"acc,none": 0.2})},
        model_args="pretrained=org-b/m",
    )
    a, b = load_runs([tmp_path / "a", tmp_path / "b"])
    assert (a.label, b.label) == ("m (pretrained=org-a/m)", "m (pretrained=org-b/m)")
    assert load_run(tmp_path / "a", label="Mine").label == "Mine"


def test_load_run_refuses_a_folder_with_two_models(tmp_path):
    write_results(
        tmp_path / "a",
        {"t": _row("t", **{"acc,none": 0.1})},
        model_args="pretrained=org/a",
    )
    write_results(
        tmp_path / "b",
        {"t": _row("t", **{"acc,none": 0.2})},
        model_args="pretrained=org/b",
    )
    with pytest.raises(ReportInputError, match="2 models"):
        load_run(tmp_path)


def test_find_results_accepts_a_file_and_searches_folders_recursively(tmp_path):
    deep = write_results(
        tmp_path / "out" / "org__m", {"t": _row("t", **{"acc,none": 0.1})}
    )
    (tmp_path / "out" / "notes.json").write_text("{}")
    assert find_results(tmp_path / "out") == [deep]
    assert find_results(deep) == [deep]


def test_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ReportInputError, match=r"no results_\*\.json under"):
        find_results(tmp_path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{"results": {"t": {"acc,none": 0.5}}, "config": {"mod',
            "not valid JSON",
        ),  # truncated
        ("not json at all", "not valid JSON"),
        (
            '{"name": "my-app", "version": "1.0.0", "dependencies": {}}',
            "has no 'results'",
        ),  # package.json-like
        ('{"results": {}}', "has no 'config'"),
        ('{"results": {}, "config": {"limit": 4}}', "has no 'config.model'"),
        ("[1, 2]", "not a JSON object"),
    ],
)
def test_files_that_are_not_lm_eval_results_name_path_and_problem(
    tmp_path, text, problem
):
    path = tmp_path / "results_x.json"
    path.write_text(text)
    with pytest.raises(ReportInputError, match="not an lm-eval results file") as info:
        load_runs([path])
    assert str(path) in str(info.value) and problem in str(info.value)


def test_read_samples_parses_lines_and_names_a_corrupt_line(tmp_path):
    write_results(
        tmp_path,
        {"t": _row("t", **{"acc,none": 0.5})},
        samples={"t": [mc_sample(0, 4, 1.0), mc_sample(1, 2, 0.0)]},
    )
    run = load_run(tmp_path)
    assert [s["doc_id"] for s in read_samples(run, "t")] == [0, 1]
    assert read_samples(run, "unlogged") == []
    with open(run.samples["t"], "a") as fh:
        fh.write('{"doc_id": 2, "doc": {"q": \n')
    with pytest.raises(ReportInputError, match=r"samples_t_.*\.jsonl, line 3"):
        read_samples(run, "t")


def test_canonical_model_args_sorts_and_stringifies():
    assert canonical_model_args({"b": True, "a": 2}) == "a=2,b=True"
    assert (
        canonical_model_args(" pretrained=x , dtype=bf16") == "dtype=bf16,pretrained=x"
    )
    assert canonical_model_args(None) == ""


# ---------------------------------------------------------------- headline metrics


@pytest.mark.parametrize(
    ("task", "metrics", "expected"),
    [
        # interactive paradigms: the metric whose chance level the task reports
        (
            "cog_wcst_direct",
            {"acc,none": 0.25, "score,none": 25.0, "score_chance,none": 25.0},
            "score,none",
        ),
        (
            "cog_mbt",
            {
                "reward_rate,none": 0.5,
                "anticipation_rate,none": 0.5,
                "anticipation_rate_chance,none": 0.5,
            },
            "anticipation_rate,none",
        ),
        (
            "cog_wason246_direct",
            {"acc,none": 0.25, "agreement,none": 0.6, "acc_chance,none": 0.1},
            "acc,none",
        ),
        (
            "cog_calendar_reflect",
            {
                "acc_first,none": 0.0,
                "acc_final,none": 0.5,
                "acc_final_chance,none": 0.25,
            },
            "acc_final,none",
        ),
        # same paradigms without the chance column (older runs): the paradigm's primary metric
        ("cog_prlt", {"reward_rate,none": 0.5, "score,none": 56.0}, "score,none"),
        (
            "cog_igt_cot",
            {"switching_score,none": 8.0, "score,none": 22.0},
            "score,none",
        ),
        (
            "cog_mbt",
            {"reward_rate,none": 0.5, "anticipation_rate,none": 0.4},
            "anticipation_rate,none",
        ),
        (
            "cog_wason246_reflect",
            {"acc,none": 0.2, "acc_first,none": 0.3, "acc_final,none": 0.4},
            "acc_final,none",
        ),
        # static probes
        (
            "cog_stroop_mc",
            {"acc_norm,none": 0.1, "acc,none": 0.0, "acc_chance,none": 0.25},
            "acc,none",
        ),
        (
            "cog_stroop_gen",
            {"acc_congruent,answer_line": 1.0, "acc,answer_line": 0.5},
            "acc,answer_line",
        ),
        # groups: their aggregate (the mc aggregate first)
        ("cog_inhibition", {"acc,answer_line": 0.2, "acc,none": 0.3}, "acc,none"),
        # ordinary lm-eval tasks: the priority list
        (
            "gsm8k",
            {"exact_match,flexible-extract": 0.4, "exact_match,strict-match": 0.3},
            "exact_match,strict-match",
        ),
        ("hellaswag", {"acc_norm,none": 0.6, "acc,none": 0.5}, "acc,none"),
        ("leaderboard_bbh_x", {"acc_norm,none": 0.6}, "acc_norm,none"),
        ("drop", {"em,none": 0.1, "f1,none": 0.2}, "f1,none"),
        (
            "triviaqa",
            {"exact_match,remove_whitespace": 0.3},
            "exact_match,remove_whitespace",
        ),
    ],
)
def test_default_headline_per_task_kind(task, metrics, expected):
    assert headline_metric(_result(task, metrics)) == expected


def test_ordinary_task_falls_back_to_first_higher_is_better_metric():
    result = _result("ifeval", {"inst_level_loose_acc,none": 0.2, "prompt_level_strict_acc,none": 0.1, "x,none": 1.0},
                     hib={"inst_level_loose_acc": False, "prompt_level_strict_acc": True})  # fmt: skip
    assert headline_metric(result) == "prompt_level_strict_acc,none"
    assert headline_metric(
        _result("ppl", {"word_perplexity,none": 9.0}, hib={"word_perplexity": False})
    ) == ("word_perplexity,none")
    assert headline_metric(_result("empty", {})) is None


def test_override_with_bare_metric_takes_its_only_filter():
    result = _result("cog_wcst_direct", {"acc,none": 0.25, "score,none": 25.0})
    assert headline_metric(result, {"cog_wcst_direct": "acc"}) == "acc,none"
    assert headline_metric(result, {"cog_wcst_direct": "acc,none"}) == "acc,none"
    assert headline_metric(result, {"other": "x"}) == "score,none"


def test_override_errors_list_what_is_available():
    result = _result(
        "gsm8k", {"exact_match,strict-match": 0.3, "exact_match,flexible-extract": 0.4}
    )
    with pytest.raises(
        ReportInputError, match="several filters.*exact_match,flexible-extract"
    ):
        headline_metric(result, {"gsm8k": "exact_match"})
    with pytest.raises(
        ReportInputError,
        match="available: exact_match,flexible-extract, exact_match,strict-match",
    ):
        headline_metric(result, {"gsm8k": "acc"})
    with pytest.raises(ReportInputError, match="no such metric"):
        headline_metric(result, {"gsm8k": "exact_match,none"})


def test_parse_metric_overrides():
    assert parse_metric_overrides(["cog_wcst=score", " mmlu = acc,none "]) == {
        "cog_wcst": "score",
        "mmlu": "acc,none",
    }
    for bad in ["cog_wcst", "=acc", "t=", "t=acc,"]:
        with pytest.raises(ReportInputError, match="TASK=METRIC"):
            parse_metric_overrides([bad])
    with pytest.raises(ReportInputError, match="twice"):
        parse_metric_overrides(["t=a", "t=b"])


def test_unknown_task_in_override_lists_tasks():
    validate_overrides({"a": "acc"}, ["a", "b"])
    with pytest.raises(
        ReportInputError, match="unknown task.*zzz.*tasks in the results: a, b"
    ):
        validate_overrides({"zzz": "acc"}, ["b", "a"])


def test_results_file_written_with_bare_nan_is_read(tmp_path):
    path = tmp_path / "results_2025.json"
    path.write_text(
        '{"results": {"t": {"acc,none": NaN, "acc_stderr,none": NaN}}, "config": {"model": "hf"}}'
    )
    result = load_run(path).tasks["t"]
    assert math.isnan(result.metrics["acc,none"]) and math.isnan(
        result.stderrs["acc,none"]
    )
