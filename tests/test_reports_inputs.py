"""Unit tests of the report tools' guards: input checks, metric ranges, names, CSV and Markdown escaping,
link-safe writing. Fast and exact (they are what the mutation run of these modules uses); the same cases
through the command line are in ``test_reports_hostile.py``."""

from __future__ import annotations

import json
import math
import os
import re
from fractions import Fraction

import numpy as np
import pytest
from reports_fixtures import write_results

from lm_eval_cog.reports import validation
from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.files import links_on_the_way, refuse_links, write_bytes, write_text
from lm_eval_cog.reports.html import Markup, Num
from lm_eval_cog.reports.markdown import Md, md, table
from lm_eval_cog.reports.names import MAX_STEM, digest, safe_stem, slug, unique_slugs
from lm_eval_cog.reports.ranges import Flag, metric_range, outside, stderr_range
from lm_eval_cog.reports.runs import (
    linked_from_outside,
    load_run,
    load_runs,
    read_samples_file,
    transcript_in,
)
from lm_eval_cog.reports.spreadsheet import cell, csv_text, number_cell, text_cell

# ---------------------------------------------------------------- validation


def test_quote_cuts_long_numbers_and_texts():
    assert validation.quote(10**400) == "100000000000… (401 digits)"
    assert validation.quote(2**199) == repr(2**199)  # 200 bits: shown whole
    assert validation.quote(2**200) == "160693804425… (61 digits)"
    assert validation.quote(-(2**200)) == "-16069380442… (61 digits)"
    assert validation.quote(True) == "True" and validation.quote(5) == "5"
    assert validation.quote("x" * 58) == repr("x" * 58)  # 60 characters with the quotes
    assert validation.quote("x" * 59) == repr("x" * 59)[:59] + "…"


def test_field_name_writes_keys_quoted_and_positions_bare():
    assert validation.field_name(()) == "the top level"
    assert validation.field_name(("results",)) == "results"
    assert validation.field_name(("results", "t", "acc,none")) == "results['t']['acc,none']"
    assert validation.field_name(("resps", 0, 0, "trials", 2)) == "resps[0][0]['trials'][2]"
    assert validation.field_name((0, "a")) == "[0]['a']"


def test_load_json_reads_nan_and_names_what_it_cannot_read():
    assert math.isnan(validation.load_json('{"a": NaN}', "f")["a"])
    assert validation.load_json("[Infinity]", "f") == [math.inf]
    with pytest.raises(ReportInputError, match=r"^f: not valid JSON \(Expecting value"):
        validation.load_json("nope", "f")
    with pytest.raises(ReportInputError, match=r"^f: JSON nested too deeply to read$"):
        validation.load_json("[" * 100_000 + "]" * 100_000, "f")
    with pytest.raises(ReportInputError, match=r"^f: not valid JSON \(Exceeds the limit"):
        validation.load_json("1" * 5000, "f")


def test_check_tree_refuses_deep_nesting_and_numbers_beyond_a_float():
    validation.check_tree({"a": [1, 2.5, 10**300, -(10**300), True, None, "x"]}, "f")
    nested = json.loads("[" * 101 + "]" * 101)  # the innermost list sits at depth 100: allowed
    validation.check_tree(nested, "f")
    with pytest.raises(ReportInputError, match=r"^f: \[0\]\[0\]\[0\]… is nested deeper than 100 levels$"):
        validation.check_tree([nested], "f")
    with pytest.raises(ReportInputError, match=r"^f: results\['t'\]\['acc'\] is a number too large for a float"):
        validation.check_tree({"results": {"t": {"acc": 2**1024}}}, "f")
    with pytest.raises(ReportInputError, match=r"^f: a\[1\] is a number too large for a float: -1000"):
        validation.check_tree({"a": [0, -(10**400)]}, "f")
    with pytest.raises(ReportInputError, match=r"^f: x\[0\]\['k'\] is a number too large"):
        validation.check_tree({"k": 10**400}, "f", ("x", 0))
    validation.check_tree({"k": 2**1023}, "f")  # the largest power of two a float holds


def test_check_tree_counts_depth_below_the_prefix():
    deep = json.loads("[" * 100 + "]" * 100)
    validation.check_tree(deep, "f", ("resps", 0, 0))  # 99 levels below the prefix
    with pytest.raises(ReportInputError, match=r"resps\[0\]\[0\]\[0\]\[0\]\[0\]… is nested"):
        validation.check_tree([[deep]], "f", ("resps", 0, 0))


@pytest.mark.parametrize("value", [0, 4, 4.0, 10**12, None])
def test_count_accepts_whole_non_negative_numbers(value):
    assert validation.count(value, "f", "n") == (None if value is None else int(value))


@pytest.mark.parametrize("value", [-1, -1.0, 4.5, math.inf, math.nan, "4", True, False, [4], {"n": 4}])
def test_count_refuses_anything_else(value):
    with pytest.raises(ReportInputError, match=rf"^f: n is not a sample count: {re.escape(validation.quote(value))}$"):
        validation.count(value, "f", "n")


def test_mapping_and_string_list():
    assert validation.mapping({"a": 1}, "f", "x") == {"a": 1}
    assert validation.mapping_or_null(None, "f", "x") == {}
    assert validation.mapping_or_null({"a": 1}, "f", "x") == {"a": 1}
    with pytest.raises(ReportInputError, match=r"^f: x is not an object: None$"):
        validation.mapping(None, "f", "x")
    with pytest.raises(ReportInputError, match=r"^f: x is not an object: 3$"):
        validation.mapping_or_null(3, "f", "x")
    with pytest.raises(ReportInputError, match=r"^f: x is not an object: \[1\]$"):
        validation.mapping([1], "f", "x")
    assert validation.string_list(["a", "b"], "f", "x") == ["a", "b"]
    assert validation.string_list([], "f", "x") == []
    for bad in ("ab", ["a", 1], None, {"a": "b"}):
        with pytest.raises(ReportInputError, match=r"^f: x is not a list of names: "):
            validation.string_list(bad, "f", "x")


