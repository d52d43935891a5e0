"""setup.cfg ships every package and task folder: a folder left out works in the checkout (editable
install) and silently disappears from a wheel, so the shipped lm_eval finds no such tasks."""

from __future__ import annotations

import configparser
from pathlib import Path

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


def test_every_data_file_a_module_reads_is_shipped():
    for data in [*(ROOT / "lm_eval_cog").rglob("*.json")]:
        package = ".".join(data.parent.relative_to(ROOT).parts)
        assert data.name in PACKAGE_DATA.get(package, ""), data
