"""A newcomer's path, timed: a clean clone, ``bash scripts/setup.sh``, then ``.venv/bin/rewardlab demo``.

Issue 28's targets: on a fresh machine of this kind, set-up at most 6 minutes and the demo at most 6 minutes.
The clone is made from this checkout's ``HEAD`` in a temporary folder; the set-up runs with a fresh ``HOME``
(so RewardLab's caches, the converted model, the Slides similarity table and the sandbox's root file system are
made again) and pip's cache off, so every wheel is installed anew from the package index. What a fresh machine
would also do and this cannot undo is installing the Debian packages (Chromium, bubblewrap, mmdebstrap): the
line ``apt`` says whether ``scripts/apt-missing.sh`` found anything to install.

Each phase is one wall-clock measurement of a whole command (a newcomer runs each once); the load average
before each is printed with it, since another job on the machine slows both. The peer is the target itself.

Run: ``python -m benchmarks.bench_newcomer [--keep]`` (``--keep`` leaves the clone for a look).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import fmt_seconds, stamp, table  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
TARGET_S = 6 * 60
"""Each phase's target (issue 28): 6 minutes."""


def timed(argv: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> tuple[float, int]:
    """``(seconds, exit status)`` of ``argv``, its output written to ``log``."""
    start = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    return time.perf_counter() - start, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", action="store_true", help="keep the clone and its logs")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="rewardlab-newcomer-"))
    clone, home = root / "rewardlab", root / "home"
    home.mkdir()
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(HERE), str(clone)], check=True)
    env = {**os.environ, "HOME": str(home), "PIP_NO_CACHE_DIR": "1", "XDG_CACHE_HOME": str(home / ".cache")}
    env.pop("VIRTUAL_ENV", None)
    rows = []
    try:
        for phase, argv in (
            ("setup.sh", ["bash", "scripts/setup.sh"]),
            ("rewardlab demo", [".venv/bin/rewardlab", "demo", "--results-dir", str(root / "results")]),
        ):
            load = os.getloadavg()[0]
            seconds, status = timed(argv, cwd=clone, env=env, log=root / f"{phase.split()[-1]}.log")
            verdict = "failed" if status else ("met" if seconds <= TARGET_S else "missed")
            rows.append([phase, fmt_seconds(seconds), f"{load:.2f}", fmt_seconds(TARGET_S), verdict])
            if status:
                print((root / f"{phase.split()[-1]}.log").read_text()[-3000:])
                break
        setup_log = (root / "setup.sh.log").read_text()
        apt = "installed missing packages" if "== apt-get install" in setup_log else "nothing was missing"
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(stamp())
    print(f"apt: {apt}" + (f"; clone and logs kept in {root}" if args.keep else ""))
    print(table(["phase", "wall time", "load before", "target", "target"], rows))


if __name__ == "__main__":
    main()
