"""Vet the ``hayling`` probe's wrong endings at sentence level, and write the vetted pairs.

    PYTHONPATH=. .venv/bin/python scripts/hayling_vet_keys.py            # print the summary
    PYTHONPATH=. .venv/bin/python scripts/hayling_vet_keys.py --write    # rewrite the data files

A Hayling suppression key must make the completed sentence nonsensical, and an initiation foil
must not be a second good ending. Topic rules alone (:func:`~lm_eval_cog.probes._hayling_bank.
unconnected`: no shared domain) let through sentences that still make sense ("The happy dog wagged
its tip."). So every (sentence, other frame's ending) pair is also judged as a whole sentence:
the sentence completed with the word is embedded with the local sentence-embedding model
(:mod:`lm_eval_cog.embeddings`, all-MiniLM-L6-v2) and compared (cosine) with the sentence
completed with its own ending. A key (unrelated word) passes when that
similarity is below both :data:`CEILING` and the median over all the frame's candidate words (the
completed sentence must be further from the sensible one than most words put there, and never close
in absolute terms; the level depends on the sentence's length, hence the per-frame median); a related
word, connected on purpose, when it is below the median of the frame's related candidates. The pairs that pass go into ``lm_eval_cog/probes/_hayling_vetted.py`` (the generator
reads only that: generation needs no torch); the topic-admissible pairs the check rejects go
into ``tests/data/hayling_rejected_keys.json`` with their similarity, for the tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lm_eval_cog.probes._hayling_bank import BLANK, FRAMES, Frame, connected, unconnected  # noqa: E402

#: No completed sentence this close (cosine) to the sensible one is nonsense enough.
CEILING = 0.90
KINDS = ("related", "unrelated")
#: Unrelated candidates examined per frame (a fixed draw); all related ones are.
MAX_UNRELATED = 50
VETTED = ROOT / "lm_eval_cog" / "probes" / "_hayling_vetted.py"
REJECTED = ROOT / "tests" / "data" / "hayling_rejected_keys.json"
#: Embeddings of earlier runs (not in the repository): a rerun after an edit embeds only new sentences.
CACHE = Path("/tmp/hayling_vet_embeddings.npz")


def after_a(frame: Frame) -> bool:
    """Whether the blank follows "a": a word starting with a vowel would read "a apple"."""
    return frame.text.endswith(f" a {BLANK}.")


def completed(frame: Frame, word: str) -> str:
    return frame.text.replace(BLANK, word)


def candidates(frame: Frame) -> list[tuple[Frame, str]]:
    """The other frames whose ending may stand in ``frame`` by the topic rules, with its kind: every
    related one, and at most :data:`MAX_UNRELATED` unrelated ones (a fixed draw per pair, to keep the
    embedding work small; the generator needs a few dozen per frame, not all)."""
    out, unrelated = [], []
    for other in FRAMES:
        kind = "unrelated" if unconnected(frame, other) else "related" if connected(frame, other) else None
        if kind and not (after_a(frame) and other.prepotent[0] in "aeiou"):
            (unrelated if kind == "unrelated" else out).append((other, kind))
    # The draw is by a hash of each pair, so that an edit of the bank changes few other frames' draws.
    keep = sorted(unrelated, key=lambda pair: zlib.crc32(f"{frame.text}|{pair[0].prepotent}".encode()))
    return out + [pair for pair in unrelated if pair in keep[:MAX_UNRELATED]]


def similarities(pairs: list[tuple[Frame, str]]) -> list[float]:
    """Cosine of each (frame, word)'s completed sentence with the frame's sensible sentence."""
    from lm_eval_cog.embeddings import embed

    sentences = sorted({completed(f, w) for f, w in pairs} | {completed(f, f.prepotent) for f, _ in pairs})
    vectors = {}
    if CACHE.exists():  # sentence -> vector of an earlier run (the model is fixed: same vectors)
        with np.load(CACHE) as cached:
            vectors = {t: v for t, v in zip(cached["texts"], cached["vectors"]) if t in set(sentences)}
    todo = [t for t in sentences if t not in vectors]
    if todo:
        vectors.update(zip(todo, embed(todo)))
        np.savez(CACHE, texts=np.array(list(vectors)), vectors=np.array(list(vectors.values())))
    return [float(vectors[completed(f, w)] @ vectors[completed(f, f.prepotent)]) for f, w in pairs]


def vet() -> tuple[dict[str, dict[str, list[str]]], list[dict[str, object]]]:
    rows = [(frame, other.prepotent, kind) for frame in FRAMES for other, kind in candidates(frame)]
    sims = similarities([(f, w) for f, w, _ in rows])
    by_frame: dict[str, list[tuple[str, float]]] = {f.text: [] for f in FRAMES}
    for (frame, _, kind), sim in zip(rows, sims):
        by_frame[frame.text].append((kind, sim))
    # A key (unrelated) must be further than the median of all the frame's candidates; a related
    # foil (connected on purpose) further than the median of the related ones.
    bound = {(text, kind): min(CEILING, statistics.median(s for k, s in pairs if kind == "unrelated" or k == kind))
             for text, pairs in by_frame.items() for kind in KINDS if any(k == "related" for k, _ in pairs)}
    vetted: dict[str, dict[str, list[str]]] = {f.text: {"related": [], "unrelated": []} for f in FRAMES}
    rejected = []
    for (frame, word, kind), sim in zip(rows, sims):
        limit = bound[(frame.text, kind)]
        if sim < limit:
            vetted[frame.text][kind].append(word)
        else:
            rejected.append({"frame": frame.text, "word": word, "kind": kind, "similarity": round(sim, 4),
                             "bound": round(limit, 4)})
    return vetted, rejected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the vetted and rejected data files")
    args = parser.parse_args()
    vetted, rejected = vet()
    kept = {k: sum(len(v[k]) for v in vetted.values()) for k in ("related", "unrelated")}
    print(f"{len(FRAMES)} frames; kept {kept}; rejected {len(rejected)}")
    print("fewest per frame:", min(min(len(v["related"]), len(v["unrelated"])) for v in vetted.values()))
    if args.write:
        lines = []
        for text, kinds in vetted.items():
            lines.append(f"    {text!r}: {{")
            for kind in ("related", "unrelated"):
                words = textwrap.fill(repr(tuple(kinds[kind])), 100, initial_indent=" " * 8,
                                      subsequent_indent=" " * 9, break_long_words=False)
                lines.append(f"        {kind!r}:\n{words},")
            lines.append("    },")
        VETTED.write_text(
            '"""Generated by scripts/hayling_vet_keys.py --write: do not edit. Per sentence frame, the\n'
            "other frames' endings that may stand there as a related and as an unrelated wrong word,\n"
            'each vetted at sentence level (see the script)."""\n\n'
            f'MODEL = "all-MiniLM-L6-v2"\nCEILING = {CEILING}\n'
            "VETTED: dict[str, dict[str, tuple[str, ...]]] = {\n" + "\n".join(lines) + "\n}\n"
        )
        REJECTED.parent.mkdir(exist_ok=True)
        # One line per frame: its bounds and each rejected word with its similarity.
        frames: dict[str, dict[str, dict[str, float]]] = {}
        for row in rejected:
            entry = frames.setdefault(str(row["frame"]), {"bound": {}, "related": {}, "unrelated": {}})
            entry["bound"][str(row["kind"])] = row["bound"]
            entry[str(row["kind"])][str(row["word"])] = row["similarity"]
        lines = [f"  {json.dumps(text)}: {json.dumps(entry)}" for text, entry in frames.items()]
        REJECTED.write_text(f'{{"model": "all-MiniLM-L6-v2", "ceiling": {CEILING}, "frames": {{\n'
                            + ",\n".join(lines) + "\n}}\n")

if __name__ == "__main__":
    main()
