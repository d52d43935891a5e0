"""The episode viewer: every turn marked right / wrong / invalid in words and classes, all text escaped."""

from __future__ import annotations

import json
import re

import pytest
from fault_backend import FaultLM, requests

from lm_eval_cog.lmeval import seam
from lm_eval_cog.reports.episodes import Mark, episode_viewer_html, probe_item_mark, trial_mark, turn_marks

SCRIPT = "<script>alert('x')</script>"


def sample(transcript: dict | str, doc_id: int = 0, **metrics: float) -> dict:
    raw = transcript if isinstance(transcript, str) else json.dumps(transcript)
    return {"doc_id": doc_id, "resps": [[raw]], "filtered_resps": [raw], "metrics": list(metrics), **metrics}


def episodes(reply: str = "Answer: 1", n: int = 1, faults: str | None = None) -> list[dict]:
    """Four-trial WCST episodes played by a backend that always answers ``reply``."""
    out = seam.run_requests(requests(n), seam.LMPlayer(FaultLM(faults=faults, reply=reply)), progress=False)
    return [sample(raw, i, acc=0.25) for i, raw in enumerate(out)]


def transcript(turns: list[tuple[str, str | None]], trials: list[dict], **extra: object) -> dict:
    return {
        "paradigm": "wcst",
        "status": "completed",
        "error": None,
        "index": 0,
        "seed": 7,
        "system": "Sort the cards.",
        "turns": [{"user": u, "reply": r} for u, r in turns],
        "trials": trials,
        **extra,
    }


def marked(html: str) -> list[tuple[str, str]]:
    """(class, label) of every turn, in order."""
    return re.findall(r'<li class="turn trial-(\w+)">.*?(?:<span class="mark">([^<]*)</span>)?</li>', html, re.DOTALL)


# --------------------------------------------------------------------------- #
# Marks
# --------------------------------------------------------------------------- #


def test_outcome_decides_right_wrong_invalid():
    assert trial_mark({"outcome": "correct"}) == Mark("right", "right")
    assert trial_mark({"outcome": "error"}) == Mark("wrong", "wrong")
    assert trial_mark({"outcome": "invalid", "invalid": "ambiguous"}) == Mark("invalid", "invalid (ambiguous)")
    assert Mark("invalid", "").css == "trial-invalid"


def test_reflect_answers_and_reflections_are_marked_by_their_correctness():
    assert trial_mark({"phase": "answer", "choice": 2, "correct": True}).kind == "right"
    assert trial_mark({"phase": "answer", "choice": 1, "correct": False}).kind == "wrong"
    assert trial_mark({"phase": "answer", "choice": None, "correct": False}).kind == "invalid"
    kept = trial_mark({"phase": "reflection", "reflection_invalid": False, "final_correct": False, "revision": "kept"})
    assert kept == Mark("wrong", "wrong after reflection (kept)")
    assert trial_mark({"kind": "reflection", "reflection_invalid": True, "final_correct": True}).kind == "invalid"


def test_wason_queries_have_no_right_answer_and_the_rule_follows_the_episode_score():
    query = {"kind": "query", "expect": "yes", "answer": "no", "invalid": None}
    assert trial_mark(query) == Mark("none", "query: answer no (expected yes)")
    rule = {"kind": "rule", "invalid": None}
    assert [trial_mark(rule, solved).kind for solved in (True, False, None)] == ["right", "wrong", "none"]
    assert trial_mark({"kind": None, "invalid": "no_move"}).kind == "invalid"


def test_igt_turns_are_two_per_trial_and_only_unreadable_ones_are_marked():
    trials = [
        {"first": "AAA", "first_invalid": None, "preview_gain": 100, "preview_loss": 0, "final": "CCC",
         "final_invalid": None, "gain": 50, "loss": 0, "balance": 2050},
        {"first": None, "first_invalid": "no_answer", "final": None, "final_invalid": "no_answer", "balance": 2050},
    ]  # fmt: skip
    igt = {"paradigm": "igt", "turns": [{"user": "u"}] * 5, "trials": trials}  # turn 5: the episode failed there
    marks = turn_marks(igt)
    assert [m.kind if m else None for m in marks] == ["none", "none", "invalid", "invalid", None]
    assert marks[0].label == "first choice AAA: preview +100 -0"
    assert marks[1].label == "final choice CCC: +50 -0, balance 2050"


def test_static_items_are_right_wrong_or_invalid_by_their_metrics():
    assert probe_item_mark({"acc": 1.0}).kind == "right"
    assert probe_item_mark({"acc": 0.0, "invalid_rate": 0.0}).kind == "wrong"
    assert probe_item_mark({"acc": 0.0, "invalid_rate": 1.0}).kind == "invalid"
    assert probe_item_mark({"metrics": []}).kind == "none"


# --------------------------------------------------------------------------- #
# The HTML fragment
# --------------------------------------------------------------------------- #


def test_each_turn_shows_user_and_reply_with_its_mark_and_the_header_counts_them():
    t = transcript(
        [("Card 1?", "1"), ("Card 2?", "2"), ("Card 3?", "x"), ("Card 4?", None)],
        [{"outcome": "correct"}, {"outcome": "error"}, {"outcome": "invalid", "invalid": "no_answer"}],
        status="failed",
        error="backend <down>",
    )
    html = episode_viewer_html("cog_wcst_direct", [sample(t, acc=0.5, score=50.0)])
    assert marked(html) == [("right", "right"), ("wrong", "wrong"), ("invalid", "invalid (no_answer)"), ("none", "")]
    summary = re.search(r"<summary>(Episode.*?)</summary>", html).group(1)
    assert summary == "Episode 0 · seed 7 · failed · acc 0.5 · 1 right, 1 wrong, 1 invalid"
    assert 'class="episode episode-failed"' in html and "Error: backend &lt;down&gt;" in html
    assert "(no reply)" in html  # the turn the episode failed on
    assert "Card 3?" in html and html.count('<section class="episodes"') == 1 and html.rstrip().endswith("</section>")


