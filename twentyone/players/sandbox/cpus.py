"""Where the engine and its sandboxed workers run: the engine pinned to one CPU, the rest elsewhere.

A request to a strategy's child then costs one context switch on the engine's CPU (about 10 us here)
instead of a cross-CPU wake-up (about 50 us on this VM); spare boxes (starting for the next match) and
finished ones use the other CPUs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["engine_cpu", "away_cpus", "allowed_cpus", "release", "borrowed"]

_PINNED: int | None = None
_AWAY: set[int] = set()
#: The CPUs this process could use before ``engine_cpu`` pinned it (None while it is not pinned).
_ALLOWED: set[int] | None = None


def engine_cpu() -> int:
    """Pin this (engine) process to one CPU, once, and return it; children follow it there.

    The engine also switches to SCHED_BATCH, which keeps a child's reply from preempting the child:
    a child that answers ``show`` and goes on to the next ``bet`` then finishes both before the
    engine runs again, one round trip instead of two.  ``TWENTYONE_CPU`` chooses the CPU (a grading
    pool gives each worker its own).
    """
    global _PINNED, _AWAY, _ALLOWED
    if _PINNED is None:
        _ALLOWED = os.sched_getaffinity(0)
        cpus = sorted(_ALLOWED)
        cpu = int(os.environ.get("TWENTYONE_CPU", cpus[os.getpid() % len(cpus)]))
        if cpu not in cpus:
            cpu = cpus[0]
        os.sched_setaffinity(0, {cpu})
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        except (AttributeError, OSError):
            pass
        _PINNED = cpu
        _AWAY = {c for c in cpus if c != cpu}
    return _PINNED


def away_cpus() -> set[int]:
    """The CPUs other than the engine's (empty on one CPU, or before ``engine_cpu``)."""
    return set(_AWAY)


def allowed_cpus() -> set[int]:
    """The CPUs this process may use, as before ``engine_cpu`` pinned it to one of them."""
    return set(_ALLOWED) if _ALLOWED is not None else os.sched_getaffinity(0)


def release(cpus: set[int] | None = None) -> None:
    """Undo ``engine_cpu`` in a process that inherited it: a worker forked (or spawned) by a process that had
    played a sandboxed match is otherwise held on its parent's one CPU, with its parent's choice of CPU.

    The process may use ``cpus`` again (default: the CPUs its parent had before pinning, where known), under
    the normal scheduling policy; its next ``engine_cpu`` chooses afresh (``TWENTYONE_CPU``).
    """
    global _PINNED, _AWAY, _ALLOWED
    wanted = set(cpus) if cpus else _ALLOWED
    if wanted:
        try:
            os.sched_setaffinity(0, wanted)
        except OSError:
            pass
    if _PINNED is not None:
        try:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        except (AttributeError, OSError):
            pass
    _PINNED, _AWAY, _ALLOWED = None, set(), None


@contextmanager
def borrowed() -> Iterator[None]:
    """Run the body as an engine may (``engine_cpu`` pins this process to one CPU), then give this process back
    every CPU and its scheduling policy if it was not pinned before: a grading process that replays a time-out
    alone must not stay on one CPU for the rest of the run (its judging, its reports and the chart workers it
    forks would share one core while the other idles)."""
    was = _PINNED
    try:
        yield
    finally:
        if was is None and _PINNED is not None:
            release()
