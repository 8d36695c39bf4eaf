"""Semantic quality: fidelity of a candidate model to the task's reference model.

Both models are reduced to a :class:`Profile` of their activities and events (gateways are
routing, not content: they enter through the successions and relations below). Then:

1. **Node matching.** Labels are normalised by :func:`~rewardlab.core.text.canonical_text` and
   compared by the cosine of their word and character-trigram sets, ``L ∈ [0, 1]`` (two empty
   labels: 1; one empty: 0). Two nodes of the same category (activity or event) are similar by
   ``S = 0.75·L + 0.25·T`` with ``T = 1`` for the same element type (``userTask``,
   ``startEvent:message`` ...) and 0.5 otherwise; across categories ``S = 0``. The optimal
   one-to-one assignment maximising ΣS (``scipy.optimize.linear_sum_assignment``) gives the
   matching; pairs with ``S < 0.5`` stay unmatched. Ties (nodes with the same label and type) are
   broken by structure: each node also carries the colours of :data:`STRUCTURE_ROUNDS` rounds of
   Weisfeiler–Lehman refinement over the routed successions (its label and type, then the
   multisets of its successors' and predecessors' colours with the gateway kinds between), and the
   assignment maximises ``ΣS + TIE_BREAK · Σ(agreeing rounds)``, so two models that differ only in
   element order or ids match node for node. The tie-break never enters a score. ``node_f1`` is the F1 of ``ΣS / k`` and
   ``ΣS / m`` for ``k`` candidate and ``m`` reference nodes. A label that lists several
   elements is a hedge: compared with a reference node, ``L = 0`` when the label also names
   (as whole canonical tokens) another reference element whose label neither contains nor is
   contained in that node's (:func:`hedges`), so "Approve loan or Reject loan" matches neither.
2. **Succession (routed).** ``(a, b, first, last)`` for every path from ``a`` to ``b`` through
   gateways only, with ``first`` and ``last`` the kinds of the first and last gateway on it
   (``""`` for a direct flow), the first one's with the label of the way out of it taken where it
   splits by labelled flows (``exclusiveGateway:yes``, the label as in *Decisions* below): ``a → b``
   through an XOR split is not ``a → b`` through an AND split, without a gateway, or by its "no" flow.
   Candidate successions mapped through the matching are compared with the reference's: precision,
   recall and ``succession_f1``.
3. **Behaviour.** Over each model's nodes, the relation of every ordered pair ``(a, b)`` is one
   of: order ``a ⇝ b`` only, reverse order, loop (both), parallel (neither, but on different
   branches of a parallel/inclusive split or an implicit split) and exclusive (otherwise); the
   diagonal is "on a cycle" or not (a behavioural profile). Pairs also fall in *different pools*
   (participant, or process where there is none) and *different lanes* (both in a lane). For
   each relation class ``r`` either model has (order, loop, parallel, exclusive, different
   pools, different lanes, nodes on a cycle; reverse order mirrors order and is left out), with
   ``C_r`` and ``R_r`` the candidate's and reference's pairs in it and ``A_r`` the matched pairs
   in it in both, ``D_r = 2·A_r / (C_r + R_r)`` (Dice, the F1 over pairs);
   ``behavioural_similarity`` is the mean of the ``D_r`` — every class weighs the same however
   few pairs it has, so a chain that gets the many order pairs right and the few exclusive or
   parallel pairs wrong loses whole classes (1 when neither model has any pair and every node
   is matched, else 0).
   **Decisions**: ``(a, b, kind, label)`` for every labelled flow out of a splitting gateway of that
   ``kind``, ``a`` an item that reaches the gateway and ``b`` one the flow reaches (gateways only
   between), ``label`` the flow's name, else its condition, as canonical text. ``decision_f1`` is
   the F1 of the candidate's decisions, mapped and kept where the reference labels the same pair of
   items, against the reference's (1 when neither has any): "yes" leading to "Reject loan" is not the reference's
   decision, though the graph is the same, nor is a "yes" out of a parallel split where the reference
   decides exclusively. It enters same behaviour, not ``semantic``.
4. **Coverage** of required elements, each ``Σ_t min(c_t, r_t) / Σ_t max(c_t, r_t)`` over the
   type counts ``c`` (candidate) and ``r`` (reference): gateway types, event types (with
   triggers), activity types, artifacts; pools and lanes by optimal label assignment
   (``Σ L / max(count)``); message flows by F1 of their mapped ends; and ``size_similarity =
   min(k, m) / max(k, m)``. Each is 1 when both models lack the element kind, and
   ``element_coverage`` is the mean over the kinds at least one model has (so absent kinds lend
   no free credit).

**Same behaviour** (:attr:`Comparison.same_behaviour`, read by the rubric's ``correctness``): every
node of each model is matched, with its element type (markers included: a non-interrupting boundary event,
a loop or multi-instance activity, :attr:`~rewardlab.envs.bpmn.model.Node.marker`), its label (equal as
canonical text wherever the reference's is not empty: the prompt names the elements to use, and "Do not send
invoice" or "Send contract" is another step than "Send invoice", however similar) and its role (the pool,
where there are two or more, and the lane of the same names); the mapped successions equal the
reference's and every relation class agrees pair for pair (``succession_f1 = 1`` and
``behavioural_similarity = 1``); every labelled decision leads where the reference's does (``decision_f1 = 1``);
the message flows map one to one (``message_flow_coverage = 1``); and what both models state in detail agrees
(``detail_agreement = 1``: a timer's time, ``P7D`` = ``PT168H``; the condition on a gateway's way out, operators
kept, :func:`condition_text`; the gateway's default way), where both state it.

``semantic = node_f1 · (succession_f1 + behavioural_similarity + element_coverage) / 3``: the
share of the reference's elements the candidate names, times how much of the control flow and
structure among them it gets right. The right labels in a wrong structure (a linear chain,
gateways in the wrong places, everything in parallel, no flows at all) earn little of it.
"""

