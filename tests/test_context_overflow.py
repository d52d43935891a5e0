"""A prompt longer than the context window: a game ends failed (not played) with its reason and never
loses its first message (the rules, the target, the private values), as clembench's ContextExceededError
ends it; a paradigm drops old turns but never its system message nor its pinned first turns."""

from __future__ import annotations

import math

import numpy as np
from test_lmeval_seam import FakeLM, evaluate, transcripts

from lm_eval_cog import runner
from lm_eval_cog.paradigms import get_paradigm, make_env
from lm_eval_cog.rendering import ContextOverflow, Renderer
from lm_eval_cog.transcripts import rebuild_prompt, score_transcript

LONG_CLUE = "CLUE: " + "fact " * 60


def words(text: str) -> int:
    return len(text.split())


class RenderingPlayer:
    """Renders each prompt as LMPlayer does (a ContextOverflow fails that episode) and replies as
    Taboo's describer (a 60-word clue) or guesser (a wrong guess); keeps every prompt it rendered."""

    def __init__(self, budget: int) -> None:
        self.renderer = Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=budget)
        self.prompts: list[tuple[str, str]] = []

    def respond(self, episodes):
        out = []
        for ep in episodes:
            try:
                prompt, dropped, n = self.renderer.render(ep)
            except ContextOverflow as exc:
                out.append(exc)
                continue
            ep.current.dropped_turns, ep.current.prompt_tokens = dropped, n
            self.prompts.append((ep.current.role, prompt))
            out.append(LONG_CLUE if ep.current.role == "describer" else "GUESS: nothing")
        return out


def play_taboo(budget: int | None) -> tuple[runner.GameEpisode, RenderingPlayer]:
    spec = {"paradigm": "taboo", "preset": "default", "strategy": "direct", "overrides": {"experiment": "high"},
            "seed": 3, "index": 0, "task": "cog_game_taboo"}
    (ep,) = runner.start_episodes([spec], make_env)
    player = RenderingPlayer(budget)
    runner.run_lockstep([ep], player, progress=False)
    return ep, player


def test_a_game_whose_prompt_outgrows_the_context_fails_with_its_reason_and_keeps_its_rules():
    """The describer's second prompt (rules + 60-word clue + guess) passes the budget that its first
    fitted: the game fails there, unplayed (played 0, clemscore 0, episode_failed 1), the reason in its
    transcript; no prompt it was sent ever lacked the rules and the target word."""
    full, _ = play_taboo(None)  # no budget: the game is played to its end (a loss, 3 wrong guesses)
    assert full.status == runner.COMPLETED
    first, guesser_first = full.turns[0].prompt_tokens, full.turns[1].prompt_tokens
    ep, player = play_taboo(max(first, guesser_first) + 5)
    assert ep.status == runner.FAILED and "context exceeded" in ep.error and "never trimmed" in ep.error
    assert [t.role for t in ep.turns] == ["describer", "guesser", "describer"] and ep.turns[-1].reply is None
    rules = ep.turns[0].user
    assert "Target word:" in rules
    describer_prompts = [p for role, p in player.prompts if role == "describer"]
    assert describer_prompts and all(p.startswith(f"User: {rules}") for p in describer_prompts)
    assert all(t.dropped_turns == 0 for t in ep.turns)
    transcript = ep.transcript()
    assert transcript["status"] == "failed" and "context exceeded" in transcript["error"]
    scores = score_transcript(transcript)
    assert (scores["played"], scores["clemscore"], scores["episode_failed"]) == (0.0, 0.0, 1.0)
    assert math.isnan(scores["main_score"])


def test_a_games_conversation_is_never_trimmed_even_when_old_turns_would_make_room():
    """A long game conversation over the budget raises instead of dropping its first turn (which a
    paradigm's renderer would do), whatever the budget left for the rest."""
    full, _ = play_taboo(None)
    seat = full.seats["describer"]
    seat.turns = seat.turns[:2]  # the rules, and a second describer turn after a clue and a guess
    seat.turns[0].reply = LONG_CLUE
    need = words(Renderer(chat_template=None, count_tokens=words).render(seat)[0])
    fits_without_rules = words(f"User: {seat.turns[1].user}\nAssistant:")
    assert fits_without_rules < need - 1
    try:
        Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=need - 1).render(seat)
        raise AssertionError("the game's conversation was trimmed")
    except ContextOverflow as exc:
        assert "never trimmed" in str(exc)


def test_a_paradigm_drops_old_turns_but_keeps_its_pinned_first_turn():
    """Wason 2-4-6's first message holds the example triple: with a small budget, later old turns go,
    the system message and the first message stay, and the transcript rebuilds the same prompt."""
    paradigm = get_paradigm("wason246")
    assert paradigm.env_cls.pinned_turns == 1 and get_paradigm("wcst").env_cls.pinned_turns == 0
    spec = {"paradigm": "wason246", "preset": paradigm.default_preset, "strategy": "direct", "seed": 0, "index": 0,
            "task": "cog_wason246"}
    (ep,) = runner.start_episodes([spec], make_env)
    agent = paradigm.make_agent("random", ep.env.params, np.random.default_rng(0))
    for _ in range(8):  # eight queries: nine turns
        runner._advance(ep, agent.act(ep.current.user, ep.info))
    assert ep.live and len(ep.turns) == 9
    whole = Renderer(chat_template=None, count_tokens=words).render(ep)[0]
    budget = words(whole) - 10
    prompt, dropped, n = Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=budget).render(ep)
    assert dropped >= 1 and n <= budget
    assert prompt.startswith(f"{ep.system}\n\nUser: {ep.turns[0].user}\nAssistant:")
    assert ep.turns[1].user not in prompt  # the oldest turn after the pinned one went first
    ep.current.dropped_turns = dropped
    assert rebuild_prompt(ep.transcript(), len(ep.turns) - 1) == prompt


class TabooFakeLM(FakeLM):
    """Plays Taboo through lm-eval: the describer (its prompts hold "Target word:") gives a 60-word clue,
    the guesser a wrong guess."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        self.calls.append([r.args for r in requests])
        return [LONG_CLUE if "Target word:" in r.args[0] else "GUESS: nothing" for r in requests]


def test_through_lm_eval_a_game_over_the_context_fails_unplayed_with_its_reason():
    """cog_game_taboo in lm-eval's evaluator with a context that fits the first prompts only: the
    episode is failed (episode_failed 1, played 0, clemscore 0), its transcript says why, and every
    describer prompt the backend received starts with the rules."""
    probe = transcripts(evaluate(TabooFakeLM(), ["cog_game_taboo"], limit=1), "cog_game_taboo")[0]
    first = max(probe["turns"][0]["prompt_tokens"], probe["turns"][1]["prompt_tokens"])
    lm = TabooFakeLM(max_length=first + 250 + 5)  # the game's generation budget is 250 tokens
    out = evaluate(lm, ["cog_game_taboo"], limit=1)
    (transcript,) = transcripts(out, "cog_game_taboo")
    assert transcript["status"] == "failed" and "context exceeded" in transcript["error"]
    row = out["results"]["cog_game_taboo"]
    assert (row["episode_failed,none"], row["played,none"], row["clemscore,none"]) == (1.0, 0.0, 0.0)
    rules = transcript["turns"][0]["user"]
    sent = [prompt for call in lm.calls for prompt, _ in call if "Target word:" in prompt]
    assert len(sent) == 1 and all(p.startswith(f"User: {rules}") for p in sent)
