"""The verifiers taskset ``rewardlab_verifiers``: verifiers 0.4 resolves a taskset id to a top-level
module, so this package re-exports :mod:`rewardlab.integrations.verifiers` under that name
(``vf-eval rewardlab_verifiers ...``, ``--env.taskset.id rewardlab_verifiers``)."""

from rewardlab.integrations.verifiers import *  # noqa: F403
from rewardlab.integrations.verifiers import __all__  # noqa: F401
