"""The sandbox's watchdog: one thread per engine process that looks at every sandboxed set's call in flight.

``client.SandboxFunctionSet`` reads a box's reply with a plain blocking read; this thread, every ``box.SLICE``,
asks each set it watches to look at its box (``_look``): a box blocked or past its CPU limit is ended there, so
that the read meets its end.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from typing import Protocol

from twentyone.players.sandbox.box import SLICE, Box

__all__ = ["WATCHDOG", "Watchdog"]


class Watched(Protocol):
    """What the watchdog looks at: a sandboxed set (``client.SandboxFunctionSet``)."""

    _box: Box | None
    _retired: list[Box]

    def _look(self, now: float) -> None:
        """End the box if its call in flight is blocked or past its limit."""


class Watchdog:
    """One thread per process that looks, every slice, at the calls in flight of every sandboxed set (``_look``):
    the engine's thread reads a reply with a plain blocking read (two system calls a round trip, not four)."""

    def __init__(self) -> None:
        self._sets: weakref.WeakSet[Watched] = weakref.WeakSet()
        self._pid = 0
        self._lock = threading.Lock()

    def watch(self, fs: Watched) -> None:
        """Watch ``fs`` (its calls in flight); starts this process's thread the first time (a forked process
        has none of its parent's)."""
        with self._lock:
            self._sets.add(fs)
            if self._pid != os.getpid():
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="twentyone-watchdog", daemon=True).start()

    def _run(self) -> None:
        me = os.getpid()
        while os.getpid() == me:
            time.sleep(SLICE)
            now = time.monotonic()
            for fs in list(self._sets):
                if fs._box is not None or fs._retired:
                    try:
                        fs._look(now)
                    except Exception:  # noqa: BLE001 - a look that fails is tried again at the next slice
                        pass


WATCHDOG = Watchdog()
