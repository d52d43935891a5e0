"""Mutation run of the metric and parsing code: kill rate per file (a dev tool, not CI).

    .venv-dev/bin/python scripts/mutation.py                      # every file in [tool.mutmut]
    .venv-dev/bin/python scripts/mutation.py lm_eval_cog/paradigms/measures.py
    .venv-dev/bin/python scripts/mutation.py --report-only        # re-read the last run
    .venv-dev/bin/python scripts/mutation.py --rev HEAD           # a clean export of a commit

Mutation itself is mutmut's (configuration: ``[tool.mutmut]`` in ``pyproject.toml``);
this script only

* starts mutmut with the package's own modules unloaded first: the start-up hook's
  ``.pth`` line imports ``lm_eval_cog`` from the checkout in every Python process, and
  a package already in ``sys.modules`` would make the tests import the original code
  instead of mutmut's copy under ``mutants/`` (every mutant would "survive");
* restricts ``only_mutate`` to the files given on the command line;
* wipes ``mutants/`` first (unless ``--reuse``): mutmut never re-copies an unmutated file
  that is already there, so a stale copy of a module changed since would be tested;
* with ``--rev``, runs on a clean export of that commit (in a temporary folder) instead
  of the working tree, so that uncommitted edits elsewhere cannot break the run;
* reads mutmut's own result files (``mutants/<file>.meta``) and prints, per file,
  killed / (total - known equivalents), the survivors with their mutmut ids and diffs,
  and the known-equivalent mutants separately, each with the reason it is equivalent.

Known equivalents (:data:`EQUIVALENT`) are matched by function and by the text of the
mutated line, not by mutmut's serial number (which shifts when a function changes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Mutants that cannot change behaviour, matched by (function, mutated line).
#: ``function``: the mutmut id without its ``__mutmut_<n>`` tail; ``line``: the mutated
#: line as mutmut writes it, stripped. Each carries the reason it is equivalent.
EQUIVALENT: list[dict[str, str]] = [
    {
        "function": "lm_eval_cog.paradigms.wcst.scoring.x__streak_before",
        "line": 'if i == 0 or log[i]["rule"] != log[i - 2]["rule"]:',
        "reason": "differs only when trial i-1 opened its rule's block, whose streak is <= 1: below FMS's 5",
    },
    {
        "function": "lm_eval_cog.paradigms.wcst.scoring.x__streak_before",
        "line": "return 1",
        "reason": "a carried-in streak of 1 instead of 0 is still below FMS_MIN_STREAK (5); the value is only used for FMS",
    },
    {
        "function": "lm_eval_cog.rendering.x_prompt_text",
        "line": 'return prompt if (isinstance(prompt, str)) and False else str(getattr(prompt, "prompt", prompt))',
        "reason": "a str has no attribute 'prompt', so str(getattr(s, 'prompt', s)) is s itself",
    },
    {
        "function": "lm_eval_cog.paradigms.wcst.cards.x_draw_per_trial_options",
        "line": "for dim, pos in zip((SHAPE, COLOUR, NUMBER), positions[:4]):",
        "reason": "zip stops at the three dimensions: positions[:4] and positions[:3] pair identically",
    },
    # paradigms/base.py
    {
        "function": "lm_eval_cog.paradigms.base.x_answer_text",
        "line": 'return match.group(1) if (match) or True else ""',
        "reason": "_ANSWER_TEXT (blanks, then any run of non-line-breaks) matches every position: match is never None",
    },
    {
        "function": "lm_eval_cog.paradigms.base.x_answer_text",
        "line": 'return match.group(1) if match else "XXXX"',
        "reason": "_ANSWER_TEXT (blanks, then any run of non-line-breaks) matches every position: the else is unreachable",
    },
    {
        "function": "lm_eval_cog.paradigms.base.x_episode_seed",
        "line": "return int(np.random.SeedSequence([int(task_seed), int(index)]).generate_state(1, )[0])",
        "reason": "uint32 is generate_state's default dtype",
    },
    {
        "function": "lm_eval_cog.paradigms.base.x_episode_seed",
        "line": "return int(np.random.SeedSequence([int(task_seed), int(index)]).generate_state(2, dtype=np.uint32)[0])",
        "reason": "generate_state's words are produced in order: the first of two is the first of one",
    },
    {
        "function": "lm_eval_cog.paradigms.base.x_read_choice",
        "line": "if len(named) >= 1:",
        "reason": "len(named) == 1 returned just before: >= 1 and > 1 agree on what reaches this line",
    },
    {
        "function": "lm_eval_cog.paradigms.base.x_unknown_name_message",
        "line": "close = difflib.get_close_matches(str(given), allowed, )",
        "reason": "n=3 is get_close_matches' default",
    },
    {
        "function": "lm_eval_cog.paradigms.base.xǁEnvǁ__init__",
        "line": "self._done = None",
        "reason": "_done is only read after reset() has set it (step checks _reset_called first)",
    },
    {
        "function": "lm_eval_cog.paradigms.base.xǁEnvǁ__init__",
        "line": "self._done = False",
        "reason": "_done is only read after reset() has set it (step checks _reset_called first)",
    },
    {
        "function": "lm_eval_cog.paradigms.base.xǁEnvǁ__init__",
        "line": "self._reset_called = None",
        "reason": "only read as a truth value: None and False are both false",
    },
    {
        "function": "lm_eval_cog.paradigms.base.xǁEnvǁreset",
        "line": "self._done = None",
        "reason": "only read as a truth value: None and False are both false",
    },
    # runner.py
    {
        "function": "lm_eval_cog.runner.x__call",
        "line": 'result.append(("XXokXX", player.respond(episodes)))',
        "reason": "only the 'error' tag is tested for: any other tag returns the value",
    },
    {
        "function": "lm_eval_cog.runner.x__call",
        "line": 'result.append(("OK", player.respond(episodes)))',
        "reason": "only the 'error' tag is tested for: any other tag returns the value",
    },
    {
        "function": "lm_eval_cog.runner.x__progress_bar",
        "line": 'max_turns = max((getattr(ep.env.params, "max_turns", 0) for ep in episodes if ep.env is not None), default=None)',
        "reason": "the value is used as `max_turns or None`: None and 0 both give no total",
    },
    {
        "function": "lm_eval_cog.runner.x__reason",
        "line": "last = traceback.extract_tb(exc.__traceback__)[-1:] if (exc.__traceback__) or True else []",
        "reason": "traceback.extract_tb(None) is an empty list, as the else branch",
    },
    {
        "function": "lm_eval_cog.runner.x_run_lockstep",
        "line": 'reply = bytes(reply).decode("UTF-8", "surrogateescape")',
        "reason": "codec names are case-insensitive",
    },
    # rendering.py (Renderer)
    {
        "function": "lm_eval_cog.rendering.xǁRendererǁrender",
        "line": "if drop > history:",
        "reason": "messages(ep, history + 1) equals messages(ep, history) (no answered turn left to drop): one identical render more, then the same error",
    },
    # paradigms/wcst/env.py
    {
        "function": "lm_eval_cog.paradigms.wcst.env.x_find_choices",
        "line": "return i < 0 or ends[i] < start",
        "reason": "a description ends at a word boundary and digits and number words are word characters: no mention starts where one ends",
    },
    # paradigms/wcst/cards.py
    {
        "function": "lm_eval_cog.paradigms.wcst.cards.x_draw_fixed_key_cards",
        "line": "while len(cards) <= n:",
        "reason": "cards[:n] is the same; an extra pass only advances env.rng, which WCST never draws from after _reset",
    },
    # reports/ (the guards on what the report tools read and write)
    {
        "function": "lm_eval_cog.reports.files.x_write_text",
        "line": 'write_bytes(path, text.encode("UTF-8", "backslashreplace"), root)',
        "reason": "codec names are case-insensitive",
    },
    {
        "function": "lm_eval_cog.reports.names.x_digest",
        "line": 'return hashlib.sha256(text.encode("UTF-8", "surrogatepass")).hexdigest()[:width]',
        "reason": "codec names are case-insensitive",
    },
    {
        "function": "lm_eval_cog.reports.runs.x__read_text",
        "line": 'return path.read_text(encoding="UTF-8")',
        "reason": "codec names are case-insensitive",
    },
    {
        "function": "lm_eval_cog.reports.runs.x_read_samples_file",
        "line": 'with open(path, encoding="UTF-8") as fh:',
        "reason": "codec names are case-insensitive",
    },
    {
        "function": "lm_eval_cog.reports.ranges.x_stderr_range",
        "line": "return 0.0, (span[1] + span[0]) if span else math.inf",
        "reason": "every range metric_range knows starts at 0, so span[1] + span[0] == span[1] - span[0]",
    },
]

# Run inside the mutmut child process: drop the checkout's copy of the package (imported
# by the start-up hook's .pth line) so that mutmut's sys.path entry for mutants/ wins,
# apply the file selection, then hand over to mutmut's command line.
_BOOTSTRAP = """
import json, os, sys
for _name in [m for m in sys.modules if m == "lm_eval_cog" or m.startswith("lm_eval_cog.")]:
    del sys.modules[_name]
