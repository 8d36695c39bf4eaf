"""Shared prefixes: run each distinct prefix of a batch once and reuse its KV cache for every sequence
that starts with it.

The G rollouts of a GRPO group start with the same prompt. Encoding that prompt G times is most of
the work of a rollout on CPU (a BFCL prompt is about 300 tokens, an action about 40) and most of the
work and activation memory of an update. Here each sequence of a batch carries a label (its GRPO
group); the sequences with one label share their longest common prefix, checked token by token and
cut to each sequence's limit, and that prefix is run once::

    prefix_ids      (U, C)      the U distinct prefixes, left-padded to the longest, C tokens
    prefix_mask     (U, C)      1 on prefix tokens
    owner           (B,)        the prefix row of each of the B sequences
    suffix_ids      (B, S)      the rest of each sequence, padded to S (left or right)
    attention_mask  (B, C + S)  prefix_mask[owner] next to the suffix's mask
    position_ids    (B, S)      positions of the suffix tokens: cumsum(attention_mask) - 1

One forward pass over ``prefix_ids`` gives the prefixes' keys and values; :func:`prefix_cache`
repeats them along the batch by ``owner``, and the suffixes run on top of them. Every sequence sees
its own tokens at its own positions, so logits, the log-probs of sampled tokens and gradients are
those of the unshared batch up to float rounding; the gradient through a shared prefix is the sum of
the contributions of every sequence that shares it, as autograd does for any repeated tensor.

This needs a ``DynamicCache`` whose ``layers`` are all plain ``DynamicLayer`` (no sliding window;
the layer API of the installed transformers 5) and no gradient checkpointing (which turns the cache
off); :func:`can_share` says whether a model qualifies, and every caller falls back to the unshared
batch when it does not.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

_VERDICTS: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def common_prefix_length(sequences: Sequence[Sequence[int]]) -> int:
    """Length of the longest prefix all ``sequences`` share (0 for an empty list)."""
    if not sequences:
        return 0
    first, length = sequences[0], min(len(s) for s in sequences)
    for other in sequences[1:]:
        n = 0
        while n < length and other[n] == first[n]:
            n += 1
        length = n
    return length


@dataclass
class SharedPrefixes:
    """The tensors of the layout in the module docstring; ``lengths[i]`` is sequence ``i``'s prefix length."""

    prefix_ids: Any
    prefix_mask: Any
    owner: Any
    suffix_ids: Any
    suffix_mask: Any
    lengths: list[int]

    @property
    def attention_mask(self) -> Any:
        """``(B, C + S)``: each sequence's prefix mask, then its suffix mask."""
        import torch

        return torch.cat([self.prefix_mask[self.owner], self.suffix_mask], dim=1)

    @property
    def input_ids(self) -> Any:
        """``(B, C + S)``: each sequence's whole token row (what ``generate`` continues)."""
        import torch

        return torch.cat([self.prefix_ids[self.owner], self.suffix_ids], dim=1)

    def prefix_positions(self) -> Any:
        """Positions of the prefix tokens (0 on padding)."""
        return (self.prefix_mask.cumsum(-1) - 1).clamp(min=0)

    def suffix_positions(self) -> Any:
        """Positions of the suffix tokens, counted over the sequence's own tokens (0 on padding)."""
        width = self.prefix_ids.shape[1]
        return (self.attention_mask.cumsum(-1) - 1)[:, width:].masked_fill(self.suffix_mask == 0, 0)


def _plan(
    sequences: Sequence[Sequence[int]], labels: Sequence[Hashable], limits: Sequence[int]
) -> tuple[list[list[int]], list[int]] | None:
    """``(members of each prefix, its length)``, or None when sharing saves nothing or a prefix is empty."""
    members: dict[Hashable, list[int]] = {}
    for i, label in enumerate(labels):
        members.setdefault(label, []).append(i)
    groups = list(members.values())
    lengths = [
        max(0, min(common_prefix_length([sequences[i] for i in idx]), *(limits[i] for i in idx))) for idx in groups
    ]
    if min(lengths) < 1 or sum((len(idx) - 1) * n for idx, n in zip(groups, lengths, strict=True)) == 0:
        return None
    return groups, lengths