# ---------------------------------------------------------------- ranges


@pytest.mark.parametrize(
    ("name", "paradigm", "span"),
    [
        ("acc", None, (0.0, 1.0)),
        ("acc_norm", None, (0.0, 1.0)),
        ("exact_match", None, (0.0, 1.0)),
        ("episode_failed", "wcst", (0.0, 1.0)),
        ("acc_congruent", None, (0.0, 1.0)),
        ("acc_chance", None, (0.0, 1.0)),
        ("invalid_rate", None, (0.0, 1.0)),
        ("fallback_share", None, (0.0, 1.0)),
        ("score", "wcst", (0.0, 100.0)),
        ("score", "prlt", (0.0, 100.0)),
        ("score_chance", "lnt", (0.0, 100.0)),
        ("score_chance_p95", "nback", (0.0, 100.0)),
        ("score", "igt", None),  # the balance can go negative
        ("score", None, None),
        ("score_chance", None, None),
        ("delta", None, None),
        ("word_perplexity", None, None),
        ("_chance", None, None),
        ("accuracy", None, None),  # not acc_: unknown
        ("rate", None, None),
    ],
)
def test_metric_range(name, paradigm, span):
    assert metric_range(name, paradigm) == span


def test_stderr_range_is_never_negative_nor_wider_than_the_metric():
    assert stderr_range("acc", None) == (0.0, 1.0)
    assert stderr_range("score", "wcst") == (0.0, 100.0)
    assert stderr_range("delta", None) == (0.0, math.inf)


@pytest.mark.parametrize(
    ("value", "span", "impossible"),
    [
        (math.nan, (0.0, 1.0), False),
        (math.inf, None, True),
        (-math.inf, None, True),
        (1e308, None, False),
        (0.0, (0.0, 1.0), False),
        (1.0, (0.0, 1.0), False),
        (1.0000001, (0.0, 1.0), True),
        (-1e-12, (0.0, 1.0), True),
        (math.inf, (0.0, math.inf), True),
    ],
)
def test_outside(value, span, impossible):
    assert outside(value, span) is impossible


def test_flag_states_the_value_and_its_range():
    assert Flag(1e308, (0.0, 1.0)).text("acc,none") == "acc,none = 1e+308 (possible: [0, 1])"
    assert Flag(-0.5, (0.0, math.inf)).text("x_stderr,none") == "x_stderr,none = -0.5 (possible: [0, inf])"
    assert Flag(math.inf, None).text("delta,f") == "delta,f = inf (possible: a finite number)"
    assert Flag(150.0, (0.0, 100.0)).possible == "[0, 100]"


# ---------------------------------------------------------------- names


def test_slug_and_stem_keep_safe_names_and_clean_odd_ones():
    assert slug("cog_wcst_direct") == "cog_wcst_direct" and safe_stem("cog_wcst_direct") == "cog_wcst_direct"
    assert slug("a b/c?") == "a_b_c" and safe_stem("a b/c?") == "a_b_c"
    assert slug("._x_.") == "x" and safe_stem("._x_.") == "._x_."
    assert slug("Xy_X") == "Xy_X" and safe_stem("X.y_X") == "X.y_X"
    assert slug("") == "task" and slug("...") == "task" and safe_stem("__") == "task"
    assert slug("x" * MAX_STEM) == "x" * MAX_STEM
    long = "x" * (MAX_STEM + 1)
    assert slug(long) == "x" * (MAX_STEM - 9) + "-" + digest(long) and len(slug(long)) == MAX_STEM
    assert safe_stem(long) == slug(long)
    assert digest("a") == "ca978112" and digest("a", 16) == "ca978112ca1bbdca"
    assert len(digest("\udcff")) == 8  # a lone surrogate from JSON hashes too


def test_unique_slugs_hash_only_the_names_that_collide():
    slugs = unique_slugs(["cog_wcst_direct?", "cog_wcst_direct", "mmlu"])
    assert slugs == {
        "cog_wcst_direct": "cog_wcst_direct",
        "cog_wcst_direct?": f"cog_wcst_direct-{digest('cog_wcst_direct?')}",
        "mmlu": "mmlu",
    }
    assert unique_slugs(["b?", "b!"]) == {"b!": "b", "b?": f"b-{digest('b?')}"}  # none is its own slug: first wins
    cased = unique_slugs(["Task", "task"])
    assert cased == {"Task": "Task", "task": f"task-{digest('task')}"}
    assert unique_slugs([]) == {}


def test_unique_slugs_hash_every_name_in_full_when_both_widths_meet_plain_names():
    names = ["a", "a!", f"a-{digest('a!')}", f"a-{digest('a!', 16)}"]
    assert unique_slugs(names) == {n: f"{slug(n)[:15]}-{digest(n, 64)}" for n in names}


def test_unique_slugs_widen_the_hash_when_a_hash_meets_a_plain_name():
    clash = f"a-{digest('a!')}"  # a name that is exactly what "a!" would be hashed to
    slugs = unique_slugs(["a", "a!", clash])
    assert slugs["a"] == "a" and slugs[clash] == clash and slugs["a!"] == f"a-{digest('a!', 16)}"


# ---------------------------------------------------------------- CSV


@pytest.mark.parametrize(
    "text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "\nx", "\uff1dx", "\uff0bx", "\uff0dx", "\uff20x"]
)
def test_text_cells_that_would_start_a_formula_get_a_quote(text):
    assert text_cell(text) == "'" + text


