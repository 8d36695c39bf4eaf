"""RewardLab/BFCLMultiTurn-v1: BFCL's ``multi_turn_base`` conversations against its simulated APIs.

The spec sheet is :class:`BFCLMultiTurnEnv`'s docstring (``help(env.unwrapped)``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from rewardlab.core.card import DesignChoice, ReplayFidelity
from rewardlab.core.env import CommonArgs, TextEnv, Turn, Unpack
from rewardlab.core.tasks import Task
from rewardlab.core.text import canonical_text
from rewardlab.core.toolcalls import parse_tool_calls
from rewardlab.envs.bfcl.constants import PARSE_LIMITS
from rewardlab.envs.bfcl.loader import load_multi_turn_tasks
from rewardlab.envs.bfcl.oracle import MultiTurnOracle
from rewardlab.envs.bfcl.rubric import MultiTurnOutcome, TurnCalls, TurnCheck, multi_turn_rubric
from rewardlab.envs.bfcl.tools import openai_tools
from rewardlab.envs.bfcl.worlds import ERROR_PREFIX, APIWorld, same_state
from rewardlab.errors import ResetNeeded

if TYPE_CHECKING:
    from rewardlab.audit.strategy import AuditProfile

STEPS_PER_TURN = 20
"""BFCL's ``MAXIMUM_STEP_LIMIT``: steps the assistant may take in one user turn."""


_UNREADABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
MAX_REPLY_CHARS = 20_000
"""Longest reply (without tool calls) counted as a message to the user; longer ones end the turn flagged."""


