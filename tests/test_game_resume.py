"""Games resume from lm-eval's ``--use_cache`` like the paradigms: a rerun replays every turn of
every role from the cache without a model call, and a request that fails fails only its episode."""

from __future__ import annotations

import json

from fault_backend import FaultLM, requests
from lm_eval.api.model import CachingLM

from lm_eval_cog.lmeval import seam
from lm_eval_cog.transcripts import score_transcript


class TabooLM(FaultLM):
    """A describer that clues safely and a guesser that guesses wrong, by what the prompt asks."""

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        super().generate_until(requests)
        replies = ["GUESS: apple" if "GUESS:" in str(r.args[0]) and "CLUE:" in str(r.args[0]).split("User:")[-1]
                   else "CLUE: it is a thing" for r in requests]  # fmt: skip
        for request, reply in zip(requests, replies):
            self.cache_hook.add_partial("generate_until", request.args, reply)
        return replies


def play(lm, n: int = 3) -> tuple[list[str], seam.LMPlayer]:
    player = seam.LMPlayer(lm)
    reqs = requests(n, task="cog_game_taboo", paradigm="taboo", preset="default", overrides={}, max_gen_toks=16)
    return seam.run_requests(reqs, player, progress=False), player


def test_a_game_rerun_replays_both_roles_turns_from_the_cache(tmp_path):
    first = TabooLM()
    CachingLM(first, str(tmp_path / "cache.db"))
    out1, player1 = play(first)
    transcripts = [json.loads(t) for t in out1]
    assert all(t["status"] == "completed" for t in transcripts)
    assert {turn["role"] for t in transcripts for turn in t["turns"]} == {"describer", "guesser"}
    turns = sum(len(t["turns"]) for t in transcripts)
    # Three clue/guess turns each, all lost: 6 model turns an episode, one call per round.
    assert turns == 18 and first.calls == 6 and player1.generated == 18
    assert [score_transcript(t)["lose"] for t in transcripts] == [1.0] * 3
    second = TabooLM()
    CachingLM(second, str(tmp_path / "cache.db"))
    out2, player2 = play(second)
    assert out2 == out1
    assert (player2.replayed, player2.generated, second.calls) == (18, 0, 0)


def test_a_failing_request_fails_only_its_game_and_counts_it_not_played(tmp_path):
    # The fault hits episode 1's first prompt with one user turn (its describer's first clue); the
    # batch is retried episode by episode, so only that episode fails.
    lm = TabooLM(faults={(1, 1): "raise"})
    out, _ = play(lm)
    transcripts = [json.loads(t) for t in out]
    assert [t["status"] for t in transcripts] == ["completed", "failed", "completed"]
    failed = score_transcript(transcripts[1])
    assert failed["episode_failed"] == 1.0 and failed["played"] == 0.0 and failed["clemscore"] == 0.0
