"""The system-call filter of a sandboxed match's process: a classic BPF program, built here with no library.

The engine builds the program (``build_filter``) and hands it to the process it starts for a match, which
loads it (``c_src/box/tw_confine.c``) as the last layer of its confinement, before any student code runs.
The filter alone holds the sandbox's minimum on any kernel with seccomp (Linux 3.5 and later), whatever its
Landlock ABI: no signal or trace of another process, no new process or program, no socket, and no file
opened, created or looked up by name, so nothing of the grader's files is readable or writable.

Three lists, each call with the reason it is there:

- ``ALLOWED``: what answering requests on the pipes it was given needs (memory, time, its own descriptors);
- ``OWN_PROCESS``: calls that name a process, allowed only on itself (its pid is patched into the program by
  the process itself, over ``PID_PLACEHOLDER``);
- ``REFUSED``: calls on files by name.  In a Python box they fail with EACCES, so an ``import`` of a module
  not loaded before confinement is an ImportError, not a dead process; in a compiled submission's box they
  kill it like any other forbidden call (a C ``fopen`` is then reported as "forbidden system call", which
  says more than a NULL the file goes on to dereference).

Any other call kills the process with SIGSYS, which the engine reports as "forbidden system call".  The
numbers are x86_64's (``audit`` architecture checked first, x32 calls refused); on another architecture the
numbers come from libseccomp's table when it is installed, and otherwise there is no filter
(``build_filter`` returns None) and the engine refuses untrusted code.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import platform
import struct

__all__ = ["build_filter", "ALLOWED", "OWN_PROCESS", "REFUSED", "PID_PLACEHOLDER", "filter_architecture"]

#: What a match's process may call, and why.  It holds only /dev/null, its capture file and its two pipes.
ALLOWED: tuple[tuple[str, str], ...] = (
    ("read", "requests from the engine's pipe"),
    ("write", "replies to the engine; output to the capture file (capped by RLIMIT_FSIZE)"),
    ("readv", "buffered reads (glibc)"),
    ("writev", "buffered output (glibc)"),
    ("close", "closing its own descriptors"),
    ("fstat", "the size of its own descriptors (by descriptor only)"),
    ("lseek", "stdio on the capture file"),
    ("fcntl", "descriptor flags of its own descriptors"),
    ("ioctl", "isatty() on its own descriptors; it holds no terminal, so no keystroke injection"),
    ("dup", "copies of its own descriptors (RLIMIT_NOFILE bounds them)"),
    ("dup2", "the same"),
    ("dup3", "the same"),
    ("mmap", "memory (bounded by RLIMIT_AS); it holds no file it could map for reading"),
    ("munmap", "memory"),
    ("mremap", "memory"),
    ("mprotect", "memory"),
    ("madvise", "memory"),
    ("brk", "memory"),
    ("rt_sigaction", "signal handlers (Python's, and a student's signal())"),
    ("rt_sigprocmask", "signal masks"),
    ("rt_sigreturn", "returning from a signal handler"),
    ("sigaltstack", "a signal stack"),
    ("futex", "locks (Python's, stdio's)"),
    ("clock_gettime", "time(), clock()"),
    ("clock_getres", "time resolution"),
    ("gettimeofday", "time"),
    ("time", "time"),
    ("nanosleep", "sleep(); bounded by the decision's wall-clock backstop"),
    ("clock_nanosleep", "sleep()"),
    ("alarm", "a student's alarm(): SIGALRM ends only itself"),
    ("setitimer", "the decision's CPU limit, a profiling timer armed before each call"),
    ("getitimer", "the same timer read back"),
    ("getpid", "its own pid"),
    ("gettid", "its own thread id"),
    ("getppid", "harmless: the engine's pid"),
    ("getpgrp", "harmless: its own process group"),
    ("getuid", "harmless identity"),
    ("geteuid", "harmless identity"),
    ("getgid", "harmless identity"),
    ("getegid", "harmless identity"),
    ("getrlimit", "its own limits, read"),
    ("getrusage", "its own CPU time"),
    ("times", "its own CPU time"),
    ("getcpu", "the CPU it runs on"),
    ("uname", "harmless system name"),
    ("sysinfo", "harmless system figures"),
    ("getrandom", "rand() seeding, Python's random"),
    ("poll", "waiting on its own descriptors"),
    ("ppoll", "the same"),
    ("select", "the same"),
    ("pselect6", "the same"),
    ("sched_yield", "yielding the CPU"),
    ("restart_syscall", "a sleep interrupted by a signal"),
    ("exit", "leaving"),
    ("exit_group", "leaving"),
)

#: Calls that name a process or its limits: allowed only on the calling process.  ``kill(0)`` and
#: ``kill(-1)`` would reach the grader's process group or everyone, so 0 is not "itself" for signals.
OWN_PROCESS: tuple[tuple[str, str], ...] = (
    ("kill", "raise() and kill(getpid(), ...): only its own pid"),
    ("tkill", "signals to its own (only) thread"),
    ("tgkill", "abort() and raise() signal the calling thread: its own pid as both group and thread"),
    ("prlimit64", "getrlimit() on itself (pid 0 or its own), reading only: a change fails with EPERM"),
    ("sched_getaffinity", "the CPUs it may use (pid 0 or its own)"),
    ("sched_setaffinity", "moving itself among the CPUs it may use (pid 0 or its own)"),
)

#: Calls on files by name (and changing limits): refused with EACCES (EPERM for limits), not killed.
REFUSED: tuple[tuple[str, str], ...] = tuple((name, "files by name: nothing is readable or writable") for name in (
    "open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "access", "faccessat",
    "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir",
    "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
    "symlinkat", "truncate", "ftruncate", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
    "utimensat", "mknod", "mknodat", "statfs", "fstatfs")) + (("setrlimit", "its limits are the engine's"),)

#: Replaced, in the program, by the confined process's own pid before it loads the filter.
PID_PLACEHOLDER = 0x7EADBEEF

#: x86_64's call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
_X86_64: dict[str, int] = {
    "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7, "lseek": 8,
    "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13, "rt_sigprocmask": 14,
    "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20, "access": 21,
    "pipe": 22, "select": 23, "sched_yield": 24, "mremap": 25, "madvise": 28, "dup": 32, "dup2": 33,
    "nanosleep": 35, "getitimer": 36, "alarm": 37, "setitimer": 38, "getpid": 39, "socket": 41, "connect": 42,
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "exit": 60, "kill": 62, "uname": 63, "fcntl": 72,
    "truncate": 76, "ftruncate": 77, "getdents": 78, "getcwd": 79, "chdir": 80, "fchdir": 81, "rename": 82,
    "mkdir": 83, "rmdir": 84, "creat": 85, "link": 86, "unlink": 87, "symlink": 88, "readlink": 89, "chmod": 90,
    "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94, "gettimeofday": 96, "getrlimit": 97, "getrusage": 98,
    "sysinfo": 99, "times": 100, "ptrace": 101, "getuid": 102, "getgid": 104, "geteuid": 107, "getegid": 108,
    "getppid": 110, "getpgrp": 111, "sigaltstack": 131, "mknod": 133, "statfs": 137, "fstatfs": 138,
    "setrlimit": 160, "gettid": 186, "tkill": 200, "time": 201, "futex": 202, "sched_setaffinity": 203,
    "sched_getaffinity": 204, "getdents64": 217, "restart_syscall": 219, "clock_gettime": 228,
    "clock_getres": 229, "clock_nanosleep": 230, "exit_group": 231, "tgkill": 234, "openat": 257, "mkdirat": 258,
    "mknodat": 259, "fchownat": 260, "newfstatat": 262, "unlinkat": 263, "renameat": 264, "linkat": 265,
    "symlinkat": 266, "readlinkat": 267, "fchmodat": 268, "faccessat": 269, "pselect6": 270, "ppoll": 271,
    "utimensat": 280, "dup3": 292, "pipe2": 293, "prlimit64": 302, "getcpu": 309, "process_vm_readv": 310,
    "process_vm_writev": 311, "renameat2": 316, "getrandom": 318, "execveat": 322, "statx": 332,
    "pidfd_send_signal": 424, "pidfd_open": 434, "clone3": 435, "openat2": 437, "faccessat2": 439,
}
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000

# Classic BPF (linux/filter.h) and seccomp's return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_KILL_PROCESS = 0x80000000
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
# seccomp_data: nr (0), arch (4), instruction_pointer (8), args[6] (16 + 8 i; low word first on little-endian).
_NR, _ARCH = 0, 4


def _arg(i: int, high: bool = False) -> int:
    return 16 + 8 * i + (4 if high else 0)


Insn = tuple[int, int, int, int]


def _ld(offset: int) -> Insn:
    return (_LD_W_ABS, 0, 0, offset)


def _ret(action: int) -> Insn:
    return (_RET_K, 0, 0, action)


def _block(nr: int, body: list[Insn]) -> list[Insn]:
    """``if (nr == NR) { body }``; every path of ``body`` ends in a return, so A may be reloaded freely."""
    return [(_JEQ_K, 0, len(body), nr), *body]


def _own_pid_block(name: str) -> list[Insn]:
    """The checks of a call that names a process: allowed only on itself (and, for some, pid 0)."""
    deny = _ret(_KILL_PROCESS)
    allow = _ret(_ALLOW)
    pid = PID_PLACEHOLDER
    if name in ("kill", "tkill"):
        return [_ld(_arg(0)), (_JEQ_K, 0, 1, pid), allow, deny]
    if name == "tgkill":
        return [_ld(_arg(0)), (_JEQ_K, 0, 3, pid), _ld(_arg(1)), (_JEQ_K, 0, 1, pid), allow, deny]
    if name == "prlimit64":
        # Another process: killed.  Itself (pid 0 or its own): reading allowed, changing (new_limit not NULL) EPERM.
        eperm = _ret(_ERRNO | errno.EPERM)
        return [_ld(_arg(0)), (_JEQ_K, 1, 0, 0), (_JEQ_K, 0, 6, pid), _ld(_arg(2)), (_JEQ_K, 0, 3, 0),
                _ld(_arg(2, high=True)), (_JEQ_K, 0, 1, 0), allow, eperm, deny]
    # sched_getaffinity, sched_setaffinity: pid 0 or its own
    return [_ld(_arg(0)), (_JEQ_K, 1, 0, 0), (_JEQ_K, 0, 1, pid), allow, deny]


def filter_architecture() -> str | None:
    """The architecture the filter is built for here (None: no filter can be built on this machine)."""
    machine = platform.machine()
    if machine in ("x86_64", "AMD64"):
        return "x86_64"
    return machine if _libseccomp_numbers(machine) else None


def _libseccomp_numbers(machine: str) -> tuple[dict[str, int], int] | None:
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
    for n, _ in (*ALLOWED, *OWN_PROCESS, *REFUSED):
        nr = lib.seccomp_syscall_resolve_name(n.encode())
        if nr >= 0:
            numbers[n] = int(nr)
    return numbers, int(lib.seccomp_arch_native())


def build_filter(python: bool = False) -> bytes | None:
    """The filter as a classic BPF program (``struct sock_filter[]``), or None where none can be built.

    ``python``: ``REFUSED`` calls fail with an error instead of killing the process.  The pid checks compare
    with ``PID_PLACEHOLDER``, which the confined process replaces with its own pid.
    """
    arch = filter_architecture()
    if arch is None:
        return None
    if arch == "x86_64":
        numbers, audit, x32 = _X86_64, _AUDIT_ARCH_X86_64, True
    else:
        found = _libseccomp_numbers(platform.machine())
        if found is None:
            return None
        (numbers, audit), x32 = found, False
    prog: list[Insn] = [_ld(_ARCH), (_JEQ_K, 1, 0, audit), _ret(_KILL_PROCESS), _ld(_NR)]
    if x32:
        prog += [(_JGE_K, 0, 1, _X32_BIT), _ret(_KILL_PROCESS)]
    for name, _ in ALLOWED:
        if name in numbers:
            prog += [(_JEQ_K, 0, 1, numbers[name]), _ret(_ALLOW)]
    for name, _ in REFUSED:
        if name in numbers and python:
            code = errno.EPERM if name == "setrlimit" else errno.EACCES
            prog += [(_JEQ_K, 0, 1, numbers[name]), _ret(_ERRNO | code)]
    for name, _ in OWN_PROCESS:
        if name in numbers:
            prog += _block(numbers[name], _own_pid_block(name))  # not taken: A still holds nr
    prog.append(_ret(_KILL_PROCESS))
    if len(prog) > 4096:  # BPF_MAXINSNS
        return None
    return b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in prog)


def describe() -> list[tuple[str, str, str]]:
    """Every call the filter names: (call, what happens, why), for SANDBOX.md and ``doctor``."""
    rows = [(n, "allowed", why) for n, why in ALLOWED]
    rows += [(n, "only on itself", why) for n, why in OWN_PROCESS]
    rows += [(n, "refused (C: killed; Python: EPERM)" if n == "setrlimit" else "refused (C: killed; Python: EACCES)",
              why) for n, why in REFUSED]
    return rows