from __future__ import annotations

import itertools
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import linear_sum_assignment

from rewardlab.core.text import canonical_text, canonical_tokens
from rewardlab.envs.bpmn.model import BPMNModel, Node

MATCH_THRESHOLD = 0.5
"""Node pairs with a similarity below this stay unmatched."""

SEMANTIC_METRICS: tuple[str, ...] = (
    "node_precision",
    "node_recall",
    "node_f1",
    "activity_label_precision",
    "activity_label_recall",
    "type_agreement",
    "succession_precision",
    "succession_recall",
    "succession_f1",
    "behavioural_similarity",
    "decision_f1",
    "detail_agreement",
    "gateway_coverage",
    "event_coverage",
    "activity_type_coverage",
    "artifact_coverage",
    "pool_coverage",
    "lane_coverage",
    "message_flow_coverage",
    "size_similarity",
    "element_coverage",
)

EXCLUSIVE, ORDER, REVERSE, LOOP, PARALLEL = 0, 1, 2, 3, 4

STRUCTURE_ROUNDS = 3
"""Rounds of Weisfeiler–Lehman colour refinement that break ties in the node matching."""
TIE_BREAK = 1e-6
"""Weight of one agreeing colour round in the assignment: far below any difference of labels or types."""


@lru_cache(maxsize=16384)
def label_features(label: str) -> tuple[int, ...]:
    """CRC-32 hashes of the word and character-trigram features of a normalised label (empty for an empty label)."""
    words = canonical_tokens(label)
    features = {f"w:{w}" for w in words}
    for word in words:
        padded = f"#{word}#"
        features.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return tuple(sorted({zlib.crc32(f.encode("utf-8")) for f in features}))


@dataclass(frozen=True)
class LabelSet:
    """Labels as L2-normalised binary feature vectors in coordinate form (entry ``e`` of row ``rows[e]``)."""

    count: int
    rows: np.ndarray
    features: np.ndarray
    weights: np.ndarray
    empty: np.ndarray


def label_set(labels: list[tuple[int, ...]]) -> LabelSet:
    """The :class:`LabelSet` of a list of :func:`label_features` results."""
    lengths = np.array([len(f) for f in labels], dtype=np.int64)
    features = np.fromiter(itertools.chain.from_iterable(labels), dtype=np.int64, count=int(lengths.sum()))
    rows = np.repeat(np.arange(len(labels)), lengths)
    weights = np.repeat(1.0 / np.sqrt(np.maximum(lengths, 1)), lengths).astype(np.float32)
    return LabelSet(len(labels), rows, features, weights, lengths == 0)


def hedges(candidate: tuple[str, ...], reference: tuple[str, ...]) -> np.ndarray:
    """``hedges[i, j]``: candidate label ``i`` also names a reference element other than ``j`` — one whose
    label it contains as whole canonical tokens (:func:`rewardlab.core.answers.mentions`) and that neither
    contains nor is contained in label ``j`` (:func:`rewardlab.core.answers.competing_candidates`).

    Labels come padded (``" check order "``), so containment by ``in`` is containment by whole tokens.
    """
    named = [(r, r.strip() != "") for r in reference]
    mentions = np.array([[ok and r in c for r, ok in named] for c in candidate], dtype=bool)
    if not mentions.any():
        return np.zeros((len(candidate), len(reference)), dtype=bool)
    distinct = np.array([[not (a in b or b in a) for b in reference] for a in reference], dtype=bool)
    return (mentions.astype(np.int32) @ distinct.astype(np.int32)) > 0


