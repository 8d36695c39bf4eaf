"""BFCL's AST checker, compiled once per task and reporting every error, not just the first.

This re-implements ``bfcl_eval.eval_checker.ast_eval.ast_checker`` for Python-language
categories: its verdict is the same (``tests/envs/bfcl/test_bfcl_agreement.py`` checks this against
the real checker), but

- the possible answers are compiled once per task into :class:`CallSpec` objects (standardised
  strings, hashable option sets, the "type of the possible answer" used by BFCL's variable rule),
  so checking an answer does no regex work on the answers and no repeated lookups, and
- every call and parameter is checked, and each error is recorded under one of BFCL's error
  kinds, so an env can give partial credit per kind while the verdict stays BFCL's.

BFCL's rules, as implemented by its checker (and mirrored here, quirks included):

- The number of calls must equal the number of expected calls (``wrong_count``).
- Expected calls are matched to the output in order: each expected call takes the first
  still-unmatched output call that passes every check (``parallel`` categories accept any
  order; with one expected call this is the ``simple``/``multiple`` rule).
- A call passes when its function name is the expected one (``wrong_func_name``), every
  required parameter is present (``missing_required``), every given parameter is documented
  and has possible answers (``unexpected_param``), has the documented type (``type_error``;
  an integer is accepted for a ``float``; a value of the possible answers' own type is accepted
  as a "variable"), and has one of the possible values (``value_error``; strings and strings in
  lists are compared after removing ``" ,./-_*^"``, lower-casing and turning ``'`` into ``"``),
  and no parameter without ``""`` among its possible answers is left out (``missing_optional``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
"""BFCL's Python type names (``PYTHON_TYPE_MAPPING``) and the JSON value types they accept."""

NESTED_TYPES = frozenset({"array", "tuple"})
"""Types whose items BFCL checks one level deep."""

ERROR_KINDS: tuple[str, ...] = (
    "wrong_count",
    "wrong_func_name",
    "missing_required",
    "unexpected_param",
    "missing_optional",
    "type_error",
    "value_error",
)
"""BFCL's error kinds, in the order its checker tests them."""

_STANDARDIZE_DROP = str.maketrans("", "", " ,./-_*^")


def standardize_string(text: str) -> str:
    """BFCL's ``standardize_string``: drop ``" ,./-_*^"``, lower-case, ``'`` -> ``"``.

    Example:
        >>> standardize_string("New York, NY")
        'newyorkny'
    """
    return text.translate(_STANDARDIZE_DROP).lower().replace("'", '"')


def _standardize_items(option: Any) -> list[Any] | None:
    """A possible list answer with its strings standardised, as BFCL's ``list_checker`` builds it."""
    if not isinstance(option, (list, tuple, str, dict)):
        return None
    return [standardize_string(item) if type(item) is str else item for item in option]


def _first_answer_type(options: Sequence[Any]) -> type | None:
    """BFCL's ``get_possible_answer_type``: the type of the first option that is not ``""``."""
    for option in options:
        if option != "":
            return type(option)
    return None


_HASHABLE_TYPES = frozenset({str, int, float, bool, type(None)})


