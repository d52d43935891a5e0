"""A random-weight tiny Llama built offline with SmolLM2's tokenizer: one more real ``hf`` model for
tests that need several models (rank correlations across models, leaderboards). Its replies are
noise, its log-likelihoods are a real forward pass; a seed gives another model."""

from __future__ import annotations

from pathlib import Path


def build(folder: Path, tokenizer_dir: str, seed: int = 0) -> Path:
    """Save the model and tokenizer in ``folder`` (with the tokenizer's chat template); returns it."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=8192,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
    )  # fmt: skip
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
