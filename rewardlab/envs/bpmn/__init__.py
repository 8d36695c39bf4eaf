"""RewardLab/BPMN-v2: text → BPMN 2.0 XML with validity, syntactic, pragmatic and semantic rewards."""

from rewardlab.envs.bpmn.env import BPMNEnv
from rewardlab.envs.bpmn.rubric import BPMNOutcome, bpmn_rubric, score_bpmn

__all__ = ["BPMNEnv", "BPMNOutcome", "bpmn_rubric", "score_bpmn"]
