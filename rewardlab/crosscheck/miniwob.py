"""MiniWoB-v1's external grader: the page's own reward, read from the live page by the ``miniwob`` package's rules.

Every MiniWoB++ page computes its own reward in JavaScript (``core.endEpisode(reward, ...)`` in
``core/core.js``) and leaves it in page globals until the next episode starts. Right after an
answer is played, the episode's page is still open in the env's browser; this grader reads those
globals there with the query of the ``miniwob`` package's own ``SeleniumInstance.get_metadata``
(``WOB_DONE_GLOBAL``, ``WOB_REWARD_GLOBAL``, ``WOB_RAW_REWARD_GLOBAL``, ``WOB_REWARD_REASON``) and
judges them with the package's own reward processors (:mod:`miniwob.reward`)::

    success = get_binary_reward(metadata) = 1       (the page ended the episode with raw reward exactly 1)
    score   = get_raw_reward(metadata) ∈ [-1, 1]    (0 when the page never ended the episode)

It reads nothing of our rubric: not its components, not the env's copy of the raw reward, not the
minimum number of actions. Our ``is_success`` additionally requires the page's full reward within
the task's minimum number of actions (``n ≤ m``), so an answer the page pays in full with extra
actions is a success for the page and not for us; :meth:`MiniWoBPageGrader.explain` says so from
the episode's action count. The page read must be the task's page (its URL names it) with the
task's instruction on it, else the grader raises and the answer gets no verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict
from rewardlab.errors import MissingDependencyError

METADATA_JS = """() => ({
  done: WOB_DONE_GLOBAL,
  env_reward: WOB_REWARD_GLOBAL,
  raw_reward: WOB_RAW_REWARD_GLOBAL,
  reason: WOB_REWARD_REASON,
  path: window.location.pathname,
  utterance: (typeof core === 'undefined') ? null : core.getUtterance(),
})"""
"""``miniwob``'s ``get_metadata`` query (the same four globals under the same keys) plus the page's path
and instruction, which say which task's page was read."""


class MiniWoBPageGrader:
    """The page's own reward, read from the live page after the episode, judged by ``miniwob.reward``."""

    name = "miniwob-page"
    description = (
        "the page's own reward (WOB_* globals read from the live page after the episode, miniwob's get_metadata "
        "query); success = miniwob.reward.get_binary_reward = 1 (raw reward exactly 1), "
        "score = miniwob.reward.get_raw_reward in [-1, 1] (0 if the page never ended the episode)."
    )

    def __init__(self) -> None:
        try:
            from miniwob.reward import get_binary_reward, get_raw_reward  # type: ignore[import-untyped]
        except ImportError as exc:
            raise MissingDependencyError(
                f"the miniwob package cannot be imported ({exc}); install it: pip install 'rewardlab[web]'"
            ) from exc
        self._binary = get_binary_reward
        self._raw = get_raw_reward

    def read_metadata(self, env: Any, task_id: str) -> dict[str, Any]:
        """The page's reward globals, read from ``env``'s browser; raises when the open page is not ``task_id``'s."""
        data = env.tasks.get(task_id).data
        metadata: dict[str, Any] = env.backend.evaluate(METADATA_JS)
        page = f"/miniwob/{data['page']}.html"
        if metadata.get("path") != page:
            raise RuntimeError(f"the open page is {metadata.get('path')!r}, not {task_id}'s {page}")
        if metadata.get("utterance") != getattr(env, "utterance", None):
            raise RuntimeError(f"the open page shows another instruction than {task_id}'s episode")
        return metadata

    def grade(self, env: Any, task_id: str, actions: Sequence[str], info: Mapping[str, Any]) -> ExternalVerdict:
        metadata = self.read_metadata(env, task_id)
        binary = self._binary(metadata)
        raw = self._raw(metadata) if metadata["done"] else 0.0
        if not metadata["done"]:
            detail = "the page never ended the episode (no reward)"
        else:
            reason = metadata.get("reason")
            detail = f"the page ended the episode: raw reward {raw:+.3f}" + (f" ({reason})" if reason else "")
        return ExternalVerdict(binary == 1.0, raw, detail)

    def explain(self, answer: Answer, verdict: ExternalVerdict) -> str:
        """Why the page and our rubric differ: our extra requirement of the minimum number of actions, or a
        difference between the page's raw reward and the one our rubric saw."""
        metrics = answer.info.get("metrics") or {}
        components = answer.info.get("reward_components") or {}
        actions = len(answer.actions)
        ratio = metrics.get("efficiency/minimum_over_actions")
        page_ended = metrics.get("efficiency/page_ended")
        if verdict.success and not answer.is_success:
            if components.get("page_reward") == 1.0 and ratio is not None and ratio < 1.0:
                minimum = round(float(ratio) * actions)
                return (
                    f"the page paid in full ({verdict.detail}) but the episode used {actions} actions where the "
                    f"task's minimum is {minimum}; our success also requires n ≤ m, the page's does not"
                )
            if page_ended == 0.0:
                return f"the page paid in full ({verdict.detail}) but our rubric saw no end of the episode by the page"
            return (
                f"the page paid in full ({verdict.detail}) but our rubric did not (components {dict(components)}, "
                f"{actions} actions, error: {answer.error or 'none'})"
            )
        return (
            f"our rubric counts it solved (components {dict(components)}) but the page reads {verdict.detail}; "
            "a difference between the raw reward our env recorded and the page's own"
        )

    def close(self) -> None:
        """Nothing to release (the browser belongs to the env)."""
