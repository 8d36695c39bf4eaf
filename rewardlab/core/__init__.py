"""The contract every RewardLab env shares: TextEnv, Rubric, TaskSet, the EnvCard an env declares, text spaces,
the Agent protocol and tool-call parsing."""

from rewardlab.core.agent import Agent
from rewardlab.core.card import DesignChoice, EnvCard
from rewardlab.core.env import CommonArgs, TextEnv, Turn
from rewardlab.core.rubric import AGGREGATES, ROLES, Criterion, Role, Rubric, RubricResult, aggregate, normalize_weights
from rewardlab.core.spaces import DEFAULT_MAX_TEXT_LENGTH, TextSpace, text_space
from rewardlab.core.tasks import SPLITS, Task, TaskSet
from rewardlab.core.text import coerce_action, truncate
from rewardlab.core.toolcalls import JSONRejected, ParsedAction, ParseLimits, ToolCall, parse_tool_calls

__all__ = [
    "AGGREGATES",
    "DEFAULT_MAX_TEXT_LENGTH",
    "ROLES",
    "SPLITS",
    "Agent",
    "CommonArgs",
    "Criterion",
    "DesignChoice",
    "EnvCard",
    "JSONRejected",
    "ParseLimits",
    "ParsedAction",
    "Role",
    "Rubric",
    "RubricResult",
    "Task",
    "TaskSet",
    "TextEnv",
    "TextSpace",
    "ToolCall",
    "Turn",
    "aggregate",
    "coerce_action",
    "normalize_weights",
    "parse_tool_calls",
    "text_space",
    "truncate",
]