def _hashable(value: Any) -> bool:
    if type(value) in _HASHABLE_TYPES:
        return True
    try:
        hash(value)
    except TypeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class DictAnswer:
    """One possible dictionary value: ``{key: standardised options}`` and its keys that may be omitted."""

    options: dict[str, list[Any]]
    required: frozenset[str]

    @classmethod
    def compile(cls, answer: Mapping[str, Any]) -> DictAnswer:
        options = {
            key: [standardize_string(o) if type(o) is str else o for o in values] for key, values in answer.items()
        }
        required = frozenset(key for key, values in answer.items() if "" not in values)
        return cls(options, required)

    def matches(self, value: Any) -> bool:
        """BFCL's ``dict_checker`` for this one possible answer."""
        if type(value) is not dict:
            return False
        for key, item in value.items():
            allowed = self.options.get(key)
            if allowed is None:
                return False
            if type(item) is str:
                item = standardize_string(item)
            if item not in allowed:
                return False
        return self.required.issubset(value)


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """One documented parameter with its possible answers, compiled for checking.

    Attributes:
        name: The parameter name.
        type_name: BFCL's type name from the function description (``"string"``, ``"array"`` ...).
        expected: The Python type of a correct value, or None when BFCL does not know the type.
        nested: The item type of an ``array``/``tuple``, else None.
        options: The possible answers as given (``""`` means "may be omitted").
        optional: ``""`` is among the options.
        answer_type: The type of the first non-empty option (BFCL's "variable" rule).
        value_set: The hashable options, for fast membership.
        strings: The standardised string options.
        lists: The possible list answers with standardised strings.
        dicts: The possible dictionary answers (for ``dict`` values).
        dict_lists: The possible lists of dictionaries (for ``array`` of ``dict``), None for ``""``.
        inner_answer_types: Per option, for BFCL's item check of arrays: False when the option is
            not a list (any items pass), else the type of its first non-empty item (or None).
        scalar: ``str``/``int``/``float``/``bool`` when a value of exactly that type needs only a
            membership test (the type is expected and is not a BFCL "variable"), else None.
    """

    name: str
    type_name: str
    expected: type | None
    nested: type | None
    options: tuple[Any, ...]
    optional: bool
    answer_type: type | None
    value_set: frozenset[Any]
    strings: frozenset[str]
    lists: tuple[list[Any], ...]
    dicts: tuple[DictAnswer, ...]
    dict_lists: tuple[tuple[DictAnswer | None, ...] | None, ...]
    inner_answer_types: tuple[type | None | bool, ...]
    scalar: type | None

    @classmethod
    def compile(cls, name: str, details: Mapping[str, Any] | None, options: Sequence[Any]) -> ParamSpec:
        options = tuple(options)
        type_name = str(details.get("type")) if isinstance(details, Mapping) else ""
        expected = PYTHON_TYPES.get(type_name)
        nested = None
        if type_name in NESTED_TYPES:
            items = details.get("items") if isinstance(details, Mapping) else None
            nested = PYTHON_TYPES.get(str(items.get("type"))) if isinstance(items, Mapping) else None
            if nested is None:
                expected = None  # BFCL cannot check an array without a known item type
        dicts = tuple(DictAnswer.compile(o) for o in options if type(o) is dict)
        dict_lists: list[tuple[DictAnswer | None, ...] | None] = []
        for option in options:
            if option == "":
                dict_lists.append(None)
            elif type(option) is list:
                dict_lists.append(tuple(DictAnswer.compile(d) if type(d) is dict else None for d in option))
        inner = tuple(_first_answer_type(o) if type(o) is list else False for o in options)
        answer_type = _first_answer_type(options)
        scalar = expected if expected in (str, int, float, bool) and answer_type in (expected, None) else None
        return cls(
            name=name,
            type_name=type_name,
            expected=expected,
            nested=nested,
            options=options,
            optional="" in options,
            answer_type=answer_type,
            value_set=frozenset(o for o in options if _hashable(o)),
            strings=frozenset(standardize_string(o) for o in options if type(o) is str),
            lists=tuple(s for s in map(_standardize_items, options) if s is not None),
            dicts=dicts,
            dict_lists=tuple(dict_lists),
            inner_answer_types=inner,
            scalar=scalar,
        )

    # ------------------------------------------------------------------ checks
    def check(self, value: Any) -> str | None:
        """``None`` when ``value`` passes, else ``"type_error"`` or ``"value_error"``."""
        if type(value) is self.scalar:  # the common case, decided without the general rules below
            if type(value) is str:  # self.scalar is str
                return None if standardize_string(value) in self.strings else "value_error"
            return None if value in self.value_set else "value_error"
        expected = self.expected
        if expected is None:
            return "type_error"
        if expected is float and type(value) is int:
            try:
                value = float(value)
            except OverflowError:
                return "type_error"
        answer_type = self.answer_type
        is_variable = answer_type is not None and answer_type is not expected
        value_type = type(value)
        if value_type is expected:
            if self.nested is not None and not self._items_ok(value):
                return "type_error"
        elif answer_type is not None and value_type is answer_type:
            is_variable = True
        else:
            return "type_error"
        if not is_variable:
            if expected is dict:
                return None if any(d.matches(value) for d in self.dicts) else "value_error"
            if expected is list and self.nested is dict:
                return None if self._dict_list_ok(value) else "value_error"
            if expected is str:
                return None if standardize_string(value) in self.strings else "value_error"
            if expected is list:
                standard = [standardize_string(v) if type(v) is str else v for v in value]
                return None if standard in self.lists else "value_error"
        if _hashable(value):
            return None if value in self.value_set else "value_error"
        return None if value in self.options else "value_error"

    def _items_ok(self, value: list[Any]) -> bool:
        """BFCL's one-level item check: some option is not a list, or every item fits a list option."""
        nested = self.nested
        for inner_type in self.inner_answer_types:
            if inner_type is False:
                return True
            if all(type(v) is nested or (inner_type is not None and type(v) is inner_type) for v in value):
                return True
        return False

    def _dict_list_ok(self, value: list[Any]) -> bool:
        """BFCL's ``list_dict_checker``: same length and each dictionary matches in order."""
        for answer in self.dict_lists:
            if answer is None:
                if not value:
                    return True
                continue
            if len(answer) == len(value) and all(
                d is not None and d.matches(v) for d, v in zip(answer, value, strict=True)
            ):
                return True
        return False