def label_similarity(a: LabelSet, b: LabelSet) -> np.ndarray:
    """Cosine similarity of two label sets, ``a.count × b.count``; two empty labels are similar (1)."""
    vocabulary, columns = np.unique(np.concatenate([a.features, b.features]), return_inverse=True)
    matrix_a = np.zeros((a.count, len(vocabulary)), dtype=np.float32)
    matrix_b = np.zeros((b.count, len(vocabulary)), dtype=np.float32)
    matrix_a[a.rows, columns[: len(a.features)]] = a.weights
    matrix_b[b.rows, columns[len(a.features) :]] = b.weights
    sim = np.round(matrix_a @ matrix_b.T, 6)
    sim[a.empty[:, None] & b.empty[None, :]] = 1.0
    return np.clip(sim, 0.0, 1.0)


@dataclass(frozen=True)
class Profile:
    """What the semantic comparison needs from one model (see the module docstring)."""

    size: int
    categories: np.ndarray
    signatures: tuple[str, ...]
    labels: LabelSet
    canonical: tuple[str, ...]
    """Per node, its label as :func:`~rewardlab.core.text.canonical_text`, padded with one space each side."""
    refs: tuple[str, ...]
    succession: frozenset[tuple[int, int, str, str]]
    decisions: frozenset[tuple[int, int, str, str]]
    """``(a, b, kind, label)`` of :func:`_decisions`."""
    relations: np.ndarray
    type_counts: dict[str, Counter]
    pool_ids: tuple[str, ...]
    pools: LabelSet
    lanes: LabelSet
    message_flows: tuple[tuple[str, str], ...]
    pool_of: np.ndarray
    """Per node, a code of its pool (participant, or process where there is none)."""
    lane_of: np.ndarray
    """Per node, a code of the innermost lane listing it, or -1."""
    colours: np.ndarray
    """``(STRUCTURE_ROUNDS + 1) × size`` structural colours (:func:`structural_colours`)."""
    roles: tuple[tuple[str, str], ...] = ()
    """Per node, ``(pool name, lane name)`` as canonical text: the name of its participant where the model has
    two or more, and of the innermost lane listing it; ``""`` where there is none."""
    routing: frozenset[tuple[int, int, str, str]] = frozenset()
    """``(a, b, kind, rule)``: the conditions and default flows out of splitting gateways (:func:`_routing_rules`)."""
    details: tuple[str, ...] = ()
    """Per node, what it states beyond its type (:attr:`~rewardlab.envs.bpmn.model.Node.detail`: a timer's time)."""


