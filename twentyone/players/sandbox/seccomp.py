"""The system-call allow-list of a sandboxed child, as a seccomp filter (through libseccomp).

The filter is built once per zygote (``build_filter``) and loaded by each child just before it runs
student code (``FilterLoader``); any call not on the list kills the child with SIGSYS, which the
engine reports as "forbidden system call".  Without libseccomp the children run on resource limits
only, and the engine says so once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
from typing import Any

__all__ = ["build_filter", "FilterLoader", "seccomp_available"]

_ALLOWED = ("read", "write", "readv", "writev", "close", "fstat", "newfstatat", "lseek", "mmap", "munmap",
            "mremap", "mprotect", "madvise", "brk", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
            "sigaltstack", "futex", "clock_gettime", "clock_getres", "gettimeofday", "nanosleep",
            "clock_nanosleep", "getpid", "gettid", "exit", "exit_group", "getrandom", "poll", "ppoll",
            "select", "pselect6", "sched_yield", "getrusage", "times", "restart_syscall", "fcntl",
            "ioctl", "sysinfo", "prlimit64", "getuid", "geteuid")

_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_ACT_KILL_PROCESS = 0x80000000
_SCMP_CMP_EQ = 4


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _libseccomp() -> Any:
    if os.environ.get("TWENTYONE_NO_SECCOMP"):
        return None  # for testing the fallback, and for machines where the filter must be off
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def seccomp_available() -> bool:
    """True when libseccomp can be loaded, so children run under the system-call allow-list."""
    return _libseccomp() is not None


_PID_PLACEHOLDER = 0x7EADBEEF


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def build_filter() -> bytes | None:
    """The allow-list as a classic BPF program (built once, in the zygote), or None without libseccomp.

    The tgkill rule compares with a placeholder pid that each child replaces with its own.
    """
    lib = _libseccomp()
    if lib is None:
        return None
    ctx = _filter_context(lib, _PID_PLACEHOLDER)
    if not ctx:
        return None
    r, w = os.pipe()
    try:
        lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
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


def _filter_context(lib: Any, pid: int) -> Any:
    """A libseccomp context holding the allow-list, tgkill allowed only towards ``pid``."""
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    ctx = lib.seccomp_init(_SCMP_ACT_KILL_PROCESS)
    if not ctx:
        return None
    for name in _ALLOWED:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr >= 0:
            lib.seccomp_rule_add_array(ctx, _SCMP_ACT_ALLOW, nr, 0, None)
    nr = lib.seccomp_syscall_resolve_name(b"tgkill")
    cmp = (_ArgCmp * 1)(_ArgCmp(0, _SCMP_CMP_EQ, pid, 0))
    lib.seccomp_rule_add_array(ctx, _SCMP_ACT_ALLOW, nr, 1, cmp)
    return ctx

