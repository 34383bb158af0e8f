"""``make bench``: the speed figures the issues ask for, each the median of several runs.

Run as ``python -m tests.bench [--quick]``.  Prints one line per figure.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twentyone.players.builtin.course import Basic, Stand
from twentyone.match import Seating, play_match
from twentyone.players.sandbox.cpus import release
from twentyone.rules import COURSE, PRESETS, Rules

ROOT = Path(__file__).resolve().parent.parent


def _rounds_per_second(make_seats: Callable[[], list[Seating]], seconds: float, rules: Rules = COURSE) -> float:
    start = time.perf_counter()
    rounds = 0
    seed = 0
    while time.perf_counter() - start < seconds:
        rounds += play_match(make_seats(), 6, seed, rules).rounds
        seed += 1
    return rounds / (time.perf_counter() - start)


def _graded_rounds_per_second(specs: tuple[str, ...], limits: Any, seconds: float) -> float:
    """Rounds/s of plain criterion jobs of ``specs`` (sandboxed under ``limits``, or in process with None), played as
    a grade plays them (``runner.play_job``)."""
    from twentyone.grading.outcome import JobInfo
    from twentyone.grading.plan import MatchJob
    from twentyone.grading.runner import play_job

    start = time.perf_counter()
    rounds = seed = 0
    while time.perf_counter() - start < seconds:
        info = JobInfo("beat_stand", "bench", seed, seed, specs, 1)
        rounds += play_job(MatchJob("bench", specs, seed, info, 6, "course", limits=limits, bankroll=False)).rounds
        seed += 1
    return rounds / (time.perf_counter() - start)


def median_of(runs: int, f: Callable[[], float]) -> float:
    """The median of ``runs`` calls of ``f``."""
    return statistics.median(f() for _ in range(runs))


def bench_engine(runs: int, seconds: float) -> tuple[float, float]:
    """Rounds/s for a 2-seat (basic vs stand) and a 5-seat table, 6 decks."""
    two = median_of(runs, lambda: _rounds_per_second(
        lambda: [Seating("p1", "basic", Basic()), Seating("p2", "stand", Stand())], seconds))
    five = median_of(runs, lambda: _rounds_per_second(
        lambda: [Seating(f"p{i}", "basic", Basic() if i % 2 else Stand()) for i in range(5)], seconds))
    return two, five


def bench_gymnasium(runs: int, seconds: float) -> float | None:
    """Hands/s of gymnasium's Blackjack-v1 with a stand-on-17 policy, or None if not installed."""
    try:
        import gymnasium
    except ImportError:
        return None
    env = gymnasium.make("Blackjack-v1")

    def once() -> float:
        env.reset(seed=1)
        hands = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            obs, _ = env.reset()
            done = False
            while not done:
                obs, _, term, trunc, _ = env.step(1 if obs[0] < 17 else 0)
                done = term or trunc
            hands += 1
        return hands / (time.perf_counter() - start)

    return median_of(runs, once)


#: The course engine figure in CPU time (best of 5 runs of 60 matches), as code any checkout can run.
_CPU_RATES = """
import sys, time
from twentyone.players.builtin.course import Basic, Stand
from twentyone.match import Seating, play_match
def rate(n):
    t, rounds = time.process_time(), 0
    for seed in range(60):
        players = [Basic(), Stand()] if n == 2 else [Basic() if i % 2 else Stand() for i in range(n)]  # as bench_engine
        seats = [Seating("p%d" % i, "x", p) for i, p in enumerate(players)]
        rounds += play_match(seats, 6, seed).rounds
    return rounds / (time.process_time() - t)
print(max(rate(2) for _ in range(5)), max(rate(5) for _ in range(5)))
"""