def test_other_text_and_numbers_stay_as_they_are():
    assert text_cell("model") == "model" and text_cell("") == "" and text_cell("a=1") == "a=1"
    assert number_cell(-0.25) == "-0.25" and number_cell(0.1) == "0.1" and number_cell(3) == "3"
    assert number_cell(None) == "" and number_cell(math.nan) == "" and number_cell(-math.inf) == ""
    assert number_cell(1e308) == "1e+308"
    assert number_cell(Fraction(1, 3)) == "0.3333333333333333"  # any other real: its float, in full
    assert number_cell(np.float32(0.1)) == "0.10000000149011612" and number_cell(np.int64(7)) == "7"
    assert cell(-2) == "-2" and cell(None) == "" and cell(-0.5) == "-0.5"
    assert cell(True) == "True" and cell("-x") == "'-x"


def test_csv_text_quotes_rows_with_a_carriage_return():
    assert csv_text([["a", 1.5, None], ["-b", -1, "c,d"]]) == "a,1.5,\n'-b,-1,\"c,d\"\n"
    assert csv_text([["x\ry", 2]]) == '"x\ry","2"\n'


# ---------------------------------------------------------------- Markdown


def test_md_escapes_what_starts_markup_and_folds_line_breaks():
    assert md("<script>") == r"\<script\>"
    assert md("a|b`c`[d](e)&f*g\\h") == r"a\|b\`c\`\[d\](e)\&f\*g\\h"
    assert md("a\nb\r\nc\rd") == "a b c d"
    assert md("cog_wcst_direct 0.5 (x) #1 _y_") == "cog_wcst_direct 0.5 (x) #1 _y_"
    assert md(3) == "3"
    assert md(Md("[x](y)")) == "[x](y)" and isinstance(md(Md("a")), Md)


def test_markdown_tables_escape_cells_and_keep_trusted_ones():
    rows = [["<i>", 0.123456], [Md("[l](p)"), None], [Markup("<b>x&amp;y</b>"), Num(2.0, "2 ± 1")]]
    text = table(["a|b", "n"], rows)
    assert text.splitlines() == [
        r"| a\|b | n |",
        "|---|---|",
        r"| \<i\> | 0.1235 |",
        "| [l](p) | — |",
        r"| x\&y | 2 ± 1 |",
    ]


# ---------------------------------------------------------------- writing files


def test_links_on_the_way_sees_the_file_and_its_folders_below_the_root(tmp_path):
    root = tmp_path / "out"
    (root / "sub").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "linked").symlink_to(elsewhere, target_is_directory=True)
    (root / "file.txt").symlink_to(tmp_path / "victim")
    assert links_on_the_way(root / "sub" / "a.txt", root) == []
    assert links_on_the_way(root / "linked" / "a.txt", root) == [root / "linked"]
    assert links_on_the_way(root / "file.txt", root) == [root / "file.txt"]
    assert links_on_the_way(root, root) == []
    (tmp_path / "alias").symlink_to(root, target_is_directory=True)
    # The root itself may be a link (the user's choice).
    assert links_on_the_way(tmp_path / "alias" / "sub" / "a.txt", tmp_path / "alias") == []
    with pytest.raises(ReportInputError, match="is a symbolic link .to .*elsewhere., which would be written through"):
        refuse_links(root / "linked" / "a.txt", root)


def test_write_bytes_replaces_files_and_refuses_links(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep", encoding="utf-8")
    out = tmp_path / "out"
    write_bytes(out / "new" / "a.bin", b"\x00\x01")  # folders made as needed
    assert (out / "new" / "a.bin").read_bytes() == b"\x00\x01"
    os.link(victim, out / "hard.txt")
    write_text(out / "hard.txt", "new")
    assert victim.read_text(encoding="utf-8") == "keep" and (out / "hard.txt").read_text(encoding="utf-8") == "new"
    (out / "soft.txt").symlink_to(victim)
    with pytest.raises(ReportInputError, match="soft.txt is a symbolic link"):
        write_text(out / "soft.txt", "x")
    (out / "dir").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(ReportInputError, match="dir is a symbolic link"):
        write_text(out / "dir" / "a.txt", "x", root=out)
    assert victim.read_text(encoding="utf-8") == "keep" and not (tmp_path / "elsewhere").exists()


def test_written_files_get_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(umask)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


def test_write_text_writes_utf8_and_escapes_lone_surrogates(tmp_path):
    write_text(tmp_path / "a.txt", "é\udcff\r\n")
    assert (tmp_path / "a.txt").read_bytes() == "é\\udcff\r\n".encode()


# ---------------------------------------------------------------- reading results and samples


def test_impossible_metrics_become_nan_and_are_flagged(tmp_path):
    row = {"acc,none": 1.5, "acc_stderr,none": -0.1, "acc_norm,none": 0.5, "acc_norm_stderr,none": 0.05,
           "delta,none": -3.0, "delta_stderr,none": math.inf, "score,none": 101.0, "f1,none": math.inf,
           "exact_match,none": math.nan, "exact_match_stderr,none": 2.0}
    write_results(tmp_path, {"cog_wcst_direct": row})
    result = load_run(tmp_path).tasks["cog_wcst_direct"]
    assert math.isnan(result.metrics["acc,none"]) and math.isnan(result.metrics["score,none"])
    assert math.isnan(result.metrics["f1,none"]) and math.isnan(result.metrics["exact_match,none"])
    assert result.metrics["delta,none"] == -3.0 and result.metrics["acc_norm,none"] == 0.5
    assert result.stderrs == {"acc_norm,none": 0.05}
    assert result.out_of_range == {
        "acc,none": Flag(1.5, (0.0, 1.0)),
        "score,none": Flag(101.0, (0.0, 100.0)),
        "f1,none": Flag(math.inf, None),
        "acc_stderr,none": Flag(-0.1, (0.0, 1.0)),
        "delta_stderr,none": Flag(math.inf, (0.0, math.inf)),
        "exact_match_stderr,none": Flag(2.0, (0.0, 1.0)),
    }


def test_a_flagged_metric_drops_its_stderr_too(tmp_path):
    write_results(tmp_path, {"t": {"acc,none": 2.0, "acc_stderr,none": 0.1}})
    result = load_run(tmp_path).tasks["t"]
    assert result.stderrs == {} and list(result.out_of_range) == ["acc,none"]


def test_null_entries_are_what_lm_eval_writes_for_nothing(tmp_path):
    path = write_results(tmp_path, {"t": {"acc,none": 0.5}, "g": {"acc,none": 0.5}}, groups={"g": {"acc,none": 0.5}})
    data = json.loads(path.read_text())
    data["n-samples"] = {"t": {"original": None, "effective": 3.0, "other": "x"}, "g": None}
    data["higher_is_better"] = {"t": {"acc": None, "x": True}, "g": None}
    data["configs"] = {"t": None}
    data["versions"] = {"t": None, "g": 2}
    data["config"]["model_args"] = None
    path.write_text(json.dumps(data))
    run = load_run(tmp_path)
    assert run.tasks["t"].n_samples == 3 and run.tasks["g"].n_samples is None
    assert run.tasks["t"].higher_is_better == {"x": True} and run.tasks["t"].version is None
    assert run.tasks["g"].version == "2" and run.model_args == ""


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(results=[]), "has no 'results'"),
        (lambda d: d.update(config={"model": ""}), "has no 'config.model'"),
        (lambda d: d.update(groups=[]), "'groups' is not an object"),
        (lambda d: d["results"].update(t=[1]), "results['t'] is not an object: [1]"),
        (lambda d: d.update(configs={"t": 3}), "configs['t'] is not an object: 3"),
        (lambda d: d.update(versions={"t": [1]}), "versions['t'] is not a version: [1]"),
        (lambda d: d.update(group_subtasks={"g": "t"}), "group_subtasks['g'] is not a list of names: 't'"),
        (lambda d: d.update(higher_is_better={"t": {"acc": 1}}), "higher_is_better['t']['acc'] is not true/false: 1"),
        (lambda d: d.update({"n-samples": {"t": {"original": -1}}}), "n-samples['t']['original'] is not a sample"),
        (lambda d: d.update({"n-samples": {"t": 4}}), "n-samples['t'] is not an object: 4"),
        (lambda d: d["config"].update(model_args=["a"]), "config['model_args'] is neither text nor an object: ['a']"),
    ],
)
def test_each_malformed_field_is_named(tmp_path, edit, message):
    path = write_results(tmp_path, {"t": {"acc,none": 0.5}})
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(ReportInputError) as info:
        load_runs([tmp_path])
    assert str(info.value).startswith(f"not an lm-eval results file: {path}") and message in str(info.value)


