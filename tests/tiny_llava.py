"""A random-weight tiny LLaVA built offline (SmolLM2's tokenizer + an ``<image>`` token, a 1-layer
CLIP vision tower on 56-px images): its replies are noise, but lm-eval's real ``hf-multimodal``
path runs on it (its processor, placeholder replacement, image-token expansion), which the
scripted VLM cannot show. No VLM with weights ships on PyPI (docs/research/flexibility-suite.md §4)."""

from __future__ import annotations

from pathlib import Path

#: Tokens one image becomes: (56 / 14)^2 patches, the CLS feature dropped ("default" strategy).
IMAGE_TOKENS = 16


def build(folder: Path, tokenizer_dir: str) -> Path:
    """Save the model and its processor in ``folder``; returns it."""
    import torch
    from transformers import (
        AutoTokenizer,
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    vision = CLIPVisionConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=56, patch_size=14
    )
    text = LlamaConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=8192,
    )  # fmt: skip
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=tok.convert_tokens_to_ids("<image>"))
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config)
    images = CLIPImageProcessor(size={"shortest_edge": 56}, crop_size={"height": 56, "width": 56})
    processor = LlavaProcessor(
        image_processor=images, tokenizer=tok, patch_size=14, vision_feature_select_strategy="default",
        image_token="<image>", num_additional_image_tokens=1,
    )  # fmt: skip
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
