"""The BPMN rubric: validity (a gate), syntactic, pragmatic and semantic quality, and correctness.

The first four components are the quality perspectives of the BPMN reward-design study (syntactic,
pragmatic, semantic, with XSD validity as a gate), each in [0, 1]; the fifth says whether the
answer is the reference's model:

- ``validity = (well_formed + bpmn_root + schema_valid + scorable_model) / 4``, where
  ``scorable_model`` means 1 to 500 flow nodes and at most 2,000 sequence and 2,000 message
  flows (the size caps of :mod:`rewardlab.envs.bpmn.model`); it gates
  (threshold 1): below 1, the other components are 0 and the reward is ``invalid_penalty``.
  With ``strict_format`` (BPMN-v2's default) ``validity/bare_answer`` (the answer is the
  ``definitions`` element alone, after at most an XML declaration and whitespace: no prose, code
  fence, comment, processing instruction or DOCTYPE around it) is a fifth check and the mean is
  over 5; otherwise it is reported but does not count.
- ``semantic``: fidelity to the reference, :mod:`rewardlab.envs.bpmn.semantic` (0 without a reference).
- ``syntactic = mean(rules) · semantic``, the rules of :mod:`rewardlab.envs.bpmn.syntactic`.
- ``pragmatic = mean(metrics) · semantic``, the metrics of :mod:`rewardlab.envs.bpmn.pragmatic`.
- ``correctness = [same behaviour] · [no new defect]`` ∈ {0, 1}: *same behaviour* is
  :attr:`~rewardlab.envs.bpmn.semantic.Comparison.same_behaviour` (every activity and event
  matched with its type, and the routed successions, behavioural profile and message flows equal
  to the reference's under that matching); *no new defect* is
  ``Σ_rule max(0, v(rule) − v_ref(rule)) = 0`` with ``v`` the elements that break each modelling
  rule (:func:`~rewardlab.envs.bpmn.syntactic.rule_violations`), so the answer repeats at most the
  reference's own defects. The graded components move little when one flow of a 50-node model is
  wrong; this one is what a single defect costs (1/5 of the reward with equal weights), and it is 0
  for any cheap answer.

The rules and metrics are reference-free: a fixed model, or a perfect model of another process,
satisfies them all. Scaled by semantic they pay only as far as the model is the task's, so with
the default weights and gate a usable answer earns
``R = 1/5 · (1 + semantic · (1 + mean(rules) + mean(metrics)) + correctness)``, between 1/5 and 1;
the oracle's margin over any answer is at least ``3/5 · (1 − its semantic)`` when the oracle meets
every rule and metric, plus 1/5 when the answer is not correct. Validity's own 1/5 is the same for
every usable answer: it ranks valid BPMN above invalid output and no valid answer above another.

Every sub-metric appears in ``info["metrics"]`` as ``"<component>/<metric>"``; the syntactic and
pragmatic ones are the unscaled rules and metrics.

Success (``info["is_success"]``) means a correct answer: it is valid, ``semantic ≥ SEMANTIC_SUCCESS``
(0.9), ``mean(rules) ≥ min(SYNTACTIC_SUCCESS, mean(rules) of the reference)`` (0.9, or the
reference's own score where the reference breaks a rule), and it has the same behaviour as the
reference and no modelling defect beyond the reference's own (what ``correctness`` reads; success
reads the outcome, so reweighting the rubric never changes it). The reference itself, and any
re-serialisation of it (other ids, prefixes, element order, with or without diagram or
``incoming``/``outgoing`` children, re-cased labels), succeeds; with one sequence flow removed, an
implicit split added, a start or end event removed, a gateway made mixed or a gateway's type
swapped, it does not (``rewardlab audit --battery equivalent --battery defective``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from rewardlab.core.rubric import Criterion, Rubric, RubricResult
from rewardlab.envs.bpmn.model import MAX_FLOW_NODES, MAX_FLOWS, BPMNModel, extract_model
from rewardlab.envs.bpmn.parse import ParsedAnswer, read_answer
from rewardlab.envs.bpmn.pragmatic import pragmatic_metrics
from rewardlab.envs.bpmn.semantic import Comparison, Profile, compare, profile
from rewardlab.envs.bpmn.syntactic import rule_violations, syntactic_rules

COMPONENTS: tuple[str, ...] = ("validity", "syntactic", "pragmatic", "semantic", "correctness")
SEMANTIC_SUCCESS = 0.9
"""Semantic score an answer needs to count as a success."""
SYNTACTIC_SUCCESS = 0.9
"""Syntactic score an answer needs to count as a success (or the reference's own, if lower)."""


@dataclass(frozen=True)
class Reference:
    """A reference model, analysed once: its semantic profile, its own syntactic score and its own
    rule violations (modelling defects an answer may repeat without losing ``correctness``)."""

    profile: Profile
    syntactic: float
    violations: dict[str, int]


@lru_cache(maxsize=512)
def analyse_reference(xml: str) -> Reference | None:
    """Parse and analyse a reference model (cached by its text); ``None`` when it is not BPMN."""
    parsed = read_answer(xml)
    if parsed.root is None or not parsed.bpmn_root:
        return None
    model = extract_model(parsed.root)
    rules = syntactic_rules(model)
    return Reference(profile(model), sum(rules.values()) / len(rules), rule_violations(model))


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
    def comparison(self) -> Comparison | None:
        """The semantic comparison with the reference; ``None`` without a scorable model or a reference."""
        if self.scorable is None or self.reference is None:
            return None
        return compare(profile(self.scorable), self.reference.profile)

    @cached_property
    def fidelity(self) -> tuple[float, dict[str, float]]:
        """``(semantic, sub_metrics)`` against the reference; ``(0, {})`` without a scorable model or a reference."""
        comparison = self.comparison
        return (0.0, {}) if comparison is None else (comparison.value, comparison.metrics)

    @cached_property
    def new_defects(self) -> int | None:
        """Rule violations beyond the reference's own, ``Σ_rule max(0, v_answer(rule) − v_reference(rule))``;
        ``None`` without a scorable model or a reference."""
        if self.scorable is None or self.reference is None:
            return None
        own = self.reference.violations
        return sum(max(0, count - own.get(rule, 0)) for rule, count in rule_violations(self.scorable).items())

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


def correctness(outcome: BPMNOutcome) -> tuple[float, dict[str, float]]:
    """1 when the answer is the reference's model, else 0: the same behaviour
    (:attr:`~rewardlab.envs.bpmn.semantic.Comparison.same_behaviour`) and no modelling defect beyond the
    reference's own (:attr:`BPMNOutcome.new_defects` = 0). Sub-metrics ``same_behaviour`` and
    ``no_new_defects`` say which part failed."""
    comparison, new_defects = outcome.comparison, outcome.new_defects
    if comparison is None or new_defects is None:
        return 0.0, {}
    checks = {"same_behaviour": float(comparison.same_behaviour), "no_new_defects": float(new_defects == 0)}
    return checks["same_behaviour"] * checks["no_new_defects"], checks


def bpmn_rubric() -> Rubric:
    """The default rubric: equal weights, mean aggregate, validity gate at 1."""
    return Rubric(
        [
            Criterion(
                "validity",
                validity,
                "well-formed XML, BPMN root, valid against the BPMN 2.0 XSD (gate)",
                formula="mean(well-formed, BPMN root, XSD-valid, scorable, bare answer)",
                role="validity",
            ),
            Criterion(
                "syntactic",
                syntactic,
                "mean of 24 BPMN modelling rules, times semantic",
                formula="mean(24 modelling rules) · semantic",
                role="quality",
            ),
            Criterion(
                "pragmatic",
                pragmatic,
                "mean of 14 understandability metrics, times semantic",
                formula="mean(14 understandability metrics) · semantic",
                role="quality",
            ),
            Criterion(
                "semantic",
                semantic,
                "node F1 times control-flow similarity (successions, relations, coverage)",
                formula="node F1 · mean(succession F1, profile similarity, coverage)",
                role="outcome",
            ),
            Criterion(
                "correctness",
                correctness,
                "1 when the behaviour equals the reference's and no rule is broken more often than in it",
                formula="[same behaviour] · [no modelling defect beyond the reference's]",
                range="{0, 1}",
                role="outcome",
            ),
        ],
        gates={"validity": 1.0},
    )


def is_success(outcome: BPMNOutcome, result: RubricResult) -> bool:
    """Valid, ``semantic ≥ 0.9``, ``mean(rules) ≥ min(0.9, the reference's)`` and correct: the same behaviour as
    the reference and no modelling defect beyond its own (see the module docstring).

    Read from the outcome, not from the components, so reweighting or gating the rubric never changes it."""
    if not outcome.usable or outcome.reference is None or outcome.comparison is None:
        return False
    threshold = min(SYNTACTIC_SUCCESS, outcome.reference.syntactic - 1e-9)
    return (
        outcome.comparison.value >= SEMANTIC_SUCCESS
        and outcome.syntactic_quality >= threshold
        and outcome.comparison.same_behaviour
        and outcome.new_defects == 0
    )


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