def test_dates_order_files_and_a_nan_date_counts_as_none(tmp_path):
    write_results(tmp_path / "a", {"t": {"acc,none": 0.1}}, stamp="2025-01-02T00-00-00.0", date=math.nan)
    write_results(tmp_path / "b", {"t": {"acc,none": 0.2}}, stamp="2025-01-01T00-00-00.0", date=1.0)
    assert load_run(tmp_path).tasks["t"].metrics["acc,none"] == 0.2  # a real date beats none


def sample_line(**fields: object) -> str:
    return json.dumps({"doc_id": 0, "resps": [["a"]], "filtered_resps": ["a"], **fields}) + "\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{oops\n", "corrupt sample: not valid JSON"),
        ("[1]\n", "a sample is not a JSON object"),
        (sample_line(resps={"0": 1}), "resps is not a list: {'0': 1}"),
        (sample_line(filtered_resps="a"), "filtered_resps is not a list: 'a'"),
        (sample_line(arguments="a"), "arguments is not a list or dict: 'a'"),
        (sample_line(metrics="acc"), "metrics is not a list of names: 'acc'"),
        (sample_line(acc=10**400), "acc is a number too large for a float"),
        (sample_line(resps=[[json.dumps({"paradigm": "wcst", "turns": {}})]]), "resps[0][0]['turns'] is not a list"),
        (sample_line(resps=[[{"paradigm": "wcst", "trials": "x"}]]), "resps[0][0]['trials'] is not a list: 'x'"),
        (
            sample_line(resps=[[json.dumps({"paradigm": "igt", "params": {"gains": [10**400]}})]]),
            "resps[0][0]['params']['gains'][0] is a number too large",
        ),
    ],
)
def test_a_malformed_sample_is_named_by_line_and_field(tmp_path, line, message):
    path = tmp_path / "samples_t_x.jsonl"
    path.write_text(sample_line() + "\n" + line, encoding="utf-8")  # a blank line is skipped, still counted
    with pytest.raises(ReportInputError) as info:
        read_samples_file(path)
    assert str(info.value).startswith(f"{path}, line 3: {message}")


def test_well_formed_samples_with_nulls_are_read(tmp_path):
    path = tmp_path / "samples_t_x.jsonl"
    lines = [
        sample_line(arguments={"a": 1}, metrics=["acc"]),
        sample_line(resps=None, filtered_resps=None, metrics=None, arguments=[1]),
        sample_line(resps=[[json.dumps({"paradigm": "wcst", "trials": None, "turns": []})]]),
    ]
    path.write_text("".join(lines), encoding="utf-8")
    assert len(read_samples_file(path)) == 3


def test_transcript_in_reads_only_transcripts():
    transcript = {"paradigm": "wcst", "trials": []}
    assert transcript_in({"resps": [[json.dumps(transcript)]]}) == transcript
    assert transcript_in({"resps": [["  " + json.dumps(transcript)]]}) == transcript
    assert transcript_in({"resps": [[transcript]]}) == transcript
    assert transcript_in({"resps": [[json.dumps({"trials": []})]]}) is None  # no paradigm
    assert transcript_in({"resps": [["{not json"]]}) is None
    assert transcript_in({"resps": [["{" * 100_000]]}) is None
    assert transcript_in({"resps": [["{\"a\": " + "[" * 100_000 + "]" * 100_000 + "}"]]}) is None
    assert transcript_in({"resps": [["plain reply"]]}) is None
    assert transcript_in({"resps": [["[1]"]]}) is None
    for sample in ({}, {"resps": []}, {"resps": [[]]}, {"resps": 5}, {"resps": [5]}):
        assert transcript_in(sample) is None


