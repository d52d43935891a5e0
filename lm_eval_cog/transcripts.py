"""Episode transcripts, as logged by ``--log_samples``: read them back and rescore them offline.

Each sample of an interactive task holds its episode's transcript (a JSON string)
as ``resps[0][0]``: paradigm, preset, strategy, overrides, seeds, the parameters
played (``params``), the model, the system prompt, the user's ``system_instruction``,
the chat-template switch and the generation settings as sent, every turn (user
message, raw reply, dropped turns, prompt tokens), the trial log, the status and any
error. Every prompt can be rebuilt from it (:func:`rebuild_prompt`), and the metrics
are a pure function of it, computed with the stored parameters::

    python -m lm_eval_cog.transcripts out/<model>/samples_cog_wcst_<date>.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lm_eval_cog import strict_json
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.rendering import LONE_SURROGATE, Renderer
from lm_eval_cog.runner import Episode, Turn

#: Extra metric of every interactive task: 1 for an episode that failed, else 0.
FAILED_METRIC = "episode_failed"
#: Extra metric of every interactive task: share of the episode's prompt tokens that the
#: backend served from its prefix cache (vLLM reports it per request); NaN when not reported.
CACHED_METRIC = "prefix_cached_share"


def cached_share(transcript: dict[str, Any]) -> float:
    """Cached / prompt tokens over the turns whose cached count the backend reported."""
    turns = [t for t in transcript["turns"] if t.get("cached_tokens") is not None and t.get("prompt_tokens")]
    prompt = sum(t["prompt_tokens"] for t in turns)
    return sum(t["cached_tokens"] for t in turns) / prompt if prompt else math.nan


def dumps(transcript: dict[str, Any]) -> str:
    """The transcript as JSON text that any UTF-8 writer accepts.

    Non-ASCII text stays readable; lone surrogates (a backend's undecodable bytes,
    e.g. ``surrogateescape``) cannot be encoded as UTF-8, so they are written as JSON
    escapes (``\\udcff``), which ``json.loads`` turns back into the same characters.
    (Outside strings JSON has no such characters, so the substitution is safe.)
    """
    text = strict_json.dumps(transcript, ensure_ascii=False)  # undefined floats as null, not NaN
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def stored_params(transcript: dict[str, Any], paradigm: Any) -> Any:
    """The parameters the episode was played with.

    ``transcript["params"]`` (written by the seam) wins over the preset: presets may
    change between releases, a transcript must rescore as it was played. Transcripts
    without it (older ones) fall back to preset, strategy and overrides.
    """
    stored = transcript.get("params")
    if not isinstance(stored, dict):
        return paradigm.make_params(transcript["preset"], transcript["strategy"], transcript["overrides"])
    # The types (enum, tuple) come from a template instance: JSON made them str and list.
    template = paradigm.presets.get(transcript.get("preset")) or paradigm.presets[paradigm.default_preset]
    fields = {f.name for f in dataclasses.fields(template)}
    unknown = sorted(set(stored) - fields)
    if unknown:
        raise ValueError(
            f"transcript params {unknown} are not {paradigm.name} parameters any more; "
            "rescore it with the release that played it"
        )
    return dataclasses.replace(template, **{k: _like(getattr(template, k), v) for k, v in stored.items()})


def _like(template: Any, value: Any) -> Any:
    if isinstance(template, enum.Enum):
        return type(template)(value)
    if isinstance(template, tuple) and isinstance(value, list):
        inner = template[0] if template else None
        return tuple(_like(inner, v) if inner is not None else v for v in value)
    return value


def score_transcript(transcript: str | dict[str, Any], paradigm: Any = None) -> dict[str, float]:
    """Metrics of one episode from its transcript, with the parameters stored in it.

    A failed episode scores NaN on every paradigm metric (the task aggregates them
    with lm-eval's ``nanmean``, so it drops out of the means) and 1 on ``episode_failed``.
    ``prefix_cached_share`` is a property of the backend run, not of the model's play.
    """
    if isinstance(transcript, str):
        transcript = json.loads(transcript)
    paradigm = paradigm or get_paradigm(transcript["paradigm"])
    if transcript["status"] == "failed":
        out = {s.name: math.nan for s in paradigm.metric_specs}
        out.update(paradigm.failed_scores)
    else:
        params = stored_params(transcript, paradigm)
        out = {k: float(v) for k, v in paradigm.metrics(transcript["trials"], params).items()}
    out[FAILED_METRIC] = float(transcript["status"] == "failed")
    out[CACHED_METRIC] = cached_share(transcript)
    return out


def rebuild_prompt(
    transcript: str | dict[str, Any],
    turn: int,
    chat_template: Callable[[list[dict[str, str]]], Any] | None = None,
) -> Any:
    """The prompt of turn ``turn`` (0-based) exactly as the backend received it.

    Everything comes from the transcript (system prompt, ``system_instruction``, turns,
    replies, dropped turns) except, for a chat-template run, the model's template:
    pass it, e.g. ``lm.apply_chat_template`` of the same model.
    """
    if isinstance(transcript, str):
        transcript = json.loads(transcript)
    if transcript.get("apply_chat_template") and chat_template is None:
        raise ValueError("this episode was rendered with the model's chat template: pass chat_template=")
    turns = [Turn(**t) for t in transcript["turns"][: turn + 1]]
    system = transcript["system"]
    if turns[-1].role is not None:  # a game: the conversation of that turn's role
        turns = [t for t in turns if t.role == turns[-1].role]
        system = (transcript.get("systems") or {}).get(turns[-1].role, "")
    env_cls = _env_class(transcript.get("paradigm"))
    episode = Episode(spec=transcript, system=system, turns=turns, pinned=getattr(env_cls, "pinned_turns", 0),
                      trims=getattr(env_cls, "trims_history", True))  # fmt: skip
    renderer = Renderer(
        chat_template=chat_template if transcript.get("apply_chat_template") else None,
        count_tokens=len,
        system_instruction=transcript.get("system_instruction"),
    )
    return renderer.to_prompt(renderer.messages(episode, turns[-1].dropped_turns))


def _env_class(paradigm: Any) -> type | None:
    """The env class of a transcript's paradigm (its pinned turns rebuild the prompt); None if unknown."""
    try:
        return get_paradigm(paradigm).env_cls if isinstance(paradigm, str) else None
    except (KeyError, ValueError):
        return None


def read_transcripts(samples_jsonl: str | Path) -> list[dict[str, Any]]:
    """The episode transcripts of an lm-eval samples file, in document order."""
    rows = [json.loads(line) for line in Path(samples_jsonl).read_text().splitlines() if line.strip()]
    return [json.loads(row["resps"][0][0]) for row in sorted(rows, key=lambda r: r["doc_id"])]


def recompute(samples_jsonl: str | Path) -> dict[str, float]:
    """Task-level metrics from a samples file, aggregated with lm-eval's own ``nanmean``
    (what the task uses, so the numbers match the results JSON)."""
    from lm_eval.api.metrics import nanmean

    scores = [score_transcript(t) for t in read_transcripts(samples_jsonl)]
    return {name: float(nanmean([s[name] for s in scores])) for name in scores[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lm_eval_cog.transcripts", description="Rescore logged episodes.")
    parser.add_argument("samples", nargs="+", type=Path, help="samples_<task>_<date>.jsonl files")
    args = parser.parse_args(argv)
    for path in args.samples:
        print(strict_json.dumps({"samples": str(path), **recompute(path)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
