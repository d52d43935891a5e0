"""``--model hf`` keeps each conversation's key/value states between turns: a turn prefills only the
tokens after the verified common prefix, and greedy replies stay identical, token for token, to
HFLM's own path (issue 21 part 2)."""

from __future__ import annotations

import json
import logging
import types

import pytest

import tiny_llama
from fault_backend import requests
from lm_eval_cog.lmeval import hf_prefix_cache, seam
from lm_eval_cog.lmeval.compat import make_instance
from test_e2e_cli import smollm2_dir


def hflm(path: str, batch_size: int = 1):
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=path, dtype="float32", batch_size=batch_size, device="cpu")


@pytest.fixture(scope="module")
def smollm2():
    return hflm(smollm2_dir(), batch_size=2)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return hflm(str(tiny_llama.build(tmp_path_factory.mktemp("tiny"), smollm2_dir())), batch_size=3)


def play(lm, monkeypatch, reuse: str, n: int = 3, **kwargs) -> tuple[list[dict], seam.LMPlayer]:
    monkeypatch.setenv(hf_prefix_cache.REUSE_ENV, reuse)
    player = seam.LMPlayer(lm)
    out = seam.run_requests(requests(n, **kwargs), player, progress=False)
    return [json.loads(t) for t in out], player


def replies(transcripts: list[dict]) -> list[list[str]]:
    return [[turn["reply"] for turn in t["turns"]] for t in transcripts]


def test_smollm2_greedy_replies_are_identical_with_and_without_reuse(smollm2, monkeypatch):
    # Three episodes at batch size 2: chunks of two and one row, rows of different lengths; the
    # chat template, whose rendering of a reply may tokenise otherwise than the reply was generated.
    kwargs = dict(n=3, overrides={"trials": 4}, max_gen_toks=10, chat=True)
    stock, off = play(smollm2, monkeypatch, "0", **kwargs)
    reused, on = play(smollm2, monkeypatch, "1", **kwargs)
    assert off.prefix_cache is None and on.prefix_cache is not None
    assert [t["status"] for t in reused] == ["completed"] * 3
    assert replies(reused) == replies(stock)
    for t in reused:
        cached = [turn["cached_tokens"] for turn in t["turns"]]
        prompts = [turn["prompt_tokens"] for turn in t["turns"]]
        assert cached[0] == 0
        # From turn 2 on, at least the whole previous prompt is reused.
        assert all(prompts[i - 1] <= cached[i] < prompts[i] for i in range(1, len(cached)))
    assert all(turn.get("cached_tokens") is None for t in stock for turn in t["turns"])


def generate(lm, prompts: list[str], max_gen_toks: int = 6) -> list[str]:
    batch = [make_instance("generate_until", (p, {"until": ["\n\n"], "max_gen_toks": max_gen_toks})) for p in prompts]
    return lm.generate_until(batch, disable_tqdm=True)


def key(lm, prompt: str) -> tuple[int, ...]:
    return hf_prefix_cache.prompt_key(lm, prompt)


