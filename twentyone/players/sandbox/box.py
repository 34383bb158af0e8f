"""The engine's side of one sandboxed match's process (a *box*): start it, configure it, learn its fate.

A box is started by the engine itself (``posix_spawn``), afresh for every match, and ends with it: a
compiled submission's own box program (``c_src/box/tw_box.c`` linked with the student's objects by
``players.cbuild``), or ``python -I`` running ``players.sandbox.pybox`` for a Python submission.  It gets
an empty environment and five descriptors, nothing else:

    0 a pipe at end of file (its own)    1, 2 the match's capture file (its own)    3 the request pipe
    4 the reply pipe

No kernel object is shared with another box or with the engine beyond these: standard input is a pipe made
for the box whose other end the engine closes at once (it was ``/dev/null``, one inode every box held: its
locks were a channel between boxes), and a match without a capture file writes into a memory file of its own
(``memfd``), capped by the same file-size limit as a capture file.

The engine writes the configuration on the request pipe (``CONFIG`` then the empty root's path, the
system-call filter and, for Python, the source); the box confines itself (``c_src/box/tw_confine.c``) and
answers with an ``H`` frame naming the layers that hold, before anything of the student's runs; then it
runs the student's initialisers (or the Python file) and says ``P``.  Everything the engine knows of the
box besides those frames comes from the kernel: its pid from the spawn (a pidfd for every signal), its end
from ``wait4`` (status and CPU time).  Nothing the box writes is trusted: ``client`` checks every frame.
"""

from __future__ import annotations

import os
import select
import signal
import struct
import sys
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal
from enum import IntFlag
from pathlib import Path

from twentyone.players.sandbox import landlock
from twentyone.players.sandbox.wire import CONFIG, MAX_TEXT, REPLY

__all__ = ["Layers", "Box", "BoxSettings", "BoxStartError", "Start", "spawn", "await_ready", "landlock_cap",
           "userns_allowed", "python_argv", "Zygote", "zygote", "program_zygote"]

_MAGIC, _VERSION = 0x58425754, 2
_F_USERNS = 0x01
#: How a faulthandler dump begins (a Python box dying of a signal: ``pybox`` has faulthandler write it on the
#: reply pipe); any other bytes are frames.
_DUMPS = (b"Stack (m", b"Current ", b"Fatal Py")
#: The most words a crash report (``C`` frame) may carry (c_src/box/tw_box.c's TW_CRASH_WORDS).
MAX_CRASH = 24
#: How often (seconds) a request that has not been answered is looked at, and how long a box may be blocked
#: in one call or while loading (neither running nor waiting for a CPU) before that is its fault.
SLICE = 0.1
BLOCKED = 0.3


class Layers(IntFlag):
    """What holds in a box (TW_LAYER_* of tw_confine.h); ``landlock_abi`` is kept in bits 8..15."""

    SECCOMP = 0x01
    LANDLOCK = 0x02
    EMPTY_ROOT = 0x04
    UID_DROP = 0x08
    USERNS = 0x10
    LIMITS = 0x20
    DESCRIPTORS = 0x40
    NO_PROCESSES = 0x80

    @staticmethod
    def of(value: int) -> tuple[Layers, int]:
        """The layers and the Landlock ABI of an ``H`` frame's value."""
        return Layers(value & 0xFF), (value >> 8) & 0xFF

    @property
    def minimum(self) -> bool:
        """True when the minimum holds: the filter, the limits and only the engine's descriptors."""
        need = Layers.SECCOMP | Layers.LIMITS | Layers.DESCRIPTORS
        return self & need == need

    def describe(self, abi: int) -> str:
        """The layers in words, as ``grade`` and ``doctor`` print them."""
        words = []
        if self & Layers.SECCOMP:
            words.append("system-call filter")
        if self & Layers.LANDLOCK:
            words.append(f"Landlock ABI {abi}")
        if self & Layers.EMPTY_ROOT:
            words.append("empty root")
        if self & Layers.UID_DROP:
            words.append("unprivileged uid")
        if self & Layers.USERNS:
            words.append("user namespace")
        if self & Layers.LIMITS:
            words.append("resource limits")
        if self & Layers.NO_PROCESSES:
            words.append("no processes")
        return ", ".join(words) or "none"


