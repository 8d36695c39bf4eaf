"""The BFCL-v1 oracle: answers with the first possible answer of every expected call.

BFCL writes a possible dictionary value as ``{key: [options]}`` (and a list of dictionaries as a
list of those), so the oracle takes the first option of each key there too. A parameter whose
first option is ``""`` ("may be omitted") is left out, unless the function requires it, when
its first real option is used. Parameters that have possible answers but are not documented are
left out (giving them is an "unexpected parameter").
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rewardlab.envs.bfcl.checker import AnswerSpec, CallSpec, ParamSpec
from rewardlab.envs.bfcl.constants import NO_CALL_ANSWER

if TYPE_CHECKING:
    from rewardlab.envs.bfcl.env import BFCLEnv
    from rewardlab.envs.bfcl.multi_turn import BFCLMultiTurnEnv


def _first_of_dict(answer: Any) -> Any:
    if not isinstance(answer, dict):
        return answer
    return {key: options[0] for key, options in answer.items() if options and options[0] != ""}


def answer_value(spec: ParamSpec | None, option: Any) -> Any:
    """A parameter value made from one possible answer (dictionaries take their keys' first options)."""
    if spec is None:
        return option
    if spec.expected is dict and spec.answer_type is dict:
        return _first_of_dict(option)
    if spec.nested is dict and isinstance(option, list):
        return [_first_of_dict(item) for item in option]
    return option


def first_possible_answer(call: CallSpec) -> dict[str, Any]:
    """One expected call as ``{"name", "arguments"}`` built from the first possible answers.

    Example:
        >>> spec = AnswerSpec.compile(
        ...     [{"name": "area", "parameters": {"properties": {"base": {"type": "integer"}, "unit": {}}}}],
        ...     [{"area": {"base": [10], "unit": ["", "cm"]}}],
        ...     simple=True,
        ... )
        >>> first_possible_answer(spec.calls[0])
        {'name': 'area', 'arguments': {'base': 10}}
    """
    arguments = {}
    for param, options in call.answer.items():
        if not options or param not in call.properties:
            continue
        option = options[0]
        if option == "":
            if param not in call.required:
                continue
            option = next((o for o in options if o != ""), "")
        arguments[param] = answer_value(call.params.get(param), option)
    return {"name": call.name, "arguments": arguments}


def oracle_action(spec: AnswerSpec) -> str:
    """The action text: one JSON call, a JSON list for several, or :data:`NO_CALL_ANSWER`."""
    calls = [first_possible_answer(call) for call in spec.calls]
    if not calls:
        return NO_CALL_ANSWER
    return json.dumps(calls[0] if len(calls) == 1 else calls, ensure_ascii=False)


class BFCLOracle:
    """Reads the current task's possible answers (privileged ``env.task.data``)."""

    def __init__(self, env: BFCLEnv):
        self.env = env

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return oracle_action(self.env.answer_spec(self.env.current_task))

    def reset(self) -> None:
        """Stateless: nothing to reset."""


class MultiTurnOracle:
    """Replays BFCL's ground truth: per user turn, its calls one per step, then ``"Done."``.

    One call per step (rather than the turn's calls as one list) makes every prefix of its
    actions an honest partial trajectory, which is what the audit's ``oracle_half`` plays. It
    reads the privileged ground truth through the env (``env.task.data`` and ``env.world``).
    """

    def __init__(self, env: BFCLMultiTurnEnv):
        self.env = env

    def act(self, observation: str, info: dict[str, Any]) -> str:
        env = self.env
        ground_truth = env.current_task.data["ground_truth"]
        sources = ground_truth[env.turn_index] if env.turn_index < len(ground_truth) else []
        if env.turn_calls < len(sources):
            name, arguments = env.current_world.keyword_call(sources[env.turn_calls])
            return json.dumps({"name": name, "arguments": arguments})
        return "Done."

    def reset(self) -> None:
        """Stateless: the env's turn counters say where the episode is."""