def common_prefix(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def test_a_prompt_that_differs_early_reuses_only_the_verified_common_prefix(tiny, monkeypatch):
    cache = hf_prefix_cache.PrefixCache(tiny, budget_bytes=1 << 30)
    first = "Sort the card. Rules: colour, shape, number. Trial 1. Answer:"
    with cache.turn() as reused:
        reply = generate(tiny, [first])[0]
    assert reused == {key(tiny, first): [0]}
    (stored,) = [tuple(e.tokens.tolist()) for e in cache.entries]  # the first prompt, then its reply
    assert stored[: len(key(tiny, first))] == key(tiny, first) and len(stored) > len(key(tiny, first))
    # The next prompt extends the first one; another one differs from the 4th token on.
    longer = first + reply + " Correct. Trial 2. Answer:"
    other = "Sort the cards now, please. Rules: colour. Trial 2. Answer:"
    expected_reuse = {k: common_prefix(k, stored) for k in (key(tiny, longer), key(tiny, other))}
    assert expected_reuse[key(tiny, longer)] >= len(key(tiny, first))
    assert 0 < expected_reuse[key(tiny, other)] < len(key(tiny, first))
    with cache.turn() as reused:
        got = generate(tiny, [longer, other])
    # One chunk: both rows feed the same number of new tokens (the most either lacks).
    lacks = max(len(k) - r for k, r in expected_reuse.items())
    assert reused == {k: [max(0, len(k) - lacks)] for k in expected_reuse}
    assert got == generate(tiny, [longer, other])  # HFLM's own path, outside the block


@pytest.mark.parametrize("chat", [False, True], ids=["plain", "chat"])
def test_tiny_model_greedy_replies_are_identical_with_and_without_reuse(tiny, monkeypatch, chat):
    kwargs = dict(n=4, overrides={"trials": 5}, max_gen_toks=8, chat=chat)
    stock, _ = play(tiny, monkeypatch, "0", **kwargs)
    reused, player = play(tiny, monkeypatch, "1", **kwargs)
    assert replies(reused) == replies(stock)
    assert player.prefix_cache.reused_tokens > 0.5 * player.prefix_cache.prompt_tokens


def test_over_the_budget_the_largest_conversations_are_evicted_and_logged(tiny, monkeypatch, caplog):
    monkeypatch.setenv(hf_prefix_cache.BUDGET_ENV, "0.001")  # 1 KiB: less than one conversation
    kwargs = dict(n=3, overrides={"trials": 3}, max_gen_toks=6)
    stock, _ = play(tiny, monkeypatch, "0", **kwargs)
    with caplog.at_level(logging.INFO, logger="lm_eval.cog"):
        evicted, player = play(tiny, monkeypatch, "1", **kwargs)
    assert replies(evicted) == replies(stock)
    assert player.prefix_cache.evicted == 3 * 3 and player.prefix_cache.entries == []
    assert all(turn["cached_tokens"] == 0 for t in evicted for turn in t["turns"])
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "evicted" in r.getMessage()]
    assert len(warnings) == 1 and hf_prefix_cache.BUDGET_ENV in warnings[0].getMessage()


def test_finished_conversations_are_dropped_and_within_the_budget_nothing_is_evicted(tiny, monkeypatch):
    stock, _ = play(tiny, monkeypatch, "0", n=3, overrides={"trials": 4}, max_gen_toks=6)
    reused, player = play(tiny, monkeypatch, "1", n=3, overrides={"trials": 4}, max_gen_toks=6)
    assert replies(reused) == replies(stock)
    cache = player.prefix_cache
    assert cache.evicted == 0 and len(cache.entries) == 3  # the last turn's three conversations
    assert cache.reused_tokens == sum(turn["cached_tokens"] for t in reused for turn in t["turns"])


def test_switched_off_hflm_keeps_its_own_generate(tiny, monkeypatch):
    monkeypatch.setenv(hf_prefix_cache.REUSE_ENV, "off")
    assert hf_prefix_cache.PrefixCache.of(tiny) is None
    assert "_model_generate" not in vars(tiny)


@pytest.mark.parametrize(
    "variable, value",
    [
        (hf_prefix_cache.REUSE_ENV, "maybe"),
        (hf_prefix_cache.BUDGET_ENV, "-1"),
        (hf_prefix_cache.BUDGET_ENV, "lots"),
        (hf_prefix_cache.BUDGET_ENV, "inf"),
    ],
)
def test_an_invalid_setting_names_its_variable(tiny, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=variable):
        hf_prefix_cache.PrefixCache.of(tiny)


def test_only_full_attention_decoder_models_qualify():
    def model(**config):
        return types.SimpleNamespace(config=types.SimpleNamespace(**config))

    assert hf_prefix_cache.full_attention_only(model(layer_types=["full_attention"] * 2))
    assert not hf_prefix_cache.full_attention_only(model(layer_types=["full_attention", "sliding_attention"]))
    assert not hf_prefix_cache.full_attention_only(model(sliding_window=4096))
    assert hf_prefix_cache.full_attention_only(model(sliding_window=4096, use_sliding_window=False))
    assert hf_prefix_cache.full_attention_only(model(sliding_window=None))
    assert not hf_prefix_cache.applies(types.SimpleNamespace(backend="causal"))