Error = tuple[str, str]
"""One error of a call: ``(kind, subject)``, the subject being a parameter or function name."""

NO_ERRORS: tuple[Error, ...] = ()
NO_CALL: Error = ("wrong_func_name", "")
"""The error of an expected call that no output call answers."""


@dataclass(frozen=True, slots=True)
class CallSpec:
    """One expected call: the function's documentation and the possible answers, compiled.

    Attributes:
        name: The function name the output must use (from the function description).
        properties: The documented parameter names.
        required: The parameters the description marks required.
        params: Compiled possible answers, for parameters both documented and answered.
        must_give: Answered parameters, not required, without ``""`` among their options.
        answer: The raw possible answers ``{param: [options]}`` (for the oracle).
    """

    name: str
    properties: frozenset[str]
    required: tuple[str, ...]
    params: dict[str, ParamSpec]
    must_give: tuple[str, ...]
    answer: dict[str, list[Any]]

    @classmethod
    def compile(
        cls, description: Mapping[str, Any] | None, answer: Mapping[str, Sequence[Any]], *, underscores: bool = False
    ) -> CallSpec:
        """``underscores``: expect the name with ``.`` replaced by ``_`` (BFCL's ``underscore_to_dot``
        models, whose APIs do not allow dots in tool names)."""
        description = description or {}
        parameters = description.get("parameters") or {}
        properties = parameters.get("properties") or {}
        required = tuple(parameters.get("required") or ())
        params = {
            name: ParamSpec.compile(name, properties[name], options)
            for name, options in answer.items()
            if name in properties
        }
        return cls(
            name=tool_name(str(description.get("name", "")), underscores=underscores),
            properties=frozenset(properties),
            required=required,
            params=params,
            must_give=tuple(name for name, options in answer.items() if "" not in options and name not in required),
            answer={name: list(options) for name, options in answer.items()},
        )

    def errors(self, name: str, arguments: Mapping[str, Any]) -> tuple[Error, ...]:
        """Every BFCL error of the call ``name(**arguments)`` against this one; ``()`` when it passes."""
        if name != self.name:
            return (("wrong_func_name", name),)
        errors: list[Error] | None = None
        for param in self.required:
            if param not in arguments:
                errors = errors or []
                errors.append(("missing_required", param))
        params = self.params
        for param, value in arguments.items():
            spec = params.get(param)
            kind = "unexpected_param" if spec is None else spec.check(value)
            if kind is not None:
                errors = errors or []
                errors.append((kind, param))
        for param in self.must_give:
            if param not in arguments:
                errors = errors or []
                errors.append(("missing_optional", param))
        return tuple(errors) if errors else NO_ERRORS

    @property
    def needed(self) -> tuple[str, ...]:
        """The parameters the request determines: the required ones and those whose possible
        answers do not allow leaving them out."""
        return (*self.required, *(p for p in self.must_give if p not in self.required))

    def value_share(self, errors: Sequence[Error]) -> float:
        """The share of the call's values that are right, for partial credit (not BFCL's rule).

        ``(needed parameters given a right value) / (needed parameters + other parameters given
        with an error)`` (:attr:`needed`); 1 when that size is 0. Parameters that
        may be left out count only when given wrongly, so giving every optional parameter its
        "omitted" value earns nothing. Computed from the errors of :meth:`errors`.

        Example:
            >>> spec = CallSpec.compile(
            ...     {"name": "f", "parameters": {"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            ...      "required": ["a", "b"]}},
            ...     {"a": [1], "b": [2]},
            ... )
            >>> spec.value_share(spec.errors("f", {"a": 1, "b": 3})), spec.value_share(spec.errors("f", {"a": 1}))
            (0.5, 0.5)
        """
        needed = set(self.needed)
        wrong = {subject for kind, subject in errors if kind != "wrong_func_name"}
        size = len(needed) + len(wrong - needed)
        return 1.0 if size == 0 else len(needed - wrong) / size

    def explain(self, error: Error, arguments: Mapping[str, Any]) -> str:
        """A one-line message for an error of :meth:`errors`."""
        kind, subject = error
        if error == NO_CALL:
            return f"no call to {self.name!r}"
        if kind == "wrong_func_name":
            return f"expected a call to {self.name!r}, got {subject!r}"
        if kind == "missing_required":
            return f"{self.name}: missing required parameter {subject!r}"
        if kind == "missing_optional":
            return f"{self.name}: parameter {subject!r} must be given for this request"
        if kind == "unexpected_param":
            return f"{self.name}: unexpected parameter {subject!r}"
        value = arguments.get(subject)
        if kind == "type_error":
            spec = self.params[subject]
            return f"{self.name}: parameter {subject!r} must be of type {spec.type_name}, got {_json_type(value)}"
        return f"{self.name}: parameter {subject!r} has a wrong value: {_short(value)}"


