"""The system-call filter as a program: a classic-BPF interpreter runs it over calls and their arguments.

Every call the filter allows is checked to the arguments it may take (sandbox v3): a rule added, dropped or
loosened is caught here, without a kernel.  The real kernel's side is in test_box.py and test_escape.py.
"""

from __future__ import annotations

import errno
import struct
from pathlib import Path

import pytest

from twentyone.players.sandbox import seccomp
from twentyone.players.sandbox.seccomp import ALLOW, ERRNO, KILL_PROCESS, TRAP

pytestmark = pytest.mark.skipif(seccomp.filter_architecture() != "x86_64",
                                reason="the interpreter checks x86_64's numbers")

_X86_64 = 0xC000003E
NR = seccomp._X86_64
PID = 4242
CLOCK_BASE = (~PID << 3) & 0xFFFFFFFF
EPERM, EACCES = ERRNO | errno.EPERM, ERRNO | errno.EACCES
DENY = {False: TRAP, True: TRAP}


def run_bpf(prog: bytes, nr: int, args: tuple[int, ...] = (), arch: int = _X86_64) -> tuple[int, int]:
    """Run a classic-BPF seccomp program on one call, as the kernel does: (its action, the pc that returned)."""
    regs = list(args) + [0] * (6 - len(args))
    data = struct.pack("=iIQ6Q", nr, arch, 0, *[r & (2**64 - 1) for r in regs])
    insns = [struct.unpack_from("=HBBI", prog, i) for i in range(0, len(prog), 8)]
    pc, acc = 0, 0
    for _ in range(100_000):
        code, jt, jf, k = insns[pc]
        if code == 0x20:  # ld w abs
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x54:  # alu and k
            acc &= k
        elif code == 0x15:  # jeq k
            pc += jt if acc == k else jf
        elif code == 0x35:  # jge k
            pc += jt if acc >= k else jf
        elif code == 0x45:  # jset k
            pc += jt if acc & k else jf
        elif code == 0x05:  # ja k
            pc += k
        elif code == 0x06:  # ret k
            return k, pc
        else:
            raise AssertionError(f"unknown instruction {code:#x}")
        pc += 1
    raise AssertionError("the program does not end")


def patched_program(prog: bytes) -> bytes:
    """``prog`` with this test's pid and CPU clock put in (``patched``, for any program)."""
    out = bytearray(prog)
    for i in range(0, len(out), 8):
        k = struct.unpack_from("=I", out, i + 4)[0]
        if k == seccomp.PID_PLACEHOLDER:
            struct.pack_into("=I", out, i + 4, PID)
        elif k == seccomp.CLOCK_PLACEHOLDER:
            struct.pack_into("=I", out, i + 4, CLOCK_BASE)
    return bytes(out)


def patched(python: bool = False) -> bytes:
    """The filter with this test's pid and CPU clock put in, as tw_confine.c does."""
    return patched_program(seccomp.build_filter(python=python) or b"")


C, PY = patched(False), patched(True)


def act(name: str, *args: int, python: bool = False) -> int:
    """What the filter does with ``name(args)``."""
    return run_bpf(PY if python else C, NR[name], args)[0]


@pytest.mark.parametrize("python", [False, True])
def test_the_filter_allows_exactly_its_rules(python: bool) -> None:
    """Every call number up to 460 that no rule names is forbidden (SIGSYS, the call unrun)."""
    named = {NR[r.name] for r in seccomp.RULES if r.name in NR}
    for nr in range(460):
        if nr not in named:
            assert run_bpf(PY if python else C, nr)[0] == DENY[python], nr


@pytest.mark.parametrize("python", [False, True])
def test_plain_calls_run_and_sleeps_return_at_once(python: bool) -> None:
    """Each ``allow`` rule runs; nanosleep, clock_nanosleep, poll, ppoll, select, pselect6 return 0 unrun."""
    for rule in seccomp.RULES:
        if rule.how == "allow":
            assert act(rule.name, python=python) == ALLOW, rule.name
        elif rule.how == "instant":
            assert act(rule.name, 0, 0, 0, 0, python=python) == ERRNO | 0, rule.name
    assert {r.name for r in seccomp.RULES if r.how == "instant"} == {
        "nanosleep", "clock_nanosleep", "poll", "ppoll", "select", "pselect6", "alarm"}


