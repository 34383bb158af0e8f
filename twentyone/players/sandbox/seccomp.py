"""The system-call filter of a sandboxed match's process: a classic BPF program, built here with no library.

The engine builds the program (``build_filter``) and hands it to the process it starts for a match, which
loads it (``c_src/box/tw_confine.c``) as the last layer of its confinement, before any student code runs.
The filter alone holds the sandbox's minimum on any kernel with seccomp (Linux 3.5 and later), whatever its
Landlock ABI: no signal or trace of another process, no new process or program, no socket, no file opened,
created or looked up by name, and no kernel object shared with another process.

It allows **by construction, not by the attacks one thought of**: every call in ``RULES`` is listed with the
arguments it may take and why (as Chromium's seccomp-bpf baseline policy and nsjail's kafel policies do);
a call that takes a command or flags is checked to them (``fcntl`` may not set an owner, a signal, a lock or
``O_ASYNC``; ``mmap`` may not share; ``clock_gettime`` may not read another process's CPU clock ...).  What a
rule does with a call:

- ``allow``: the call runs;
- ``checked``: the call runs when its arguments are among those listed, else it is forbidden;
- ``instant``: the call does not run and returns 0 at once: the sleeps (``nanosleep``, ``poll`` and
  ``select`` with a time-out ...) return as if their time had passed, so sleeping costs no one any time;
- ``errno``: the call does not run and fails with the error given (``ioctl``: ENOTTY, so ``isatty`` works
  and no terminal or descriptor command ever reaches the kernel);
- ``own``: calls that name a process, allowed on the calling process only (its pid is patched into the
  program by the process itself, over ``PID_PLACEHOLDER``);
- ``refused``: calls on files by name.

A forbidden call never runs.  It raises SIGSYS (``SECCOMP_RET_TRAP``): the box reports where it was made (a
compiled file's crash handler, ``mycodes.c:40 in bet1``; a Python box's faulthandler, ``mine.py:4 in bet1``) and
the process dies of it; a student's own SIGSYS handler gains nothing, since the call was not made.  In a Python
box a call on a file by name fails with EACCES instead, so ``import`` of a module not loaded before confinement
is an ImportError.  A call made through another ABI (i386, x32) kills the process outright.

The numbers are x86_64's (``audit`` architecture checked first); on aarch64, riscv64 and loongarch64, whose
flag values are the kernel's generic ones, the numbers come from libseccomp's table when it is installed;
elsewhere there is no filter (``build_filter`` returns None) and the engine refuses untrusted code.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import platform
import struct
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["build_filter", "RULES", "Rule", "PID_PLACEHOLDER", "CLOCK_PLACEHOLDER", "filter_architecture",
           "describe", "names"]

#: Replaced, in the program, by the confined process's own pid before it loads the filter.
PID_PLACEHOLDER = 0x7EADBEEF
#: Replaced by the base of the confined process's own CPU clock ids, ``(~pid << 3) & 0xFFFFFFFF``.
CLOCK_PLACEHOLDER = 0x7EADBEE8

# Classic BPF (linux/filter.h) and seccomp's return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_ALU_AND_K = 0x54
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_JA = 0x05
_RET_K = 0x06
KILL_PROCESS = 0x80000000
TRAP = 0x00030000
ERRNO = 0x00050000
ALLOW = 0x7FFF0000
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
# seccomp_data: nr (0), arch (4), instruction_pointer (8), args[6] (16 + 8 i; low word first on little-endian).
_NR, _ARCH = 0, 4

# The flag values the checks use: the kernel's generic ones (x86_64, aarch64, riscv64, loongarch64).
F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC = 0, 1, 2, 3, 4, 1030
FIONREAD = 0x541B
ITIMER_VIRTUAL, ITIMER_PROF = 1, 2
O_ASYNC = 0o20000
O_CLOEXEC = 0o2000000
PROT_RWX = 0x7
MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS, MAP_DENYWRITE = 0x02, 0x10, 0x20, 0x800
MAP_NORESERVE, MAP_POPULATE, MAP_STACK, MAP_FIXED_NOREPLACE = 0x4000, 0x8000, 0x20000, 0x100000
MAP_ALLOWED = (MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_DENYWRITE | MAP_NORESERVE | MAP_POPULATE | MAP_STACK
               | MAP_FIXED_NOREPLACE)
MREMAP_ALLOWED = 0x3  # MREMAP_MAYMOVE, MREMAP_FIXED
#: madvise: normal, random, sequential, willneed, dontneed, free, hugepage, nohugepage, dontdump, dodump.
MADV_ALLOWED = (0, 1, 2, 3, 4, 8, 14, 15, 16, 17)
FUTEX_WAIT, FUTEX_WAKE, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP = 0, 1, 3, 4, 5
FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET = 9, 10
FUTEX_FLAGS = 0x180  # FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME
GRND_ALLOWED = 0x7  # GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE
#: The clocks with a number of their own (CLOCK_REALTIME .. CLOCK_TAI); a negative id is a process's CPU clock
#: (``(~pid << 3) | kind``, pid 0 meaning the caller) or a device's (``(~fd << 3) | 3``).
CLOCKS = 12


@dataclass(frozen=True)
class Rule:
    """One call the filter names: what it does with it (``how``), the arguments it checks, and why."""

    name: str
    how: str
    why: str
    #: The instructions of a ``checked`` call's body (see ``_Asm``), given the deny action.
    body: Callable[[_Asm], None] | None = None
    #: For ``errno``: the error returned.
    code: int = 0


class _Asm:
    """A block of classic BPF with forward jumps to labels, each label a return at the block's end."""

    def __init__(self) -> None:
        self.ops: list[tuple[str, int, str | None, str | None]] = []

    def ld(self, offset: int) -> None:
        self.ops.append(("ld", offset, None, None))

    def arg(self, i: int, high: bool = False) -> None:
        self.ld(16 + 8 * i + (4 if high else 0))

    def and_(self, k: int) -> None:
        self.ops.append(("and", k, None, None))

    def jeq(self, k: int, yes: str | None, no: str | None = None) -> None:
        self.ops.append(("jeq", k, yes, no))

    def jge(self, k: int, yes: str | None, no: str | None = None) -> None:
        self.ops.append(("jge", k, yes, no))

    def jset(self, k: int, yes: str | None, no: str | None = None) -> None:
        self.ops.append(("jset", k, yes, no))

    def goto(self, label: str) -> None:
        """An unconditional jump (``jeq`` with both ways to ``label``)."""
        self.ops.append(("jeq", 0, label, label))

    def flags(self, i: int, allowed: int, deny: str = "deny") -> None:
        """Argument ``i`` (a 64-bit flag word) holds no bit outside ``allowed``, else ``deny``."""
        self.arg(i, high=True)
        self.jeq(0, None, deny)
        self.arg(i)
        self.jset(~allowed & 0xFFFFFFFF, deny)

    def label(self, name: str) -> None:
        """Name the next instruction, as a target of the jumps before it."""
        self.ops.append(("label", 0, name, None))

    def assemble(self, returns: dict[str, int]) -> list[tuple[int, int, int, int]]:
        """The instructions, then one return per label of ``returns`` used, in that order."""
        pcs: dict[str, int] = {}
        body: list[tuple[str, int, str | None, str | None]] = []
        for op in self.ops:
            if op[0] == "label":
                assert op[2] is not None
                pcs[op[2]] = len(body)
            else:
                body.append(op)
        used = [name for name in returns if any(name in (yes, no) for _, _, yes, no in body)]
        where = {**{name: len(body) + i for i, name in enumerate(used)}, **pcs}
        if not body or body[-1][0] not in ("jeq", "jge", "jset"):
            raise ValueError("a block of the filter must end in a jump")
        codes = {"jeq": _JEQ_K, "jge": _JGE_K, "jset": _JSET_K}
        prog: list[tuple[int, int, int, int]] = []
        for pc, (kind, k, yes, no) in enumerate(body):
            if kind == "ld":
                prog.append((_LD_W_ABS, 0, 0, k))
            elif kind == "and":
                prog.append((_ALU_AND_K, 0, 0, k & 0xFFFFFFFF))
            else:
                jt = where[yes] - pc - 1 if yes is not None else 0
                jf = where[no] - pc - 1 if no is not None else 0
                if not (0 <= jt <= 255 and 0 <= jf <= 255):
                    raise ValueError("a jump of the filter out of range (backwards or too far)")
                prog.append((codes[kind], jt, jf, k & 0xFFFFFFFF))
        prog += [(_RET_K, 0, 0, returns[name]) for name in used]
        return prog


