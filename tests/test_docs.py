"""The README and the guides in docs/ stay true: links resolve, commands exist, examples run.

* every relative link (file, folder, ``#anchor`` by GitHub's rules) in README.md and docs/*.md resolves;
* no Markdown file refers to the ``shared/`` folder (users have only the repository);
* fenced blocks whose info string is ``bash tested`` are run, line by line, in a scratch folder;
* every other command of a ``bash`` / ``sh`` / ``console`` block is checked statically: its
  program, script or module exists, its ``--flags`` are that program's, its ``--tasks`` are tasks;
* the README's task tables name every task and group the package ships, and nothing else;
* counts and names that drift (the number of static probes, ``LM_EVAL_COG_*`` variables) match the code;
* the worked example of docs/adding-a-paradigm.md passes the paradigm conformance check.

Only cheap commands are marked ``bash tested`` (a reference-player run and the report tools; under a
minute on two cores): anything needing a real model, a GPU, vLLM or the network is checked statically.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shlex
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest

# One worker under pytest-xdist (scripts/test.sh: --dist loadgroup): lm-eval's task index is built once.
pytestmark = pytest.mark.xdist_group("docs")

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]

#: Folders that are not part of the repository's tracked files (.gitignore, plus VCS and caches).
_UNTRACKED_DIRS = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "build", "dist", "mutants", "node_modules"}
_UNTRACKED_TOP = {"results"}

#: Commands the static check leaves alone on purpose: they install, move around or start servers.
SKIPPED_COMMANDS = {"pip", "cd", "export", "source", "vllm"}
#: Shells whose script argument is checked like ``bash scripts/X.sh``.
SHELLS = {"bash", "sh"}
PYTHONS = {"python", "python3"}
LM_EVAL = {"lm_eval", "lm-eval"}


def tracked_markdown() -> list[Path]:
    """Every *.md of the repository, without virtual environments, caches and build output."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _UNTRACKED_DIRS
            and not d.startswith(".venv")
            and not d.endswith(".egg-info")
            and not (here == ROOT and (d in _UNTRACKED_TOP or d.startswith("out")))
        )
        found += [here / f for f in sorted(files) if f.endswith(".md")]
    return found


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ---------------------------------------------------------------- Markdown parsing


@dataclass(frozen=True)
class Block:
    """A fenced code block: its file, the line of its opening fence, info string and content lines."""

    path: Path
    line: int
    info: str
    lines: tuple[str, ...]

    @property
    def language(self) -> str:
        return self.info.split()[0].lower() if self.info.split() else ""

    @property
    def tested(self) -> bool:
        return self.language in ("bash", "sh") and "tested" in self.info.split()[1:]

    @property
    def where(self) -> str:
        return f"{rel(self.path)}:{self.line}"


_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def fenced_blocks(path: Path) -> list[Block]:
    blocks, current = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if current is None:
            match = _FENCE.match(line)
            if match and not (match["fence"][0] == "`" and "`" in match["info"]):
                current = (number, match["indent"], match["fence"], match["info"].strip(), [])
            continue
        start, indent, fence, info, content = current
        stripped = line.strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            blocks.append(Block(path, start, info, tuple(content)))
            current = None
        else:
            content.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
    assert current is None, f"{rel(path)}:{current[0]}: a fenced block is never closed"
    return blocks