def test_only_cpu_timers_and_no_host_figures() -> None:
    """setitimer takes ITIMER_PROF and ITIMER_VIRTUAL only (ITIMER_REAL and alarm would wake a box blocked on a
    descriptor: a nap no sleep call shows); sysinfo fails with ENOSYS (host-wide figures other boxes move)."""
    for python in (False, True):
        assert act("setitimer", 2, 0, 0, python=python) == ALLOW
        assert act("setitimer", 1, 0, 0, python=python) == ALLOW
        assert act("setitimer", 0, 0, 0, python=python) == TRAP
        assert act("setitimer", 2 | (1 << 32), 0, 0, python=python) == ALLOW  # an int: the kernel reads its low word
        assert act("alarm", 1, python=python) == ERRNO | 0
        assert act("sysinfo", 0, python=python) == ERRNO | errno.ENOSYS


#: Calls that must never run, whatever else changes: new processes and programs, tracing, other processes'
#: memory, sockets, namespaces, locks, and the kernel's other doors.
NEVER = {"fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322, "ptrace": 101,
         "process_vm_readv": 310, "process_vm_writev": 311, "socket": 41, "connect": 42, "pidfd_open": 434,
         "pidfd_send_signal": 424, "pipe2": 293, "pipe": 22, "flock": 73, "chroot": 161, "mount": 165,
         "unshare": 272, "setns": 308, "bpf": 321, "perf_event_open": 298, "io_uring_setup": 425,
         "memfd_create": 319, "userfaultfd": 323, "keyctl": 250, "setuid": 105, "shmget": 29, "msgget": 68,
         "socketpair": 53, "pidfd_getfd": 438, "open_by_handle_at": 304, "prctl": 157, "mincore": 27,
         "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "inotify_init1": 294, "fanotify_init": 300,
         "timer_create": 222, "mq_notify": 244, "msync": 26, "mlock": 149, "wait4": 61, "pause": 34,
         "rt_sigsuspend": 130}


@pytest.mark.parametrize("python", [False, True])
def test_processes_sockets_locks_and_namespaces_never_run(python: bool) -> None:
    """fork, clone, exec, ptrace, sockets, flock, namespaces, io_uring, memfd, prctl ...: forbidden."""
    for name, nr in NEVER.items():
        assert run_bpf(PY if python else C, nr)[0] == DENY[python], name


F_SETLK, F_SETLKW, F_GETLK, F_SETOWN, F_GETOWN, F_SETSIG, F_SETOWN_EX = 6, 7, 5, 8, 9, 10, 15
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ = 36, 37, 38, 1024, 1026, 1031
O_NONBLOCK, O_WRONLY, O_LARGEFILE = 0o4000, 1, 0o100000


@pytest.mark.parametrize("python", [False, True])
def test_fcntl_takes_only_descriptor_flags_and_never_o_async(python: bool) -> None:
    """F_GETFD, F_SETFD, F_GETFL, F_DUPFD(_CLOEXEC) and F_SETFL without O_ASYNC run; every other command up to
    2,048 (locks, owners, signals, leases, notification, pipe sizes) is forbidden, whatever its high word."""
    deny = DENY[python]
    allowed = {0, 1, 2, 3, 4, 1030}
    for cmd in range(2048):
        want = ALLOW if cmd in allowed else deny
        assert act("fcntl", 3, cmd, 0, python=python) == want, cmd
        assert act("fcntl", 3, cmd | (7 << 32), 0, python=python) == want, cmd  # the kernel reads an unsigned int
    for cmd in (F_SETLK, F_SETLKW, F_GETLK, F_SETOWN, F_GETOWN, F_SETSIG, F_SETOWN_EX, F_OFD_GETLK, F_OFD_SETLK,
                F_OFD_SETLKW, F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ):
        assert act("fcntl", 0, cmd, 1 << 44, python=python) == deny, cmd
    assert act("fcntl", 1, 4, O_NONBLOCK | O_WRONLY | O_LARGEFILE, python=python) == ALLOW
    for flags in (seccomp.O_ASYNC, seccomp.O_ASYNC | O_NONBLOCK, seccomp.O_ASYNC | (1 << 40)):
        assert act("fcntl", 3, 4, flags, python=python) == deny, flags


