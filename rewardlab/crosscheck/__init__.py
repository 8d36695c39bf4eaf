"""``rewardlab.crosscheck``: does an independent grader agree with our rewards on the same answers?

The oracle's answer, its equivalent and defective rewrites (the audit's batteries) and recorded
model episodes are played through an env once; each external grader registered for the env
(:data:`~rewardlab.crosscheck.grader.GRADERS`: bpmnlint + bpmn-moddle for BPMN, bfcl-eval's own
AST checker for BFCL, the page's own reward read by the ``miniwob`` package's rules for MiniWoB,
swebench's own ``get_eval_report`` on plain pytest's log of the exported prediction for SWE, python-pptx
and LibreOffice's PDF layout of the env's .pptx for Slides and SlidesAgent) judges
the same answers, and the report gives Cohen's κ on success, Spearman's ρ between our reward and
the grader's score, and every disagreement with its explanation.

Example:
    >>> from rewardlab.crosscheck import crosscheck_env
    >>> report = crosscheck_env("RewardLab/BFCL-v1", episodes=4)   # doctest: +SKIP
    >>> print(report.format_table())                               # doctest: +SKIP
"""

from rewardlab.crosscheck.answers import KINDS, Answer, answer_set
from rewardlab.crosscheck.grader import GRADERS, ExternalVerdict, Grader, graders_for
from rewardlab.crosscheck.report import CrosscheckReport, Graded, GraderReport
from rewardlab.crosscheck.runner import crosscheck_env
from rewardlab.crosscheck.stats import cohen_kappa, spearman_rho

__all__ = [
    "GRADERS",
    "KINDS",
    "Answer",
    "CrosscheckReport",
    "ExternalVerdict",
    "Graded",
    "Grader",
    "GraderReport",
    "answer_set",
    "cohen_kappa",
    "crosscheck_env",
    "graders_for",
    "spearman_rho",
]
