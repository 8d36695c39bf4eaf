"""RewardLab/BFCL-v1: the Berkeley Function Calling Leaderboard as a single-shot text env.

The spec sheet is :class:`BFCLEnv`'s docstring (``help(env.unwrapped)``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.tasks import Task
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.bfcl.checker import AnswerSpec, tool_name
from rewardlab.envs.bfcl.constants import PARSE_LIMITS
from rewardlab.envs.bfcl.loader import is_simple, load_tasks, render_prompt, validate_categories
from rewardlab.envs.bfcl.oracle import BFCLOracle
from rewardlab.envs.bfcl.rubric import BFCLOutcome, bfcl_rubric
from rewardlab.envs.bfcl.tools import openai_tools
from rewardlab.errors import ConfigError

if TYPE_CHECKING:
    from rewardlab.audit.strategy import AuditProfile


class BFCLEnv(TextEnv):
    """RewardLab/BFCL-v1: the Berkeley Function Calling Leaderboard as a single-shot text env.

    ## Description

    Each task is one entry of BFCL (read from the installed ``bfcl-eval`` package): a user request
    and the functions on offer. The agent answers with function calls as JSON, or in plain text
    when no function fits. The answer is scored by BFCL's AST checker: the calls are matched
    against BFCL's possible answers, and every kind of error BFCL distinguishes (wrong count,
    wrong function, missing or unexpected parameter, wrong type, wrong value) lowers its own
    reward component.

    Categories (``categories=`` selects some; default all): ``simple_python``, ``multiple``,
    ``parallel``, ``parallel_multiple``, ``live_simple``, ``live_multiple``, ``live_parallel``,
    ``live_parallel_multiple`` (calls are expected) and ``irrelevance``, ``live_irrelevance``
    (no function fits: the right answer calls none). Entries that no answer can pass under BFCL's
    own checker are left out (:func:`~rewardlab.envs.bfcl.checker.satisfiable`; in bfcl-eval data v4:
    ``live_simple_106-63-0`` and ``live_simple_112-68-0``, where a parameter has no possible value,
    ``live_multiple_862-181-3`` and ``live_multiple_964-207-0``, where the answer needs a parameter
    the function does not document). ``multi_turn_base`` is served by ``RewardLab/BFCLMultiTurn-v1``
    (:mod:`rewardlab.envs.bfcl.multi_turn`).

    A task is drawn from the train split with ``np_random`` (or ``options={"task_id"|"split"}``);
    the split is a stable hash of BFCL's id (about 20% test). The observation is the conversation,
    then the functions as BFCL documents them (JSON); ``info["tools"]`` has them as OpenAI
    function-calling tools.

    ## Action format

    Text. The documented format is the whole action being JSON: one call
    ``{"name": "math.factorial", "arguments": {"number": 5}}`` or a list of calls
    ``[{...}, {...}]``; or plain text without a call. Calls inside prose, a code fence or
    ``<tool_call>`` tags are still read, but count against ``format``.

    ## Components

    Equal default weights, mean aggregate, no gates; with ``n*`` expected calls, ``n`` given,
    ``m = max(n, n*)`` and ``s_i`` the value share of expected call ``i`` (0 when no call to its
    function answers it, else the needed parameters given a right value over the needed parameters
    plus the other parameters given wrongly; a parameter is needed when it is required or BFCL's
    answers do not allow leaving it out); all 1 when ``m = 0``. Formulas: :mod:`rewardlab.envs.bfcl.rubric`.

    | name         | role    | formula                                                      | weight | range  |
    |--------------|---------|--------------------------------------------------------------|--------|--------|
    | `format`     | format  | [bare JSON calls or plain text] · values                     | 1/6    | [0, 1] |
    | `count`      | partial | min(n, n*) / m                                               | 1/6    | [0, 1] |
    | `function`   | partial | expected calls paired with a call to the right function / m  | 1/6    | [0, 1] |
    | `parameters` | partial | Σ_i [no missing, unexpected or left-out parameter] · s_i / m | 1/6    | [0, 1] |
    | `types`      | partial | Σ_i [no wrongly typed value] · s_i / m                       | 1/6    | [0, 1] |
    | `values`     | outcome | Σ_i s_i / m                                                  | 1/6    | [0, 1] |

    ``[bare JSON calls or plain text]`` is 0 for prose, fences, bad JSON and string arguments. The
    reward ranges over [0, 1]: 1 for an answer BFCL passes in the documented format, 0 for no call
    (or a call that cannot be read) on a call task, and for any call on an irrelevance task.
    ``info["is_success"]`` is BFCL's verdict: for call categories ``ast_checker`` passes on the
    calls read; for irrelevance, no call was read (BFCL's rule: text, or a call that cannot be
    decoded, is a pass). Gate on ``format`` (``gates=["format"]``) to pay ``invalid_penalty``
    for malformed output. ``info["bfcl_errors"]`` lists ``{"kind", "message"}`` for every error
    found (kinds: ``checker.ERROR_KINDS``).

    ## Milestones

    None: the episode is a single answer (``progress`` stays 0).

    ## Episode end

    After one step (the answer is scored). Non-text actions end the episode scored as malformed.

    Replay: exact. The answer alone decides the reward (no state, no clock), so a record's seed and
    action re-score the episode bit for bit (:mod:`rewardlab.core.replay`).

    ## Arguments

    - ``categories``: BFCL categories to load (default: all ten above).
    - ``underscore_names``: show and expect function names with ``.`` replaced by ``_``
      (``math.factorial`` -> ``math_factorial``), as bfcl-eval does for models whose API forbids dots
      in tool names (OpenAI's does); default False: names as BFCL writes them.
    - The common ones, :class:`~rewardlab.core.CommonArgs` (``max_turns`` has no effect on a
      single-shot episode).

    Needs ``pip install 'rewardlab[bfcl]'`` (the ``bfcl-eval`` package), else
    :class:`~rewardlab.errors.MissingDependencyError`.

    ## Known hack classes defended

    What the cheapest outputs earn, and why (``rewardlab audit RewardLab/BFCL-v1`` plays each one;
    strategies in :mod:`rewardlab.envs.bfcl.audit`):

    - *Form without content*: the right function with type-correct placeholder values can be
      copied from the documentation without reading the request. ``format``, ``parameters`` and
      ``types`` are scaled by the value shares, so it earns ``function`` and ``count`` only (1/3).
    - *Free format credit*: plain text or an empty answer on a call task has ``values = 0``, so its
      well-formed ``format`` earns nothing.
    - *Padding with optional parameters*: parameters that may be left out count in ``s_i`` only when
      given wrongly, so giving each its "omitted" value (``""``, a BFCL possible answer) earns nothing.
    - *Hedging with several calls* (every offered function, or variants of one call): every
      component divides by ``m = max(n, n*)``.
    - *The no-call answer everywhere*: it passes irrelevance tasks, as BFCL rules (its leniency, also
      for undecodable calls, is kept and reported as an accepted success by the audit), and earns 0
      on call tasks.

    ## Version history

    - v0: initial version (bfcl-eval data v4; AST categories and irrelevance).
    - v1: `values` is the share of needed values right; `format`, `parameters` and `types` are scaled by it.
    """

    cheap_calls: ClassVar[bool] = True
    system_prompt: str = (
        "You are an expert in composing function calls. You are given a request and a set of "
        "functions. To call functions, reply with only JSON: one call as "
        '{"name": "<function>", "arguments": {"<parameter>": <value>}}, or a JSON list of such '
        "calls to make several at once. Use only the functions offered and their documented "
        "parameters and types. If none of the functions fits the request, reply in plain text "
        "without calling any function."
    )
    multi_turn = False
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "values",
        "format",
        "the needed argument values among BFCL's possible answers: the answer itself",
        "bare JSON calls (times values): whether BFCL can read the output at all",
    )

    def __init__(
        self,
        *,
        categories: Sequence[str] | None = None,
        underscore_names: bool = False,
        **common: Unpack[CommonArgs],
    ):
        self.categories = validate_categories(categories)
        if not isinstance(underscore_names, bool):
            raise ConfigError(f"underscore_names must be True or False, got {underscore_names!r}")
        self.underscore_names = underscore_names
        super().__init__(tasks=load_tasks(self.categories), rubric=bfcl_rubric(), **common)
        self._specs: dict[str, AnswerSpec] = {}
        self._function_names: frozenset[str] = frozenset()

    def answer_spec(self, task: Task) -> AnswerSpec:
        """The compiled possible answers of ``task`` (compiled once, then cached)."""
        spec = self._specs.get(task.id)
        if spec is None:
            simple = is_simple(task.data["category"])
            data = task.data
            spec = AnswerSpec.compile(
                data["functions"], data["ground_truth"], simple=simple, underscores=self.underscore_names
            )
            self._specs[task.id] = spec
        return spec

    @property
    def episode_spec(self) -> AnswerSpec:
        """:meth:`answer_spec` of the running episode's task; ResetNeeded before the first ``reset``."""
        return self.answer_spec(self.current_task)

    # ------------------------------------------------------------------ hooks
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        self.answer_spec(task)  # compiled at reset, not at the first step
        functions = self._functions(task)
        prompt = render_prompt(task.data["messages"], functions) if self.underscore_names else task.prompt
        self._function_names = frozenset(f["name"] for f in functions)
        return prompt, {"tools": openai_tools(functions), "category": task.data["category"]}

    def _functions(self, task: Task) -> list[dict[str, Any]]:
        """The task's functions as offered: BFCL's, with ``.`` in names replaced by ``_`` when ``underscore_names``."""
        functions = task.data["functions"]
        if self.underscore_names:
            return [{**f, "name": tool_name(str(f.get("name", "")), underscores=True)} for f in functions]
        return functions

    def task_tools(self, task: Task) -> list[dict[str, Any]]:
        return openai_tools(self._functions(task))

    def _act(self, action: str) -> Turn:
        return self.score_answer(action)

    def _reject(self, error: str) -> Turn:
        spec = self.episode_spec
        return self._finish(BFCLOutcome(False, error, False, 0, spec.check(()), spec), error)

    def _outcome(self) -> tuple[Any, bool]:  # single-shot: every step ends the episode
        spec = self.episode_spec
        return BFCLOutcome(False, "no answer", False, 0, spec.check(()), spec), True

    def _is_success(self, outcome: BFCLOutcome, result: Any) -> bool:
        """BFCL's verdict (for irrelevance tasks: no call was read)."""
        return outcome.verdict.valid

    # ------------------------------------------------------------------ scoring
    def score_answer(self, action: str) -> Turn:
        """Parse ``action``, check it with BFCL's rules and build the final turn. Never raises."""
        parsed = parse_tool_calls(action, PARSE_LIMITS)
        calls = [(call.name, call.arguments) for call in parsed.calls]
        unknown = [name for name, _ in calls if name not in self._function_names]
        spec = self.episode_spec
        outcome = BFCLOutcome(
            strict=parsed.strict,
            parse_error=parsed.error,
            lenient=bool(parsed.calls) and not parsed.strict,
            unknown_calls=len(unknown),
            verdict=spec.check(calls),
            spec=spec,
        )
        if parsed.error is not None:
            error = parsed.error
        elif unknown:
            offered = sorted(self._function_names)
            listing = offered if len(offered) <= 10 else f"{len(offered)} functions (see info['tools'])"
            error = f"unknown function(s) {sorted(set(unknown))}; offered: {listing}"
        elif outcome.lenient:
            error = f"{parsed.note}; the documented format is the whole action being JSON"
        else:
            error = None
        return self._finish(outcome, error)

    def _finish(self, outcome: BFCLOutcome, error: str | None) -> Turn:
        messages = outcome.verdict.errors
        errors = [{"kind": kind, "message": message} for kind, message in messages]
        return Turn(
            observation=_report(outcome.verdict.valid, error, messages),
            done=True,
            outcome=outcome,
            action_error=error,
            info={"bfcl_errors": errors},
        )

    # ------------------------------------------------------------------ agents
    def sample_action(self, rng: np.random.Generator) -> str:
        """A random answer: plain text (1 in 5) or 1-2 calls to offered (or made-up) functions
        with a random subset of documented parameters set to random JSON values."""
        if self.task is None or rng.random() < 0.2:
            return "I cannot help with that."
        functions = list(self.task.data["functions"])
        calls = []
        for _ in range(int(rng.integers(1, 3))):
            if not functions or rng.random() < 0.1:
                function: dict[str, Any] = {"name": "made_up_function"}
            else:
                function = functions[int(rng.integers(len(functions)))]
            name = function.get("name", "")
            properties = list((function.get("parameters") or {}).get("properties") or {})
            arguments = {p: _random_value(rng) for p in properties if rng.random() < 0.6}
            calls.append({"name": name, "arguments": arguments})
        return json.dumps(calls[0] if len(calls) == 1 else calls)

    def make_oracle(self) -> BFCLOracle:
        return BFCLOracle(self)

    def audit_profile(self) -> AuditProfile:
        """The BFCL strategies (:mod:`rewardlab.envs.bfcl.audit`); BFCL's passes of irrelevance tasks
        without a call, and of tasks that need no argument value, are accepted."""
        from rewardlab.envs.bfcl.audit import bfcl_profile

        def needs_no_values(task_id: str) -> bool:
            calls = self.answer_spec(self.tasks.get(task_id)).calls
            return bool(calls) and all(not call.needed for call in calls)

        return bfcl_profile({task.id: task.data["category"] for task in self.tasks}, needs_no_values)


def _random_value(rng: np.random.Generator) -> Any:
    kind = int(rng.integers(6))
    if kind == 0:
        return int(rng.integers(-100, 100))
    if kind == 1:
        return round(float(rng.normal(0, 50)), 2)
    if kind == 2:
        return bool(rng.integers(2))
    if kind == 3:
        return ["a", "b"][: int(rng.integers(3))]
    if kind == 4:
        return {"key": "value"}
    return "".join(rng.choice(list("abcdefgh ")) for _ in range(int(rng.integers(1, 12))))


def _report(valid: bool, error: str | None, messages: list[tuple[str, str]]) -> str:
    """The final observation: the verdict and what was wrong."""
    lines = [f"BFCL verdict: {'pass' if valid else 'fail'}"]
    if error is not None:
        lines.append(f"action_error: {error}")
    lines.extend(f"- {kind}: {message}" for kind, message in messages[:20])
    if len(messages) > 20:
        lines.append(f"- ... and {len(messages) - 20} more")
    return "\n".join(lines)
