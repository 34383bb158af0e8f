"""The jail every tool of a student's build runs in: it reads only the toolchain and the build's folder.

A build runs gcc, g++, as, ld, objcopy and readelf on a student's text.  Those programs run no student code, but
the text can name files for them to open: ``#include "/etc/shadow"``, ``#include MACRO``, ``#include_next``,
``__has_include``, ``_Pragma("GCC dependency ...")``, ``#embed``, the assembler's ``.incbin`` and ``.include``
(from ``asm`` spelt any way the preprocessor can make it), a response file ``@path``, an LTO section that starts
``lto-wrapper``.  Every one of them ends in the kernel's ``open``/``openat``/``openat2`` (or ``execve``), so the
jail confines those calls, not the text: whatever the tools are made to open is checked against an allow-list of
the toolchain's folders and the build's own folder.  Two layers, each sufficient alone:

- **the path watcher** (Linux 5.5, any user, any Landlock ABI, with or without namespaces): each tool starts
  under a seccomp filter that hands every ``open``, ``openat``, ``openat2``, ``creat``, ``execve`` and
  ``execveat`` of it and its children to this process (``SECCOMP_RET_USER_NOTIF``).  The path is read from the
  caller's memory, resolved as the kernel would (its working folder or descriptor, every symlink, nothing under
  ``/proc`` or ``/sys``), and the call continues only when the file is the toolchain's (read, run) or the
  build folder's (read, write).  Anything else fails with ENOENT, whether the file exists or not, so
  ``__has_include`` learns nothing either.  Checking the path in memory and then letting the kernel reread it is
  sound here because the caller is the toolchain, which runs no code of the student's: nothing in it rewrites
  the path between the check and the call, and nothing can plant a symlink in the build folder.
- **Landlock** (where the kernel has it, capped by ``TWENTYONE_LANDLOCK_ABI``): the same allow-list, enforced by
  the kernel on every access.

A build uses every layer the host has; ``layers()`` says which, and a host with neither refuses untrusted builds
in one line (``JailError``).  Each tool also gets limits (memory, CPU, file size, processes), an empty
environment but ``PATH``, ``TMPDIR`` and ``LC_ALL``, stdin from ``/dev/null``, no descriptor of the grader's,
a session of its own (killed whole on a time-out) and death with the grader.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import platform
import resource
import select
import shutil
import signal
import socket
import struct
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from twentyone.players.sandbox import landlock

__all__ = ["Jail", "JailError", "Ran", "Toolchain", "toolchain", "layers", "jail", "run", "watch_problem",
           "WATCHED", "DENIED"]

#: Test-only: the watcher is used where the host has it (never set from the command line).
WATCH = True

#: Calls whose path (or program) is checked, by name: (index of the path argument, of the directory fd or -1).
WATCHED = {"open": (0, -1), "creat": (0, -1), "openat": (1, 0), "openat2": (1, 0), "execve": (0, -1),
           "execveat": (1, 0)}
#: Calls no tool of a build makes, refused with EPERM: other ways to open files or reach other processes.
DENIED = ("open_by_handle_at", "uselib", "io_uring_setup", "open_tree", "fsopen", "fspick", "mount", "ptrace",
          "process_vm_readv", "process_vm_writev")

_NUMBERS = {
    "x86_64": (0xC000003E, {"open": 2, "creat": 85, "openat": 257, "openat2": 437, "execve": 59, "execveat": 322,
                            "open_by_handle_at": 304, "uselib": 134, "io_uring_setup": 425, "open_tree": 428,
                            "fsopen": 430, "fspick": 433, "mount": 165, "ptrace": 101, "process_vm_readv": 310,
                            "process_vm_writev": 311}),
    "aarch64": (0xC00000B7, {"openat": 56, "openat2": 437, "execve": 221, "execveat": 281, "open_by_handle_at": 265,
                             "io_uring_setup": 425, "open_tree": 428, "fsopen": 430, "fspick": 433, "mount": 40,
                             "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271}),
}
_X32_BIT = 0x40000000

# linux/seccomp.h, linux/filter.h
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_GET_ACTION_AVAIL = 2
_FLAG_NEW_LISTENER = 1 << 3
_RET_KILL_PROCESS = 0x80000000
_RET_USER_NOTIF = 0x7FC00000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_NOTIF_RECV = 0xC0502100  # _IOWR('!', 0, struct seccomp_notif)
_NOTIF_SEND = 0xC0182101  # _IOWR('!', 1, struct seccomp_notif_resp)
_NOTIF_ID_VALID = 0x80082102  # _IOR('!', 2, __u64): the number every kernel since 5.0 takes
_FLAG_CONTINUE = 1
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC
_MAX_LINKS = 40

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class JailError(OSError):
    """The jail cannot be set up on this host."""


class _Data(ctypes.Structure):
    _fields_ = [("nr", ctypes.c_int32), ("arch", ctypes.c_uint32), ("ip", ctypes.c_uint64),
                ("args", ctypes.c_uint64 * 6)]


class _Notif(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("pid", ctypes.c_uint32), ("flags", ctypes.c_uint32), ("data", _Data)]


class _Resp(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64), ("val", ctypes.c_int64), ("error", ctypes.c_int32), ("flags", ctypes.c_uint32)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


# -- the toolchain ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Toolchain:
    """The programs a build runs (absolute paths) and the folders they may read and run programs from."""

    programs: dict[str, str]
    folders: tuple[str, ...]

    def __getitem__(self, name: str) -> str:
        return self.programs[name]


_TOOLCHAINS: dict[tuple[str, str], Toolchain] = {}


def toolchain() -> Toolchain:
    """This host's toolchain: ``CC`` (gcc), ``CXX`` (g++), and binutils' ld, objcopy, readelf, nm, found on PATH;
    JailError when one is missing."""
    cc, cxx = os.environ.get("CC", "gcc"), os.environ.get("CXX", "g++")
    found = _TOOLCHAINS.get((cc, cxx))
    if found is not None:
        return found
    programs = {}
    folders = list(landlock.SYSTEM_READ)
    for role, name in (("cc", cc), ("cxx", cxx), ("ld", "ld"), ("objcopy", "objcopy"), ("readelf", "readelf"),
                       ("nm", "nm")):
        where = shutil.which(name)
        if where is None:
            raise JailError(errno.ENOENT, f"the toolchain has no {name} on PATH (needed to build C files)")
        programs[role] = os.path.abspath(where)
        for p in (where, os.path.realpath(where)):
            for home in _homes(os.path.dirname(os.path.abspath(p))):
                if not any(home == f or home.startswith(f + "/") for f in folders):
                    folders.append(home)
    found = _TOOLCHAINS[(cc, cxx)] = Toolchain(programs, tuple(folders))
    return found


def _homes(folder: str) -> list[str]:
    """The folders a program in ``folder`` needs: that folder, and the install prefix above a ``bin`` that holds a
    compiler's own files (``/opt/gcc-13`` for ``/opt/gcc-13/bin/gcc``: its ``libexec/gcc`` and ``lib/gcc``), never a
    home folder above a ``~/bin`` of wrappers."""
    out = [folder]
    prefix = os.path.dirname(folder)
    if os.path.basename(folder) == "bin" and any(os.path.isdir(os.path.join(prefix, d, "gcc"))
                                                 for d in ("lib", "libexec", "lib64")):
        out.append(prefix)
    return out


# -- which layers this host has ----------------------------------------------------------------------------------

def _arch() -> str | None:
    machine = platform.machine()
    return {"AMD64": "x86_64", "arm64": "aarch64"}.get(machine, machine) if platform.system() == "Linux" else None


_WATCH_PROBLEM: list[str] = []


def watch_problem() -> str:
    """Why the path watcher cannot run here ('' when it can)."""
    if not WATCH:
        return "switched off"
    if _WATCH_PROBLEM:
        return _WATCH_PROBLEM[0]
    arch = _arch()
    if arch not in _NUMBERS:
        return f"no table of system calls for {platform.machine()}"
    release = platform.release().split(".")
    try:
        if (int(release[0]), int("".join(c for c in release[1] if c.isdigit()) or 0)) < (5, 5):
            return f"Linux {platform.release()} is older than 5.5"
    except (ValueError, IndexError):
        pass
    action = ctypes.c_uint32(_RET_USER_NOTIF)
    if _libc.syscall(_SYS_SECCOMP[arch], _SECCOMP_GET_ACTION_AVAIL, 0, ctypes.byref(action)) != 0:
        return f"seccomp user notification is not available ({os.strerror(ctypes.get_errno())})"
    if not _TRIED:
        _TRIED.append(True)
        problem = _try_listener()
        if problem:
            _WATCH_PROBLEM.append(problem)
            return problem
    return ""


_TRIED: list[bool] = []


def _said(e: BaseException) -> bytes:
    """What went wrong in a child, for its parent: an OSError's own words."""
    text = (e.strerror or str(e)) if isinstance(e, OSError) else str(e)
    return text.encode("utf-8", "replace")[:500]


