"""Reading episode records: the JSON lines :class:`~rewardlab.wrappers.RecordEpisodes` writes.

The reader sits in core so that every layer can read records (the SWE predictions export, the crosscheck,
``rewardlab rescore``) without importing the wrapper that writes them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["read_episodes"]


def read_episodes(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The episodes recorded in ``path``, one dict per line (a partial last line is skipped)."""
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.endswith("\n") and line.strip():
                yield json.loads(line)