class BFCLMultiTurnEnv(TextEnv):
    """RewardLab/BFCLMultiTurn-v1: BFCL's ``multi_turn_base`` conversations against its simulated APIs.

    ## Description

    Each task is one BFCL multi-turn entry: a user makes 1-7 requests in turn to an assistant that
    can use stateful simulated APIs shipped with ``bfcl-eval`` (a file system, a trading bot, a
    travel-booking system, a vehicle, messaging, Twitter-like posting, tickets, a math API). The
    calls run in-process on a fresh instance of each API loaded with the task's initial state (see
    :mod:`rewardlab.envs.bfcl.worlds`; nothing the agent writes is evaluated as code).

    After each user turn the env runs BFCL's checks against a second, ground-truth world that
    executes BFCL's reference calls for that turn: the agent made at least one call in the turn,
    every API's public state equals the ground truth's, and every reference result is among the
    results the agent obtained so far (BFCL's ``multi_turn_checker``).

    A task comes from the train split (or ``options={"task_id"|"split"}``), split by a stable hash
    of the id (about 20% test). The observation at reset is the first user request and the functions
    (BFCL's JSON); after a call step, the results as JSON ``[{"name", "result"}]``; after a text
    reply, the next request. ``info["tools"]`` has the functions as OpenAI tools; ``info["turn"]``
    the user turn (0-based).

    ## Action format

    JSON calls as in BFCL-v1 (one object or a list, run in order), or plain text, which ends the
    assistant's turn and moves to the next user request. A reply that is empty, over 20,000
    characters or unreadable still ends the turn, flagged as an ``action_error``.

    ## Components

    Equal default weights, mean aggregate. With ``T`` the turns whose reference makes calls
    (unplayed turns count as failed), per user turn ``t`` the reference's calls ``R_t``, the agent's
    calls ``A_t`` and ``N_t`` the agent's calls matched one-to-one to a reference call with the same
    function and the same result (``#`` a count), and ``U`` the turns whose reference makes no call
    in which the agent changed the state anyway (formulas: :mod:`rewardlab.envs.bfcl.rubric`):

    | name        | role     | formula                                                            | weight | range  |
    |-------------|----------|--------------------------------------------------------------------|--------|--------|
    | `format`    | format   | strict actions / actions · mean(execution, state, response, turns) | 1/5    | [0, 1] |
    | `execution` | progress | Σ_t #N_t / Σ_t max(#A_t, #R_t)                                     | 1/5    | [0, 1] |
    | `state`     | partial  | turns whose state credit holds / (T + U)                           | 1/5    | [0, 1] |
    | `response`  | partial  | turns whose reference results the agent obtained / T               | 1/5    | [0, 1] |
    | `turns`     | outcome  | turns passing every BFCL check / T                                 | 1/5    | [0, 1] |

    ``execution`` sums over every turn, played or not; *strict actions* are bare JSON calls or
    plain text (the core counts the actions). A turn's state credit holds when the agent's state
    equals the reference's after the turn and the turn's work shows in it: where the reference
    changes the state, the agent's calls of the turn changed it too; on a read-only turn, the turn
    earns its response credit. ``response`` needs the reference's (function, result) pairs obtained,
    with a call made in the turn. The reward ranges over [0, 1]: 1 for the oracle, 0 for "Done." on
    every turn.

    ``is_success`` is BFCL's verdict: every turn played and passed (BFCL's checks: a call made,
    the state, and every reference *result* among the agent's results so far). ``info["metrics"]``
    adds ``execution/failed_calls`` (calls that raised or named an unknown function),
    ``state/matches`` (turns ending in BFCL's state, however reached) and ``format/strict_actions``.

    ## Milestones

    ``turn_<k>`` when turn ``k`` (one whose reference makes calls) passes; ``progress`` = passed
    turns / ``T``.

    ## Episode end

    After the reply that ends the last user turn. BFCL's limit of 20 steps per user turn ends the
    episode too (BFCL's "force-terminated": the entry fails). ``max_turns`` (default 200 steps)
    truncates; the turns not played count as failed.

    Replay: exact. The simulated backends start from the task's initial state and change only through
    the calls, so a record's seed and actions re-score the episode bit for bit (:mod:`rewardlab.core.replay`).

    ## Arguments

    No arguments of its own; the common ones (:class:`~rewardlab.core.CommonArgs`). Needs
    ``pip install 'rewardlab[bfcl]'``.

    ## Known hack classes defended

    What the cheapest trajectories earn (``rewardlab audit RewardLab/BFCLMultiTurn-v1``; strategies
    in :mod:`rewardlab.envs.bfcl.audit`):

    - *Doing nothing* ("Done." every turn): no call needed by the reference is made (``execution``
      0); a read-only turn's matching state, or a state back where it was (a booking the agent never
      made, cancelled), is not the agent's doing and earns no ``state``; ``format`` is scaled by the
      content, so it earns nothing either.
    - *Calling everything* (every offered function, or every argument-free read, each turn): calls
      the reference does not make count in ``execution``'s denominator; changes that are not the
      target's fail ``state``; results like ``"None"`` (every ``mkdir``, ``touch`` or ``echo``) earn
      ``response`` only from the function the reference called.
    - *Repeating the previous turn's calls*: results obtained earlier earn ``response`` only with a
      call made in the turn, and only repeat calls whose function and result are the reference's
      count in ``execution``.
    - *Placeholder arguments on the right functions*: they fail or change the wrong thing, so they
      earn neither ``execution`` (another result) nor ``state``.
    - *Acting where nothing should be done* (a turn whose reference makes no call): its calls cost
      ``execution`` and a change there counts against ``state``.

    ## Version history

    - v0: initial version (bfcl-eval data v4, ``multi_turn_base``).
    - v1: execution, state and response credit only for the turn's own needed calls and changes; format scaled by
      content.
    """

    cheap_calls: ClassVar[bool] = True
    system_prompt: str = (
        "You are an assistant that fulfils each user request by calling functions. To call, reply "
        'with only JSON: {"name": "<function>", "arguments": {...}}, or a JSON list of such calls, '
        "run in order. You will see their results. When the request is done (or cannot be done), "
        "reply in plain text; the user may then make a new request."
    )
    default_max_turns: ClassVar[int | None] = 200
    multi_turn = True
    user_turns = True
    replay: ClassVar[ReplayFidelity] = "exact"
    design_choice: ClassVar[DesignChoice] = DesignChoice(
        "turns",
        "format",
        "turns passing every BFCL check: BFCL's own multi-turn verdict",
        "the documented-format share of the actions (times the content)",
    )

    def __init__(self, **common: Unpack[CommonArgs]):
        super().__init__(tasks=load_multi_turn_tasks(), rubric=multi_turn_rubric(), **common)
        self.world: APIWorld | None = None
        """The agent's APIs (privileged: the oracle reads it)."""
        self.reference: APIWorld | None = None
        """The APIs that run BFCL's reference calls (privileged)."""
        self._reset_counters()

    def _reset_counters(self) -> None:
        self.turn_index = 0
        """The current user turn (0-based)."""
        self.turn_calls = 0
        """Calls made in the current user turn."""
        self._turn_steps = 0
        self._strict_actions = self._calls = self._failed_calls = 0
        self._results: Counter[str] = Counter()
        self._named_results: Counter[tuple[str, str]] = Counter()
        self._turn_results: Counter[tuple[str, str]] = Counter()
        self._checks: list[TurnCheck] = []
        self._turn_calls: list[TurnCalls] = []
        self._changed_no_call_turns = 0
        self._state_at_turn_start: dict[str, dict[str, Any]] | None = None

    @property
    def current_world(self) -> APIWorld:
        """:attr:`world`, the agent's APIs in the running episode; ResetNeeded before the first ``reset``."""
        if self.world is None:
            raise ResetNeeded("call reset() first: no episode has built its APIs")
        return self.world

    @property
    def current_reference(self) -> APIWorld:
        """:attr:`reference` in the running episode; ResetNeeded before the first ``reset``."""
        if self.reference is None:
            raise ResetNeeded("call reset() first: no episode has built its APIs")
        return self.reference

    # ------------------------------------------------------------------ hooks
    def _start(self, task: Task) -> tuple[str, dict[str, Any]]:
        data = task.data
        offered = [f["name"] for f in data["functions"]]
        self.world = APIWorld(data["initial_config"], data["involved_classes"], offered)
        self.reference = APIWorld(data["initial_config"], data["involved_classes"])
        self._reset_counters()
        self._begin_turn()
        return task.prompt, {"tools": self.task_tools(task), "turn": 0}

    def task_tools(self, task: Task) -> list[dict[str, Any]]:
        return openai_tools(task.data["functions"])

    def _begin_turn(self) -> None:
        """Snapshot the agent's public state, to tell at the turn's end whether the agent changed it."""
        self._state_at_turn_start = self.current_world.snapshot()

    def _act(self, action: str) -> Turn:
        self._turn_steps += 1
        parsed = parse_tool_calls(action, PARSE_LIMITS)
        self._strict_actions += parsed.strict
        if parsed.error is not None:
            return self._continue(f"action_error: {parsed.error}", parsed.error)
        if not parsed.calls:
            turn = self._end_turn()  # a reply without calls ends the turn, as in BFCL; flag one that is no message
            if not canonical_text(action):
                turn.action_error = "the reply has no text and no tool call; the turn ended without a message"
            elif len(action) > MAX_REPLY_CHARS:
                turn.action_error = f"the reply is {len(action)} characters; a message is at most {MAX_REPLY_CHARS}"
            elif _UNREADABLE.search(action):
                turn.action_error = "the reply holds control characters or undecodable text, not a readable message"
            return turn
        results = []
        errors = []
        for call in parsed.calls:
            result = self.current_world.execute(call.name, call.arguments)
            self._calls += 1
            self.turn_calls += 1
            self._results[result] += 1
            self._named_results[call.name, result] += 1
            self._turn_results[call.name, result] += 1
            if result.startswith(ERROR_PREFIX):
                self._failed_calls += 1
                errors.append(f"{call.name}: {result[len(ERROR_PREFIX) :]}")
            results.append({"name": call.name, "result": result})
        error = "; ".join(errors) or (None if parsed.strict else f"{parsed.note}; the documented format is bare JSON")
        return self._continue(json.dumps(results, ensure_ascii=False), error)

    def _continue(self, observation: str, error: str | None) -> Turn:
        if self._turn_steps >= STEPS_PER_TURN:
            outcome = self._build_outcome(complete=False)
            note = f"{observation}\n\nStep limit: {STEPS_PER_TURN} steps in one user turn; the episode ends."
            info = {"turn": self.turn_index}
            return Turn(observation=note, done=True, outcome=outcome, action_error=error, info=info)
        return Turn(observation=observation, action_error=error, info={"turn": self.turn_index})

    def _end_turn(self) -> Turn:
        """Check the turn that just ended as BFCL does, then show the next request (or finish)."""
        reference_calls = self.current_task.data["ground_truth"][self.turn_index]
        milestones = []
        expected_results: Counter[tuple[str, str]] = Counter()
        start = self._state_at_turn_start
        world, reference = self.current_world, self.current_reference
        agent_changed = start is None or not same_state(world.state(), start)
        if reference_calls:
            before = reference.snapshot()
            for source in reference_calls:
                name, arguments = reference.keyword_call(source)
                expected_results[name, reference.execute(name, arguments)] += 1
            check = TurnCheck(
                called=self.turn_calls > 0,
                state=not world.state_differences(reference),
                response=not (Counter(result for _, result in expected_results.elements()) - self._results),
                changed=before is None or not same_state(reference.state(), before),
                agent_changed=agent_changed,
                named_response=not (expected_results - self._named_results),
            )
            self._checks.append(check)
            if check.passed:
                milestones.append(f"turn_{self.turn_index}")
        elif agent_changed:
            self._changed_no_call_turns += 1
        needed = sum((self._turn_results & expected_results).values())
        self._turn_calls.append(TurnCalls(len(reference_calls), self.turn_calls, needed))
        self.turn_index += 1
        self.turn_calls = 0
        self._turn_steps = 0
        self._turn_results = Counter()
        turns = self.current_task.data["turns"]
        if self.turn_index < len(turns):
            self._begin_turn()
            request = "\n\n".join(str(m.get("content", "")) for m in turns[self.turn_index])
            return Turn(observation=request, milestones=milestones, info={"turn": self.turn_index})
        outcome = self._build_outcome(complete=True)
        passed = sum(c.passed for c in outcome.checks)
        report = f"Conversation over: {passed} of {outcome.checked_turns} checked turns pass BFCL's checks."
        info = {"turn": self.turn_index}
        return Turn(observation=report, done=True, outcome=outcome, milestones=milestones, info=info)

    def _build_outcome(self, *, complete: bool) -> MultiTurnOutcome:
        """The outcome so far; the turn in progress and the turns not played earn no call credit."""
        ground_truth = self.current_task.data["ground_truth"]
        played = len(self._turn_calls)
        rest = [TurnCalls(len(calls), 0, 0) for calls in ground_truth[played:]]
        if rest:
            rest[0] = TurnCalls(rest[0].expected, self.turn_calls, 0)
        return MultiTurnOutcome(
            actions=self.actions_taken,
            strict_actions=self._strict_actions,
            calls=self._calls,
            failed_calls=self._failed_calls,
            checks=tuple(self._checks),
            checked_turns=sum(1 for calls in ground_truth if calls),
            complete=complete,
            turn_calls=(*self._turn_calls, *rest),
            changed_no_call_turns=self._changed_no_call_turns,
        )

    def _outcome(self) -> tuple[Any, bool]:
        return self._build_outcome(complete=False), True

    def _is_success(self, outcome: MultiTurnOutcome, result: Any) -> bool:
        """BFCL's verdict: every turn played and passed."""
        return outcome.valid

    def milestone_names(self) -> tuple[str, ...]:
        if self.task is None:
            return ()
        return tuple(f"turn_{k}" for k, calls in enumerate(self.task.data["ground_truth"]) if calls)

    # ------------------------------------------------------------------ agents
    def sample_action(self, rng: np.random.Generator) -> str:
        """Plain text (1 in 3, ends the turn) or one call to an offered function with random arguments."""
        functions = list(self.task.data["functions"]) if self.task is not None else []
        if not functions or rng.random() < 1 / 3:
            return "Done."
        function = functions[int(rng.integers(len(functions)))]
        properties = list((function.get("parameters") or {}).get("properties") or {})
        arguments = {p: str(rng.choice(["a", "b", "1", "report.pdf"])) for p in properties if rng.random() < 0.5}
        return json.dumps({"name": function["name"], "arguments": arguments})

    def make_oracle(self) -> MultiTurnOracle:
        return MultiTurnOracle(self)

    def audit_profile(self) -> AuditProfile:
        """The multi-turn strategies of :mod:`rewardlab.envs.bfcl.audit`; ``"Done."`` finishes a turn."""
        from rewardlab.envs.bfcl.audit import multi_turn_profile

        return multi_turn_profile()
