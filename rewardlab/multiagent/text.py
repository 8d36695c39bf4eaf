"""Text observations for PettingZoo envs."""

from __future__ import annotations


class TextObservation(str):
    """A ``str`` that also carries ``dtype``, as PettingZoo's ``api_test`` compares every
    observation's ``dtype`` with its space's (``str`` for :class:`gymnasium.spaces.Text`).
    It is a plain string in every other respect.

    Example:
        >>> obs = TextObservation("hello")
        >>> obs == "hello", obs.dtype is str
        (True, True)
    """

    __slots__ = ()
    dtype = str
