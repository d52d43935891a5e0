"""The self-contained page: escaping, no external resources, sortable tables, embedded figures, safe writes."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lm_eval_cog.reports.errors import ReportInputError
from lm_eval_cog.reports.html import (
    Markup,
    Num,
    check_output_dir,
    figure,
    fmt,
    page,
    table,
    warnings_box,
    write_new,
)
from lm_eval_cog.reports.plotting import new_figure, save_figure


class Tags(HTMLParser):
    """Every start tag with its attributes, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(text: str) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(text)
    parser.close()
    return parser.tags


# ---------------------------------------------------------------- table


def test_table_escapes_every_text_cell_and_header():
    out = table(["<b>metric</b>"], [["<script>alert(1)</script>"], ["a & b"]])
    assert "<script>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "&lt;b&gt;metric&lt;/b&gt;" in out
    assert "a &amp; b" in out


def test_markup_cells_go_in_unescaped():
    out = table(["link"], [[Markup('<a href="episodes/x.html">x</a>')]])
    assert '<td><a href="episodes/x.html">x</a></td>' in out


def test_numeric_cells_carry_data_value_and_text_cells_do_not():
    out = table(["task", "value"], [["t1", 0.123456], ["t2", 3]])
    # 0.123456 shown with 4 significant digits -> 0.1235; the sort key keeps full precision.
    assert '<td class="num" data-value="0.123456">0.1235</td>' in out
    assert '<td class="num" data-value="3.0">3</td>' in out
    assert "<td>t1</td>" in out


def test_nan_none_and_bool_cells_have_no_sort_value():
    out = table(["a", "b", "c"], [[float("nan"), None, True]])
    cells = [attrs for tag, attrs in tags_of(out) if tag == "td"]
    assert [c.get("data-value") for c in cells] == [None, None, None]
    assert '<td class="missing">—</td>' in out  # NaN shows as a dash, sorted last
    assert "<td>True</td>" in out


def test_num_cell_sorts_by_value_and_shows_its_text_escaped():
    out = table(["v"], [[Num(0.25, "0.25 ± <0.02>")]])
    assert '<td class="num" data-value="0.25">0.25 ± &lt;0.02&gt;</td>' in out


def first_table(out: str) -> dict:
    return next(attrs for tag, attrs in tags_of(out) if tag == "table")


def test_sortable_is_the_default_and_can_be_turned_off():
    assert first_table(table(["a"], [[1]])) == {"class": "sortable"}
    assert first_table(table(["a"], [[1]], sortable=False, classes="wide")) == {"class": "wide"}
    assert first_table(table(["a"], [[1]], sortable=False)) == {}


def test_a_wide_table_scrolls_in_its_own_box():
    assert tags_of(table(["a"], [[1]]))[0] == ("div", {"class": "table-wrap"})


def test_fmt_gives_four_significant_digits_and_a_dash_for_missing():
    assert fmt(52.88461538) == "52.88"
    assert fmt(0.0591626) == "0.05916"
    assert fmt(float("inf")) == "—"
    assert fmt(None) == "—"
    assert fmt(7) == "7"


# ---------------------------------------------------------------- page


def test_page_is_a_complete_document_with_escaped_title():
    doc = page("Report <model>", "<p>hi</p>")
    assert doc.startswith("<!DOCTYPE html>")
    assert "<title>Report &lt;model&gt;</title>" in doc
    assert "<h1>Report &lt;model&gt;</h1>" in doc
    assert doc.rstrip().endswith("</html>")
    assert "<style>" in doc and "<script>" in doc


def test_page_loads_nothing_from_outside():
    doc = page("t", table(["a"], [[1]]))
    for tag, attrs in tags_of(doc):
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            assert not value.startswith(("http://", "https://", "//")), (tag, attrs)
        assert not (tag == "script" and "src" in attrs)
        assert tag != "link"
    assert "http://" not in doc and "https://" not in doc
    assert "@import" not in doc and "url(" not in doc


def test_page_styles_the_trial_classes_and_episode_details():
    doc = page("t", "")
    for selector in (
        ".trial-right",
        ".trial-wrong",
        ".trial-invalid",
        "details.episode",
        "table.sortable",
        "@media print",
    ):
        assert selector in doc


def test_page_script_sorts_tables_by_data_value():
    doc = page("t", "")
    assert "table.sortable" in doc and "data-value" in doc and "addEventListener('click'" in doc


def test_warnings_box_escapes_and_is_empty_without_warnings():
    assert warnings_box([]) == ""
    out = warnings_box(["<x> failed"])
    assert "&lt;x&gt; failed" in out and 'role="alert"' in out


