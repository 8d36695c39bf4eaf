"""RewardLab envs as a verl agent loop (verl 0.9, ``verl.experimental.agent_loop``).

verl's ``AgentLoopWorker`` makes one agent loop per dataset row, from the class registered under
the row's ``agent_name``, and awaits ``run(sampling_params, **row)``. :class:`RewardLabAgentLoop`
(registered as ``"rewardlab"``) plays one episode of a RewardLab env per row:

1. Reset the env on the row's task (``extra_info.task_id``, ``extra_info.split``). The prompt is
   the env's own: a system message with ``info["system_prompt"]`` (when not empty) and a user
   message with the observation; the row's ``raw_prompt`` is not used (the row selects the task).
   It is tokenised by verl's Continuous Token builder (``ct_build_initial_tokens``), as verl's own
   agent loops do.
2. Generate with the server manager, token in and token out; the new tokens join the response
   with ``response_mask`` 1. Their text (special tokens skipped) is the env's action.
3. Unless the episode ended, the observation is appended as a user message
   (``ct_merge_context_msg``: its tokens, and the chat template's turn markers, get
   ``response_mask`` 0) and the loop returns to 2.

The loop also stops when the response reaches ``rollout.response_length`` tokens, and after
``rollout.multi_turn.max_assistant_turns`` turns when that is set; an episode stopped before the
env ended it is unfinished (``finished`` 0, no outcome: its components are logged as 0). That
turn limit is also the env's own turn budget, so that the env scores the outcome at the limit,
unless ``env_kwargs`` sets ``max_turns`` or an ``env_factory`` makes the env.

The :class:`~verl.experimental.agent_loop.agent_loop.AgentLoopOutput` carries the token ids and
masks (and the log-probabilities when the server returns them) and:

- ``reward_score``: the episode's return, the sum of the env's step rewards (verl puts it on the
  last response token and skips its own reward manager);
- ``extra_fields["turn_scores"]``: the env's reward for each assistant turn (0 until the last);
- ``extra_fields["reward_extra_info"]``: flat logs with the same keys for every episode of the env,
  as verl requires across a batch: ``reward/<component>``, ``score``, ``is_success``,
  ``progress``, ``infra_error`` and ``finished`` (names of
  :func:`rewardlab.core.info.episode_logs`). verl adds them to the training batch and its
  rollout dumps, and at validation logs each one per data source
  (``val-aux/<data_source>/reward/<component>/mean@N``);
- ``extra_fields["rewardlab"]``: ``task_id``, ``reward_version`` (the stamp of the reward that scored the
  episode, :mod:`rewardlab.core.provenance`; a string, so it is here and not among the numbers of
  ``reward_extra_info``), the full ``episode_logs`` (with ``weight/`` and ``metric/`` keys) and, on an
  infrastructure fault, ``infra_error_reason``. verl keeps it per sample in the batch's ``non_tensor_batch``.

An infrastructure fault (``info["infra_error"]``) sets ``infra_error`` 1.0; with
``drop_infra_errors`` (the default) the whole ``response_mask`` is 0, so the rollout adds no token
to the loss. Its reward (the env's invalid penalty) still enters group statistics such as GRPO's
baseline: verl has no per-sample drop after the agent loop.

Which env: the ``env_id`` argument, else the row's ``extra_info.env_id``; its keyword arguments
are the row's ``extra_info.env_kwargs`` updated by the ``env_kwargs`` argument. An
``env_factory`` (no arguments, returns a Gymnasium env, e.g. a remote one) replaces ``gym.make``.
The env is made for each episode (an :class:`~rewardlab.integrations.session.EpisodeSession`) and
closed when ``run`` returns, whatever happens. The arguments
come from verl's agent loop config file (``actor_rollout_ref.rollout.agent.agent_loop_config_path``;
each entry is instantiated by Hydra with the extra keys as arguments)::

    - name: rewardlab_toolcall
      _target_: rewardlab.integrations.verl.RewardLabAgentLoop
      env_id: RewardLab/ToolCall-v3
      env_kwargs: {max_turns: 6}

and the rows' ``agent_name`` (or ``rollout.agent.default_agent_loop``) selects it;
:func:`verl_rows` writes such rows. One env per batch: verl reads ``reward_extra_info``'s keys
from the batch's first sample.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any
from uuid import uuid4

import gymnasium as gym

from rewardlab.errors import require
from rewardlab.integrations.session import EpisodeSession, task_prompts

# Any, not ModuleType: its classes are bases and annotations below
agent_loop: Any = require("verl.experimental.agent_loop.agent_loop", "verl")
omegaconf = require("omegaconf", "verl")
profiler = require("verl.utils.profiler", "verl")
rollout_trace = require("verl.utils.rollout_trace", "verl")

__all__ = ["AGENT_NAME", "RewardLabAgentLoop", "verl_rows"]

AGENT_NAME = "rewardlab"
"""The name :class:`RewardLabAgentLoop` is registered under in verl's agent loop registry."""


def _plain(value: Any) -> Any:
    """``value`` with OmegaConf containers turned into dicts and lists (Hydra passes DictConfig)."""
    if omegaconf.OmegaConf.is_config(value):
        return omegaconf.OmegaConf.to_container(value, resolve=True)
    return value


