"""How a box ended, in words: its wait status (from the kernel) as a fault's cause and detail.

Shared by the sandboxed players (``client``), the doctor's probes and the judge's boxes.
"""

from __future__ import annotations

import os
import signal

from twentyone.legality import Foul

__all__ = ["describe_status", "at_cpu_limit", "CRASHES"]

_SIGNAL_CAUSE: dict[int, tuple[Foul, str]] = {
    signal.SIGSEGV: (Foul.CRASH, "segmentation fault"),
    signal.SIGBUS: (Foul.CRASH, "bus error"),
    signal.SIGFPE: (Foul.CRASH, "arithmetic error"),
    signal.SIGILL: (Foul.CRASH, "illegal instruction"),
    signal.SIGABRT: (Foul.CRASH, "abort"),
    signal.SIGSYS: (Foul.CRASH, "forbidden system call"),
    signal.SIGXCPU: (Foul.TIMEOUT, "the match's CPU time limit"),
    signal.SIGPROF: (Foul.TIMEOUT, "no answer within the decision limit of CPU time"),
    signal.SIGXFSZ: (Foul.CRASH, "output flood (file size limit)"),
    signal.SIGKILL: (Foul.CRASH, "killed by the system"),
    signal.SIGPIPE: (Foul.CRASH, "broken pipe"),
}


#: The signals whose place the box reports: crashes, a forbidden call (SIGSYS), a call past its CPU limit (SIGPROF).
CRASHES = (signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGABRT, signal.SIGSYS, signal.SIGPROF)

def describe_status(status: int) -> tuple[Foul, str]:
    """The fault cause and a readable detail for a box's wait status."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        cause, detail = _SIGNAL_CAUSE.get(sig, (Foul.CRASH, f"signal {sig}"))
        return cause, f"{detail} (signal {signal.Signals(sig).name})" if sig in _SIGNAL_CAUSE else detail
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return Foul.CRASH, f"exited with status {code}"


def at_cpu_limit(status: int, cpu: float, limit: float, killed: bool) -> bool:
    """Whether a box's end (its wait status, the CPU seconds wait4 gave) was its CPU-time limit: SIGXCPU, or a
    SIGKILL the engine did not send (``killed``) with half the limit used or more.  The kernel kills at the limit
    (RLIMIT_CPU's hard limit is its soft one); wait4's figure, sampled at the scheduler's ticks, can fall short of
    the clock the limit counts, by a tenth or more on a loaded machine."""
    if not os.WIFSIGNALED(status):
        return False
    sig = os.WTERMSIG(status)
    return sig == signal.SIGXCPU or (sig == signal.SIGKILL and not killed and cpu >= 0.5 * limit)
