"""``python -m rewardlab``: the same as the ``rewardlab`` command."""

import sys

from rewardlab.cli import main

sys.exit(main())