class Verdict(NamedTuple):
    """The result of checking a whole answer.

    Attributes:
        valid: BFCL's verdict.
        expected: Number of expected calls.
        given: Number of calls in the answer.
        pairs: For each expected call, the errors of the output call paired with it (None if none).
        problems: What went wrong, as ``(expected call, error, arguments)``; see :attr:`errors`.
    """

    valid: bool
    expected: int
    given: int
    pairs: tuple[tuple[Error, ...] | None, ...]
    problems: tuple[tuple[CallSpec | None, Error, Mapping[str, Any]], ...] = ()

    @property
    def errors(self) -> list[tuple[str, str]]:
        """Every error as ``(kind, message)`` (kinds from :data:`ERROR_KINDS`), built on demand."""
        messages = []
        for spec, error, arguments in self.problems:
            kind, subject = error
            if spec is None:
                messages.append((kind, subject))
            else:
                messages.append((kind, spec.explain(error, arguments)))
        return messages


def tool_name(name: str, *, underscores: bool) -> str:
    """A function name as the agent must write it: as BFCL writes it, or with ``.`` -> ``_``.

    Example:
        >>> tool_name("math.factorial", underscores=True)
        'math_factorial'
    """
    return name.replace(".", "_") if underscores else name


def expected_calls(
    functions: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]], *, simple: bool
) -> list[tuple[Mapping[str, Any] | None, Mapping[str, Sequence[Any]]]]:
    """``(function description, possible answers)`` per expected call, found as BFCL finds them.

    ``simple``: the category is neither ``parallel`` nor ``multiple``, where BFCL checks against
    the first function description whatever the answer's name; otherwise the first description
    with the answer's name (None if there is none).
    """
    by_name: dict[Any, Mapping[str, Any]] = {}
    for function in functions:
        by_name.setdefault(function.get("name"), function)
    pairs = []
    for expected in ground_truth:
        for name, answer in expected.items():
            pairs.append((functions[0] if simple and functions else by_name.get(name), answer))
    return pairs


