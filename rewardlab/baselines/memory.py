"""Resident memory of a training run: the peak RSS of each phase, and freed heap handed back to the OS.

On CPU, torch takes tensor memory from the C allocator. glibc keeps what a phase freed in its heap
(a 135M-parameter update frees gigabytes of activations), so without help the RSS of a run only
ever grows: the rollouts after an update, and the update after an SFT warm start, sit on top of
the heap the previous phase left behind. :func:`release_memory` runs the garbage collector and
``malloc_trim(0)``, which returns every free page of the heap to the OS; the trainers call it
between phases. Within a phase, glibc raises its mmap threshold (up to 32 MiB) each time a large
block is freed, so later activations come from the heap and fragment it. :func:`mapped_heap` holds
the threshold low for a block (an update, an SFT step): every tensor over it gets its own mapping,
unmapped when freed (0.3 GB less peak in a SmolLM2-135M update on CPU, about 3% slower). Not for
generation: a decode step allocates a fresh KV cache per layer, and mapping each one cut sampling
from 80 to 51 tokens/s here, so after the block the threshold is back at 32 MiB.

Peaks: on Linux the kernel's high-water mark ``VmHWM`` (``/proc/self/status``) can be reset by
writing ``5`` to ``/proc/self/clear_refs``, so :class:`PhasePeaks` measures the peak of each phase
exactly (no sampling thread). Elsewhere, or where the reset is refused, a phase's peak is the
process's peak so far (``getrusage``), an upper bound.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import resource
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

GB = 1024**3
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(key: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_bytes() -> int:
    """The resident set size now (0 where ``/proc`` is absent)."""
    kib = _status_kib("VmRSS:")
    return 0 if kib is None else kib * 1024


def peak_rss_bytes() -> int:
    """The peak RSS since the last :func:`reset_peak_rss` (or the process start)."""
    kib = _status_kib("VmHWM:")
    if kib is not None:
        return kib * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB on Linux


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark to the current RSS; False where that is not possible."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold."""


@functools.cache
def _glibc(function: str) -> Callable[..., int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return getattr(ctypes.CDLL(name), function)
    except (OSError, AttributeError):  # not glibc (musl, macOS)
        return None


HEAP_THRESHOLD_KIB = 32 * 1024
"""The mmap threshold after a :func:`mapped_heap` block: 32 MiB, the ceiling of glibc's own adjustments."""


def _set_mmap_threshold(kib: int) -> bool:
    mallopt = _glibc("mallopt")
    return bool(mallopt is not None and mallopt(M_MMAP_THRESHOLD, kib * 1024))


@contextlib.contextmanager
def mapped_heap(threshold_kib: int) -> Iterator[bool]:
    """Process-wide, glibc only: within the block, allocations over ``threshold_kib`` KiB get their own
    memory mapping, given back to the OS when freed (``mallopt(M_MMAP_THRESHOLD)``); after it the
    threshold is :data:`HEAP_THRESHOLD_KIB`. Yields whether the setting took; ``0`` changes nothing."""
    if threshold_kib <= 0:
        yield False
        return
    took = _set_mmap_threshold(threshold_kib)
    try:
        yield took
    finally:
        if took:
            _set_mmap_threshold(HEAP_THRESHOLD_KIB)


def release_memory() -> None:
    """Collect garbage, then give the C heap's free pages back to the OS (glibc ``malloc_trim(0)``)."""
    gc.collect()
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim(0)


class PhasePeaks:
    """Peak RSS per named phase, in GB; a phase seen several times keeps its largest peak.

    Example::

        peaks = PhasePeaks()
        with peaks.phase("rollouts"):
            ...
        peaks.gb["rollouts"]
    """

    def __init__(self) -> None:
        self.gb: dict[str, float] = {}
        self.last_gb: dict[str, float] = {}

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Measure the peak RSS of the ``with`` block under ``name``."""
        reset_peak_rss()
        try:
            yield
        finally:
            peak = peak_rss_bytes() / GB
            self.last_gb[name] = peak
            self.gb[name] = max(peak, self.gb.get(name, 0.0))