def _roles(model: BPMNModel, nodes: list[Node], lane_by_node: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """:attr:`Profile.roles` of ``nodes``."""
    pools = len(model.participants) >= 2

    def pool_name(node_id: str) -> str:
        entry = model.participants.get(model.pool_of(node_id)) if pools else None
        return canonical_text(entry[0]) if entry else ""

    def lane_name(node_id: str) -> str:
        lane = lane_by_node.get(node_id)
        return canonical_text(model.lanes[lane][0]) if lane is not None else ""

    return tuple((pool_name(node.id), lane_name(node.id)) for node in nodes)


def profile(model: BPMNModel) -> Profile:
    """Reduce a model to its activities and events, their relations and its element counts."""
    graph = model.graph
    all_nodes = [model.nodes[i] for i in graph.ids]
    items = [i for i, node in enumerate(all_nodes) if node.category != "gateway"]
    nodes = [all_nodes[i] for i in items]
    succession = _routed_succession(model, items)
    relations = _relations(model, items)
    counts = {
        "gateway": Counter(node.signature for node in all_nodes if node.category == "gateway"),
        "event": Counter(node.signature for node in nodes if node.category == "event"),
        "activity": Counter(node.kind for node in nodes if node.category == "activity"),
        "artifact": Counter(model.artifacts),
    }
    lane_by_node = {ref: lane for lane, (_, refs) in model.lanes.items() for ref in refs}  # nested lanes come later
    return Profile(
        size=len(nodes),
        categories=np.array([node.category == "activity" for node in nodes], dtype=bool),
        signatures=tuple(node.signature for node in nodes),
        labels=label_set([label_features(node.name) for node in nodes]),
        canonical=tuple(f" {canonical_text(node.name)} " for node in nodes),
        refs=tuple(node.id for node in nodes),
        succession=frozenset(succession),
        decisions=_decisions(model, items),
        routing=_gateway_exits(model, items, _routing_rules(model)),
        details=tuple(node.detail for node in nodes),
        relations=relations,
        type_counts=counts,
        pool_ids=tuple(model.participants),
        pools=label_set([label_features(name) for name, _ in model.participants.values()]),
        lanes=label_set([label_features(name) for name, _ in model.lanes.values()]),
        message_flows=tuple((f.source, f.target) for f in model.message_flows),
        pool_of=_codes([model.pool_of(node.id) for node in nodes]),
        lane_of=_codes([lane_by_node.get(node.id) for node in nodes]),
        colours=structural_colours(
            [f"{node.signature}|{canonical_text(node.name)}" for node in nodes], succession, STRUCTURE_ROUNDS
        ),
        roles=_roles(model, nodes, lane_by_node),
    )


def structural_colours(initial: list[str], succession: frozenset[tuple[int, int, str, str]], rounds: int) -> np.ndarray:
    """Weisfeiler–Lehman colours: row 0 hashes each node's ``initial`` string; row ``t + 1`` hashes row ``t``'s
    colour with the sorted multisets of ``(colour, first, last)`` over its successions out and in.

    Colours depend only on the labelled graph, never on node order or ids, so equal graphs colour equally.
    """
    k = len(initial)
    colours = np.zeros((rounds + 1, k), dtype=np.int64)
    colours[0] = [zlib.crc32(text.encode("utf-8")) for text in initial]
    out: list[list[tuple[int, str, str]]] = [[] for _ in range(k)]
    into: list[list[tuple[int, str, str]]] = [[] for _ in range(k)]
    for a, b, first, last in succession:
        out[a].append((b, first, last))
        into[b].append((a, first, last))
    for t in range(rounds):
        row = colours[t]
        for i in range(k):
            forward = sorted((int(row[j]), first, last) for j, first, last in out[i])
            backward = sorted((int(row[j]), first, last) for j, first, last in into[i])
            colours[t + 1, i] = zlib.crc32(repr((int(row[i]), forward, backward)).encode("utf-8"))
    return colours


def _codes(keys: list[str | None]) -> np.ndarray:
    """Small integer codes of ``keys`` (equal keys, equal codes); ``None`` is -1."""
    codes: dict[str, int] = {}
    return np.array([-1 if key is None else codes.setdefault(key, len(codes)) for key in keys], dtype=np.int64)


def _routed_succession(model: BPMNModel, items: list[int]) -> frozenset[tuple[int, int, str, str]]:
    """``(a, b, first, last)`` for every path from item a to item b through gateways only: ``first`` and
    ``last`` are the kinds of the first and last gateway on it (both ``""`` for a direct flow); where the first
    gateway splits and the flow the path leaves it by is labelled, ``first`` carries the label too
    (``exclusiveGateway:yes``, see :func:`_decision_labels`)."""
    graph = model.graph
    position = {g: p for p, g in enumerate(items)}
    kinds = [model.nodes[node_id].signature for node_id in graph.ids]
    labels = _decision_labels(model)
    through: dict[int, set[tuple[int, str, str]]] = {}

    def exits(gateway: int) -> set[tuple[int, str, str]]:
        """(item, kind of the gateway that leads to it, label of the way out of ``gateway`` taken) over
        gateway-only paths from ``gateway``."""
        if gateway not in through:
            found: set[tuple[int, str, str]] = set()
            for first in graph.cf_succ[gateway]:
                label = labels.get((gateway, first), "")
                if first in position:
                    found.add((position[first], kinds[gateway], label))
                    continue
                seen, stack = {gateway, first}, [first]
                while stack:
                    g = stack.pop()
                    for t in graph.cf_succ[g]:
                        if t in position:
                            found.add((position[t], kinds[g], label))
                        elif t not in seen:
                            seen.add(t)
                            stack.append(t)
            through[gateway] = found
        return through[gateway]

    succession: set[tuple[int, int, str, str]] = set()
    for p, g in enumerate(items):
        for t in graph.cf_succ[g]:
            if t in position:
                succession.add((p, position[t], "", ""))
            else:
                succession.update(
                    (p, q, f"{kinds[t]}:{label}" if label else kinds[t], last) for q, last, label in exits(t)
                )
    return frozenset(succession)


def _decision_labels(model: BPMNModel) -> dict[tuple[int, int], str]:
    """``{(gateway, target): label}`` (graph indices) for the labelled flows out of splitting gateways: the flow's
    name, else its condition, as canonical text."""
    graph = model.graph
    labels: dict[tuple[int, int], str] = {}
    for flow in graph.resolved:
        label = canonical_text(flow.name or flow.condition)
        gateway = graph.index[flow.source]
        if label and model.nodes[flow.source].category == "gateway" and len(graph.succ[gateway]) >= 2:
            labels.setdefault((gateway, graph.index[flow.target]), label)
    return labels


def condition_text(expression: str) -> str:
    """A condition expression compared as written, operators kept: whitespace, a FEEL ``=`` or an EL ``${…}``
    wrapper and the case dropped (``${amount > 1000}`` = ``amount>1000``; ``not(approved)`` ≠ ``approved``)."""
    text = "".join(expression.split()).casefold()
    if text.startswith("${") and text.endswith("}"):
        text = text[2:-1]
    return text[1:] if text.startswith("=") else text


def _routing_rules(model: BPMNModel) -> dict[tuple[int, int], str]:
    """``{(gateway, target): rule}`` for the flows out of splitting gateways that carry a condition
    (``condition:<condition_text>``) or are the gateway's default (``default``)."""
    graph = model.graph
    rules: dict[tuple[int, int], str] = {}
    for flow in graph.resolved:
        gateway = graph.index[flow.source]
        node = model.nodes[flow.source]
        if node.category != "gateway" or len(graph.succ[gateway]) < 2:
            continue
        if flow.id and node.default_flow == flow.id:
            rules.setdefault((gateway, graph.index[flow.target]), "default")
        elif flow.condition:
            rules.setdefault((gateway, graph.index[flow.target]), f"condition:{condition_text(flow.condition)}")
    return rules


def _decisions(model: BPMNModel, items: list[int]) -> frozenset[tuple[int, int, str, str]]:
    """``(a, b, kind, label)`` for every labelled sequence flow out of a splitting gateway of that ``kind``: ``a``
    an item that reaches the gateway, ``b`` an item the flow reaches, both through gateways only, and ``label``
    the flow's name (else its condition) as canonical text: ``("Check credit", "Approve loan",
    "exclusiveGateway", "yes")`` (items by position)."""
    return _gateway_exits(model, items, _decision_labels(model))


def _gateway_exits(
    model: BPMNModel, items: list[int], labels: dict[tuple[int, int], str]
) -> frozenset[tuple[int, int, str, str]]:
    """``(a, b, kind, label)`` for each ``(gateway, target): label``: ``a`` an item that reaches the gateway, ``b``
    an item the flow reaches, both through gateways only; ``kind`` the gateway's signature."""
    graph = model.graph
    position = {g: p for p, g in enumerate(items)}
    cf_pred: list[list[int]] = [[] for _ in graph.ids]
    for source, successors in enumerate(graph.cf_succ):
        for target in successors:
            cf_pred[target].append(source)

    def reached(start: int, adjacency: list[list[int]]) -> set[int]:
        """Items (positions) at ``start`` or first met from it over gateways only, along ``adjacency``."""
        if start in position:
            return {position[start]}
        found, seen, stack = set(), {start}, [start]
        while stack:
            for t in adjacency[stack.pop()]:
                if t in position:
                    found.add(position[t])
                elif t not in seen:
                    seen.add(t)
                    stack.append(t)
        return found

    decisions: set[tuple[int, int, str, str]] = set()
    for (gateway, target), label in labels.items():
        kind = model.nodes[graph.ids[gateway]].signature
        after = reached(target, graph.cf_succ)
        decisions.update((a, b, kind, label) for a in reached(gateway, cf_pred) for b in after)
    return frozenset(decisions)


def _relations(model: BPMNModel, items: list[int]) -> np.ndarray:
    """The behavioural profile over ``items`` (graph indices); see the module docstring."""
    graph = model.graph
    k = len(items)
    if k == 0:
        return np.zeros((0, 0), dtype=np.int8)
    reach = graph.reach
    sub = reach[np.ix_(items, items)]
    forward, backward = sub, sub.T
    relations = np.full((k, k), EXCLUSIVE, dtype=np.int8)
    relations[forward & ~backward] = ORDER
    relations[~forward & backward] = REVERSE
    relations[forward & backward] = LOOP
    position = {g: p for p, g in enumerate(items)}
    to_items = None
    firsts, rests = [], []  # concurrent = OR over forks and branches x of outer(branch x, later branches)
    for g, successors in enumerate(graph.succ):
        if len(successors) < 2:
            continue
        node = model.nodes[graph.ids[g]]
        if node.category == "gateway" and node.kind not in ("parallelGateway", "inclusiveGateway", "complexGateway"):
            continue
        if to_items is None:
            to_items = reach[:, items]
        branches = to_items[successors]
        for row, s in enumerate(successors):
            if s in position:
                branches[row, position[s]] = True
        later = np.logical_or.accumulate(branches[::-1], axis=0)[::-1]
        firsts.append(branches[:-1])
        rests.append(later[1:])
    if firsts:
        first = np.concatenate(firsts).astype(np.float32)
        rest = np.concatenate(rests).astype(np.float32)
        concurrent = (first.T @ rest) > 0
        concurrent |= concurrent.T
    else:
        concurrent = np.zeros((k, k), dtype=bool)
    relations[concurrent & ~forward & ~backward] = PARALLEL
    np.fill_diagonal(relations, np.where(np.diagonal(sub), LOOP, EXCLUSIVE))
    return relations


def _coverage(candidate: Counter, reference: Counter) -> float:
    keys = set(candidate) | set(reference)
    top = sum(max(candidate[t], reference[t]) for t in keys)
    return 1.0 if top == 0 else sum(min(candidate[t], reference[t]) for t in keys) / top


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _assign(sim: np.ndarray, threshold: float, agreement: np.ndarray | None = None) -> list[tuple[int, int]]:
    """The optimal one-to-one assignment on ``sim + TIE_BREAK · agreement``; pairs with ``sim < threshold`` dropped."""
    if sim.size == 0:
        return []
    weights = sim.astype(np.float64)
    if agreement is not None:
        weights = weights + TIE_BREAK * agreement
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if sim[r, c] >= threshold]


