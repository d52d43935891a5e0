"""``python tests/scripted_vlm_cli.py <lm_eval arguments>``: the stock ``lm_eval`` command with the
test-only model ``cog_scripted_vlm`` registered.

Why a launcher: lm-eval 0.4.13 finds models only in its registry (no plugin entry points),
and the scripted model must stay out of the package (it is a test oracle, not a model anyone
should run). This file registers it (importing :mod:`scripted_vlm`) and then calls lm-eval's
own ``cli_evaluate()``, which parses ``sys.argv`` exactly as the ``lm_eval`` command does.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scripted_vlm  # noqa: E402,F401 - registers cog_scripted_vlm
from lm_eval.__main__ import cli_evaluate  # noqa: E402

if __name__ == "__main__":
    cli_evaluate()