def satisfiable(
    functions: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]], *, simple: bool
) -> bool:
    """Whether any answer can pass BFCL's checker. It cannot when an expected call's function is
    not described, a parameter has no possible answer (``[]``), a parameter that must be given is
    not documented (giving it is "unexpected"), or a required parameter has no possible answers."""
    for description, answer in expected_calls(functions, ground_truth, simple=simple):
        if description is None:
            return False
        parameters = description.get("parameters") or {}
        properties = parameters.get("properties") or {}
        for param, options in answer.items():
            if not options or (param not in properties and "" not in options):
                return False
        if any(param not in answer for param in parameters.get("required") or ()):
            return False
    return True


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """All expected calls of one task, compiled; ``check`` gives BFCL's verdict and every error."""

    calls: tuple[CallSpec, ...]

    @classmethod
    def compile(
        cls,
        functions: Sequence[Mapping[str, Any]],
        ground_truth: Sequence[Mapping[str, Any]],
        *,
        simple: bool,
        underscores: bool = False,
    ) -> AnswerSpec:
        """Compile a BFCL entry (``simple``: see :func:`expected_calls`; ``underscores``: see
        :meth:`CallSpec.compile`)."""
        pairs = expected_calls(functions, ground_truth, simple=simple)
        return cls(tuple(CallSpec.compile(d, a, underscores=underscores) for d, a in pairs))

    def check(self, calls: Sequence[tuple[str, Mapping[str, Any]]]) -> Verdict:
        """Check ``[(name, arguments), ...]``: BFCL's verdict plus a best-effort pairing for partial credit.

        First pass (BFCL's): each expected call, in order, takes the first unmatched output call
        that passes. Second pass (ours, for credit only): expected calls left over take the
        remaining output call with the same name and the fewest errors.
        """
        expected, given = len(self.calls), len(calls)
        if expected == 1 and given == 1:  # most tasks: no matching to do
            spec = self.calls[0]
            found = spec.errors(*calls[0])
            if not found:
                return _VALID_SINGLE
            if found[0][0] == "wrong_func_name":
                return Verdict(False, 1, 1, (None,), ((spec, NO_CALL, {}),))
            return Verdict(False, 1, 1, (found,), tuple((spec, error, calls[0][1]) for error in found))
        pairs: list[tuple[Error, ...] | None] = [None] * expected
        free = list(range(given))
        failed: dict[tuple[int, int], tuple[Error, ...]] = {}
        for i, spec in enumerate(self.calls):
            for j in free:
                found = spec.errors(*calls[j])
                if not found:
                    pairs[i] = NO_ERRORS
                    free.remove(j)
                    break
                failed[i, j] = found
        if expected == given and None not in pairs:
            return Verdict(True, expected, given, tuple(pairs))
        problems: list[tuple[CallSpec | None, Error, Mapping[str, Any]]] = []
        if expected != given:
            problems.append((None, ("wrong_count", f"expected {expected} call(s), got {given}"), {}))
        for i, spec in enumerate(self.calls):
            if pairs[i] is not None:
                continue
            best: tuple[int, tuple[Error, ...]] | None = None
            for j in free:
                found = failed.get((i, j)) or spec.errors(*calls[j])
                if found[0][0] != "wrong_func_name" and (best is None or len(found) < len(best[1])):
                    best = (j, found)
            if best is None:
                problems.append((spec, NO_CALL, {}))
                continue
            free.remove(best[0])
            pairs[i] = best[1]
            arguments = calls[best[0]][1]
            problems.extend((spec, error, arguments) for error in best[1])
        return Verdict(False, expected, given, tuple(pairs), tuple(problems))


_VALID_SINGLE = Verdict(True, 1, 1, (NO_ERRORS,))


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "float"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


_SHORT = re.compile(r"\s+")


def _short(value: Any, limit: int = 60) -> str:
    text = _SHORT.sub(" ", repr(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."
