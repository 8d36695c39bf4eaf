"""The demo's words: what each section shows, where the model played and why not, and where the time went."""

from __future__ import annotations

from collections.abc import Mapping

from rewardlab.demo.budget import ModelRecord, PhaseClock
from rewardlab.demo.learning import plural
from rewardlab.leaderboard.audit_budget import BudgetRun

SECTIONS: tuple[tuple[str, str], ...] = (
    (
        "Leaderboard",
        "the oracle (a reference solution: the reward's ceiling) and a random agent (its floor) on each env's test"
        " split, every reward component shown, and the untrained language model where its score is not a"
        " foregone 0",
    ),
    (
        "Reward design",
        "the same episodes rescored under equal, targeted and gated weighting of their components: which"
        " rankings a weighting changes",
    ),
    (
        "Audit",
        "degenerate strategies (empty, echo, garbage, another task's answer, ...) against the oracle: where a"
        " policy could earn reward without solving the task",
    ),
    (
        "Learning",
        "the language model trained on BFCL's simple tasks (SFT warm start on oracle demonstrations, then"
        " GRPO), its held-out reward before and after",
    ),
)
"""Each section's title and what it shows, in the order the demo prints them."""


def intro(env_count: int, total_s: float | None) -> str:
    """The lines the demo starts with: its sections and its budget."""
    titles = ", ".join(f"{i}. {title}" for i, (title, _) in enumerate(SECTIONS, 1))
    budget = "with no time limit" if total_s is None else f"within a budget of {total_s:.0f} s (--budget-minutes)"
    return (
        f"RewardLab demo: {env_count} envs whose rewards are decomposed into named components, in {len(SECTIONS)}"
        f" sections ({titles}), each introduced by what it shows.\nIt runs {budget}; what does not fit is"
        " listed as skipped, with the reason."
    )


def heading(number: int) -> str:
    """The banner printed before section ``number`` (1-based) starts."""
    title, text = SECTIONS[number - 1]
    return f"\n=== {number}. {title}: {text}."


def model_note(
    model: str,
    max_turns: int,
    max_new_tokens: int,
    skipped: Mapping[str, str],
    played: BudgetRun | None,
    record: ModelRecord | None,
) -> str:
    """Where the language model played and where it did not, with why (printed under the leaderboard)."""
    done = list(played.done) if played is not None else []
    left_out = {**skipped, **(played.skipped if played is not None else {})}
    lines = [f"The language model ({model}, untrained; at most {max_turns} turns of {max_new_tokens} tokens):"]
    lines.append(f"- played on {plural(len(done), 'env')}" + (f": {', '.join(done)}" if done else "") + ".")
    if left_out:
        lines.append(f"- not played on {plural(len(left_out), 'env')}:")
        lines += [f"  - {env_id}: {reason}" for env_id, reason in sorted(left_out.items())]
    if record is not None and skipped:
        commit = (record.commit or "unknown")[:12]
        lines.append(
            f"The record: rewardlab/demo/data/model_record.json (commit {commit}, {record.created}), written by"
            " `rewardlab demo --model-everywhere`, which plays the model on every env. Section 4 shows it learn."
        )
    return "\n".join(lines)


def timing(clock: PhaseClock) -> str:
    """The closing line: the total against the budget, and each phase's seconds."""
    parts = ", ".join(f"{phase} {seconds:.0f} s" for phase, seconds in clock.spent.items())
    budget = "" if clock.total_s is None else f" of a {clock.total_s:.0f} s budget"
    return f"done in {clock.elapsed():.0f} s{budget} ({parts})"