def compare_engine(other: Path, runs: int) -> None:
    """The course engine figure of this tree and of ``other`` (a checkout with its _core built in place), run in
    turn ``runs`` times, in CPU time (best of 5 each), so that other work on the machine weighs on both alike."""
    def rates(where: Path) -> tuple[float, float]:
        out = subprocess.run([sys.executable, "-c", _CPU_RATES], cwd=where, capture_output=True, text=True,
                             env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"}, check=True).stdout.split()
        return float(out[0]), float(out[1])

    pairs = [(rates(ROOT), rates(other)) for _ in range(runs)]
    for i, n in enumerate((2, 5)):
        here = statistics.median(p[0][i] for p in pairs)
        there = statistics.median(p[1][i] for p in pairs)
        ratio = statistics.median(p[0][i] / p[1][i] for p in pairs)
        print(f"engine {n} seats (basic and stand, course), CPU time: this tree {here:,.0f} rounds/s, {other} "
              f"{there:,.0f} rounds/s: {100 * ratio:.1f}% (issue 17 target >= 90%)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="shorter runs")
    p.add_argument("--against", type=Path, metavar="DIR",
                   help="only compare the course engine figure with another checkout's (its _core built in place)")
    p.add_argument("--looper", type=int, metavar="N",
                   help="only what a looping hand-in adds to the grade of a class of N generated submissions")
    p.add_argument("--scale", action="store_true",
                   help="only the grade of the bench class at 30 and at 300 hand-ins, and their ratio")
    p.add_argument("--grade-against", type=Path, metavar="DIR",
                   help="only the bench class's grade, here and in another checkout (its .venv built), in turn")
    p.add_argument("--only", metavar="NAME", action="append", default=[],
                   help="only this section (repeatable): " + ", ".join(f.__name__[6:] for f in _EXTRA))
    args = p.parse_args(argv)
    known = {f.__name__[6:]: f for f in _EXTRA}
    for name in args.only:
        if name not in known:
            p.error(f"no section {name!r} (sections: {', '.join(known)})")
    if args.scale:
        class_scale()
        return 0
    if args.looper is not None:
        looper_alone(args.looper)
        return 0
    if args.grade_against is not None:
        grade_against(args.grade_against.resolve(), 1 if args.quick else 2)
        return 0
    if args.against is not None:
        compare_engine(args.against.resolve(), 3 if args.quick else 6)
        return 0
    runs, seconds = (3, 0.5) if args.quick else (5, 2.0)
    if args.only:
        every = os.sched_getaffinity(0)
        for name in args.only:
            release(every)
            known[name](runs, seconds)
        return 0
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {platform.python_implementation()} "
          f"{platform.python_version()}, date {time.strftime('%Y-%m-%d')}")
    two, five = bench_engine(runs, seconds)
    print(f"engine 2 seats (basic vs stand, 6 decks): {two:,.0f} rounds/s (target >= 50,000)")
    print(f"engine 5 seats (6 decks): {five:,.0f} rounds/s")
    gym = bench_gymnasium(runs, seconds)
    if gym is None:
        print("gymnasium Blackjack-v1: not installed (pip install -e '.[bench]')")
    else:
        print(f"gymnasium Blackjack-v1 (1 seat, hit/stand): {gym:,.0f} hands/s; engine 2-seat / gymnasium = {two / gym:.2f}x")
    every = os.sched_getaffinity(0)
    for extra in _EXTRA:
        # Each figure from the process as a command starts: a sandboxed match pins its engine to one CPU (with
        # SCHED_BATCH) for the rest of the process, and the ping-pong pins it too; left so, the next figures were
        # measured with the engine, a judge's box and a grade's every worker on one CPU (a grade 50% slower, a
        # judge's test 4x).
        release(every)
        extra(runs, seconds)
    return 0


def bench_c_players(runs: int, seconds: float) -> None:
    """Two C basic-strategy players through the Python engine, in process (target >= 20,000 rounds/s); and that
    against the pure engine (basic vs stand, as ``bench_engine``) in CPU time, the two run in turn in this run
    (issue 33: >= 0.5)."""
    from twentyone.players.spec import make_strategy

    basic_c = str(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c")
    a, b = make_strategy(basic_c + ":1"), make_strategy(basic_c + ":2")
    rate = median_of(runs, lambda: _rounds_per_second(
        lambda: [Seating("c1", "basic.c:1", a), Seating("c2", "basic.c:2", b)], seconds))
    print(f"engine, 2 C basic players in process: {rate:,.0f} rounds/s (target >= 20,000)")

    def cpu_rate(make_seats: Callable[[], list[Seating]]) -> float:
        t, rounds = time.process_time(), 0
        for seed in range(40):
            rounds += play_match(make_seats(), 6, seed).rounds
        return rounds / (time.process_time() - t)

    pairs = [(cpu_rate(lambda: [Seating("c1", "basic.c:1", a), Seating("c2", "basic.c:2", b)]),
              cpu_rate(lambda: [Seating("p1", "basic", Basic()), Seating("p2", "stand", Stand())]))
             for _ in range(max(runs, 3))]
    ratio = statistics.median(c / p for c, p in pairs)
    print(f"in-process C / pure engine (2 seats, CPU time, run in turn): {statistics.median(c for c, _ in pairs):,.0f} "
          f"/ {statistics.median(p for _, p in pairs):,.0f} rounds/s = {ratio:.2f} (issue 33 target >= 0.5)")


def bench_c_program(runs: int, seconds: float) -> None:
    """The C program alone, printing off (target >= 1,000,000 rounds/s)."""
    exe = ROOT / "twentyone-c"
    if not exe.exists():
        print("C program: not built (make c-program)")
        return
    rates = []
    for i in range(runs):
        r = subprocess.run([str(exe), "--seed", str(i * 100000), "--decks", "6", "--seats", "2", "--matches", "50000"],
                           capture_output=True, text=True)
        rates.append(float(r.stderr.split()[-2]))
    print(f"C program (twentyone-c, 2 seats, template strategy, quiet): {statistics.median(rates):,.0f} rounds/s "
          f"(target >= 1,000,000)")


_ECHO = r"""
#include <unistd.h>
int main(void) { char b[128]; for (;;) { ssize_t r = read(3, b, sizeof b); if (r <= 0) return 0;
                 if (write(4, b, 8) != 8) return 0; } }
"""


def _ping_pong(exe: Path, n: int) -> float:
    """CPU (engine and child) of one round trip of a bare pipe ping-pong: this process writes 20 bytes (a request's
    size), a C child answers 8 (a reply's), both on one CPU as the engine and its box are."""
    import os

    rep_r, rep_w = os.pipe()
    req_r, req_w = os.pipe()
    pid = os.posix_spawn(str(exe), [str(exe)], {}, file_actions=[(os.POSIX_SPAWN_DUP2, req_r, 3),
                                                                (os.POSIX_SPAWN_DUP2, rep_w, 4)])
    os.close(req_r)
    os.close(rep_w)
    cpu = os.sched_getaffinity(0)
    os.sched_setaffinity(pid, cpu)
    clock = ((~pid) << 3) | 2
    msg = b"x" * 20
    c0, b0 = time.process_time(), time.clock_gettime(clock)
    for _ in range(n):
        os.write(req_w, msg)
        os.read(rep_r, 8)
    c1, b1 = time.process_time(), time.clock_gettime(clock)
    os.close(req_w)
    os.close(rep_r)
    os.waitpid(pid, 0)
    return ((c1 - c0) + (b1 - b0)) / n


def bench_sandbox(runs: int, seconds: float) -> None:
    """Issue 33: the CPU of a sandboxed decision (engine and box) against a bare pipe ping-pong measured in the same
    run, both pinned to one CPU (target <= 1.3x); a match's start (a new box, to its first answer); a Python
    box's start, CPU (target <= 10 ms); 2 sandboxed C players against the same in process (target >= 0.6); 400
    matches of a .py file against stand, sandboxed against --trusted (target >= 0.5)."""
    import os
    import resource
    import tempfile

    from twentyone.players.c.build import BOX_PROGRAM, compile_student
    from twentyone.players.sandbox.box import (await_ready, private_output, program_zygote, python_argv, spawn,
                                               zygote)
    from twentyone.players.sandbox.client import SandboxFunctionSet
    from twentyone.players.sandbox.limits import Limits
    from twentyone.players.sandbox.settings import settings
    from twentyone.players.spec import make_strategy

    old_cpu = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(old_cpu)})
    try:
        with tempfile.TemporaryDirectory() as tmp:
            echo = Path(tmp) / "echo"
            (Path(tmp) / "echo.c").write_text(_ECHO)
            subprocess.run(["gcc", "-O2", str(Path(tmp) / "echo.c"), "-o", str(echo)], check=True)
            c_box = SandboxFunctionSet("c", compile_student(ROOT / "c_src" / "mycodes.c"), 1, Limits())
            c_box.reset(object())
            c_box.bet(6)

            def decision(n: int = 20000) -> float:
                box = c_box._box
                assert box is not None
                c0, b0 = time.process_time(), time.clock_gettime(box.cpu_clock)
                for _ in range(n):
                    c_box.first_action("T956", 4)
                return ((time.process_time() - c0) + (time.clock_gettime(box.cpu_clock) - b0)) / n

            pairs = [(decision(), _ping_pong(echo, 20000)) for _ in range(runs)]
            c_box.close()
        d = statistics.median(p[0] for p in pairs) * 1e6
        f = statistics.median(p[1] for p in pairs) * 1e6
        ratio = statistics.median(p[0] / p[1] for p in pairs)
        print(f"sandboxed decision (a C box's first_action), CPU of engine and box: {d:.2f} us; a bare pipe "
              f"ping-pong, same run, same CPU: {f:.2f} us; ratio {ratio:.2f} (target <= 1.3)")
    finally:
        release(old_cpu)  # the ping-pong's pinning and the engine's (its C box) both undone

    c_file = compile_student(ROOT / "c_src" / "mycodes.c")
    c_box = SandboxFunctionSet("c", c_file, 1, Limits())

    def start(match_seconds: float, cold: bool) -> float:
        """Reset (a new match: its box) and the first bet, after a match of ``match_seconds``."""
        c_box.reset(object())
        c_box.bet(6)
        time.sleep(match_seconds)
        if cold:  # no box started during the match: the new match's box is started now
            spare, c_box._spare = c_box._spare, None
            if spare is not None:
                spare[0].reap_or_kill(0.0)
        t = time.perf_counter()
        c_box.reset(object())
        c_box.bet(6)
        return time.perf_counter() - t

    cold = statistics.median(start(0.005, True) for _ in range(30))
    ready = statistics.median(start(0.02, False) for _ in range(30))
    c_box.close()
    print(f"sandbox match start, a C file's new box, to its first answer (median): {1000 * cold:.2f} ms "
          f"(target <= 10 ms); with the box started during the previous match: {1000 * ready:.2f} ms")

    def box_start_cpu(python: bool, n: int = 15, forked: bool = True) -> float:
        """CPU (engine, the box, and its fork server) from spawn to ready, median of ``n``; ``forked``: from the fork
        server (as a match's box is), else started afresh."""
        lim = Limits()
        st = settings(lim, python)
        if python:
            src = (ROOT / "mycodes" / "mycodes.py").read_bytes()
            argv, cfg = python_argv(ROOT), st.config(1, os.fsencode(ROOT / "mycodes" / "mycodes.py") + b"\0" + src)
            z = zygote(ROOT)
        else:
            argv, cfg = [str(c_file.parent / BOX_PROGRAM)], st.config(1)
            z = program_zygote(argv[0]) if forked else None
        zclock = ((~z.pid) << 3) | 2 if z is not None else None
        out = []
        for _ in range(n):
            r0, c0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
            z0 = time.clock_gettime(zclock) if zclock is not None else 0.0
            fd = private_output()
            b = spawn(argv, cfg, fd, zygote=z)
            os.close(fd)
            assert await_ready(b, 30).how == "ready"
            os.write(b.wfd, b"Q" + b"\0" * 15)
            b.reap_or_kill(5)
            r1, c1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
            z1 = time.clock_gettime(zclock) if zclock is not None else 0.0
            out.append((r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) + (c1 - c0) + (z1 - z0))
        return statistics.median(out)

    print(f"box start, CPU from spawn to ready (engine, box, fork server): C {1000 * box_start_cpu(False):.2f} ms "
          f"(started afresh: {1000 * box_start_cpu(False, forked=False):.2f} ms), Python {1000 * box_start_cpu(True):.2f}"
          " ms (target <= 10 ms)")
    basic_c = str(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c")

    with tempfile.TemporaryDirectory() as tmp:
        other_c = str(Path(tmp) / "basic_copy.c")  # another submission: a box of its own
        shutil.copy(basic_c, other_c)
        rates = {}
        for label, limits, second in (("sandboxed", Limits(), other_c + ":1"), ("in process", None, other_c + ":1"),
                                      ("one box", Limits(), basic_c + ":2")):
            a = make_strategy(basic_c + ":1", sandbox=limits)
            b = make_strategy(second, sandbox=limits)
            rates[label] = median_of(runs, lambda: _rounds_per_second(
                lambda: [Seating("c1", "basic.c:1", a), Seating("c2", "basic.c:2", b)], seconds))
            a.close()
            b.close()
    print(f"engine, 2 C basic players (two submissions): sandboxed {rates['sandboxed']:,.0f} rounds/s, in process "
          f"{rates['in process']:,.0f}: {rates['sandboxed'] / rates['in process']:.2f} (target >= 0.6); one "
          f"submission's two sets, one box serving both as the course program does: {rates['one box']:,.0f} rounds/s")
    graded = {}
    with tempfile.TemporaryDirectory() as tmp:
        other_c = str(Path(tmp) / "basic_copy.c")
        shutil.copy(basic_c, other_c)
        for label, specs in (("two", (basic_c + ":1", other_c + ":1")), ("stand", (basic_c + ":1", "stand"))):
            for where, limits in (("sandboxed", Limits()), ("in process", None)):
                graded[label, where] = median_of(runs, lambda: _graded_rounds_per_second(specs, limits, seconds))
    two, one = (graded["two", "sandboxed"] / graded["two", "in process"],
                graded["stand", "sandboxed"] / graded["stand", "in process"])
    print(f"the same as a grade plays a plain match (runner.play_job: sandboxed, the C table; in process, the Python "
          f"engine): {graded['two', 'sandboxed']:,.0f} / {graded['two', 'in process']:,.0f} rounds/s = {two:.2f} "
          f"(target >= 0.6); one of them against stand: {graded['stand', 'sandboxed']:,.0f} / "
          f"{graded['stand', 'in process']:,.0f} = {one:.2f}")
    py = ROOT / "tests" / "fixtures" / "py" / "stand_py.py"

    def four_hundred(limits: Limits | None) -> float:
        s = make_strategy(str(py), sandbox=limits)
        try:
            t = time.perf_counter()
            for seed in range(400):
                play_match([Seating("p", "stand_py.py", s), Seating("s", "stand", Stand())], 6, seed)
            return time.perf_counter() - t
        finally:
            s.close()

    boxed, trusted = four_hundred(Limits()), four_hundred(None)
    print(f"400 matches of a .py file against stand: sandboxed {boxed:.2f} s, --trusted {trusted:.2f} s: "
          f"{trusted / boxed:.2f} (target >= 0.5)")

    def graded_four_hundred(limits: Limits | None) -> float:
        from twentyone.grading.outcome import JobInfo
        from twentyone.grading.plan import MatchJob
        from twentyone.grading.runner import play_job

        specs = (str(py) + ":1", "stand")
        t = time.perf_counter()
        for seed in range(400):
            play_job(MatchJob("bench", specs, seed, JobInfo("beat_stand", "bench", seed, seed, specs, 1), 6, "course",
                              limits=limits, bankroll=False))
        return time.perf_counter() - t

    boxed, trusted = graded_four_hundred(Limits()), graded_four_hundred(None)
    print(f"the same as a grade plays a plain match (runner.play_job: sandboxed, the C table): sandboxed {boxed:.2f} s, "
          f"--trusted {trusted:.2f} s: {trusted / boxed:.2f} (target >= 0.5)")


_CLASS_HEAD = r"""#include "mycodes.h"
/* generated class member {i}: hit below {stand}, double {dbl}, surrender {sur}, bets {bets} */
static int running = 0, seen = 0;
static int total(const char* c, int n, int* soft)
{{
    int hard = 0, ace = 0;
    for (int i = 0; i < n; i++) {{
        if (c[i] == 'A') {{ hard += 1; ace = 1; }}
        else if (c[i] == 'T' || c[i] == 'J' || c[i] == 'Q' || c[i] == 'K') hard += 10;
        else hard += c[i] - '0';
    }}
    *soft = ace && hard <= 11;
    return *soft ? hard + 10 : hard;
}}
static int hilo(char c)
{{
    if (c >= '2' && c <= '6') return 1;
    if (c == 'T' || c == 'J' || c == 'Q' || c == 'K' || c == 'A') return -1;
    return 0;
}}
static int dealer_weak(char up) {{ return up >= '2' && up <= '6'; }}
"""

#: One function set, copied five times with its own K, as students copy-paste them.
_CLASS_SET = r"""
int bet{K}(int N) {{ int tc = running / (N > 1 ? N : 1); return {bet_expr}; }}
char first_action{K}(char* tmpcards, int len)
{{
    int soft, t = total(tmpcards + 2 * {K}, 2, &soft); char up = tmpcards[0];
    if ({dbl_cond}) return 'd';
    if ({sur_cond}) return 'u';
    if (t >= {stand} || (t >= 13 && dealer_weak(up) && {weak})) return 's';
    return 'h';
}}
char continue_action{K}(Player(*players)[])
{{
    int soft; Player* me = &(*players)[0]; int t = total(me->mycards, me->count, &soft);
    return t >= {stand} ? 's' : 'h';
}}
void show{K}(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{{
    if ({K} != 1) return;
    if (pos < seen) running = 0;
    seen = pos;
    for (int i = 0; i < pbanker->count; i++) running += hilo(pbanker->mycards[i]);
    for (int p = 0; p < pNum - 1; p++)
        for (int i = 0; i < (*players)[p].count; i++) running += hilo((*players)[p].mycards[i]);
}}
"""


def make_class(folder: Path, n: int = 30, distinct: bool = False) -> list[Path]:
    """Write ``n`` varied C submissions, as a class might hand in, into ``folder``: one per student.

    Every third student hands in the basic-strategy chart (flat bets): the slowest case for grading,
    since it beats always-stand in about 89% of matches, right at the 90% line, and plays the maximum.
    The others hit below a total, some double, some surrender, some bet by a running count.  With ``distinct``
    each chart has one cell of its own changed, as students who copy a chart and adjust it: every program is then
    another (without it the charts are one program, played once, and the class is 21 programs, not 30).
    """
    chart = (ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c").read_text()
    stands = [12, 13, 14, 15, 16, 17, 18]
    doubles = [("never", "0"), ("on 10-11", "t == 10 || t == 11"),
               ("on 9-11 vs weak", "(t >= 9 && t <= 11) && dealer_weak(up)")]
    surrenders = [("never", "0"), ("16 vs T", "t == 16 && !soft && (up == 'T' || up == 'J' || up == 'Q' || up == 'K')")]
    bets = [("flat", "10"), ("ramp", "tc >= 2 ? 10 * tc : 10"), ("steep", "tc >= 1 ? 40 * tc : 10")]
    out = []
    for i in range(n):
        stand = stands[i % len(stands)]
        dname, dcond = doubles[i % len(doubles)]
        sname, scond = surrenders[(i // 3) % len(surrenders)]
        bname, bexpr = bets[(i // 2) % len(bets)]
        d = folder / f"student{i + 1:02d}"
        d.mkdir(parents=True, exist_ok=True)
        if i % 3 == 2:
            text = chart
            if distinct:  # one cell of a hard-total row of its own, hit <-> stand
                rows = text.split('"')
                cells = [k for k in range(1, len(rows), 2) if len(rows[k]) == 10]
                k, j = cells[(7 * i) % len(cells)], (3 * i) % 10
                rows[k] = rows[k][:j] + ("H" if rows[k][j] == "S" else "S") + rows[k][j + 1:]
                text = '"'.join(rows)
            (d / "mycodes.c").write_text(f"/* student {i + 1}: the basic-strategy chart */\n" + text)
            out.append(d)
            continue
        fields = dict(i=i + 1, stand=stand, dbl=dname, sur=sname, bets=bname, bet_expr=bexpr, dbl_cond=dcond,
                      sur_cond=scond, weak="1" if i % 2 else "0")
        text = _CLASS_HEAD.format(**fields) + "".join(_CLASS_SET.format(K=k, **fields) for k in range(1, 6))
        (d / "mycodes.c").write_text(text)
        out.append(d)
    return out


def bench_grading(runs: int, seconds: float) -> None:
    """Grade 30 generated C submissions with the default budget (sandboxed); then pool vs Dask speed."""
    import os
    import shutil
    import tempfile

    from twentyone.grading.config import GradingConfig
    from twentyone.grading.commands import Execution, grade
    from twentyone.players.sandbox.doctor import verdict

    quiet = Execution(progress=False, warn=lambda m: None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["TWENTYONE_CACHE"] = str(root / "cache")  # every file compiles, as on a fresh machine
        subs = make_class(root / "class", 30)
        # The doctor's proof of this host's sandbox is kept per host and version (beside the build cache): the
        # first command that runs unread code after an install finds it, every later grade reads it.  It is timed
        # on its own, and the grades below run with it known.
        t = time.perf_counter()
        proved = verdict().ok
        print(f"the sandbox's proof on this host (doctor; once per host and version, before the first grade): "
              f"{time.perf_counter() - t:.1f} s ({'every layer and probe held' if proved else 'NOT held'})")
        t = time.perf_counter()
        # The base seed pinned (a run draws a secret one by default), so that every run plays the same matches.
        rep = grade(subs, GradingConfig(seed=2026), root / "out", False, quiet)
        took = time.perf_counter() - t
        print(f"grade 30 C submissions, default budget, sandboxed, {os.cpu_count()} workers: {took:.0f} s "
              f"({rep.matches:,} matches, {rep.rounds:,} rounds; target <= 300 s)")
        # The first grade on a host: nothing built, no verdict; the proof runs beside the builds.
        os.environ["TWENTYONE_CACHE"] = str(root / "cache-first")
        t = time.perf_counter()
        grade(subs, GradingConfig(seed=2026), root / "out-first", False, quiet)
        print(f"the same grade as a host's first (nothing built, the proof not known: it runs beside the builds): "
              f"{time.perf_counter() - t:.0f} s")
        os.environ["TWENTYONE_CACHE"] = str(root / "cache-distinct")
        shutil.copytree(root / "cache" / "doctor", root / "cache-distinct" / "doctor")  # the host's, not a build
        distinct = make_class(root / "distinct", 30, distinct=True)
        t = time.perf_counter()
        rep = grade(distinct, GradingConfig(seed=2026), root / "out-distinct", False, quiet)
        print(f"grade 30 distinct C submissions (the same, each chart with a cell of its own: 30 programs, not 21, "
              f"every one compiled): {time.perf_counter() - t:.0f} s ({rep.matches:,} matches; "
              "issue 33 target <= 60 s)")
        bench_looper(subs, root, took)
        few = subs[:4]
        for label, ex in (("local pool, 2 workers", Execution(workers=2, progress=False, warn=lambda m: None)),
                          ("Dask LocalCluster, 2 workers", Execution(cluster="", dask_workers=2, progress=False,
                                                                     warn=lambda m: None))):
            try:
                import dask.distributed  # noqa: F401
            except ImportError:
                if "Dask" in label:
                    print("Dask: not installed (pip install -e '.[dask]')")
                    continue
            out = root / label.split()[0]
            t = time.perf_counter()
            r = grade(few, GradingConfig(seed=2026), out, False, ex)
            took = time.perf_counter() - t
            print(f"grade 4 C submissions on the {label}: {r.matches / took:,.0f} matches/s, "
                  f"{r.rounds / took:,.0f} rounds/s ({took:.1f} s incl. start-up)")


def grade_against(other: Path, rounds: int) -> None:
    """``--grade-against DIR``: the bench class (30 generated C hand-ins) graded by this tree and by the checkout
    ``DIR`` (with its own .venv), in turn, ``rounds`` times each, every file compiled afresh, the base seed pinned,
    each tree with its own default rubric: the wall time of each and their ratio (issue 33: this tree's <= 0.4
    of the tree before it, and <= 60 s)."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subs = make_class(root / "class", 30)
        times: dict[str, list[float]] = {"this tree": [], str(other): []}
        for r in range(rounds):
            for label, tree in (("this tree", ROOT), (str(other), other)):
                env = {**os.environ, "TWENTYONE_CACHE": str(root / f"cache-{r}-{len(times[label])}-{tree.name}")}
                out = root / f"out-{r}-{tree.name}"
                python = tree / ".venv" / "bin" / "python"
                t = time.perf_counter()
                subprocess.run([str(python), "-m", "twentyone", "grade", *map(str, subs), "--out", str(out), "--seed",
                                "2026", "--quiet"], check=True, capture_output=True, cwd=tree, env=env)
                times[label].append(time.perf_counter() - t)
        here, there = statistics.median(times["this tree"]), statistics.median(times[str(other)])
        print(f"grade of the bench class (30 C hand-ins), in turn with {other} (load {os.getloadavg()[0]:.1f}): "
              f"this tree {here:.0f} s, the other {there:.0f} s: {here / there:.2f} (targets <= 60 s, <= 0.4)")


def class_scale() -> None:
    """``--scale``: the bench class's grade at 30 and at 300 hand-ins (``make_class``: its variations repeat, so a
    class of 300 holds copies, as a real one of that size would hold fewer), in the same run, every file compiled
    afresh, the base seed pinned: the ratio of their wall times (issue 33: <= 10, nothing growing faster than the
    class, tournament, similarity and pages included)."""
    import os
    import tempfile

    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import GradingConfig
    from twentyone.grading.store import Store

    took: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n in (30, 300):
            os.environ["TWENTYONE_CACHE"] = str(root / f"cache-{n}")
            subs = make_class(root / f"class-{n}", n)
            t = time.perf_counter()
            rep = grade(subs, GradingConfig(seed=2026), root / f"out-{n}", False,
                        Execution(progress=False, warn=lambda m: None))
            took[n] = time.perf_counter() - t
            with Store.open(root / f"out-{n}") as store:
                copies = store.meta("copies") or {}
            print(f"grade a class of {n} (the bench class's generator, {len(copies)} copies of another's "
                  f"program played once): {took[n]:.0f} s, {rep.matches:,} matches, pages included (load "
                  f"{os.getloadavg()[0]:.1f})")
    print(f"grade, a class of 300 / a class of 30: {took[300] / took[30]:.1f} (issue 33 target <= 10)")


def looper_alone(n: int) -> None:
    """``--looper N``: only what a looping hand-in adds to a class of ``n`` generated C submissions (default
    budget, sandboxed, a worker per core): the class graded without it, then with it, every file compiled
    afresh."""
    import os
    import tempfile

    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import GradingConfig

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["TWENTYONE_CACHE"] = str(root / "cache")
        subs = make_class(root / "class", n)
        t = time.perf_counter()
        grade(subs, GradingConfig(seed=2026), root / "out", False, Execution(progress=False, warn=lambda m: None))
        took = time.perf_counter() - t
        print(f"grade {n} C submissions, default budget, sandboxed, {os.cpu_count()} workers: {took:.1f} s "
              f"(load {os.getloadavg()[0]:.1f})")
        bench_looper(subs, root, took)


def bench_looper(subs: list[Path], root: Path, without: float) -> None:
    """Issues 22 and 33: what one looping or sleeping hand-in adds to the benchmark class's grade, every file
    compiled afresh as before (issue 33's target <= 20 s), for three of them (``tests/fixtures/handins``):
    ``looper``, whose every first_action spins until its 1 s CPU limit, ``aces_looper``, which spins only when
    dealt a pair of aces (about 4 matches in 10), and ``sleeper``, which sleeps in every bet.  Both grades pin the base seed, as the class's own, so that they play the same matches."""
    import os

    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import GradingConfig
    from twentyone.grading.store import Store

    quiet = Execution(progress=False, warn=lambda m: None)  # one worker per core, as bench_grading
    for name in ("looper", "aces_looper", "sleeper"):
        os.environ["TWENTYONE_CACHE"] = str(root / f"cache-{name}")
        t = time.perf_counter()
        grade(subs + [ROOT / "tests" / "fixtures" / "handins" / name], GradingConfig(seed=2026), root / f"out-{name}",
              False, quiet)
        took = time.perf_counter() - t
        with Store.open(root / f"out-{name}") as store:
            played = [r for r in store.matches() if name in r.names]
        timeouts = sum("timeout" in r.outcome.faults for r in played)
        replays = sum(r.outcome.replay == "confirmed" for r in played)
        kind = "a sleeping hand-in" if name == "sleeper" else "a looping hand-in"
        print(f"grade the same {len(subs)} and {name} ({kind}): {took:.0f} s, so it adds "
              f"{took - without:.0f} s (issue 33 target <= 20 s); it sat in {len(played)} matches, {timeouts} of "
              f"them a time-out, {replays} replayed alone")


def bench_analysis(runs: int, seconds: float) -> None:
    """Exact analysis: the course's 6-deck EV and chart (target <= 2 s), a split game, and one decision's
    EVs off depleted shoes of 20..100 cards (target <= 50 ms), pairs under split-to-4 rules included."""
    import random
    from fractions import Fraction

    from twentyone.analysis import AnalysisRules, Shoe, analyse, decision_evs
    from twentyone.rules import COURSE

    def timed(f: Callable[[], object]) -> float:
        t = time.perf_counter()
        f()
        return time.perf_counter() - t

    course = median_of(runs, lambda: timed(lambda: analyse(COURSE, decks=6)))
    split = AnalysisRules.of(COURSE, split=True, surrender=False, blackjack_pays=Fraction(3, 2))
    split_game = median_of(runs, lambda: timed(lambda: analyse(split, decks=6)))
    rng = random.Random(12)
    full = "".join(c * n for c, n in zip("A23456789T", Shoe.decks(6).counts))
    times: list[float] = []
    for rules in (AnalysisRules.of(COURSE), split):
        for _ in range(20 * runs):
            cards = rng.sample(full, rng.randint(20, 100))
            shoe = Shoe.parse("".join(cards))
            hand, up = rng.choice(["22", "33", "44", "77", "T6", "A7", "93", "A2"]), rng.choice("A2579T")
            if shoe.holds(hand + up):
                times.append(timed(lambda: decision_evs(hand, up, rules, shoe)))
    worst: list[float] = []  # the slowest kind: a pair of twos, resplits to 4 hands, 100 cards
    while len(worst) < 5 * runs:
        shoe = Shoe.parse("".join(rng.sample(full, 100)))
        if shoe.holds("222"):
            worst.append(timed(lambda: decision_evs("22", "2", split, shoe)))
    print(f"exact analysis, course rules, 6 decks, EV + both charts: {course:.3f} s (median; target <= 2 s)")
    print(f"exact analysis, 6 decks S17 3:2 split to 4 hands, EV + both charts: {split_game:.3f} s (median)")
    print(f"one decision's EVs, shoes of 20..100 cards, course and split-to-4 rules: median "
          f"{1000 * statistics.median(times):.1f} ms, 90th percentile {1000 * sorted(times)[9 * len(times) // 10]:.1f} ms, "
          f"max {1000 * max(times):.1f} ms over {len(times)} (target <= 50 ms)")
    print(f"one decision, worst kind (22 vs 2, split to 4, 100 cards): median {1000 * statistics.median(worst):.1f} ms, "
          f"max {1000 * max(worst):.1f} ms")


def bench_champion(runs: int, seconds: float) -> None:
    """``champion`` against ``basic``, 2 seats, its tables made first (target >= 5,000 rounds/s)."""
    from twentyone.players.builtin.champion import Champion, warm_up

    warm_up("basic")
    rate = median_of(runs, lambda: _rounds_per_second(
        lambda: [Seating("p1", "champion", Champion()), Seating("p2", "basic", Basic())], seconds))
    print(f"engine 2 seats (champion vs basic, 6 decks): {rate:,.0f} rounds/s (target >= 5,000)")


def bench_similarity(runs: int, seconds: float) -> None:
    """Issue 16 at the scale of a class of 200: every code pair, then the play of 200 traced submissions;
    and what tracing adds to a graded match (a sandboxed C basic player against stand)."""
    from tests.simclass import traced_class, traced_overhead
    from twentyone.grading.config import Similarity
    from twentyone.grading.similarity.fingerprints import read_text
    from twentyone.grading.similarity.pairs import build, template_sources
    from twentyone.grading.store import SourceRow
    from twentyone.players.sandbox.limits import Limits

    fixtures = sorted(p for p in (ROOT / "tests" / "fixtures").rglob("*.c") if "hostile" not in p.parts
                      and p.name != "main.c")
    texts = [read_text(p.read_bytes()) for p in fixtures]
    rows = [SourceRow(f"s{k:03d}", "submission", "", "c", texts[k % len(texts)]) for k in range(200)]
    t = time.perf_counter()
    rep = build([r.name for r in rows], rows + template_sources(), {}, Similarity(), "bench")
    code = time.perf_counter() - t
    print(f"similarity, code of 200 C files (the {len(texts)} hand-in fixtures, each handed in 7 or 8 times), every "
          f"pair: {code:.1f} s ({len(rep.pairs):,} pairs share a fingerprint, {len(rep.flagged())} flagged; "
          "target: seconds)")
    t = time.perf_counter()
    traces = traced_class(200)
    played = time.perf_counter() - t
    decisions = sum(len(r.agree) for by_slot in traces.values() for rounds in by_slot.values() for r in rounds) / 200
    t = time.perf_counter()
    rep = build(list(traces), template_sources(), traces, Similarity(), "bench")
    play = time.perf_counter() - t
    copies = {frozenset((a, b)) for a in traces for b in traces if a < b and traces[a] is traces[b]}
    found = sum(1 for p in rep.flagged() if frozenset((p.a, p.b)) in copies)
    print(f"similarity, play of 200 traced submissions ({decisions:,.0f} decisions each, 160 distinct): compared in "
          f"{play:.1f} s ({rep.compared:,} pairs met); flagged {found} of the {len(copies)} copied pairs and "
          f"{len(rep.flagged()) - found} others; traces made in process in {played:.0f} s")
    traced, plain = traced_overhead(str(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c") + ":1", 8,
                                    Limits.for_timeouts(1.0, 60.0, 0.0))
    print(f"similarity, a traced match (sandboxed C basic vs stand): {1000 * traced:.0f} ms, untraced "
          f"{1000 * plain:.0f} ms; 8 traced matches a submission add {8 * (traced - plain):.2f} s of CPU")


def similarity_class(n: int) -> tuple[list[str], list[Any], dict[str, Any]]:
    """A class of ``n`` for the similarity page: the code of ``make_class(n)`` (the bench class, each file as its
    student's) and the traces of ``tests.simclass.traced_class(n)``: (names, sources with the templates, traces)."""
    import tempfile

    from tests.simclass import traced_class
    from twentyone.grading.similarity.fingerprints import read_text
    from twentyone.grading.similarity.pairs import template_sources
    from twentyone.grading.store import SourceRow

    traces = traced_class(n)
    names = list(traces)
    with tempfile.TemporaryDirectory() as tmp:
        folders = make_class(Path(tmp), n)
        rows = [SourceRow(name, "submission", "mycodes.c", "c", read_text((d / "mycodes.c").read_bytes()))
                for name, d in zip(names, folders)]
    return names, rows + template_sources(), traces


def bench_similarity_scale(runs: int, seconds: float) -> None:
    """Issue 33: the similarity page of a class of 300 against a class of 30 (the bench class's code and the
    similarity benchmark's traces, ``similarity_class``), in CPU time: the pairs scored, the reasons counted and the
    JSON made (target <= 10: nothing grows faster than the class)."""
    from twentyone.grading.config import Similarity
    from twentyone.grading.similarity.pairs import build

    took = {}
    for n in (30, 300):
        names, sources, traces = similarity_class(n)

        def once() -> float:
            t = time.process_time()
            rep = build(names, sources, traces, Similarity(), "bench")
            rep.unlisted_counts()
            rep.to_dict()
            return time.process_time() - t

        took[n] = min(once() for _ in range(max(runs, 3)))
        rep = build(names, sources, traces, Similarity(), "bench")
        print(f"similarity of a class of {n}: {took[n]:.2f} s of CPU ({len(rep.pairs):,} pairs scored of "
              f"{n * (n - 1) // 2:,}, {len(rep.flagged())} flagged)")
    print(f"similarity, a class of 300 / a class of 30: {took[300] / took[30]:.1f} (issue 33 target <= 10)")


def bench_variants(runs: int, seconds: float) -> None:
    """Issue 17: a preset with splitting, double after split and a hole card (s17-3to2-6d) against the course
    preset, at 2 and 5 seats, each seat playing its rule set's exact basic chart (``ChartStrategy``: the
    course's never splits, the split game's does) or always standing; the two are run in turn, and the
    figure is the median ratio (target >= 70%)."""
    from twentyone.analysis import derived_basic_chart
    from twentyone.players.builtin.chart import ChartStrategy

    split = PRESETS["s17-3to2-6d"]
    charts = {r.name: derived_basic_chart(r, 6) for r in (COURSE, split)}

    def seats(rules: Rules, n: int) -> Callable[[], list[Seating]]:
        return lambda: [Seating(f"p{i}", "chart", ChartStrategy(charts[rules.name]) if i % 2 == 0 else Stand())
                        for i in range(n)]

    for n in (2, 5):
        course_rates, split_rates = [], []
        for _ in range(runs):
            course_rates.append(_rounds_per_second(seats(COURSE, n), seconds, COURSE))
            split_rates.append(_rounds_per_second(seats(split, n), seconds, split))
        ratio = statistics.median(b / a for a, b in zip(course_rates, split_rates))
        print(f"engine {n} seats, basic chart and stand: course {statistics.median(course_rates):,.0f} rounds/s, "
              f"s17-3to2-6d (split to 4, DAS, hole card) {statistics.median(split_rates):,.0f} rounds/s: "
              f"{100 * ratio:.0f}% (target >= 70%)")


def bench_student_runs(runs: int, seconds: float) -> None:
    """Issue 23: files play in the sandbox by default; what that costs a student's quick runs.  A 100-match run
    of a C file (the basic.c fixture) against ``basic``, sandboxed and in process (``--trusted``), each the median
    of ``runs``; and one ``twentyone match`` of it from the shell, start-up included (median of 3)."""
    from twentyone.players.sandbox.limits import Limits
    from twentyone.players.spec import make_strategy

    basic_c = str(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c")

    def hundred(limits: Limits | None) -> float:
        c = make_strategy(basic_c, sandbox=limits)
        try:
            start = time.perf_counter()
            for seed in range(100):
                play_match([Seating("c", "basic.c", c), Seating("b", "basic", Basic())], 6, seed)
            return time.perf_counter() - start
        finally:
            c.close()

    boxed = median_of(runs, lambda: hundred(Limits()))
    trusted = median_of(runs, lambda: hundred(None))
    print(f"100 matches of a C file against basic (a student's run): sandboxed {boxed:.2f} s, --trusted "
          f"{trusted:.2f} s ({boxed / trusted:.1f}x)")

    def shell(*extra: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "twentyone", "match", "-p", basic_c, "-p", "basic", *extra],
                       check=True, capture_output=True, cwd=ROOT)
        return time.perf_counter() - t

    print(f"one 'twentyone match' of a C file against basic, from the shell: sandboxed "
          f"{median_of(3, shell):.2f} s, --trusted {median_of(3, lambda: shell('--trusted')):.2f} s")
def bench_judge(runs: int, seconds: float) -> None:
    """Issue 24: one test of the statement's sample solution through the sandbox, and one test that plays the
    whole 5000-deck shoe of calls (a solution betting 1 a hand), each built first (target <= 5 s a test)."""
    from twentyone.judge.solutions import solution

    sample = solution("sample")
    whole = solution(str(ROOT / "tests" / "fixtures" / "judge" / "minbet.cpp"))
    sample.prepare()
    whole.prepare()
    times, hands = [], []
    for seed in range(1, 1 + max(runs, 5)):
        t = time.perf_counter()
        hands.append(sample.test(seed).hands)
        times.append(time.perf_counter() - t)
    t = time.perf_counter()
    r = whole.test(1)
    full = time.perf_counter() - t
    print(f"judge, one test of the statement's sample through the sandbox: median {statistics.median(times):.3f} s "
          f"(max {max(times):.3f} s, {statistics.median(hands):.0f} hands; target <= 5 s)")
    print(f"judge, one test playing the whole 5000-deck shoe through the sandbox ({r.hands:,} hands): {full:.2f} s "
          "(target <= 5 s)")


def bench_judge_strong(runs: int, seconds: float) -> None:
    """Issue 24: the strong solution's per-test win rate over 2,000 seeds (in process, one worker per core), with
    its 95% interval, against the fair game's 1/1.3 and the outside simulation's 0.741."""
    import os

    from twentyone.judge.solutions import solution
    from twentyone.judge.verdict import win_rate

    for name in ("strong-bold", "strong-wait", "strong"):
        t = time.perf_counter()
        results = solution(name).tests(list(range(1, 2001)), workers=os.cpu_count() or 1)
        took = time.perf_counter() - t
        won = sum(r.won for r in results)
        rate, low, high = win_rate(won, len(results))
        print(f"judge, {name} over seeds 1..2000: {won} tests won, {rate:.1%} (95% CI {low:.1%}-{high:.1%}; "
              f"fair game 1/1.3 = 76.9%, outside bold play 74.1%) in {took:.0f} s on {os.cpu_count()} workers")


def bench_review(runs: int, seconds: float) -> None:
    """Issue 26: ``twentyone review`` of a 100-round match (target <= 2 s), in process with the analyser's cache
    emptied first and from the shell; and the share of a small class's grade (4 generated C submissions, the
    default budget, sandboxed, played in this process) spent on the review: pricing the kept rounds in the
    worker, the review numbers and the replay pages (target <= 10%)."""
    import os
    import tempfile

    from twentyone.grading.decisions.pages import write_replays
    from twentyone.grading import scoring
    from twentyone.grading.decisions import pricing as reviewer
    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import GradingConfig
    from twentyone.review.pricing import _values, review_match
    from twentyone.review.logs import read_log
    from twentyone.roundlog import RoundLog

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log_path = root / "match.jsonl"
        with open(log_path, "w", encoding="utf-8") as f:
            play_match([Seating("p1", "basic", Basic()), Seating("p2", "stand", Stand())], 6, 2026, COURSE,
                       log=RoundLog(f))

        def once() -> float:
            _values.cache_clear()
            t = time.perf_counter()
            review_match(read_log(log_path), 1)
            return time.perf_counter() - t

        inside = median_of(runs, once)

        def shell() -> float:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "twentyone", "review", str(log_path)], check=True,
                           capture_output=True, cwd=ROOT)
            return time.perf_counter() - t

        print(f"review of a 100-round match (basic vs stand, seat 1): {inside:.2f} s in process (cache emptied), "
              f"{median_of(3, shell):.2f} s for 'twentyone review LOG.jsonl' from the shell (target <= 2 s)")

        spent = {"kept": 0.0, "numbers": 0.0, "pages": 0.0}

        def timed(key: str, f: Callable[..., object]) -> Callable[..., object]:
            def wrapper(*a: object, **k: object) -> object:
                t = time.perf_counter()
                try:
                    return f(*a, **k)
                finally:
                    spent[key] += time.perf_counter() - t
            return wrapper

        saved = reviewer.kept_log, getattr(scoring, "class_reviews")
        setattr(reviewer, "kept_log", timed("kept", saved[0]))
        setattr(scoring, "class_reviews", timed("numbers", saved[1]))
        os.environ["TWENTYONE_CACHE"] = str(root / "cache")
        try:
            subs = make_class(root / "class", 4)
            t = time.perf_counter()
            rep = grade(subs, GradingConfig(seed=2026), root / "out", False,
                        Execution(workers=1, progress=False, warn=lambda m: None))
            took = time.perf_counter() - t
        finally:
            setattr(reviewer, "kept_log", saved[0])
            setattr(scoring, "class_reviews", saved[1])
        # The grade writes the replay pages with the charts, a process per CPU: timed here again in one process
        # (an upper bound of their share).
        t = time.perf_counter()
        write_replays(rep, root / "pages")
        spent["pages"] = time.perf_counter() - t
        review = sum(spent.values())
        pages = sum(len(r.replays) for r in rep.reviews.values())
        print(f"review share of a grade (4 C submissions, default budget, sandboxed, in process: {took:.0f} s, "
              f"{rep.matches:,} matches): {review:.1f} s = {100 * review / took:.1f}% (pricing in the worker "
              f"{spent['kept']:.1f} s, numbers {spent['numbers']:.1f} s, {pages} replay pages {spent['pages']:.1f} s in one "
              "process; "
              "target <= 10%)")


#: Further benchmarks register here.
def bench_builds(runs: int, seconds: float) -> None:
    """The bench class's 30 hand-ins built into an empty cache as a sandboxed grade builds them: CPU per hand-in
    (this process and the compilers), and how many times the compiler ran (the project's files once, then each
    hand-in's own file and its box's link)."""
    import os
    import resource
    import tempfile

    import twentyone.players.c.build as cb
    import subprocess

    compilers = {os.path.realpath(p) for p in (shutil.which(os.environ.get("CC", "gcc")),
                                                 shutil.which(os.environ.get("CXX", "g++"))) if p}
    count = [0]
    real_untrusted, real_run = cb._run_untrusted, subprocess.run  # the module objects runs the project's builds with

    def untrusted(j: Any, argv: list[str], deadline: float) -> Any:
        count[0] += os.path.realpath(argv[0]) in compilers
        return real_untrusted(j, argv, deadline)

    def trusted(argv: list[str], *a: Any, **k: Any) -> Any:
        count[0] += os.path.realpath(argv[0]) in compilers
        return real_run(argv, *a, **k)

    def cpu() -> float:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    old_cache = os.environ.get("TWENTYONE_CACHE")
    setattr(cb, "_run_untrusted", untrusted)
    setattr(subprocess, "run", trusted)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["TWENTYONE_CACHE"] = str(Path(tmp) / "cache")
            subs = make_class(Path(tmp) / "class")
            start = cpu()
            for d in subs:
                cb.compile_student(d / "mycodes.c")
            spent = cpu() - start
    finally:
        setattr(cb, "_run_untrusted", real_untrusted)
        setattr(subprocess, "run", real_run)
        if old_cache is None:
            os.environ.pop("TWENTYONE_CACHE", None)
        else:
            os.environ["TWENTYONE_CACHE"] = old_cache
    print(f"builds of the class ({len(subs)} hand-ins, empty cache, {cb.confinement()}): {spent / len(subs):.3f} s "
          f"of CPU and {count[0] / len(subs):.2f} compiler runs per hand-in")


_EXTRA: list[Callable[[int, float], None]] = [bench_analysis, bench_variants, bench_champion, bench_c_players,
                                              bench_c_program, bench_builds, bench_sandbox, bench_student_runs,
                                              bench_grading, bench_similarity, bench_similarity_scale, bench_judge,
                                              bench_judge_strong, bench_review]


def bench_report(runs: int, seconds: float) -> None:
    """Issue 33: the CPU time of ``twentyone report DIR`` (every page of a graded class made again from its store:
    the class page, the student pages with their charts, the replay pages), children included, for a class of 8
    generated C submissions graded with the default budget.  The charts are inline SVG: before, matplotlib's
    savefig was three quarters of this figure."""
    import os
    import resource
    import tempfile

    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import GradingConfig

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["TWENTYONE_CACHE"] = str(root / "cache")
        subs = make_class(root / "class", 8)
        out = root / "out"
        grade(subs, GradingConfig(seed=2026), out, False, Execution(progress=False, warn=lambda m: None))

        def once() -> float:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-m", "twentyone", "report", str(out), "-q"], check=True,
                           capture_output=True, cwd=ROOT)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

        pages = len(list(out.rglob("*.html")))
        print(f"'twentyone report' of a graded class of 8 C submissions ({pages} pages): "
              f"{median_of(runs, once):.2f} s of CPU, children included")


_EXTRA.append(bench_report)


if __name__ == "__main__":
    sys.exit(main())