def test_linked_from_outside(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "out.json").write_text("{}")
    (tmp_path / "in" / "inside.json").write_text("{}")
    (tmp_path / "in" / "link.json").symlink_to(tmp_path / "out.json")
    (tmp_path / "in" / "near.json").symlink_to(tmp_path / "in" / "inside.json")
    assert linked_from_outside(tmp_path / "in" / "inside.json", tmp_path / "in") is None
    assert linked_from_outside(tmp_path / "in" / "near.json", tmp_path / "in") is None
    assert linked_from_outside(tmp_path / "in" / "link.json", tmp_path / "in") == (
        f"{tmp_path / 'in' / 'link.json'} is a link to {(tmp_path / 'out.json').resolve()}, "
        f"outside the input folder {tmp_path / 'in'}: read anyway"
    )
    assert linked_from_outside(tmp_path / "in", tmp_path / "in") is None


def test_odd_task_names_find_no_samples_file_elsewhere(tmp_path):
    write_results(tmp_path / "m", {"../x": {"acc,none": 0.5}, "y" * 300: {"acc,none": 0.5}, "a\\b": {"acc,none": 0.5}})
    (tmp_path / "samples_.._x_2025-01-01T00-00-00.000001.jsonl").write_text("{}\n")
    (tmp_path / "m" / "samples_..").mkdir()
    (tmp_path / "m" / "samples_.." / "x_2025-01-01T00-00-00.000001.jsonl").write_text("{}\n")
    assert load_run(tmp_path / "m").samples == {}
    # A backslash separates nothing here (only on Windows): such a task's samples file is its own.
    (tmp_path / "m" / "samples_a\\b_2025-01-01T00-00-00.000001.jsonl").write_text("{}\n")
    assert list(load_run(tmp_path / "m").samples) == (["a\\b"] if os.sep == "/" else [])


# ---------------------------------------------------------------- runs: loading, merging, naming


STAMP = "2025-01-01T00-00-00.000001"


def test_results_that_are_null_or_malformed_where_lm_eval_writes_objects(tmp_path):
    for edit, message in (
        (lambda d: d["results"].update(t=None), "results['t'] is not an object: None"),
        (lambda d: d.update(groups={"g": None}), "groups['g'] is not an object: None"),
        (lambda d: d.update(higher_is_better={"t": [1]}), "higher_is_better['t'] is not an object: [1]"),
        (lambda d: d.update({"n-samples": {"t": {"effective": -1}}}), "n-samples['t']['effective'] is not a sample"),
        (lambda d: d["results"]["t"].update({"acc,none": 10**400}), "results['t']['acc,none'] is a number too large"),
    ):
        path = write_results(tmp_path / "m", {"t": {"acc,none": 0.5}})
        data = json.loads(path.read_text())
        edit(data)
        path.write_text(json.dumps(data))
        with pytest.raises(ReportInputError) as info:
            load_runs([tmp_path / "m"])
        assert str(info.value).startswith(f"not an lm-eval results file: {path}: {message}")


def test_unreadable_files_are_named(tmp_path):
    path = write_results(tmp_path, {"t": {"acc,none": 0.5}}, samples={"t": [{"doc_id": 0}]})
    path.write_bytes(b'{"results": "\xff"}')
    with pytest.raises(ReportInputError, match=rf"^cannot read results file {re.escape(str(path))}: 'utf-8' codec"):
        load_runs([tmp_path])
    samples = tmp_path / f"samples_t_{STAMP}.jsonl"
    samples.write_bytes(b"\xff\n")
    with pytest.raises(ReportInputError, match=rf"^cannot read samples file {re.escape(str(samples))}: 'utf-8'"):
        read_samples_file(samples)
    with pytest.raises(ReportInputError, match=rf"^no such file or folder: {re.escape(str(tmp_path / 'nope'))}$"):
        load_runs([tmp_path / "nope"])


def test_a_group_row_in_both_places_keeps_every_metric(tmp_path):
    # Older runs put a group's row in "results" too; "groups" wins where both have a metric.
    results = {"t": {"acc,none": 0.5}, "g": {"acc,none": 0.1, "extra,none": 0.3}}
    write_results(tmp_path, results, groups={"g": {"acc,none": 0.25}}, group_subtasks={"g": ["t"]})
    assert load_run(tmp_path).tasks["g"].metrics == {"acc,none": 0.25, "extra,none": 0.3}


def test_a_file_under_another_name_sorts_before_stamped_ones_of_the_same_date(tmp_path):
    write_results(tmp_path / "a", {"t": {"acc,none": 0.1}}, date=5.0).rename(tmp_path / "a" / "zz.json")
    write_results(tmp_path / "b", {"t": {"acc,none": 0.2}}, date=5.0)
    runs = load_runs([tmp_path / "a" / "zz.json", tmp_path / "b"])
    assert runs[0].tasks["t"].metrics["acc,none"] == 0.2  # the stamped file is the later one


def test_a_group_reported_only_under_groups_is_read(tmp_path):
    write_results(tmp_path, {"t": {"acc,none": 0.5}}, groups={"g": {"acc,none": 0.25}}, group_subtasks={"g": ["t"]})
    run = load_run(tmp_path)
    assert run.tasks["g"].metrics == {"acc,none": 0.25} and run.tasks["g"].is_group
    assert run.tasks["t"].metrics == {"acc,none": 0.5} and not run.tasks["t"].is_group


def test_a_metric_key_with_two_commas_splits_at_the_first(tmp_path):
    write_results(tmp_path, {"t": {"acc,a,b": 1.5, "acc_stderr,a,b": 0.1, "f,x,y": 0.5, "f_stderr,x,y": 1.5}})
    result = load_run(tmp_path).tasks["t"]
    assert list(result.out_of_range) == ["acc,a,b"]  # acc's range, whatever the filter holds
    assert result.stderrs == {"f,x,y": 1.5} and result.metrics["f,x,y"] == 0.5
    write_results(tmp_path, {"t": {"acc,a,b": 0.5, "acc_stderr,a,b": 1.5}})
    assert list(load_run(tmp_path).tasks["t"].out_of_range) == ["acc_stderr,a,b"]


