"""RewardLab/ToolCall-v3: multi-turn tool use in simulated, stateful worlds.

The agent serves a user by calling tools of an in-memory world and then answering; the
outcome is scored from the calls that relate to the task, the final database state and a
hedge-free answer, so any valid order of calls earns full credit and no cheap output does.
Actions are read by :func:`rewardlab.core.toolcalls.parse_tool_calls`.

==============  =================================================================
module          job
==============  =================================================================
``env``         :class:`~rewardlab.envs.toolcall.env.ToolCallEnv`, the spec sheet
``rubric``      the six components and their formulas
``relevance``   matching calls to the reference solution's (which calls earn credit)
``candidates``  the values competing with a required output (what a hedge would list)
``schema``      fast JSON-schema checks equivalent to jsonschema on tool schemas
``worlds``      :class:`World` and the four domains (retail, bank, calendar, travel)
``tasks``       the TaskSet, required effects, the hidden expected state
``build``       data generation: the seeded templates of ``data/generated.jsonl``
``oracle``      replays the reference solution
``audit``       the env's degenerate strategies for ``rewardlab audit``
==============  =================================================================

Example:
    >>> import json, gymnasium as gym, rewardlab
    >>> env = gym.make("RewardLab/ToolCall-v3")
    >>> obs, info = env.reset(seed=0, options={"task_id": "hw-bank-003"})
    >>> obs
    "Ada Lovelace here. Pay City Power $20 from my checking account and tell me what's left in it."
    >>> call = '{"name": "list_accounts", "arguments": {"customer_id": "U01"}}'
    >>> obs, reward, terminated, truncated, info = env.step(call)
    >>> [account["balance"] for account in json.loads(obs)["result"]]
    [120.0, 5000.0]
"""

from rewardlab.envs.toolcall.worlds import WORLDS, World, make_world

__all__ = ["WORLDS", "World", "make_world"]
