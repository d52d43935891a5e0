#!/usr/bin/env python3
"""Build the ``paper`` preset's instances of the dialogue games (``lm_eval_cog/games/data/paper_*.json``).

Momentè et al. (2025) ran clembench's games from ``momentino/playpen`` at commit ``b0c97d3``
(MIT licence, "Copyright (c) 2023 clp-research"). This script reads that commit's
``playpen/games/<game>/in/instances.json`` files with ``git show`` and keeps, per game, what our
game masters need to play the same episodes with the same messages:

* ``paper_taboo.json``: per experiment the describer's and guesser's prompt templates; per
  instance the target and the three related words. The same words are published in every
  clembench v1.5/v1.6 Taboo transcript (``clembench/clembench-runs``, CC BY 4.0); with
  ``--runs DIR`` each transcript found there is checked against them.
* ``paper_wordle.json``: per instance the target and its clue (the three Wordle variants share
  them: checked). The 12,953-word list of allowed guesses is not kept (see LICENSES.md).
* ``paper_reference.json``: the giver's and follower's prompt templates (checked to rebuild every
  instance's prompt exactly) and per instance the three grids of each player and the target's
  position among the follower's grids.
* ``paper_image.json``: the giver's and drawer's headers and the question (one for all
  instances: checked), and per instance the target grid.
* ``paper_privateshared.json``: per experiment the questioner's tag, the request wordings and
  probe questions (``resources/texts/<experiment>/``), the retry suffixes; per instance the slot
  values, the request order, the wording chosen for each request and probe, and the initial
  prompt as sent.

Run from the repository root (the output is deterministic)::

    python scripts/build_paper_instances.py --playpen /path/to/playpen.git \\
        --runs /path/to/clembench-runs --out lm_eval_cog/games/data
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

COMMIT = "b0c97d32"
REPO = "momentino/playpen"
SOURCE = {
    "repository": f"https://github.com/{REPO}",
    "commit": COMMIT,
    "licence": "MIT, Copyright (c) 2023 clp-research",
    "built_by": "scripts/build_paper_instances.py",
}
#: Paper experiment name -> ours (our parameters' ``experiment`` values).
TABOO_NAMES = {"high_en": "high", "medium_en": "medium", "low_en": "low"}
WORDLE_NAMES = {"high_frequency_words": "high", "medium_frequency_words": "medium"}


def show(gitdir: Path, path: str) -> str:
    out = subprocess.run(["git", f"--git-dir={gitdir}", "show", f"{COMMIT}:{path}"], check=True,
                         capture_output=True)  # fmt: skip
    return out.stdout.decode("utf-8")


def instances(gitdir: Path, game: str) -> dict:
    return json.loads(show(gitdir, f"playpen/games/{game}/in/instances.json"))


def source(game: str) -> dict:
    return {**SOURCE, "file": f"playpen/games/{game}/in/instances.json"}


def taboo(gitdir: Path) -> dict:
    data = instances(gitdir, "taboo")
    experiments = []
    for exp in data["experiments"]:
        experiments.append({
            "name": TABOO_NAMES[exp["name"]], "paper_name": exp["name"], "max_turns": exp["max_turns"],
            "describer_prompt": exp["describer_initial_prompt"], "guesser_prompt": exp["guesser_initial_prompt"],
            "instances": [{"game_id": i["game_id"], "target": i["target_word"], "related": i["related_word"]}
                          for i in exp["game_instances"]],
        })  # fmt: skip
    return {"source": source("taboo"), "experiments": experiments}


def wordle(gitdir: Path) -> dict:
    variants = {v: instances(gitdir, v) for v in ("wordle", "wordle_withclue", "wordle_withcritic")}
    experiments = []
    for exp in variants["wordle"]["experiments"]:
        paper = exp["name"].removesuffix("_no_clue_no_critic")
        rows = [{"game_id": i["game_id"], "target": i["target_word"], "clue": i["target_word_clue"]}
                for i in exp["game_instances"]]  # fmt: skip
        for name, other in variants.items():
            (match,) = [e for e in other["experiments"] if e["name"].startswith(paper)]
            theirs = [(i["target_word"], i["target_word_clue"]) for i in match["game_instances"]]
            if theirs != [(r["target"], r["clue"]) for r in rows]:
                raise SystemExit(f"{name}/{match['name']}: targets differ from plain Wordle's")
        experiments.append({"name": WORDLE_NAMES[paper], "paper_name": paper, "instances": rows})
    return {"source": {**source("wordle"), "also": ["playpen/games/wordle_withclue/in/instances.json",
                                                     "playpen/games/wordle_withcritic/in/instances.json"]},
            "experiments": experiments}  # fmt: skip


REFERENCE_GIVER_KEYS = ("player_1_target_grid", "player_1_second_grid", "player_1_third_grid")
REFERENCE_FOLLOWER_KEYS = ("player_2_first_grid", "player_2_second_grid", "player_2_third_grid")
GRID_SLOTS = ("$GRID1$", "$GRID2$", "$GRID3$")


def _template(text: str, grids: list[str]) -> str:
    """``text`` with the three grids replaced by ``$GRID1$``..``$GRID3$`` (each grid once, in order)."""
    out, at = [], 0
    for slot, grid in zip(GRID_SLOTS, grids):
        found = text.index(grid, at)
        out += [text[at:found], slot]
        at = found + len(grid)
    return "".join(out) + text[at:]


def reference(gitdir: Path) -> dict:
    data = instances(gitdir, "referencegame")
    giver, follower, experiments = set(), set(), []
    for exp in data["experiments"]:
        rows = []
        for i in exp["game_instances"]:
            g = [i[k] for k in REFERENCE_GIVER_KEYS]
            f = [i[k] for k in REFERENCE_FOLLOWER_KEYS]
            giver.add(_template(i["player_1_prompt_header"], g))
            follower.add(_template(i["player_2_prompt_header"], f))
            names = i["target_grid_name"]
            position = ["first", "second", "third"].index(names[0])
            if f[position] != g[0]:
                raise SystemExit(f"referencegame {exp['name']}/{i['game_id']}: the target is not at {names}")
            rows.append({"game_id": i["game_id"], "giver_grids": g, "follower_grids": f, "target_position": position})
        experiments.append({"name": exp["name"], "instances": rows})
    if len(giver) != 1 or len(follower) != 1:
        raise SystemExit(f"referencegame: {len(giver)} giver and {len(follower)} follower templates, expected 1 each")
    return {"source": source("referencegame"), "giver_template": giver.pop(), "follower_template": follower.pop(),
            "experiments": experiments}  # fmt: skip


def image(gitdir: Path) -> dict:
    data = instances(gitdir, "imagegame")
    shared = {(i["player_1_prompt_header"], i["player_2_prompt_header"], i["player_1_question"])
              for e in data["experiments"] for i in e["game_instances"]}  # fmt: skip
    if len(shared) != 1:
        raise SystemExit(f"imagegame: {len(shared)} different headers, expected 1")
    giver, drawer, question = shared.pop()
    experiments = [{"name": e["name"], "instances": [{"game_id": i["game_id"], "target_grid": i["target_grid"]}
                                                    for i in e["game_instances"]]} for e in data["experiments"]]
    return {"source": source("imagegame"), "giver_header": giver, "drawer_header": drawer, "question": question,
            "experiments": experiments}  # fmt: skip


def privateshared(gitdir: Path) -> dict:
    data = instances(gitdir, "privateshared")
    texts = "playpen/games/privateshared/resources/texts"
    experiments = []
    for exp in data["experiments"]:
        name = exp["name"]
        rows = [{"game_id": i["game_id"], "slots": i["slots"], "request_order": i["request_order"],
                 "requests": i["requests"], "probes": [i["probes"][str(r)] for r in range(len(i["probes"]))],
                 "initial_prompt": i["initial_prompt"]} for i in exp["game_instances"]]  # fmt: skip
        tags = {i["tag"] for i in exp["game_instances"]}
        if len(tags) != 1:
            raise SystemExit(f"privateshared {name}: {len(tags)} tags")
        experiments.append({
            "name": name, "tag": tags.pop(),
            "requests": json.loads(show(gitdir, f"{texts}/{name}/requests.json")),
            "probing_questions": json.loads(show(gitdir, f"{texts}/{name}/probing_questions.json")),
            "instances": rows,
        })  # fmt: skip
    suffixes = json.loads(show(gitdir, f"{texts}/reprompts.json"))["suffixes"]
    return {"source": {**source("privateshared"), "also": [f"{texts}/<experiment>/requests.json",
                                                            f"{texts}/<experiment>/probing_questions.json",
                                                            f"{texts}/reprompts.json"]},
            "retry_suffixes": suffixes, "experiments": experiments}  # fmt: skip


def check_taboo_transcripts(data: dict, runs: Path) -> int:
    """Every Taboo transcript under ``runs`` names the target and related words of its instance."""
    by_name = {e["paper_name"]: e for e in data["experiments"]}
    checked = 0
    for path in sorted(runs.glob("**/taboo/*/episode_*/interactions.json")):
        exp = by_name[path.parent.parent.name.split("_", 1)[1]]
        episode = int(path.parent.name.removeprefix("episode_"))
        first = json.loads(path.read_text(encoding="utf-8"))["turns"][0][0]["action"]["content"]
        inst = exp["instances"][episode]
        shown = first.split("guess:\n\n", 1)[1].split("\n\nRelated words are:\n\n", 1)
        related = [w.removeprefix("- ") for w in shown[1].split("\n\nImportant:", 1)[0].split("\n")]
        if (shown[0], related) != (inst["target"], inst["related"]):
            raise SystemExit(f"{path}: shows {shown[0]!r} {related}, the instance is {inst}")
        checked += 1
    return checked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--playpen", type=Path, required=True, help="a git directory of momentino/playpen")
    ap.add_argument("--runs", type=Path, help="a folder of clembench-runs transcripts to check Taboo against")
    ap.add_argument("--out", type=Path, default=Path("lm_eval_cog/games/data"))
    args = ap.parse_args(argv)
    built = {"taboo": taboo(args.playpen), "wordle": wordle(args.playpen), "reference": reference(args.playpen),
             "image": image(args.playpen), "privateshared": privateshared(args.playpen)}  # fmt: skip
    if args.runs:
        print(f"taboo: {check_taboo_transcripts(built['taboo'], args.runs)} transcripts agree", file=sys.stderr)
    for game, data in built.items():
        path = args.out / f"paper_{game}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        n = sum(len(e["instances"]) for e in data["experiments"])
        print(f"{path}: {n} instances", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
