"""RewardLab/SWE-v2: bug fixing in small Python repositories, with sandboxed execution."""

from rewardlab.envs.swe.env import SWEEnv
from rewardlab.envs.swe.loader import load_swebench_jsonl
from rewardlab.envs.swe.rubric import SWEOutcome, TestStatistics, make_rubric
from rewardlab.envs.swe.tasks import load_tasks

__all__ = ["SWEEnv", "SWEOutcome", "TestStatistics", "load_swebench_jsonl", "load_tasks", "make_rubric"]
