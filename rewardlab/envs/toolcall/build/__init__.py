"""Building the shipped ToolCall tasks (``data/generated.jsonl``) from seeded templates: data generation,
not imported at env run time. Run ``python -m rewardlab.envs.toolcall.build.templates``."""
