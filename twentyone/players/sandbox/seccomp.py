"""The system-call allow-lists of the sandbox's worker processes, as seccomp filters (through libseccomp).

Two filters, stacked (a child keeps its zygote's filter and adds its own; the stricter answer wins):

- the **zygote**'s, loaded before it loads the student's module, so constructors and static
  initialisers run confined: what loading a module, running Python and forking need; anything else
  fails with EPERM.  No ``execve``, no sockets, no ``ptrace``; calls that take a pid only on pid 0.
- the **child**'s, loaded before a match's first student call: only what answering requests on
  already-open pipes needs.  Anything else kills the child with SIGSYS, which the engine reports as
  "forbidden system call".  Calls that take a pid (``kill``, ``tgkill``, ``prlimit64``,
  ``sched_*affinity``) are allowed only on the child itself: its pid is patched into the filter.

Why each call is allowed is written next to it below.  Without libseccomp ``build_filter`` returns
None and the worker falls back on its other confinement (see ``worker``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
from typing import Any

__all__ = ["build_filter", "FilterLoader", "seccomp_available", "CHILD_CALLS", "ZYGOTE_CALLS", "OWN_PID_CALLS"]

#: What a child may call, and why.  It holds only its request and reply pipes and its capture file.
CHILD_CALLS: tuple[tuple[str, str], ...] = (
    ("read", "requests from the engine's pipe"),
    ("write", "replies to the engine; output to the capture file (capped by RLIMIT_FSIZE)"),
    ("readv", "buffered reads (glibc)"),
    ("writev", "buffered output (glibc)"),
    ("close", "closing its own descriptors"),
    ("fstat", "stdio asks what its stdout is"),
    ("lseek", "stdio on the capture file"),
    ("fcntl", "descriptor flags of its own descriptors"),
    ("ioctl", "isatty() on its own descriptors; it holds no terminal, so no keystroke injection"),
    ("mmap", "memory (bounded by RLIMIT_AS); it holds no file it could map for reading"),
    ("munmap", "memory"),
    ("mremap", "memory"),
    ("mprotect", "memory"),
    ("madvise", "memory"),
    ("brk", "memory"),
    ("rt_sigaction", "signal handlers (Python, and a student's signal())"),
    ("rt_sigprocmask", "signal masks"),
    ("rt_sigreturn", "returning from a signal handler"),
    ("sigaltstack", "Python's fault handler stack"),
    ("futex", "locks (Python's GIL, stdio)"),
    ("clock_gettime", "time(), clock()"),
    ("clock_getres", "time resolution"),
    ("gettimeofday", "time"),
    ("nanosleep", "sleep(); bounded by the wall-clock limit"),
    ("clock_nanosleep", "sleep()"),
    ("getpid", "its own pid"),
    ("gettid", "its own thread id"),
    ("getppid", "harmless: the zygote's pid"),
    ("getuid", "harmless identity"),
    ("geteuid", "harmless identity"),
    ("getgid", "harmless identity"),
    ("getegid", "harmless identity"),
    ("exit", "leaving"),
    ("exit_group", "leaving"),
    ("getrandom", "rand() seeding, Python's hash seed"),
    ("poll", "waiting on its pipes"),
    ("ppoll", "waiting on its pipes"),
    ("select", "waiting on its pipes"),
    ("pselect6", "waiting on its pipes"),
    ("sched_yield", "yielding the CPU"),
    ("getrusage", "its own CPU time (clock())"),
    ("setitimer", "the decision's CPU limit: a profiling timer armed before each call"),
    ("getitimer", "the same timer read back"),
    ("times", "its own CPU time"),
    ("restart_syscall", "a sleep interrupted by a signal"),
    ("sysinfo", "harmless system figures"),
    ("newfstatat", "fstat() of its own descriptors only (AT_EMPTY_PATH): no file may be probed by name"),
)

#: Calls that name a process: allowed only on the calling process (its pid; 0 also, where 0 means itself).
#: ``kill(0)`` and ``kill(-1)`` would reach the grader's process group or everyone, so 0 is not "itself" there.
OWN_PID_CALLS: tuple[tuple[str, bool, str], ...] = (
    ("kill", False, "a student's raise() or kill(getpid(), ...)"),
    ("tgkill", False, "abort() and raise() signal the calling thread"),
    ("prlimit64", True, "getrlimit()/setrlimit() on itself; never the grader's limits"),
    ("sched_getaffinity", True, "the CPUs it may use"),
    ("sched_setaffinity", True, "none; it cannot move another process"),
)

#: What the zygote needs besides the child's calls: loading the module (constructors run here), running
#: Python, forking children and talking to the engine on its control socket.  Other calls get EPERM.
ZYGOTE_CALLS: tuple[tuple[str, str], ...] = (
    ("openat", "reading the module and libraries; Landlock decides which files, and writing is refused"),
    ("open", "the same, on older calling conventions"),
    ("pread64", "the dynamic loader reads ELF headers"),
    ("read", "reading files and the control socket"),
    ("stat", "the dynamic loader and Python's imports"),
    ("lstat", "the same"),
    ("statx", "the same"),
    ("newfstatat", "the same (paths allowed here; Landlock hides what is not readable)"),
    ("access", "the dynamic loader"),
    ("faccessat", "the dynamic loader"),
    ("faccessat2", "the dynamic loader"),
    ("readlink", "Python's path handling"),
    ("readlinkat", "Python's path handling"),
    ("getdents64", "Python's imports list folders"),
    ("getcwd", "Python's path handling"),
    ("clone", "fork(): a child per match (threads and namespaces are refused by the flags rule)"),
    ("wait4", "reaping finished children"),
    ("waitid", "reaping finished children"),
    ("recvmsg", "pipes for the next child, from the engine (SCM_RIGHTS)"),
    ("recvfrom", "the control socket"),
    ("sendmsg", "reports to the engine"),
    ("sendto", "reports to the engine"),
    ("pipe2", "Python's wake-up pipe"),
    ("dup", "a child's descriptors"),
    ("dup2", "a child sends its output to the capture file"),
    ("dup3", "the same"),
    ("set_robust_list", "glibc after fork"),
    ("rseq", "glibc after fork"),
    ("set_tid_address", "glibc after fork"),
    ("setrlimit", "a child's limits (older calling convention)"),
    ("prctl", "a child's PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP and PR_SET_PDEATHSIG"),
    ("seccomp", "a child loads its own stricter filter"),
    ("landlock_restrict_self", "harmless: a process may only confine itself further"),
    ("membarrier", "glibc"),
    ("getpgrp", "harmless"),
    ("uname", "harmless system name"),
)

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_ACT_KILL_PROCESS = 0x80000000
_SCMP_ACT_ERRNO_EPERM = 0x00050000 | 1
_SCMP_CMP_EQ = 4
_SCMP_CMP_MASKED_EQ = 7
_AT_EMPTY_PATH = 0x1000
#: clone() flags that would make a thread or a namespace: a zygote may only fork.
_CLONE_REFUSED = 0x00010000 | 0x7E020000
_PID_PLACEHOLDER = 0x7EADBEEF


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _libseccomp() -> Any:
    if os.environ.get("TWENTYONE_NO_SECCOMP"):
        return None  # for testing the fallback, and for machines where the filter must be off
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def seccomp_available() -> bool:
    """True when libseccomp can be loaded, so workers run under the system-call allow-lists."""
    return _libseccomp() is not None


def _rule(lib: Any, ctx: Any, name: str, *cmps: _ArgCmp, action: int = _SCMP_ACT_ALLOW) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        return  # a call this architecture does not have
    arr = (_ArgCmp * len(cmps))(*cmps) if cmps else None
    if lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr) != 0:
        raise OSError(f"seccomp: cannot add the rule for {name}")


def _context(lib: Any, zygote: bool, pid: int) -> Any:
    ctx = lib.seccomp_init(_SCMP_ACT_ERRNO_EPERM if zygote else _SCMP_ACT_KILL_PROCESS)
    if not ctx:
        return None
    names = {n for n, _ in CHILD_CALLS} | ({n for n, _ in ZYGOTE_CALLS} if zygote else set())
    for name in sorted(names):
        if name == "newfstatat" and not zygote:
            _rule(lib, ctx, name, _ArgCmp(3, _SCMP_CMP_MASKED_EQ, _AT_EMPTY_PATH, _AT_EMPTY_PATH))
        elif name == "clone":
            _rule(lib, ctx, name, _ArgCmp(0, _SCMP_CMP_MASKED_EQ, _CLONE_REFUSED, 0))
        else:
            _rule(lib, ctx, name)
    for name, zero_is_self, _ in OWN_PID_CALLS:
        if zygote and name in ("kill", "tgkill"):
            # A child signals itself (abort, raise) under the zygote's filter too, and its pid is not known
            # here: the zygote's Landlock domain (ABI 6) keeps signals from leaving the sandbox.
            _rule(lib, ctx, name)
            continue
        if not zygote:
            _rule(lib, ctx, name, _ArgCmp(0, _SCMP_CMP_EQ, pid, 0))
        if zero_is_self:
            _rule(lib, ctx, name, _ArgCmp(0, _SCMP_CMP_EQ, 0, 0))
    return ctx


def _export(lib: Any, ctx: Any) -> bytes | None:
    r, w = os.pipe()
    try:
        if lib.seccomp_export_bpf(ctx, w) != 0:
            return None
        os.close(w)
        w = -1
        chunks = []
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
        lib.seccomp_release(ctx)


def build_filter(zygote: bool = False) -> bytes | None:
    """A filter as a classic BPF program, or None without libseccomp.

    The child's filter compares pids with a placeholder that each child replaces with its own
    (``FilterLoader``); the zygote's has no pid in it.
    """
    lib = _libseccomp()
    if lib is None:
        return None
    ctx = _context(lib, zygote, _PID_PLACEHOLDER)
    if not ctx:
        return None
    return _export(lib, ctx)


class FilterLoader:
    """``bpf`` (from ``build_filter``) prepared for this process, its pid patched in; call it to load it.

    A spare child prepares it while it waits, so loading it when its match starts is two prctl calls.
    """

    def __init__(self, bpf: bytes) -> None:
        prog = bytearray(bpf)
        pid = os.getpid()
        for i in range(0, len(prog), 8):  # struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
            if struct.unpack_from("=I", prog, i + 4)[0] == _PID_PLACEHOLDER:
                struct.pack_into("=I", prog, i + 4, pid)
        self._prog = prog
        self._buf = (ctypes.c_char * len(prog)).from_buffer(prog)
        self._fprog = _SockFprog(len(prog) // 8, ctypes.addressof(self._buf))
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def __call__(self) -> bool:
        PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
        if self._prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return bool(self._prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(self._fprog), 0, 0) == 0)
