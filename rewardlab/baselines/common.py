"""Pieces every baseline shares: the KL reference, per-token log-probs, batching, logs, plots, checkpoints.

Metric names are stable (CleanRL/TRL style): ``rewards/mean``, ``rewards/<component>/mean``,
``charts/success_rate``, ``losses/policy``, ``charts/kl`` ... Each update appends one row to
``metrics.jsonl`` and rewrites ``metrics.csv``; :func:`plot_curves` draws ``training_curve.png``
with one line per reward component (and the aggregate).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rewardlab.baselines.prefix import SharedPrefixes, layout_tokens, shared_prefixes, suffix_logits
from rewardlab.baselines.rollout import Episode
from rewardlab.errors import require

# ---------------------------------------------------------------------------- the KL reference


def reference_context(policy: Any, reference: Any | None) -> tuple[Any, Any]:
    """``(model, context manager)`` that computes reference log-probs.

    With LoRA the reference is the policy with its adapter disabled (no second copy in memory).
    """
    import contextlib

    if reference is not None:
        return reference, contextlib.nullcontext()
    return policy, policy.disable_adapter()


# ---------------------------------------------------------------------------- batches


@dataclasses.dataclass
class TokenBatch:
    """Right-padded tensors of a list of episodes, sliced to the positions that predict agent tokens.

    ``input_ids``/``attention_mask`` are ``(B, T)``; the other tensors are ``(B, K)`` for the last
    ``K = T - start`` target positions, where ``start`` is the earliest agent token of the batch:
    ``targets[:, j]`` is token ``start + j`` and ``mask`` is 1 where it is an agent token.
    """

    input_ids: Any
    attention_mask: Any
    targets: Any
    mask: Any
    start: int

    @property
    def keep(self) -> int:
        """Logit positions to keep (``logits_to_keep`` in transformers): the last ``K + 1``."""
        return self.targets.shape[1] + 1


def token_batch(episodes: Sequence[Episode], *, pad_id: int, device: Any = "cpu") -> TokenBatch:
    """Stack ``episodes`` into a :class:`TokenBatch` (right padding, loss mask from ``action_mask``)."""
    torch = require("torch", "train")
    width = max(len(e.token_ids) for e in episodes)
    ids = torch.full((len(episodes), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(episodes), width), dtype=torch.long)
    mask = torch.zeros((len(episodes), width), dtype=torch.float32)
    for i, e in enumerate(episodes):
        ids[i, : len(e.token_ids)] = torch.tensor(e.token_ids)
        attention[i, : len(e.token_ids)] = 1
        mask[i, : len(e.token_ids)] = torch.tensor(e.action_mask, dtype=torch.float32)
    start = max(1, min(e.prompt_length for e in episodes))
    return TokenBatch(
        input_ids=ids.to(device),
        attention_mask=attention.to(device),
        targets=ids[:, start:].to(device),
        mask=mask[:, start:].to(device),
        start=start,
    )


@dataclasses.dataclass
class SharedTokenBatch:
    """Episodes whose groups share a prefix (:mod:`rewardlab.baselines.prefix`), each prefix run once.

    ``targets``/``mask`` are ``(B, K)`` with ``K = S - 1``: ``targets[i, j]`` is token
    ``lengths[i] + 1 + j`` of episode ``i`` (the suffix after its first token), predicted from the
    suffix position before it; ``mask`` is 1 where it is an agent token. A prefix never holds an agent
    token nor the token that predicts the first one, so every agent token is a target.
    """

    shared: SharedPrefixes
    targets: Any
    mask: Any
    recompute: bool = False
    """Checkpoint the prefixes' forward pass (:func:`rewardlab.baselines.prefix.prefix_cache`)."""


