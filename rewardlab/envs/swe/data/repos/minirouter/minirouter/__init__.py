"""minirouter: URL routing with typed parameters."""

from minirouter.converters import CONVERTERS
from minirouter.router import NotFound, Router

__all__ = ["CONVERTERS", "NotFound", "Router"]
