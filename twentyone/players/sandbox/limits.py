"""The limits a sandboxed strategy runs under, and the one range check for every time limit."""

from __future__ import annotations

import ctypes
import math
import os
import signal
from dataclasses import dataclass

from twentyone.errors import ConfigError

__all__ = ["Limits", "check_timeout", "die_with_parent", "MAX_SECONDS", "MAX_MEMORY_BYTES",
           "MIN_MEMORY_BYTES"]

#: The longest time limit accepted anywhere (seconds).
MAX_SECONDS = 3600.0
#: The largest memory limit (RLIMIT_AS) any box runs under: every match's and every judge test's.  The build
#: refuses a program whose static memory is over it (players/c/build.py ``check_static_memory``), so a cached
#: build holds for every run; a run with a lower limit is held by the box itself (tw_confine.c).
MAX_MEMORY_BYTES = 1 << 30
#: The smallest: a Python box's interpreter has about 21 MiB of address space mapped when it confines itself (a C
#: box about 3 MiB), and a box whose address space is over its limit then does not start (tw_confine.c).
MIN_MEMORY_BYTES = 64 << 20
#: A decision's wall-clock backstop, as a multiple of its CPU limit, unless configured.
WALL_FACTOR = 10.0


def die_with_parent(parent: int) -> None:
    """Be killed when the parent process ``parent`` ends (and leave at once if it already has).

    Every process the tool starts does this (pool workers, the compiler; a box does it in C), so a
    ``kill -9`` of the command leaves nothing running.
    """
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(0)


def check_timeout(what: str, seconds: float) -> float:
    """Return ``seconds``, or raise ConfigError naming ``what`` if it is not in (0, 3600]."""
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise ConfigError(f"{what} out of range: {seconds:g} (0 .. 3600 seconds)")
    return float(seconds)


@dataclass(frozen=True)
class Limits:
    """The limits a sandboxed strategy runs under; built once (``for_timeouts``) and carried in jobs."""

    #: CPU seconds a strategy may use for one decision (counted by the child's own CPU time).
    decision_timeout: float = 1.0
    match_timeout: float = 60.0
    #: Wall-clock seconds a decision may take at most, against sleeping and blocking; 0: 10x the CPU limit.
    decision_wall_timeout: float = 0.0
    cpu_seconds: int = 60
    memory_bytes: int = MAX_MEMORY_BYTES
    output_bytes: int = 1 << 20
    open_files: int = 32
    #: Run the engine and the strategy's child on one CPU: a request then costs one context switch
    #: (about 10 us here) instead of a cross-CPU wake-up (about 50 us on this VM).  Zygotes, spare
    #: children and finished children use the other CPUs.
    pin_cpu: bool = True

    def __post_init__(self) -> None:
        check_timeout("decision_timeout", self.decision_timeout)
        check_timeout("match_timeout", self.match_timeout)
        if self.decision_wall_timeout:
            check_timeout("decision_wall_timeout", self.decision_wall_timeout)
        if not MIN_MEMORY_BYTES <= self.memory_bytes <= MAX_MEMORY_BYTES:
            raise ConfigError(f"memory limit out of range: {self.memory_bytes} bytes "
                              f"({MIN_MEMORY_BYTES >> 20} .. {MAX_MEMORY_BYTES >> 20} MiB)")

    def wall_timeout(self) -> float:
        """The wall-clock backstop of a decision: as configured, or 10 times its CPU limit."""
        return self.decision_wall_timeout or WALL_FACTOR * self.decision_timeout

    @classmethod
    def for_timeouts(cls, decision: float, match: float, wall: float = 0.0) -> Limits:
        """The limits for a decision's CPU time, a match's wall-clock time and a decision's wall-clock backstop
        (0: 10x the CPU limit); the match's CPU limit is its wall-clock limit plus one second."""
        check_timeout("--decision-timeout", decision)
        check_timeout("--match-timeout", match)
        if wall:
            check_timeout("--decision-wall-timeout", wall)
        return cls(decision_timeout=decision, match_timeout=match, decision_wall_timeout=wall,
                   cpu_seconds=max(1, int(match) + 1))