@agent_loop.register(AGENT_NAME)
class RewardLabAgentLoop(agent_loop.AgentLoopBase):
    """One RewardLab episode per dataset row (see the module docstring).

    Args:
        env_id: The env to play; default: the row's ``extra_info.env_id``.
        env_kwargs: Its keyword arguments (over the row's ``extra_info.env_kwargs``).
        env_factory: Makes the env instead of ``gym.make``.
        drop_infra_errors: Zero the response mask of an episode an infrastructure fault ended.
        *args, **kwargs: verl's ``AgentLoopBase`` arguments (and the config entry's ``name``, ``tools``).
    """

    def __init__(
        self,
        *args: Any,
        env_id: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        env_factory: Callable[[], gym.Env] | None = None,
        drop_infra_errors: bool = True,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.env_id = env_id
        self.env_kwargs = dict(_plain(env_kwargs) or {})
        self.env_factory = env_factory
        self.drop_infra_errors = drop_infra_errors
        self.response_length = int(self.rollout_config.response_length)
        self.max_turns = self.rollout_config.multi_turn.get("max_assistant_turns")

    @rollout_trace.rollout_trace_op
    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> agent_loop.AgentLoopOutput:
        """Play the row's task to the end (or the response budget) and return verl's output."""
        extra = _plain(kwargs.get("extra_info")) or {}
        session = EpisodeSession(
            self.env_id or extra.get("env_id"),
            {**(extra.get("env_kwargs") or {}), **self.env_kwargs},
            env_factory=self.env_factory,
            max_turns=self.max_turns or None,
            missing_env_id=f"set env_id in the {AGENT_NAME!r} agent loop config or the row's extra_info",
        )
        try:
            return await self._play(session, extra, sampling_params)
        finally:
            await asyncio.to_thread(session.close)

    async def _play(
        self, session: EpisodeSession, extra: Mapping[str, Any], sampling_params: dict[str, Any]
    ) -> agent_loop.AgentLoopOutput:
        messages = await asyncio.to_thread(session.start, extra.get("task_id"), extra.get("split"))
        request_id = uuid4().hex
        metrics: dict[str, Any] = {}
        server_fields: dict[str, Any] = {}
        token_ids = await self.ct_build_initial_tokens(messages)
        mask: list[int] = []
        logprobs: list[float] = []
        assistant_turns, user_turns = 0, 0
        while True:
            with profiler.simple_timer("generate_sequences", metrics):
                output = await self.server_manager.generate(
                    request_id=request_id, prompt_ids=token_ids, sampling_params=sampling_params
                )
            if output.num_preempted is not None:  # absent: verl's default, -1 (not available)
                metrics["num_preempted"] = metrics.get("num_preempted", 0) + output.num_preempted
            if not server_fields:
                server_fields.update(output.extra_fields)
            elif output.extra_fields.get("max_global_steps"):
                server_fields["max_global_steps"] = output.extra_fields["max_global_steps"]
            assistant_turns += 1
            merged, mask, merged_logprobs = await self.ct_merge_assistant_token(
                token_ids,
                output.token_ids,
                mask,
                logprobs if (logprobs or output.log_probs) else None,
                assistant_logprobs=output.log_probs or None,
            )
            token_ids = merged.token_ids
            logprobs = merged_logprobs or logprobs
            text = self.tokenizer.decode(output.token_ids, skip_special_tokens=True)
            with profiler.simple_timer("tool_calls", metrics):
                turn = await asyncio.to_thread(session.play, text)
            if turn.done or len(mask) >= self.response_length or (self.max_turns and assistant_turns >= self.max_turns):
                break
            previous, messages = session.messages[:-1], list(session.messages)  # the observation joins
            merged, context_mask, context_logprobs = await self.ct_merge_context_msg(
                previous, messages, token_ids, mask, logprobs or None
            )
            if len(context_mask) >= self.response_length:
                break
            token_ids, mask = merged.token_ids, context_mask
            logprobs = context_logprobs or logprobs
            user_turns += 1

        infra_error = session.infra_error
        if infra_error and self.drop_infra_errors:
            mask = [0] * len(mask)
        cut = len(token_ids) - len(mask)
        details: dict[str, Any] = {
            "task_id": session.task_id,
            "reward_version": session.reward_version,
            "logs": session.logs,
        }
        if infra_error:
            details["infra_error_reason"] = infra_error
        return agent_loop.AgentLoopOutput(
            prompt_ids=token_ids[:cut],
            response_ids=token_ids[cut:][: self.response_length],
            response_mask=mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs else None,
            reward_score=session.episode_return,
            num_turns=assistant_turns + user_turns + 1,
            metrics=metrics,
            extra_fields={
                **server_fields,
                "turn_scores": list(session.rewards),
                "tool_rewards": [],
                "reward_extra_info": session.rollout_logs(),
                "rewardlab": details,
            },
        )


def verl_rows(
    env_id: str,
    split: str = "train",
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    agent_name: str = AGENT_NAME,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """verl dataset rows, one per task of ``split``: ``data_source`` (``env_id``), ``prompt`` (the env's
    chat prompt, for verl's length filter), ``agent_name``, ``reward_model`` (``{"style": "rule",
    "ground_truth": ""}``: the agent loop scores) and ``extra_info`` (``index``, ``env_id``,
    ``task_id``, ``split``, ``reward_version``, the env's stamp when the rows were made, and, when given,
    ``env_kwargs``)."""
    rows = []
    for index, (task_id, messages, info) in enumerate(task_prompts(env_id, split, env_kwargs=env_kwargs, limit=limit)):
        extra = {
            "index": index,
            "env_id": env_id,
            "task_id": task_id,
            "split": split,
            "reward_version": info.get("reward_version"),
        }
        rows.append(
            {
                "data_source": env_id,
                "prompt": messages,
                "agent_name": agent_name,
                "reward_model": {"style": "rule", "ground_truth": ""},
                "extra_info": extra | ({"env_kwargs": dict(env_kwargs)} if env_kwargs else {}),
            }
        )
    return rows
