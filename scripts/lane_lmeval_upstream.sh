#!/usr/bin/env bash
# CI lane: lm-eval 0.4.13's OWN test suite, run with lm-eval-cog installed, its outcomes
# (passed / failed / error / skipped) compared with the same suite's WITHOUT it; fails if any
# test's outcome differs. Installing a plugin must change nothing for lm-eval's other users.
#
# The outcomes without lm-eval-cog are recorded in scripts/lmeval_upstream_baseline.json (lm-eval
# is pinned, so they change only with the environment). When the run with lm-eval-cog equals the
# record test for test, the second run is skipped; on any difference the suite runs again without
# lm-eval-cog and that live run decides, so a drift of the environment is told apart from a change
# of ours. UPSTREAM_FULL=1 forces the live run; UPSTREAM_BASELINE_OUT=<file> writes its outcomes
# there (how the record is refreshed).
#
# The tests come from lm-eval's sdist on PyPI at run time (nothing of lm-eval is committed
# here). The sdist ships tests/*.py without conftest.py, tests/utils.py, test_configs/ or
# testdata/, so some tests fail in both runs alike: only a DIFFERENCE fails the lane. Left
# out: files that download models or data sets (test_evaluator, test_prompt, test_tasks,
# test_unitxt_tasks, test_requests_caching) and test_multimodal_cache_keys (needs pillow).
#
#   bash scripts/lane_lmeval_upstream.sh        # KEEP_VENV=1 reuses .venv-lmeval-upstream
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
LMEVAL_VERSION=0.4.13
VENV="${VENV:-.venv-lmeval-upstream}"
FILES=(
  test_task_manager.py test_registry.py test_evaluator_utils.py test_metrics.py test_filters.py
  test_cli_subcommands.py test_group.py test_aggregation_pipeline.py test_samplers.py test_utils.py
  test_misc.py test_serialization.py test_fewshot_context.py test_cache.py test_janitor.py
  test_kormedmcqa.py test_minerva_math.py test_ruler.py
)
start=$SECONDS
keep_venv "$VENV" || make_venv "$VENV"
"$VENV/bin/pip" install --quiet "lm-eval==$LMEVAL_VERSION" pytest
install_package "$VENV"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$VENV/bin/pip" download --quiet --no-deps --no-binary :all: "lm-eval==$LMEVAL_VERSION" -d "$WORK"
tar -xzf "$WORK"/lm_eval-*.tar.gz -C "$WORK"
RUN="$WORK/run"
mkdir -p "$RUN"
cp -r "$WORK/lm_eval-$LMEVAL_VERSION/tests" "$RUN/tests"
# Some tests read <rootdir>/lm_eval/tasks/...: the installed package stands in for the checkout.
ln -s "$("$VENV/bin/python" -c 'import lm_eval, os; print(os.path.dirname(lm_eval.__file__))')" "$RUN/lm_eval"
printf '[pytest]\n' >"$RUN/pytest.ini"
PYTEST="$(cd "$VENV" && pwd)/bin/pytest"
XDIST=()
"$VENV/bin/python" -c "import xdist" 2>/dev/null && XDIST=(-n 2)
echo "lane lmeval-upstream: venv and sources ready in $((SECONDS - start)) s"

run_suite() {  # $1: junit file
  # Two xdist workers (the venv is the main lane's, which has pytest-xdist): both runs alike.
  (cd "$RUN" && env HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 "$PYTEST" -q -p no:cacheprovider \
    -o addopts="" "${XDIST[@]}" --junitxml="$1" "${FILES[@]/#/tests/}" >"$1.log" 2>&1) || true
  tail -n 1 "$1.log"
}
t=$SECONDS
run_suite "$WORK/with.xml"
echo "lane lmeval-upstream: with lm-eval-cog ($((SECONDS - t)) s)"
OUTCOMES=(env PYTHONPATH= "$VENV/bin/python" scripts/lmeval_upstream_outcomes.py)
"${OUTCOMES[@]}" outcomes "$WORK/with.xml" "$WORK/with.json"
BASELINE=scripts/lmeval_upstream_baseline.json
if [ "${UPSTREAM_FULL:-0}" != 1 ] && [ -f "$BASELINE" ] && "${OUTCOMES[@]}" matches "$WORK/with.json" "$BASELINE"; then
  cp "$WORK/with.json" "$WORK/without.json"  # equal to the record of the run without lm-eval-cog
else
  "$VENV/bin/pip" uninstall --quiet -y lm-eval-cog
  t=$SECONDS
  run_suite "$WORK/without.xml"
  echo "lane lmeval-upstream: without lm-eval-cog ($((SECONDS - t)) s)"
  "${OUTCOMES[@]}" outcomes "$WORK/without.xml" "$WORK/without.json"
  if [ -n "${UPSTREAM_BASELINE_OUT:-}" ]; then
    "${OUTCOMES[@]}" record "$WORK/without.json" "$LMEVAL_VERSION" "$UPSTREAM_BASELINE_OUT"
    echo "lane lmeval-upstream: outcomes without lm-eval-cog written to $UPSTREAM_BASELINE_OUT"
  fi
fi
"${OUTCOMES[@]}" compare "$WORK/with.json" "$WORK/without.json"
echo "lane lmeval-upstream: same outcomes with and without lm-eval-cog ($((SECONDS - start)) s in all)"
