"""``rewardlab.audit``: does a reward mean "correct"? Three batteries per env: degenerate strategies must
earn little, equivalent rewrites of the oracle's answer must keep success, one-defect rewrites must lose it.

Example:
    >>> from rewardlab.audit import audit_env
    >>> report = audit_env("RewardLab/BPMN-v2", episodes=2)     # doctest: +SKIP
    >>> print(report.format_table())                            # doctest: +SKIP
"""

from rewardlab.audit.batteries import RewriteRow
from rewardlab.audit.episode import EpisodeRecord
from rewardlab.audit.generic import GENERIC
from rewardlab.audit.rewrite import EQUIVALENT_TOLERANCE, Rewrite, RewriteContext, defective, equivalent
from rewardlab.audit.runner import BATTERIES, MIN_MARGIN, AuditReport, StrategyRow, audit_env
from rewardlab.audit.strategy import AuditProfile, EpisodeView, Strategy, strategy

__all__ = [
    "BATTERIES",
    "EQUIVALENT_TOLERANCE",
    "GENERIC",
    "MIN_MARGIN",
    "AuditProfile",
    "AuditReport",
    "EpisodeRecord",
    "EpisodeView",
    "Rewrite",
    "RewriteContext",
    "RewriteRow",
    "Strategy",
    "StrategyRow",
    "audit_env",
    "defective",
    "equivalent",
    "strategy",
]
