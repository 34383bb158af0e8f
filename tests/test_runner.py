"""Running many matches: the same jobs give the same outcomes however they run."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import require
from twentyone.errors import TwentyOneError
from twentyone.grading.config import GradingConfig
from twentyone.grading.outcome import JobInfo, MatchOutcome
from twentyone.grading.plan import MatchJob, criterion_job
from twentyone.grading.rubric import win_value, winner_of
from twentyone.grading.runner import parse_cluster, play_job, run_jobs
from twentyone.grading.submissions import find_submissions
from twentyone.players.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
BASIC_C = str(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c")


def _jobs(n: int) -> list[MatchJob]:
    c = GradingConfig(seed=2026)
    return [criterion_job(c, "beat_stand", c.beat_stand, "basic_c", BASIC_C + ":1", i, None) for i in range(n)]


def test_pool_and_in_process_give_identical_outcomes() -> None:
    """A local process pool and one process play the same jobs to the same results."""
    jobs = _jobs(6)
    serial = {o.key: (o.accounts, o.ranks, o.rounds) for o in run_jobs(jobs, workers=1)}
    pooled = {o.key: (o.accounts, o.ranks, o.rounds) for o in run_jobs(jobs, workers=2, batch=2)}
    assert serial == pooled and len(serial) == 6


def test_stored_outcome_keeps_the_seat_money_and_bankroll() -> None:
    """What the store keeps of a match: the submission's seat, every seat's money and the bankroll."""
    job = _jobs(2)[1]  # the submission at seat 2
    out = play_job(job)
    stored = out.to_dict()
    assert stored["seat"] == 2 and stored["accounts"] == out.accounts and len(stored["bankroll"]) == out.rounds
    assert "key" not in stored and "info" not in stored
    assert MatchOutcome.from_dict(stored, out.key, out.info) == out
    # The same match played straight through the engine: the job's outcome is that match's.
    from twentyone.match import Seating, play_match
    from twentyone.players.builtin.course import Stand
    from twentyone.players.spec import make_strategy

    direct = play_match([Seating("s", "stand", Stand()), Seating("c", "c", make_strategy(BASIC_C + ":1"))], job.decks,
                        job.seed)
    assert out.accounts == [direct.by_seat(1).account, direct.by_seat(2).account] and out.rounds == direct.rounds


def test_a_player_that_cannot_be_built_is_an_error_outcome() -> None:
    """A job whose player cannot be built returns an outcome naming the seat at fault, not an exception."""
    info = JobInfo("tournament", "", 0, 1, ("bad", "stand"))
    out = play_job(MatchJob("k", (str(ROOT / "tests/fixtures/c/hostile/syntax_error.c:1"), "stand"), 1, info))
    assert out.error is not None and "does not compile" in out.error
    assert out.faults == ["error", None] and winner_of(out, 1) == "loss"


def test_win_value_ties() -> None:
    """A tie counts half a win by default, nothing with ties='loss'."""
    assert [win_value(r, "half") for r in ("win", "tie", "loss")] == [1.0, 0.5, 0.0]
    assert win_value("tie", "loss") == 0.0


def test_drive_plays_follow_up_batches() -> None:
    """drive() hands each batch's outcomes back and plays the batches that come due."""
    from twentyone.grading.runner import drive

    jobs = _jobs(4)
    seen: list[str] = []

    def on_done(outs: list) -> list:  # type: ignore[type-arg]
        seen.extend(o.key for o in outs)
        return [jobs[2:]] if len(seen) == 2 else []

    drive([jobs[:2]], on_done, workers=1)
    assert seen == [j.key for j in jobs]


def test_parse_cluster() -> None:
    """--cluster dask means a LocalCluster; dask:ADDRESS a scheduler; anything else is an error."""
    assert parse_cluster("dask") == "" and parse_cluster("dask:tcp://h:8786") == "tcp://h:8786"
    with pytest.raises(TwentyOneError, match="unknown cluster"):
        parse_cluster("spark")


