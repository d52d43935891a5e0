"""Edges of the seam's small helpers (``lm_eval_cog.lmeval.seam``) that mutation testing found unpinned.

The tokenizer-free prompt length estimate, the generation budget read from gen_kwargs,
the stop sequences each turn carries, the turn timeout read from the environment, and
the failed-episode warning. The "models" here are plain objects with just the
attributes the helper reads (lm-eval backends expose them under these names).
"""

from __future__ import annotations

import logging

import pytest

from lm_eval_cog import runner
from lm_eval_cog.lmeval import seam
from lm_eval_cog.rendering import PLAIN_STOP


class _ApiModel:
    """An API backend run with ``tokenizer_backend=None``: no tokenizer, even if it has tok_encode."""

    tokenizer_backend = None

    def tok_encode(self, text):  # lm-eval's API models keep the method; it must not be used
        raise AssertionError("tok_encode called on a tokenizer-free model")


class _TokenizedModel:
    """A backend with a tokenizer: one token per whitespace-separated word here."""

    tokenizer_backend = "huggingface"

    def tok_encode(self, text):
        return text.split()


class _BareModel:
    """Neither attribute (e.g. a scripted model)."""


# --- _token_counter ------------------------------------------------------------------


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("abc", 1), ("abcd", 2), ("abcdefg", 3), ("x" * 12, 4)])
def test_tokenizer_free_length_is_characters_over_three_rounded_up(text, tokens):
    # ceil(len / 3): 0 -> 0, 3 -> 1, 4 -> 2, 7 -> 3, 12 -> 4 (conservative: ~4 chars per token in English).
    assert seam._token_counter(_ApiModel())(text) == tokens


def test_model_without_tok_encode_gets_the_estimate():
    assert seam._token_counter(_BareModel())("abcd") == 2


def test_model_with_a_tokenizer_is_counted_by_its_tokenizer():
    # 3 words -> 3 tokens; the estimate would say ceil(13 / 3) = 5.
    assert seam._token_counter(_TokenizedModel())("one two three") == 3


def test_model_with_tok_encode_and_no_tokenizer_backend_attribute_uses_tok_encode():
    class HF:
        def tok_encode(self, text):
            return [0] * 7

    assert seam._token_counter(HF())("ab") == 7


# --- _gen_budget ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gen_kwargs", "budget"),
    [
        ({"max_gen_toks": 8, "max_new_tokens": 99}, 8),  # lm-eval's own key first
        ({"max_gen_toks": None, "max_new_tokens": "12"}, 12),  # None skipped, value made an int
        ({"max_tokens": 5, "max_completion_tokens": 6}, 5),
        ({"max_completion_tokens": 6}, 6),
    ],
)
def test_generation_budget_is_the_first_set_token_limit(gen_kwargs, budget):
    assert seam._gen_budget(_BareModel(), gen_kwargs) == budget


def test_generation_budget_falls_back_to_the_models_max_gen_toks_then_256():
    class WithDefault:
        max_gen_toks = 64

    assert seam._gen_budget(WithDefault(), {"until": ["\n"]}) == 64
    assert seam._gen_budget(_BareModel(), {}) == 256


# --- sent_gen_kwargs / _as_list ------------------------------------------------------


def test_plain_format_adds_its_stop_after_the_users_stops():
    settings = {"gen_kwargs": {"until": "END", "max_gen_toks": 8}, "apply_chat_template": False}
    assert seam.sent_gen_kwargs(settings) == {"until": ["END", PLAIN_STOP], "max_gen_toks": 8}
    assert settings["gen_kwargs"] == {"until": "END", "max_gen_toks": 8}  # the caller's dict is untouched


def test_plain_format_without_stops_gets_only_its_own():
    assert seam.sent_gen_kwargs({"gen_kwargs": {}})["until"] == [PLAIN_STOP]
    assert seam.sent_gen_kwargs({"gen_kwargs": {"until": ("a", "b")}})["until"] == ["a", "b", PLAIN_STOP]


def test_chat_format_sends_the_users_settings_unchanged_as_a_copy():
    gen_kwargs = {"until": ["a"], "max_gen_toks": 8}
    sent = seam.sent_gen_kwargs({"gen_kwargs": gen_kwargs, "apply_chat_template": True})
    assert sent == gen_kwargs
    sent["until"].append("b")
    assert gen_kwargs["until"] == ["a"]  # a deep copy


