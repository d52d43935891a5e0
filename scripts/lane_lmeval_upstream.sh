#!/usr/bin/env bash
# CI lane: lm-eval 0.4.13's OWN test suite, run with lm-eval-cog installed and again without
# it; fails if any test's outcome (passed / failed / error / skipped) differs between the two.
# Installing a plugin must change nothing for lm-eval's other users.
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
"$VENV/bin/pip" install --quiet --force-reinstall --no-deps .
"$VENV/bin/pip" install --quiet .

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
"$VENV/bin/pip" uninstall --quiet -y lm-eval-cog
t=$SECONDS
run_suite "$WORK/without.xml"
echo "lane lmeval-upstream: without lm-eval-cog ($((SECONDS - t)) s)"

"$VENV/bin/python" - "$WORK/with.xml" "$WORK/without.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET

def outcomes(path):
    result = {}
    for case in ET.parse(path).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        result[f"{case.get('classname')}::{case.get('name')}"] = (
            "failed" if "failure" in kinds else "error" if "error" in kinds else "skipped" if "skipped" in kinds else "passed")
    return result

with_cog, without = outcomes(sys.argv[1]), outcomes(sys.argv[2])
counts = {k: sum(v == k for v in with_cog.values()) for k in ("passed", "failed", "error", "skipped")}
print(f"lane lmeval-upstream: {len(with_cog)} tests, with lm-eval-cog {counts}")
diff = sorted(t for t in with_cog.keys() | without.keys() if with_cog.get(t) != without.get(t))
for test in diff:
    print(f"  DIFFERS {test}: with {with_cog.get(test, 'absent')}, without {without.get(test, 'absent')}")
if len(with_cog) < 400 or counts["passed"] < 300:
    sys.exit(f"lane lmeval-upstream: too few tests ran ({counts}); see the pytest logs")
key = "tests.test_task_manager.TestTaskManagerIntegration::test_include_defaults_false_with_custom_path"
if with_cog.get(key) != "passed":
    sys.exit(f"lane lmeval-upstream: {key} is {with_cog.get(key)} with lm-eval-cog installed")
sys.exit(1 if diff else 0)
EOF
echo "lane lmeval-upstream: same outcomes with and without lm-eval-cog ($((SECONDS - start)) s in all)"