def test_the_paradigm_from_the_config_sets_the_range_of_score(tmp_path):
    configs = {"mytask": {"task": "mytask", "metadata": {"paradigm": "wcst"}}}
    write_results(tmp_path, {"mytask": {"score,none": 150.0, "score_stderr,none": 101.0}}, configs=configs)
    result = load_run(tmp_path).tasks["mytask"]
    assert result.task == "mytask" and result.config == configs["mytask"]
    span = (0.0, 100.0)
    assert result.out_of_range == {"score,none": Flag(150.0, span), "score_stderr,none": Flag(101.0, span)}
    write_results(tmp_path, {"mytask": {"score,none": 50.0, "score_stderr,none": 101.0}}, configs=configs)
    assert list(load_run(tmp_path).tasks["mytask"].out_of_range) == ["score_stderr,none"]


def test_later_stamps_win_ties_of_date_then_paths(tmp_path):
    write_results(tmp_path / "a", {"t": {"acc,none": 0.2}}, stamp="2025-02-01T00-00-00.0", date=5.0)
    write_results(tmp_path / "b", {"t": {"acc,none": 0.1}}, stamp="2025-01-01T00-00-00.0", date=5.0)
    assert load_run(tmp_path).tasks["t"].metrics["acc,none"] == 0.2  # a/ sorts first, but its stamp is later
    write_results(tmp_path / "c", {"u": {"acc,none": 0.3}}, stamp="x", date=1.0)
    write_results(tmp_path / "d", {"u": {"acc,none": 0.4}}, stamp="x", date=1.0)
    runs = load_runs([tmp_path / "d", tmp_path / "c"])  # same date and stamp: the later path wins
    assert runs[0].tasks["u"].metrics["acc,none"] == 0.4


def test_a_results_file_under_another_name_is_read(tmp_path):
    path = write_results(tmp_path, {"t": {"acc,none": 0.5}}, samples={"t": [{"doc_id": 0}]})
    named = path.rename(tmp_path / "my_results.json")
    run = load_run(named)
    assert run.tasks["t"].metrics == {"acc,none": 0.5} and run.samples == {}


def test_run_identity_version_and_duplicates(tmp_path):
    path = write_results(tmp_path / "m", {"t": {"acc,none": 0.5}}, model="hf", version="0.4.13")
    write_results(tmp_path / "m" / "sub", {"u": {"acc,none": 0.5}}, model="vllm", stamp="2025-01-02T00-00-00.0")
    runs = load_runs([path, tmp_path / "m"])  # the file again, then the other model after it
    assert [(r.model, r.results_paths, r.lm_eval_version) for r in runs] == [
        ("hf", (path,), "0.4.13"),
        ("vllm", (tmp_path / "m" / "sub" / "results_2025-01-02T00-00-00.0.json",), "0.4.13"),
    ]
    data = json.loads(path.read_text())
    del data["lm_eval_version"]
    path.write_text(json.dumps(data))
    assert load_run(path).lm_eval_version is None


def test_label_errors_name_the_models_and_inputs(tmp_path):
    write_results(tmp_path / "two" / "a", {"t": {"acc,none": 0.5}}, model_args="pretrained=a")
    write_results(tmp_path / "two" / "b", {"t": {"acc,none": 0.5}}, model_args="pretrained=b")
    with pytest.raises(ReportInputError) as info:
        load_runs([tmp_path / "two"], labels=["x"])
    assert str(info.value) == (
        f"label 'x' given for {tmp_path / 'two'}, which holds several models: hf(pretrained=a); hf(pretrained=b)"
    )
    with pytest.raises(ReportInputError) as info:
        load_run(tmp_path / "two")
    assert str(info.value) == (
        f"{tmp_path / 'two'} holds 2 models, expected one: a [hf(pretrained=a)]; b [hf(pretrained=b)]"
    )
    with pytest.raises(ReportInputError, match=r"^2 labels for 1 inputs$"):
        load_runs([tmp_path / "two"], labels=["x", "y"])
    assert load_run(tmp_path / "two" / "a", "mine").label == "mine"


def test_one_label_for_runs_of_one_arguments_names_the_backend_that_differs(tmp_path):
    for model in ("hf", "vllm", "sglang"):
        write_results(tmp_path / model, {"t": {"acc,none": 0.5}}, model=model, model_args="pretrained=a")
    runs = load_runs([tmp_path / m for m in ("hf", "vllm", "sglang")], labels=["x", "x", "x"])
    assert [r.label for r in runs] == ["x (hf)", "x (vllm)", "x (sglang)"]
    runs = load_runs([tmp_path / "hf"], labels=["solo"])
    assert [r.label for r in runs] == ["solo"]


@pytest.mark.parametrize(
    ("args", "canonical"),
    [
        ("b=1,,a=2", "a=2,b=1"),
        ("x=a=b,x0=1", "x=a=b,x0=1"),  # split at the first "=": the key is x
        ({"x": {"a": 1}, "y": [1, "z"], "z": True, "w": "s"}, 'w=s,x={"a": 1},y=[1, "z"],z=True'),
        ("", ""),
        (None, ""),
    ],
)
def test_canonical_model_args(args, canonical):
    from lm_eval_cog.reports.runs import canonical_model_args

    assert canonical_model_args(args) == canonical


@pytest.mark.parametrize(
    ("args", "label"),
    [
        ("pretrained=org/m=x", "m=x"),
        ("pretrained=org/MX/", "MX"),
        ("path=/a/b/c", "c"),
        ("dtype=float16", "hf(dtype=float16)"),
    ],
)
def test_default_label(args, label):
    from lm_eval_cog.reports.runs import default_label

    assert default_label("hf", args) == label


