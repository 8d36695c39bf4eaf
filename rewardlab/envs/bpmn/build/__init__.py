"""Building the shipped BPMN tasks (``data/tasks.jsonl`` and the generated references): data generation,
not imported at env run time. Run ``python -m rewardlab.envs.bpmn.build.generate``."""
