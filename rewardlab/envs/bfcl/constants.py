"""Constants the BFCL modules share: the task categories, what an answer may be, the no-call answer.

They live here, not in the module that uses them first, so that the envs, the oracle and the audit
import this small module rather than each other.
"""

from __future__ import annotations

from rewardlab.core.toolcalls import ParseLimits

__all__ = ["AST_CATEGORIES", "CATEGORIES", "IRRELEVANCE_CATEGORIES", "NO_CALL_ANSWER", "PARSE_LIMITS"]

AST_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
)
"""Categories scored by matching the calls' AST against possible answers."""

IRRELEVANCE_CATEGORIES: tuple[str, ...] = ("irrelevance", "live_irrelevance")
"""Categories where no function fits and the right answer calls none."""

CATEGORIES: tuple[str, ...] = AST_CATEGORIES + IRRELEVANCE_CATEGORIES
"""Every category BFCL-v1 serves, in load order."""

PARSE_LIMITS = ParseLimits(max_chars=200_000, max_depth=32, max_calls=16)
"""What an answer may be (BFCL-v1 and BFCLMultiTurn-v1): 200,000 characters, JSON nested 32 deep, 16 calls."""

NO_CALL_ANSWER = "None of the available functions can help with this request, so I will not call any."
"""The oracle's answer to an irrelevance task (any text without a call is right)."""
