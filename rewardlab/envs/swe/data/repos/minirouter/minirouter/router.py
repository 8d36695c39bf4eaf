"""Routes: patterns like ``/users/<int:user_id>`` mapped to endpoints."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from minirouter.converters import CONVERTERS

_PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


class NotFound(LookupError):
    """No route matches the path."""


@dataclass
class Route:
    pattern: str
    endpoint: Any
    name: str
    regex: re.Pattern[str] = field(init=False)
    converters: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.converters = {}
        parts, last = [], 0
        for match in _PARAMETER.finditer(self.pattern):
            kind, name = match.group(1) or "str", match.group(2)
            converter = CONVERTERS[kind]
            self.converters[name] = converter
            parts.append(re.escape(self.pattern[last : match.start()]))
            parts.append(f"(?P<{name}>{converter.regex})")
            last = match.end()
        parts.append(re.escape(self.pattern[last:]))
        self.regex = re.compile("".join(parts))

    def build(self, params: dict[str, Any]) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(2)
            return self.converters[name].to_url(params[name])

        return _PARAMETER.sub(replace, self.pattern)


class Router:
    """Maps paths to endpoints.

    ``strict_slashes=False`` (the default) makes ``/users/`` match the route ``/users`` too.
    Route names must be unique.
    """

    def __init__(self, strict_slashes: bool = True):
        self.strict_slashes = strict_slashes
        self.routes: dict[str, Route] = {}

    def add(self, pattern: str, endpoint: Any, name: str | None = None) -> Route:
        route = Route(pattern, endpoint, name or getattr(endpoint, "__name__", pattern))
        self.routes[route.name] = route
        return route

    def match(self, path: str) -> tuple[Any, dict[str, Any]]:
        """The endpoint for ``path`` and its converted parameters; raises :class:`NotFound`."""
        candidates = [path]
        if not self.strict_slashes and path != "/" and path.endswith("/"):
            candidates.append(path.rstrip("/"))
        for candidate in candidates:
            for route in self.routes.values():
                found = route.regex.fullmatch(candidate)
                if found:
                    params = {k: route.converters[k].to_python(v) for k, v in found.groupdict().items()}
                    return route.endpoint, params
        raise NotFound(path)

    def url_for(self, route: str, /, **params: Any) -> str:
        """The path of the route named ``route`` with ``params`` filled in."""
        return self.routes[route].build(params)