def _named_coverage(candidate: LabelSet, reference: LabelSet) -> tuple[float, list[tuple[int, int]]]:
    """Σ label similarity of the optimal assignment / the larger count (1 when both are empty)."""
    k, m = candidate.count, reference.count
    if not k and not m:
        return 1.0, []
    if not k or not m:
        return 0.0, []
    sim = label_similarity(candidate, reference)
    pairs = _assign(sim, 0.0)
    return float(sum(float(sim[r, c]) for r, c in pairs)) / max(k, m), pairs


@dataclass(frozen=True)
class Comparison:
    """A candidate compared with a reference.

    Attributes:
        value: ``semantic`` (the module docstring's formula).
        metrics: The sub-metrics of :data:`SEMANTIC_METRICS`.
        pairs: The node matching, ``(candidate node, reference node)``.
        sizes: ``(candidate nodes, reference nodes)``.
        renamed: Matched pairs whose labels differ as canonical text, where the reference's is not empty (the
            prompt names every element to use, so "Send contract" for "Send invoice" is another step).
        moved: Matched pairs in another role: a pool or lane of another name (:attr:`Profile.roles`), where the
            reference node has one.
    """

    value: float
    metrics: dict[str, float]
    pairs: tuple[tuple[int, int], ...]
    sizes: tuple[int, int]
    renamed: int = 0
    moved: int = 0

    @property
    def same_behaviour(self) -> bool:
        """Every node matched with its type, label and role, and the same successions, relations and message
        flows."""
        k, m = self.sizes
        metrics = self.metrics
        return (
            len(self.pairs) == k == m
            and self.renamed == 0
            and self.moved == 0
            and metrics["type_agreement"] == 1.0
            and metrics["succession_f1"] == 1.0
            and metrics["behavioural_similarity"] == 1.0
            and metrics["decision_f1"] == 1.0
            and metrics["detail_agreement"] == 1.0
            and metrics["message_flow_coverage"] == 1.0
        )


