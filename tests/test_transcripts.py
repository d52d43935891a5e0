"""A transcript alone rescores the episode as it was played and rebuilds every prompt exactly."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fault_backend import FaultLM, requests
from lm_eval_cog.lmeval import seam
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.transcripts import rebuild_prompt, score_transcript

IGT = get_paradigm("igt")


def igt_transcript() -> dict:
    reqs = requests(1, task="cog_igt", paradigm="igt", preset="easy", overrides={"trials": 5})
    (out,) = seam.run_requests(reqs, seam.LMPlayer(FaultLM(reply="Answer: AAA")), progress=False)
    return json.loads(out)


def test_rescoring_uses_the_parameters_stored_in_the_transcript_not_todays_preset(monkeypatch):
    transcript = igt_transcript()
    assert transcript["params"]["start"] == 2000
    played = score_transcript(transcript)
    # Deck A pays 100 per card: the balance score is the final balance over the best
    # possible one, start + 100 x 5 trials.
    final = transcript["trials"][-1]["balance"]
    assert played["balance_score"] == pytest.approx(100 * final / (2000 + 100 * 5))
    # A later release changes the preset: the stored episode must score the same.
    monkeypatch.setitem(IGT.presets, "easy", dataclasses.replace(IGT.presets["easy"], start=1000))
    assert score_transcript(transcript) == pytest.approx(played, nan_ok=True)
    # (What the preset alone would now give: a different number.)
    old_style = {k: v for k, v in transcript.items() if k != "params"}
    assert score_transcript(old_style)["balance_score"] == pytest.approx(100 * final / (1000 + 100 * 5))


def test_a_transcript_without_stored_parameters_falls_back_to_preset_and_overrides():
    transcript = igt_transcript()
    old_style = {k: v for k, v in transcript.items() if k != "params"}
    assert score_transcript(old_style) == pytest.approx(score_transcript(transcript), nan_ok=True)


def test_a_stored_parameter_that_no_longer_exists_is_an_error_naming_it():
    transcript = igt_transcript()
    transcript["params"]["bonus"] = 3
    with pytest.raises(ValueError, match=r"transcript params \['bonus'\] are not igt parameters"):
        score_transcript(transcript)


class TokenLM(FaultLM):
    """Whitespace tokens and a short context window, so that old turns get dropped."""

    max_length = 32 + 220  # generation budget + prompt budget: turn 4 does not fit whole

    def tok_encode(self, text: str) -> list[str]:
        return text.split()


@pytest.mark.parametrize("chat", [False, True], ids=["plain", "chat_template"])
def test_every_prompt_rebuilt_from_the_transcript_equals_what_the_backend_received(chat):
    lm = TokenLM()
    out = seam.run_requests(requests(2, system_instruction="Be brief.", chat=chat), seam.LMPlayer(lm), progress=False)
    for doc, raw in enumerate(out):
        transcript = json.loads(raw)
        assert transcript["system_instruction"] == "Be brief." and transcript["apply_chat_template"] is chat
        received = [prompt for d, prompt in lm.received if d == doc]
        template = lm.apply_chat_template if chat else None
        rebuilt = [rebuild_prompt(raw, turn, chat_template=template) for turn in range(len(transcript["turns"]))]
        assert rebuilt == received
        assert received[0].startswith("<|system|>Be brief.\n\n" if chat else "Be brief.\n\n")
    dropped = [t["dropped_turns"] for t in json.loads(out[0])["turns"]]
    assert dropped[0] == 0 and dropped[-1] > 0  # the rebuild followed the trimming too


def test_the_transcript_records_the_generation_settings_as_sent():
    lm = FaultLM()
    (raw,) = seam.run_requests(requests(1), seam.LMPlayer(lm), progress=False)
    transcript = json.loads(raw)
    assert transcript["gen_kwargs"] == {"until": ["\nUser:"], "max_gen_toks": 32, "do_sample": False}
    assert transcript["model"].endswith("FaultLM None")


def test_rebuilding_a_chat_prompt_without_the_template_is_refused():
    (raw,) = seam.run_requests(requests(1, chat=True), seam.LMPlayer(FaultLM()), progress=False)
    with pytest.raises(ValueError, match="rendered with the model's chat template: pass chat_template="):
        rebuild_prompt(raw, 0)
