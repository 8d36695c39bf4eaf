"""Multi-agent environments on PettingZoo, built on the single-agent RewardLab envs."""

from rewardlab.multiagent.generate_verify_refine import GenerateVerifyRefine, parse_verdict

__all__ = ["GenerateVerifyRefine", "parse_verdict"]
