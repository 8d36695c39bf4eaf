"""RewardLab envs in SkyRL through SkyRL-Gym (``pip install 'skyrl-gym==0.4.0'``).

SkyRL's generator makes one environment per trajectory with
``skyrl_gym.make(env_class, env_config=<skyrl_gym config of that class>, extras=<the dataset row>)``,
calls ``init(prompt)``, then ``step(text)`` until ``done``, reads ``get_metrics()`` and calls ``close()``.
:class:`RewardLabSkyRLEnv` plays a RewardLab env behind that contract:

- ``init(prompt)`` resets the env on the row's task (``task_id`` and ``split``, at the top of the
  row or in its ``extra_info``) and returns the env's own chat prompt: a system message with
  ``info["system_prompt"]`` (when not empty) and a user message with the observation. The
  dataset's prompt is not used: the row only selects the task.
- ``step(text)`` is one env step. ``reward`` is the env's step reward (0 until the last step, then
  the rubric's reward), so the turn rewards add up to the in-process return; ``observations`` is
  the next observation as a user message, ``[]`` once done; ``metadata`` has ``task_id``,
  ``reward_version`` (the stamp of the reward that pays the episode, :mod:`rewardlab.core.provenance`) and,
  at the last step, the flat logs of :func:`rewardlab.core.info.episode_logs`
  (``reward/<component>``, ``weight/``, ``metric/``, ``score``, ``is_success``, ``progress``).
  ``init`` returns ``task_id``, ``env_id`` and ``reward_version`` too.
- ``get_metrics()`` returns those logs (numbers only: the stamp is in the metadata); SkyRL averages them
  per env class into its rollout metrics, so every component reaches the trainer's logs.
- An infrastructure fault (``info["infra_error"]``) ends the episode with ``infra_error`` 1.0 in
  the metadata and the metrics and the reason in ``metadata["infra_error_reason"]``. SkyRL has no
  way for an env to drop a trajectory: filter on that flag (the reward is the env's invalid
  penalty, not a silent 0, and the episode is never counted a success).
- The inner env is closed as soon as the episode ends, by ``close()``, and when the adapter is
  garbage-collected (the episode runs on an :class:`~rewardlab.integrations.session.EpisodeSession`).

Which env: ``env_id`` (a constructor argument, set by the registrations below), else the row's
``env_id``, else ``env_config.env_id``. Its keyword arguments merge ``env_config.env_kwargs``, the
row's ``env_kwargs`` and the ``env_kwargs`` argument, in that order. SkyRL puts its
``generator.max_turns`` in every row (``extras["max_turns"]``): it becomes the env's turn budget
(the env scores the outcome when the budget ends the episode) unless ``env_kwargs`` sets
``max_turns``. An ``env_factory`` (a callable with no arguments returning a Gymnasium env, e.g. a
remote one) replaces ``gym.make`` and the keyword arguments; the env's own budget then applies.

:func:`register_skyrl_envs` registers ``rewardlab`` (env id from the row or the config) and every
RewardLab env id (``RewardLab/ToolCall-v3`` ...) in SkyRL-Gym's registry; call it in the process
that makes the envs (SkyRL's entrypoint). A custom factory registers with
``skyrl_gym.register(id=..., entry_point=functools.partial(RewardLabSkyRLEnv, env_factory=...))``.
:func:`skyrl_rows` writes the dataset rows. Example::

    from rewardlab.integrations.skyrl import register_skyrl_envs, skyrl_rows
    register_skyrl_envs()
    rows = skyrl_rows("RewardLab/ToolCall-v3")  # {"prompt", "env_class", "task_id", "split", ...}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import gymnasium as gym

from rewardlab.errors import require
from rewardlab.integrations.session import EpisodeSession, task_prompts
from rewardlab.registration import env_ids

skyrl_gym = require("skyrl_gym", "skyrl")
omegaconf = require("omegaconf", "skyrl")
# Any, not ModuleType: its classes are bases and annotations below
base_text_env: Any = require("skyrl_gym.envs.base_text_env", "skyrl")

__all__ = ["GENERIC_ID", "RewardLabSkyRLEnv", "register_skyrl_envs", "skyrl_rows"]

GENERIC_ID = "rewardlab"
"""The SkyRL-Gym id whose env id comes from the dataset row or the env config."""


def _plain(value: Any) -> Any:
    """``value`` with OmegaConf containers turned into dicts and lists (SkyRL passes its config as DictConfig)."""
    if omegaconf.OmegaConf.is_config(value):
        return omegaconf.OmegaConf.to_container(value, resolve=True)
    return value


def _task(row: Mapping[str, Any]) -> dict[str, Any]:
    """``task_id`` and ``split`` from the row, or from its ``extra_info`` (None where neither has one)."""
    extra = row.get("extra_info")
    sources = [row, extra] if isinstance(extra, Mapping) else [row]
    return {key: next((s[key] for s in sources if s.get(key) is not None), None) for key in ("task_id", "split")}


class RewardLabSkyRLEnv(base_text_env.BaseTextEnv):
    """A RewardLab env as a SkyRL-Gym ``BaseTextEnv`` (one episode per instance; see the module docstring)."""

    def __init__(
        self,
        env_config: Mapping[str, Any] | None = None,
        extras: Mapping[str, Any] | None = None,
        *,
        env_id: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        env_factory: Callable[[], gym.Env] | None = None,
    ):
        super().__init__()
        config = _plain(env_config) or {}
        row = _plain(extras) or {}
        self.env_id = env_id or row.get("env_id") or config.get("env_id")
        self.session = EpisodeSession(
            self.env_id,
            {**config.get("env_kwargs", {}), **row.get("env_kwargs", {}), **(env_kwargs or {})},
            env_factory=env_factory,
            max_turns=row.get("max_turns"),
            missing_env_id=f"set env_id in the dataset row or in the skyrl_gym config of {GENERIC_ID!r}",
        )
        self._task = _task(row)

    def init(self, prompt: base_text_env.ConversationType | None = None) -> tuple[list[dict[str, str]], dict]:
        """Reset on the row's task; the env's system prompt and first observation replace ``prompt``."""
        messages = self.session.start(**self._task)
        self.turns = 0
        return messages, {
            "task_id": self.session.task_id,
            "env_id": self.env_id,
            "reward_version": self.session.reward_version,
        }

    def step(self, action: str) -> base_text_env.BaseTextEnvStepOutput:
        """One env step; the last one carries the episode's flat logs and closes the inner env."""
        self.turns += 1
        turn = self.session.play(action)
        metadata: dict[str, Any] = {
            "task_id": self.session.task_id,
            "reward_version": self.session.reward_version,
            **self.session.logs,
        }
        if self.session.infra_error:
            metadata["infra_error_reason"] = self.session.infra_error
        if turn.done:
            self.close()
        return base_text_env.BaseTextEnvStepOutput(
            observations=turn.reply, reward=turn.reward, done=turn.done, metadata=metadata
        )

    def get_metrics(self) -> dict[str, float]:
        """The finished episode's :func:`~rewardlab.core.info.episode_logs` (empty before the end)."""
        return self.session.logs

    def close(self) -> None:
        """Close the inner env (once; later calls do nothing)."""
        self.session.close()


