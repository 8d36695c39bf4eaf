"""BFCL-v1's external grader: bfcl-eval's own ``ast_checker`` on the calls the env read from the answer.

BFCL-v1 scores answers with a re-implementation of bfcl-eval's AST checker
(:mod:`rewardlab.envs.bfcl.checker`); this grader runs bfcl-eval's original, as its evaluation runner
does (``bfcl_eval.eval_checker.eval_runner``), on the same calls:

- the answer is decoded by the env's parser (:func:`rewardlab.core.toolcalls.parse_tool_calls` with
  BFCL-v1's limits) into ``[{name: arguments}]``, the form bfcl-eval's handlers decode to; what is
  checked is the checker, not the decoder;
- call categories: success = the decoded output is in BFCL's function-calling format
  (``is_function_calling_format_output``) and ``ast_checker(functions, output, ground_truth,
  Language.PYTHON, category, model)`` returns ``valid``; an answer with no call fails, as a decode
  failure does in bfcl-eval;
- irrelevance categories: success = no call (bfcl-eval's ``_evaluate_single_relevance_entry``: an
  answer that does not decode, or decodes to nothing, passes);
- score = 1 on success, else 0 (bfcl-eval grades pass/fail only), so ρ is the rank-biserial
  correlation between our reward and BFCL's verdict.

``model`` is a bfcl-eval model whose function names keep their dots, or, for
``underscore_names=True``, one whose names have ``.`` turned into ``_`` (bfcl-eval's ``underscore_to_dot``).
Importing ``ast_checker`` imports bfcl-eval's model handlers and their SDKs (the ``bfcl`` extra's
full install, not ``--no-deps``), which takes several seconds.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from rewardlab.crosscheck.answers import Answer
from rewardlab.crosscheck.grader import ExternalVerdict
from rewardlab.errors import MissingDependencyError

DOTTED_MODEL = "gorilla-openfunctions-v2"
"""A bfcl-eval model whose function names keep their dots, as BFCL-v1's do by default."""

UNDERSCORED_MODEL = "gpt-4.1-2025-04-14-FC"
"""A bfcl-eval model whose function names have ``.`` → ``_`` (BFCL-v1's ``underscore_names=True``)."""


class BFCLASTGrader:
    """bfcl-eval's ``ast_checker`` (and its irrelevance rule) on the env's decoded calls."""

    name = "bfcl-eval"
    description = (
        "bfcl-eval's own ast_checker on the calls decoded from the answer (irrelevance: no call passes); "
        "score = 1 if it passes, else 0."
    )

    def __init__(self) -> None:
        try:
            from bfcl_eval.constants.enums import Language  # type: ignore[import-untyped]
            from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # type: ignore[import-untyped]
            from bfcl_eval.utils import is_empty_output, is_function_calling_format_output  # type: ignore[import-untyped]
        except ImportError as exc:
            raise MissingDependencyError(
                f"bfcl-eval's ast_checker cannot be imported ({exc}); install it with its dependencies: "
                "pip install 'rewardlab[bfcl]' (a --no-deps bfcl-eval serves the env but not this grader)"
            ) from exc
        self._checker = ast_checker
        self._python = Language.PYTHON
        self._is_call_format = is_function_calling_format_output
        self._is_empty = is_empty_output

    def grade(self, env: Any, task_id: str, actions: Sequence[str], info: Mapping[str, Any]) -> ExternalVerdict:
        from rewardlab.core.toolcalls import parse_tool_calls
        from rewardlab.envs.bfcl.constants import PARSE_LIMITS

        data = env.tasks.get(task_id).data
        category = str(data["category"])
        parsed = parse_tool_calls(actions[-1] if actions else "", PARSE_LIMITS)
        output = [{call.name: copy.deepcopy(call.arguments)} for call in parsed.calls]
        if "irrelevance" in category:
            has_call = bool(output) and self._is_call_format(output) and not self._is_empty(output)
            detail = "a call was decoded (irrelevance_error:decoder_success)" if has_call else "no call"
            return ExternalVerdict(not has_call, 0.0 if has_call else 1.0, detail)
        if not output:
            reason = parsed.error or "no call"
            return ExternalVerdict(False, 0.0, f"ast_decoder:decoder_failed ({reason})")
        if not self._is_call_format(output):
            return ExternalVerdict(False, 0.0, "ast_decoder:decoder_wrong_output_format")
        model = UNDERSCORED_MODEL if getattr(env, "underscore_names", False) else DOTTED_MODEL
        result = self._checker(data["functions"], output, data["ground_truth"], self._python, category, model)
        if result["valid"]:
            return ExternalVerdict(True, 1.0, "valid")
        errors = "; ".join(str(e) for e in result.get("error", []))[:300]
        return ExternalVerdict(False, 0.0, f"{result.get('error_type', 'invalid')}: {errors}")

    def explain(self, answer: Answer, verdict: ExternalVerdict) -> str:
        """Our checker's errors next to bfcl-eval's: both read the same decoded calls, so a disagreement is a
        difference between the two checkers (ours re-implements bfcl-eval's, quirks included)."""
        ours = answer.info.get("bfcl_errors") or []
        listed = "; ".join(f"{e.get('kind')}: {e.get('message')}" for e in ours[:5]) or "no error"
        return f"our checker: {listed}; bfcl-eval: {verdict.detail}"

    def close(self) -> None:
        """Nothing to release."""
