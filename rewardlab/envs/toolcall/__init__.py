"""RewardLab/ToolCall-v0: multi-turn tool use in simulated, stateful worlds."""