def prose(text: str) -> str:
    """The text outside fenced blocks (blocks become blank lines, so line numbers stay)."""
    out, fence = [], None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match and not (match["fence"][0] == "`" and "`" in match["info"]):
            fence = match["fence"]
            out.append("")
        elif fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence = None
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target><[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(?P<text>.*?)\s*#*\s*$")


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every inline link and image outside code."""
    text = _CODE_SPAN.sub(lambda m: "code" + "\n" * m.group(0).count("\n"), prose(path.read_text(encoding="utf-8")))
    return [(text.count("\n", 0, m.start()) + 1, m["target"].strip("<>")) for m in _LINK.finditer(text)]


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: rendered text, lower case, punctuation dropped, spaces -> '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path: Path) -> frozenset[str]:
    """Every heading anchor of a Markdown file, duplicates numbered as GitHub does (-1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for line in prose(path.read_text(encoding="utf-8")).split("\n"):
        match = _HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match["text"])
        if slug in seen:
            seen[slug] += 1
            slug = f"{slug}-{seen[slug]}"
        else:
            seen[slug] = 0
        out.add(slug)
    return frozenset(out)


def broken_links(path: Path) -> list[str]:
    problems = []
    for line, target in links(path):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # https:, mailto:, ...
            continue
        file_part, _, fragment = target.partition("#")
        goal = (path.parent / unquote(file_part)).resolve() if file_part else path
        where = f"{rel(path)}:{line}: ({target})"
        if not goal.exists():
            problems.append(f"{where} no such file or folder")
        elif ROOT not in goal.parents and goal != ROOT:
            problems.append(f"{where} points outside the repository")
        elif fragment and goal.suffix == ".md" and unquote(fragment) not in anchors(goal):
            problems.append(f"{where} no heading with anchor #{fragment} in {rel(goal)}")
    return problems


# ---------------------------------------------------------------- links and references


@pytest.mark.parametrize("path", tracked_markdown(), ids=rel)
def test_every_relative_link_resolves(path):
    """README.md, docs/*.md and the paradigm and probe READMEs (which link into docs/)."""
    assert broken_links(path) == []


def test_github_slugs_follow_githubs_rules():
    assert github_slug("Flexibility suite (Kennedy & Nowak, Hao et al.)") == (
        "flexibility-suite-kennedy--nowak-hao-et-al"
    )
    assert github_slug("Shortcut audit: `lm-eval-cog audit`") == "shortcut-audit-lm-eval-cog-audit"
    assert github_slug("Parameters (`--metadata`)") == "parameters---metadata"
    assert github_slug("`cog_momente`: Momentè et al.'s cognitive battery") == (
        "cog_momente-momentè-et-als-cognitive-battery"
    )


def test_the_link_check_catches_a_missing_file_and_a_missing_anchor(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "a.md").write_text("# Title\n\n[ok](#title) [gone](b.md) [bad](#nothing) `[code](x.md)`\n")
    problems = broken_links(tmp_path / "a.md")
    assert len(problems) == 2 and "no such file" in problems[0] and "#nothing" in problems[1]


def test_no_markdown_file_refers_to_the_shared_folder():
    """Users get the repository only: papers and notes outside it must be cited, not pointed to."""
    hits = [
        f"{rel(path)}:{number}: {line.strip()}"
        for path in tracked_markdown()
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1)
        if re.search(r"\bshared/", line)
    ]
    assert hits == []


_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}