def layout_tokens(sequences: Sequence[Sequence[int]], labels: Sequence[Hashable], limits: Sequence[int]) -> int:
    """Token positions one forward pass over ``sequences`` runs, padding included: ``U·C + B·S`` with
    shared prefixes, ``B · longest`` when :func:`shared_prefixes` would share nothing."""
    plan = _plan(sequences, labels, limits)
    if plan is None:
        return len(sequences) * max(len(s) for s in sequences)
    groups, lengths = plan
    owner_length = {i: n for idx, n in zip(groups, lengths, strict=True) for i in idx}
    suffix = max(len(s) - owner_length[i] for i, s in enumerate(sequences))
    return len(groups) * max(lengths) + len(sequences) * suffix


def shared_prefixes(
    sequences: Sequence[Sequence[int]],
    labels: Sequence[Hashable],
    limits: Sequence[int],
    *,
    pad_id: int,
    left_pad_suffix: bool,
    device: Any = "cpu",
) -> SharedPrefixes | None:
    """The layout of ``sequences`` with one prefix per label, or None when sharing saves no token.

    Args:
        sequences: Token ids, one list per sequence.
        labels: One label per sequence; sequences with one label share their longest common prefix.
        limits: Most tokens of each sequence its prefix may hold (``len - 1`` for generation, so that
            at least one token is left to predict from; the first target's index minus 1 for scoring).
        left_pad_suffix: Left-pad the suffixes (generation: every row ends where sampling starts);
            else right-pad them (scoring).

    Returns None when no prefix is used by two sequences, or when a prefix would be empty.
    """
    import torch

    plan = _plan(sequences, labels, limits)
    if plan is None:
        return None
    groups, group_lengths = plan
    owner = [0] * len(sequences)
    for k, idx in enumerate(groups):
        for i in idx:
            owner[i] = k
    lengths = [group_lengths[owner[i]] for i in range(len(sequences))]
    width = max(group_lengths)
    prefix_ids = torch.full((len(groups), width), pad_id, dtype=torch.long)
    prefix_mask = torch.zeros((len(groups), width), dtype=torch.long)
    for k, (idx, n) in enumerate(zip(groups, group_lengths, strict=True)):
        prefix_ids[k, width - n :] = torch.tensor(list(sequences[idx[0]][:n]), dtype=torch.long)
        prefix_mask[k, width - n :] = 1
    suffixes = [list(s[n:]) for s, n in zip(sequences, lengths, strict=True)]
    span = max(len(s) for s in suffixes)
    suffix_ids = torch.full((len(sequences), span), pad_id, dtype=torch.long)
    suffix_mask = torch.zeros((len(sequences), span), dtype=torch.long)
    for i, suffix in enumerate(suffixes):
        where = slice(span - len(suffix), span) if left_pad_suffix else slice(0, len(suffix))
        suffix_ids[i, where] = torch.tensor(suffix, dtype=torch.long)
        suffix_mask[i, where] = 1
    return SharedPrefixes(
        prefix_ids=prefix_ids.to(device),
        prefix_mask=prefix_mask.to(device),
        owner=torch.tensor(owner, dtype=torch.long, device=device),
        suffix_ids=suffix_ids.to(device),
        suffix_mask=suffix_mask.to(device),
        lengths=lengths,
    )


# ---------------------------------------------------------------------------- the cache


