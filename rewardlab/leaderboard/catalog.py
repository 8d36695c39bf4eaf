"""EnvCatalog: what the demo needs from each env a leaderboard run makes, taken once."""

from __future__ import annotations

import gymnasium as gym

from rewardlab.core.card import DesignChoice
from rewardlab.leaderboard.audit_budget import audit_episode_count
from rewardlab.leaderboard.schemes import design_choice


class EnvCatalog:
    """Each env's design choice (its card's, :func:`~rewardlab.leaderboard.schemes.design_choice`: the components
    of its targeted and gated schemes, with the reasons) and its audit's size
    (:func:`~rewardlab.leaderboard.audit_budget.audit_episode_count`), taken once per env id so that no env is
    made again. Pass it as :func:`~rewardlab.leaderboard.runner.run_suite`'s ``on_env``.

    Attributes:
        choices: ``{env_id: DesignChoice}``. audit_episodes: ``{env_id: episodes}``.
    """

    def __init__(self, audit_tasks: int):
        self.audit_tasks = audit_tasks
        self.choices: dict[str, DesignChoice] = {}
        self.audit_episodes: dict[str, int] = {}

    def __call__(self, env_id: str, env: gym.Env) -> None:
        if env_id not in self.choices:
            self.choices[env_id] = design_choice(env)
            self.audit_episodes[env_id] = audit_episode_count(env, self.audit_tasks)
