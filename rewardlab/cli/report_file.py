"""The ``--json`` report file of the commands that write one (``audit``, ``crosscheck``, ``rescore``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_json_report(path: str, report: Any) -> None:
    """Write ``report`` (JSON-ready) to ``path`` as JSON indented by 2, its folder made, and print where it went."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report, indent=2))
    print(f"report written to {target}")
