"""The ToolCall worlds: one in-memory database with Python tools per domain.

===========  ===============================  =============================================
domain       class                            tools
===========  ===============================  =============================================
retail       :class:`RetailWorld`             customers, products, orders (cancel, return...)
bank         :class:`BankWorld`               accounts, transfers, bills, cards
calendar     :class:`CalendarWorld`           events (no overlaps), contacts, email
travel       :class:`TravelWorld`             flights (may be sold out), hotels, bookings
===========  ===============================  =============================================

Example:
    >>> world = make_world("bank", seed=0)
    >>> [t["function"]["name"] for t in world.tools()][:3]
    ['find_customer', 'list_accounts', 'get_account']
    >>> world.call("transfer", {"from_account_id": "A101", "to_account_id": "A102", "amount": 500}).error
    'insufficient funds: account A101 holds 120.00'
"""

from __future__ import annotations

from functools import lru_cache

from rewardlab.envs.toolcall.worlds.bank import BankWorld
from rewardlab.envs.toolcall.worlds.base import CallResult, Tables, ToolError, ToolSpec, World, tool, view
from rewardlab.envs.toolcall.worlds.calendar import CalendarWorld
from rewardlab.envs.toolcall.worlds.retail import RetailWorld
from rewardlab.envs.toolcall.worlds.travel import TravelWorld
from rewardlab.errors import ConfigError, did_you_mean

WORLDS: dict[str, type[World]] = {w.domain: w for w in (RetailWorld, BankWorld, CalendarWorld, TravelWorld)}
"""Every domain by name."""


@lru_cache(maxsize=32)
def _generated(domain: str, seed: int) -> tuple[Tables, dict[str, int]]:
    return WORLDS[domain].generate(seed)


def make_world(domain: str, seed: int = 0) -> World:
    """A fresh world of ``domain`` built from ``seed`` (generation is cached; each world owns its tables)."""
    if domain not in WORLDS:
        raise ConfigError(f"unknown domain {domain!r}; domains are {sorted(WORLDS)}." + did_you_mean(domain, WORLDS))
    tables, counters = _generated(domain, int(seed))
    fresh = {name: {key: view(record) for key, record in rows.items()} for name, rows in tables.items()}
    return WORLDS[domain](fresh, counters=counters)


__all__ = [
    "WORLDS",
    "BankWorld",
    "CalendarWorld",
    "CallResult",
    "RetailWorld",
    "ToolError",
    "ToolSpec",
    "TravelWorld",
    "World",
    "make_world",
    "tool",
]
