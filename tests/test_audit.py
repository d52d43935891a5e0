"""The shortcut audit: each blind strategy's credit on hand-built items (values worked out by hand),
the statistics, and ``lm-eval-cog audit`` on our tasks, on an ordinary local YAML and on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_cog.audit.items import AuditItem, make_item, split_prompt
from lm_eval_cog.audit.strategies import credits, natural_key
from lm_eval_cog.audit.table import audit_items, flag, holm, to_csv, to_json
from lm_eval_cog.lmeval.audit_source import choices_only_context
from lm_eval_cog.reports.cli import main
from lm_eval_cog.smollm2 import model_dir

sys.path.insert(0, str(Path(__file__).parent))
from lm_eval_cli import write_mc_task  # noqa: E402

STROOP = make_item(
    'The word "RED" is printed in blue ink. What colour is the ink? Options: red, blue, green, yellow.\nAnswer:',
    ["red", "blue", "green", "yellow"],
    1,
)


def _credit(item: AuditItem, strategy: str) -> float:
    return credits([item])[strategy][0]


# -- items ---------------------------------------------------------------------------------------


def test_options_listing_is_cut_from_the_stem() -> None:
    assert STROOP.stem == 'The word "RED" is printed in blue ink. What colour is the ink?'
    assert STROOP.options == ("red", "blue", "green", "yellow")


def test_labelled_option_lines_become_the_options_the_strategies_compare() -> None:
    prompt = "What is the capital of France?\nA. Paris\nB. Rome\nC. Madrid\nD. Oslo\nAnswer:"
    stem, options = split_prompt(prompt, ["A", "B", "C", "D"])
    assert options == ("Paris", "Rome", "Madrid", "Oslo")
    assert stem == "What is the capital of France?\nAnswer:"


def test_a_final_run_of_the_choices_is_cut_without_a_label() -> None:
    stem, options = split_prompt("Is the sky blue? yes or no\nAnswer:", ["yes", "no"])
    assert (stem, options) == ("Is the sky blue?", ("yes", "no"))


def test_natural_sort_orders_numbers_and_times_by_value() -> None:
    assert sorted(["10:00", "9:30", "12:15"], key=natural_key) == ["9:30", "10:00", "12:15"]


# -- strategies: hand-computed credits -------------------------------------------------------------


@pytest.mark.parametrize(
    "strategy, expected",
    [
        ("position_1", 1.0),  # blue is option 1
        ("position_0", 0.0),
        ("position_last", 0.0),
        ("recent_1", 1.0),  # the stem names RED, then blue: blue is the most recent mention
        ("first_1", 0.0),  # red is named first
        ("mentioned_most", 0.5),  # red and blue once each: a tie of two
        ("unmentioned", 0.0),  # green, yellow
        ("length_rank_0", 0.0),  # red (3) < blue (4) < green (5) < yellow (6)
        ("length_rank_1", 1.0),
        ("longest", 0.0),
        ("value_rank_0", 1.0),  # alphabetical: blue < green < red < yellow
        ("value_highest", 0.0),
        ("overlap_most", 0.5),  # "red" and "blue" both occur in the stem (share 1), green/yellow 0
        ("typical_words", 0.25),  # single-word options share no words: all tie
    ],
)
def test_each_strategy_credits_the_stroop_item_as_worked_out_by_hand(strategy: str, expected: float) -> None:
    assert _credit(STROOP, strategy) == pytest.approx(expected)


def test_the_most_typical_option_wins_when_foils_are_one_edit_variants_of_the_key() -> None:
    item = AuditItem(stem="Which plan?", options=("abcd", "abce", "zzzz", "abcf"), gold=0)
    # abcd/abce/abcf: 0.75 similar to two options, 0 to zzzz -> mean 0.5 each, a tie of three.
    assert _credit(item, "typical_chars") == pytest.approx(1 / 3)
    assert _credit(item, "odd_chars") == 0.0
    odd = AuditItem(stem="Which plan?", options=("abcd", "abce", "zzzz", "abcf"), gold=2)
    assert _credit(odd, "odd_chars") == 1.0


def test_a_strategy_without_basis_guesses_uniformly() -> None:
    item = AuditItem(stem="Pick one.", options=("x", "y", "z"), gold=2)
    assert _credit(item, "recent_1") == pytest.approx(1 / 3)  # nothing is mentioned
    assert _credit(item, "position_5") == pytest.approx(1 / 3)  # no sixth option


def test_majority_text_is_cross_fitted_over_hashed_halves() -> None:
    # crc32 parity of the stems: Q0, Q1 -> half 0; Q4, Q5 -> half 1.
    stems_and_keys = [("Q0", "yes"), ("Q1", "no"), ("Q4", "yes"), ("Q5", "yes")]
    items = [AuditItem(stem=q, options=("yes", "no"), gold=(0 if k == "yes" else 1)) for q, k in stems_and_keys]
    # Half 0 is scored with half 1's keys (yes, yes): picks yes -> Q0 right, Q1 wrong. Half 1 is scored
    # with half 0's keys (yes, no): a tie -> 1/2 each.
    assert credits(items)["majority_text"] == [1.0, 0.0, 0.5, 0.5]


# -- statistics -------------------------------------------------------------------------------------


def test_holm_adjusts_step_down_and_keeps_input_order() -> None:
    # sorted: 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> monotone 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_a_large_significant_margin_is_flagged_and_noise_is_not() -> None:
    # 200 two-option items whose key is always the first option: position_0 scores 1.0 (margin 0.5).
    biased = [AuditItem(stem=f"Q{i}", options=(f"a{i}", f"b{i}"), gold=0) for i in range(200)]
    rows = flag(audit_items("biased", biased))
    assert {r.strategy for r in rows if r.flagged and r.condition == "all"} >= {"position_0"}
    # 8 items, balanced keys: nothing can be significant.
    small = [AuditItem(stem=f"Q{i}", options=(f"a{i}", f"b{i}"), gold=i % 2) for i in range(8)]
    assert not any(r.flagged for r in flag(audit_items("small", small)))


def test_outputs_are_strict_json_and_formula_safe_csv() -> None:
    rows = flag(audit_items("=HYPERLINK(1)", [STROOP, STROOP]))
    json.loads(to_json(rows), parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    first_cell = to_csv(rows).splitlines()[1].split(",")[0]
    assert first_cell == "'=HYPERLINK(1)"


def test_choices_only_context_shows_the_options_but_not_the_question() -> None:
    assert choices_only_context(STROOP) == "Options: red, blue, green, yellow.\nAnswer:"
    assert "colour" not in choices_only_context(STROOP)


# -- the command line ----------------------------------------------------------------------------


def test_audit_command_on_our_task_prints_the_best_blind_strategy_and_writes_its_files(tmp_path, capsys) -> None:
    assert main(["audit", "cog_syllogism_mc", "--seed", "7", "--items", "60", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "best blind strategy" in out and "cog_syllogism_mc" in out
    data = json.loads((tmp_path / "audit.json").read_text())
    assert {r["task"] for r in data["best"]} == {"cog_syllogism_mc"}
    assert (tmp_path / "audit.csv").read_text().startswith("task,condition,strategy")
    assert "| cog_syllogism_mc |" in (tmp_path / "audit.md").read_text()


def test_audit_command_on_an_ordinary_local_multiple_choice_yaml(tmp_path, capsys) -> None:
    # An MMLU-style task whose key is always option A: the audit must call position_0 a shortcut.
    rows = [
        {"question": f"Question {i}: which is right?", "choices": [f"right {i}", f"wrong {i}", f"other {i}", f"no {i}"],
         "answer": 0}
        for i in range(80)
    ]
    folder = write_mc_task(
        tmp_path / "tasks", "local_mmlu_like", rows,
        doc_to_text="{{question}}\\nA. {{choices[0]}}\\nB. {{choices[1]}}\\nC. {{choices[2]}}\\nD. {{choices[3]}}\\nAnswer:",
        doc_to_choice='["A", "B", "C", "D"]',
    )
    code = main(["audit", "local_mmlu_like", "--include_path", str(folder), "--out", str(tmp_path / "out")])
    assert code == 0
    data = json.loads((tmp_path / "out" / "audit.json").read_text())
    flagged = {r["strategy"] for r in data["rows"] if r["flagged"]}
    assert "position_0" in flagged
    assert "SHORTCUT" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["audit", "cog_no_such_task_mc"], "unknown task 'cog_no_such_task_mc'"),
        (["audit", "cog_stroop_gen"], "not a multiple-choice task"),
    ],
)
def test_bad_tasks_get_one_error_line_and_exit_2(args, message, capsys) -> None:
    assert main(args) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and message in err[0]


def test_an_empty_task_gets_one_error_line_and_exit_2(tmp_path, capsys) -> None:
    folder = write_mc_task(tmp_path / "tasks", "empty_mc", [], doc_to_text="{{question}}", doc_to_choice='["yes", "no"]')
    assert main(["audit", "empty_mc", "--include_path", str(folder)]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "empty_mc" in err[0]


def _keyed_task(folder: Path, name: str, rows: list[dict], doc_to_target: str) -> Path:
    """A local multiple-choice YAML whose choices (``choices``) and key (``doc_to_target``) come from
    each row, as in datasets with per-item options and unlabelled test splits."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / f"{name}.yaml").write_text(
        f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files: {{test: {folder / (name + '.json')}}}\n"
        f"test_split: test\noutput_type: multiple_choice\ndoc_to_text: \"{{{{question}}}}\"\n"
        f"doc_to_target: {doc_to_target}\ndoc_to_choice: choices\nmetric_list:\n  - metric: acc\nmetadata:\n  version: 1.0\n"
    )
    return folder


