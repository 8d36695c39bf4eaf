"""ToolDialogue: a user and an assistant over the ToolCall-v3 worlds, tau-bench style.

| | |
|---|---|
| API | PettingZoo AEC |
| Agents | ``assistant`` with the default scripted user; ``user`` and ``assistant`` with ``user="external"`` |
| Spaces | text (:class:`~rewardlab.core.TextSpace`) for every agent |
| Underlying env | ``RewardLab/ToolCall-v3``: its worlds, tasks, tools and rubric |

## Description
The user knows the task's goal and reveals it over turns; the assistant sees only what the user
has said. The assistant acts in the ToolCall-v3 format: a JSON tool call (or a list of calls),
which runs against the world and returns the results to the assistant, who acts again; or a
message to the user, which passes the turn to the user. The conversation ends when the user
says ``###STOP###``: the assistant's last message is then its final answer, scored by ToolCall-v3.

The default scripted user (:class:`ScriptedUser`) reveals the goal one sentence per turn and
stops once everything is revealed and the assistant has answered again, so the assistant can be
trained alone. With ``user="external"`` both agents are controlled from outside; the user's
observation is the goal plus the assistant's last message.

## Rewards
When the conversation ends, the assistant receives ToolCall-v3's reward for the episode (tool
calls made, the final world state and the final answer; see ``ToolCallEnv``), and so does the
external user (the team is cooperative). Per-agent infos carry the same ``reward_components``,
``reward_weights``, ``metrics``, ``score`` and ``is_success`` keys as the single-agent env.

## Episode End
The user's ``###STOP###``, or ``max_turns`` assistant actions (then all agents are truncated and
the episode is scored with no final answer).

## Version History
* v0: initial release.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pettingzoo import AECEnv

from rewardlab.core import DEFAULT_MAX_TEXT_LENGTH, TextSpace, coerce_action, truncate
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.toolcall.env import ToolCallEnv
from rewardlab.errors import ConfigError
from rewardlab.multiagent.text import TextObservation

STOP = "###STOP###"
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
UserMode = Literal["scripted", "external"]


def goal_pieces(goal: str) -> list[str]:
    """The goal split into sentences, the order in which the scripted user reveals it."""
    return [piece for piece in SENTENCE_END.split(goal.strip()) if piece] or [goal]


class ScriptedUser:
    """Reveals the goal one sentence per turn; says ``###STOP###`` once everything is revealed
    and the assistant has replied after the last piece. Usable as an external user agent too:
    ``act`` reads the goal from ``info["goal"]``."""

    def __init__(self) -> None:
        self.revealed = 0

    def reset(self) -> None:
        self.revealed = 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        pieces = goal_pieces(info["goal"])
        if self.revealed >= len(pieces):
            return STOP
        self.revealed += 1
        return pieces[self.revealed - 1]


class ToolDialogue(AECEnv):
    """See the module docstring for the full spec."""

    metadata = {"name": "tool_dialogue_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        *,
        user: UserMode = "scripted",
        max_turns: int = 24,
        env_kwargs: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ):
        super().__init__()
        if user not in ("scripted", "external"):
            raise ConfigError(f"user must be 'scripted' or 'external', got {user!r}")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ConfigError(f"max_turns must be a positive int, got {max_turns!r}")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.user_mode = user
        self.max_turns = max_turns
        self.render_mode = render_mode
        # the underlying env must never end the episode on its own turn budget before we do; it is made
        # directly, without gym.make's checker wrappers, as this env enforces the call order itself
        self.tool_env = ToolCallEnv(**{**(env_kwargs or {}), "max_turns": max_turns + 1})
        self._parse_limits = self.tool_env.limits
        self.possible_agents = ["user", "assistant"] if user == "external" else ["assistant"]
        self._observation_space = TextSpace(2 * DEFAULT_MAX_TEXT_LENGTH + 1000)
        self._action_space = TextSpace(DEFAULT_MAX_TEXT_LENGTH)
        self.scripted_user = ScriptedUser()
        self.transcript: list[tuple[str, str]] = []

    def observation_space(self, agent: str) -> TextSpace:
        return self._observation_space

    def action_space(self, agent: str) -> TextSpace:
        return self._action_space

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        select: dict[str, Any] = {k: options[k] for k in ("task_id", "split") if k in options}
        goal, info = self.tool_env.reset(seed=seed, options=select or None)
        self.goal = goal
        self.agents = list(self.possible_agents)
        self.transcript = []
        self.assistant_turns = 0
        self.last_user_message = ""
        self.last_for_assistant = ""
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        shared = {"task_id": info["task_id"], "action_error": None}
        self.infos = {"assistant": {**shared, "system_prompt": info["system_prompt"], "tools": info["tools"]}}
        if self.user_mode == "external":
            self.infos["user"] = {**shared, "goal": goal, "system_prompt": USER_PROMPT}
            self.agent_selection = "user"
        else:
            self.scripted_user.reset()
            self._user_says(self.scripted_user.act("", {"goal": goal}))
            self.agent_selection = "assistant"

    def observe(self, agent: str) -> TextObservation:
        if agent == "user":
            last = self.transcript[-1][1] if self.transcript and self.transcript[-1][0] == "assistant_message" else ""
            text = f"Your goal:\n{self.goal}\n\nAssistant:\n{truncate(last, DEFAULT_MAX_TEXT_LENGTH)}"
        else:
            text = truncate(self.last_for_assistant, 2 * DEFAULT_MAX_TEXT_LENGTH)
        return TextObservation(text)

    def step(self, action: str | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        rewards = self.rewards
        for name in rewards:  # PettingZoo's _clear_rewards, inlined: this step is on the hot path
            rewards[name] = 0.0
        text, error = coerce_action(action)
        self.infos[agent]["action_error"] = error
        if agent == "user":
            self._user_turn(text)
        else:
            self._assistant_turn(text)
        cumulative = self._cumulative_rewards
        for name, reward in rewards.items():  # and _accumulate_rewards
            cumulative[name] += reward

    # ------------------------------------------------------------------ turns
    def _user_says(self, message: str) -> None:
        self.transcript.append(("user", message))
        self.last_user_message = message
        self.last_for_assistant = f"User: {message}"

    def _user_turn(self, message: str) -> None:
        if message.strip() == STOP:
            self._finish(final_answer=self._last_assistant_message())
            return
        self._user_says(message)
        self.agent_selection = "assistant"

    def _last_assistant_message(self) -> str:
        messages = [text for role, text in self.transcript if role == "assistant_message"]
        return messages[-1] if messages else ""

    def _assistant_turn(self, text: str) -> None:
        self.assistant_turns += 1
        if parse_tool_calls(text, self._parse_limits).kind == "answer":
            self.transcript.append(("assistant_message", text))
            if self.user_mode == "scripted":
                reply = self.scripted_user.act("", {"goal": self.goal})
                if reply == STOP:
                    self._finish(final_answer=text)
                    return
                self._user_says(reply)
            else:
                self.agent_selection = "user"
        else:
            observation, _, terminated, truncated, info = self.tool_env.step(text)
            self.transcript.append(("assistant_tool_call", text))
            self.transcript.append(("tool", observation))
            self.last_for_assistant = observation
            own = self.infos["assistant"]
            own["action_error"] = info["action_error"]
            own["milestones"] = info["milestones"]
            own["progress"] = info["progress"]
        if self.assistant_turns >= self.max_turns and not any(self.terminations.values()):
            self._finish(final_answer="", truncated=True)

    def _finish(self, *, final_answer: str, truncated: bool = False) -> None:
        _, reward, _, _, info = self.tool_env.step(final_answer)
        outcome = {k: info[k] for k in ("reward_components", "reward_weights", "metrics", "score", "is_success")}
        for agent in self.agents:
            self.rewards[agent] = float(reward)
            self.infos[agent].update(outcome)
        done = dict.fromkeys(self.agents, True)
        if truncated:
            self.truncations = done
        else:
            self.terminations = done

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return "\n".join(f"{role}: {text}" for role, text in self.transcript)

    def close(self) -> None:
        self.tool_env.close()


USER_PROMPT = (
    "You are a customer talking to a support assistant. Reveal your goal a little at a time, answer the "
    f"assistant's questions, and reply {STOP} when your goal is fully handled."
)
