"""The ``--use_cache`` episode cache knows a model by every argument that can change its replies.

Two runs whose model arguments differ in an adapter, revision, quantisation, remote code, context
length, chat-template setting or any argument it does not know do not share cache rows (the second
is refused before any request, naming the argument); a batch size, device or memory placement does
not make another model, and a rerun with another one replays every turn. What each turn sends (chat
template, system instruction, generation settings) is in the row key itself.

Models are built the way ``lm_eval`` builds them (``LM.create_from_arg_string`` with its additional
config), so the start-up hook's record of the arguments is exercised, not bypassed.
"""

from __future__ import annotations

import pytest

from fault_backend import TRIALS, requests
from lm_eval_cog.lmeval import seam
from lm_eval_cog.lmeval.episode_cache import CacheMismatch, cache_identity, model_identity
from test_resume import CountingLM, cached

BASE = "pretrained=/models/base,dtype=float32"


def built(args: str, **config) -> CountingLM:
    return CountingLM.create_from_arg_string(args, {"batch_size": 1, "device": "cpu", **config})


def play(lm, **kwargs) -> seam.LMPlayer:
    player = seam.LMPlayer(lm)
    seam.run_requests(requests(2, **kwargs), player, progress=False)
    return player


def test_the_identity_holds_the_model_arguments_as_given_without_the_placement_ones():
    lm = built(BASE + ",peft=/adapters/lora", max_batch_size=64)
    assert lm.cog_model_args["peft"] == "/adapters/lora" and lm.cog_model_args["batch_size"] == 1
    assert cache_identity(lm) == (
        f'{model_identity(lm)} {{"dtype": "float32", "peft": "/adapters/lora", "pretrained": "/models/base"}}'
    )
    arg_obj = CountingLM.create_from_arg_obj({"pretrained": "/models/base", "dtype": "float32", "peft": "/adapters/lora"},
                                             {"batch_size": 8, "device": None})  # fmt: skip
    assert cache_identity(arg_obj) == cache_identity(lm)


@pytest.mark.parametrize(
    "extra",
    [
        "peft=/adapters/lora", "delta=/weights/delta", "revision=v2", "load_in_8bit=True", "load_in_4bit=True",
        "autogptq=True", "gptqmodel=True", "quantization=awq", "trust_remote_code=True", "max_length=512",
        "enable_thinking=True", "tokenizer=/other/tokenizer", "max_gen_toks=64", "an_argument_nobody_knows=1",
    ],
)  # fmt: skip
def test_a_run_whose_model_arguments_can_change_replies_does_not_share_the_cache(tmp_path, extra):
    first = built(BASE)
    cached(tmp_path, first)
    assert play(first).generated == 2 * TRIALS
    other = built(f"{BASE},{extra}")
    cached(tmp_path, other)
    with pytest.raises(CacheMismatch) as refused:
        seam.LMPlayer(other)
    assert extra.split("=")[0] in str(refused.value) and other.calls == 0


@pytest.mark.parametrize(
    "args, config",
    [
        (BASE, {"batch_size": 8}),
        (BASE, {"device": "cuda:1"}),
        (BASE, {"max_batch_size": 4}),
        (BASE + ",parallelize=True,max_memory_per_gpu=20GB,offload_folder=/tmp/x", {}),
    ],
)
def test_a_rerun_with_another_batch_size_or_placement_replays_every_turn(tmp_path, args, config):
    first = built(BASE)
    cached(tmp_path, first)
    play(first)
    again = built(args, **config)
    cached(tmp_path, again)
    player = play(again)
    assert (player.replayed, player.generated) == (2 * TRIALS, 0) and again.calls == 0


@pytest.mark.parametrize(
    "sent",
    [{"chat": True}, {"system_instruction": "Be brief."}, {"max_gen_toks": 7}],
    ids=["chat-template", "system-instruction", "gen-kwargs"],
)
def test_what_a_turn_sends_is_in_its_row_key_so_another_setting_replays_nothing(tmp_path, sent):
    first = built(BASE)
    cached(tmp_path, first)
    play(first)
    again = built(BASE)
    cached(tmp_path, again)
    player = play(again, **sent)
    assert (player.replayed, player.generated) == (0, 2 * TRIALS)
