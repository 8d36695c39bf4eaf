"""Which calls relate to the task: matching an episode's calls to the reference solution's.

Schema and execution credit is only paid for calls the task is about. A call *matches* a
reference call when it names the same tool and gives the same values for that tool's key
arguments: its required arguments except the world's ``free_arguments`` (wording such as a
cancellation reason or an email body). Values are compared after normalisation: strings by
:func:`~rewardlab.core.text.canonical_text`, numbers to the cent, lists as multisets. Optional
arguments (a ``max_price`` filter, a ``limit``) are not compared, so a broader read of the same
records matches too. Each reference call is matched at most once.

Example:
    >>> from rewardlab.envs.toolcall.worlds import RetailWorld
    >>> ledger = ReferenceLedger(RetailWorld, [[{"name": "get_order", "arguments": {"order_id": "O1001"}}]])
    >>> ledger.claim("get_order", {"order_id": "o1001 "}), ledger.claim("get_order", {"order_id": "O1001"})
    (True, False)
    >>> ledger.covered, ledger.total
    (1, 1)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rewardlab.core.text import canonical_text
from rewardlab.envs.toolcall.worlds import World

CallKey = tuple[str, tuple[tuple[str, Any], ...]]


def normalise(value: Any) -> Any:
    """A hashable, comparison-friendly form of a JSON argument value."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return round(float(value), 2)
    if isinstance(value, str):
        return canonical_text(value)
    if isinstance(value, list):
        return tuple(sorted((normalise(v) for v in value), key=repr))
    if isinstance(value, dict):
        return tuple(sorted((str(k), normalise(v)) for k, v in value.items()))
    return repr(value)


def call_key(world: type[World] | World, name: str, arguments: Mapping[str, Any]) -> CallKey:
    """The tool name and the normalised values of its key arguments (required, not free)."""
    spec = world.tool_specs.get(name)
    required = spec.parameters.get("required", ()) if spec is not None else sorted(arguments)
    keys = sorted(k for k in required if k not in world.free_arguments)
    return name, tuple((k, normalise(arguments.get(k))) for k in keys)


class ReferenceLedger:
    """The reference solution's calls, claimed one by one by the episode's matching calls.

    Attributes:
        total: Calls in the reference solution (``C*``).
        covered: Reference calls matched so far.
    """

    def __init__(self, world: type[World] | World, solution: Iterable[Sequence[Mapping[str, Any]]]):
        self.world = world
        self._open: Counter[CallKey] = Counter(
            call_key(world, call["name"], call.get("arguments", {})) for turn in solution for call in turn
        )
        self.total = sum(self._open.values())
        self.covered = 0

    def claim(self, name: str, arguments: Mapping[str, Any]) -> bool:
        """Match one schema-valid call; True when it claimed a still-open reference call."""
        key = call_key(self.world, name, arguments)
        if self._open[key] <= 0:
            return False
        self._open[key] -= 1
        self.covered += 1
        return True

    @property
    def complete(self) -> bool:
        """Every reference call has been matched."""
        return self.covered == self.total