def semantic_similarity(candidate: Profile, reference: Profile) -> tuple[float, dict[str, float]]:
    """``(semantic, sub_metrics)`` of a candidate against a reference; see the module docstring."""
    comparison = compare(candidate, reference)
    return comparison.value, comparison.metrics


def compare(candidate: Profile, reference: Profile) -> Comparison:
    """The :class:`Comparison` of a candidate with a reference; see the module docstring."""
    k, m = candidate.size, reference.size
    metrics: dict[str, float] = {}
    sim = np.zeros((k, m), dtype=np.float32)
    labels = np.zeros((k, m), dtype=np.float32)
    if k and m:
        labels = label_similarity(candidate.labels, reference.labels)
        labels[hedges(candidate.canonical, reference.canonical)] = 0.0
        codes: dict[str, int] = {}
        cand_types = np.array([codes.setdefault(t, len(codes)) for t in candidate.signatures])
        ref_types = np.array([codes.setdefault(t, len(codes)) for t in reference.signatures])
        same_type = cand_types[:, None] == ref_types[None, :]
        same_category = candidate.categories[:, None] == reference.categories[None, :]
        sim = np.where(same_category, 0.75 * labels + 0.25 * np.where(same_type, 1.0, 0.5), 0.0)
    agreement = None
    if k and m:
        agreement = (candidate.colours[:, :, None] == reference.colours[:, None, :]).sum(axis=0)
    pairs = _assign(sim, MATCH_THRESHOLD, agreement)
    rows = np.array([r for r, _ in pairs], dtype=int)
    cols = np.array([c for _, c in pairs], dtype=int)
    total = float(sim[rows, cols].sum())
    both_empty = k == 0 and m == 0
    metrics["node_precision"] = 1.0 if both_empty else (total / k if k else 0.0)
    metrics["node_recall"] = 1.0 if both_empty else (total / m if m else 0.0)
    metrics["node_f1"] = _f1(metrics["node_precision"], metrics["node_recall"])
    activity = reference.categories[cols]
    label_total = float(labels[rows[activity], cols[activity]].sum())
    cand_activities, ref_activities = int(candidate.categories.sum()), int(reference.categories.sum())
    metrics["activity_label_precision"] = (
        label_total / cand_activities if cand_activities else float(not ref_activities)
    )
    metrics["activity_label_recall"] = label_total / ref_activities if ref_activities else float(not cand_activities)
    metrics["type_agreement"] = (
        sum(candidate.signatures[r] == reference.signatures[c] for r, c in pairs) / len(pairs)
        if pairs
        else float(both_empty)
    )

    mapping = dict(pairs)
    mapped = {
        (mapping[a], mapping[b], first, last)
        for a, b, first, last in candidate.succession
        if a in mapping and b in mapping
    }
    hits = len(mapped & reference.succession)
    if candidate.succession or reference.succession:
        precision = hits / len(candidate.succession) if candidate.succession else 0.0
        recall = hits / len(reference.succession) if reference.succession else 0.0
    else:
        precision = recall = 1.0
    metrics["succession_precision"], metrics["succession_recall"] = precision, recall
    metrics["succession_f1"] = _f1(precision, recall)

    metrics["behavioural_similarity"] = _behavioural_similarity(candidate, reference, rows, cols)
    metrics["decision_f1"] = _decision_f1(candidate, reference, mapping)
    metrics["detail_agreement"] = _detail_agreement(candidate, reference, pairs, mapping)

    metrics["gateway_coverage"] = _coverage(candidate.type_counts["gateway"], reference.type_counts["gateway"])
    metrics["event_coverage"] = _coverage(candidate.type_counts["event"], reference.type_counts["event"])
    metrics["activity_type_coverage"] = _coverage(candidate.type_counts["activity"], reference.type_counts["activity"])
    metrics["artifact_coverage"] = _coverage(candidate.type_counts["artifact"], reference.type_counts["artifact"])
    metrics["pool_coverage"], pool_pairs = _named_coverage(candidate.pools, reference.pools)
    metrics["lane_coverage"], _ = _named_coverage(candidate.lanes, reference.lanes)
    metrics["message_flow_coverage"] = _message_flow_coverage(candidate, reference, mapping, pool_pairs)
    metrics["size_similarity"] = min(k, m) / max(k, m) if max(k, m) else 1.0
    present = {
        "gateway_coverage": candidate.type_counts["gateway"] or reference.type_counts["gateway"],
        "event_coverage": candidate.type_counts["event"] or reference.type_counts["event"],
        "activity_type_coverage": candidate.type_counts["activity"] or reference.type_counts["activity"],
        "artifact_coverage": candidate.type_counts["artifact"] or reference.type_counts["artifact"],
        "pool_coverage": candidate.pools.count or reference.pools.count,
        "lane_coverage": candidate.lanes.count or reference.lanes.count,
        "message_flow_coverage": candidate.message_flows or reference.message_flows,
        "size_similarity": k or m,
    }
    counted = [metrics[key] for key, there in present.items() if there]
    metrics["element_coverage"] = float(np.mean(counted)) if counted else 1.0
    control = (metrics["succession_f1"] + metrics["behavioural_similarity"] + metrics["element_coverage"]) / 3
    value = metrics["node_f1"] * control
    renamed = sum(
        reference.canonical[c].strip() != "" and candidate.canonical[r] != reference.canonical[c] for r, c in pairs
    )
    moved = sum(_moved(candidate.roles, reference.roles, r, c) for r, c in pairs)
    return Comparison(value, metrics, tuple(pairs), (k, m), renamed=int(renamed), moved=moved)


