"""SWE's equivalent and defective rewrites of the gold patch (the audit's second and third batteries).

Equivalent: each honest variant of :mod:`rewardlab.envs.swe.variants` (reformatted, locals renamed,
logic moved into a helper, commented, standard-library code added), written with ``create``
commands and submitted. Each must resolve the task with full reward.

Defective (one defect each, in a Python source file of the gold patch):

- ``hunk_dropped``: one hunk of the gold patch left out (tasks whose patch has two or more Python
  hunks);
- ``line_dropped``: one line the gold patch adds removed, chosen so that the file still parses and
  its code differs from the gold file's (a behavioural defect, not a syntax error): the last such
  line of the first changed file.

Both must leave the task unresolved. ``defect_delta`` is 0.2: a defect costs at least ``resolved``'s share
of the reward (1/5 with the default equal weights) and more as it breaks more FAIL_TO_PASS tests; SWE's
reward keeps partial credit for a partial fix on purpose (``tests``, and ``regression``, ``applies`` and
``localization`` scaled by the fixed fraction), so a defect that breaks one of thirteen tests loses ~0.26.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Mapping

from rewardlab.audit.rewrite import Rewrite, RewriteContext, defective, equivalent
from rewardlab.envs.swe.oracle import gold_actions
from rewardlab.envs.swe.patch import apply_patch, changed_files
from rewardlab.envs.swe.tasks import base_tree
from rewardlab.envs.swe.variants import REWRITES, honest_variants

DEFECT_DELTA = 0.2
"""The least reward a defect must cost on average: ``resolved``'s share with equal weights (module docstring)."""


def _trees(context: RewriteContext) -> tuple[dict[str, str], dict[str, str], list[str]]:
    data = context.env.task.data
    base = base_tree(data)
    return base, apply_patch(base, data["patch"]), changed_files(data["patch"])


def _submit(base: Mapping[str, str], tree: Mapping[str, str]) -> list[str]:
    """``create`` every file that differs from the base, then ``submit``."""
    return [f"create {path}\n{text}" for path, text in tree.items() if base.get(path) != text] + ["submit"]


def _variant(name: str) -> Rewrite:
    def apply(context: RewriteContext) -> list[str] | None:
        base, gold, changed = _trees(context)
        tree = honest_variants(base, gold, changed)[name]
        return None if tree == gold else _submit(base, tree)

    return equivalent(name, f"the gold patch as honest variant {name!r} (rewardlab.envs.swe.variants)")(apply)


EQUIVALENTS: tuple[Rewrite, ...] = tuple(_variant(name) for name in REWRITES)


def _is_python_source(path: str) -> bool:
    return path.endswith(".py") and not path.split("/")[-1].startswith("test")


@defective("hunk_dropped", "the gold patch with one of its Python hunks left out")
def hunk_dropped(context: RewriteContext) -> list[str] | None:
    actions = gold_actions(context.env.task.data["patch"])
    edits = [i for i, a in enumerate(actions) if a.startswith(("edit ", "create ")) and _is_python_source(a.split()[1])]
    if len(edits) < 2:
        return None
    return [a for i, a in enumerate(actions) if i != edits[0]]


def _without_one_added_line(before: str, after: str) -> str | None:
    """``after`` with its last added line removed such that it still parses and its AST differs."""
    lines = after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(a=before.splitlines(keepends=True), b=lines, autojunk=False)
    added = [j for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("insert", "replace") for j in range(j1, j2)]
    try:
        gold_code = ast.dump(ast.parse(after))
    except SyntaxError:
        return None
    for index in reversed(added):
        if not lines[index].strip() or lines[index].lstrip().startswith("#"):
            continue
        candidate = "".join(lines[:index] + lines[index + 1 :])
        try:
            code = ast.dump(ast.parse(candidate))
        except SyntaxError:
            continue
        if code != gold_code:
            return candidate
    return None


@defective("line_dropped", "the gold patch with one added line removed (still parses, different code)")
def line_dropped(context: RewriteContext) -> list[str] | None:
    base, gold, changed = _trees(context)
    for path in changed:
        if _is_python_source(path) and path in gold:
            broken = _without_one_added_line(base.get(path, ""), gold[path])
            if broken is not None:
                return _submit(base, {**gold, path: broken})
    return None


DEFECTS: tuple[Rewrite, ...] = (hunk_dropped, line_dropped)