def test_find_submissions(tmp_path: Path) -> None:
    """A .c, a .py, a folder and a zip are found and named; a zip with no strategy gets one line."""
    (tmp_path / "li.c").write_text("int bet1(int N){return 10;}")
    (tmp_path / "wang").mkdir()
    (tmp_path / "wang" / "mycodes.c").write_text("int bet1(int N){return 10;}")
    with zipfile.ZipFile(tmp_path / "zhao.zip", "w") as z:
        z.writestr("zhao/mycodes.c", "int bet1(int N){return 10;}")
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("readme.txt", "nothing here")
    subs = find_submissions([tmp_path / "li.c", tmp_path / "wang", tmp_path / "zhao.zip", tmp_path / "empty.zip",
                             tmp_path / "missing.py"], tmp_path / "work")
    assert [s.name for s in subs] == ["li", "wang", "zhao", "empty", "missing"]
    assert [s.kind for s in subs[:3]] == ["c", "c", "c"]
    assert subs[3].error is not None and "no strategy file" in subs[3].error
    assert subs[4].error is not None and "no such file" in subs[4].error


def test_a_timeout_cleared_on_replay_keeps_the_replay() -> None:
    """A first play that timed out and a replay that did not: the replay counts, marked 'cleared'."""
    from tests.outcomes import outcome
    from twentyone.grading.runner import confirm_timeout

    first = replace(outcome([2, 1], ["timeout", None], key="k"), seat_rounds=[7, 10],
                    fault_details=["no answer within the decision limit", ""])
    again = outcome([1, 2], key="k")
    kept = confirm_timeout(first, again)
    assert kept.replay == "cleared" and kept.faults == [None, None] and kept.ranks == [1, 2]
    assert "decision limit" in kept.first_fault
    again_late = replace(outcome([2, 1], ["timeout", None], key="k"), seat_rounds=[9, 10])
    assert confirm_timeout(first, again_late).replay == "cleared"  # a different decision
    same = replace(again_late, seat_rounds=[7, 10])
    assert confirm_timeout(first, same).replay == "confirmed"


def test_a_real_loop_past_the_wall_clock_backstop_is_confirmed_on_replay(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A strategy that loops forever under a match's wall-clock backstop far below its CPU limits (as a machine too
    slow would make it) times out by the wall clock, is replayed alone, and the time-out stands, 'confirmed'; the
    outcome says, stored and read back too, that its seat's time-out was a wall-clock one."""
    from twentyone.grading.runner import drive

    loop = _looper(tmp_path)
    info = JobInfo("tournament", "", 0, 3, ("loop", "stand"))
    job = MatchJob("t|0", (f"{loop}:1", "stand"), 3, info, limits=_WALL)
    seen: list[MatchOutcome] = []

    def on_done(outcomes: list[MatchOutcome]) -> list[list[MatchJob]]:
        seen.extend(outcomes)
        return []

    played = _count_plays(monkeypatch)
    drive([[job]], on_done, workers=1)
    (o,) = seen
    assert played == ["t|0", "t|0"]
    assert o.faults[0] == "timeout" and o.replay == "confirmed" and o.first_fault == ""
    assert o.wall_timeouts == [True, False] and "wall-clock" in o.fault_details[0], o
    assert MatchOutcome.from_dict(o.to_dict(), o.key, o.info) == o


@pytest.mark.parametrize("how", ["loops", "blocks"])
def test_a_time_out_on_the_boxs_own_clock_stands_without_a_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  how: str) -> None:
    """A strategy that loops forever past its decision's CPU limit, or blocks reading the engine's pipe: the
    time-out is its own doing, measured on its box's CPU clock or the kernel's figures, so the match stands as
    played, never replayed (a replay would let it throw a match away)."""
    from twentyone.grading.runner import drive

    if how == "loops":
        path, said = _looper(tmp_path), "CPU time"
    else:
        path, said = tmp_path / "blocks.py", "blocked for"
        path.write_text("import os\ndef bet1(N): return 10\ndef first_action1(t, n):\n    os.read(3, 1)\n"
                        "    return 's'\ndef continue_action1(p): return 's'\ndef show1(b, p, n, N, pos): pass\n")
    job = MatchJob("t|0", (f"{path}:1", "stand"), 3, JobInfo("tournament", "", 0, 3, ("p", "stand")),
                   limits=Limits.for_timeouts(0.2, 20.0))
    played = _count_plays(monkeypatch)
    seen: list[MatchOutcome] = []
    drive([[job]], lambda outs: seen.extend(outs) or [], workers=1)
    (o,) = seen
    assert played == ["t|0"]
    assert o.faults[0] == "timeout" and said in o.fault_details[0] and o.wall_timeouts == [], o
    assert o.replay is None and o.first_fault == ""