from mutmut.configuration import config
_only = json.loads(os.environ["COG_MUTATION_FILES"])
if _only:
    config().only_mutate = _only
_tests = json.loads(os.environ.get("COG_MUTATION_TESTS", "[]"))
if _tests:
    config().pytest_add_cli_args_test_selection = _tests
# A listed test file that this tree lacks (not written yet at that commit) is skipped, not fatal.
_missing = [a for a in config().pytest_add_cli_args_test_selection if not a.startswith("-") and not os.path.exists(a.split("::")[0])]
if _missing:
    print("mutation: skipping absent test paths:", ", ".join(_missing))
    config().pytest_add_cli_args_test_selection = [a for a in config().pytest_add_cli_args_test_selection if a not in _missing]
from mutmut.__main__ import cli
sys.argv = ["mutmut", *sys.argv[1:]]
cli()
"""

_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
           36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
           37: "caught by type check", None: "not checked", -9: "segfault", -11: "segfault"}


def configured_files(root: Path = ROOT) -> list[str]:
    """The ``only_mutate`` list of ``[tool.mutmut]`` in pyproject.toml."""
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    return list(config["only_mutate"])


def export_rev(rev: str) -> Path:
    """A clean copy of commit ``rev`` in a temporary folder (reused for the same commit)."""
    sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    target = Path(os.environ.get("TMPDIR", "/tmp")) / "lm_eval_cog_mutation" / sha[:12]
    if not (target / "pyproject.toml").exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", "--format=tar", sha], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    print(f"mutation run on {rev} ({sha[:12]}) in {target}")
    return target


def run_mutmut(
    files: list[str], max_children: int, root: Path = ROOT, tests: list[str] | None = None,
    mutants: list[str] | None = None,
) -> float:
    """Run ``mutmut run`` on ``files`` (glob patterns) in ``root``; returns the wall-clock seconds.

    ``tests``: pytest arguments that replace ``pytest_add_cli_args_test_selection``;
    ``mutants``: mutmut ids or globs (``"lm_eval_cog.paradigms.wcst.env.xǁWCSTEnvǁ_step*"``)
    to run instead of every mutant of ``files``.
    """
    env = dict(
        os.environ,
        COG_MUTATION_FILES=json.dumps(files),
        COG_MUTATION_TESTS=json.dumps(tests or []),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
    )
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", _BOOTSTRAP, "run", "--max-children", str(max_children), *(mutants or [])],
        cwd=root,
        env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"mutmut run failed with exit status {proc.returncode}")
    return time.monotonic() - start


@dataclass
class Mutant:
    name: str
    status: str
    diff: str

    @property
    def function(self) -> str:
        return self.name.rsplit("__mutmut_", 1)[0]

    @property
    def mutated_line(self) -> str:
        added = [ln[1:].strip() for ln in self.diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
        return " | ".join(added)


def equivalence_reason(m: Mutant) -> str | None:
    """The reason ``m`` is a known equivalent, or None."""
    for e in EQUIVALENT:
        if e["function"] == m.function and e["line"] == m.mutated_line:
            return e["reason"]
    return None


def _diff(mutant_name: str, path: Path) -> str:
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # noqa: PLC0415

    try:
        return get_diff_for_mutant(mutant_name, path=path)
    except Exception as exc:  # noqa: BLE001 - a report line, not a crash
        return f"(no diff: {exc})"


def load_results(files: list[str], root: Path = ROOT) -> dict[str, list[Mutant]]:
    """mutmut's verdicts per mutated source file, from its ``.meta`` files under ``mutants/``."""
    import fnmatch  # noqa: PLC0415

    os.chdir(root)  # mutmut reads its configuration and mutants/ from the working directory
    results: dict[str, list[Mutant]] = {}
    for meta in sorted((root / "mutants").rglob("*.py.meta")):
        source = meta.relative_to(root / "mutants").with_suffix("")
        if not any(fnmatch.fnmatch(str(source), f) for f in files):
            continue
        codes = json.loads(meta.read_text("utf-8")).get("exit_code_by_key", {})
        mutants = []
        for name, code in sorted(codes.items(), key=lambda kv: _natural(kv[0])):
            status = _STATUS.get(code, "suspicious")
            diff = _diff(name, source) if status != "killed" else ""
            mutants.append(Mutant(name, status, diff))
        results[str(source)] = mutants
    return results