# ---------------------------------------------------------------- figure


@pytest.fixture()
def saved_figure(tmp_path):
    fig, ax = new_figure(2, 2)
    ax.plot([0, 1], [0, 1])
    return save_figure(fig, tmp_path / "out" / "figures", "line", "A <line>", "caption & more")


def test_figure_embeds_the_png_and_links_the_svg_relatively(saved_figure):
    out = figure(saved_figure)
    tags = tags_of(out)
    img = next(attrs for tag, attrs in tags if tag == "img")
    assert img["src"].startswith("data:image/png;base64,")
    assert base64.b64decode(img["src"].split(",", 1)[1]) == saved_figure.png.read_bytes()
    assert img["alt"] == "A <line>"  # the parser unescapes: the raw text held &lt;line&gt;
    link = next(attrs for tag, attrs in tags if tag == "a")
    assert link["href"] == "figures/line.svg"
    assert "caption &amp; more" in out


def test_figure_link_is_relative_to_the_page_folder(saved_figure, tmp_path):
    out = figure(saved_figure, page_dir=tmp_path / "out" / "episodes")
    assert 'href="../figures/line.svg"' in out


# ---------------------------------------------------------------- write_new / check_output_dir


def lm_eval_folder(root: Path) -> Path:
    folder = root / "lm_out" / "model"
    folder.mkdir(parents=True)
    (folder / "results_2025-01-01T00-00-00.json").write_text("{}")
    (folder / "samples_t_2025-01-01T00-00-00.jsonl").write_text("")
    return folder


def test_write_new_refuses_an_input_file(tmp_path):
    folder = lm_eval_folder(tmp_path)
    results = folder / "results_2025-01-01T00-00-00.json"
    with pytest.raises(ReportInputError, match="one of the input files"):
        write_new(results, "x", [results])
    assert results.read_text() == "{}"


def test_write_new_refuses_inside_an_input_folder_given_as_folder_or_as_file(tmp_path):
    folder = lm_eval_folder(tmp_path)
    for inputs in ([folder], [folder / "results_2025-01-01T00-00-00.json"], [tmp_path / "lm_out"]):
        with pytest.raises(ReportInputError, match="inside the input folder"):
            write_new(folder / "report" / "index.html", "x", inputs)
    assert not (folder / "report").exists()


def test_write_new_never_overwrites_an_lm_eval_file_even_outside_the_inputs(tmp_path):
    other = lm_eval_folder(tmp_path / "other")
    with pytest.raises(ReportInputError, match="lm-eval output file"):
        write_new(other / "samples_t_2025-01-01T00-00-00.jsonl", "x", [tmp_path / "elsewhere"])
    assert (other / "samples_t_2025-01-01T00-00-00.jsonl").read_text() == ""


def test_write_new_writes_elsewhere_and_makes_the_folder(tmp_path):
    folder = lm_eval_folder(tmp_path)
    target = tmp_path / "report" / "sub" / "index.html"
    write_new(target, "héllo", [folder])
    assert target.read_text(encoding="utf-8") == "héllo"


def test_output_folder_beside_the_input_is_fine_but_the_input_itself_is_not(tmp_path):
    folder = lm_eval_folder(tmp_path)
    check_output_dir(tmp_path / "lm_out" / "report", [folder])  # a sibling: allowed
    with pytest.raises(ReportInputError, match=re.escape(str(folder.resolve()))):
        check_output_dir(folder, [folder])


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs a headless chromium to run the page's script")
def test_clicking_a_header_sorts_numbers_by_data_value_with_missing_last(tmp_path):
    body = table(["name", "v"], [["b", 2.0], ["a", float("nan")], ["c", 10.0], ["d", None], ["e", Num(-1, "minus")]])
    # Clicks v twice (ascending, descending), then name twice; writes the first column after each click.
    body += """<pre id="out"></pre><script>
    window.addEventListener('load', function () {
      var th = document.querySelectorAll('table.sortable th'), out = [];
      function col() { return Array.prototype.map.call(document.querySelectorAll('table.sortable tbody tr'),
                                                       function (r) { return r.cells[0].textContent; }).join(''); }
      [1, 1, 0, 0].forEach(function (i) { th[i].click(); out.push(col()); });
      document.getElementById('out').textContent = 'RESULT=' + out.join('/');
    });</script>"""
    path = tmp_path / "sort.html"
    path.write_text(page("sort", body), encoding="utf-8")
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", path.as_uri()],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    # v ascending: e (-1), b (2), c (10), then NaN (a) and None (d) last; descending: c, b, e, still a, d last;
    # name: text order both ways.
    assert "RESULT=ebcad/cbead/abcde/edcba" in dom