def register_skyrl_envs(ids: Iterable[str] | None = None) -> list[str]:
    """Register :data:`GENERIC_ID` and each of ``ids`` (default: every RewardLab env id) in SkyRL-Gym.

    Each RewardLab id is registered under its own name with ``env_id`` fixed, so a dataset row's
    ``env_class`` can be ``"RewardLab/ToolCall-v3"``. Ids already registered are left as they are.
    Returns the SkyRL-Gym ids.
    """
    names = list(ids) if ids is not None else env_ids()
    registrations: list[tuple[str, dict[str, str]]] = [(GENERIC_ID, {})] + [(name, {"env_id": name}) for name in names]
    for name, kwargs in registrations:
        if name not in skyrl_gym.registry:
            skyrl_gym.register(id=name, entry_point=f"{__name__}:RewardLabSkyRLEnv", kwargs=kwargs)
    return [name for name, _ in registrations]


def skyrl_rows(
    env_id: str,
    split: str = "train",
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """SkyRL dataset rows, one per task of ``split``: ``prompt`` (the env's chat prompt, for SkyRL's
    length filter and logs), ``env_class`` (``env_id``, as registered by :func:`register_skyrl_envs`),
    ``task_id``, ``split``, ``reward_spec`` (``{"method": "rule"}``: the env scores), ``reward_version`` (the
    env's stamp when the rows were made) and, when given, ``env_kwargs``.
    """
    return [
        {
            "prompt": messages,
            "env_class": env_id,
            "task_id": task_id,
            "split": split,
            "reward_spec": {"method": "rule"},
            "reward_version": info.get("reward_version"),
            **({"env_kwargs": dict(env_kwargs)} if env_kwargs else {}),
        }
        for task_id, messages, info in task_prompts(env_id, split, env_kwargs=env_kwargs, limit=limit)
    ]