def test_link_warnings_follow_the_input_folder(tmp_path):
    """Links are judged against the folder the user named, not the folder a file sits in."""
    store = tmp_path / "in" / "store"
    store.mkdir(parents=True)
    path = write_results(tmp_path / "in" / "sub", {"t": {"acc,none": 0.5}})
    (store / "kept.jsonl").write_text("{}\n")
    (tmp_path / "in" / "sub" / f"samples_t_{STAMP}.jsonl").symlink_to(store / "kept.jsonl")
    assert load_run(tmp_path / "in").warnings == ()  # inside in/, though outside in/sub/
    (tmp_path / "outside.jsonl").write_text("{}\n")
    (tmp_path / "in" / "sub" / f"samples_t_{STAMP}.jsonl").unlink()
    (tmp_path / "in" / "sub" / f"samples_t_{STAMP}.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (warning,) = load_run(tmp_path / "in" / "sub").warnings
    assert warning.startswith(f"{tmp_path / 'in' / 'sub' / f'samples_t_{STAMP}.jsonl'} is a link to")
    assert load_run(path).warnings == (warning,)  # a named results file: its samples still count
    (tmp_path / "links").mkdir()
    linked = tmp_path / "links" / path.name
    linked.symlink_to(path)
    assert load_run(linked).warnings == ()  # named: chosen, not found
    (warning,) = load_run(tmp_path / "links").warnings  # found in a folder: said
    assert warning.startswith(f"{linked} is a link to {path.resolve()}, outside the input folder {tmp_path / 'links'}")


# ---------------------------------------------------------------- leaderboard: impossible values and CSV


def stroop(acc: float) -> dict:
    return {"cog_stroop_mc": {"acc,none": acc, "acc_stderr,none": 0.1, "acc_chance,none": 0.25}}


PROBE_CONFIG = {"cog_stroop_mc": {"task": "cog_stroop_mc", "metadata": {"probe": "stroop"}}}


def models(tmp_path, **accs: float) -> list:
    for name, acc in accs.items():
        write_results(tmp_path / name, stroop(acc), model_args=f"pretrained=o/{name}", configs=PROBE_CONFIG)
    return load_runs([tmp_path / name for name in accs])


def test_impossible_headline_values_are_named_in_one_note_and_ranked_last(tmp_path):
    from lm_eval_cog.reports.leaderboard import build_leaderboard, impossible_notes, impossible_values

    runs = models(tmp_path, a=0.5, bad=1.5, worse=math.inf, b=0.75)
    lb = build_leaderboard(runs)
    assert lb.models == ["b", "a", "bad", "worse"]
    assert math.isnan(lb.overall["bad"]) and math.isnan(lb.raw["bad"]["cog_stroop_mc"])
    note = (
        "Impossible values (outside the metric's range, or infinite) treated as undefined and left out of the "
        "scores and the ranking: bad: cog_stroop_mc acc,none = 1.5 (possible: [0, 1]); "
        "worse: cog_stroop_mc acc,none = inf (possible: [0, 1])"
    )
    assert note in lb.notes and not any(n.startswith("Undefined (NaN)") for n in lb.notes)
    assert impossible_notes(runs, {"cog_stroop_mc": "acc,none"}) == [note]
    assert impossible_notes(runs, {"cog_stroop_mc": "acc_chance,none"}) == []
    assert impossible_notes(runs[:1], {"cog_stroop_mc": "acc,none"}) == []
    assert impossible_values(runs[1]) == [
        "cog_stroop_mc: acc,none = 1.5 (possible: [0, 1]) is impossible: "
        "treated as undefined, left out of scores, profile and rankings"
    ]
    assert impossible_values(runs[0]) == []


def test_an_impossible_stderr_is_only_left_out(tmp_path):
    from lm_eval_cog.reports.leaderboard import build_leaderboard, impossible_values

    row = {"acc,none": 0.5, "acc_stderr,none": -1.0, "acc_chance,none": 0.25}
    write_results(tmp_path / "m", {"cog_stroop_mc": row}, configs=PROBE_CONFIG)
    (run,) = load_runs([tmp_path / "m"])
    assert impossible_values(run) == ["cog_stroop_mc: acc_stderr,none = -1 (possible: [0, 1]) is impossible: left out"]
    assert build_leaderboard([run]).overall == {run.label: pytest.approx(100 * 0.25 / 0.75)}


def test_a_nan_value_stays_undefined_not_impossible(tmp_path):
    from lm_eval_cog.reports.leaderboard import build_leaderboard

    lb = build_leaderboard(models(tmp_path, a=0.5, n=math.nan))
    assert "Undefined (NaN) values left out of the means: n: cog_stroop_mc" in lb.notes
    assert not any(n.startswith("Impossible") for n in lb.notes)


def test_comparison_inputs_leave_impossible_values_out_with_a_note(tmp_path):
    from lm_eval_cog.reports.leaderboard import comparison_inputs, comparison_matrix

    runs = models(tmp_path, a=0.5, bad=-0.5)
    for level in ("top", "tasks"):
        matrix, notes = comparison_inputs(runs, level=level)
        assert matrix == {"a": {"cog_stroop_mc": 0.5}, "bad": {}}
        assert comparison_matrix(runs, level=level) == matrix
        assert notes == [
            "Impossible values (outside the metric's range, or infinite) treated as undefined and left out of "
            "the scores and the ranking: bad: cog_stroop_mc acc,none = -0.5 (possible: [0, 1])"
        ]
    matrix, notes = comparison_inputs(runs, level="tasks", scores="normalised")
    assert matrix == {"a": {"cog_stroop_mc": pytest.approx(100 / 3)}, "bad": {}} and len(notes) == 1
    with pytest.raises(ValueError, match="level must be top|tasks"):
        comparison_inputs(runs, level="all")


def test_leaderboard_csv_escapes_names_and_keeps_numbers(tmp_path):
    from lm_eval_cog.reports.leaderboard import build_leaderboard, leaderboard_csv

    for name, acc in (("=cmd", 0.5), ("-x", 0.75)):
        write_results(tmp_path / name.strip("=-"), stroop(acc), model_args=f"pretrained=o/{name}", configs=PROBE_CONFIG)
    text = leaderboard_csv(build_leaderboard(load_runs([tmp_path / "cmd", tmp_path / "x"])))
    lines = text.splitlines()
    assert lines[0] == (
        "model,overall,ability:inhibitory control,normalised:cog_stroop_mc,\"raw:cog_stroop_mc (acc,none)\""
    )
    assert lines[1] == "'-x,66.66666666666667,66.66666666666667,66.66666666666667,0.75"
    assert lines[2] == "'=cmd,33.333333333333336,33.333333333333336,33.333333333333336,0.5"


def test_comparison_inputs_by_level_scores_and_metric(tmp_path):
    from lm_eval_cog.reports.leaderboard import comparison_inputs, comparison_matrix

    for name, acc, congruent in (("a", 0.5, 0.9), ("b", 0.75, 0.6)):
        rows = {"cog_stroop_mc": {**stroop(acc)["cog_stroop_mc"], "acc_congruent,none": congruent}}
        write_results(tmp_path / "grouped" / name, rows, model_args=f"pretrained=o/{name}", configs=PROBE_CONFIG,
                      groups={"g": {"acc,none": 0.1}}, group_subtasks={"g": ["cog_stroop_mc"]})
        write_results(tmp_path / "plain" / name, rows, model_args=f"pretrained=o/{name}", configs=PROBE_CONFIG)
    grouped = load_runs([tmp_path / "grouped" / n for n in "ab"])
    plain = load_runs([tmp_path / "plain" / n for n in "ab"])
    assert comparison_inputs(grouped) == ({"a": {"g": 0.1}, "b": {"g": 0.1}}, [])  # top: the group as a whole
    assert comparison_matrix(grouped, level="tasks") == {"a": {"cog_stroop_mc": 0.5}, "b": {"cog_stroop_mc": 0.75}}
    congruent = {"cog_stroop_mc": "acc_congruent"}
    by_congruent = {"a": {"cog_stroop_mc": 0.9}, "b": {"cog_stroop_mc": 0.6}}
    assert comparison_matrix(grouped, congruent, level="tasks") == by_congruent
    assert comparison_matrix(plain, congruent) == by_congruent
    normalised = comparison_matrix(plain, scores="normalised")
    assert normalised["a"] == {"cog_stroop_mc": pytest.approx(100 / 3)}
    assert normalised["b"] == {"cog_stroop_mc": pytest.approx(200 / 3)}
    with pytest.raises(ReportInputError, match="--metric names unknown task"):
        comparison_inputs(plain, {"nope": "acc"})


def test_a_model_with_several_impossible_values_gets_them_in_one_entry(tmp_path):
    from lm_eval_cog.reports.leaderboard import impossible_notes

    write_results(tmp_path / "m", {"t1": {"acc,none": 2.0}, "t2": {"acc,none": -1.0}}, model_args="pretrained=o/m")
    write_results(tmp_path / "n", {"t1": {"acc,none": 3.0}}, model_args="pretrained=o/n")
    runs = load_runs([tmp_path / "m", tmp_path / "n"])
    assert impossible_notes(runs, {"t1": "acc,none", "t2": "acc,none"}) == [
        "Impossible values (outside the metric's range, or infinite) treated as undefined and left out of the "
        "scores and the ranking: m: t1 acc,none = 2 (possible: [0, 1]); t2 acc,none = -1 (possible: [0, 1]); "
        "n: t1 acc,none = 3 (possible: [0, 1])"
    ]


def test_write_leaderboard_refuses_a_link_in_the_output_folder(tmp_path):
    from lm_eval_cog.reports.leaderboard import build_leaderboard, write_leaderboard

    runs = models(tmp_path / "in", a=0.5)
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "victim").write_text("keep", encoding="utf-8")
    (out / "leaderboard.json").symlink_to(tmp_path / "victim")
    with pytest.raises(ReportInputError, match="leaderboard.json is a symbolic link"):
        write_leaderboard(build_leaderboard(runs), out)
    assert (tmp_path / "victim").read_text(encoding="utf-8") == "keep"