class BoxStartError(Exception):
    """A box could not be started or configured (``host`` True: this machine cannot confine one at all)."""

    def __init__(self, message: str, host: bool = False) -> None:
        super().__init__(message)
        self.host = host


def landlock_cap() -> int:
    """The highest Landlock ABI boxes use (``landlock.abi``: the kernel's, capped by ``TWENTYONE_LANDLOCK_ABI``)."""
    return landlock.abi()


def userns_allowed() -> bool:
    """False when ``TWENTYONE_USERNS=0`` forbids boxes a user namespace (as a host that has none would)."""
    return os.environ.get("TWENTYONE_USERNS", "1").strip() != "0"


@dataclass(frozen=True)
class BoxSettings:
    """Everything a box is configured with besides what it plays."""

    memory_bytes: int
    output_bytes: int
    cpu_seconds: int
    open_files: int
    decision_usec: int
    root: Path
    bpf: bytes
    #: Layers not to set (``tw_box_config.off``): the doctor's and the tests' switch, never a match's.
    off: Layers = Layers(0)

    def config(self, k: int, extra: bytes = b"") -> bytes:
        """The configuration the box reads first: ``CONFIG``, the root, the filter, ``extra``."""
        root = os.fsencode(self.root)
        flags = _F_USERNS if userns_allowed() else 0
        off = self.off | FORCE_OFF
        head = CONFIG.pack(_MAGIC, _VERSION, flags, os.getpid(), landlock_cap(), -1, -1, k, self.memory_bytes,
                           self.output_bytes, self.decision_usec, self.cpu_seconds, self.open_files, len(root),
                           len(self.bpf), len(extra), int(off))
        return head + root + self.bpf + extra


#: Layers turned off in every box this process starts: the tests' switch, to show that the doctor and the commands
#: refuse a host where a layer is missing.  No option, file or environment variable sets it.
FORCE_OFF = Layers(0)


def python_argv(package_root: Path, entry: str = "main", *extra: str) -> list[str]:
    """The command of a Python box (``entry``: ``main``; ``zygote``: the fork server's): isolated (``-I``: no
    environment, no user site, no working folder on the path) and without ``site`` (``-S``: the path is the
    package's folder and the installation's site-packages, given here), moved to ``/`` before anything but the
    interpreter's own start-up has run.  ``extra`` follows the paths (the zygote's: the engine's pid)."""
    import site

    paths = [str(package_root), *site.getsitepackages()]
    boot = (f"import os, sys; os.chdir('/'); sys.path[:0] = sys.argv[1:{1 + len(paths)}]; "
            f"from twentyone.players.sandbox import pybox; pybox.{entry}()")
    return [sys.executable, "-I", "-S", "-B", "-c", boot, *paths, *extra]


