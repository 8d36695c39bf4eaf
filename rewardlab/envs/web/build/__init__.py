"""Building Web-v2's task data (:mod:`~rewardlab.envs.web.build.tasks`); never imported at env run time."""
