"""Python source parsed with :mod:`ast`, one parse at a time per process.

CPython 3.11 keeps the AST constructor's recursion depth in state shared by every thread of the interpreter.
When the garbage collector runs a finalizer in the middle of converting a tree, the GIL can pass to another
thread that parses too, and one of the two fails with ``SystemError: AST constructor recursion depth mismatch``.
That was seen with 64 concurrent sessions of ``rewardlab serve``: a BPMN-v2 reset computing its reward stamp
ended as an ``infra_error``. Every parse RewardLab makes while envs run (reward stamps, SWE's diff check, BFCL's
call parser) goes through :func:`parse`, which holds a process-wide re-entrant lock (re-entrant: a finalizer that
parses runs on the thread that holds it).

Example:
    >>> type(parse("x = 1")).__name__, type(parse("f(a=1)", mode="eval")).__name__
    ('Module', 'Expression')
"""

from __future__ import annotations

import ast
import threading
import warnings
from typing import Any

_LOCK = threading.RLock()


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", *, quiet: bool = False) -> Any:
    """:func:`ast.parse` of ``source``, serialised with every other call of this function (module docstring).
    ``quiet`` hides the compiler's warnings about the source (``SyntaxWarning``/``DeprecationWarning`` for an
    invalid escape), for source that is a repository's, not the user's: they would land in the user's log.
    Raises what :func:`ast.parse` raises (SyntaxError, ValueError, RecursionError, MemoryError)."""
    with _LOCK:
        if not quiet:
            return ast.parse(source, filename=filename, mode=mode)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            return ast.parse(source, filename=filename, mode=mode)
