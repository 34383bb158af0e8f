"""Landlock: confine this process (and everything it starts) to the files it needs, without root.

``restrict(read=..., write=...)`` makes every other path unreadable and unwritable, forbids running
programs outside ``execute``, and, where the kernel has them, TCP connections and binds (ABI 4) and
signals and abstract unix sockets towards processes outside the confined domain (ABI 6).  Rules are
inherited by children and cannot be lifted.  The sandbox uses it for the compiler (which may read only
the toolchain and its scratch folder); a box sets its own Landlock domain from C (c_src/box/tw_confine.c).  ``abi()`` is 0 where Landlock is missing.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable

__all__ = ["abi", "kernel_abi", "restrict", "LandlockError", "SYSTEM_READ"]

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on x86_64 and aarch64
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (ABI 1 unless noted).
_EXECUTE = 1 << 0
_WRITE_FILE = 1 << 1
_READ_FILE = 1 << 2
_READ_DIR = 1 << 3
_REMOVE_DIR = 1 << 4
_REMOVE_FILE = 1 << 5
_MAKE_CHAR = 1 << 6
_MAKE_DIR = 1 << 7
_MAKE_REG = 1 << 8
_MAKE_SOCK = 1 << 9
_MAKE_FIFO = 1 << 10
_MAKE_BLOCK = 1 << 11
_MAKE_SYM = 1 << 12
_REFER = 1 << 13  # ABI 2
_TRUNCATE = 1 << 14  # ABI 3
_IOCTL_DEV = 1 << 15  # ABI 5
_FILE_ONLY = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_READ = _READ_FILE | _READ_DIR
_WRITE = (_WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE_DIR | _MAKE_REG | _MAKE_SYM | _MAKE_FIFO | _MAKE_SOCK
          | _TRUNCATE)
# Network rights (ABI 4) and scopes (ABI 6).
_BIND_TCP = 1 << 0
_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX = 1 << 0
_SCOPE_SIGNAL = 1 << 1

#: System folders a confined process may read (and run programs from): libraries, compilers, headers.
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/alternatives")


class LandlockError(OSError):
    """Landlock could not be set up."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def kernel_abi() -> int:
    """The kernel's own Landlock ABI version, 0 when Landlock is not available (or not on Linux)."""
    if platform.system() != "Linux":
        return 0
    v = _libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return int(v) if v > 0 else 0


def abi() -> int:
    """The Landlock ABI the tool uses: the kernel's, capped by ``TWENTYONE_LANDLOCK_ABI`` (0: as if the kernel
    had none, to try an older host's behaviour; ``TWENTYONE_NO_LANDLOCK`` is the same as 0)."""
    if os.environ.get("TWENTYONE_NO_LANDLOCK"):
        return 0
    cap = os.environ.get("TWENTYONE_LANDLOCK_ABI", "").strip()
    version = kernel_abi()
    return min(version, int(cap)) if cap.isdigit() else version


def _handled(version: int) -> int:
    fs = (_EXECUTE | _READ | _WRITE | _MAKE_CHAR | _MAKE_BLOCK) & ~_TRUNCATE
    if version >= 2:
        fs |= _REFER
    if version >= 3:
        fs |= _TRUNCATE
    if version >= 5:
        fs |= _IOCTL_DEV
    return fs


def restrict(read: Iterable[str] = (), write: Iterable[str] = (), execute: Iterable[str] = SYSTEM_READ,
             system: bool = True) -> int:
    """Confine this process: read only ``read`` (and the system folders if ``system``), write only ``write``,
    run programs only from ``execute``.  Returns the ABI used; raises LandlockError if it cannot.

    A path that does not exist is skipped.  A file may be named as well as a folder.
    """
    version = abi()
    if version == 0:
        raise LandlockError("landlock is not available")
    handled = _handled(version)
    attr = _RulesetAttr(handled, (_BIND_TCP | _CONNECT_TCP) if version >= 4 else 0,
                        (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if version >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if version >= 6 else (16 if version >= 4 else 8)
    fd = int(_libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)))
    if fd < 0:
        raise LandlockError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        rules: dict[str, int] = {}
        for p in (*(SYSTEM_READ if system else ()), *read):
            rules[p] = rules.get(p, 0) | _READ
        for p in execute:
            rules[p] = rules.get(p, 0) | _EXECUTE
        for p in write:
            rules[p] = rules.get(p, 0) | _READ | _WRITE
        for path, access in rules.items():
            _add(fd, path, access & handled)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LandlockError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if _libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)
    return version


def _add(ruleset: int, path: str, access: int) -> None:
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine does not have
    try:
        if not os.path.isdir(path):
            access &= _FILE_ONLY
        rule = _PathBeneath(access, pfd)
        if _libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                         ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(pfd)