def _options(i: int) -> list[str]:
    return [f"apple {i}", f"pear {i}", f"plum {i}", f"fig {i}"]


def test_documents_without_a_usable_key_are_skipped_with_one_counted_note_per_task(tmp_path, capsys) -> None:
    # Integer keys: document 2 is unlabelled (-1), document 4 has one option, document 6 a key out of range.
    by_index = [{"question": f"Which fruit {i}?", "choices": _options(i), "answer": i % 4} for i in range(20)]
    by_index[2]["answer"] = -1
    by_index[4].update(choices=["apple 4"], answer=0)
    by_index[6]["answer"] = 7
    # Text keys: document 1's key is none of its choices.
    by_text = [{"question": f"Which fruit {i}?", "choices": _options(i), "key": _options(i)[i % 4]} for i in range(12)]
    by_text[1]["key"] = "cherry 1"
    folder = _keyed_task(tmp_path / "tasks", "keyed_by_index", by_index, "answer")
    _keyed_task(folder, "keyed_by_text", by_text, '"{{key}}"')
    code = main(["audit", "keyed_by_index", "keyed_by_text", "--include_path", str(folder), "--out", str(tmp_path / "out")])
    assert code == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    notes = sorted(line for line in err.splitlines() if line.startswith("note:"))
    assert notes == [
        "note: task 'keyed_by_index': 3 of 20 documents skipped, without a usable key (first: document 2, "
        "target -1 is not a choice index 0..3 (an unlabelled split?))",
        "note: task 'keyed_by_text': 1 of 12 documents skipped, without a usable key (first: document 1, "
        "target 'cherry 1' is not one of its 4 choices)",
    ]
    rows = json.loads((tmp_path / "out" / "audit.json").read_text())["rows"]
    n = {r["task"]: r["n"] for r in rows if r["condition"] == "all"}
    assert n == {"keyed_by_index": 17, "keyed_by_text": 11}