def _try_listener() -> str:
    """Install the tools' filter in a child that does nothing else (a container's own filter may already have a
    listener, or forbid seccomp): '' when it could, else why not."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    prog = _filter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports and exits
        try:
            _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            listener = _install(prog)
            socket.send_fds(theirs, [b"k"], [listener])
        except BaseException as e:  # noqa: BLE001 - told to the parent
            try:
                theirs.send(b"e" + _said(e))
            except BaseException:  # noqa: BLE001
                pass
        os._exit(0)
    theirs.close()
    try:
        ours.settimeout(10.0)
        msg, fds, _, _ = socket.recv_fds(ours, 600, 1)
    except OSError as e:
        msg, fds = b"e" + str(e).encode(), []
    finally:
        ours.close()
        os.waitpid(pid, 0)
    for fd in fds:
        os.close(fd)
    return "" if msg.startswith(b"k") and fds else msg[1:].decode("utf-8", "replace") or "no listener"


def layers() -> tuple[int, bool]:
    """(Landlock ABI, watcher) a build uses on this host; JailError when it has neither."""
    abi = landlock.abi()
    watch = not watch_problem()
    if abi < 1 and not watch:
        raise JailError(errno.ENOSYS, "this host cannot confine the compiler (no Landlock, and the path watcher "
                        f"cannot run: {watch_problem()}), so it builds no untrusted C file; run with --trusted only "
                        "files you have read")
    return abi, watch


@dataclass(frozen=True)
class Jail:
    """What a build's tools may read (``folder`` and the toolchain's folders), write (``folder``), and the layers
    that hold it."""

    folder: str
    tools: Toolchain
    landlock_abi: int
    watch: bool
    #: More folders or files the tools may read (the Python headers of a cffi module).
    extra_read: tuple[str, ...] = ()
    #: RLIMIT_NPROC for an ordinary user (None: root, or not limited).
    nproc: int | None = None
    #: (resource, soft, hard) set in every tool.
    limits: tuple[tuple[int, int, int], ...] = ()

    def describe(self) -> str:
        """The layers, as the build cache's key and ``doctor`` name them."""
        return f"landlock {self.landlock_abi}, watcher {'on' if self.watch else 'off'}"


