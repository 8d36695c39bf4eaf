"""One package per task family: env.py, rubric.py, tasks.py + data/, oracle.py."""
