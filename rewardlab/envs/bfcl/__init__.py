"""RewardLab/BFCL-v1: Berkeley Function Calling Leaderboard tasks scored by BFCL's AST checker."""

from __future__ import annotations

from rewardlab.envs.bfcl.env import BFCLEnv

__all__ = ["BFCLEnv"]