def _fcntl(a: _Asm) -> None:
    a.arg(1)  # the command: an unsigned int, so the kernel sees only this word
    for cmd in (F_GETFD, F_SETFD, F_GETFL, F_DUPFD, F_DUPFD_CLOEXEC):
        a.jeq(cmd, "allow")
    a.jeq(F_SETFL, None, "deny")
    a.arg(2)  # the new flags: an unsigned int; O_ASYNC would have the kernel signal the descriptor's owner
    a.jset(O_ASYNC, "deny", "allow")


def _ioctl(a: _Asm) -> None:
    a.arg(1)  # the request, an unsigned int
    a.jeq(FIONREAD, "allow", "enotty")


def _mmap(a: _Asm) -> None:
    a.flags(2, PROT_RWX)
    a.flags(3, MAP_ALLOWED)
    a.goto("allow")


def _mprotect(a: _Asm) -> None:
    a.flags(2, PROT_RWX)
    a.goto("allow")


def _mremap(a: _Asm) -> None:
    a.flags(3, MREMAP_ALLOWED)
    a.goto("allow")


def _madvise(a: _Asm) -> None:
    a.arg(2)  # an int
    for advice in MADV_ALLOWED:
        a.jeq(advice, "allow")
    a.goto("deny")


def _futex(a: _Asm) -> None:
    a.arg(1)  # the operation, an int; its two flag bits aside
    a.and_(~FUTEX_FLAGS)
    for op in (FUTEX_WAKE, FUTEX_WAKE_BITSET, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP):
        a.jeq(op, "allow")
    # A box has one thread: nothing could wake a wait but its time-out, so it returns at once, timed out (a
    # deadlock becomes a loop, which the CPU limit ends).
    a.jeq(FUTEX_WAIT, "timedout")
    a.jeq(FUTEX_WAIT_BITSET, "timedout", "deny")


