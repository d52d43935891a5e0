"""The upstream lane's bookkeeping (scripts/lane_lmeval_upstream.sh): outcomes of lm-eval's own tests.

    python lmeval_upstream_outcomes.py outcomes RUN.xml OUT.json       # junit -> {test: outcome}
    python lmeval_upstream_outcomes.py matches WITH.json RECORD.json   # exit 0 iff equal to the record
    python lmeval_upstream_outcomes.py record WITHOUT.json VERSION OUT # write a record
    python lmeval_upstream_outcomes.py compare WITH.json WITHOUT.json  # the lane's verdict
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

#: A test of lm-eval's that must pass with lm-eval-cog installed: its task index with include_defaults=False.
MUST_PASS = "tests.test_task_manager.TestTaskManagerIntegration::test_include_defaults_false_with_custom_path"


def outcomes(junit: str) -> dict[str, str]:
    result = {}
    for case in ET.parse(junit).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        result[f"{case.get('classname')}::{case.get('name')}"] = (
            "failed" if "failure" in kinds else "error" if "error" in kinds else "skipped" if "skipped" in kinds else "passed"
        )
    return dict(sorted(result.items()))


def load(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def main(argv: list[str]) -> int:
    command, *args = argv
    if command == "outcomes":
        with open(args[1], "w") as f:
            json.dump(outcomes(args[0]), f, indent=0)
        return 0
    if command == "matches":
        with_cog, recorded = load(args[0]), load(args[1])
        same = with_cog == recorded["outcomes"]
        print(f"lane lmeval-upstream: {len(with_cog)} outcomes with lm-eval-cog "
              f"{'equal' if same else 'DIFFER from'} those recorded without it (lm-eval {recorded['lm_eval']})")  # fmt: skip
        return 0 if same else 1
    if command == "record":
        with open(args[2], "w") as f:
            json.dump({"lm_eval": args[1], "outcomes": load(args[0])}, f, indent=0, sort_keys=True)
        return 0
    if command == "compare":
        with_cog, without = load(args[0]), load(args[1])
        counts = {k: sum(v == k for v in with_cog.values()) for k in ("passed", "failed", "error", "skipped")}
        print(f"lane lmeval-upstream: {len(with_cog)} tests, with lm-eval-cog {counts}")
        diff = sorted(t for t in with_cog.keys() | without.keys() if with_cog.get(t) != without.get(t))
        for test in diff:
            print(f"  DIFFERS {test}: with {with_cog.get(test, 'absent')}, without {without.get(test, 'absent')}")
        if len(with_cog) < 400 or counts["passed"] < 300:
            print(f"lane lmeval-upstream: too few tests ran ({counts}); see the pytest logs")
            return 1
        if with_cog.get(MUST_PASS) != "passed":
            print(f"lane lmeval-upstream: {MUST_PASS} is {with_cog.get(MUST_PASS)} with lm-eval-cog installed")
            return 1
        return 1 if diff else 0
    raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
