"""Multi-agent environments on PettingZoo, built on the single-agent RewardLab envs."""

from rewardlab.multiagent.generate_verify_refine import GenerateVerifyRefine, parse_verdict
from rewardlab.multiagent.tool_dialogue import STOP, ScriptedUser, ToolDialogue, goal_pieces

__all__ = ["STOP", "GenerateVerifyRefine", "ScriptedUser", "ToolDialogue", "goal_pieces", "parse_verdict"]