def test_a_task_without_any_usable_key_gets_one_error_line_naming_it_and_no_traceback(tmp_path) -> None:
    rows = [{"question": f"Which fruit {i}?", "choices": _options(i), "answer": -1} for i in range(5)]
    folder = _keyed_task(tmp_path / "tasks", "unlabelled_test_split", rows, "answer")
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval_cog.reports", "audit", "unlabelled_test_split", "--include_path", str(folder)],
        capture_output=True, text=True, timeout=600, env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: task 'unlabelled_test_split': none of its 5 documents can be audited (document 0: target -1 is not "
        "a choice index 0..3 (an unlabelled split?))"
    ]


def test_choices_only_model_baseline_runs_a_real_model_through_lm_eval(tmp_path) -> None:
    try:
        model = model_dir()
    except FileNotFoundError as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval_cog.reports", "audit", "cog_stroop_mc", "--limit", "12", "--model", "hf",
         "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=900, env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads((tmp_path / "audit.json").read_text())["rows"]
    model_rows = [r for r in rows if r["strategy"] == "choices_only_model" and r["condition"] == "all"]
    assert len(model_rows) == 1 and model_rows[0]["n"] == 12


def test_the_one_sided_interval_is_printed_as_a_lower_bound(capsys) -> None:
    from lm_eval_cog.audit.table import interval_text

    # 8 of 10 right against chance 1/2: the one-sided Wilson bound with z = 1.6449 is
    # (0.8 + z²/20 - z·sqrt(0.016 + z²/400)) / (1 + z²/10) = 0.541 by hand; the upper end is 1.
    items = [AuditItem(stem=f"Q{i}", options=(f"a{i}", f"b{i}"), gold=0 if i < 8 else 1) for i in range(10)]
    (row,) = [r for r in audit_items("hand", items) if r.strategy == "position_0" and r.condition == "all"]
    assert (round(row.ci_low, 3), row.ci_high) == (0.541, 1.0)
    assert interval_text(row.ci_low, row.ci_high) == ">= 0.541"
    assert interval_text(0.2, 0.6) == "[0.200, 0.600]"
    assert main(["audit", "cog_syllogism_mc", "--seed", "7", "--items", "60"]) == 0
    out = capsys.readouterr().out
    assert "acc 95% (one-sided)" in out and ">= 0." in out and ", 1.000]" not in out


def test_detectors_train_on_four_unaudited_seeds_by_default():
    from lm_eval_cog.lmeval.audit_cli import train_seeds_for

    # Two training seeds of 200 items missed artefacts that four of 400 found (docs/static-probes.md).
    assert train_seeds_for((1, 2, 3), ()) == (9001, 9002, 9003, 9004)
    assert train_seeds_for((9001, 9003), ()) == (9002, 9004, 9005, 9006)
    assert train_seeds_for((1,), (7, 8)) == (7, 8)
