"""RewardLab/BPMN-v2: from a process description to a BPMN 2.0 model, with validator feedback.

The spec sheet is :class:`BPMNEnv`'s docstring (``help(env.unwrapped)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.rubric import RubricResult
from rewardlab.core.tasks import Task
from rewardlab.envs.bpmn.oracle import BPMNOracle
from rewardlab.envs.bpmn.parse import BPMN_NS
from rewardlab.envs.bpmn.rubric import BPMNOutcome, bpmn_rubric, is_success
from rewardlab.envs.bpmn.tasks import load_tasks, reference_xml
from rewardlab.errors import ConfigError

if TYPE_CHECKING:
    from rewardlab.audit.strategy import AuditProfile

MILESTONES: tuple[str, ...] = ("well_formed", "bpmn_root", "schema_valid")

_SAMPLE_VERBS = ("Check", "Approve", "Send", "Review", "Record", "Ship", "Notify", "Prepare", "Archive", "Pay")
_SAMPLE_OBJECTS = ("order", "invoice", "request", "claim", "document", "payment", "customer", "report", "goods")


class BPMNEnv(TextEnv):
    """RewardLab/BPMN-v2: from a process description to a BPMN 2.0 model, with validator feedback.

    ## Description

    The agent reads a natural-language description of a business process and answers with one
    BPMN 2.0 XML document. If the answer is not valid BPMN (not well-formed XML, not a BPMN
    ``definitions`` root, not valid against the OMG BPMN 2.0 XSD, without flow nodes or with more
    than 500 flow nodes or 2,000 flows), the next observation reports what the validator found and
    the agent may repair it, up to ``max_attempts`` answers. The decomposed reward follows the
    quality perspectives of the BPMN reward-design study: validity as a gate, then syntactic,
    pragmatic and semantic quality; ``correctness`` says whether the answer is the reference's model.

    62 tasks, 41 generated of difficulty 1–5 (sequences to pools with message flows) and the 21 OMG
    BPMN MIWG reference models; 47 train, 15 test. A task is drawn from the train split with the
    env's ``np_random`` (or chosen with ``options={"task_id": ...}`` / ``options={"split": "test"}``).
    The observation is the task prompt, then the validator's reports; ``info["attempt"]`` counts the
    answers so far.

    ## Action format

    The answer, a bare XML document (:class:`~rewardlab.core.TextSpace`). An answer wrapped in a
    markdown code fence or prose, or with comments, processing instructions or a DOCTYPE around its
    root, is read (``validity/bare_answer`` = 0; a DOCTYPE is refused) but, with ``strict_format``
    (the default), is not usable: validity < 1, so the gate zeroes the rest and the agent is told to
    answer with the XML alone. ``strict_format=False`` scores the extracted model. A non-text action
    counts as an empty answer.

    ## Components

    Paid once, when the episode ends; equal default weights, weighted mean, ``validity`` a gate at 1:
    below it the other components are 0 and the reward is ``invalid_penalty`` (default 0). Formulas:
    :mod:`rewardlab.envs.bpmn.rubric` and :mod:`rewardlab.envs.bpmn.semantic`.

    | name              | role     | formula                                                         | weight | range  |
    |-------------------|----------|-----------------------------------------------------------------|--------|--------|
    | `validity` (gate) | validity | mean(well-formed, BPMN root, XSD-valid, scorable, bare answer)  | 1/5    | [0, 1] |
    | `syntactic`       | quality  | mean(24 modelling rules) · semantic                             | 1/5    | [0, 1] |
    | `pragmatic`       | quality  | mean(14 understandability metrics) · semantic                   | 1/5    | [0, 1] |
    | `semantic`        | outcome  | node F1 · mean(succession F1, profile similarity, coverage)     | 1/5    | [0, 1] |
    | `correctness`     | outcome  | [same behaviour] · [no modelling defect beyond the reference's] | 1/5    | {0, 1} |

    ``validity`` counts ``bare answer`` (nothing around the ``definitions`` element) only with
    ``strict_format``, else it is the mean of the other four; *scorable* means 1 to 500 flow nodes
    and at most 2,000 flows of each kind. ``syntactic`` and ``pragmatic`` are the modelling rules
    (``syntactic/<rule>``) and understandability metrics (``pragmatic/<metric>``) scaled by
    ``semantic``; ``semantic`` compares with the reference: node-matching F1 times the mean of routed
    succession F1, behavioural-profile similarity per relation class and coverage of the element
    kinds present (``semantic/<metric>``). ``correctness`` is 1 when the answer behaves as the
    reference (every activity and event matched with its type; the same routed successions,
    behavioural profile and message flows) and breaks no modelling rule on more elements than the
    reference does (``correctness/same_behaviour``, ``correctness/no_new_defects``), else 0.

    With the defaults a usable answer earns ``R = 1/5 · (1 + semantic · (1 + mean(rules) +
    mean(metrics)) + correctness)`` ∈ [1/5, 1]; anything else earns ``invalid_penalty``.
    ``info["metrics"]`` holds 64 sub-metrics (5 validity, 24 syntactic and 14 pragmatic, unscaled,
    19 semantic, 2 correctness). ``info["is_success"]`` means correct: valid, ``semantic ≥ 0.9``,
    ``mean(rules) ≥ min(0.9, the reference's)``, the same behaviour as the reference and no
    modelling defect beyond its own (read from the answer, whatever the weights).

    ## Milestones

    ``well_formed``, ``bpmn_root`` and ``schema_valid``, reached by the best answer so far;
    ``progress`` is the fraction reached.

    ## Episode end

    Terminated after a usable (valid) answer, or after ``max_attempts`` answers (the last one is
    scored). With ``max_turns`` below ``max_attempts`` the episode is truncated and the last answer
    is scored.

    Replay: exact. The answers alone decide the reward (no state, no clock), so a record's seed and
    actions re-score the episode bit for bit (:mod:`rewardlab.core.replay`).

    ## Arguments

    - ``max_attempts`` (int, default 3): answers allowed; 1 makes the env single-shot.
    - ``strict_format`` (bool, default True): anything around the ``definitions`` element but an XML
      declaration and whitespace (prose, a code fence, comments, processing instructions) counts
      against validity.
    - The common ones, :class:`~rewardlab.core.CommonArgs`: ``reward_weights``, ``aggregate``,
      ``gates``, ``invalid_penalty``, ``max_turns``, ``render_mode``.

    ## Known hack classes defended

    What each cheap answer earns, and why (``rewardlab audit RewardLab/BPMN-v2`` plays them all,
    :mod:`rewardlab.envs.bpmn.audit`):

    - *A constant or another task's model* (``minimal_model``, ``other_task_oracle``,
      ``constant_answer``): the rules and understandability metrics need no reference, so they are
      scaled by semantic fidelity; a tidy model of the wrong process earns about validity's 1/4.
    - *The right labels without the control flow* (``quoted_chain``, ``chain_with_gateways``,
      ``disconnected_names``, ``parallel_everything``, and ``decorated_chain``, which adds the
      prompt's pools, lanes and message flows to farm coverage; also a chain of the reference's own
      elements and types): node F1 multiplies a control-flow score in which successions carry the
      kinds of the gateways they pass, every relation class of the behavioural profile (order, loop,
      parallel, exclusive, different pools, different lanes, cycles) weighs the same however rare,
      and element kinds that neither model has lend no coverage; a linear chain of the reference's
      elements lands at least 0.25 below the oracle on every task with non-linear control flow.
    - *Hedged or stuffed labels* (``label_stuffing``, ``hedged_labels``): nodes match one-to-one, and
      a label that also names another element of the reference (whole canonical tokens, as
      :mod:`rewardlab.core.answers` reads hedges) has label similarity 0 to every node but the
      one it names, so "Approve loan or Reject loan" matches neither.
    - *Prose smuggled next to the model* (``markup_before_root``): with ``strict_format`` only the
      ``definitions`` element, after at most one byte-order mark, an XML declaration (version,
      encoding, standalone) and XML whitespace, is a bare answer; comments, processing instructions,
      malformed declarations, invisible characters or prose around it fail validity (a DOCTYPE is
      refused in any mode).
    - *A defective copy of the reference* (the ``defective`` audit battery,
      :mod:`rewardlab.envs.bpmn.rewrites`: a sequence flow removed, an implicit split added, the
      start or an end event removed, a gateway made mixed, a gateway's type swapped): the graded
      components move little for one defect in a large model, so ``correctness`` and success read
      whether the behaviour is the reference's and whether any rule is broken more often than in
      the reference; every such defect costs the whole 1/5 and success. Re-serialisations (the
      ``equivalent`` battery: other ids, prefixes, element order, no diagram, ``incoming``/``outgoing``
      children added or dropped, re-cased labels) keep both; node-matching ties between equal labels
      are broken by structure, never by document order.
    - *Hostile input*: size caps before parsing, no DTDs or entities, libxml2 depth limits, node and
      flow caps before any graph metric (:mod:`rewardlab.envs.bpmn.parse`, :mod:`rewardlab.envs.bpmn.model`).

    ## Version history

    - v0: initial release.
    - v1: syntactic and pragmatic scaled by semantic; semantic = node F1 × control flow (routed
      successions, per-class behavioural profile with pools and lanes, coverage of present kinds);
      ``strict_format`` accepts only an XML declaration and whitespace around the root.
    - v2 (issue 26): a fifth component ``correctness`` (same behaviour as the reference, no modelling
      defect beyond its own) that ``is_success`` also requires; node matching breaks ties by structure.
      Later, under the same id (a new ``reward_version``): labelled decisions, duplicated flows and link pairs
      (stop 34); event markers, renamed labels and roles (stop 36); then what both models state in detail must
      agree for same behaviour (``semantic/detail_agreement``: conditions with their operators, default ways,
      timers' times, ``P7D`` = ``PT168H``), an event-based gateway's type and ``instantiate`` enter its
      signature, and an ``eventDefinitionRef`` to a definition declared at the top level reads as the inline one.
    """

    system_prompt: str = (
        "You are an expert business process modeller. Answer with a single BPMN 2.0 XML document "
        "(a <definitions> element in the namespace http://www.omg.org/spec/BPMN/20100524/MODEL) and "
        "nothing else. If the validator reports errors, answer with the corrected document."
    )
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "semantic",
        "validity",
        "the model describes the asked process (syntactic and pragmatic are scaled by it)",
        "well-formed, XSD-valid BPMN: the env's own gate",
    )

    def __init__(
        self,
        *,
        max_attempts: int = 3,
        strict_format: bool = True,
        **common: Unpack[CommonArgs],
    ):
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ConfigError(f"max_attempts must be an int >= 1 (1 = single-shot), got {max_attempts!r}")
        self.max_attempts = max_attempts
        self.multi_turn = max_attempts > 1  # an invalid answer is reported back for repair
        self.strict_format = bool(strict_format)
        super().__init__(tasks=load_tasks(), rubric=bpmn_rubric(), **common)
        self.last_outcome: BPMNOutcome | None = None

    # ------------------------------------------------------------------ TextEnv hooks
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        self.last_outcome = None
        tries = "one answer" if self.max_attempts == 1 else f"up to {self.max_attempts} answers"
        observation = f"{task.prompt}\n\nYou have {tries}; invalid answers are reported back to you."
        return observation, {"max_attempts": self.max_attempts, "difficulty": task.data.get("difficulty")}

    def _act(self, action: str) -> Turn:
        return self._attempt(action, None)

    def _reject(self, error: str) -> Turn:
        """A non-text action is an empty answer that uses up an attempt."""
        return self._attempt("", error)

    def _attempt(self, answer: str, rejected: str | None) -> Turn:
        """Score one answer; every step is an attempt, so attempt ``k`` is step ``k`` (``elapsed_steps``)."""
        outcome = BPMNOutcome(answer, reference_xml(self.current_task), strict_format=self.strict_format)
        self.last_outcome = outcome
        parsed = outcome.parsed
        reached = [
            name
            for name, ok in zip(MILESTONES, (parsed.well_formed, parsed.bpmn_root, parsed.schema_valid), strict=True)
            if ok
        ]
        error = rejected or outcome.error
        if outcome.usable and parsed.extracted_from is not None:
            error = f"the XML was extracted from {parsed.extracted_from}; answer with the XML document only"
        attempt = self.elapsed_steps
        info = {"attempt": attempt}
        if outcome.usable:
            observation = "The model is valid BPMN 2.0 and has been submitted for scoring."
            return Turn(observation, done=True, outcome=outcome, action_error=error, milestones=reached, info=info)
        assert error is not None, "BPMNOutcome.error names what makes an answer unusable"
        if attempt >= self.max_attempts:
            observation = f"Attempt {attempt} of {self.max_attempts} is not valid BPMN: {error}. No attempts left."
            return Turn(observation, done=True, outcome=outcome, action_error=error, milestones=reached, info=info)
        return Turn(self._feedback(outcome, error), action_error=error, milestones=reached, info=info)

    def _feedback(self, outcome: BPMNOutcome, error: str) -> str:
        attempt = self.elapsed_steps
        lines = [f"Attempt {attempt} of {self.max_attempts} is not valid BPMN: {error}."]
        if len(outcome.parsed.schema_errors) > 1:
            lines.append("Schema errors:")
            lines.extend(f"- {message}" for message in outcome.parsed.schema_errors)
        lines.append(f"Send the corrected BPMN 2.0 XML document (attempt {attempt + 1} of {self.max_attempts}).")
        return "\n".join(lines)

    def _outcome(self) -> tuple[BPMNOutcome, bool]:
        if self.last_outcome is not None:
            return self.last_outcome, True
        return BPMNOutcome("", reference_xml(self.current_task), strict_format=self.strict_format), True

    def _is_success(self, outcome: BPMNOutcome, result: RubricResult) -> bool:
        return is_success(outcome, result)

    def milestone_names(self) -> tuple[str, ...]:
        return MILESTONES

    def make_oracle(self) -> BPMNOracle:
        return BPMNOracle(self)

    def audit_profile(self) -> AuditProfile:
        """The strategies of :mod:`rewardlab.envs.bpmn.audit`: constant models, label-only chains, format tricks."""
        from rewardlab.envs.bpmn.audit import PROFILE

        return PROFILE

    def sample_action(self, rng: np.random.Generator) -> str:
        """A random BPMN-looking answer: random labels and flows, sometimes broken on purpose.

        About 20% of the samples are schema-valid models with random labels and random flows;
        the rest are cut short, use the wrong namespace or contain an unknown element, so a
        random agent scores low but not always zero.
        """
        count = int(rng.integers(1, 8))
        nodes = [("startEvent", "start", "Start")]
        for i in range(count):
            kind = str(rng.choice(["task", "userTask", "serviceTask", "exclusiveGateway", "parallelGateway"]))
            label = (
                f"{rng.choice(_SAMPLE_VERBS)} {rng.choice(_SAMPLE_OBJECTS)}" if kind.endswith(("task", "Task")) else ""
            )
            nodes.append((kind, f"n{i}", label))
        nodes.append(("endEvent", "end", "End"))
        pairs = [(0, int(rng.integers(1, count + 2)))]
        for source in range(1, count + 1):
            pairs += [(source, int(target)) for target in rng.integers(1, count + 2, size=int(rng.integers(0, 3)))]
        body = [f'<{kind} id="{node_id}" name="{label}"/>' for kind, node_id, label in nodes]
        body += [
            f'<sequenceFlow id="f{k}" sourceRef="{nodes[a][1]}" targetRef="{nodes[b][1]}"/>'
            for k, (a, b) in enumerate(pairs)
        ]
        defect = rng.random()
        namespace = "http://example.com/not-bpmn" if 0.2 <= defect < 0.35 else BPMN_NS
        if 0.35 <= defect < 0.6:
            body.append("<annotation>extra</annotation>")
        xml = (
            f'<definitions xmlns="{namespace}" id="d" targetNamespace="http://example.com">'
            f'<process id="p">{"".join(body)}</process></definitions>'
        )
        if defect >= 0.6:
            xml = xml[: int(rng.integers(1, len(xml)))]
        return xml