def test_no_ioctl_but_fionread_reaches_the_kernel() -> None:
    """Every ioctl but FIONREAD fails with ENOTTY unrun: FIOASYNC, FIOSETOWN, SIOCSPGRP, TIOCSTI, and isatty()'s
    TCGETS; FIONREAD (the bytes its own pipe holds) runs, whatever the request's high word."""
    for request in (0x5452, 0x8901, 0x8902, 0x5412, 0x5401, 0, 0x541C, 0x541A):
        for python in (False, True):
            assert act("ioctl", 3, request, 0, python=python) == ERRNO | errno.ENOTTY, hex(request)
            assert act("ioctl", 3, request | (1 << 32), 0, python=python) == ERRNO | errno.ENOTTY, hex(request)
    assert act("ioctl", 0, 0x541B, 0) == ALLOW


def test_memory_calls_take_only_private_memory() -> None:
    """mmap private and anonymous only (never MAP_SHARED, HUGETLB, LOCKED, 32BIT or high bits); mprotect and
    mmap read, write, execute only; mremap MAYMOVE/FIXED; madvise never MADV_MERGEABLE or MADV_REMOVE."""
    anon = seccomp.MAP_PRIVATE | seccomp.MAP_ANONYMOUS
    for flags in (anon, anon | seccomp.MAP_FIXED, anon | seccomp.MAP_NORESERVE | seccomp.MAP_STACK,
                  seccomp.MAP_PRIVATE | seccomp.MAP_DENYWRITE, anon | seccomp.MAP_FIXED_NOREPLACE):
        assert act("mmap", 0, 4096, 3, flags, -1, 0) == ALLOW, hex(flags)
    for flags in (0x01, 0x03, anon | 0x40000, anon | 0x2000, anon | 0x40, anon | 0x80000, anon | (1 << 33)):
        assert act("mmap", 0, 4096, 3, flags, -1, 0) == TRAP, hex(flags)
    for prot in (0, 1, 3, 5, 7):
        assert act("mmap", 0, 4096, prot, anon) == ALLOW
        assert act("mprotect", 0, 4096, prot) == ALLOW
    for prot in (8, 0x01000000, 0x02000000, 1 << 32):
        assert act("mmap", 0, 4096, prot, anon) == TRAP
        assert act("mprotect", 0, 4096, prot) == TRAP
    assert act("mremap", 0, 4096, 8192, 1) == ALLOW
    assert act("mremap", 0, 4096, 8192, 4) == TRAP  # MREMAP_DONTUNMAP
    for advice in seccomp.MADV_ALLOWED:
        assert act("madvise", 0, 4096, advice) == ALLOW
    for advice in (9, 10, 11, 12, 13, 20, 21, 22, 25, 100, 101):
        assert act("madvise", 0, 4096, advice) == TRAP, advice


def test_a_futex_wait_returns_at_once_and_other_operations_are_forbidden() -> None:
    """futex: wake and requeue run (private or not); a wait returns ETIMEDOUT unrun; PI locks are forbidden."""
    for flags in (0, 0x80, 0x100, 0x180):
        assert act("futex", 0, 1 | flags) == ALLOW
        assert act("futex", 0, 0 | flags) == ERRNO | errno.ETIMEDOUT
        assert act("futex", 0, 9 | flags) == ERRNO | errno.ETIMEDOUT
        for op in (6, 7, 8, 11, 12, 13):  # LOCK_PI, UNLOCK_PI, TRYLOCK_PI, WAIT_REQUEUE_PI ...
            assert act("futex", 0, op | flags) == TRAP, op