def test_a_match_with_a_time_out_on_a_boxs_own_clock_stands_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a table where one seat timed out on its own CPU clock and another by a wall-clock backstop, the match is
    not replayed: a replay would throw away the first seat's time-out with the rest of the match."""
    from tests.outcomes import outcome
    from twentyone.grading import runner

    job = MatchJob("t|0", ("a.py:1", "b.py:1"), 3, JobInfo("tournament", "", 0, 3, ("a", "b")))
    mixed = replace(outcome([1, 2], ["timeout", "timeout"], key="t|0"), info=job.info, wall_timeouts=[False, True])
    clean = replace(mixed, faults=[None, None], wall_timeouts=[])

    def run(plays: list[MatchOutcome]) -> tuple[int, list[MatchOutcome]]:
        """The match's plays (first, then a replay) as given, so no box is needed; how many ran, and what was kept."""
        left = list(plays)
        monkeypatch.setattr(runner, "play_job", lambda j: left.pop(0))
        seen: list[MatchOutcome] = []
        runner.drive([[job]], lambda outs: seen.extend(outs) or [], workers=1)
        return len(plays) - len(left), seen

    assert run([mixed, clean]) == (1, [mixed])  # not replayed: it stands as played
    walls = replace(mixed, wall_timeouts=[True, True])
    played, seen = run([walls, clean])  # every time-out by the wall clock: replayed, as before
    assert played == 2 and [o.replay for o in seen] == ["cleared"] and seen[0].faults == [None, None]


_WHERE = '''
import json, os, time
from twentyone.grading import runner
from twentyone.players.sandbox import cpus


def where(_):
    time.sleep(1.0)  # long enough that every worker takes a task, even one started late on a busy machine
    return os.getpid(), cpus.engine_cpu(), sorted(os.sched_getaffinity(0))


if __name__ == "__main__":
    home = cpus.engine_cpu()  # what a time-out's replay in the grading process does
    with runner._local_pool(2) as pool:
        seen = {pid: (cpu, mask) for pid, cpu, mask in pool.map(where, range(6))}
    print(json.dumps({"home": home, "workers": [cpu for cpu, _ in seen.values()],
                      "parent": sorted(os.sched_getaffinity(0))}))
'''


def test_pool_workers_take_their_own_cpus_after_the_parent_played_sandboxed(tmp_path: Path) -> None:
    """After a time-out's replay (a sandboxed match in the grading process, which pins it to one CPU), a
    new pool's workers still run on different CPUs: each is given back every CPU the parent had, instead
    of inheriting its one CPU (all of grade then ran on one core)."""
    import json
    import os
    import subprocess
    import sys

    from twentyone.players.sandbox.cpus import allowed_cpus

    every = allowed_cpus()  # this process may itself be pinned by an earlier test's sandboxed match
    require(len(every) >= 2, "two CPUs")
    script = tmp_path / "where.py"
    script.write_text(_WHERE)
    out = json.loads(subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                                    cwd=ROOT, check=True, preexec_fn=lambda: os.sched_setaffinity(0, every)).stdout)
    assert len(out["workers"]) == 2 and len(set(out["workers"])) == 2, out  # two workers, two CPUs
    assert out["parent"] == [out["home"]]  # the parent itself stays where it was pinned


_AFTER_REPLAY = '''
import json, os, sys
from twentyone.grading.outcome import JobInfo
from twentyone.grading.plan import MatchJob
from twentyone.grading.runner import drive
from twentyone.players.sandbox.limits import Limits

loop, workers = sys.argv[1], int(sys.argv[2])
before = sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0)
seen = []
job = MatchJob("t|0", (f"{loop}:1", "stand"), 3, JobInfo("tournament", "", 0, 3, ("loop", "stand")),
               limits=Limits.for_timeouts(1.0, 0.05))  # a wall-clock time-out (tests/test_runner.py, _WALL)
drive([[job]], lambda outs: seen.extend(outs) or [], workers=workers)
after = sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0)
print(json.dumps({"before": before, "after": after, "replay": [o.replay for o in seen]}))
'''


