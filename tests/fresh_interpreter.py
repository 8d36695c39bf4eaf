"""Run code in a fresh interpreter: what a module imports cannot be judged from this test process,
which may have imported anything already."""

from __future__ import annotations

import subprocess
import sys


def modules_loaded_by(code: str, prefix: str = "rewardlab") -> set[str]:
    """The modules named ``prefix...`` in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    report = f"\nimport sys\nprint('\\n'.join(name for name in sys.modules if name.startswith({prefix!r})))"
    result = subprocess.run([sys.executable, "-c", code + report], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())