def test_clocks_are_its_own_never_another_processs_cpu_time() -> None:
    """clock_gettime/clock_getres: the numbered clocks and its own CPU clocks (pid 0 or its own); another
    process's CPU clock, or a device's, is forbidden (it would be a channel between boxes)."""
    def cpu_clock(pid: int, kind: int) -> int:
        return ((~pid << 3) | kind) & 0xFFFFFFFF

    for name in ("clock_gettime", "clock_getres"):
        for clock in range(12):
            assert act(name, clock) == ALLOW
        for kind in range(8):
            assert act(name, cpu_clock(0, kind)) == ALLOW
            assert act(name, cpu_clock(PID, kind)) == ALLOW
        for other in (1, PID - 1, PID + 1, 1 << 20):
            assert act(name, cpu_clock(other, 2)) == TRAP, other
            assert act(name, cpu_clock(other, 2), python=True) == TRAP
        assert act(name, cpu_clock(5, 3)) == TRAP  # a device's clock (fd 5)
        assert act(name, 12) == TRAP


def test_flags_of_getrandom_and_dup3() -> None:
    """getrandom: GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE; dup3: O_CLOEXEC only."""
    for flags in range(8):
        assert act("getrandom", 0, 16, flags) == ALLOW
    assert act("getrandom", 0, 16, 8) == TRAP
    assert act("dup3", 3, 7, seccomp.O_CLOEXEC) == ALLOW
    assert act("dup3", 3, 7, 0) == ALLOW
    assert act("dup3", 3, 7, seccomp.O_ASYNC) == TRAP


def test_files_by_name_trap_a_c_box_and_fail_in_a_python_box() -> None:
    """open, openat, stat by name (even with AT_EMPTY_PATH), readlink ...: SIGSYS in C, EACCES in Python."""
    for name in ("open", "openat", "openat2", "newfstatat", "statx", "stat", "access", "readlink", "getdents64",
                 "truncate", "ftruncate", "unlink", "mkdir", "chdir", "fchdir", "fstatfs"):
        assert act(name, 0, 0, 0, 0x1000) == TRAP, name
        assert act(name, 0, 0, 0, 0x1000, python=True) == EACCES, name
    assert act("setrlimit", 7, 0) == TRAP
    assert act("setrlimit", 7, 0, python=True) == EPERM


def test_calls_that_name_a_process_work_only_on_itself() -> None:
    """kill, tkill, tgkill, prlimit64 and the affinity calls: itself only; kill(0) and kill(-1) are not itself."""
    assert act("kill", PID, 9) == ALLOW
    for other in (0, -1, 1, PID + 1, PID | (1 << 32) + 1):
        assert act("kill", other, 9) == TRAP, other
    assert act("tkill", PID, 6) == ALLOW
    assert act("tkill", 1, 6) == TRAP
    assert act("tgkill", PID, PID, 6) == ALLOW
    assert act("tgkill", PID, 1, 6) == TRAP
    assert act("tgkill", 1, PID, 6) == TRAP
    assert act("prlimit64", 0, 7, 0, 1234) == ALLOW  # getrlimit
    assert act("prlimit64", PID, 7, 0, 1234) == ALLOW
    assert act("prlimit64", 0, 7, 1234, 0) == EPERM  # setrlimit on itself
    assert act("prlimit64", 0, 7, 1 << 32, 0) == EPERM
    assert act("prlimit64", 1, 7, 0, 1234) == TRAP  # another's, even read
    for name in ("sched_getaffinity", "sched_setaffinity"):
        assert act(name, 0) == ALLOW
        assert act(name, PID) == ALLOW
        assert act(name, 1) == TRAP


def test_another_architecture_or_x32_call_is_killed_by_its_own_check() -> None:
    """A call made through another ABI (i386's int 0x80, x32) kills the process at the architecture checks at the
    program's head, before any rule is looked at: every named call's x32 number, and every i386 call."""
    for prog in (C, PY):
        guard = {run_bpf(prog, 0, arch=0x40000003)[1], run_bpf(prog, NR["read"] | 0x40000000)[1]}
        assert len(guard) == 2 and max(guard) < 8, guard  # two checks, both at the head
        for rule in seccomp.RULES:
            if rule.name in NR:
                assert run_bpf(prog, NR[rule.name] | 0x40000000) == (KILL_PROCESS, max(guard)), rule.name
                assert run_bpf(prog, NR[rule.name], arch=0x40000003) == (KILL_PROCESS, min(guard)), rule.name