@pytest.mark.parametrize("workers", [1, 2])
def test_grading_keeps_every_cpu_after_a_replay_alone(tmp_path: Path, workers: int) -> None:
    """A time-out's replay alone is a sandboxed match in the grading process, which pins that process to one CPU
    (``engine_cpu``) with SCHED_BATCH.  It stayed pinned for the rest of the run: the judging, the reports and
    the chart workers it forks then shared one core while the other idled (about 12 s more for the reports of a
    class with one looping hand-in).  After ``drive`` (pool or in process) the process has its CPUs and its
    scheduling policy back."""
    import json
    import os
    import subprocess
    import sys

    from twentyone.players.sandbox.cpus import allowed_cpus

    every = allowed_cpus()
    require(len(every) >= 2, "two CPUs")
    script = tmp_path / "after.py"
    script.write_text(_AFTER_REPLAY)
    def fresh() -> None:  # as a new grading process starts (this one may be pinned by an earlier sandboxed test)
        os.sched_setaffinity(0, every)
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))

    run = subprocess.run([sys.executable, str(script), str(_looper(tmp_path)), str(workers)], capture_output=True,
                         text=True, timeout=120, cwd=ROOT, preexec_fn=fresh)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["replay"] == ["confirmed"] and out["before"] == [sorted(every), os.SCHED_OTHER]
    assert out["after"] == out["before"], out


def test_a_confirmed_timeout_is_charged_without_a_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three matches of a strategy looping past its match's wall-clock backstop: the first time-out is replayed
    alone and confirmed; the other two are charged without a replay, so the loop costs four plays, not six."""
    from twentyone.grading.runner import drive

    loop = _looper(tmp_path)
    limits = _WALL
    jobs = [MatchJob(f"t|{i}", (f"{loop}:1", "stand"), 3 + i, JobInfo("tournament", "", i, 3 + i, ("loop", "stand")),
                     limits=limits) for i in range(3)]
    played = _count_plays(monkeypatch)
    seen: list[MatchOutcome] = []
    drive([jobs], lambda outs: seen.extend(outs) or [], workers=1)
    assert sorted(played) == ["t|0", "t|0", "t|1", "t|2"]
    assert sorted((o.key, o.replay) for o in seen) == [("t|0", "confirmed"), ("t|1", "charged"), ("t|2", "charged")]
    assert all(o.faults[0] == "timeout" for o in seen)


def test_a_job_no_longer_wanted_is_not_played() -> None:
    """A queued batch is filtered just before it starts: the jobs ``wanted`` refuses never play."""
    from twentyone.grading.runner import drive

    jobs = _jobs(6)
    seen: list[str] = []
    drive([jobs[:2], jobs[2:4], jobs[4:]], lambda outs: seen.extend(o.key for o in outs) or [], workers=1,
          wanted=lambda j: len(seen) < 2 or j.info.idx % 2 == 0)
    assert seen == [j.key for j in jobs[:2]] + [jobs[2].key, jobs[4].key]


def test_a_confirmed_looper_plays_one_match_at_a_time_beside_the_others() -> None:
    """Once a player's time-out is confirmed, its queued matches are set apart, in queue order, and start one by
    one: first whenever none of them is playing (so they are not left to the end, played alone while other
    workers idle); while one plays, the others' batches start first, in queue order; with nothing else queued,
    another of its matches.  Batches queued later are split the same way, and a batch put back goes first."""
    from twentyone.grading.runner import _Queue

    def job(key: str, spec: str) -> MatchJob:
        return MatchJob(key, (spec, "stand"), 3, JobInfo("tournament", "", 0, 3, ("p", "stand")))

    a, b = [job(f"other|{i}", "basic") for i in range(2)], [job(f"other|{i}", "hilo") for i in range(2, 4)]
    loops = [job(f"loop|{i}", "loop.c:1") for i in range(5)]
    q = _Queue([a, [loops[0], b[0], loops[1]], b[1:], loops[2:3]])
    assert q.take(False) == a  # nobody confirmed: queue order
    q = _Queue([a, [loops[0], b[0], loops[1]], b[1:], loops[2:3]])
    q.confirm({"loop.c:1"})
    q.add([[loops[3]], [job("other|9", "basic")]])
    q.add([[loops[4]]], front=True)
    took = []
    looping = False
    while q:
        nxt = q.take(looping)
        took.append([j.key for j in nxt])
        looping = looping or any(q.seats_looper(j) for j in nxt)
    assert took == [["loop|4"], ["other|0", "other|1"], ["other|2"], ["other|3"], ["other|9"], ["loop|0"], ["loop|1"],
                    ["loop|2"], ["loop|3"]]


def test_a_confirmed_loopers_matches_start_one_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its time-out stands (here on its own CPU clock, at once), a looper's batch starts match by match, each
    asked about just before it starts: a criterion decided by its first match plays none of the rest (each would
    cost a decision limit)."""
    from twentyone.grading.runner import drive
    from twentyone.players.sandbox.limits import Limits

    loop = _looper(tmp_path)
    limits = Limits.for_timeouts(0.2, 20.0)

    def job(key: str) -> MatchJob:
        return MatchJob(key, (f"{loop}:1", "stand"), 3, JobInfo("beat_stand", "loop", 0, 3, ("loop", "stand"), 1),
                        limits=limits)

    played = _count_plays(monkeypatch)
    stored: list[MatchOutcome] = []

    def on_done(outs: list[MatchOutcome]) -> list[list[MatchJob]]:
        stored.extend(outs)
        return [[job("loop|1"), job("loop|2"), job("loop|3")]] if len(stored) == 1 else []

    drive([[job("loop|0")]], on_done, workers=1, wanted=lambda j: len(stored) < 2)
    assert played == ["loop|0", "loop|1"]
    assert [o.replay for o in stored] == [None, None] and all(o.faults[0] == "timeout" for o in stored)