def _clock(a: _Asm) -> None:
    a.arg(0)  # a clockid_t, an int
    a.jge(CLOCKS, None, "allow")
    a.and_(~7)  # a CPU clock: its pid part
    a.jeq(0xFFFFFFF8, "allow")  # pid 0: the caller's own
    a.jeq(CLOCK_PLACEHOLDER, "allow", "deny")  # its own pid; anyone else's CPU time is a channel between boxes


def _setitimer(a: _Asm) -> None:
    a.arg(0)  # which: an int
    a.jeq(ITIMER_VIRTUAL, "allow")
    a.jeq(ITIMER_PROF, "allow", "deny")


def _getrandom(a: _Asm) -> None:
    a.flags(2, GRND_ALLOWED)
    a.goto("allow")


def _dup3(a: _Asm) -> None:
    a.flags(2, O_CLOEXEC)
    a.goto("allow")


def _kill(a: _Asm) -> None:
    a.arg(0)
    a.jeq(PID_PLACEHOLDER, "allow", "deny")  # kill(0) and kill(-1) would reach the grader's group, or everyone


def _tgkill(a: _Asm) -> None:
    a.arg(0)
    a.jeq(PID_PLACEHOLDER, None, "deny")
    a.arg(1)
    a.jeq(PID_PLACEHOLDER, "allow", "deny")


def _prlimit(a: _Asm) -> None:
    # Itself (pid 0 or its own): reading allowed, changing (new_limit not NULL) EPERM; another process: denied.
    a.arg(0)
    a.jeq(0, "mine")
    a.jeq(PID_PLACEHOLDER, "mine", "deny")
    a.label("mine")
    a.arg(2)
    a.jeq(0, None, "eperm")
    a.arg(2, high=True)
    a.jeq(0, "allow", "eperm")


