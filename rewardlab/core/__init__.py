"""The contract every RewardLab env shares: TextEnv, Rubric, TaskSet and text spaces."""

from rewardlab.core.env import TextEnv, Turn
from rewardlab.core.rubric import AGGREGATES, Criterion, Rubric, RubricResult, aggregate, normalize_weights
from rewardlab.core.spaces import DEFAULT_MAX_TEXT_LENGTH, TextSpace, text_space
from rewardlab.core.tasks import SPLITS, Task, TaskSet
from rewardlab.core.text import coerce_action, truncate

__all__ = [
    "AGGREGATES",
    "DEFAULT_MAX_TEXT_LENGTH",
    "SPLITS",
    "Criterion",
    "Rubric",
    "RubricResult",
    "Task",
    "TaskSet",
    "TextEnv",
    "TextSpace",
    "Turn",
    "aggregate",
    "coerce_action",
    "normalize_weights",
    "text_space",
    "truncate",
]