#: Limits under which a looping strategy times out by its match's wall-clock backstop (10 x 0.05 s), long before
#: any CPU limit of its box (1 s), as a machine far too slow would make it: the time-out that is replayed.
_WALL = Limits.for_timeouts(1.0, 0.05)


def _looper(folder: Path) -> Path:
    """A course .py whose bet loops for ever (each of its matches a time-out)."""
    loop = folder / "loop.py"
    loop.write_text("def bet1(N):\n    while True:\n        pass\n"
                    "def first_action1(t, n): return 's'\ndef continue_action1(p): return 's'\n"
                    "def show1(b, p, n, N, pos): pass\n")
    return loop


def _count_plays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys of the matches the runner plays from now on, in order (a replay alone too)."""
    from twentyone.grading import runner

    played: list[str] = []
    real = runner.play_job

    def counted(job: MatchJob) -> MatchOutcome:
        played.append(job.key)
        return real(job)

    monkeypatch.setattr(runner, "play_job", counted)
    return played


def test_a_task_stops_at_its_first_time_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's task ends at a match that timed out: the rest of it goes back to the queue, so a looper's task of
    ten matches costs one decision limit, not ten, and once its time-out stands they wait for ``wanted``."""
    from twentyone.grading.runner import drive
    from twentyone.players.sandbox.limits import Limits

    loop = _looper(tmp_path)
    limits = Limits.for_timeouts(0.2, 20.0)

    def job(i: int) -> MatchJob:
        return MatchJob(f"loop|{i}", (f"{loop}:1", "stand"), 3,
                        JobInfo("beat_stand", "loop", i, 3, ("loop", "stand"), 1), limits=limits)

    played = _count_plays(monkeypatch)
    stored: list[MatchOutcome] = []
    def on_done(outs: list[MatchOutcome]) -> list[list[MatchJob]]:
        stored.extend(outs)
        return []

    drive([[job(i) for i in range(10)], [job(i) for i in range(10, 20)]], on_done, workers=1,
          wanted=lambda j: len(stored) < 2)
    # loop|0 (its time-out on its own CPU clock stands, unreplayed), then loop|1, next in line before the second
    # task; the rest never started.
    assert played == ["loop|0", "loop|1"]
    assert [(o.key, o.replay) for o in stored] == [("loop|0", None), ("loop|1", None)]
    assert all(o.reason != "unplayed" for o in stored)
