"""The installed ``bfcl-eval`` package, used without importing its dependency tree.

bfcl-eval's distribution requires ``numpy==1.26.4``, pandas, openai, anthropic ... for its model
handlers and its checker; RewardLab needs only its data files, the mapping of
``bfcl_eval/constants/executable_backend_config.py`` and the pure-Python backend classes of
``bfcl_eval/eval_checker/multi_turn_eval/func_source_code/``. So the package is located with
:func:`importlib.util.find_spec` (which runs no ``__init__``), data is read from its ``data``
folder, and those modules are loaded from their files by :func:`load_module`, with no package
``__init__`` run. That works beside NumPy 2 with ``pip install --no-deps bfcl-eval``; the one
third-party package the backends of ``multi_turn_base`` import is ``mpmath`` (``MathAPI``).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

from rewardlab.core.pysource import parse
from rewardlab.errors import MissingDependencyError

PACKAGE = "bfcl_eval"
"""The import name of ``bfcl-eval``."""

EXTRA = "bfcl"
"""The RewardLab extra that installs ``bfcl-eval``."""

BACKEND_CONFIG = "bfcl_eval.constants.executable_backend_config"
"""bfcl-eval's module mapping each API class to its function docs and its backend module."""

_LOCK = threading.RLock()  # envs of `rewardlab serve` sessions reset on threads of their own


def package_dir() -> Path:
    """The folder of the installed ``bfcl_eval`` package, found without importing it.

    Raises:
        MissingDependencyError: when ``bfcl-eval`` is not installed (extra ``bfcl``).
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"{PACKAGE!r} is not installed; install it with: pip install 'rewardlab[{EXTRA}]'")
    return Path(next(iter(spec.submodule_search_locations)))


def _module_file(name: str) -> Path:
    """``<package_dir>/a/b.py`` for ``bfcl_eval.a.b``."""
    return package_dir().joinpath(*name.split(".")[1:]).with_suffix(".py")


def _package_imports(path: Path) -> list[str]:
    """The ``bfcl_eval.<module>`` names of the top-level ``from ... import`` statements of ``path``
    whose module is a file (a package, or an import inside a function, is left to Python's import)."""
    tree = parse(path.read_bytes(), filename=str(path))
    names = [
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and node.module is not None
        and node.module.startswith(PACKAGE + ".")
    ]
    return [name for name in names if _module_file(name).is_file()]


def load_module(name: str) -> ModuleType:
    """bfcl-eval's module ``name`` (``bfcl_eval.<dotted path>``), executed from its file, no package ``__init__`` run.

    It is registered in :data:`sys.modules` under its own name, so a module imported already (by
    bfcl-eval's own checker, say) is returned as is and bfcl-eval's code later gets this one: its
    classes stay one set of objects in a process. The bfcl-eval modules it imports at top level
    (``from bfcl_eval.<module> import ...``) are loaded the same way first.

    Raises:
        MissingDependencyError: when bfcl-eval, the module, or a package the module imports is not installed.
    """
    if not name.startswith(PACKAGE + "."):
        raise ValueError(f"not a module of {PACKAGE}: {name!r}")
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        path = _module_file(name)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise MissingDependencyError(
                f"the installed bfcl-eval has no module {name!r}; upgrade it: pip install -U 'rewardlab[{EXTRA}]'"
            )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before its imports run, as Python's import does, so that a cycle ends
        try:
            for dependency in _package_imports(path):
                load_module(dependency)
            spec.loader.exec_module(module)
        except BaseException as exc:
            del sys.modules[name]
            if isinstance(exc, ModuleNotFoundError) and exc.name:
                raise MissingDependencyError(
                    f"bfcl-eval's {name!r} imports {exc.name!r}, which is not installed; install it with: "
                    f"pip install 'rewardlab[{EXTRA}]' (beside a --no-deps bfcl-eval: pip install {exc.name})"
                ) from exc
            raise
        return module
