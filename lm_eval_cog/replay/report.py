"""The replay's rows, its per-game table, and its files (``replay.csv``, strict-JSON ``replay.json``)."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lm_eval_cog import strict_json
from lm_eval_cog.replay.play import Replayed
from lm_eval_cog.replay.verdicts import DOCUMENTED, ERROR, IDENTICAL, UNEXPLAINED, verdict

CSV_FIELDS = (
    "model", "game", "experiment", "episode", "reference_outcome", "reference_main_score", "reference_source",
    "our_outcome", "our_main_score", "our_requests", "unused_replies", "verdict", "reason", "path",
)  # fmt: skip


def rows(replayed: Sequence[Replayed], root: Path) -> list[dict[str, Any]]:
    """One JSON-ready row per episode: ``game, experiment, episode, reference, ours, verdict`` and
    where it is (``model``, ``path`` relative to ``root``), with the reason of an error."""
    out = []
    for r in replayed:
        v = verdict(r)
        reason = r.error or ("no reference score beside the transcript" if v == ERROR and r.reference is None else None)
        if r.ours is not None and r.ours.outcome == "failed":
            reason = r.ours.source
        out.append({
            "model": r.model, "game": r.game, "experiment": r.experiment, "episode": r.episode,
            "reference": r.reference.record() if r.reference else None,
            "ours": None if r.ours is None else {**r.ours.record(), "requests": r.requests,
                                                  "unused_replies": r.unused_replies},
            "verdict": v, "reason": reason, "path": _relative(r.path, root),
        })  # fmt: skip
    return out


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _short(model: str) -> str:
    """A self-play pair (``A--A``) by its one model's name."""
    first, _, second = model.partition("--")
    return first if first == second else model


def _kind(v: str) -> str:
    return DOCUMENTED if v.startswith(DOCUMENTED + ":") else v


def table(data: Sequence[dict[str, Any]]) -> list[str]:
    """Per game (and model): episodes, identical, documented (by difference), unexplained, errors,
    and the mean main score (played episodes) and success share, published vs ours."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in data:
        groups[(row["model"], row["game"])].append(row)
    head = f"{'model':<36} {'game':<18} {'n':>3} {'ident':>5} {'doc':>4} {'unexp':>5} {'err':>4}  " \
           f"{'success ref/ours':>16}  {'main ref/ours':>15}"  # fmt: skip
    lines = [head, "-" * len(head)]
    for (model, game), group in sorted(groups.items()):
        kinds = Counter(_kind(r["verdict"]) for r in group)
        lines.append(
            f"{_short(model)[:36]:<36} {game:<18} {len(group):>3} {kinds[IDENTICAL]:>5} {kinds[DOCUMENTED]:>4} "
            f"{kinds[UNEXPLAINED]:>5} {kinds[ERROR]:>4}  {_pair(group, _success):>16}  {_pair(group, _main):>15}"
        )
    documented = Counter(r["verdict"].split(":", 1)[1] for r in data if _kind(r["verdict"]) == DOCUMENTED)
    for name, n in sorted(documented.items()):
        lines.append(f"documented:{name}: {n} episode(s)")
    for row in data:
        if row["verdict"] in (ERROR, UNEXPLAINED):
            lines.append(f"{row['verdict']}: {row['path']}: {row['reason'] or _describe(row)}")
    return lines


def _describe(row: dict[str, Any]) -> str:
    ref, ours = row["reference"] or {}, row["ours"] or {}
    return (f"reference {ref.get('outcome')} {ref.get('main_score')} ({ref.get('source')}), "
            f"ours {ours.get('outcome')} {ours.get('main_score')}")  # fmt: skip


def _success(side: dict[str, Any] | None) -> float | None:
    return None if side is None else float(side["outcome"] == "success")


def _main(side: dict[str, Any] | None) -> float | None:
    return None if side is None else side.get("main_score")


def _mean(values: list[float | None]) -> str:
    kept = [v for v in values if v is not None]
    return f"{sum(kept) / len(kept):.1f}" if kept else "-"


def _pair(group: Sequence[dict[str, Any]], get) -> str:
    scale = 100.0 if get is _success else 1.0
    ref = [None if (v := get(r["reference"])) is None else v * scale for r in group]
    ours = [None if (v := get(r["ours"])) is None else v * scale for r in group]
    return f"{_mean(ref)}/{_mean(ours)}"


def write(out_dir: Path, data: Sequence[dict[str, Any]]) -> list[Path]:
    """``replay.json`` (strict JSON: ``{"rows": [...]}``) and ``replay.csv`` (csv module: quoted as needed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = out_dir / "replay.json", out_dir / "replay.csv"
    json_path.write_text(strict_json.dumps({"rows": list(data)}, indent=1) + "\n", encoding="utf-8")
    with csv_path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for row in data:
            ref, ours = row["reference"] or {}, row["ours"] or {}
            writer.writerow({
                "model": row["model"], "game": row["game"], "experiment": row["experiment"], "episode": row["episode"],
                "reference_outcome": ref.get("outcome"), "reference_main_score": ref.get("main_score"),
                "reference_source": ref.get("source"), "our_outcome": ours.get("outcome"),
                "our_main_score": ours.get("main_score"), "our_requests": ours.get("requests"),
                "unused_replies": ours.get("unused_replies"), "verdict": row["verdict"], "reason": row["reason"],
                "path": row["path"],
            })  # fmt: skip
    return [csv_path, json_path]
