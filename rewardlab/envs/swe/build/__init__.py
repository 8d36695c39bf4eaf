"""Building SWE tasks: the shipped SWE-v2 tasks from their bug specs (``shipped_tasks``) and SWERepo
tasks from real projects (``builder``). Data generation, not imported at env run time."""