@pytest.mark.parametrize(("value", "listed"), [(None, []), ("x", ["x"]), (("a", "b"), ["a", "b"]), ([], [])])
def test_as_list_makes_one_stop_or_several_a_list(value, listed):
    assert seam._as_list(value) == listed


# --- turn_timeout_from_env -----------------------------------------------------------


# ("inf" and values past threading.TIMEOUT_MAX are accepted and mean no limit: see
# test_runner_edges.test_a_turn_timeout_longer_than_a_thread_can_wait_...)
@pytest.mark.parametrize(("raw", "seconds"), [(" 3 ", 3.0), ("0.25", 0.25), ("1e-3", 0.001)])
def test_turn_timeout_is_read_as_positive_seconds(monkeypatch, raw, seconds):
    monkeypatch.setenv(seam.TURN_TIMEOUT_ENV, raw)
    assert seam.turn_timeout_from_env() == seconds


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_unset_or_blank_turn_timeout_is_no_limit(monkeypatch, raw):
    if raw is None:
        monkeypatch.delenv(seam.TURN_TIMEOUT_ENV, raising=False)
    else:
        monkeypatch.setenv(seam.TURN_TIMEOUT_ENV, raw)
    assert seam.turn_timeout_from_env() is None


@pytest.mark.parametrize("raw", ["0", "-2", "soon", "nan", " 0 "])
def test_bad_turn_timeout_names_the_variable_and_the_raw_value(monkeypatch, raw):
    monkeypatch.setenv(seam.TURN_TIMEOUT_ENV, raw)
    with pytest.raises(ValueError) as err:
        seam.turn_timeout_from_env()
    assert str(err.value) == f"LM_EVAL_COG_TURN_TIMEOUT must be a positive number of seconds, got {raw.strip()!r}"


# --- warn_on_failures ----------------------------------------------------------------


def _episodes(task: str, statuses: str) -> list[runner.Episode]:
    """One episode per letter: F failed (error "boom <index>"), C completed."""
    eps = []
    for i, s in enumerate(statuses):
        ep = runner.Episode(spec={"task": task, "index": i}, status=runner.FAILED if s == "F" else runner.COMPLETED)
        ep.error = f"boom {i}" if s == "F" else None
        eps.append(ep)
    return eps


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "lm_eval.cog" and r.levelno == logging.WARNING]


def test_failure_warning_lists_count_share_and_the_first_three_reasons(caplog):
    # 4 of 5 failed (80% > 10%); reasons of the first three failed episodes (1, 2, 3), not of 4.
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    seam.warn_on_failures(_episodes("t", "CFFFF"))
    assert _warnings(caplog) == [
        "task t: 4 of 5 episodes FAILED (80%); their metrics are NaN and left out of the means "
        "(see episode_failed). First reasons: episode 1: boom 1; episode 2: boom 2; episode 3: boom 3"
    ]


def test_failure_warning_threshold_is_strictly_more_than_the_share(caplog):
    # threshold 0.5: 1 of 2 failed is exactly half -> no warning; 2 of 3 -> warning.
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    seam.warn_on_failures(_episodes("half", "FC"), threshold=0.5)
    assert _warnings(caplog) == []
    seam.warn_on_failures(_episodes("most", "FFC"), threshold=0.5)
    assert len(_warnings(caplog)) == 1 and _warnings(caplog)[0].startswith("task most: 2 of 3 episodes FAILED (67%)")


def test_failure_warning_default_threshold_is_a_tenth(caplog):
    # 1 of 10 = 10%: not more than a tenth -> quiet; 2 of 11 (18%) -> loud.
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    seam.warn_on_failures(_episodes("ten", "F" + "C" * 9))
    assert _warnings(caplog) == []
    seam.warn_on_failures(_episodes("eleven", "FF" + "C" * 9))
    assert [w.split(";")[0] for w in _warnings(caplog)] == ["task eleven: 2 of 11 episodes FAILED (18%)"]


def test_failure_warning_is_per_task(caplog):
    # Task a: 1 of 1 failed; task b: 0 of 2. Only a warns, with its own counts.
    caplog.set_level(logging.WARNING, logger="lm_eval.cog")
    seam.warn_on_failures(_episodes("a", "F") + _episodes("b", "CC"))
    assert [w.split(";")[0] for w in _warnings(caplog)] == ["task a: 1 of 1 episodes FAILED (100%)"]
