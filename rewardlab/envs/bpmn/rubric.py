"""The BPMN rubric: validity (a gate), syntactic, pragmatic and semantic quality.

The four components are the quality perspectives of the BPMN reward-design study (syntactic,
pragmatic, semantic, with XSD validity as a gate), each in [0, 1]:

- ``validity = (well_formed + bpmn_root + schema_valid + scorable_model) / 4``, where
  ``scorable_model`` means 1 to 500 flow nodes and at most 2,000 sequence and 2,000 message
  flows (the size caps of :mod:`rewardlab.envs.bpmn.model`); it gates
  (threshold 1): below 1, the other components are 0 and the reward is ``invalid_penalty``.
  With ``strict_format`` (BPMN-v1's default) ``validity/bare_answer`` (the answer is the
  ``definitions`` element alone, after at most an XML declaration and whitespace: no prose, code
  fence, comment, processing instruction or DOCTYPE around it) is a fifth check and the mean is
  over 5; otherwise it is reported but does not count.
- ``semantic``: fidelity to the reference, :mod:`rewardlab.envs.bpmn.semantic` (0 without a reference).
- ``syntactic = mean(rules) · semantic``, the rules of :mod:`rewardlab.envs.bpmn.syntactic`.
- ``pragmatic = mean(metrics) · semantic``, the metrics of :mod:`rewardlab.envs.bpmn.pragmatic`.

The rules and metrics are reference-free: a fixed model, or a perfect model of another process,
satisfies them all. Scaled by semantic they pay only as far as the model is the task's, so with
the default weights and gate a usable answer earns
``R = 1/4 · (1 + semantic · (1 + mean(rules) + mean(metrics)))``, between 1/4 and 1, and the
oracle's margin over any answer is at least ``3/4 · (1 − its semantic)`` when the oracle meets
every rule and metric. Validity's own 1/4 is the same for every usable answer: it ranks valid
BPMN above invalid output and no valid answer above another.

Every sub-metric appears in ``info["metrics"]`` as ``"<component>/<metric>"``; the syntactic and
pragmatic ones are the unscaled rules and metrics.

Success (``info["is_success"]``): the answer is valid, ``semantic ≥ SEMANTIC_SUCCESS`` (0.9), and
``mean(rules) ≥ min(SYNTACTIC_SUCCESS, mean(rules) of the reference)`` (0.9, or the reference's
own score where the reference breaks a rule), so the reference itself always succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from rewardlab.core.rubric import Criterion, Rubric, RubricResult
from rewardlab.envs.bpmn.model import MAX_FLOW_NODES, MAX_FLOWS, BPMNModel, extract_model
from rewardlab.envs.bpmn.parse import ParsedAnswer, read_answer
from rewardlab.envs.bpmn.pragmatic import pragmatic_metrics
from rewardlab.envs.bpmn.semantic import Profile, profile, semantic_similarity
from rewardlab.envs.bpmn.syntactic import syntactic_rules

COMPONENTS: tuple[str, ...] = ("validity", "syntactic", "pragmatic", "semantic")
SEMANTIC_SUCCESS = 0.9
"""Semantic score an answer needs to count as a success."""
SYNTACTIC_SUCCESS = 0.9
"""Syntactic score an answer needs to count as a success (or the reference's own, if lower)."""


@dataclass(frozen=True)
class Reference:
    """A reference model, analysed once: its semantic profile and its own syntactic score."""

    profile: Profile
    syntactic: float


@lru_cache(maxsize=512)
def analyse_reference(xml: str) -> Reference | None:
    """Parse and analyse a reference model (cached by its text); ``None`` when it is not BPMN."""
    parsed = read_answer(xml)
    if parsed.root is None or not parsed.bpmn_root:
        return None
    model = extract_model(parsed.root)
    rules = syntactic_rules(model)
    return Reference(profile(model), sum(rules.values()) / len(rules))


class BPMNOutcome:
    """What the rubric scores: one answer, read once, and the task's reference (if any).

    Attributes:
        answer: The agent's text (or bytes of a file).
        parsed: The :class:`~rewardlab.envs.bpmn.parse.ParsedAnswer`.
        reference_xml: The reference model's XML, or ``None`` (semantic is then 0).
    """

    def __init__(self, answer: str | bytes, reference_xml: str | None = None, *, strict_format: bool = False):
        self.answer = answer
        self.parsed: ParsedAnswer = read_answer(answer)
        self.reference_xml = reference_xml
        self.strict_format = strict_format
        """When True, XML cut out of prose or a code fence is not a usable answer (it fails validity)."""

    @cached_property
    def model(self) -> BPMNModel | None:
        """The extracted model when the root is a BPMN ``definitions`` element."""
        if self.parsed.root is None or not self.parsed.bpmn_root:
            return None
        return extract_model(self.parsed.root)

    @cached_property
    def reference(self) -> Reference | None:
        return None if self.reference_xml is None else analyse_reference(self.reference_xml)

    @property
    def scorable(self) -> BPMNModel | None:
        """The model when it has 1 to ``MAX_FLOW_NODES`` flow nodes and at most ``MAX_FLOWS`` flows of each kind."""
        model = self.model
        return model if model is not None and model.nodes and not model.oversized else None

    @cached_property
    def fidelity(self) -> tuple[float, dict[str, float]]:
        """``(semantic, sub_metrics)`` against the reference; ``(0, {})`` without a scorable model or a reference."""
        if self.scorable is None or self.reference is None:
            return 0.0, {}
        return semantic_similarity(profile(self.scorable), self.reference.profile)

    @cached_property
    def rules(self) -> dict[str, float]:
        """The syntactic rules of the scorable model (empty without one)."""
        return {} if self.scorable is None else syntactic_rules(self.scorable)

    @property
    def syntactic_quality(self) -> float:
        """The unscaled mean of :attr:`rules` (0 without a scorable model): what the success criterion reads."""
        return sum(self.rules.values()) / len(self.rules) if self.rules else 0.0

    @property
    def usable(self) -> bool:
        """Valid BPMN of a scorable size (and bare, with ``strict_format``): what ends a repair episode."""
        bare = self.parsed.extracted_from is None or not self.strict_format
        return self.parsed.valid and self.scorable is not None and bare

    @property
    def error(self) -> str | None:
        """What the validator found, or ``None`` for a usable answer."""
        if self.parsed.error is not None:
            return self.parsed.error
        if self.model is not None and self.model.oversized:
            return f"the model is too large to score; the limits are {MAX_FLOW_NODES} flow nodes and {MAX_FLOWS} flows"
        if self.scorable is None:
            return "the model has no flow nodes; put the tasks, events and gateways in a <process>"
        if not self.usable:
            return (
                f"the XML was read from {self.parsed.extracted_from}; answer with the XML document only "
                "(nothing but an XML declaration and whitespace before the <definitions> element, "
                "nothing but whitespace after it)"
            )
        return None


def validity(outcome: BPMNOutcome) -> tuple[float, dict[str, float]]:
    """``(well_formed + bpmn_root + schema_valid + scorable_model) / 4``, or with ``strict_format`` the mean of
    those and ``bare_answer`` (the answer is the XML alone, with no prose or code fence around it), over 5."""
    parsed = outcome.parsed
    checks = {
        "well_formed": float(parsed.well_formed),
        "bpmn_root": float(parsed.bpmn_root),
        "schema_valid": float(parsed.schema_valid),
        "scorable_model": float(outcome.scorable is not None),
    }
    checks["bare_answer"] = float(parsed.root is not None and parsed.extracted_from is None)
    counted = checks if outcome.strict_format else {k: v for k, v in checks.items() if k != "bare_answer"}
    return sum(counted.values()) / len(counted), checks


def syntactic(outcome: BPMNOutcome) -> tuple[float, dict[str, float]]:
    """``mean(rules) · semantic``: the modelling rules count only as far as the model is the task's (0 when there
    is no scorable model)."""
    if outcome.scorable is None:
        return 0.0, {}
    return outcome.syntactic_quality * outcome.fidelity[0], dict(outcome.rules)


def pragmatic(outcome: BPMNOutcome) -> tuple[float, dict[str, float]]:
    """``mean(metrics) · semantic``: understandability counts only as far as the model is the task's (0 when
    there is no scorable model)."""
    if outcome.scorable is None:
        return 0.0, {}
    metrics = pragmatic_metrics(outcome.scorable)
    return sum(metrics.values()) / len(metrics) * outcome.fidelity[0], metrics


def semantic(outcome: BPMNOutcome) -> tuple[float, dict[str, float]]:
    """Fidelity to the reference (0 when there is no scorable model or no reference)."""
    value, metrics = outcome.fidelity
    return value, dict(metrics)


def bpmn_rubric() -> Rubric:
    """The default rubric: equal weights, mean aggregate, validity gate at 1."""
    return Rubric(
        [
            Criterion(
                "validity",
                validity,
                "well-formed XML, BPMN root, valid against the BPMN 2.0 XSD (gate)",
                formula="mean(well-formed, BPMN root, XSD-valid, scorable, bare answer)",
            ),
            Criterion(
                "syntactic",
                syntactic,
                "mean of 24 BPMN modelling rules, times semantic",
                formula="mean(24 modelling rules) · semantic",
            ),
            Criterion(
                "pragmatic",
                pragmatic,
                "mean of 14 understandability metrics, times semantic",
                formula="mean(14 understandability metrics) · semantic",
            ),
            Criterion(
                "semantic",
                semantic,
                "node F1 times control-flow similarity (successions, relations, coverage)",
                formula="node F1 · mean(succession F1, profile similarity, coverage)",
            ),
        ],
        gates={"validity": 1.0},
    )


def is_success(outcome: BPMNOutcome, result: RubricResult) -> bool:
    """Valid, ``semantic ≥ 0.9`` and ``mean(rules) ≥ min(0.9, the reference's)`` (see the module docstring)."""
    if not outcome.usable or outcome.reference is None:
        return False
    threshold = min(SYNTACTIC_SUCCESS, outcome.reference.syntactic - 1e-9)
    return result.components["semantic"] >= SEMANTIC_SUCCESS and outcome.syntactic_quality >= threshold


def score_bpmn(answer: str | bytes, reference_xml: str | None = None, rubric: Rubric | None = None) -> RubricResult:
    """Score one answer against a reference with the default (or given) rubric.

    Example:
        >>> from rewardlab.envs.bpmn.tasks import load_tasks, reference_xml
        >>> reference = reference_xml(load_tasks().get("miwg-A.1.0"))
        >>> result = score_bpmn(reference, reference)
        >>> result.components["validity"], result.components["semantic"]
        (1.0, 1.0)
        >>> score_bpmn("<definitions/>", reference).reward
        0.0
    """
    return (rubric or bpmn_rubric()).score(BPMNOutcome(answer, reference_xml))
