"""RewardLab: Gymnasium environments for LLM agents with decomposed, inspectable rewards.

Importing the package registers every env id::

    import gymnasium as gym
    import rewardlab

    env = gym.make("RewardLab/BPMN-v2")
"""

from rewardlab.registration import env_ids, register_envs

__version__ = "0.1.0"

register_envs()

__all__ = ["__version__", "env_ids", "register_envs"]