def test_model_text_is_escaped_so_a_script_is_shown_not_run():
    (s,) = episodes(reply=SCRIPT)
    html = episode_viewer_html("cog_wcst_direct", [s])
    assert "<script>" not in html
    assert html.count("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;") == 4
    assert [kind for kind, _ in marked(html)] == ["invalid"] * 4  # an unreadable reply is invalid, not wrong


def test_task_names_and_user_messages_are_escaped_too():
    t = transcript([('<b onclick="x">', "1")], [{"outcome": "correct"}], system="<i>rules</i>")
    html = episode_viewer_html('t"><img src=x>', [sample(t)])
    assert "<b onclick" not in html and "<i>rules" not in html and "<img" not in html
    assert "&lt;b onclick=&quot;x&quot;&gt;" in html


def test_undecodable_bytes_and_long_replies_do_not_break_the_page():
    bad, long = episodes(n=2, faults="0:1:undecodable;1:1:long")
    html = episode_viewer_html("cog_wcst_direct", [bad, long])
    html.encode("utf-8")  # lone surrogates would raise here
    assert "\\udcff" in html
    assert "more characters not shown" in html and len(html) < 60_000  # the 100,000-character reply is cut


def test_a_shared_system_prompt_is_shown_once_and_different_ones_per_episode():
    same = episodes(n=3)
    html = episode_viewer_html("cog_wcst_direct", same)
    assert html.count('class="system-prompt"') == 1 and "System prompt (all episodes)" in html
    a, b = (json.loads(s["resps"][0][0]) for s in same[:2])
    b["system"] = "Other rules."
    html = episode_viewer_html("cog_wcst_direct", [sample(a, 0), sample(b, 1)])
    assert html.count('class="system-prompt"') == 2 and "Other rules." in html


def test_long_episode_lists_are_capped_with_a_note():
    five = episodes(n=5)
    html = episode_viewer_html("cog_wcst_direct", five, limit=2)
    assert html.count('<details class="episode') == 2
    assert "5 samples; the first 2 are shown, 3 left out to keep the page small." in html
    # A budget of the whole two-episode fragment holds two episodes (and the shared system prompt), not three.
    two = len(episode_viewer_html("cog_wcst_direct", five[:2]))
    capped = episode_viewer_html("cog_wcst_direct", five, max_chars=two)
    assert capped.count('<details class="episode') == 2
    assert "the first 2 are shown, 3 left out" in capped
    assert "5 samples." in episode_viewer_html("cog_wcst_direct", five)


def test_episodes_appear_in_document_order():
    samples = episodes(n=3)
    html = episode_viewer_html("cog_wcst_direct", samples[::-1])
    assert re.findall(r"<summary>Episode (\d+)", html) == ["0", "1", "2"]


GEN = {
    "doc_id": 3,
    "doc": {"probe": "stroop", "choices": ["red", "blue"], "gold": 1, "condition": "incongruent"},
    "target": "blue",
    "arguments": {"gen_args_0": {"arg_0": 'The word "RED" in <blue> ink?', "arg_1": {"until": []}}},
    "resps": [["I think " + SCRIPT + "\nAnswer: red"]],
    "filtered_resps": ["red"],
    "metrics": ["acc", "invalid_rate"],
    "acc": 0.0,
    "invalid_rate": 0.0,
}
MC = {
    "doc_id": 0,
    "doc": {"probe": "stroop", "choices": ["red", "blue"], "gold": 1, "condition": "congruent"},
    "target": "1",
    "arguments": {
        "gen_args_0": {"arg_0": "Ink?\nAnswer:", "arg_1": " red"},
        "gen_args_1": {"arg_0": "Ink?", "arg_1": " blue"},
    },
    "resps": [[["-2.0", "False"]], [["-0.5", "True"]]],
    "filtered_resps": [["-2.0", "False"], ["-0.5", "True"]],
    "metrics": ["acc"],
    "acc": 1.0,
}


def test_a_static_generation_item_shows_prompt_reply_reading_target_and_mark():
    html = episode_viewer_html("cog_stroop_gen", [GEN])
    assert "<summary>Item 3 · condition incongruent · wrong</summary>" in html
    assert "The word &quot;RED&quot; in &lt;blue&gt; ink?" in html and "<script>" not in html
    assert "read as: red" in html and "Target: blue" in html
    assert 'class="turn trial-wrong"' in html


def test_a_static_multiple_choice_item_shows_the_highest_likelihood_option():
    html = episode_viewer_html("cog_stroop_mc", [MC])
    assert "<summary>Item 0 · condition congruent · right</summary>" in html
    assert '<span class="who">Model</span><pre>blue</pre>' in html  # -0.5 > -2.0
    assert "highest log-likelihood: -2, -0.5" in html and "Target: blue" in html


@pytest.mark.parametrize("samples", [[], [{"doc_id": 0}]])
def test_empty_or_odd_samples_give_a_fragment_not_an_error(samples):
    html = episode_viewer_html("t", samples)
    assert html.startswith('<section class="episodes" data-task="t">') and html.endswith("</section>")