def _natural(name: str) -> tuple[str, int]:
    head, _, n = name.rpartition("__mutmut_")
    return head, int(n) if n.isdigit() else 0


def report(results: dict[str, list[Mutant]], show_diffs: bool = True) -> int:
    """Print the per-file table, survivors and equivalents; returns the number of unexplained survivors."""
    rows, survivors, equivalents = [], [], []
    all_killed = all_counted = unchecked = 0
    for path, mutants in results.items():
        unchecked += sum(m.status == "not checked" for m in mutants)
        mutants = [m for m in mutants if m.status != "not checked"]
        counted = [m for m in mutants if equivalence_reason(m) is None]
        equivalents += [(m, equivalence_reason(m)) for m in mutants if equivalence_reason(m) is not None]
        killed = sum(m.status in ("killed", "timeout", "caught by type check") for m in counted)
        survivors += [m for m in counted if m.status not in ("killed", "timeout", "caught by type check")]
        rate = f"{100 * killed / len(counted):5.1f}%" if counted else "    -"
        rows.append((path, killed, len(counted), len(mutants) - len(counted), rate))
        all_killed += killed
        all_counted += len(counted)
    width = max((len(r[0]) for r in rows), default=10)
    print(f"\n{'file':<{width}}  killed / counted  equivalent  kill rate")
    for path, killed, counted, eq, rate in rows:
        print(f"{path:<{width}}  {killed:6d} / {counted:<7d}  {eq:10d}  {rate}")
    if all_counted:
        print(f"{'total':<{width}}  {all_killed:6d} / {all_counted:<7d}  {len(equivalents):10d}  "
              f"{100 * all_killed / all_counted:5.1f}%")
    if unchecked:
        print(f"({unchecked} mutants not checked in this run are left out)")
    print(f"\nSurvivors ({len(survivors)}):")
    for m in survivors:
        print(f"  {m.name}: {m.status}")
        if show_diffs:
            for line in m.diff.splitlines():
                if line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
                    print(f"      {line}")
    print(f"\nKnown equivalent, excluded from the rates ({len(equivalents)}):")
    for m, reason in equivalents:
        print(f"  {m.name}: {m.mutated_line}\n      -> {reason}")
    return len(survivors)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="source files or glob patterns (default: [tool.mutmut] only_mutate)")
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutmut workers (default 1)")
    parser.add_argument("--reuse", action="store_true", help="keep mutants/ and mutmut's cached verdicts")
    parser.add_argument("--report-only", action="store_true", help="print the last run's results, run nothing")
    parser.add_argument("--no-diffs", action="store_true", help="survivor ids only")
    parser.add_argument("--rev", help="run on a clean export of this commit instead of the working tree")
    parser.add_argument("--mutants", nargs="+", metavar="ID", help="mutmut ids or globs to run (default: all)")
    parser.add_argument(
        "--tests", nargs="+", metavar="PYTEST_ARG",
        help="pytest arguments replacing [tool.mutmut] pytest_add_cli_args_test_selection",
    )
    args = parser.parse_args(argv)
    root = export_rev(args.rev) if args.rev else ROOT
    files = args.files or configured_files(root)
    if not args.report_only:
        if not args.reuse and (root / "mutants").exists():
            shutil.rmtree(root / "mutants")
        seconds = run_mutmut(files, args.max_children, root, args.tests, args.mutants)
        print(f"\nmutmut run: {seconds:.0f} s wall-clock")
    survivors = report(load_results(files, root), show_diffs=not args.no_diffs)
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
