"""Building SWERepo tasks from real projects: data generation, not imported at env run time."""
