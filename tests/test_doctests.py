"""Each paradigm's runnable doctest episode (the Env docstrings' examples) still runs."""

from __future__ import annotations

import doctest
import importlib

import pytest

from lm_eval_cog.paradigms import available, is_game


# Games document their protocol in their README (lm_eval_cog/games/<name>/README.md).
@pytest.mark.parametrize("name", [n for n in available() if not is_game(n)])
def test_env_docstring_example_runs(name):
    module = importlib.import_module(f"lm_eval_cog.paradigms.{name}.env")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