def number_value(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    tens, _, unit = word.partition("-")
    if tens in _TENS and (not unit or unit in _NUMBER_WORDS):
        return _TENS[tens] + _NUMBER_WORDS.get(unit, 0)
    return _NUMBER_WORDS.get(word)


_PROBE_COUNT = re.compile(
    r"\b(?P<n>[A-Za-z]+(?:-[a-z]+)?|\d+)\s+(?:\*\*)?(?:static|single-prompt)\s+probes"
    r"|\b(?:all|our)\s+(?P<m>\d+|[a-z]+(?:-[a-z]+)?)\s+probes",
    re.IGNORECASE,
)


def test_every_count_of_the_static_probes_matches_the_probe_registry():
    """"Twenty-four static probes", "all 24 probes": the number the registry really holds."""
    from lm_eval_cog.probes.core import REGISTRY

    wrong = []
    for path in tracked_markdown():
        text = path.read_text(encoding="utf-8")
        for match in _PROBE_COUNT.finditer(text):
            value = number_value(match["n"] or match["m"])
            if value is not None and value != len(REGISTRY):
                wrong.append(f"{rel(path)}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}")
    assert wrong == [], f"the registry holds {len(REGISTRY)} probes"


def _table_probes(text: str, header: str) -> list[str]:
    """The probe names in the first column of the Markdown table under the line ``header``."""
    lines = text.split(header + "\n", 1)[1].splitlines()[1:]  # after the separator row
    return [re.match(r"\| `(\w+)` \|", line).group(1) for line in itertools.takewhile(lambda x: x.startswith("|"), lines)
            if not line.startswith("|---")]


def test_the_audit_table_has_one_row_per_probe():
    # Regenerated tables are pasted by hand; one once lost its last five rows (tower_london .. wcst_inference).
    from lm_eval_cog.probes.core import REGISTRY

    text = (ROOT / "docs" / "static-probes.md").read_text(encoding="utf-8")
    header = "| probe | surface | declared heuristics | learned detectors | choices-only LM | shortcuts |"
    assert _table_probes(text, header) == sorted(REGISTRY)


def test_python_api_snippet_is_the_one_the_tests_run_verbatim():
    """docs/tasks.md says tests/test_cli_user_paths.py runs its Python API snippet as written."""
    source = (ROOT / "tests" / "test_cli_user_paths.py").read_text(encoding="utf-8")
    tested = re.search(r'PYTHON_API_SNIPPET = textwrap\.dedent\(\n    """\n(.*?)    """\n\)', source, re.DOTALL)
    (shown,) = [b for b in fenced_blocks(ROOT / "docs" / "tasks.md") if b.language == "python"]
    assert tested is not None and "\n".join(shown.lines) == textwrap.dedent(tested[1]).strip("\n")


def test_every_lm_eval_cog_environment_variable_in_the_docs_is_read_somewhere():
    """Each ``LM_EVAL_COG_*`` the docs name is read by the package, a script or the tests."""
    code = [*(ROOT / "lm_eval_cog").rglob("*.py"), *(ROOT / "scripts").glob("*"), *(ROOT / "tests").glob("*.py")]
    source = "\n".join(p.read_text(encoding="utf-8") for p in code if p.is_file() and p.name != "test_docs.py")
    named = {v for path in DOCS for v in re.findall(r"\bLM_EVAL_COG_[A-Z0-9_]+\b", path.read_text(encoding="utf-8"))}
    assert named and sorted(v for v in named if v not in source) == []


# ---------------------------------------------------------------- the README's task tables


def shipped_task_names() -> set[str]:
    names = set()
    for yaml_file in (ROOT / "task_configs").rglob("*.yaml"):
        for line in yaml_file.read_text(encoding="utf-8").split("\n"):
            match = re.match(r"^(?:task|group|tag):\s*([\w-]+)\s*$", line)
            if match:
                names.add(match[1])
    return names


def expand(pattern: str, placeholders: dict[str, list[str]]) -> list[str]:
    """``cog_wpt_{free,cot}`` -> two names; ``<probe>`` -> one name per probe."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match:
        head, tail = pattern[: match.start()], pattern[match.end() :]
        return [n for alt in match[1].split(",") for n in expand(head + alt + tail, placeholders)]
    match = re.search(r"<(\w+)>", pattern)
    if match:
        values = placeholders[match[1]]
        return [n for value in values for n in expand(pattern.replace(match[0], value, 1), placeholders)]
    return [pattern]


def readme_table_names() -> tuple[set[str], set[str]]:
    """(concrete names, names matched by a ``<probe>`` pattern) in the first column of the README's
    tables under "## Tasks"."""
    from lm_eval_cog.probes.core import REGISTRY

    section = README.read_text(encoding="utf-8").split("\n## Tasks\n", 1)[1].split("\n## ", 1)[0]
    concrete, patterned = set(), set()
    for row in section.split("\n"):
        if not row.startswith("| `"):
            continue
        for name in re.findall(r"`([^`]+)`", row.split("|")[1]):
            if name.startswith("-"):  # the header row: `--tasks`
                continue
            (patterned if "<" in name else concrete).update(expand(name, {"probe": sorted(REGISTRY)}))
    return concrete, patterned


def test_readme_task_tables_name_every_shipped_task_and_group():
    concrete, patterned = readme_table_names()
    assert sorted(shipped_task_names() - concrete - patterned) == []


def test_readme_task_tables_name_only_tasks_that_exist():
    concrete, patterned = readme_table_names()
    shipped = shipped_task_names()
    assert sorted(concrete - shipped) == []
    assert patterned & shipped, "a <probe> pattern of the README matches no task"


# ---------------------------------------------------------------- commands


@dataclass(frozen=True)
class Command:
    where: str
    text: str


def logical_lines(block: Block) -> list[str]:
    """The commands of a block: continuation lines joined; ``console`` blocks: the ``$ `` lines only."""
    out: list[str] = []
    pending: str | None = None
    for raw in block.lines:
        line = raw.rstrip()
        if pending is None:
            if block.language == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            pending = ""
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            out.append(pending.strip())
        pending = None
    if pending and pending.strip():
        out.append(pending.strip())
    return out


def substitutions(command: str) -> tuple[str, list[str]]:
    """The command with each ``$(...)`` replaced by a placeholder word, and the inner commands."""
    inner, out, i = [], [], 0
    while i < len(command):
        if command.startswith("$(", i):
            depth, j = 1, i + 2
            while j < len(command) and depth:
                depth += {"(": 1, ")": -1}.get(command[j], 0)
                j += 1
            inner.append(command[i + 2 : j - 1])
            out.append("SUBSTITUTED")
            i = j
        else:
            out.append(command[i])
            i += 1
    return "".join(out), inner


def split_command(command: str) -> tuple[dict[str, str], list[str], list[str]]:
    """(leading environment assignments, words, inner ``$(...)`` commands); comments dropped."""
    text, inner = substitutions(command)
    words = shlex.split(text, comments=True)
    env = {}
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return env, words, inner


def doc_commands() -> list[Command]:
    found = []
    for path in DOCS:
        for block in fenced_blocks(path):
            if block.language in ("bash", "sh", "console"):
                found += [Command(block.where, line) for line in logical_lines(block)]
    return found


def bash_tested_blocks() -> list[Block]:
    return [block for path in DOCS for block in fenced_blocks(path) if block.tested]


def doc_defined_tasks() -> set[str]:
    """Task names that the docs themselves define in a worked example's YAML (``# task_configs/...``)."""
    names = set()
    for path in DOCS:
        for block in fenced_blocks(path):
            if block.language == "yaml" and block.lines and block.lines[0].startswith("# task_configs/"):
                names.update(re.findall(r"^(?:task|group):\s*([\w-]+)\s*$", "\n".join(block.lines), re.MULTILINE))
    return names


def lm_eval_task_names() -> set[str]:
    """Every task, group and tag lm-eval's own TaskManager sees: ours arrive through the package's
    start-up hook, without --include_path."""
    from lm_eval.tasks import TaskManager

    return set(TaskManager().all_tasks)


@pytest.fixture(scope="module")
def known_tasks():
    """A function giving lm-eval's task names plus those the docs' worked examples define. lm-eval
    indexes some 15,000 tasks (10-20 s): that runs in a thread from the module's first test on,
    beside the tested blocks' child processes, and is awaited when a name is first checked."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(lm_eval_task_names)

        @functools.lru_cache(maxsize=1)
        def names() -> frozenset[str]:
            return frozenset(future.result() | doc_defined_tasks())

        yield names


@pytest.fixture(scope="module", autouse=True)
def _start_task_indexing_early(request):
    if any("known_tasks" in item.fixturenames for item in request.session.items if item.module is request.module):
        request.getfixturevalue("known_tasks")


@functools.lru_cache(maxsize=None)
def lm_eval_parsers() -> dict:
    """lm-eval's own argument parsers, per subcommand (0.4.13: ``lm_eval._cli.harness.HarnessCLI``,
    where ``lm_eval --model ...`` means ``lm_eval run --model ...``)."""
    try:
        from lm_eval._cli.harness import HarnessCLI
    except ImportError:  # lm-eval releases with __main__.setup_parser()
        from lm_eval.__main__ import setup_parser

        return {"run": setup_parser()}
    return dict(HarnessCLI()._subparsers.choices)


@functools.lru_cache(maxsize=None)
def help_text(*argv: str) -> str:
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, env=run_env())
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}"
    return done.stdout


@functools.lru_cache(maxsize=None)
def lm_eval_cog_help(subcommand: str | None) -> str:
    """``lm-eval-cog [SUB] --help``, rendered in-process by click (the same text, without a process start)."""
    import click

    from lm_eval_cog.reports.cli import cli

    if subcommand is None:
        return cli.get_help(click.Context(cli, info_name="lm-eval-cog"))
    command = cli.commands[subcommand]
    parent = click.Context(cli, info_name="lm-eval-cog")
    return command.get_help(click.Context(command, info_name=subcommand, parent=parent))


def flags(words: list[str]) -> list[str]:
    out = []
    for word in words:
        word = word.lstrip("[")
        if re.match(r"^--?[A-Za-z]", word):
            out.append(word.split("=", 1)[0].rstrip("]"))
    return out


def option_value(words: list[str], name: str) -> str | None:
    for i, word in enumerate(words):
        if word == name and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def in_help(flag: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None


def task_problems(words: list[str], known: set[str]) -> list[str]:
    value = option_value(words, "--tasks")
    if value is None or any(mark in value for mark in ("<", "...", "$")):
        return []
    return [f"unknown task {name!r}" for name in value.split(",") if name and name not in known]


def check_command(command: str, known_tasks_fixture) -> list[str]:
    """What is wrong with one documented command ([] when nothing is)."""
    env, words, inner = split_command(command)
    problems = [p for sub in inner for p in check_command(sub, known_tasks_fixture)]
    words = [w for w in words if w != "..."]
    if not words:
        return problems  # an assignment only, e.g. MODEL=$(lm-eval-cog-smollm2)
    program, args = words[0], words[1:]
    if program in SKIPPED_COMMANDS:
        return problems
    if program == "accelerate":  # accelerate launch [its flags] -m lm_eval [lm_eval's]
        if args[:1] != ["launch"] or "-m" not in args or args[args.index("-m") + 1 :][:1] != ["lm_eval"]:
            return problems + ["only `accelerate launch ... -m lm_eval ...` is documented (and checked)"]
        at = args.index("-m")
        text = help_text(str(VENV_BIN / "accelerate"), "launch", "--help")
        problems += [f"accelerate launch --help shows no {f}" for f in flags(args[1:at]) if not in_help(f, text)]
        return problems + check_command(shlex.join(["lm_eval", *args[at + 2 :]]), known_tasks_fixture)
    if program in LM_EVAL:
        parsers = lm_eval_parsers()
        sub = args[0] if args and args[0] in parsers else "run"
        if args and args[0] == sub:
            args = args[1:]
        known_flags = parsers[sub]._option_string_actions
        problems += [f"{program} {sub} has no flag {f}" for f in flags(args) if f not in known_flags]
        return problems + task_problems(args, known_tasks_fixture())
    if program == "lm-eval-cog":
        sub = args[0] if args else None
        if sub is None or not re.search(rf"^\s+{re.escape(sub)}\s", lm_eval_cog_help(None), re.MULTILINE):
            return problems + [f"lm-eval-cog has no subcommand {sub!r}"]
        text = lm_eval_cog_help(sub)
        return problems + [f"lm-eval-cog {sub} --help shows no {f}" for f in flags(args[1:]) if not in_help(f, text)]
    if program in PYTHONS:
        if args[:1] == ["-c"]:
            return problems
        if args[:1] == ["-m"]:
            import importlib.util

            module = args[1]
            if importlib.util.find_spec(module) is None:
                return problems + [f"no module {module}"]
            opts = flags(args[2:])
            text = help_text(sys.executable, "-m", module, "--help") if opts else ""
            return problems + [f"python -m {module} --help shows no {f}" for f in opts if not in_help(f, text)]
        script = ROOT / args[0]
        if not script.is_file():
            return problems + [f"no script {args[0]}"]
        opts = flags(args[1:])
        text = help_text(sys.executable, str(script), "--help") if opts else ""
        problems += [f"{args[0]} --help shows no {f}" for f in opts if not in_help(f, text)]
        return problems + task_problems(args[1:], known_tasks_fixture())
    if program in SHELLS:
        script = ROOT / args[0]
        if not script.is_file():
            return problems + [f"no script {args[0]}"]
        text = script.read_text(encoding="utf-8")
        problems += [f"{args[0]} never mentions {f}" for f in flags(args[1:]) if not in_help(f, text)]
        problems += [f"{args[0]} never reads the environment variable {v}" for v in env if not in_help(v, text)]
        return problems + task_problems(args[1:], known_tasks_fixture())
    if (VENV_BIN / program).exists() and program.startswith("lm-eval-cog"):
        return problems  # another console script of this package (lm-eval-cog-smollm2)
    return problems + [f"unknown command {program!r}: check it here or add it to SKIPPED_COMMANDS"]


def run_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["HF_HUB_OFFLINE"] = "1"
    env["HF_DATASETS_OFFLINE"] = "1"
    return env


@pytest.mark.parametrize("block", bash_tested_blocks(), ids=lambda b: b.where)
def test_bash_tested_block_runs(block, tmp_path):
    """Each line of the block, in order, in a scratch folder, with this venv's lm_eval, lm-eval-cog and
    python first on PATH and the Hugging Face Hub offline."""
    for command in logical_lines(block):
        done = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=run_env(), capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, (
            f"{block.where}: `{command}` exited {done.returncode}\n"
            f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
        )


COMMANDS = doc_commands()


@pytest.mark.parametrize("command", COMMANDS, ids=[f"{c.where}:{c.text[:40]}" for c in COMMANDS])
def test_documented_command_uses_real_programs_flags_and_tasks(command, known_tasks):
    problems = check_command(command.text, known_tasks)
    assert problems == [], f"{command.where}: {command.text}"


def test_the_command_check_catches_wrong_flags_tasks_and_scripts(known_tasks):
    known = known_tasks
    assert check_command("lm_eval --model hf --tasks cog_wcst,cog_no_such_task", known) == [
        "unknown task 'cog_no_such_task'"
    ]
    assert check_command("lm_eval --modle hf --tasks cog_wcst", known) == ["lm_eval run has no flag --modle"]
    assert check_command("python scripts/no_such.py --x", known) == ["no script scripts/no_such.py"]
    assert check_command("lm-eval-cog report out --colour red", known) == [
        "lm-eval-cog report --help shows no --colour"
    ]
    assert check_command("NO_SUCH_VAR=1 bash scripts/test.sh", known) == [
        "scripts/test.sh never reads the environment variable NO_SUCH_VAR"
    ]
    assert check_command("MODEL=$(lm-eval-cog-smollm2)", known) == []
    assert check_command("frobnicate --now", known) == [
        "unknown command 'frobnicate': check it here or add it to SKIPPED_COMMANDS"
    ]


def test_docs_keep_at_least_one_tested_example():
    assert bash_tested_blocks(), "no `bash tested` block left in README.md or docs/"


# ---------------------------------------------------------------- the worked example paradigm


def test_adding_a_paradigm_worked_example_passes_the_conformance_check(tmp_path):
    """The guide's parity paradigm, copied into a scratch package, passes ``check_paradigm`` and its own
    doctest, and plays its reference agents (in a child process, so the scratch paradigm never joins
    this process's registry)."""
    guide = ROOT / "docs" / "adding-a-paradigm.md"
    files = {}
    for block in fenced_blocks(guide):
        head = block.lines[0] if block.lines else ""
        match = re.match(r"^# (lm_eval_cog/paradigms/(\w+)/[\w.]+\.py|task_configs/\S+\.yaml)$", head)
        if match:
            files[match[1]] = "\n".join(block.lines) + "\n"
    names = {re.match(r"lm_eval_cog/paradigms/(\w+)/", f)[1] for f in files if f.endswith(".py")}
    assert len(names) == 1 and f"lm_eval_cog/paradigms/{next(iter(names))}/__init__.py" in files, sorted(files)
    (name,) = names
    for path, text in files.items():
        target = tmp_path / (path.replace("lm_eval_cog/paradigms/", "paradigms/", 1))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (yaml_path,) = [f for f in files if f.endswith(".yaml")]
    script = textwrap.dedent(
        f"""
        import doctest, importlib, yaml
        import lm_eval_cog.paradigms as paradigms
        paradigms.__path__.append({str(tmp_path / "paradigms")!r})
        from lm_eval_cog.paradigms.checks import check_paradigm
        from lm_eval_cog.paradigms.chance import play
        paradigm = paradigms.get_paradigm({name!r})
        check_paradigm(paradigm)
        env_module = importlib.import_module("lm_eval_cog.paradigms.{name}.env")
        tried = doctest.testmod(env_module, optionflags=doctest.ELLIPSIS)
        assert tried.attempted > 0 and tried.failed == 0, tried  # as tests/test_doctests.py asks
        meta = yaml.safe_load(open({str(tmp_path / yaml_path)!r}).read().replace("!function ", ""))["metadata"]
        assert meta["paradigm"] == {name!r} and meta["preset"] in paradigm.presets, meta
        params = paradigm.make_params(meta["preset"], meta["strategy"])
        for policy in ("optimal", "heuristic", "random"):
            print(policy, paradigm.metrics(play(paradigm, params, 7, policy).log, params)[paradigm.primary_metric])
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = dict(line.split() for line in done.stdout.split("\n") if line.strip())
    assert float(scores["optimal"]) == 100.0


def _setup_report_hint() -> str:
    """The ``report:`` hint scripts/setup.sh prints at its end, as the script prints it (OUT=results)."""
    (line,) = [l for l in (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8").splitlines()
               if l.startswith('echo "report:')]  # fmt: skip
    done = subprocess.run(["bash", "-c", line], env={**run_env(), "VENV": ".venv", "OUT": "results"},
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def _output_folder(command: str) -> str:
    args = shlex.split(command)
    return args[args.index("-o") + 1].rstrip("/")


def test_the_setup_hint_and_the_readmes_report_commands_write_distinct_folders():
    """A user who runs set-up, then the README's reference-player example (or the other way round), must
    not meet "output folder report is not empty": every report command writes a folder of its own."""
    hint = _setup_report_hint()
    assert " report results -o report-results " in hint + " "
    lines = [*README.read_text(encoding="utf-8").splitlines(), hint]
    # The command itself: from `lm-eval-cog` to a trailing "   (what it writes)" remark, if any.
    commands = {re.sub(r"^.*?(lm-eval-cog )", r"\1", line).partition("   (")[0].strip() for line in lines
                if re.search(r"lm-eval-cog (report|compare|leaderboard) .* -o ", line)}  # fmt: skip
    folders = [_output_folder(c) for c in sorted(commands)]
    assert len(commands) >= 2 and len(set(folders)) == len(folders), sorted(commands)


def _yaml_versions() -> dict[tuple[str, str], set[str]]:
    """(kind, version) -> names, for the interactive tasks (InteractiveTask YAMLs) and every group."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    out: dict[tuple[str, str], set[str]] = {}
    for path in (ROOT / "task_configs").rglob("*.yaml"):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
        if not isinstance(config, dict):
            continue
        version = str((config.get("metadata") or {}).get("version"))
        if "group" in config:
            out.setdefault(("group", version), set()).add(config["group"])
        elif str(config.get("class", "")).endswith(".InteractiveTask"):
            out.setdefault(("task", version), set()).add(config["task"])
    return out


def test_the_task_versions_docs_name_every_interactive_task_at_its_yaml_version():
    text = (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8")
    paragraph = " ".join(text.split("**Task versions.**", 1)[1].split("\n\n", 1)[0].split())
    at_2 = paragraph.split("Interactive tasks at version 2.0", 1)[1].split("Interactive tasks at version 1.0", 1)[0]
    at_1 = paragraph.split("Interactive tasks at version 1.0", 1)[1]
    tasks_2, groups_2 = at_2.split("and the groups", 1)

    def names(part: str) -> set[str]:
        return {n for pattern in re.findall(r"`(cog_[^`]+)`", part) for n in expand(pattern, {})}

    versions = _yaml_versions()
    assert names(tasks_2) == versions[("task", "2.0")]
    assert names(groups_2) == versions[("group", "2.0")]
    assert names(at_1) == versions[("task", "1.0")]
    assert {kind for kind, version in versions if kind == "task" and version not in ("1.0", "2.0")} == set()