def shared_token_batch(
    episodes: Sequence[Episode], *, pad_id: int, device: Any = "cpu", recompute: bool = False
) -> SharedTokenBatch | None:
    """Stack ``episodes`` with their groups' common prefixes shared, or None when no prefix is shared."""
    torch = require("torch", "train")
    shared = shared_prefixes(
        [e.token_ids for e in episodes],
        [e.group for e in episodes],
        [e.prompt_length - 1 for e in episodes],
        pad_id=pad_id,
        left_pad_suffix=False,
        device=device,
    )
    if shared is None:
        return None
    width = shared.suffix_ids.shape[1] - 1
    mask = torch.zeros((len(episodes), width), dtype=torch.float32)
    for i, (e, n) in enumerate(zip(episodes, shared.lengths, strict=True)):
        flags = e.action_mask[n + 1 :]
        mask[i, : len(flags)] = torch.tensor(flags, dtype=torch.float32)
    return SharedTokenBatch(shared, shared.suffix_ids[:, 1:], mask.to(device), recompute)


def forward_logprobs(
    model: Any, batch: TokenBatch | SharedTokenBatch, *, temperature: float = 1.0, hidden: bool = False
) -> Any:
    """Log-probs of ``batch.targets`` under ``model``: ``(B, K)``; with ``hidden`` also the last
    hidden states at the predicting positions ``(B, K, H)`` (for a value head; a
    :class:`TokenBatch` only).

    Only the last ``K + 1`` positions of a :class:`TokenBatch` get logits (``logits_to_keep``), so a
    long prompt costs a forward pass but no vocabulary-sized tensors; a :class:`SharedTokenBatch`
    runs each shared prefix once, then the suffixes on its cache.
    """
    if isinstance(batch, SharedTokenBatch):
        if hidden:
            raise ValueError("hidden states need a TokenBatch")
        logits = suffix_logits(model, batch.shared, recompute=batch.recompute)
        return _logprobs(logits[:, :-1], batch.targets, temperature)
    output = model(
        input_ids=batch.input_ids,
        attention_mask=batch.attention_mask,
        logits_to_keep=batch.keep,
        output_hidden_states=hidden,
        use_cache=False,
    )
    logprobs = _logprobs(output.logits[:, :-1], batch.targets, temperature)
    if not hidden:
        return logprobs
    states = output.hidden_states[-1][:, batch.start - 1 : -1]
    return logprobs, states


def _logprobs(logits: Any, targets: Any, temperature: float) -> Any:
    """``log softmax(logits / temperature)`` at ``targets``."""
    torch = require("torch", "train")
    logits = logits.float()
    if temperature != 1.0:
        logits = logits / temperature
    chosen = torch.gather(logits, -1, targets.unsqueeze(-1)).squeeze(-1)
    return chosen - torch.logsumexp(logits, dim=-1)


def masked_mean(values: Any, mask: Any, dim: int | None = None) -> Any:
    """Mean of ``values`` where ``mask`` is 1 (0 when the mask is empty)."""
    if dim is None:
        return (values * mask).sum() / mask.sum().clamp(min=1.0)
    return (values * mask).sum(dim) / mask.sum(dim).clamp(min=1.0)


def batch_tokens(episodes: Sequence[Episode], *, share: bool) -> int:
    """Token positions of one forward pass over ``episodes``, padding included: ``B · longest``, or with
    ``share`` the layout of :func:`shared_token_batch` (each shared prefix counted once)."""
    if not share:
        return len(episodes) * max(len(e.token_ids) for e in episodes)
    sequences, labels = [e.token_ids for e in episodes], [e.group for e in episodes]
    return layout_tokens(sequences, labels, [e.prompt_length - 1 for e in episodes])