def _high(fd: int) -> int:
    """A copy of ``fd`` numbered 10 or more (close-on-exec), so that the box's dup2 actions never collide."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)


class Box:
    """One started box: its pid and pidfd (from the spawn), its pipes, and how it ended (from the kernel)."""

    __slots__ = ("pid", "pidfd", "wfd", "rfd", "status", "cpu", "started", "retired", "buf", "ready", "crash",
                 "cpu_clock", "dump", "_sched", "_sample", "blocked", "killed", "watched", "retired_cpu")

    def __init__(self, pid: int, wfd: int, rfd: int) -> None:
        self.pid = pid
        try:
            self.pidfd = os.pidfd_open(pid)
        except OSError:
            self.pidfd = -1
        self.wfd = wfd
        self.rfd = rfd
        #: Its CPU-time clock (clock_getcpuclockid: the kernel's count of its CPU, readable by its parent).
        self.cpu_clock = ((~pid) << 3) | 2
        #: The wait status and the CPU seconds it used, once reaped.
        self.status: int | None = None
        self.cpu = 0.0
        self.started = time.monotonic()
        self.retired = 0.0
        #: Its CPU clock when it was told its match was over.
        self.retired_cpu = 0.0
        self.buf = b""
        #: True once it has confined itself and loaded the student's code (``H`` and ``P``).
        self.ready = False
        #: What its ``C`` frame said of a crash (signal, faulting address, load address, instruction pointer,
        #: return addresses), if it sent one: its own word, used only to name a line of its file.
        self.crash: tuple[int, ...] = ()
        #: A Python box's traceback, written by faulthandler as it died of a signal (its own word, used only to
        #: name a line of its file).
        self.dump = b""
        self._sched = -1
        #: The last (wall, running + waiting for a CPU) sample of a call it has not answered yet, and the
        #: seconds of that call it spent blocked (neither running nor waiting for a CPU).
        self._sample: tuple[float, float] | None = None
        self.blocked = 0.0
        #: The engine sent it SIGKILL (so a SIGKILL in its status is not the kernel's, at its CPU limit).
        self.killed = False
        #: The kernel's figures of it (schedstat) could be read: a call is then judged by them, not the wall clock.
        self.watched = False

    def kill(self) -> None:
        """SIGKILL it (through its pidfd: never another process that took its pid)."""
        if self.status is not None:
            return
        self.killed = True
        try:
            if self.pidfd >= 0:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def reap(self, timeout: float) -> int | None:
        """Its wait status, waiting up to ``timeout`` s for it to end (None if it has not)."""
        if self.status is not None:
            return self.status
        if timeout > 0 and self.pidfd >= 0:
            select.select([self.pidfd], [], [], timeout)
        try:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG if timeout >= 0 else 0)
        except ChildProcessError:
            pid, status, usage = self.pid, 0, None
        if pid == 0:
            return None
        self.status = status
        if usage is not None:
            self.cpu = usage.ru_utime + usage.ru_stime
        self._close()
        return status

    def reap_or_kill(self, timeout: float) -> int:
        """Its wait status: it is given ``timeout`` s to end, then killed."""
        status = self.reap(timeout)
        if status is None:
            self.kill()
            status = self.reap(-1)
        return status if status is not None else 0

    def frame(self, timeout: float, text_ok: bool = True) -> tuple[bytes, int, bytes] | None:
        """Its next reply frame (tag, value, text), None at its end; TimeoutError after ``timeout`` s.

        Reads at most one frame's worth: an ``E`` frame whose text is longer than ``wire.MAX_TEXT`` (or any
        ``E`` frame when not ``text_ok``) comes back as tag ``?``; the caller treats it as malformed.  A ``C``
        frame (a crash report, at most ``MAX_CRASH`` words) is kept in ``crash`` and reading goes on.
        """
        end = 0.0
        while True:
            buf = self.buf
            if buf[:8] in _DUMPS:
                self._read_dump()
                return None
            if len(buf) >= 8:
                tag, value = REPLY.unpack_from(buf)
                if tag == b"C" and 0 < value <= MAX_CRASH and not self.crash:
                    if len(buf) >= 8 + 8 * value:
                        self.crash = struct.unpack_from(f"={value}Q", buf, 8)
                        self.buf = buf[8 + 8 * value:]
                        continue
                elif tag != b"E":
                    self.buf = buf[8:]
                    return tag, value, b""
                elif not text_ok or not 0 <= value <= MAX_TEXT:
                    self.buf = b""
                    return b"?", value, b""
                elif len(buf) >= 8 + value:
                    self.buf = buf[8 + value:]
                    return tag, value, buf[8:8 + value]
            if end == 0.0:
                end = time.monotonic() + timeout
                left = timeout
            else:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError
            if not select.select([self.rfd], [], [], max(left, 0.0))[0]:
                raise TimeoutError
            try:
                chunk = os.read(self.rfd, 8 + MAX_TEXT - len(buf))
            except OSError:
                return None
            if not chunk:
                return None
            self.buf = buf + chunk

    def _read_dump(self) -> None:
        """The rest of a faulthandler dump (a Python box dying of a signal writes one, then ends): at most
        ``MAX_TEXT`` bytes, for as long as it takes the box to end (bounded)."""
        data = self.buf
        self.buf = b""
        end = time.monotonic() + 2.0
        while len(data) < MAX_TEXT:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                break
            try:
                chunk = os.read(self.rfd, MAX_TEXT - len(data))
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        self.dump = data[:MAX_TEXT]

    def stalled(self, limit: float) -> bool:
        """Called while a request waits for its answer: True once the box has spent ``limit`` seconds of this
        call blocked, neither running nor waiting for a CPU, and is blocked still.  The kernel's figures
        (``/proc/PID/schedstat``: time on a CPU, time waiting for one) count from the first look on; a box's
        sleeps return at once, so only waiting on a descriptor, or being stopped, blocks it.  A loaded machine,
        which keeps a box waiting for a CPU (state ``R``), is never counted.  ``new_call`` starts again."""
        now = time.monotonic()
        try:
            if self._sched < 0:
                self._sched = os.open(f"/proc/{self.pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            fields = os.pread(self._sched, 128, 0).split()
            busy = (int(fields[0]) + int(fields[1])) / 1e9
        except (OSError, IndexError, ValueError):
            self.watched = False
            return False
        self.watched = True
        if self._sample is None:
            self._sample = (now, busy)
            return False
        wall, before = self._sample
        # Cumulative from the first look: the kernel credits a wait only when it ends, so a single interval can
        # look blocked; over the whole call the credit comes back.
        self.blocked = (now - wall) - (busy - before)
        # Only S (waiting on something) and T (stopped) are its own doing; D (the kernel's own I/O: a page read back
        # under memory pressure) is not charged.
        return self.blocked >= limit and self._state() in (b"S", b"T", b"t")

    def _state(self) -> bytes:
        """Its state letter (``/proc/PID/stat``): R running or waiting for a CPU, S or D blocked, T stopped."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                return f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            return b"?"

    def replied(self) -> bool:
        """True when bytes of the box's wait unread on its reply pipe: it has answered, and waits for the engine
        (an engine starved of a CPU for a while reads late; the box's wait is then not its own doing)."""
        try:
            return bool(select.select([self.rfd], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    def new_call(self) -> None:
        """A new request: its blocked time starts from nothing."""
        self._sample = None
        self.blocked = 0.0

    def cpu_seconds(self) -> float:
        """The CPU time it has used so far (from /proc while it runs)."""
        if self.status is not None:
            return self.cpu
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def close_pipes(self) -> None:
        for fd in (self.wfd, self.rfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.wfd = self.rfd = -1

    def _close(self) -> None:
        self.close_pipes()
        if self._sched >= 0:
            os.close(self._sched)
            self._sched = -1
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1


def private_output() -> int:
    """A memory file of the box's own, for a match whose output nobody reads (its size capped like a capture
    file's by the box's RLIMIT_FSIZE): never ``/dev/null``, which every process shares."""
    return os.memfd_create("twentyone-output", os.MFD_CLOEXEC)


#: The capture files this process has given a box, and to whom (a submission's sets: one owner).
_CAPTURED: weakref.WeakValueDictionary[Path, object] = weakref.WeakValueDictionary()


def capture_file(folder: Path, label: str, k: int, match_no: int, owner: object) -> tuple[int, Path]:
    """The capture file of set ``k`` of the submission ``label`` in match ``match_no``, opened for ``owner``:
    (fd, path).  Two hand-ins of one label (two folders' mycodes.c) never share a file, whose size each box could
    watch: the second is ``LABEL-2-set...``.  OSError when it cannot be written."""
    folder.mkdir(parents=True, exist_ok=True)
    path, n = folder / f"{label}-set{k}-match{match_no}.out", 1
    while _CAPTURED.get(path, owner) is not owner:
        n += 1
        path = folder / f"{label}-{n}-set{k}-match{match_no}.out"
    _CAPTURED[path] = owner
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    return fd, path


def spawn(argv: list[str], config: bytes, capture_fd: int, stdout_fd: int = -1,
          inherit: tuple[int, ...] = (), zygote: Zygote | None = None) -> Box:
    """Start a box running ``argv`` on its descriptors and write it ``config``; raise BoxStartError if the
    system refuses to start it.  Its standard output and error go to ``capture_fd`` (standard output to
    ``stdout_fd`` instead, when given); its standard input is a pipe of its own at end of file.  ``inherit``:
    descriptors it gets as 5, 6, ... besides (the doctor's probe of a descriptor the grader leaked).  With a
    ``zygote`` (a Python box), the zygote forks it instead of a new program being started."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    in_r, in_w = os.pipe()
    os.close(in_w)
    sources = [_high(capture_fd), _high(req_r), _high(rep_w), _high(stdout_fd if stdout_fd >= 0 else capture_fd),
               _high(in_r)]
    extra = [_high(fd) for fd in inherit]
    for fd in (req_r, rep_w, in_r):
        os.close(fd)
    cap, rq, rp, out, stdin = sources
    try:
        pid = zygote.fork([stdin, out, cap, rq, rp]) if zygote is not None and not inherit else 0
        if not pid:  # no fork server, or it has gone: the box is started afresh
            actions = [(os.POSIX_SPAWN_DUP2, stdin, 0), (os.POSIX_SPAWN_DUP2, out, 1),
                       (os.POSIX_SPAWN_DUP2, cap, 2), (os.POSIX_SPAWN_DUP2, rq, 3), (os.POSIX_SPAWN_DUP2, rp, 4)]
            actions += [(os.POSIX_SPAWN_DUP2, fd, 5 + i) for i, fd in enumerate(extra)]
            pid = os.posix_spawn(argv[0], argv, {}, file_actions=actions, setpgroup=0, setsigdef=_DEFAULTS)
    except OSError as e:
        for fd in (*sources, *extra, req_w, rep_r):
            os.close(fd)
        raise BoxStartError(f"cannot start the sandbox's process: {e.strerror or e}") from None
    for fd in (*sources, *extra):
        os.close(fd)
    box = Box(pid, req_w, rep_r)
    view = memoryview(config)
    try:
        while view:
            view = view[os.write(req_w, view):]
    except OSError:
        pass  # it died at once: its first frame, or its end, says why
    return box


#: The signals a box starts with at their default action (the engine's Python ignores some, and exec keeps that).
_DEFAULTS = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGPROF, signal.SIGXCPU, signal.SIGSEGV,
             signal.SIGCHLD, signal.SIGSYS)


class Zygote:
    """A fork server of the engine's boxes (SANDBOX.md, "A fork server for boxes"): for Python boxes
    (``pybox.zygote``), one per engine process, that has loaded what every Python box loads and forks each box from
    there, in a few milliseconds of CPU instead of a new interpreter's 70; for a compiled submission's, its box
    program started as ``zygote`` (``program_zygote``), about 0.25 ms instead of a new program's 1.1.

    The engine is made a child subreaper (``PR_SET_CHILD_SUBREAPER``) while it asks for a box: the zygote forks a
    child that forks the box and leaves, so the box's parent is the engine, which learns its pid from the zygote, checks that it is its
    own child (``waitpid``), and its end from the kernel like any box's.  The zygote never runs a line of a
    student's: each box reads its configuration and its file from its own pipe, after the fork."""

    def __init__(self, argv: list[str]) -> None:
        import socket

        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = mine
        self.sock.settimeout(30.0)
        self.lock = threading.Lock()
        self.gone = False
        self.owner = os.getpid()
        out = private_output()
        in_r, in_w = os.pipe()
        os.close(in_w)
        try:
            actions = [(os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2),
                       (os.POSIX_SPAWN_DUP2, theirs.fileno(), 3)]
            self.pid = os.posix_spawn(argv[0], [*argv, str(os.getpid())], {}, file_actions=actions, setpgroup=0,
                                      setsigdef=_DEFAULTS)
        finally:
            for fd in (in_r, out):
                os.close(fd)
            theirs.close()

    def fork(self, fds: list[int]) -> int:
        """A new box on ``fds`` (its 0 to 4): its pid, once it is this process's child; 0 when the zygote has
        gone (the box is then started afresh); OSError when it cannot give one.  One request at a time: the
        engine's threads (a grade loads its hand-ins in several) share the zygote, and a reply is the pid of the
        box its own request asked for."""
        import socket

        with self.lock:
            # A subreaper only while the zygote forks: the box its child leaves is then this process's, and an
            # orphan of any other process (a pool worker that ends with its spare box alive) is init's to reap,
            # not a zombie of this one until it exits.
            ctypes_prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
            try:
                socket.send_fds(self.sock, [b"S"], fds)
                got = self.sock.recv(4)
            except OSError:
                got = b""
            finally:
                ctypes_prctl(36, 0)
            if len(got) != 4:
                self.gone = True
                return 0
        pid = int(struct.unpack("=i", got)[0])
        if pid <= 0:
            raise OSError("the Python boxes' fork server could not fork")
        try:  # ChildProcessError unless the box is this process's own (WNOWAIT: a box that has ended stays to reap)
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            os.kill(pid, signal.SIGKILL)
            raise OSError("a box forked by the fork server is not the engine's child") from None
        return pid

    def close(self) -> None:
        self.sock.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (OSError, ChildProcessError):
            pass


_ZYGOTE: list[Zygote] = []
_ZYGOTE_LOCK = threading.Lock()


def _kept(z: Zygote) -> bool:
    """Whether this process may go on asking ``z`` for boxes (its own, not gone, running); one it may not is let
    go: closed, or in a forked copy of the engine (a process pool) only its copy of the socket, the original's."""
    if z.owner == os.getpid():
        try:
            if not z.gone and os.waitid(os.P_PID, z.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
                return True
        except ChildProcessError:
            pass
        z.close()
    else:
        z.sock.close()
    return False


def zygote(package_root: Path) -> Zygote | None:
    """This process's fork server for Python boxes, started the first time (and again in a forked process, or
    after it has gone); None where it cannot be started (boxes are then started afresh)."""
    if os.environ.get("TWENTYONE_NO_ZYGOTE", "") == "1":
        return None
    with _ZYGOTE_LOCK:
        if _ZYGOTE and _kept(_ZYGOTE[0]):
            return _ZYGOTE[0]
        _ZYGOTE.clear()
        try:
            z = Zygote(python_argv(package_root, "zygote"))
        except OSError:
            return None
        _ZYGOTE.append(z)
        return z


#: The fork servers of compiled submissions' box programs (``program_zygote``), the most recent last.
_PROGRAMS: OrderedDict[str, Zygote] = OrderedDict()
#: How many one engine keeps: more than a grading worker's strategies (``runner.CACHE_SIZE``): a tournament seats all.
PROGRAM_ZYGOTES = 40


def program_zygote(program: str) -> Zygote | None:
    """The fork server of the box program ``program`` (a compiled submission's: c_src/box/tw_box.c started as
    ``zygote``), as ``zygote``; the least recently used beyond ``PROGRAM_ZYGOTES`` are ended."""
    if os.environ.get("TWENTYONE_NO_ZYGOTE", "") == "1":
        return None
    with _ZYGOTE_LOCK:
        z = _PROGRAMS.pop(program, None)
        if z is not None and _kept(z):
            _PROGRAMS[program] = z
            return z
        try:
            z = Zygote([program, "zygote"])
        except OSError:
            return None
        _PROGRAMS[program] = z
        while len(_PROGRAMS) > PROGRAM_ZYGOTES:
            old = _PROGRAMS.popitem(last=False)[1]
            if old.owner == os.getpid():
                old.close()
            else:
                old.sock.close()
        return z


_LIBC: list[object] = []


def ctypes_prctl(option: int, value: int) -> None:
    """``prctl(option, value)`` on this process."""
    import ctypes

    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None))
    _LIBC[0].prctl(option, ctypes.c_ulong(value), 0, 0, 0)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Start:
    """How a box's start went (``await_ready``).

    ``how`` is ``ready`` (confined, the student's code loaded), ``refused`` (it could not confine itself:
    ``text`` says why; nothing of the student's ran), ``weak`` (it holds less than the minimum), ``error``
    (the student's code reported ``text`` while loading), ``ended`` (it ended while loading: ``status``; a
    load past its CPU limit ends it with SIGPROF), ``blocked`` (it waited on a descriptor while loading),
    ``overran`` (its CPU clock passed the loading's limit: it had disarmed or blocked its timer; ``text`` says how
    much),
    ``timeout`` (it did not confine itself, or load, within the wall-clock backstop) or ``malformed`` (a frame
    not of the protocol).
    """

    how: Literal["ready", "refused", "weak", "error", "ended", "blocked", "overran", "timeout", "malformed"]
    layers: Layers = Layers(0)
    abi: int = 0
    text: str = ""
    status: int = 0
    loading: bool = False


def await_ready(box: Box, load_timeout: float, weak_ok: bool = False, load_cpu: float = 0.0) -> Start:
    """Wait for a new box's ``H`` (the layers, before anything of the student's runs) and ``P`` (loaded).

    A box that is not ready is killed and reaped (its status in the result).  ``weak_ok``: a box with less than
    the minimum is let go on (the doctor's and the tests' boxes with layers turned off, running the probe).
    ``load_cpu``: the CPU seconds loading may take; a box whose CPU clock passes it (it disarmed or blocked its own
    timer) is stopped, ``overran``, however it got there."""
    try:
        first = box.frame(30.0)
    except TimeoutError:
        return Start("timeout", status=box.reap_or_kill(0.0))
    if first is None or first[0] != b"H":
        if first is not None and first[0] == b"E":
            box.reap_or_kill(1.0)
            return Start("refused", text=first[2].decode("utf-8", "replace"))
        return Start("ended", status=box.reap_or_kill(1.0))
    layers, abi = Layers.of(first[1])
    if not layers.minimum and not weak_ok:
        box.reap_or_kill(0.0)
        return Start("weak", layers, abi)
    box.new_call()
    end = time.monotonic() + load_timeout
    try:
        clock0 = time.clock_gettime(box.cpu_clock)  # what confining it took: not its loading's
    except OSError:
        clock0 = 0.0

    def overran() -> str:
        if load_cpu <= 0:
            return ""
        try:
            used = time.clock_gettime(box.cpu_clock) - clock0
        except OSError:
            return ""
        return f"it used {used:.1f} s" if used > load_cpu + 0.25 else ""

    while True:
        try:
            second = box.frame(min(SLICE, max(end - time.monotonic(), 0.0)))
            break
        except TimeoutError:
            if box.stalled(BLOCKED):
                return Start("blocked", layers, abi, status=box.reap_or_kill(0.0), loading=True)
            over = overran()
            if over:
                box.kill()
                return Start("overran", layers, abi, text=over, status=box.reap_or_kill(1.0), loading=True)
            if time.monotonic() >= end and not box.watched:  # else its CPU limits (load, RLIMIT_CPU) decide
                return Start("timeout", layers, abi, status=box.reap_or_kill(0.0), loading=True)
    if second is not None and second[0] == b"P" and second[1] == 0:
        over = overran()
        if over:  # ready, but past its loading's CPU limit: the time was not its to take
            box.kill()
            return Start("overran", layers, abi, text=over, status=box.reap_or_kill(1.0), loading=True)
        box.ready = True
        return Start("ready", layers, abi)
    if second is None:
        return Start("ended", layers, abi, status=box.reap_or_kill(2.0), loading=True)
    if second[0] == b"E":
        box.reap_or_kill(1.0)
        return Start("error", layers, abi, text=second[2].decode("utf-8", "replace"), loading=True)
    box.reap_or_kill(0.0)
    return Start("malformed", layers, abi, loading=True)