def base_model(model: Any) -> Any:
    """The transformers model under a peft wrapper (``model`` itself otherwise)."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def cache_argument(model: Any) -> str:
    """The forward argument that takes a KV cache: ``cache`` where the model's forward has it (transformers
    5 renamed it), else ``past_key_values``."""
    return "cache" if "cache" in inspect.signature(base_model(model).forward).parameters else "past_key_values"


def output_cache(output: Any) -> Any:
    """The KV cache a forward pass returned."""
    cache = getattr(output, "cache", None)
    return cache if cache is not None else getattr(output, "past_key_values", None)


def is_plain_dynamic(cache: Any) -> bool:
    """Whether ``cache`` is a ``DynamicCache`` of plain ``DynamicLayer`` layers (no sliding window), whose
    rows can be repeated and left-padded."""
    from transformers.cache_utils import DynamicCache, DynamicLayer

    layers = getattr(cache, "layers", None) or ()
    return isinstance(cache, DynamicCache) and bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


def can_share(model: Any) -> bool:
    """Whether ``model`` runs on a shared prefix: no gradient checkpointing, and a one-token forward pass
    returns a cache of plain ``DynamicLayer`` layers (the probe's verdict is kept per model)."""
    import torch

    base = base_model(model)
    checkpointing = "is_activation_checkpointing" if hasattr(type(base), "is_activation_checkpointing") else None
    if getattr(base, checkpointing or "is_gradient_checkpointing", False):
        return False
    if base not in _VERDICTS:
        device = next(base.parameters()).device
        with torch.no_grad():
            output = model(input_ids=torch.zeros((1, 1), dtype=torch.long, device=device), use_cache=True)
        _VERDICTS[base] = is_plain_dynamic(output_cache(output))
    return _VERDICTS[base]


def _prefix_states(model: Any, shared: SharedPrefixes) -> list[Any]:
    """The prefixes' keys and values, layer after layer: ``[k_0, v_0, k_1, v_1, ...]``, each ``(U, heads, C, d)``."""
    output = model(
        input_ids=shared.prefix_ids,
        attention_mask=shared.prefix_mask,
        position_ids=shared.prefix_positions(),
        use_cache=True,
        logits_to_keep=1,
    )
    cache = output_cache(output)
    if not is_plain_dynamic(cache):
        raise ValueError(f"{type(base_model(model)).__name__} has no plain DynamicCache; check can_share() first")
    return [tensor for layer in cache.layers for tensor in (layer.keys, layer.values)]


def prefix_cache(model: Any, shared: SharedPrefixes, *, recompute: bool = False) -> Any:
    """Run the prefixes once and return their cache repeated along the batch (gradients flow when enabled).

    With ``recompute`` and gradients on, the prefixes' forward pass runs under activation checkpointing
    (``torch.utils.checkpoint``): only their keys and values are held, and the pass runs again in the
    backward pass. The gradient is the same; the activations of the prefixes (about 1.4 MB per token for
    SmolLM2-135M) are not held, at the cost of one more forward pass over them.
    """
    import torch
    from transformers.cache_utils import DynamicCache

    if recompute and torch.is_grad_enabled():
        from torch.utils.checkpoint import checkpoint

        states = checkpoint(lambda: tuple(_prefix_states(model, shared)), use_reentrant=False)
    else:
        states = _prefix_states(model, shared)
    pairs = zip(states[0::2], states[1::2], strict=True)
    return DynamicCache(
        ddp_cache_data=[(k.index_select(0, shared.owner), v.index_select(0, shared.owner)) for k, v in pairs]
    )


def suffix_logits(model: Any, shared: SharedPrefixes, *, recompute: bool = False) -> Any:
    """``(B, S, V)`` logits at every suffix position, on top of the shared prefixes' cache
    (:func:`prefix_cache`; ``recompute`` checkpoints the prefixes' forward pass)."""
    cache = prefix_cache(model, shared, recompute=recompute)
    output = model(
        input_ids=shared.suffix_ids,
        attention_mask=shared.attention_mask,
        position_ids=shared.suffix_positions(),
        use_cache=True,
        **{cache_argument(model): cache},
    )
    return output.logits
