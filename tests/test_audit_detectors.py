"""The audit's learned artefact detectors and declared heuristics: the features each detector sees (worked
out by hand), a planted artefact found through ``lm-eval-cog audit`` on a local YAML (and random keys
not flagged), a task too small to train on, bad input to the new options, and a probe's declared
heuristic played and reported with its citation."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from lm_eval_cog.audit.detectors import detect, option_texts, surface_features
from lm_eval_cog.audit.items import AuditItem, make_item
from lm_eval_cog.audit.probes import audit_probe
from lm_eval_cog.paradigms.probe_base import Heuristic
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.reports.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from lm_eval_cli import write_mc_task  # noqa: E402

ITEM = make_item(
    "Tom put the ball in the box. Then Ann moved the ball to the basket. Where will Tom look? "
    "Options: box, basket, drawer 2.\nAnswer:",
    ["box", "basket", "drawer 2"],
    0,
    "false_belief",
)


# -- features -------------------------------------------------------------------------------------


def test_options_only_sees_the_option_texts_and_not_the_question() -> None:
    other = AuditItem(stem="A different question entirely?", options=ITEM.options, gold=2)
    assert option_texts(ITEM) == ["box", "basket", "drawer 2"] == option_texts(other)


def test_surface_features_of_a_hand_built_item() -> None:
    box, basket, drawer = surface_features(ITEM)
    # Positions 0, 1, 2 of 3: scaled 0, 0.5, 1.
    assert (box["position"], basket["position"], drawer["position"]) == (0.0, 0.5, 1.0)
    assert (box["is_first"], drawer["is_last"], basket["is_last"]) == (1.0, 1.0, 0.0)
    # Lengths 3, 6, 8: ranks 0, 1, 2 -> 0, 0.5, 1.
    assert (box["chars"], basket["length_rank"], drawer["length_rank"]) == (3.0, 0.5, 1.0)
    assert (drawer["words"], drawer["digits"], box["digits"]) == (2.0, 1.0, 0.0)
    # "box" is named once, "basket" once (later), "drawer 2" never.
    assert (box["mentions"], basket["mentions"], drawer["mentions"]) == (1.0, 1.0, 0.0)
    assert (box["first_mention_rank"], basket["first_mention_rank"], drawer["first_mention_rank"]) == (0.0, 1.0, -1.0)
    assert (basket["recent_mention_rank"], box["recent_mention_rank"]) == (0.0, 1.0)
    # Content words: "box" is in the stem (1/1); "drawer 2": neither "drawer" nor "2" is (0/2).
    assert (box["overlap"], drawer["overlap"]) == (1.0, 0.0)
    assert (drawer["first_word"], drawer["last_word"], box["condition"]) == ("drawer", "2", "false_belief")


def _suffix_items(n: int, planted: bool, seed: int = 0) -> list[AuditItem]:
    """Four same-length nonce words per item, one ending in the rare suffix "qx": the key when
    ``planted``, else a key drawn at random."""
    rng = np.random.default_rng(seed)
    letters = list("abcdefghijklmnoprstuvw")
    items = []
    for i in range(n):
        words = ["".join(rng.choice(letters, 6)) for _ in range(4)]
        odd = int(rng.integers(4))
        words[odd] = words[odd][:4] + "qx"
        items.append(AuditItem(stem=f"Item {i}: which word?", options=tuple(words),
                               gold=odd if planted else int(rng.integers(4))))
    return items


def test_options_only_detector_learns_a_planted_suffix_held_out_and_not_random_keys() -> None:
    planted = detect("options_only", _suffix_items(100, True))
    assert sum(planted.credits) / 100 > 0.9 and "cross-fitted over 5 folds" in planted.note
    trained = detect("options_only", _suffix_items(60, True, seed=1), train=_suffix_items(60, True, seed=2))
    assert sum(trained.credits) / 60 > 0.9
    assert sum(detect("options_only", _suffix_items(200, False)).credits) / 200 < 0.35


def test_a_detector_is_skipped_with_a_note_below_twenty_items() -> None:
    found = detect("surface", _suffix_items(12, True))
    assert found.credits is None and found.note == "detector:surface skipped: 12 items, too few (needs 20)"


# -- the command line on local YAMLs --------------------------------------------------------------


def _yaml_rows(items: Sequence[AuditItem]) -> list[dict]:
    return [{"question": f"{it.stem} Options: {', '.join(it.options)}.", "choices": list(it.options),
             "answer": it.gold} for it in items]


def test_audit_flags_a_planted_suffix_artefact_and_not_random_keys(tmp_path, capsys) -> None:
    folder = tmp_path / "tasks"
    for name, planted in (("suffix_key_mc", True), ("random_key_mc", False)):
        write_mc_task(folder, name, _yaml_rows(_suffix_items(120, planted)), doc_to_text="{{question}}\\nAnswer:",
                      doc_to_choice="\"{{choices}}\"")
    out = tmp_path / "out"
    assert main(["audit", "suffix_key_mc", "random_key_mc", "--include_path", str(folder), "--out", str(out)]) == 0
    data = json.loads((out / "audit.json").read_text())
    flagged = {(r["task"], r["strategy"]) for r in data["rows"] if r["flagged"]}
    assert ("suffix_key_mc", "detector:options_only") in flagged
    assert not {s for t, s in flagged if t == "random_key_mc"}, flagged
    # Fixed datasets (the same items at every seed) are cross-fitted, and the notes say so.
    assert "suffix_key_mc: detector:options_only: cross-fitted over 5 folds" in data["notes"]
    assert {r["family"] for r in data["rows"]} >= {"surface", "detector"}
    assert "SHORTCUT" in capsys.readouterr().out


def test_audit_of_a_task_too_small_for_the_detectors_runs_and_says_so(tmp_path, capsys) -> None:
    folder = write_mc_task(tmp_path / "tasks", "tiny_mc", _yaml_rows(_suffix_items(10, True)),
                           doc_to_text="{{question}}\\nAnswer:", doc_to_choice="\"{{choices}}\"")
    assert main(["audit", "tiny_mc", "--include_path", str(folder), "--out", str(tmp_path / "out")]) == 0
    assert "note: tiny_mc: detector:options_only skipped: 10 items, too few (needs 20)" in capsys.readouterr().out
    notes = json.loads((tmp_path / "out" / "audit.json").read_text())["notes"]
    assert "tiny_mc: detector:surface skipped: 10 items, too few (needs 20)" in notes
    assert "detector:surface skipped: 10 items, too few" in (tmp_path / "out" / "audit.md").read_text()


@pytest.mark.parametrize(
    "args, parameter",
    [
        (["--detector", "bag_of_words"], "'--detector'"),
        (["--seed", "5", "--train-seed", "5"], "'--train-seed'"),
        (["--train-seed", "1234"], "'--train-seed'"),  # the default audited seed
        (["--folds", "0"], "'--folds'"),
        (["--folds", "-3"], "'--folds'"),
    ],
)
def test_bad_detector_options_get_one_error_line_naming_the_option(args, parameter, capsys) -> None:
    assert main(["audit", "cog_stroop_mc", *args]) == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and parameter in errors[0], captured.err
    assert "Traceback" not in captured.err and "best blind strategy" not in captured.out


# -- declared heuristics ----------------------------------------------------------------------------


def _word_reading(stem: str, options: Sequence[str]) -> list[float] | None:
    """Test-only: read the asked word instead of naming its ink (Stroop 1935)."""
    asked = re.search(r"ink of word (\d+)\?", stem)
    word = asked and re.search(rf'Word {asked.group(1)} [^\n]*reads "(\w+)"', stem)
    if not word:
        return None
    return [float(o.casefold() == word.group(1).casefold()) for o in options]


WORD_READING = Heuristic("word_reading", "Stroop 1935: the word is read faster than its ink is named",
                         _word_reading, ("congruent", "incongruent"))


def test_declared_heuristics_are_played_per_condition_and_reported_with_their_citation(
        monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(type(get_probe("stroop")), "heuristics", (WORD_READING,))
    monkeypatch.setattr(type(get_probe("stroop")), "audit_cells", {})  # each condition a cell of its own
    rows = {r.condition: r for r in audit_probe("stroop", (7,), 120) if r.strategy == "heuristic:word_reading"}
    # Congruent: the word is the ink (1.0); incongruent: the word is the lure, never the ink (0.0); neutral
    # items are not among its conditions: no row; "all" pools the two conditions it was played on.
    assert set(rows) == {"all", "congruent", "incongruent"}
    assert (rows["congruent"].accuracy, rows["incongruent"].accuracy) == (1.0, 0.0)
    assert rows["congruent"].flagged and rows["all"].n == rows["congruent"].n + rows["incongruent"].n
    assert rows["congruent"].citation == WORD_READING.citation

    out = tmp_path / "out"
    assert main(["audit", "cog_stroop_mc", "--seed", "7", "--items", "60", "--no-detectors", "--out", str(out)]) == 0
    data = json.loads((out / "audit.json").read_text())
    played = [r for r in data["rows"] if r["strategy"] == "heuristic:word_reading"]
    assert {r["condition"] for r in played} == {"all", "congruent", "incongruent"}
    assert all(r["family"] == "heuristic" and r["citation"] == WORD_READING.citation for r in played)
    assert not any(r["family"] == "detector" for r in data["rows"])
    assert WORD_READING.citation in (out / "audit.csv").read_text()
    assert f"heuristic:word_reading: {WORD_READING.citation}" in (out / "audit.md").read_text()
    assert "heuristic:word_reading" in capsys.readouterr().out