def jail(folder: Path, extra_read: Iterable[str] = (), limits: Sequence[tuple[int, int, int]] = ()) -> Jail:
    """The jail of a build in ``folder``, with the layers this host has; JailError when it has none.  ``limits``
    are (resource, soft, hard) set in every tool."""
    abi, watch = layers()
    nproc = None
    if os.geteuid() != 0:  # root is not bound by RLIMIT_NPROC; an ordinary user's count is all of theirs
        nproc = sum(1 for p in Path("/proc").iterdir() if p.name.isdigit() and _owned(p)) + 64
    return Jail(str(folder), toolchain(), abi, watch, tuple(extra_read), nproc, tuple(limits))


def _owned(p: Path) -> bool:
    try:
        return p.stat().st_uid == os.geteuid()
    except OSError:
        return False


# -- running a tool ----------------------------------------------------------------------------------------------

@dataclass
class Ran:
    """A tool's run: its status (None: stopped at the time limit), what it wrote, the files it was refused."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    refused: list[str] = field(default_factory=list)


def run(j: Jail, argv: Sequence[str], deadline: float) -> Ran:
    """Run ``argv`` (its program an absolute path) in the jail ``j``, in ``j.folder``, until ``deadline``
    (``time.monotonic()``)."""
    out_path = os.path.join(j.folder, f".out-{os.getpid()}-{time.monotonic_ns()}")
    err_path = out_path.replace(".out-", ".err-")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    out_fd, err_fd = os.open(out_path, flags, 0o600), os.open(err_path, flags, 0o600)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    env = {"PATH": os.pathsep.join(dict.fromkeys(os.path.dirname(p) for p in j.tools.programs.values())),
           "TMPDIR": j.folder, "LC_ALL": "C"}
    prog = _filter() if j.watch else b""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child execs the tool or exits
        _child(j, list(argv), env, out_fd, err_fd, theirs, prog)
    theirs.close()
    os.close(out_fd)
    os.close(err_fd)
    refused: list[str] = []
    try:
        code = _supervise(j, pid, ours, deadline, refused)
    except BaseException:  # Ctrl-C, or the jail not set up: nothing of the tool's outlives it
        _end(pid)
        raise
    finally:
        ours.close()
    with open(out_path, "rb") as f:
        out = f.read()
    with open(err_path, "rb") as f:
        err = f.read()
    os.unlink(out_path)
    os.unlink(err_path)
    return Ran(code, out, err, refused)


def tool_output(folder: Path, tool: str, args: Sequence[str], timeout: float) -> str | None:
    """What binutils' ``tool`` (``addr2line``) writes for ``args``, run in a jail of ``folder`` (it reads only that
    folder and the system's); None when it cannot be run so, or fails.  For the engine's reading of a file the
    student wrote (a crash's line from the box program's debug information): parsed unconfined, that text would
    be a parser's attack surface in the grader."""
    where = shutil.which(tool)
    if where is None:
        return None
    try:
        ran = run(jail(folder), [os.path.abspath(where), *args], time.monotonic() + timeout)
    except OSError:
        return None
    if ran.returncode != 0:
        return None
    return ran.stdout.decode("utf-8", "replace")


