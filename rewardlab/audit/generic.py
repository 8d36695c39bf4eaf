"""The generic battery: degenerate strategies that work on any TextEnv through its public API."""

from __future__ import annotations

import string
from collections.abc import Iterator

from rewardlab.audit.strategy import EpisodeView, Strategy, strategy

GARBAGE_LENGTH = 100_000
"""Characters of the garbage action (capped by the action space's ``max_length``)."""

REPEAT_LENGTH = 20_000
"""Characters of the repetition action."""


@strategy("empty", "the empty answer on every turn")
def empty(view: EpisodeView) -> Iterator[str]:
    yield ""


@strategy("echo", "echoes the latest observation back, every turn")
def echo(view: EpisodeView) -> Iterator[str]:
    while True:
        yield view.observation


@strategy("system_prompt", "answers with the system prompt")
def system_prompt(view: EpisodeView) -> Iterator[str]:
    yield str(view.first_info.get("system_prompt") or view.env.system_prompt)


@strategy("garbage", f"{GARBAGE_LENGTH:,} random printable characters")
def garbage(view: EpisodeView) -> Iterator[str]:
    length = min(GARBAGE_LENGTH, view.env.action_space.max_length)
    alphabet = list(string.printable)
    yield "".join(view.rng.choice(alphabet, size=length))


@strategy("repetition", f"the prompt's first 40 words repeated to {REPEAT_LENGTH:,} characters")
def repetition(view: EpisodeView) -> Iterator[str]:
    words = " ".join(view.first_observation.split()[:40]) or "answer"
    yield ((words + " ") * (REPEAT_LENGTH // (len(words) + 1) + 1))[:REPEAT_LENGTH]


@strategy("other_task_oracle", "replays the oracle's actions of another task")
def other_task_oracle(view: EpisodeView) -> Iterator[str]:
    yield from view.oracle_actions.get(view.other_task_id or "", [])


@strategy("constant_answer", "one task's oracle actions, reused on every task")
def constant_answer(view: EpisodeView) -> Iterator[str]:
    yield from view.oracle_actions.get(view.constant_task_id or "", [])


@strategy("oracle_half", "the first half of the oracle's actions (of its one answer's text, when it has one)")
def oracle_half(view: EpisodeView) -> Iterator[str]:
    actions = view.oracle_actions.get(view.task_id, [])
    if len(actions) == 1:
        yield actions[0][: len(actions[0]) // 2]
    else:
        yield from actions[: len(actions) // 2]


@strategy("random_then_finish", "one random well-formed action, then the finishing action")
def random_then_finish(view: EpisodeView) -> Iterator[str]:
    yield view.env.sample_action(view.rng)


GENERIC: tuple[Strategy, ...] = (
    empty,
    echo,
    system_prompt,
    garbage,
    repetition,
    other_task_oracle,
    constant_answer,
    oracle_half,
    random_then_finish,
)
"""Every generic strategy, in report order."""