def _affinity(a: _Asm) -> None:
    a.arg(0)
    a.jeq(0, "allow")
    a.jeq(PID_PLACEHOLDER, "allow", "deny")


def _allow(name: str, why: str) -> Rule:
    return Rule(name, "allow", why)


def _checked(name: str, why: str, body: Callable[[_Asm], None]) -> Rule:
    return Rule(name, "checked", why, body)


def _instant(name: str, why: str) -> Rule:
    return Rule(name, "instant", why)


#: Every call the filter names, in the order it tests them.  A box holds only descriptors of its own (a pipe
#: at end of file as standard input, its capture file, its two pipes to the engine) and no file, so what a
#: call may do with a descriptor cannot reach anything else.
RULES: tuple[Rule, ...] = (
    _allow("read", "requests from the engine's pipe; its own standard input (a pipe at end of file)"),
    _allow("write", "replies to the engine; output to its capture file (capped by RLIMIT_FSIZE)"),
    _allow("readv", "buffered reads (glibc)"),
    _allow("writev", "buffered output (glibc)"),
    _allow("close", "closing its own descriptors"),
    _allow("fstat", "the size of its own descriptors (by descriptor only)"),
    _allow("lseek", "stdio on its capture file"),
    _checked("fcntl", "only F_GETFD, F_SETFD, F_GETFL, F_DUPFD, F_DUPFD_CLOEXEC, and F_SETFL without O_ASYNC: no "
             "lock (a lock is a mark other processes see), owner, signal, lease or notification (each has the "
             "kernel signal a process on the box's behalf)", _fcntl),
    _checked("ioctl", "FIONREAD only (how many bytes its own pipes hold: the judge's box checks its standard input "
             "and output with it); every other request fails with ENOTTY unrun (isatty() says no, as it should: a "
             "box holds no terminal), so FIOASYNC, FIOSETOWN and TIOCSTI never reach the kernel", _ioctl),
    _allow("dup", "copies of its own descriptors (RLIMIT_NOFILE bounds them)"),
    _allow("dup2", "the same"),
    _checked("dup3", "the same; flags: O_CLOEXEC only", _dup3),
    _checked("mmap", "memory: private and anonymous (MAP_PRIVATE, MAP_ANONYMOUS, MAP_FIXED, MAP_FIXED_NOREPLACE, "
             "MAP_NORESERVE, MAP_POPULATE, MAP_STACK, MAP_DENYWRITE), read, write or execute; never MAP_SHARED, "
             "MAP_HUGETLB or MAP_LOCKED (bounded by RLIMIT_AS)", _mmap),
    _allow("munmap", "memory"),
    _checked("mremap", "memory: MREMAP_MAYMOVE and MREMAP_FIXED only", _mremap),
    _checked("mprotect", "memory: read, write, execute only", _mprotect),
    _checked("madvise", "memory hints malloc uses (normal, random, sequential, willneed, dontneed, free, "
             "hugepage, nohugepage, dontdump, dodump); never MADV_MERGEABLE, whose page merging other processes "
             "can time", _madvise),
    _allow("brk", "memory"),
    _allow("rt_sigaction", "signal handlers (Python's, and a student's signal())"),
    _allow("rt_sigprocmask", "signal masks"),
    _allow("rt_sigreturn", "returning from a signal handler"),
    _allow("sigaltstack", "a signal stack"),
    _checked("futex", "locks of its one thread: wake, requeue; a wait returns at once, timed out (nothing else "
             "could wake it)", _futex),
    _checked("clock_gettime", "time(), clock(): the clocks with a number, and its own CPU clock; never another "
             "process's CPU clock (a channel between boxes)", _clock),
    _checked("clock_getres", "the same", _clock),
    _allow("gettimeofday", "time"),
    _allow("time", "time"),
    _instant("nanosleep", "sleep(): returns at once (sleeping costs no one time; see RULES.md sandbox_time)"),
    _instant("clock_nanosleep", "the same"),
    _instant("poll", "returns at once with nothing ready: a box has nothing to wait for (a poll with a time-out "
             "is a sleep)"),
    _instant("ppoll", "the same"),
    _instant("select", "the same (select() with a time-out is an old way to sleep)"),
    _instant("pselect6", "the same"),
    _instant("alarm", "returns 0 at once, unrun: a box has no wall-clock timer, so nothing but the engine's reply "
             "can end a wait on a descriptor, which the watchdog charges after 0.3 s (an alarm and a blocking read "
             "made a nap no sleep call showed)"),
    _checked("setitimer", "the decision's CPU limit, a profiling timer armed before each call: ITIMER_PROF and "
             "ITIMER_VIRTUAL only (CPU time); never ITIMER_REAL, the same nap as alarm()", _setitimer),
    _allow("getitimer", "the same timer read back"),
    _allow("getpid", "its own pid"),
    _allow("gettid", "its own thread id"),
    _allow("getppid", "the engine's pid: no call the filter allows can reach it"),
    _allow("getpgrp", "its own process group"),
    _allow("getuid", "identity"),
    _allow("geteuid", "identity"),
    _allow("getgid", "identity"),
    _allow("getegid", "identity"),
    _allow("getrlimit", "its own limits, read"),
    _allow("getrusage", "its own CPU time (self, thread or its children, which it cannot have)"),
    _allow("times", "its own CPU time"),
    _allow("getcpu", "the CPU it runs on"),
    _allow("uname", "the system's name"),
    Rule("sysinfo", "errno", "fails with ENOSYS, unrun: its host-wide figures (shared memory, free memory) move "
         "with what other boxes do, a channel between them; glibc does without it", code=errno.ENOSYS),
    _checked("getrandom", "rand() seeding, Python's random; flags GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE",
             _getrandom),
    _allow("sched_yield", "yielding the CPU"),
    _allow("restart_syscall", "a call interrupted by a signal"),
    _allow("exit", "leaving"),
    _allow("exit_group", "leaving"),
    Rule("kill", "own", "raise() and kill(getpid(), ...): only its own pid", _kill),
    Rule("tkill", "own", "signals to its own (only) thread", _kill),
    Rule("tgkill", "own", "abort() and raise() signal the calling thread: its own pid as both group and thread",
         _tgkill),
    Rule("prlimit64", "own", "getrlimit() on itself (pid 0 or its own), reading only: a change fails with EPERM",
         _prlimit),
    Rule("sched_getaffinity", "own", "the CPUs it may use (pid 0 or its own)", _affinity),
    Rule("sched_setaffinity", "own", "moving itself among the CPUs it may use (pid 0 or its own)", _affinity),
    *(Rule(name, "refused", "files by name: nothing is readable or writable") for name in (
        "open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "access", "faccessat",
        "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir",
        "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
        "symlinkat", "truncate", "ftruncate", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
        "fchownat", "utimensat", "mknod", "mknodat", "statfs", "fstatfs")),
    Rule("setrlimit", "refused", "its limits are the engine's"),
)

