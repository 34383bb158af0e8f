"""Run many matches: the unit of work for grading and tournaments, and where it runs.

A ``plan.MatchJob`` names everything a match needs (players as SPEC strings, seed, decks, rules,
sandbox limits), so it can be shipped to another process or machine; ``play_job`` plays it and
returns an ``outcome.MatchOutcome``.  ``run_jobs`` plays a list of jobs in this process, in a local process
pool (``workers``) or on Dask distributed (``cluster``), many jobs per task, yielding outcomes as
batches finish.  Outcomes depend only on the jobs, so every way of running gives the same results.
"""

from __future__ import annotations

import os
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import replace
from pathlib import Path
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.grading.outcome import Incident, MatchOutcome
from twentyone.grading.plan import MatchJob
from twentyone.legality import Foul
from twentyone.match import Seating, play_match
from twentyone.players.sandbox.cpus import allowed_cpus, release
from twentyone.players.sandbox.limits import Limits, die_with_parent
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog
from twentyone.rules import get_rules
from twentyone.strategy import Strategy

__all__ = ["play_job", "play_batch", "run_jobs", "drive", "parse_cluster", "timed_out", "confirm_timeout"]

#: Round records kept per seat and match for the report (the count of fouls is always whole).
MAX_INCIDENTS_PER_SEAT = 5
#: Seated strategies kept per process for later jobs (each sandboxed one holds the next match's box).
CACHE_SIZE = 32


_CACHE: OrderedDict[tuple[str, int, Limits | None], Strategy] = OrderedDict()


def _strategy(spec: str, nth: int, limits: Limits | None, capture_dir: str | None) -> Strategy:
    """The ``nth`` strategy for ``spec`` in a match, kept for the next job of this process (its spare box is reused)."""
    key = (spec, nth, limits)
    s = _CACHE.get(key)
    if s is not None:
        _CACHE.move_to_end(key)
    else:
        s = make_strategy(spec, warn=lambda m: None, sandbox=limits,
                          capture_dir=Path(capture_dir) if capture_dir else None)
        _CACHE[key] = s
        while len(_CACHE) > CACHE_SIZE:
            _, old = _CACHE.popitem(last=False)
            old.close()
    return s


def play_job(job: MatchJob) -> MatchOutcome:
    """Play one job; a player that cannot be built gives an outcome with ``error`` set."""
    n = len(job.specs)
    seatings = []
    for i, spec in enumerate(job.specs):
        try:
            # Keyed by the SPEC's occurrence in this match, not its seat: a student who moves from
            # seat to seat keeps one set of boxes; a SPEC seated twice gets two.
            nth = job.specs[:i].count(spec) + 1
            seatings.append(Seating(f"player{i + 1}", spec, _strategy(spec, nth, job.limits, job.capture_dir)))
        except TwentyOneError as e:
            # The seat that could not be built faults; the match is not played.
            faults: list[str | None] = [None] * n
            faults[i] = "error"
            details = [""] * n
            details[i] = str(e)
            return MatchOutcome(job.key, job.info, "error", 0, [0] * n, [1] * n, [0] * n, [0] * n, faults,
                                details, error=str(e))
    tracer = None
    if job.trace and job.info.seat is not None:
        # The subject's seat keeps a decision trace, the references asked beside it (grading.tracer).
        from twentyone.grading.tracer import Tracer, reference_family

        at = seatings[job.info.seat - 1]
        tracer = Tracer(at.strategy, reference_family(get_rules(job.rules), job.decks))
        seatings[job.info.seat - 1] = Seating(at.name, at.spec, tracer)
    log = RoundLog(keep=True)
    result = play_match(seatings, job.decks, job.seed, get_rules(job.rules), log=log, history=job.bankroll)
    by_seat = {s.seat: s for s in result.ranking}
    incidents: list[Incident] = []
    kept = [0] * n
    for rec in log.records or []:
        if rec.get("type") != "round":
            continue
        for p in rec["players"]:
            if p["foul"] is not None and kept[p["seat"] - 1] < MAX_INCIDENTS_PER_SEAT:
                kept[p["seat"] - 1] += 1
                incidents.append(Incident(p["seat"], rec["round"], p["foul"], rec))
    return MatchOutcome(
        key=job.key, info=job.info, reason=result.reason, rounds=result.rounds,
        accounts=[by_seat[i + 1].account for i in range(n)],
        ranks=[by_seat[i + 1].rank for i in range(n)],
        seat_rounds=[by_seat[i + 1].rounds for i in range(n)],
        fouls=[by_seat[i + 1].fouls for i in range(n)],
        faults=[by_seat[i + 1].fault for i in range(n)],
        fault_details=[by_seat[i + 1].fault_detail for i in range(n)],
        bankroll=[list(h) for h in result.history],
        incidents=incidents,
        trace=tracer.trace() if tracer is not None else (),
        log=_kept_log(job, log),
    )


