"""The episode viewer: every logged episode (or static-probe item) of a task as an HTML fragment.

One collapsible ``<details class="episode">`` per sample: a header (index, seed, status, error,
headline score, right/wrong/invalid counts), then the conversation turn by turn with each
trial marked ``trial-right`` / ``trial-wrong`` / ``trial-invalid`` (or ``trial-none`` where the
turn has no right answer, e.g. an IGT choice or a 2-4-6 query). Each mark is also written as a
word, so the page reads without colour. Every text from a model, a user message or a file goes
through :func:`html.escape`. The page shell, CSS and JS are ``html.py``'s.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_cog.reports.transcript_figures import solved_of, transcript_of

#: Episodes shown per task; the rest are counted in a note, so that pages stay small.
MAX_EPISODES = 200
#: Size of the fragment (characters) after which further episodes are left out (the note says how many).
MAX_PAGE_CHARS = 5_000_000
#: Characters shown of one message; longer ones are cut with a note saying how much is left out.
MAX_CHARS = 4000

RIGHT, WRONG, INVALID, NONE = "right", "wrong", "invalid", "none"


@dataclass(frozen=True)
class Mark:
    """How a turn is marked: ``kind`` (right/wrong/invalid/none) and the words shown with it."""

    kind: str
    label: str

    @property
    def css(self) -> str:
        return f"trial-{self.kind}"


def text(value: Any, limit: int = MAX_CHARS) -> str:
    """``value`` as escaped HTML text, cut at ``limit`` characters.

    Lone surrogates (undecodable bytes a backend passed on) cannot be written as UTF-8:
    they are shown as ``\\udcff`` escapes instead of making the page unwritable.
    """
    s = "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    s = s.encode("utf-8", "backslashreplace").decode("utf-8")
    cut = ""
    if len(s) > limit:
        cut = f"\n… ({len(s) - limit} more characters not shown)"
        s = s[:limit]
    return html.escape(s + cut)


# --------------------------------------------------------------------------- #
# Marks
# --------------------------------------------------------------------------- #


def _igt_mark(trial: Mapping[str, Any], phase: str) -> Mark:
    """IGT has no right deck per trial: a readable choice is unmarked (``none``), with what it drew."""
    code = trial.get(f"{phase}_invalid")
    if code:
        return Mark(INVALID, f"invalid ({code})")
    if phase == "first":
        return Mark(
            NONE,
            f"first choice {trial.get('first')}: preview +{trial.get('preview_gain')} -{trial.get('preview_loss')}",
        )
    return Mark(
        NONE,
        f"final choice {trial.get('final')}: +{trial.get('gain')} -{trial.get('loss')}, balance {trial.get('balance')}",
    )


def trial_mark(trial: Mapping[str, Any], solved: bool | None = None, phase: str | None = None) -> Mark:
    """The mark of one trial record.

    ``outcome`` (correct/error/invalid) decides where the paradigm records one. Otherwise:
    a reflect answer is right/wrong by ``correct`` (invalid without a choice); a reflection by
    ``final_correct`` (invalid if unreadable); a 2-4-6 query has no right answer (``none``) and a
    2-4-6 rule is right/wrong by ``solved`` (the episode's ``acc``); IGT choices by ``phase``.
    """
    if phase in ("first", "final"):
        return _igt_mark(trial, phase)
    outcome = trial.get("outcome")
    if outcome == "correct":
        return Mark(RIGHT, "right")
    if outcome == "error":
        return Mark(WRONG, "wrong")
    if outcome == "invalid":
        return Mark(INVALID, f"invalid ({trial.get('invalid') or 'unreadable'})")
    if trial.get("phase") == "answer":
        if trial.get("choice") is None:
            return Mark(INVALID, "invalid (no choice named)")
        return Mark(RIGHT, "right") if trial.get("correct") else Mark(WRONG, "wrong")
    if trial.get("phase") == "reflection" or trial.get("kind") == "reflection":
        if trial.get("reflection_invalid"):
            return Mark(INVALID, "invalid reflection")
        final = trial.get("final_correct")
        revision = trial.get("revision")
        suffix = f" after reflection ({revision})" if revision else " after reflection"
        if final is None:
            return Mark(NONE, "reflection" + (f" ({revision})" if revision else ""))
        return Mark(RIGHT if final else WRONG, ("right" if final else "wrong") + suffix)
    if "kind" in trial:  # 2-4-6
        if trial.get("invalid"):
            return Mark(INVALID, f"invalid ({trial['invalid']})")
        if trial["kind"] == "query":
            expected = f" (expected {trial['expect']})" if trial.get("expect") else ""
            return Mark(NONE, f"query: answer {trial.get('answer')}{expected}")
        if trial["kind"] == "rule":
            if solved is None:
                return Mark(NONE, "rule stated")
            return Mark(RIGHT, "rule right") if solved else Mark(WRONG, "rule wrong")
    return Mark(NONE, "")


#: How a game's move is shown: its status (games/base.py) as the viewer's kinds. A valid move is
#: not "right" (a valid guess may be wrong): it is unmarked; a rule-breaking one is marked wrong.
GAME_MOVE_KINDS = {"valid": (NONE, "valid"), "violation": (WRONG, "violating"), "rejected": (INVALID, "rejected"),
                   "invalid": (INVALID, "invalid")}  # fmt: skip


def is_game(transcript: Mapping[str, Any]) -> bool:
    """A dialogue game's transcript: its log holds move records (one per model call)."""
    return any(isinstance(t, Mapping) and t.get("type") == "move" for t in transcript.get("trials") or [])


def move_mark(record: Mapping[str, Any]) -> Mark:
    """A game move: valid, violating (breaks a rule that loses the game), rejected or invalid, with
    the action, what the reply was read as and the reason."""
    kind, word = GAME_MOVE_KINDS.get(str(record.get("status")), (INVALID, str(record.get("status"))))
    parts = [f"{word} {record.get('action', 'move')}"]
    if record.get("content") not in (None, ""):
        parts.append(f"read as {record['content']!r}" if isinstance(record["content"], str) else f"read as {record['content']}")
    if record.get("reason"):
        parts.append(f"({record['reason']})")
    return Mark(kind, " ".join(parts))


def turn_marks(transcript: Mapping[str, Any], solved: bool | None = None) -> list[Mark | None]:
    """One mark per turn (None for a turn with no trial record, e.g. the turn an episode failed on).

    IGT asks two replies per trial (first and final choice): turn i is trial i // 2. A game logs
    one move per model call (turn i is move i). Every other paradigm logs one record per reply:
    turn i is trial i.
    """
    turns = transcript.get("turns") or []
    trials = [t for t in transcript.get("trials") or [] if isinstance(t, Mapping)]
    if is_game(transcript):
        moves = [t for t in trials if t.get("type") == "move"]
        return [move_mark(moves[i]) if i < len(moves) else None for i in range(len(turns))]
    igt = transcript.get("paradigm") == "igt"
    marks: list[Mark | None] = []
    for i in range(len(turns)):
        j = i // 2 if igt else i
        if j >= len(trials):
            marks.append(None)
            continue
        marks.append(trial_mark(trials[j], solved, ("first", "final")[i % 2] if igt else None))
    return marks


# --------------------------------------------------------------------------- #
# HTML
# --------------------------------------------------------------------------- #


def _number(value: Any) -> str:
    if value is None:  # an undefined value, as our files write it
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return html.escape(str(value))
    return "n/a" if isinstance(value, float) and math.isnan(value) else f"{value:.4g}"


def _metric_names(sample: Mapping[str, Any]) -> list[str]:
    """The names in the sample's ``metrics`` list (lm-eval lists the task's metrics there)."""
    names = sample.get("metrics")
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def headline(sample: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The sample's first listed metric with a number."""
    for name in _metric_names(sample):
        value = sample.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(name), value
    return None


def _metrics_line(sample: Mapping[str, Any]) -> str:
    parts = [
        f"{html.escape(n)}={_number(sample[n])}"
        for n in _metric_names(sample)
        if isinstance(sample.get(n), (int, float)) and not isinstance(sample.get(n), bool)
    ]
    return f'<p class="episode-metrics">{", ".join(parts)}</p>' if parts else ""


def _message(role: str, who: str, body: str) -> str:
    return f'<div class="{role}"><span class="who">{who}</span><pre>{body}</pre></div>'


def episode_html(transcript: Mapping[str, Any], sample: Mapping[str, Any], *, show_system: bool = True) -> str:
    """One episode as a ``<details class="episode">`` block."""
    marks = turn_marks(transcript, solved_of(sample))
    counts = {k: sum(m is not None and m.kind == k for m in marks) for k in (RIGHT, WRONG, INVALID, NONE)}
    index = transcript.get("index", sample.get("doc_id"))
    status = str(transcript.get("status", "unknown"))
    head = [f"Episode {text(index)}", f"seed {text(transcript.get('seed'))}", text(status)]
    top = headline(sample)
    if top:
        head.append(f"{html.escape(top[0])} {_number(top[1])}")
    game = is_game(transcript)
    if game:
        end = next((t for t in reversed(transcript.get("trials") or []) if isinstance(t, Mapping) and t.get("type") == "end"), None)
        if end is not None:
            head.append(f"outcome {text(end.get('outcome'))}")
        head.append(f"{counts[NONE]} valid, {counts[WRONG]} violating, {counts[INVALID]} invalid or rejected moves")
    else:
        head.append(f"{counts[RIGHT]} right, {counts[WRONG]} wrong, {counts[INVALID]} invalid")
    status_class = " episode-failed" if status == "failed" else ""
    out = [f'<details class="episode{status_class}"><summary>{" · ".join(head)}</summary>']
    if transcript.get("error"):
        out.append(f'<p class="episode-error">Error: {text(transcript["error"])}</p>')
    out.append(_metrics_line(sample))
    if show_system and transcript.get("system"):
        out.append(
            f'<details class="system-prompt"><summary>System prompt</summary><pre>'
            f"{text(transcript['system'], 4 * MAX_CHARS)}</pre></details>"
        )
    out.append('<ol class="turns">')
    for turn, mark in zip(transcript.get("turns") or [], marks):
        turn = turn if isinstance(turn, Mapping) else {"user": turn}
        css = mark.css if mark else "trial-none"
        label = f'<span class="mark">{text(mark.label)}</span>' if mark and mark.label else ""
        reply = turn.get("reply")
        role = turn.get("role")
        # A game: who speaks, and whether the message was a question asked aside (a probe).
        asker = "User" if not game else f"Game master to {text(role)}" + ("" if turn.get("kept", True) else " (aside)")
        body = _message("user", asker, text(turn.get("user")))
        if turn.get("image"):
            body += f'<p class="image-note">[image: {text(turn["image"])}]</p>'
        who = "Model" if not game else f"{text(role)} (model)"
        body += _message("reply", who, text(reply)) if reply is not None else '<p class="no-reply">(no reply)</p>'
        out.append(f'<li class="turn {css}">{body}{label}</li>')
    out.append("</ol>")
    if transcript.get("closing"):
        out.append(_message("closing user", "User", text(transcript["closing"])))
    out.append("</details>")
    return "".join(out)


def _option(sample: Mapping[str, Any]) -> tuple[str, str]:
    """(what the model answered, how it was read) of a static sample: a generation's reply and
    extracted answer, or the highest log-likelihood option of a multiple-choice item."""
    doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
    filtered = sample.get("filtered_resps")
    filtered = filtered if isinstance(filtered, list) else []  # the reader checks it; API callers may not
    if filtered and isinstance(filtered[0], (list, tuple)):  # multiple choice: (loglikelihood, is_greedy)
        try:
            lls = [float(pair[0]) for pair in filtered]
        except (TypeError, ValueError, LookupError, OverflowError):  # not pairs of numbers: nothing to show
            return "", ""
        best = max(range(len(lls)), key=lls.__getitem__)
        choices = doc.get("choices")
        chosen = choices[best] if isinstance(choices, list) and best < len(choices) else f"option {best}"
        return str(chosen), "highest log-likelihood: " + ", ".join(f"{x:.3g}" for x in lls)
    try:
        raw = sample["resps"][0][0]
    except (KeyError, IndexError, TypeError):
        raw = ""
    return str(raw), f"read as: {filtered[0]}" if filtered else ""


def _prompt(sample: Mapping[str, Any]) -> str:
    args = sample.get("arguments")
    if isinstance(args, Mapping) and args:
        first = next(iter(args.values()))
        if isinstance(first, Mapping):
            return str(first.get("arg_0", ""))
    doc = sample.get("doc")
    return str(doc.get("prompt", "")) if isinstance(doc, Mapping) else ""


def _target(sample: Mapping[str, Any]) -> str:
    doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
    choices, gold = doc.get("choices"), doc.get("gold")
    if isinstance(choices, list) and isinstance(gold, int) and 0 <= gold < len(choices):
        return str(choices[gold])
    return str(sample.get("target", ""))


def probe_item_mark(sample: Mapping[str, Any]) -> Mark:
    """Right/wrong from the sample's ``acc`` (invalid when its ``invalid_rate`` is 1); ``none`` without one."""
    if sample.get("invalid_rate") == 1:
        return Mark(INVALID, "invalid")
    top = ("acc", sample["acc"]) if isinstance(sample.get("acc"), (int, float)) else headline(sample)
    if top is None or isinstance(top[1], bool) or math.isnan(float(top[1])):
        return Mark(NONE, "")
    return Mark(RIGHT, "right") if float(top[1]) >= 1 else Mark(WRONG, "wrong")


def probe_item_html(sample: Mapping[str, Any]) -> str:
    """One static-probe item: prompt, the model's reply or chosen option, target, right/wrong."""
    doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
    mark = probe_item_mark(sample)
    head = [f"Item {text(sample.get('doc_id'))}"]
    if doc.get("condition") is not None:
        head.append(f"condition {text(doc['condition'])}")
    head.append(html.escape(mark.label or "not scored"))
    answer, how = _option(sample)
    body = (
        _message("user", "Prompt", text(_prompt(sample)))
        + _message("reply", "Model", text(answer))
        + (f'<p class="read-as">{text(how)}</p>' if how else "")
        + f'<p class="target">Target: {text(_target(sample))}</p>'
        + f'<span class="mark">{html.escape(mark.label)}</span>'
    )
    return (
        f'<details class="episode probe-item"><summary>{" · ".join(head)}</summary>'
        f'{_metrics_line(sample)}<div class="turn {mark.css}">{body}</div></details>'
    )


def episode_viewer_html(
    task: str, samples: list[dict], *, limit: int = MAX_EPISODES, max_chars: int = MAX_PAGE_CHARS
) -> str:
    """The samples of ``task`` as an HTML fragment, escaped throughout: the first ``limit``,
    fewer if the fragment would pass ``max_chars`` (a note says how many are left out)."""
    ordered = sorted(samples, key=lambda s: s.get("doc_id", 0) if isinstance(s.get("doc_id"), int) else 0)
    parsed = [(transcript_of(s), s) for s in ordered[:limit]]
    systems = {str(t.get("system")) for t, _ in parsed if t is not None and t.get("system")}
    shared = len(systems) == 1  # one system prompt for all: shown once, above the episodes
    head = []
    if shared:
        head.append(
            f'<details class="system-prompt"><summary>System prompt (all episodes)</summary>'
            f"<pre>{text(systems.pop(), 4 * MAX_CHARS)}</pre></details>"
        )
    blocks: list[str] = []
    size = sum(map(len, head))
    for transcript, sample in parsed:
        block = (
            episode_html(transcript, sample, show_system=not shared)
            if transcript is not None
            else probe_item_html(sample)
        )
        if blocks and size + len(block) > max_chars:
            break
        blocks.append(block)
        size += len(block)
    note = f"{len(ordered)} sample{'s' if len(ordered) != 1 else ''}"
    if len(blocks) < len(ordered):
        note += f"; the first {len(blocks)} are shown, {len(ordered) - len(blocks)} left out to keep the page small"
    out = [
        f'<section class="episodes" data-task="{html.escape(task, quote=True)}">',
        f'<p class="episodes-note">{note}.</p>',
        *head,
        *blocks,
        "</section>",
    ]
    return "\n".join(out)