def _child(j: Jail, argv: list[str], env: dict[str, str], out_fd: int, err_fd: int, sock: socket.socket,
           prog: bytes) -> None:  # pragma: no cover - runs in the forked child
    """In the tool's process, before it starts: limits, descriptors, the layers; then exec the tool."""
    try:
        os.setsid()
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        for sig in (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        keep = sock.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], keep + 1))
        os.chdir(j.folder)
        for res, soft, hard in j.limits:
            resource.setrlimit(res, (soft, hard))
        if j.nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (j.nproc, j.nproc))
        if j.landlock_abi >= 1:
            landlock.restrict(read=[*j.tools.folders, *j.extra_read], write=[j.folder, os.devnull],
                              execute=j.tools.folders)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if prog:
            listener = _install(prog)
            socket.send_fds(sock, [b"k"], [listener])
            os.close(listener)
        else:
            sock.send(b"k")
        sock.close()
        os.execve(argv[0], argv, env)
    except BaseException as e:  # noqa: BLE001 - told to the parent, then gone
        try:
            sock.send(b"e" + _said(e))
        except BaseException:  # noqa: BLE001
            pass
    os._exit(127)


def _filter() -> bytes:
    """The tools' seccomp program: watched calls to this process, denied calls EPERM, anything else allowed;
    another architecture's calls (i386, x32) kill."""
    arch = _arch()
    audit, numbers = _NUMBERS[arch or ""]
    prog = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, audit), (_RET_K, 0, 0, _RET_KILL_PROCESS), (_LD_W_ABS, 0, 0, 0)]
    if arch == "x86_64":
        prog += [(_JGE_K, 0, 1, _X32_BIT), (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    for name in WATCHED:
        if name in numbers:
            prog += [(_JEQ_K, 0, 1, numbers[name]), (_RET_K, 0, 0, _RET_USER_NOTIF)]
    for name in DENIED:
        if name in numbers:
            prog += [(_JEQ_K, 0, 1, numbers[name]), (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)]
    prog.append((_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(struct.pack("=HBBI", *insn) for insn in prog)


def _install(prog: bytes) -> int:  # pragma: no cover - runs in the forked child
    buf = ctypes.create_string_buffer(prog)
    fprog = _Prog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    fd = _libc.syscall(_SYS_SECCOMP[_arch() or ""], _SECCOMP_SET_MODE_FILTER, _FLAG_NEW_LISTENER, ctypes.byref(fprog))
    if fd < 0:
        raise OSError(ctypes.get_errno(), f"seccomp listener: {os.strerror(ctypes.get_errno())}")
    return int(fd)


def _supervise(j: Jail, pid: int, sock: socket.socket, deadline: float, refused: list[str]) -> int | None:
    """Answer the tool's watched calls until it ends; its exit status (None: killed at ``deadline``)."""
    listener = -1
    try:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 600, 1)
        except (socket.timeout, OSError):
            msg, fds = b"", []
        if fds:
            listener = fds[0]
        if not msg.startswith(b"k"):
            _end(pid)
            problem = msg[1:].decode("utf-8", "replace") or "it ended before it started"
            if "seccomp listener" in problem:
                _WATCH_PROBLEM.append(problem)
            raise JailError(errno.EPERM, f"the compiler's jail could not be set up: {problem}")
        return _serve(j, pid, listener, deadline, refused)
    finally:
        if listener >= 0:
            os.close(listener)


def _serve(j: Jail, pid: int, listener: int, deadline: float, refused: list[str]) -> int | None:
    watcher = _Watcher(j, listener, refused) if listener >= 0 else None
    pidfd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        if watcher is not None:
            poller.register(listener, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                _end(pid)
                return None
            for fd, ev in poller.poll(left * 1000):
                if fd == pidfd:
                    _, status = os.waitpid(pid, 0)
                    _end(pid)
                    return os.waitstatus_to_exitcode(status)
                if ev & select.POLLIN and watcher is not None:
                    watcher.answer()
                elif ev & (select.POLLHUP | select.POLLERR):
                    poller.unregister(listener)
    finally:
        os.close(pidfd)


def _end(pid: int) -> None:
    """Kill whatever is left of the tool's session, and reap the tool."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


# -- the watcher ----------------------------------------------------------------------------------------------------

class _Watcher:
    """The allow-list of a jail, as resolved paths, and the answers to the watched calls of one tool's run."""

    def __init__(self, j: Jail, listener: int, refused: list[str]) -> None:
        _, numbers = _NUMBERS[_arch() or ""]
        self.names = {n: name for name, n in numbers.items()}
        self.read = _Folders(*j.tools.folders, *j.extra_read, j.folder)
        self.run = _Folders(*j.tools.folders)
        self.write = _Folders(j.folder)
        self.files = {os.devnull}
        self.listener = listener
        self.refused = refused
        self.notif = _Notif()
        self.valid = ctypes.c_uint64()
        #: Folders resolved during this run (the toolchain's and the build folder's do not change while it runs).
        self.folders: dict[str, str | None] = {}

    def allows(self, name: str, path: str, flags: int) -> bool:
        if path in self.files:
            return True
        if name.startswith("exec"):
            return self.run.holds(path)
        return (self.write if flags & _WRITING else self.read).holds(path)

    def answer(self) -> None:
        """Receive one watched call, decide it, answer it."""
        notif = self.notif
        ctypes.memset(ctypes.addressof(notif), 0, ctypes.sizeof(notif))  # the kernel takes only a zeroed one
        try:
            fcntl.ioctl(self.listener, _NOTIF_RECV, notif, True)
        except OSError:
            return  # the caller was killed before its call was received
        name = self.names.get(notif.data.nr, "")
        at, dirat = WATCHED.get(name, (-1, -1))
        args = notif.data.args
        pid = notif.pid
        raw = self._read(pid, args[at], 4096) if at >= 0 else b""
        flags = 0
        if name in ("open", "openat"):
            flags = args[at + 1]
        elif name == "creat":
            flags = _WRITING
        elif name == "openat2":
            how = self._read(pid, args[2], 8, string=False)
            flags = int.from_bytes(how, "little") if len(how) == 8 else _WRITING
        dirfd = ctypes.c_int32(args[dirat] & 0xFFFFFFFF).value if dirat >= 0 else _AT_FDCWD
        if name == "execveat" and not raw and args[4] & _AT_EMPTY_PATH:
            where = _link(f"/proc/{pid}/fd/{dirfd}")
        else:
            where = self._where(pid, raw, dirfd)
        self.valid.value = notif.id
        try:
            fcntl.ioctl(self.listener, _NOTIF_ID_VALID, self.valid)
        except OSError:
            return  # gone: what was read may be another process's
        if where is not None and self.allows(name, where, flags):
            resp = _Resp(notif.id, 0, 0, _FLAG_CONTINUE)
        else:
            code = errno.EACCES if flags & _WRITING and not name.startswith("exec") else errno.ENOENT
            resp = _Resp(notif.id, 0, -code, 0)
            if raw:
                self.refused.append(raw.decode("utf-8", "replace"))
        try:
            fcntl.ioctl(self.listener, _NOTIF_SEND, resp)
        except OSError:
            pass  # the caller was killed meanwhile

    @staticmethod
    def _read(pid: int, addr: int, most: int, string: bool = True) -> bytes:
        """Up to ``most`` bytes of process ``pid``'s memory at ``addr`` (up to a NUL when ``string``), a page at a
        time.  The file is opened for every call: one kept open would still read a memory the process left by
        ``execve``, or its parent's after a ``vfork``."""
        try:
            fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return b""
        out = b""
        try:
            while len(out) < most:
                chunk = min(most - len(out), 4096 - (addr + len(out)) % 4096)
                try:
                    got = os.pread(fd, chunk, addr + len(out))
                except OSError:
                    break
                if not got:
                    break
                if string and b"\0" in got:
                    return out + got[:got.index(b"\0")]
                out += got
        finally:
            os.close(fd)
        return out

    def _where(self, pid: int, raw: bytes, dirfd: int) -> str | None:
        """The file a call of process ``pid`` names (``raw`` from ``dirfd``), every symlink resolved; None when it
        cannot be told, or lies under /proc or /sys."""
        if not raw or len(raw) >= 4096:
            return None
        path = os.fsdecode(raw)
        if not path.startswith("/"):
            base = _link(f"/proc/{pid}/cwd" if dirfd == _AT_FDCWD else f"/proc/{pid}/fd/{dirfd}")
            if base is None:
                return None
            path = base + "/" + path
        head, _, tail = path.rpartition("/")
        if tail in ("", ".", ".."):
            return _resolve(path)
        folder = self.folders.get(head, "?")
        if folder == "?":
            folder = self.folders[head] = _resolve(head or "/")
        if folder is None:
            return None
        full = folder.rstrip("/") + "/" + tail
        try:
            os.readlink(full)
        except OSError:
            return full  # not a symlink (or nothing there): the resolved folder and the name
        return _resolve(full)


class _Folders:
    """Folders (or files), resolved: ``holds`` a resolved path when it is one of them or lies beneath one."""

    def __init__(self, *paths: str) -> None:
        resolved = [r for r in map(_resolve, paths) if r]
        self.exact = frozenset(resolved)
        self.prefixes = tuple(r.rstrip("/") + "/" for r in resolved)

    def holds(self, path: str) -> bool:
        return path in self.exact or path.startswith(self.prefixes)


def _link(path: str) -> str | None:
    try:
        target = os.readlink(path)
    except OSError:
        return None
    return target if target.startswith("/") and not target.endswith(" (deleted)") else None



def _resolve(path: str) -> str | None:
    """``path`` with every ``.``, ``..`` and symlink resolved, as the kernel walks it; None when the walk reaches
    /proc or /sys (whose links name the caller's own files, not ours), or loops."""
    todo = [p for p in path.split("/") if p][::-1]
    done: list[str] = []
    links = 0
    while todo:
        part = todo.pop()
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        here = "/" + "/".join([*done, part])
        if here in ("/proc", "/sys"):
            return None
        try:
            target = os.readlink(here)
        except OSError:
            done.append(part)
            continue
        links += 1
        if links > _MAX_LINKS:
            return None
        if target.startswith("/"):
            done = []
        todo.extend([p for p in target.split("/") if p][::-1])
    return "/" + "/".join(done)
