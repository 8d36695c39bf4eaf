"""Agents: ``act(observation, info) -> action`` and ``reset()``."""

from rewardlab.agents.base import Agent, OracleAgent, RandomAgent

__all__ = ["Agent", "OracleAgent", "RandomAgent"]
