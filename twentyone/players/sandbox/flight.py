"""A sandboxed set's matches played by the table in C (``twentyone.grading.fast``, ``c_src/fast/tw_fast.c``).

The C table writes the set's requests and reads its replies itself, on the box's pipes, with plain blocking reads as
the Python client does; the watchdog (``watchdog.py``) watches its calls as it watches the client's. The C table
numbers each request in a shared pair of ints, ``[the call in flight (0: none), the last call]``, from where the
client's count stands, and the set's ``_look`` reads the call in flight there: a box blocked, or past its CPU
limit, in a call of the C table is ended as in any other, and the C table's read meets its end (the match is then
handed back to the Python engine).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from twentyone.players.sandbox.box import Box

__all__ = ["Flight"]

#: The most calls one request of the C table makes (show, the next bet and the next first_action), for the
#: watchdog's backstops.
_SPAN = 3


class Flight:
    """Mixed into ``client.SandboxFunctionSet``: what the C table asks of a set."""

    _box: Box | None
    _lead: Any
    _members: set[int]
    capture_dir: Path | None
    _overdue: bool
    _ahead: object
    _seq: int
    _span: int
    _inflight: int
    _kill: Callable[[], None]
    #: While the C table plays: its calls, ``[in flight, last]`` (a cffi ``int[2]``).
    _flight: Any = None

    def plays_alone(self) -> bool:
        """Whether its matches can be played in C: a box of its own, its output unread."""
        return self._lead is self and len(self._members) == 1 and self.capture_dir is None

    def fly(self, flight: Any) -> tuple[int, int] | None:
        """After ``reset``: the box's request and reply descriptors, its calls numbered in ``flight`` from now on
        (``[in flight, last]``, which the C table writes); None when the match has no box (it is lost to the fault
        that kept it from starting, at its first call)."""
        box = self._box
        if box is None or self._overdue or box.buf or self._ahead is not None:
            return None
        flight[0], flight[1] = 0, self._seq
        self._flight, self._span = flight, _SPAN
        return box.wfd, box.rfd

    def land(self, whole: bool) -> None:
        """The C table has stopped: the match was played ``whole``, or the box is ended (the Python engine plays
        the match again from its start, in a new box)."""
        flight, self._flight, self._span = self._flight, None, 1
        if flight is not None:
            self._seq = max(self._seq, int(flight[1]))
        if not whole:
            self._kill()

    def _in_flight(self) -> int:
        """The number of the call in flight, the client's or the C table's; 0: none."""
        flight = self._flight
        return self._inflight or (int(flight[0]) if flight is not None else 0)
