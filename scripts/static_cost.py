"""What a full ``cog_static`` run costs: documents and prompt tokens per probe and form.

    python scripts/static_cost.py                     # the embedded SmolLM2's tokenizer
    python scripts/static_cost.py --tokenizer PATH    # any local tokenizer folder

Counts the default documents (seed 1234) of every probe. ``_mc``: one log-likelihood
request per choice, each context + " " + choice; ``_gen``: one prompt per document
(without a chat template) plus at most ``max_gen_toks`` generated tokens.
"""

from __future__ import annotations

import argparse

from transformers import AutoTokenizer

from lm_eval_cog.lmeval.probe_task import DEFAULT_SEED
from lm_eval_cog.probes.core import REGISTRY, get_probe

GEN_SUFFIX = '\n\nEnd your reply with a line of the form "Answer: <your answer>".'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", default=None, help="tokenizer folder (default: the embedded SmolLM2)")
    args = ap.parse_args()
    if args.tokenizer is None:
        from lm_eval_cog.smollm2 import model_dir

        args.tokenizer = str(model_dir())
    tok = AutoTokenizer.from_pretrained(args.tokenizer)

    def count(text: str) -> int:
        return len(tok(text, add_special_tokens=False)["input_ids"])

    totals = {"docs": 0, "mc_requests": 0, "mc_tokens": 0, "gen_tokens": 0}
    print(f"{'probe':<18}{'docs':>6}{'choices':>9}{'mc req':>8}{'mc tokens':>11}{'gen tokens':>12}{'mean gen':>10}")
    for name in sorted(REGISTRY):
        probe = get_probe(name)
        docs = probe.generate(DEFAULT_SEED, probe.default_items)
        mc_requests = sum(len(d["choices"]) for d in docs)
        mc_tokens = sum(count(f"{d['prompt']}\nAnswer: {c}") for d in docs for c in d["choices"])
        gen_tokens = sum(count(d["prompt"] + GEN_SUFFIX) for d in docs)
        print(f"{name:<18}{len(docs):>6}{mc_requests / len(docs):>9.1f}{mc_requests:>8}{mc_tokens:>11}"
              f"{gen_tokens:>12}{gen_tokens / len(docs):>10.0f}")  # fmt: skip
        for key, value in zip(totals, (len(docs), mc_requests, mc_tokens, gen_tokens)):
            totals[key] += value
    print(f"{'all':<18}{totals['docs']:>6}{'':>9}{totals['mc_requests']:>8}{totals['mc_tokens']:>11}"
          f"{totals['gen_tokens']:>12}")  # fmt: skip


if __name__ == "__main__":
    main()