def test_one_model_at_three_max_lengths_is_three_runs_labelled_by_what_differs(tmp_path):
    """The same checkpoint with another max_length is another run (turns may be dropped, so scores can
    differ): one row each, labelled by the argument that differs, not by the 110-character argument string."""
    path = "/root/.cache/lm_eval_cog/converted-weights/smollm2-135m-instruct"
    for name, extra in (("a", ",max_length=1024"), ("b", ",max_length=2048"), ("c", "")):
        write_results(tmp_path / name, {"t": {"acc,none": 0.5}},
                      model_args=f"pretrained={path},dtype=float32,trust_remote_code=True{extra}")  # fmt: skip
    runs = load_runs([tmp_path / n for n in "abc"])
    assert [r.label for r in runs] == ["smollm2-135m-instruct (max_length=1024)",
                                      "smollm2-135m-instruct (max_length=2048)",
                                      "smollm2-135m-instruct (no max_length)"]  # fmt: skip


def test_a_long_differing_path_is_shown_by_its_last_two_parts(tmp_path):
    for org in ("org-a", "org-b"):
        write_results(tmp_path / org, {"t": {"acc,none": 0.5}},
                      model_args=f"pretrained=/very/long/shared/storage/checkpoints/{org}/model-v1")  # fmt: skip
    runs = load_runs([tmp_path / "org-a", tmp_path / "org-b"])
    assert [r.label for r in runs] == ["model-v1 (pretrained=…/org-a/model-v1)", "model-v1 (pretrained=…/org-b/model-v1)"]