def microbatches(episodes: Sequence[Episode], *, count: int, max_tokens: int, share: bool = False) -> list[list[int]]:
    """Indices of ``episodes`` in contiguous micro-batches: ``count`` nearly equal chunks (:func:`chunks`),
    each split further, in order, so that no forward pass holds more than ``max_tokens`` token positions
    (:func:`batch_tokens`; 0: no bound). An episode over the bound on its own is a micro-batch alone.

    Example:
        >>> from rewardlab.baselines.rollout import Episode
        >>> def episode(n):
        ...     e = Episode(task_id="t", group="t")
        ...     e.add(range(n), agent=True)
        ...     return e
        >>> microbatches([episode(4), episode(4), episode(9), episode(2)], count=1, max_tokens=8)
        [[0, 1], [2], [3]]
    """
    batches: list[list[int]] = []
    for chunk in chunks(list(range(len(episodes))), count):
        current: list[int] = []
        for i in chunk:
            if current and max_tokens and batch_tokens([episodes[j] for j in [*current, i]], share=share) > max_tokens:
                batches.append(current)
                current = []
            current.append(i)
        batches.append(current)
    return batches


def chunks(items: Sequence[Any], count: int) -> Iterator[Sequence[Any]]:
    """Split ``items`` into ``count`` contiguous, nearly equal, non-empty chunks (fewer if too few items)."""
    count = max(1, min(count, len(items)))
    size, extra = divmod(len(items), count)
    start = 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        yield items[start:end]
        start = end


# ---------------------------------------------------------------------------- rewards and logs


def reward_metrics(episodes: Sequence[Episode]) -> dict[str, float]:
    """``rewards/mean``, ``rewards/std``, ``rewards/<component>/mean``, success rate and lengths."""
    n = len(episodes)
    rewards = [e.reward for e in episodes]
    mean = sum(rewards) / n
    metrics = {
        "rewards/mean": mean,
        "rewards/std": math.sqrt(sum((r - mean) ** 2 for r in rewards) / n),
        "charts/success_rate": sum(e.is_success for e in episodes) / n,
        "charts/agent_tokens_mean": sum(e.agent_tokens for e in episodes) / n,
        "charts/turns_mean": sum(len(e.actions) for e in episodes) / n,
        "charts/clipped_ratio": sum(e.clipped_actions for e in episodes)
        / max(1, sum(len(e.actions) for e in episodes)),
    }
    names = list(dict.fromkeys(name for e in episodes for name in e.components))
    for name in names:
        metrics[f"rewards/{name}/mean"] = sum(e.components.get(name, 0.0) for e in episodes) / n
    return metrics


class MetricsLogger:
    """Appends one row per update to ``metrics.jsonl`` and keeps ``metrics.csv`` in step.

    The CSV is rewritten on each row so that its header is the union of every key seen.
    """

    def __init__(self, output_dir: str | Path):
        self.output_dir = Path(output_dir)
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.jsonl_path = self.output_dir / "metrics.jsonl"
        self.csv_path = self.output_dir / "metrics.csv"
        self.rows: list[dict[str, float]] = []
        self.jsonl_path.write_text("")

    def log(self, row: dict[str, float]) -> None:
        self.rows.append(dict(row))
        with self.jsonl_path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        keys = list(dict.fromkeys(k for r in self.rows for k in r))
        with self.csv_path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=keys)
            writer.writeheader()
            writer.writerows(self.rows)


def plot_curves(rows: Sequence[dict[str, float]], path: str | Path, *, title: str = "") -> Path:
    """Draw ``rewards/mean`` and each ``rewards/<component>/mean`` against ``step`` as a PNG."""
    require("matplotlib", "train")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k in dict.fromkeys(k for r in rows for k in r) if k.startswith("rewards/") and k.endswith("/mean")]
    steps = [r.get("step", i) for i, r in enumerate(rows)]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(steps, [r.get("rewards/mean", math.nan) for r in rows], color="black", linewidth=2, label="reward")
    for key in keys:
        ax.plot(steps, [r.get(key, math.nan) for r in rows], label=key.split("/")[1])
    ax.set_xlabel("update")
    ax.set_ylabel("mean over the batch")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def save_checkpoint(model: Any, tokenizer: Any, directory: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """``save_pretrained`` the model (or its LoRA adapter) and tokenizer, plus ``trainer_state.json``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    if extra is not None:
        (directory / "trainer_state.json").write_text(json.dumps(extra, indent=2, default=str))
    return directory