def _moved(candidate: tuple[tuple[str, str], ...], reference: tuple[tuple[str, str], ...], r: int, c: int) -> bool:
    """Whether candidate node ``r`` sits in a pool or lane named otherwise than reference node ``c``'s (a role
    the reference leaves empty is not compared)."""
    if not reference or not candidate:
        return False
    return any(theirs and mine != theirs for mine, theirs in zip(candidate[r], reference[c], strict=True))


def _decision_f1(candidate: Profile, reference: Profile, mapping: dict[int, int]) -> float:
    """F1 of the candidate's decisions (mapped, and only those between item pairs the reference labels) against
    the reference's; 1 when neither has any. Extra labels elsewhere cost nothing."""
    labelled = {(a, b) for a, b, _, _ in reference.decisions}
    mapped = {
        (mapping[a], mapping[b], kind, label)
        for a, b, kind, label in candidate.decisions
        if a in mapping and b in mapping and (mapping[a], mapping[b]) in labelled
    }
    if not mapped and not reference.decisions:
        return 1.0
    hits = len(mapped & reference.decisions)
    return _f1(hits / len(mapped) if mapped else 0.0, hits / len(reference.decisions))


def _detail_agreement(
    candidate: Profile, reference: Profile, pairs: list[tuple[int, int]], mapping: dict[int, int]
) -> float:
    """The share of what both models state, and state alike: the time of matched timer events (where both give
    one), the condition on a gateway's way from ``a`` to ``b`` (where both give one) and a gateway's default way
    (where both give one from ``a``); 1 when they state nothing in common. Leaving a detail out is not compared."""
    compared = agreed = 0
    for r, c in pairs:
        if candidate.details[r] and reference.details[c]:
            compared += 1
            agreed += candidate.details[r] == reference.details[c]
    conditions = {(a, b): rule for a, b, _, rule in reference.routing if rule != "default"}
    defaults = {(a, b) for a, b, _, rule in reference.routing if rule == "default"}
    default_sources = {a for a, _ in defaults}
    for a, b, _, rule in candidate.routing:
        if a not in mapping or b not in mapping:
            continue
        pair = (mapping[a], mapping[b])
        if rule == "default" and pair[0] in default_sources:
            compared += 1
            agreed += pair in defaults
        elif rule != "default" and pair in conditions:
            compared += 1
            agreed += conditions[pair] == rule
    return agreed / compared if compared else 1.0


