"""MiniWoB-v1 tasks: :data:`PAGES` x seeds 0-4, generated deterministically at load time.

Task ``click-button-3`` is the page ``miniwob/click-button.html`` with ``Math.seedrandom(3)``.
Seeds 0-3 are the train split, seed 4 the test split.
"""

from __future__ import annotations

from rewardlab.core.tasks import Task, TaskSet

PAGES: tuple[str, ...] = (
    "click-button",
    "click-button-sequence",
    "click-link",
    "click-dialog",
    "click-dialog-2",
    "click-checkboxes",
    "click-tab",
    "click-tab-2",
    "click-test",
    "click-test-2",
    "enter-text",
    "enter-text-2",
    "enter-password",
    "login-user",
    "focus-text",
    "focus-text-2",
    "click-collapsible-nodelay",
    "choose-list",
    "click-option",
    "unicode-test",
    "find-word",
    "click-checkboxes-large",
    "click-checkboxes-transfer",
)
SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4)
TEST_SEEDS: frozenset[int] = frozenset({4})


def load_tasks() -> TaskSet:
    """Every page with every seed; the prompt names the page (the instruction itself is on the page)."""
    return TaskSet(
        Task(
            f"{page}-{seed}",
            "test" if seed in TEST_SEEDS else "train",
            f"MiniWoB++ task {page} (seed {seed}); the instruction is shown on the page.",
            {"page": page, "seed": seed},
        )
        for page in PAGES
        for seed in SEEDS
    )