def test_every_rule_is_in_the_manual_with_why() -> None:
    """SANDBOX.md lists every call the filter names, as ``describe`` gives it."""
    manual = (Path(seccomp.__file__).parent / "SANDBOX.md").read_text()
    for name, what, why in seccomp.describe():
        assert f"`{name}`" in manual, name
        assert why


@pytest.mark.parametrize("python", [False, True])
def test_the_search_tree_decides_every_call_as_the_chain_did(python: bool) -> None:
    """The filter is laid out as a binary search over call numbers (``seccomp._tree``: the kernel walks the program
    for every number when it loads it, which the chain made cost a box about 0.08 ms more); the chain it replaced is
    kept as the reference (``layout="chain"``, byte for byte the program before).  Both decide every call number 0 ..
    1023 the same, and each call whose block reads its arguments the same for every argument it reads at, just below
    and just above every constant its block compares with, in either word, the placeholders included; every call of
    x32 or of another architecture is killed by both."""
    tree, chain = seccomp.build_filter(python=python), seccomp.build_filter(python=python, layout="chain")
    assert tree is not None and chain is not None and tree != chain
    both = [patched_program(tree), patched_program(chain)]
    insns = [struct.unpack_from("=HBBI", both[1], i) for i in range(0, len(both[1]), 8)]
    blocks: dict[int, list[tuple[int, int, int, int]]] = {}  # each call's block in the chain
    for pc, (code, jt, jf, k) in enumerate(insns):
        if code == 0x15 and jt == 0 and pc > 0 and insns[pc - 1] in ((0x20, 0, 0, 0), (0x06, 0, 0, insns[pc - 1][3])) \
                and k < 1024 and k not in blocks:
            blocks[k] = insns[pc + 1:pc + 1 + max(jf, 1)]
    assert set(blocks) == {nr for name, nr in NR.items() if any(r.name == name for r in seccomp.RULES)}
    for nr in range(1024):
        vectors: list[tuple[int, ...]] = [(), (1, 2, 3, 4, 5, 6)]
        block = blocks.get(nr, [])
        reads = sorted({k for code, _, _, k in block if code == 0x20 and k >= 16})
        ks = {k for code, _, _, k in block if code in (0x15, 0x35, 0x45)}
        for offset in reads:
            i, high = (offset - 16) // 8, (offset - 16) % 8 == 4
            for v in sorted({(k + d) & 0xFFFFFFFF for k in ks | {0} for d in (-1, 0, 1)}):
                vectors.append(tuple([0] * i + [v << 32 if high else v]))
        for args in vectors:
            assert run_bpf(both[0], nr, args)[0] == run_bpf(both[1], nr, args)[0], (nr, args)
        assert run_bpf(both[0], nr | 0x40000000)[0] == run_bpf(both[1], nr | 0x40000000)[0] == KILL_PROCESS
        assert run_bpf(both[0], nr, arch=0x40000003)[0] == run_bpf(both[1], nr, arch=0x40000003)[0] == KILL_PROCESS


def test_a_search_tree_over_long_blocks_jumps_over_them() -> None:
    """A half of the tree longer than a conditional jump reaches (255) is jumped over with a 32-bit jump: with blocks
    of 100 instructions each call still reaches its own block, and a number between or beyond them is denied."""
    entries = [(nr, [(0x06, 0, 0, 0x10000 + nr)] * 100) for nr in range(3, 60, 3)]
    body = seccomp._tree(entries, TRAP)
    prog = b"".join(struct.pack("=HBBI", *i) for i in [(0x20, 0, 0, 0), *body])
    assert any(code == 0x05 for code, _, _, _ in body)  # the long jump is there
    for nr in range(0, 64):
        assert run_bpf(prog, nr)[0] == (0x10000 + nr if nr % 3 == 0 and 3 <= nr < 60 else TRAP), nr
