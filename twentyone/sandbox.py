"""Run an untrusted strategy in a worker process: a crash, hang, flood or cheat costs only that player.

The engine process keeps the shoe.  For each student strategy it starts a **zygote**: a fresh Python
process (started with exec, never forked from the engine, so it never holds a shoe) that loads the
strategy once.  For every match the zygote forks a **child**, which gets fresh static state and, before
it runs any student code:

- resource limits: CPU seconds, address space, file size, open files, no core dumps, no processes;
- SIGXFSZ and SIGPIPE back to their default actions;
- stdout and stderr sent to a per-match file capped by the file-size limit (a flood is a fault);
- a seccomp allow-list (through libseccomp, when present) that kills the child on any other system
  call: opening files, sockets, fork/exec, ptrace, process_vm_readv, kill.  Without libseccomp the
  child runs with the resource limits only, and the engine says so once.

The engine and the child speak a small line protocol over a socket pair; every reply has a wall-clock
limit per decision and per match.  Any failure becomes a ``StrategyFault`` with its cause (crash,
timeout, forbidden system call, output flood, CPU limit, malformed reply), which the table turns into
a foul and takes the player out of that match.  A strategy only ever receives the copies the course
interface describes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twentyone.errors import PlayerSpecError
from twentyone.records import Banker, Player
from twentyone.table import Foul, StrategyFault

__all__ = ["Limits", "SandboxFunctionSet", "seccomp_available", "main"]


@dataclass(frozen=True)
class Limits:
    """The limits a sandboxed strategy runs under."""

    decision_timeout: float = 1.0
    match_timeout: float = 60.0
    cpu_seconds: int = 60
    memory_bytes: int = 1 << 30
    output_bytes: int = 1 << 20
    open_files: int = 32
    #: Run the engine and the strategy's child on one CPU: a request then costs one context switch
    #: (about 10 us here) instead of a cross-CPU wake-up (about 50 us on this VM).
    pin_cpu: bool = True


_PINNED: int | None = None


def engine_cpu() -> int:
    """Pin this (engine) process to one CPU, once, and return it; children follow it there."""
    global _PINNED
    if _PINNED is None:
        cpus = sorted(os.sched_getaffinity(0))
        cpu = int(os.environ.get("TWENTYONE_CPU", cpus[os.getpid() % len(cpus)]))
        if cpu not in cpus:
            cpu = cpus[0]
        os.sched_setaffinity(0, {cpu})
        _PINNED = cpu
    return _PINNED


#: Modules a sandboxed Python strategy may import (loaded before the filter forbids opening files).
PRELOAD = ("math", "random", "collections", "itertools", "functools", "statistics", "fractions", "decimal",
           "typing", "dataclasses", "enum", "gc", "time", "re", "json", "copy", "heapq", "bisect", "string",
           "twentyone", "twentyone.cards", "twentyone.records", "twentyone.strategy", "mycodes",
           "mycodes.builtin", "mycodes.charts", "mycodes.mycodes")

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


def load_filter(bpf: bytes) -> bool:
    """Load ``bpf`` (from ``build_filter``) into this process, with this process's pid patched in."""
    prog = bytearray(bpf)
    pid = os.getpid()
    for i in range(0, len(prog), 8):  # struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
        if struct.unpack_from("=I", prog, i + 4)[0] == _PID_PLACEHOLDER:
            struct.pack_into("=I", prog, i + 4, pid)
    libc = ctypes.CDLL(None, use_errno=True)
    buf = (ctypes.c_char * len(prog)).from_buffer(prog)
    fprog = _SockFprog(len(prog) // 8, ctypes.addressof(buf))
    PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return bool(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0)


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


# -- wire format -------------------------------------------------------------------------------
def _enc_player(p: Player) -> str:
    return (f"{p.name.encode('utf-8').hex()},{p.account},{p.mycards},{p.count},{ord(p.state) if p.state else 0},"
            f"{p.mybets},{p.points},{p.rounds}")


def _dec_player(s: str) -> Player:
    f = s.split(",")
    return Player(bytes.fromhex(f[0]).decode("utf-8", "replace"), int(f[1]), f[2], int(f[3]),
                  chr(int(f[4])) if int(f[4]) else "", int(f[5]), int(f[6]), int(f[7]))


def _enc_players(ps: list[Player]) -> str:
    return ";".join(_enc_player(p) for p in ps)


def _dec_players(s: str) -> list[Player]:
    return [_dec_player(x) for x in s.split(";")] if s else []


_SIGNAL_CAUSE: dict[int, tuple[str, str]] = {
    signal.SIGSEGV: (Foul.CRASH, "segmentation fault"),
    signal.SIGBUS: (Foul.CRASH, "bus error"),
    signal.SIGFPE: (Foul.CRASH, "arithmetic error"),
    signal.SIGILL: (Foul.CRASH, "illegal instruction"),
    signal.SIGABRT: (Foul.CRASH, "abort"),
    signal.SIGSYS: (Foul.CRASH, "forbidden system call"),
    signal.SIGXCPU: (Foul.TIMEOUT, "cpu time limit"),
    signal.SIGXFSZ: (Foul.CRASH, "output flood (file size limit)"),
    signal.SIGKILL: (Foul.CRASH, "killed (memory or process limit)"),
    signal.SIGPIPE: (Foul.CRASH, "broken pipe"),
}


def describe_status(status: int) -> tuple[str, str]:
    """The fault cause and a readable detail for a child's wait status."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        cause, detail = _SIGNAL_CAUSE.get(sig, (Foul.CRASH, f"signal {sig}"))
        return cause, f"{detail} (signal {signal.Signals(sig).name})" if sig in _SIGNAL_CAUSE else detail
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return Foul.CRASH, f"exited with status {code}"


class SandboxFunctionSet:
    """A course function set K run in a zygote/child pair; implements ``twentyone.strategy.FunctionSet``."""

    _warned_no_seccomp = False

    def __init__(self, kind: str, target: Path, k: int, limits: Limits = Limits(),
                 capture_dir: Path | None = None, warn: Callable[[str], None] | None = None) -> None:
        self.kind = kind
        self.target = target
        self.k = k
        self.limits = limits
        self.capture_dir = capture_dir
        self.warn = warn
        self.child_pid = 0
        self.match_no = 0
        self._buf = b""
        self._deadline = 0.0
        self._proc: subprocess.Popen[bytes] | None = None
        self._setup_fault: StrategyFault | None = None
        self._sock: socket.socket | None = None
        self._start_zygote()

    # -- processes ----------------------------------------------------------------------------
    def _start_zygote(self) -> None:
        ours, theirs = socket.socketpair()
        self._sock = ours
        self._fd = ours.fileno()
        self._buf = b""
        env = dict(os.environ)
        limits = dict(self.limits.__dict__)
        limits["cpu"] = engine_cpu() if self.limits.pin_cpu else -1
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "twentyone.sandbox", str(theirs.fileno()), self.kind, str(self.target),
             str(self.k), repr(limits)],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=env, close_fds=True)
        theirs.close()
        self._timeout = -1.0
        line = self._read_line(30.0)
        if line is None or not line.startswith("READY"):
            self.close()
            detail = line[2:] if line and line.startswith("E ") else "the worker did not start"
            raise PlayerSpecError(f"{self.target}: {bytes.fromhex(detail).decode() if _is_hex(detail) else detail}")
        if line.strip() == "READY noseccomp" and not SandboxFunctionSet._warned_no_seccomp:
            SandboxFunctionSet._warned_no_seccomp = True
            if self.warn is not None:
                self.warn("libseccomp not found: sandboxed strategies run with resource limits only")

    def _set_timeout(self, timeout: float) -> None:
        if timeout != self._timeout and self._sock is not None:
            sec = int(timeout)
            usec = max(int((timeout - sec) * 1e6), 1 if sec == 0 else 0)
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", sec, usec))
            self._timeout = timeout

    def _read_line(self, timeout: float) -> str | None:
        """One line from the worker, or None on EOF; raises TimeoutError after ``timeout`` seconds.

        The socket stays blocking with SO_RCVTIMEO set, so a reply costs a single read system call.
        A child that dribbles a reply byte by byte is still bounded by the per-match limit.
        """
        self._set_timeout(timeout)
        buf = self._buf
        while b"\n" not in buf:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                raise TimeoutError from None
            except OSError:
                return None
            if not chunk:
                return None
            buf += chunk
        line, _, self._buf = buf.partition(b"\n")
        return line.decode("latin-1")

    def _send(self, text: str) -> None:
        try:
            os.write(self._fd, text.encode("latin-1") + b"\n")
        except OSError:
            pass  # the child is gone; the read that follows reports why

    def _child_gone(self, line: str | None) -> StrategyFault:
        """Turn the zygote's report of a dead child (or silence) into a fault."""
        self.child_pid = 0
        if line is not None and line.startswith("X "):
            cause, detail = describe_status(int(line.split()[1]))
            return StrategyFault(cause, detail)
        if line is not None and line.startswith("E "):
            return StrategyFault(Foul.ERROR, bytes.fromhex(line[2:]).decode("utf-8", "replace"))
        return StrategyFault(Foul.CRASH, "the worker process died")

    def _kill_child(self) -> None:
        if self.child_pid:
            try:
                os.kill(self.child_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                while True:
                    line = self._read_line(5.0)
                    if line is None or line.startswith("X "):
                        break
            except TimeoutError:
                pass
            self.child_pid = 0

    def _call(self, request: str) -> int:
        if not self.child_pid:
            raise self._setup_fault or StrategyFault(Foul.CRASH, "the strategy's process is not running")
        self._send(request)
        try:
            line = self._read_line(self.limits.decision_timeout)
        except TimeoutError:
            self._kill_child()
            limit = self.limits.decision_timeout
            raise StrategyFault(Foul.TIMEOUT, f"no answer within the decision limit of {limit:g} s") from None
        if line is None or not line.startswith("R "):
            raise self._child_gone(line)
        if time.monotonic() > self._deadline:
            self._kill_child()
            limit = self.limits.match_timeout
            raise StrategyFault(Foul.TIMEOUT, f"the match took longer than its limit of {limit:g} s")
        try:
            return int(line[2:])
        except ValueError:
            self._kill_child()
            raise StrategyFault(Foul.ERROR, f"malformed reply {line[:40]!r}") from None

    # -- the FunctionSet protocol ---------------------------------------------------------------
    def reset(self) -> None:
        """End the previous match's child and fork a fresh one for the new match."""
        if self.child_pid:
            self._send("Q")
            try:
                while True:
                    line = self._read_line(2.0)
                    if line is None or line.startswith("X "):
                        break
            except TimeoutError:
                self._kill_child()
            self.child_pid = 0
        if self._proc is None or self._proc.poll() is not None:
            self._start_zygote()
        self.match_no += 1
        capture = os.devnull
        if self.capture_dir is not None:
            self.capture_dir.mkdir(parents=True, exist_ok=True)
            capture = str(self.capture_dir / f"{self.target.stem}-set{self.k}-match{self.match_no}.out")
        self._send("M " + capture.encode("utf-8").hex())
        try:
            line = self._read_line(10.0)
        except TimeoutError:
            line = None
        self._deadline = time.monotonic() + self.limits.match_timeout
        if line is not None and line.startswith("P "):
            self.child_pid = int(line[2:])
            self._setup_fault = None
            return
        self.child_pid = 0
        fault = self._child_gone(line)
        self._setup_fault = fault

    def bet(self, N: int) -> int:
        return self._call(f"B {N}")

    def first_action(self, tmpcards: str, length: int) -> str:
        return chr(self._call(f"F {tmpcards} {length}") & 0xFF)

    def continue_action(self, players: list[Player]) -> str:
        return chr(self._call("C " + _enc_players(players)) & 0xFF)

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        b = f"{banker.mycards},{banker.count},{ord(banker.state) if banker.state else 0},{banker.points}"
        self._call(f"S {b} {_enc_players(players)} {pNum} {N} {pos}")

    def close(self) -> None:
        """Stop the child and the zygote."""
        self._kill_child()
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._proc = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass


def _is_hex(s: str) -> bool:
    try:
        bytes.fromhex(s)
    except ValueError:
        return False
    return True


# -- the worker side ---------------------------------------------------------------------------
class _Conn:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def readline(self) -> str | None:
        while b"\n" not in self.buf:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("latin-1")

    def write(self, text: str) -> None:
        os.write(self.fd, text.encode("latin-1") + b"\n")


def _load(kind: str, target: str, k: int) -> Any:
    """Load the strategy in the zygote without running any of its code (a C file's constructors aside)."""
    if kind == "c":
        from twentyone import cplayer

        return cplayer.CFunctionSet(cplayer.load_student(Path(target)), k, Path(target))
    from twentyone.players import ModuleFunctionSet

    return ModuleFunctionSet(Path(target), k, warn=lambda m: print(m, file=sys.stderr), execute=False)


def _child(conn: _Conn, kind: str, loaded: Any, k: int, limits: dict[str, Any], bpf: bytes | None) -> None:
    """The per-match child: forked ahead, it waits for its match, then sets up and serves requests."""
    line = conn.readline()
    if line is None or not line.startswith("M "):
        os._exit(0)
    capture = bytes.fromhex(line[2:]).decode("utf-8")
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if int(limits.get("cpu", -1)) >= 0:
        os.sched_setaffinity(0, {int(limits["cpu"])})
    out = os.open(capture, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = sys.stdout
    fs = loaded
    if kind == "c":
        fs.state.reset_statics()
        # C output goes through the module's capture; its own cap sits above the file-size limit,
        # so a flood hits RLIMIT_FSIZE and the child dies of SIGXFSZ: a fault, not a silent cut.
        fs._lib.tw_capture_open(b"/dev/stdout", 4 * int(limits["output_bytes"]))
    cap = int(limits["output_bytes"])
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(limits["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    nofile = int(limits["open_files"])
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    if bpf is not None and not load_filter(bpf):
        conn.write("E " + b"the system-call filter could not be loaded".hex())
        os._exit(6)
    if kind == "py":
        try:
            fs.reset()  # the student's module code runs here, under the limits and the filter
        except Exception as e:  # noqa: BLE001 - report, don't crash silently
            conn.write("E " + str(e).encode("utf-8", "replace").hex())
            os._exit(3)
    conn.write(f"P {os.getpid()}")
    while True:
        line = conn.readline()
        if line is None or line == "Q":
            fs.close()
            sys.stdout.flush()
            os._exit(0)
        op = line[:1]
        try:
            if op == "B":
                r = fs.bet(int(line[2:]))
                if r.__class__ is not int:
                    raise TypeError(f"bet returned {r!r}, not an int")
                conn.write(f"R {max(min(r, 2**31 - 1), -(2**31))}")
            elif op == "F":
                _, cards, n = line.split(" ")
                conn.write(f"R {_action_code(fs.first_action(cards, int(n)))}")
            elif op == "C":
                conn.write(f"R {_action_code(fs.continue_action(_dec_players(line[2:])))}")
            elif op == "S":
                _, b, ps, pnum, n, pos = line.split(" ")
                bf = b.split(",")
                banker = Banker(bf[0], int(bf[1]), chr(int(bf[2])) if int(bf[2]) else "", int(bf[3]))
                fs.show(banker, _dec_players(ps), int(pnum), int(n), int(pos))
                conn.write("R 0")
            else:
                conn.write("E " + b"unknown request".hex())
        except Exception as e:  # noqa: BLE001 - a strategy's exception is reported as a fault
            conn.write("E " + f"{type(e).__name__}: {e}".encode("utf-8", "replace").hex())
            sys.stdout.flush()
            os._exit(4)


def _action_code(a: Any) -> int:
    if a.__class__ is not str or len(a) != 1:
        raise TypeError(f"returned {a!r}, not one character")
    return ord(a)


def main(argv: list[str] | None = None) -> int:
    """The zygote: ``python -m twentyone.sandbox FD KIND TARGET K LIMITS``."""
    import ast
    import importlib

    args = argv if argv is not None else sys.argv[1:]
    fd, kind, target, k, limits = int(args[0]), args[1], args[2], int(args[3]), ast.literal_eval(args[4])
    conn = _Conn(fd)
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    try:
        loaded = _load(kind, target, k)
    except Exception as e:  # noqa: BLE001 - reported to the engine as one line
        conn.write("E " + str(e).encode("utf-8", "replace").hex())
        return 1
    bpf = build_filter()
    conn.write("READY" if bpf is not None else "READY noseccomp")
    while True:
        # Fork the next match's child at once: it waits for "M" while the engine plays on.
        pid = os.fork()
        if pid == 0:
            try:
                _child(conn, kind, loaded, k, limits, bpf)
            finally:
                os._exit(5)
        _, status = os.waitpid(pid, 0)
        try:
            conn.write(f"X {status}")
        except OSError:
            return 0


if __name__ == "__main__":
    sys.exit(main())
