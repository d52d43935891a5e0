"""setup.cfg ships every package and task folder: a folder left out works in the checkout (editable
install) and silently disappears from a wheel, so the shipped lm_eval finds no such tasks."""

from __future__ import annotations

import configparser
import fnmatch
from pathlib import Path

from setuptools.config.setupcfg import read_configuration

ROOT = Path(__file__).resolve().parents[1]
CFG = configparser.ConfigParser()
CFG.read(ROOT / "setup.cfg")
PACKAGES = set(CFG["options"]["packages"].split())
PACKAGE_DATA = {k: v for k, v in CFG["options.package_data"].items()}


def test_every_python_package_is_listed():
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lm_eval_cog").rglob("__init__.py")}
    assert found - PACKAGES == set()


def test_every_task_folder_is_shipped_with_its_yamls():
    for folder in {p.parent for p in (ROOT / "task_configs").rglob("*.yaml")}:
        rel = folder.relative_to(ROOT / "task_configs").parts
        name = ".".join(("lm_eval_cog", "task_configs", *rel))
        assert name in PACKAGES, name
        assert "*.yaml" in PACKAGE_DATA.get(name, ""), name


#: What setuptools itself reads from setup.cfg's package_data: patterns per package, split as it
#: splits them (a value spanning lines is split on its line breaks only, not on its commas).
SHIPPED_PATTERNS: dict[str, list[str]] = read_configuration(ROOT / "setup.cfg")["options"]["package_data"]


def _shipped(package: str, name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in SHIPPED_PATTERNS.get(package, []))


def test_every_data_file_a_module_reads_is_shipped():
    data_files = [p for p in (ROOT / "lm_eval_cog").rglob("*") if p.suffix in (".json", ".txt") and p.is_file()]
    assert data_files
    for data in data_files:
        package = ".".join(data.parent.relative_to(ROOT).parts)
        assert _shipped(package, data.name), data


def test_a_comma_list_continued_on_a_second_line_ships_nothing(tmp_path):
    # The mistake that once left every games data file out of the wheel: the test above must see it.
    cfg = tmp_path / "setup.cfg"
    cfg.write_text("[metadata]\nname = x\n[options.package_data]\npkg = a.json, b.json,\n    c.txt, d.md\n",
                   encoding="utf-8")
    patterns = read_configuration(cfg)["options"]["package_data"]["pkg"]
    assert not any(fnmatch.fnmatch("a.json", p) for p in patterns)
