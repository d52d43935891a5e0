"""Reply-parsing time of every paradigm, per 100,000 characters of reply, on several reply shapes.

    python scripts/bench_parsers.py                       # every paradigm, 25k and 100k characters
    python scripts/bench_parsers.py --sizes 100000 --paradigms wcst --strategies cot

A reply is read by ``env.step`` exactly as in a run (Unicode normalisation, the answer
line, the paradigm's choice finder, the trial's bookkeeping); each timing is the median
of repeated ``step`` calls on freshly reset environments, after one warm-up call. The
shapes stress what a long reply can contain:

* ``choice_prose``: sentences that keep naming the paradigm's choices, no answer line
  (the fallback reads the whole reply);
* ``prose_answer``: the same prose closed by ``Answer: <choice>``;
* ``dense_mentions``: choice mentions back to back (WCST: descriptions and digits, the
  shape that made its former finder quadratic: 98k characters took 1.6 s);
* ``digits``: numbers, ranges, decimals, times and lists;
* ``no_choice``: prose without any choice word;
* ``long_runs``: choice-adjacent keywords (``card``, ``option``, ``deck``, ``not``,
  ``answer``) each followed by a long run of blanks (backtracking bait).

Parsing is linear when the figures (milliseconds per 100k characters) are about the same
at every size. Figures only: nothing is asserted (timings are not tested in CI).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from lm_eval_cog.paradigms import available, get_paradigm

#: Mentions of each paradigm's choices beyond the bare choice strings of ``info["choices"]``.
EXTRA_MENTIONS: dict[str, tuple[str, ...]] = {
    "wcst": ("card two", "green stars", "three yellow crosses", "**4**", "option three"),
    "nback": ("N/A", "Not Available"),
    "igt": ("deck A", "ddd"),
    "prlt": ("the left arm",),
    "mbt": ("the right arm",),
    "wpt": ("sun", "rain"),
}
NEUTRAL = "Thinking about the pattern in this sequence carefully before deciding what to do. "
NUMBERS = "12 0.3 4-5 1-4 2:30 1/4 -2 3rd 1,2 7 99.5 +3 "


def _mentions(name: str, choices: list[str]) -> list[str]:
    return [str(c) for c in choices] + list(EXTRA_MENTIONS.get(name, ()))


def _fill(unit: Callable[[int], str], size: int, tail: str = "") -> str:
    """``unit(0) + unit(1) + ...`` cut to ``size - len(tail)`` characters, then ``tail``."""
    parts: list[str] = []
    length, i = 0, 0
    while length < size - len(tail):
        parts.append(unit(i))
        length += len(parts[-1])
        i += 1
    return "".join(parts)[: size - len(tail)] + tail


def shapes(name: str, choices: list[str], size: int) -> dict[str, str]:
    """Replies of about ``size`` characters, one per shape."""
    words = _mentions(name, choices)

    def prose(i: int) -> str:
        return f"Maybe {words[i % len(words)]}, though {words[(i + 1) % len(words)]} looked good before. "

    blanks = " " * max(1, size // 6)
    return {
        "choice_prose": _fill(prose, size),
        "prose_answer": _fill(prose, size, tail=f"\nAnswer: {choices[0]}"),
        "dense_mentions": _fill(lambda i: f"{words[i % len(words)]} ", size),
        "digits": _fill(lambda i: NUMBERS, size),
        "no_choice": _fill(lambda i: NEUTRAL, size),
        "long_runs": "".join(f"{w}{blanks}x " for w in ("card", "option", "deck", "not", "answer"))[:size],
    }


def time_step(name: str, strategy: str, reply: str, min_total: float) -> float:
    """Median seconds of one ``env.step(reply)`` on a fresh episode (after a warm-up call)."""
    paradigm = get_paradigm(name)
    params = paradigm.make_params(None, strategy)

    def once() -> float:
        env = paradigm.env_cls(params)
        env.reset(seed=0)
        start = time.perf_counter()
        env.step(reply)
        return time.perf_counter() - start

    warm = once()
    times: list[float] = []
    # A slow (super-linear) parser gets a single timed call instead of many.
    while len(times) < 3 or (sum(times) < min_total and warm < 1.0):
        times.append(once())
        if warm > 5.0:
            break
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="25000,100000", help="reply lengths in characters (comma-separated)")
    parser.add_argument("--paradigms", default=",".join(available()), help="comma-separated paradigm names")
    parser.add_argument("--strategies", default="direct,cot", help="comma-separated strategies")
    parser.add_argument("--min-time", type=float, default=0.3, help="seconds of timed calls per cell, at least")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = args.paradigms.split(",")
    strategies = args.strategies.split(",")

    print("ms per 100k characters of reply (median of env.step calls after a warm-up)")
    header = None
    for name in names:
        paradigm = get_paradigm(name)
        env = paradigm.env_cls(paradigm.make_params())
        _, info = env.reset(seed=0)
        choices = [str(c) for c in info["choices"]]
        for strategy in strategies:
            cells: dict[str, float] = {}
            for size in sizes:
                for shape, reply in shapes(name, choices, size).items():
                    cells[f"{shape}@{size // 1000}k"] = 1e3 * time_step(name, strategy, reply, args.min_time) * 1e5 / len(reply)
            if header is None:
                header = list(cells)
                print(f"{'paradigm':<8} {'strategy':<8} " + " ".join(f"{h:>17}" for h in header))
            print(f"{name:<8} {strategy:<8} " + " ".join(f"{cells[h]:>17.1f}" for h in header), flush=True)


if __name__ == "__main__":
    main()