def _kept_log(job: MatchJob, log: RoundLog) -> str:
    """The round log the match keeps for its review and replay, its decisions priced (``grading.reviewer``)."""
    from twentyone.grading.reviewer import kept_log

    return kept_log(log.records or [], job.info.seat, job.trace or job.bankroll, MAX_INCIDENTS_PER_SEAT)


def play_batch(jobs: Sequence[MatchJob]) -> list[MatchOutcome]:
    """Play jobs one after another in this process (the task a worker runs)."""
    return [play_job(j) for j in jobs]


def _batches(jobs: Sequence[MatchJob], size: int) -> list[list[MatchJob]]:
    return [list(jobs[i:i + size]) for i in range(0, len(jobs), size)]


def parse_cluster(text: str) -> str | None:
    """``dask`` -> '' (a LocalCluster), ``dask:ADDRESS`` -> ADDRESS; anything else is an error."""
    if text == "dask":
        return ""
    if text.startswith("dask:") and len(text) > 5:
        return text[5:]
    raise TwentyOneError(f"unknown cluster {text!r} (use dask or dask:SCHEDULER_ADDRESS)")


def run_jobs(jobs: Sequence[MatchJob], workers: int = 0, batch: int = 8,
             cluster: str | None = None, dask_workers: int = 2) -> Iterator[MatchOutcome]:
    """Play ``jobs`` in batches of ``batch`` and yield every outcome (order within a run may vary).

    ``workers`` 0 means one per core; 1 plays in this process.  ``cluster`` '' starts a Dask
    LocalCluster with ``dask_workers`` workers; an address connects to that scheduler.
    """
    outcomes: list[MatchOutcome] = []

    def keep(done: list[MatchOutcome]) -> list[list[MatchJob]]:
        outcomes.extend(done)
        return []

    drive(_batches(jobs, batch), keep, workers, cluster, dask_workers)
    yield from outcomes


def drive(first: Sequence[Sequence[MatchJob]],
          on_done: Callable[[list[MatchOutcome]], Sequence[Sequence[MatchJob]]],
          workers: int = 0, cluster: str | None = None, dask_workers: int = 2, replay: bool = True) -> None:
    """Play batches of jobs; after each batch, ``on_done`` gets its outcomes and returns more batches.

    This is how grading plays "until the interval decides": the next batch of a criterion is only
    asked for once the last one is stored.  ``workers``, ``cluster`` and ``dask_workers`` are as in
    ``run_jobs``.  On Ctrl-C the pending batches are cancelled and KeyboardInterrupt propagates;
    every batch already handed to ``on_done`` stays done.

    A time-out must be the strategy's fault, never the machine's: with ``replay`` a match that ended in
    a time-out is held back, and once nothing else is playing it is replayed alone in this process
    (``confirm_timeout``); only then does ``on_done`` see it.
    """
    jobs: dict[str, MatchJob] = {}
    held: list[MatchOutcome] = []

    def remember(batches: Iterable[Sequence[MatchJob]]) -> list[list[MatchJob]]:
        out = [list(b) for b in batches if b]
        for b in out:
            for j in b:
                jobs[j.key] = j
        return out

    def done(outcomes: list[MatchOutcome]) -> list[list[MatchJob]]:
        ready = []
        for o in outcomes:
            if replay and o.replay is None and timed_out(o) and o.key in jobs:
                held.append(o)
            else:
                ready.append(o)
        return remember(on_done(ready)) if ready else []

    batches = remember(first)
    while batches:
        _play(deque(batches), done, workers, cluster, dask_workers)
        batches = []
        if held:
            replayed = [confirm_timeout(o, play_job(jobs[o.key])) for o in sorted(held, key=lambda o: o.key)]
            held.clear()
            batches = remember(on_done(replayed))