#: x86_64's call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
_X86_64: dict[str, int] = {
    "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7, "lseek": 8,
    "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13, "rt_sigprocmask": 14,
    "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20, "access": 21,
    "pipe": 22, "select": 23, "sched_yield": 24, "mremap": 25, "madvise": 28, "dup": 32, "dup2": 33,
    "nanosleep": 35, "getitimer": 36, "alarm": 37, "setitimer": 38, "getpid": 39, "socket": 41, "connect": 42,
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "exit": 60, "kill": 62, "uname": 63, "fcntl": 72,
    "flock": 73, "truncate": 76, "ftruncate": 77, "getdents": 78, "getcwd": 79, "chdir": 80, "fchdir": 81,
    "rename": 82, "mkdir": 83, "rmdir": 84, "creat": 85, "link": 86, "unlink": 87, "symlink": 88, "readlink": 89,
    "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94, "gettimeofday": 96, "getrlimit": 97,
    "getrusage": 98, "sysinfo": 99, "times": 100, "ptrace": 101, "getuid": 102, "getgid": 104, "geteuid": 107,
    "getegid": 108, "getppid": 110, "getpgrp": 111, "sigaltstack": 131, "mknod": 133, "statfs": 137,
    "fstatfs": 138, "setrlimit": 160, "gettid": 186, "tkill": 200, "time": 201, "futex": 202,
    "sched_setaffinity": 203, "sched_getaffinity": 204, "getdents64": 217, "restart_syscall": 219,
    "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230, "exit_group": 231, "tgkill": 234,
    "openat": 257, "mkdirat": 258, "mknodat": 259, "fchownat": 260, "newfstatat": 262, "unlinkat": 263,
    "renameat": 264, "linkat": 265, "symlinkat": 266, "readlinkat": 267, "fchmodat": 268, "faccessat": 269,
    "pselect6": 270, "ppoll": 271, "utimensat": 280, "dup3": 292, "pipe2": 293, "prlimit64": 302, "getcpu": 309,
    "process_vm_readv": 310, "process_vm_writev": 311, "renameat2": 316, "getrandom": 318, "execveat": 322,
    "statx": 332, "pidfd_send_signal": 424, "pidfd_open": 434, "clone3": 435, "openat2": 437, "faccessat2": 439,
}

