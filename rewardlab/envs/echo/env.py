"""Echo: repeat the word the prompt names, optionally after drafts. The template env (not registered).

The spec sheet is :class:`EchoEnv`'s docstring (``help(EchoEnv)``), in the sections every env's has
(:data:`rewardlab.core.specs.SPEC_SECTIONS`); its component table is written from :func:`echo_rubric`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.tasks import Task
from rewardlab.envs.echo.oracle import EchoOracle
from rewardlab.envs.echo.rubric import EchoOutcome, echo_rubric
from rewardlab.envs.echo.tasks import load_tasks

DRAFT_PREFIX = "draft:"
"""An action starting with this is a draft: noted, not final."""

MILESTONES: tuple[str, ...] = ("drafted", "answered")


class EchoEnv(TextEnv):
    """Echo: repeat the target word, optionally after drafts. The template env (not registered).

    ## Description

    Each task's prompt is ``say <word>``; the agent answers with the word. Before answering it may
    send drafts, which the env notes without ending the episode. The decomposed reward pays an
    exact match and, separately, an answer of the right length, so that wrappers have both a
    pass/fail component and a partial credit to work with. Six tasks (four train, two test), drawn
    with the env's ``np_random`` (``options={"task_id": ...}`` or ``{"split": ...}`` to choose).

    ## Action format

    Text (:class:`~rewardlab.core.TextSpace`). ``draft:<text>`` records ``<text>`` as the answer so
    far (observation ``noted``); anything else is the final answer (observation ``done``). A
    non-text action is reported in ``info["action_error"]`` and changes nothing.

    ## Components

    Equal default weights, mean aggregate: ``R = ½·exact + ½·length``. Formulas:
    :mod:`rewardlab.envs.echo.rubric`.

    | name     | role    | formula                                                      | weight | range  |
    |----------|---------|--------------------------------------------------------------|--------|--------|
    | `exact`  | outcome | [answer = target]                                            | 1/2    | {0, 1} |
    | `length` | partial | clip(1 − abs(len(answer) − len(target)) / len(target), 0, 1) | 1/2    | [0, 1] |

    ``info["metrics"]``: ``length/chars = min(1, len(answer) / 100)``. ``is_success``: both
    components are 1, i.e. the answer is the target.

    ## Milestones

    ``drafted`` (a draft was sent) and ``answered`` (the final answer was sent), each reported once,
    on the step that reaches it; ``progress`` is the fraction of the two reached.

    ## Episode end

    Terminates on the final answer. Drafts never end the episode; with ``max_turns`` set, the step
    that reaches it truncates the episode and scores the last draft (an empty answer if none).

    Replay: exact. The actions alone decide the reward, so a record's seed and actions re-score the
    episode bit for bit (:mod:`rewardlab.core.replay`).

    ## Arguments

    No arguments of its own; the common ones (:class:`~rewardlab.core.CommonArgs`: ``reward_weights``,
    ``aggregate``, ``gates``, ``invalid_penalty``, ``max_turns``, default no limit, ``render_mode``).

    ## Known hack classes defended

    - *Hedged answers* (``alpha or beta``, the prompt ``say alpha`` itself): ``exact`` is equality,
      so any extra text earns 0, and ``length`` falls with every extra character.
    - *Non-text and hostile actions*: coerced or reported as ``action_error`` by
      :class:`~rewardlab.core.TextEnv`; nothing raises.
    - Not defended, on purpose (Echo is a toy): *right length, wrong text* (``xxxxx`` for ``alpha``)
      earns ``length`` 1, so ``R = ½``. A real env scales or gates such a content-free component by a
      task-specific one, as ``DESIGN.md`` requires of every benchmark env.

    ## Version history

    - v0: the tests' ``EchoEnv`` promoted to a template (same tasks, components and dynamics).

    Example:
        >>> env = EchoEnv()
        >>> observation, info = env.reset(seed=0, options={"task_id": "t0"})
        >>> observation
        'say alpha'
        >>> env.step("draft:alp")[0]
        'noted'
        >>> observation, reward, terminated, truncated, info = env.step("alpha")
        >>> reward, terminated, info["reward_components"], info["is_success"]
        (1.0, True, {'exact': 1.0, 'length': 1.0}, True)
    """

    cheap_calls: ClassVar[bool] = True
    system_prompt: str = "Repeat the target."
    multi_turn = True  # drafts before the answer
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "exact",
        "length",
        "the answer is the target: the task itself",
        "no validity component: the answer's length, the only other one",
    )

    def __init__(self, **common: Unpack[CommonArgs]):
        super().__init__(tasks=load_tasks(), rubric=echo_rubric(), **common)
        self.answer = ""
        """The last draft or answer."""
        self.target = ""
        """The current task's target (privileged)."""

    # ------------------------------------------------------------------ TextEnv hooks
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        self.answer = ""
        self.target = str(task.data["target"])
        return task.prompt, {}

    def _act(self, action: str) -> Turn:
        if action.startswith(DRAFT_PREFIX):
            self.answer = action[len(DRAFT_PREFIX) :]
            return Turn(observation="noted", milestones=["drafted"])
        self.answer = action
        return Turn(observation="done", done=True, milestones=["answered"])  # scores _outcome()

    def _outcome(self) -> tuple[EchoOutcome, bool]:
        return EchoOutcome(answer=self.answer, target=self.target), True

    def milestone_names(self) -> tuple[str, ...]:
        return MILESTONES

    def make_oracle(self) -> EchoOracle:
        return EchoOracle(self)