def timed_out(o: MatchOutcome) -> bool:
    """True when some seat of the match faulted with a time-out."""
    return any(f == Foul.TIMEOUT for f in o.faults)


def confirm_timeout(first: MatchOutcome, again: MatchOutcome) -> MatchOutcome:
    """The outcome to keep after replaying a timed-out match alone: the replay's, marked ``confirmed`` when it
    timed out at the same round for every seat that did the first time, else ``cleared``."""
    seats = [i for i, f in enumerate(first.faults) if f == Foul.TIMEOUT]
    same = all(again.faults[i] == Foul.TIMEOUT and again.seat_rounds[i] == first.seat_rounds[i] for i in seats)
    detail = "; ".join(first.fault_details[i] for i in seats)
    return replace(again, replay="confirmed" if same else "cleared", first_fault="" if same else detail)


def _play(queue: deque[Sequence[MatchJob]], done: Callable[[list[MatchOutcome]], list[list[MatchJob]]],
          workers: int, cluster: str | None, dask_workers: int) -> None:
    """Play the queued batches and every batch ``done`` asks for, locally or on Dask."""
    if cluster is not None:
        _drive_dask(queue, done, cluster, dask_workers)
        return
    workers = workers or (os.cpu_count() or 1)
    if workers == 1:
        while queue:
            queue.extend(b for b in done(play_batch(queue.popleft())) if b)
        return
    pool = _local_pool(workers)
    pending: set[Future[list[MatchOutcome]]] = set()
    try:
        while queue or pending:
            while queue and len(pending) < 4 * workers:
                pending.add(pool.submit(play_batch, queue.popleft()))
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                queue.extend(b for b in done(f.result()) if b)
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _drive_dask(queue: deque[Sequence[MatchJob]],
                on_done: Callable[[list[MatchOutcome]], Sequence[Sequence[MatchJob]]],
                address: str, n_workers: int) -> None:
    client, cluster = _dask_client(address, n_workers)
    try:
        from dask.distributed import as_completed

        ac = as_completed([client.submit(play_batch, list(b), pure=False) for b in queue])
        queue.clear()
        for f in ac:
            for b in on_done(f.result()):
                if b:
                    ac.add(client.submit(play_batch, list(b), pure=False))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _dask_client(address: str, n_workers: int) -> tuple[Any, Any]:
    """A Dask client on ``address``, or on a new LocalCluster (returned too, to close) when it is ''."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise TwentyOneError("--cluster dask needs Dask: pip install -e '.[dask]'") from None
    if address:
        try:
            return Client(address, timeout=10), None
        except OSError as e:
            raise TwentyOneError(f"cannot reach the Dask scheduler at {address!r}: {e}") from None
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    for i, address in enumerate(sorted(client.scheduler_info()["workers"])):
        client.run(_pin_worker, i, sorted(allowed_cpus()), workers=[address])
    return client, cluster


def _local_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, each with its own CPU for its sandboxes (see ``_init_worker``)."""
    import multiprocessing

    counter = multiprocessing.get_context().Value("i", 0)
    return ProcessPoolExecutor(workers, initializer=_init_worker,
                               initargs=(counter, os.getpid(), sorted(allowed_cpus())))


def _init_worker(counter: Any = None, parent: int = 0, cpus: Sequence[int] = ()) -> None:
    """Pool workers die with the command, ignore Ctrl-C (the parent stops them) and each takes its own CPU
    of ``cpus`` for its sandboxes."""
    import signal

    if parent:
        die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if counter is not None:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        _pin_worker(index, cpus)


def _pin_worker(index: int, cpus: Sequence[int] = ()) -> None:
    """Worker ``index`` runs its sandboxed strategies on CPU ``index`` (modulo ``cpus``, default the CPUs
    it may use).

    A sandboxed strategy's child shares its engine's CPU (see ``twentyone.players.sandbox.cpus.engine_cpu``); without
    this two workers could pick the same CPU and leave another idle.  A parent that has itself played a
    sandboxed match (a time-out's replay, or a script) is pinned to one CPU, which its workers inherit:
    ``release`` gives them back every CPU the parent had (``cpus``, as the parent saw them before pinning).
    """
    release(set(cpus) or None)
    mine = sorted(os.sched_getaffinity(0))
    os.environ["TWENTYONE_CPU"] = str(mine[index % len(mine)])

