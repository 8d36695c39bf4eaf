"""Print RewardLab's requirements with the extras named in argv[1] (comma-separated; none when absent), one per line.

Extras that name other extras (``rewardlab[web,slides]``) are expanded; RewardLab itself is not listed. Used by
scripts/setup-numpy2.sh to install a virtual environment's dependencies before RewardLab's editable wheel.
"""

import re
import sys
from pathlib import Path

import tomllib

project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
extras = project["optional-dependencies"]
pending = [extra for extra in (sys.argv[1] if len(sys.argv) > 1 else "").split(",") if extra]
seen, requirements = set(), list(project["dependencies"])
while pending:
    extra = pending.pop()
    if extra in seen:
        continue
    seen.add(extra)
    for requirement in extras[extra]:
        inner = re.fullmatch(r"rewardlab\[([^\]]+)\]", requirement.replace(" ", ""))
        if inner:
            pending.extend(inner.group(1).split(","))
        else:
            requirements.append(requirement)
print("\n".join(dict.fromkeys(requirements)))