#: Architectures whose flag values are the kernel's generic ones (the checks above use them).
_GENERIC = ("aarch64", "riscv64", "loongarch64")


def filter_architecture() -> str | None:
    """The architecture the filter is built for here (None: no filter can be built on this machine)."""
    machine = platform.machine()
    if machine in ("x86_64", "AMD64"):
        return "x86_64"
    return machine if machine in _GENERIC and _libseccomp_numbers() else None


def _libseccomp_numbers() -> tuple[dict[str, int], int] | None:
    """The call numbers and audit architecture of this machine from libseccomp, where it is installed."""
    name = ctypes.util.find_library("seccomp")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_arch_native.restype = ctypes.c_uint32
    except (OSError, AttributeError):
        return None
    numbers = {}
    for rule in RULES:
        nr = lib.seccomp_syscall_resolve_name(rule.name.encode())
        if nr >= 0:
            numbers[rule.name] = int(nr)
    return numbers, int(lib.seccomp_arch_native())


def _block(nr: int, body: list[tuple[int, int, int, int]], reload: bool = True) -> list[tuple[int, int, int, int]]:
    """``if (nr == NR) { body }``: every path of ``body`` ends in a return, so it may reload A freely; with ``reload``
    the call's number is loaded again after it (as the chain has it; A still holds it where the block is skipped)."""
    if len(body) > 255:
        raise ValueError("a block of the filter is too long")
    return [(_JEQ_K, 0, len(body), nr), *body, *([(_LD_W_ABS, 0, 0, _NR)] if reload else [])]


#: Calls a leaf of the filter's search tree tests one after another.
_LEAF = 8


def _chain(entries: list[tuple[int, list[tuple[int, int, int, int]]]], deny: int) -> list[tuple[int, int, int, int]]:
    """The calls' blocks one after another in ``RULES``' order, A holding the call's number, then ``deny``: the filter
    as it was laid out before the search tree, kept as the reference ``test_seccomp`` proves the tree against."""
    prog: list[tuple[int, int, int, int]] = []
    for nr, body in entries:
        prog += [(_JEQ_K, 0, 1, nr), *body] if len(body) == 1 else _block(nr, body)
    return prog + [(_RET_K, 0, 0, deny)]


def _tree(entries: list[tuple[int, list[tuple[int, int, int, int]]]], deny: int) -> list[tuple[int, int, int, int]]:
    """The calls' blocks as a binary search over their numbers (``entries`` sorted by number, A holding it): at most
    ``_LEAF`` comparisons at the end of each of about log2(calls / _LEAF) halvings, where a chain made the kernel
    walk every call before it.  The kernel walks the program for every call number when it loads it (the cache of
    calls always allowed): a bare child's fork, load and exit took 250 us of CPU with the chain, 175 with the tree
    (80 with a filter of one instruction).  Each halving is ``jge pivot`` jumping over the lower half, or, where
    that half is longer than a conditional jump reaches (255 instructions), falling through to a ``ja`` over it."""
    if len(entries) <= _LEAF:
        prog = [insn for nr, body in entries for insn in _block(nr, body, reload=False)]
        return prog + [(_RET_K, 0, 0, deny)]
    half = len(entries) // 2
    low, high = _tree(entries[:half], deny), _tree(entries[half:], deny)
    if len(low) <= 255:
        return [(_JGE_K, len(low), 0, entries[half][0]), *low, *high]
    return [(_JGE_K, 0, 1, entries[half][0]), (_JA, 0, 0, len(low)), *low, *high]


