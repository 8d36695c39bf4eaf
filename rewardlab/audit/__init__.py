"""``rewardlab.audit``: play degenerate strategies against an env and flag the ones that earn reward.

Example:
    >>> from rewardlab.audit import audit_env
    >>> report = audit_env("RewardLab/BPMN-v1", episodes=2)     # doctest: +SKIP
    >>> print(report.format_table())                            # doctest: +SKIP
"""

from rewardlab.audit.generic import GENERIC
from rewardlab.audit.runner import MIN_MARGIN, AuditReport, EpisodeRecord, StrategyRow, audit_env
from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy, strategy

__all__ = [
    "GENERIC",
    "MIN_MARGIN",
    "AuditProfile",
    "AuditReport",
    "EpisodeRecord",
    "EpisodeView",
    "Strategy",
    "StrategyRow",
    "audit_env",
    "strategy",
]
