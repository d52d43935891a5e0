"""Conformance checks every paradigm must pass (Gymnasium's ``env_checker``, for our contract).

``check_paradigm(PARADIGM)`` raises :class:`ParadigmCheckError` naming the first
broken promise. The test suite runs it over every registered paradigm; run it on a
new paradigm before adding its YAML.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from lm_eval_cog.games.base import COMMON_METRICS
from lm_eval_cog.paradigms.base import FALLBACK_SHARE, Paradigm
from lm_eval_cog.paradigms.chance import play

#: Replies no paradigm may read as a choice.
JUNK_REPLIES: tuple[str, ...] = ("", "   ", "asdf qwerty", "???", "🙂 " * 50, "0" * 5000, "\x00\n\t")


class ParadigmCheckError(AssertionError):
    """A paradigm breaks the environment contract."""


def _fail(paradigm: Paradigm, preset: str, what: str) -> ParadigmCheckError:
    return ParadigmCheckError(f"paradigm {paradigm.name!r}, preset {preset!r}: {what}")


def _episode(paradigm: Paradigm, params: Any, seed: int, policy: str | None) -> tuple[Any, list[str], bool]:
    """(env, every message, ended within max_turns) of an episode answered by a reference
    agent whose generator does NOT depend on ``seed`` (so two seeds get the same replies
    wherever the stimuli allow), or by junk only when ``policy`` is None."""
    env = paradigm.env_cls(params)
    message, info = env.reset(seed=seed)
    agent = None if policy is None else paradigm.make_agent(policy, params, np.random.default_rng(0))
    messages = [env.system_prompt, message]
    for turn in range(params.max_turns):
        reply = JUNK_REPLIES[turn % len(JUNK_REPLIES)] if agent is None else agent.act(message, info)
        message, terminated, truncated, info = env.step(reply)
        messages.append(message)
        if terminated or truncated:
            return env, messages, True
    return env, messages, False


def check_paradigm(paradigm: Paradigm, seeds: tuple[int, ...] = tuple(range(8))) -> None:
    """Check determinism, bounds, junk handling and offline rescoring for every preset.

    "Different seeds, different stimuli" is checked over all ``seeds`` together: a
    paradigm whose only hidden stimulus is binary (MBT's first paying arm) repeats
    itself for some pairs of seeds, never for eight.
    """
    names = {s.name for s in paradigm.metric_specs}
    game = bool(getattr(paradigm.env_cls, "roles", ()))
    # A game reads moves in its own formats: no choice to read, so no invalid rate or fallback.
    required = (*COMMON_METRICS, paradigm.primary_metric) if game else ("invalid_rate", FALLBACK_SHARE, paradigm.primary_metric)
    for required in required:
        if required not in names:
            raise ParadigmCheckError(f"paradigm {paradigm.name!r} does not report {required!r}")
    for preset in paradigm.presets:
        params = paradigm.make_params(preset)
        env = paradigm.env_cls(params)
        try:
            env.step("1")
        except RuntimeError:
            pass
        else:
            raise _fail(paradigm, preset, "step() before reset() did not raise")

        # Same seed, same replies: identical messages and logs. Different seed: other stimuli.
        played, messages_a, _ = _episode(paradigm, params, seeds[0], "random")
        again, messages_b, _ = _episode(paradigm, params, seeds[0], "random")
        if messages_a != messages_b or played.log != again.log:
            raise _fail(paradigm, preset, "the same seed and replies gave different messages or logs")
        # A game preset of the paper's instances (``instances: paper``) plays them whatever the seed.
        fixed = getattr(params, "instances", None) == "paper"
        if not fixed and all(_episode(paradigm, params, seed, "random")[1] == messages_a for seed in seeds[1:]):
            raise _fail(paradigm, preset, f"seeds {list(seeds)} all gave identical stimuli")

        # Junk is never a choice, and the episode still ends.
        first, _, ended = _episode(paradigm, params, seeds[0], None)
        if not ended:
            raise _fail(paradigm, preset, f"an episode of junk replies did not end within max_turns={params.max_turns}")
        try:
            first.step("1")
        except RuntimeError:
            pass
        else:
            raise _fail(paradigm, preset, "step() after the episode ended did not raise")

        # Junk is never a choice (in a game, never a move in the required form: it aborts);
        # metrics cover every spec; empty log -> NaN.
        junk = paradigm.metrics(first.log, params)
        if set(junk) != names:
            raise _fail(paradigm, preset, f"metrics returned {sorted(junk)}, specs say {sorted(names)}")
        if game:
            _check_game(paradigm, preset, params, junk, seeds[0])
            continue
        if junk["invalid_rate"] != 1.0:
            raise _fail(paradigm, preset, f"junk replies were read as choices (invalid_rate={junk['invalid_rate']})")
        if junk[FALLBACK_SHARE] != 0.0:
            raise _fail(paradigm, preset, f"junk replies were counted as fallback reads ({FALLBACK_SHARE}={junk[FALLBACK_SHARE]})")
        if not all(math.isnan(v) for v in paradigm.metrics([], params).values()):
            raise _fail(paradigm, preset, "metrics of an empty log are not all NaN")

        # The random agent only gives valid replies; its log rescores identically after JSON.
        env = play(paradigm, params, seeds[0], "random")
        scores = paradigm.metrics(env.log, params)
        if scores["invalid_rate"] != 0.0:
            raise _fail(paradigm, preset, "the random agent's replies (info['choices']) were not all valid")
        rescored = paradigm.metrics(json.loads(json.dumps(env.log)), params)
        if not all(_same(scores[k], rescored[k]) for k in scores):
            raise _fail(paradigm, preset, "metrics changed after a JSON round trip of the log")


def _check_game(paradigm: Paradigm, preset: str, params: Any, junk: dict[str, float], seed: int) -> None:
    """A game's part of the contract: junk replies abort it with nothing parsed; the random player
    only makes moves in the required form; its log rescores identically after JSON."""
    if junk["aborted"] != 1.0 or junk["parsed_request_count"] != 0.0 or not math.isnan(junk["main_score"]):
        raise _fail(paradigm, preset, f"junk replies did not abort the game with nothing parsed ({junk})")
    env = play(paradigm, params, seed, "random")
    scores = paradigm.metrics(env.log, params)
    if scores["violated_request_count"] != 0.0:
        raise _fail(paradigm, preset, "the random player made moves that were not in the required form")
    rescored = paradigm.metrics(json.loads(json.dumps(env.log, allow_nan=False)), params)
    if not all(_same(scores[k], rescored[k]) for k in scores):
        raise _fail(paradigm, preset, "metrics changed after a JSON round trip of the log")


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b