def build_filter(python: bool = False, layout: str = "tree") -> bytes | None:
    """The filter as a classic BPF program (``struct sock_filter[]``), or None where none can be built.

    ``python``: a call on a file by name fails with EACCES (so an ``import`` is an ImportError) instead of raising
    SIGSYS, and ``setrlimit`` with EPERM.  The
    checks on a process compare with ``PID_PLACEHOLDER`` and ``CLOCK_PLACEHOLDER``, which the confined process
    replaces with its own pid and CPU clock.  ``layout``: ``tree`` (``_tree``), or ``chain`` (``_chain``, the
    reference the tree is tested against).
    """
    arch = filter_architecture()
    if arch is None:
        return None
    if arch == "x86_64":
        numbers, audit, x32 = _X86_64, _AUDIT_ARCH_X86_64, True
    else:
        found = _libseccomp_numbers()
        if found is None:
            return None
        (numbers, audit), x32 = found, False
    deny = TRAP
    refuse = ERRNO | errno.EACCES if python else TRAP
    returns = {"allow": ALLOW, "deny": deny, "eperm": ERRNO | errno.EPERM, "timedout": ERRNO | errno.ETIMEDOUT,
               "enotty": ERRNO | errno.ENOTTY}
    prog: list[tuple[int, int, int, int]] = [(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 1, 0, audit),
                                             (_RET_K, 0, 0, KILL_PROCESS), (_LD_W_ABS, 0, 0, _NR)]
    if x32:
        prog += [(_JGE_K, 0, 1, _X32_BIT), (_RET_K, 0, 0, KILL_PROCESS)]
    entries: dict[int, list[tuple[int, int, int, int]]] = {}
    for rule in RULES:
        nr = numbers.get(rule.name)
        if nr is None or nr in entries:  # (a number named twice: the first rule decides, as in a chain)
            continue
        if rule.how == "allow":
            entries[nr] = [(_RET_K, 0, 0, ALLOW)]
        elif rule.how == "instant":
            entries[nr] = [(_RET_K, 0, 0, ERRNO | 0)]
        elif rule.how == "errno":
            entries[nr] = [(_RET_K, 0, 0, ERRNO | rule.code)]
        elif rule.how == "refused":
            code = (ERRNO | errno.EPERM if python else TRAP) if rule.name == "setrlimit" else refuse
            entries[nr] = [(_RET_K, 0, 0, code)]
        else:
            assert rule.body is not None
            a = _Asm()
            rule.body(a)
            entries[nr] = a.assemble(returns)
    prog += _chain(list(entries.items()), deny) if layout == "chain" else _tree(sorted(entries.items()), deny)
    if len(prog) > 4096:  # BPF_MAXINSNS
        return None
    return b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in prog)


def names() -> dict[str, int]:
    """The call numbers the filter uses on this machine (x86_64's table, or libseccomp's)."""
    if filter_architecture() == "x86_64":
        return dict(_X86_64)
    found = _libseccomp_numbers()
    return found[0] if found else {}


def describe() -> list[tuple[str, str, str]]:
    """Every call the filter names: (call, what happens, why), for SANDBOX.md and ``doctor``."""
    words = {"allow": "allowed", "checked": "allowed with these arguments", "instant": "returns 0 at once",
             "own": "only on itself", "refused": "refused (C: SIGSYS; Python: EACCES)"}
    rows = []
    for rule in RULES:
        if rule.how == "errno":
            what = f"fails with {errno.errorcode[rule.code]}"
        elif rule.name == "setrlimit":
            what = "refused (C: SIGSYS; Python: EPERM)"
        else:
            what = words[rule.how]
        rows.append((rule.name, what, rule.why))
    return rows
