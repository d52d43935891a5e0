"""Lock-step vs one-episode-at-a-time, side by side in one run, same model, same episodes.

    python scripts/bench_lockstep.py                      # SmolLM2 (embedded), hf backend, CPU
    python scripts/bench_lockstep.py --episodes 16 --preset kennedy --trials 25

Both modes play the same seeded episodes through the same runner and the same
lm-eval model object (lm-eval's ``HFLM``); lock-step sends one ``generate_until``
per turn for all live episodes, the baseline plays the episodes one after another
(one ``generate_until`` per turn per episode, as the anchors do). Prints wall time,
calls, prompt and generated tokens, generated tokens/s and the speed-up ratio.
No assertion: figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import time

from lm_eval_cog import runner
from lm_eval_cog.lmeval.seam import LMPlayer
from lm_eval_cog.paradigms import make_env
from lm_eval_cog.paradigms.base import episode_seed


def specs(n: int, preset: str, strategy: str, trials: int | None, seed: int) -> list[dict]:
    overrides = {"trials": trials} if trials else {}
    return [
        {"paradigm": "wcst", "preset": preset, "strategy": strategy, "overrides": overrides,
         "task_seed": seed, "index": i, "seed": episode_seed(seed, i)}
        for i in range(n)
    ]  # fmt: skip


class CountingPlayer(LMPlayer):
    calls = 0

    def respond(self, episodes):
        self.calls += 1
        return super().respond(episodes)


def play(lm, episode_specs, max_gen_toks: int, chat: bool, lockstep: bool):
    episodes = runner.start_episodes(episode_specs, make_env)
    for ep in episodes:
        ep.settings = {
            "gen_kwargs": {"until": [], "max_gen_toks": max_gen_toks, "do_sample": False},
            "apply_chat_template": chat,
            "system_instruction": None,
        }
    player = CountingPlayer(lm)
    start = time.perf_counter()
    (runner.run_lockstep if lockstep else runner.run_one_at_a_time)(episodes, player, progress=False)
    wall = time.perf_counter() - start
    prompt = sum(t.prompt_tokens or 0 for ep in episodes for t in ep.turns)
    generated = sum(len(lm.tok_encode(t.reply or "")) for ep in episodes for t in ep.turns)
    replies = [[t.reply for t in ep.turns] for ep in episodes]
    failed = sum(ep.status == runner.FAILED for ep in episodes)
    return {"wall_s": wall, "calls": player.calls, "prompt_tokens": prompt, "generated_tokens": generated,
            "gen_tok_per_s": generated / wall, "tok_per_s": (prompt + generated) / wall,
            "failed": failed}, replies  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="HF model folder (default: the embedded SmolLM2)")
    ap.add_argument("--episodes", type=int, default=8)
    ap.add_argument("--preset", default="wcst64")
    ap.add_argument("--strategy", default="direct")
    ap.add_argument("--trials", type=int, default=16, help="trials per episode (0: the preset's)")
    ap.add_argument("--max-gen-toks", type=int, default=16)
    ap.add_argument("--chat", action="store_true", help="render with the chat template")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    from lm_eval.models.huggingface import HFLM

    if args.model is None:
        from lm_eval_cog.smollm2 import model_dir

        args.model = str(model_dir())
    lm = HFLM(pretrained=args.model, batch_size=args.episodes, device=args.device, dtype="float32")
    episode_specs = specs(args.episodes, args.preset, args.strategy, args.trials or None, args.seed)
    play(lm, episode_specs[:1], args.max_gen_toks, args.chat, True)  # warm-up (threads, caches)

    lock, lock_replies = play(lm, episode_specs, args.max_gen_toks, args.chat, lockstep=True)
    seq, seq_replies = play(lm, episode_specs, args.max_gen_toks, args.chat, lockstep=False)
    same = sum(a == b for a, b in zip(lock_replies, seq_replies))

    print(f"model={args.model} device={args.device} episodes={args.episodes} preset={args.preset} "
          f"strategy={args.strategy} trials={args.trials or 'preset'} max_gen_toks={args.max_gen_toks} chat={args.chat}")
    print(f"{'mode':<16}{'wall s':>8}{'calls':>7}{'prompt tok':>12}{'gen tok':>9}{'gen tok/s':>11}"
          f"{'all tok/s':>11}{'failed':>8}")
    for name, r in (("lock-step", lock), ("one-at-a-time", seq)):
        print(f"{name:<16}{r['wall_s']:>8.1f}{r['calls']:>7}{r['prompt_tokens']:>12}{r['generated_tokens']:>9}"
              f"{r['gen_tok_per_s']:>11.1f}{r['tok_per_s']:>11.1f}{r['failed']:>8}")
    print(f"speed-up (one-at-a-time wall / lock-step wall): {seq['wall_s'] / lock['wall_s']:.2f}x")
    print(f"episodes with identical replies in both modes: {same}/{args.episodes} "
          "(batched padding can change greedy ties)")


if __name__ == "__main__":
    main()
