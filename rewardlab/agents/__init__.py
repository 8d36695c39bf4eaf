"""Agents: ``act(observation, info) -> action`` and ``reset()``.

``RandomAgent`` and ``OracleAgent`` work with every env; ``TransformersAgent`` runs a local
Hugging Face causal LM, ``OpenAIAgent`` any OpenAI-compatible endpoint. ``load_model`` gives the
default policy, SmolLM2-135M-Instruct, without a hub download. The LLM agents import their
dependencies (the ``train`` extra) lazily.
"""

from rewardlab.agents.base import OracleAgent, RandomAgent
from rewardlab.agents.models import DEFAULT_MODEL, load_model, load_tokenizer, smollm2_path
from rewardlab.agents.openai_agent import OpenAIAgent
from rewardlab.agents.transformers_agent import TransformersAgent
from rewardlab.core.agent import Agent

__all__ = [
    "DEFAULT_MODEL",
    "Agent",
    "OpenAIAgent",
    "OracleAgent",
    "RandomAgent",
    "TransformersAgent",
    "load_model",
    "load_tokenizer",
    "smollm2_path",
]