def _relation_classes(profile: Profile) -> list[np.ndarray]:
    """Masks of the relation classes over pairs of distinct nodes: order (``REVERSE`` is its mirror, left
    out), loop, parallel, exclusive, in different pools, in different lanes; and the nodes on a cycle."""
    relations = profile.relations
    off = ~np.eye(len(relations), dtype=bool)
    masks = [(relations == relation) & off for relation in (ORDER, LOOP, PARALLEL, EXCLUSIVE)]
    masks.append(profile.pool_of[:, None] != profile.pool_of[None, :])
    lanes = profile.lane_of
    masks.append((lanes[:, None] != lanes[None, :]) & (lanes[:, None] >= 0) & (lanes[None, :] >= 0))
    return [*masks, np.diag(np.diagonal(relations) == LOOP)]


def _behavioural_similarity(candidate: Profile, reference: Profile, rows: np.ndarray, cols: np.ndarray) -> float:
    """Mean over the relation classes either model has of the Dice index (F1) of its pairs, matched through
    the node assignment (see the module docstring); without any relation in either model, 1 when every node
    is matched, else 0."""
    scores = []
    classes = zip(_relation_classes(candidate), _relation_classes(reference), strict=True)
    for mine, theirs in classes:
        total = int(mine.sum()) + int(theirs.sum())
        if total:
            agree = int((mine[np.ix_(rows, rows)] & theirs[np.ix_(cols, cols)]).sum())
            scores.append(2 * agree / total)
    if scores:
        return float(np.mean(scores))
    return float(len(rows) == candidate.size == reference.size)


def _message_flow_coverage(
    candidate: Profile, reference: Profile, mapping: dict[int, int], pool_pairs: list[tuple[int, int]]
) -> float:
    """F1 of message flows whose two ends map (nodes through the matching, pools by name)."""
    if not candidate.message_flows and not reference.message_flows:
        return 1.0
    if not candidate.message_flows or not reference.message_flows:
        return 0.0
    ends = {candidate.refs[r]: reference.refs[c] for r, c in mapping.items()}
    ends.update({candidate.pool_ids[r]: reference.pool_ids[c] for r, c in pool_pairs})
    mapped = Counter((ends.get(s), ends.get(t)) for s, t in candidate.message_flows)
    hits = sum((mapped & Counter(reference.message_flows)).values())
    return _f1(hits / len(candidate.message_flows), hits / len(reference.message_flows))
