"""Run many matches: the unit of work for grading and tournaments, and where it runs.

A ``plan.MatchJob`` names everything a match needs (players as SPEC strings, seed, decks, rules,
sandbox limits), so it can be shipped to another process or machine; ``play_job`` plays it and
returns an ``outcome.MatchOutcome``.  ``run_jobs`` plays a list of jobs in this process, in a local process
pool (``workers``) or on Dask distributed (``cluster``), many jobs per task, yielding outcomes as
batches finish.  Outcomes depend only on the jobs, so every way of running gives the same results.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twentyone.errors import TwentyOneError
from twentyone.grading import fast
from twentyone.grading.outcome import Incident, MatchOutcome
from twentyone.grading.plan import MatchJob
from twentyone.legality import Foul
from twentyone.match import Seating, play_match, rank
from twentyone.players.sandbox.cpus import allowed_cpus, borrowed, release
from twentyone.players.sandbox.limits import Limits, die_with_parent
from twentyone.players.spec import builtin_name, make_strategy
from twentyone.records import SeatView
from twentyone.roundlog import RoundLog
from twentyone.rules import get_rules
from twentyone.strategy import Strategy
from twentyone.table import StrategyFault

if TYPE_CHECKING:
    from twentyone.grading.similarity.tracer import Tracer

__all__ = ["play_job", "play_batch", "run_jobs", "drive", "parse_cluster", "timed_out", "confirm_timeout", "Answers"]

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
    answers: dict[int, Answers] = {}  # by seat index: each file player, which notes a wall-clock time-out
    for i, spec in enumerate(job.specs):
        try:
            # Keyed by the SPEC's occurrence in this match, not its seat: a student who moves from
            # seat to seat keeps one set of boxes; a SPEC seated twice gets two.
            nth = job.specs[:i].count(spec) + 1
            strategy = _strategy(spec, nth, job.limits, job.capture_dir)
            if builtin_name(spec) is None:  # a file: what it answered is kept for the report's incidents
                strategy = answers[i] = Answers(strategy)
            seatings.append(Seating(f"player{i + 1}", spec, strategy))
        except TwentyOneError as e:
            # The seat that could not be built faults; the match is not played.
            faults: list[str | None] = [None] * n
            faults[i] = "error"
            details = [""] * n
            details[i] = str(e)
            return MatchOutcome(job.key, job.info, "error", 0, [0] * n, [1] * n, [0] * n, [0] * n, faults,
                                details, error=str(e))
    tracer: Tracer | None = None
    if job.trace and job.info.seat is not None:
        # The subject's seat keeps a decision trace, the references asked beside it (grading.tracer).
        from twentyone.grading.similarity.tracer import Tracer, reference_family

        at = seatings[job.info.seat - 1]
        tracer = Tracer(at.strategy, reference_family(get_rules(job.rules), job.decks))
        seatings[job.info.seat - 1] = Seating(at.name, at.spec, tracer)
    if job.duplicate:
        return _duplicate(job, seatings, tracer, answers)
    # The whole log only where a page shows it (a traced or sample match) or its decisions are priced; else the
    # rounds with a foul, all that the incidents and the kept log read.
    log = RoundLog(keep=True, fouls_only=not (job.trace or job.bankroll or job.priced))
    result, token = fast.play(job, seatings) if fast.eligible(job) else (None, None)
    if result is None:  # the Python engine, the reference: any match the C table did not play whole
        result = play_match(seatings, job.decks, job.seed, get_rules(job.rules), log=log, history=job.bankroll,
                            token=token)
    by_seat = {s.seat: s for s in result.ranking}
    ev_lost, ev_hands = _priced(log, n) if job.priced else ([], [])
    return MatchOutcome(
        key=job.key, info=job.info, reason=result.reason, rounds=result.rounds,
        accounts=[by_seat[i + 1].account for i in range(n)],
        ranks=[by_seat[i + 1].rank for i in range(n)],
        seat_rounds=[by_seat[i + 1].rounds for i in range(n)],
        fouls=[by_seat[i + 1].fouls for i in range(n)],
        faults=[by_seat[i + 1].fault for i in range(n)],
        fault_details=[by_seat[i + 1].fault_detail for i in range(n)],
        bankroll=[list(h) for h in result.history],
        incidents=_incidents(log, lambda seat: seat, {k + 1: s.strategy for k, s in enumerate(seatings)}),
        trace=tracer.trace() if tracer is not None else (),
        log=_kept_log(job, log),
        ev_lost=ev_lost, ev_hands=ev_hands,
        wall_timeouts=_wall_timeouts([by_seat[i + 1].fault for i in range(n)], answers),
    )


def _wall_timeouts(faults: Sequence[str | None], answers: dict[int, Answers]) -> list[bool]:
    """``MatchOutcome.wall_timeouts``: per seat, whether it timed out by a wall-clock backstop (its ``Answers``
    saw the fault); empty when no seat did."""
    walls = [f == Foul.TIMEOUT and i in answers and answers[i].wall for i, f in enumerate(faults)]
    return walls if any(walls) else []


def _priced(log: RoundLog, seats: int) -> tuple[list[float], list[int]]:
    """``ev_lost`` and ``ev_hands`` of a priced match (``MatchJob.priced``): per seat, the EV its decisions lost
    against the best play off the cards it could see (the review's exact analyser), in initial bets, and the hands
    it played; a round the analyser cannot replay is left out of both."""
    from twentyone.review.logs import parse_records
    from twentyone.review.pricing import review_match

    match = parse_records(list(enumerate(log.records or [], 1)), "a priced match")
    lost: list[float] = []
    hands: list[int] = []
    for seat in range(1, seats + 1):
        review = review_match(match, seat)
        lost.append(sum(p.loss for p in review.priced if p.loss is not None))
        hands.append(review.hands)
    return lost, hands


def _incidents(log: RoundLog, seat_of: Callable[[int], int], strategies: dict[int, Strategy]) -> list[Incident]:
    """The rounds of ``log`` with a foul, ``MAX_INCIDENTS_PER_SEAT`` per seat, each under ``seat_of(its seat)``;
    a foul that is not a fault says what the seat's strategy (in ``strategies``, by seat of ``log``) was asked
    last in that round and what it answered."""
    incidents: list[Incident] = []
    kept: dict[int, int] = {}
    for rec in log.records or []:
        if rec.get("type") != "round":
            continue
        for p in rec["players"]:
            seat = seat_of(p["seat"])
            if p["foul"] is not None and kept.get(seat, 0) < MAX_INCIDENTS_PER_SEAT:
                kept[seat] = kept.get(seat, 0) + 1
                answers = strategies.get(p["seat"])
                asked, answer = ("", "")
                if isinstance(answers, Answers) and p["foul"] not in FAULTS:
                    asked, answer = answers.last.get(rec["round"], ("", ""))
                incidents.append(Incident(seat, rec["round"], p["foul"], rec, asked, answer))
    return incidents


#: Fouls that are strategy faults: what was answered (if anything) is in the fault's detail.
FAULTS = frozenset({Foul.ERROR, Foul.CRASH, Foul.TIMEOUT})


class Answers(Strategy):
    """A file player as the table sees it, every call passed on unchanged, noting in each round which decision
    it was asked last and what it answered: the round record keeps only legal characters, and the report's
    incident says what the illegal one was."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.course_interface = inner.course_interface
        #: Round -> (the function asked last, its answer, shown as text and cut to 20 characters).
        self.last: dict[int, tuple[str, str]] = {}
        #: Whether the fault that took it out of this match was decided by a wall-clock backstop
        #: (``StrategyFault.wall``; a fault ends its match, so the last one seen is the seat's).
        self.wall = False

    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        self.last.clear()
        self.wall = False
        self.inner.start_match(match, decks, seats, seat)

    def bet(self, view: SeatView) -> int:
        try:
            return self.inner.bet(view)
        except StrategyFault as e:
            self.wall = e.wall
            raise

    def first_action(self, view: SeatView) -> str:
        try:
            a = self.inner.first_action(view)
        except StrategyFault as e:
            self.wall = e.wall
            raise
        self.last[view.round] = ("first_action", a[:20] if a.__class__ is str else repr(a)[:20])
        return a

    def continue_action(self, view: SeatView) -> str:
        try:
            a = self.inner.continue_action(view)
        except StrategyFault as e:
            self.wall = e.wall
            raise
        self.last[view.round] = ("continue_action", a[:20] if a.__class__ is str else repr(a)[:20])
        return a

    def show(self, view: SeatView) -> None:
        try:
            self.inner.show(view)
        except StrategyFault as e:
            self.wall = e.wall
            raise

    def show_before_bet(self, view: SeatView) -> None:
        try:
            self.inner.show_before_bet(view)
        except StrategyFault as e:
            self.wall = e.wall
            raise

    def close(self) -> None:
        """The inner strategy belongs to the runner's cache: nothing is closed here."""


def _constant(value: int, _seat: int) -> int:
    return value


def _duplicate(job: MatchJob, seatings: Sequence[Seating], tracer: Tracer | None,
               answers: dict[int, Answers]) -> MatchOutcome:
    """A duplicate job (one-seat rules, ``plan``): each player alone at the table on the job's seed, then
    ranked against each other by the **ranking** ruling as if they had sat together.  Seat k of the outcome is
    player k's own match; its incidents' round records are that match's (the player at seat 1).  ``answers``: the
    file players' ``Answers``, by seat index."""
    rules = get_rules(job.rules)
    results = []
    incidents: list[Incident] = []
    logs: list[RoundLog] = []
    for k, seating in enumerate(seatings):
        log = RoundLog(keep=True, fouls_only=not (job.trace or job.bankroll))
        results.append(play_match([seating], job.decks, job.seed, rules, log=log, history=job.bankroll))
        incidents += _incidents(log, functools.partial(_constant, k + 1), {1: seating.strategy})
        logs.append(log)
    alone = [r.ranking[0] for r in results]
    longest = max(len(r.history) for r in results)
    bankroll = [[r.history[min(t, len(r.history) - 1)][0] if r.history else rules.start_money for r in results]
                for t in range(longest)]
    return MatchOutcome(
        key=job.key, info=job.info, reason="/".join(r.reason for r in results), rounds=sum(r.rounds for r in results),
        accounts=[s.account for s in alone], ranks=rank([(s.account, s.rounds) for s in alone]),
        seat_rounds=[s.rounds for s in alone], fouls=[s.fouls for s in alone], faults=[s.fault for s in alone],
        fault_details=[s.fault_detail for s in alone], bankroll=bankroll, incidents=incidents,
        trace=tracer.trace() if tracer is not None else (),
        # The subject's own match (it sits at seat 1 of it) is what its review and replay read.
        log=_kept_log(job, logs[job.info.seat - 1], 1) if job.info.seat is not None else "",
        wall_timeouts=_wall_timeouts([s.fault for s in alone], answers),
    )


def _kept_log(job: MatchJob, log: RoundLog, seat: int | None = None) -> str:
    """The round log the match keeps for its review and replay, its decisions priced (``grading.reviewer``);
    ``seat``: the subject's seat in ``log`` when it is not the job's (a duplicate job's own match)."""
    from twentyone.grading.decisions.pricing import kept_log

    return kept_log(log.records or [], seat if seat is not None else job.info.seat, job.trace or job.bankroll,
                    MAX_INCIDENTS_PER_SEAT)


#: The ``reason`` of the outcome ``play_batch`` gives a job it did not play: ``drive`` queues the job again.
UNPLAYED = "unplayed"


def play_batch(jobs: Sequence[MatchJob]) -> list[MatchOutcome]:
    """Play jobs one after another in this process (the task a worker runs).  After a match that ends in a
    time-out the rest are not played (each gets an outcome of reason ``UNPLAYED``, for ``drive`` to queue again):
    a wall-clock time-out is replayed before anything else starts, and once a player's time-out stands, every
    further match of it may cost a whole decision limit, so each waits until ``wanted`` is asked about it."""
    out = []
    for k, job in enumerate(jobs):
        out.append(play_job(job))
        if timed_out(out[-1]):
            out += [_unplayed(j) for j in jobs[k + 1:]]
            break
    return out


def _unplayed(job: MatchJob) -> MatchOutcome:
    n = len(job.specs)
    return MatchOutcome(job.key, job.info, UNPLAYED, 0, [0] * n, [1] * n, [0] * n, [0] * n, [None] * n, [""] * n)


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
          workers: int = 0, cluster: str | None = None, dask_workers: int = 2, replay: bool = True,
          wanted: Callable[[MatchJob], bool] | None = None) -> None:
    """Play batches of jobs; after each batch, ``on_done`` gets its outcomes and returns more batches.

    This is how grading plays "until the interval decides": the next batch of a criterion is only
    asked for once the last one is stored.  ``workers``, ``cluster`` and ``dask_workers`` are as in
    ``run_jobs``.  A queued batch is filtered through ``wanted`` just before it starts: a job it refuses
    (say, of a criterion decided meanwhile) is never played.  On Ctrl-C the pending batches are cancelled
    and KeyboardInterrupt propagates; every batch already handed to ``on_done`` stays done.

    A time-out must be the strategy's fault, never the machine's.  One measured on the box's own CPU clock, or
    for blocking (``MatchOutcome.wall_timeouts`` False), is: the match stands as played, never replayed, since a
    replay would let a strategy throw away a match it was losing by spinning past its limit (and its tablemates'
    results with it); a match with such a time-out stands even when another seat's was a wall-clock one.  With
    ``replay`` a match whose every time-out was decided by a wall-clock backstop is held back; no new batch starts
    while one is held, and once nothing else is playing it is replayed alone in this process
    (``confirm_timeout``); only then does ``on_done`` see it.  Once a replay has confirmed a player's time-out,
    that player's later wall-clock time-outs are charged without a replay (``replay`` ``charged``).  Once a
    player's time-out stands either way, a looping submission costs its own time-outs, not a serial replay of
    each, and its matches play one at a time beside everyone else's (``_Queue``).  A batch stops at its first
    time-out (``play_batch``); its jobs not played go back to the head of the queue.  A sandboxed match played in this
    process (a replay, or every match without a pool) pins it to one CPU while it plays (``engine_cpu``); when
    it was not pinned before, it gets every CPU back afterwards (``borrowed``).
    """
    jobs: dict[str, MatchJob] = {}
    held: list[MatchOutcome] = []
    queue = _Queue()
    #: The keys of the confirmed loopers' matches playing (``_Queue``).
    looping: set[str] = set()

    def remember(batches: Iterable[Sequence[MatchJob]]) -> list[list[MatchJob]]:
        out = [list(b) for b in batches if b]
        for b in out:
            for j in b:
                jobs[j.key] = j
        return out

    def done(outcomes: list[MatchOutcome]) -> list[list[MatchJob]]:
        looping.difference_update(o.key for o in outcomes)
        ready = []
        again = [jobs[o.key] for o in outcomes if o.reason == UNPLAYED]  # the rest of a task cut at a time-out
        for o in outcomes:
            if o.reason == UNPLAYED:
                continue
            if replay and o.replay is None and timed_out(o) and o.key in jobs:
                own = _own_clock_specs(o, jobs[o.key])
                if own:  # the box's own doing: the match stands as played
                    queue.set_apart(own)
                    ready.append(o)
                elif _timed_out_specs(o, jobs[o.key]) <= queue.confirmed:
                    ready.append(replace(o, replay="charged"))
                else:
                    held.append(o)
            else:
                ready.append(o)
        if again:  # they were next in line (a criterion is decided in index order)
            queue.add([again], front=True)
        return remember(on_done(ready)) if ready else []

    def replay_held() -> list[list[MatchJob]]:
        kept = []
        for o in sorted(held, key=lambda o: o.key):
            specs = _timed_out_specs(o, jobs[o.key])
            if specs <= queue.confirmed:
                kept.append(replace(o, replay="charged"))
                continue
            with borrowed():  # the grading process goes back to every CPU afterwards
                again = confirm_timeout(o, play_job(jobs[o.key]))
            if again.replay == "confirmed":
                queue.confirm(specs)
            queue.set_apart(_own_clock_specs(again, jobs[o.key]))
            kept.append(again)
        held.clear()
        return remember(on_done(kept))

    queue.add(remember(first))
    with borrowed(), _executor(workers, cluster, dask_workers) as ex:  # this process keeps every CPU it had
        while queue or ex.busy() or held:
            while queue and not held and ex.room():
                batch = [j for j in queue.take(bool(looping)) if wanted is None or wanted(j)]
                if batch:
                    looping.update(j.key for j in batch if queue.seats_looper(j))
                    ex.submit(batch)
            if ex.busy():
                for outcomes in ex.finished():
                    queue.add(done(outcomes))
            elif held:
                queue.add(replay_held())


class _Queue:
    """The batches waiting to start.  Once a player's time-out stands (``set_apart``: on its own clock, or
    ``confirm``-ed by a replay alone), each further match of
    it may cost a whole decision limit, so its queued matches are kept apart and start one at a time, each asked
    about (``wanted``) just before it starts, so that a criterion once decided plays no further one: while none
    of them plays, one starts first; while one plays (``looping``), everyone else's batches start first, in
    queue order, and another of them only when nothing else waits.  So a looper's matches neither hold the class
    up nor are left to the end, to play one by one while the other workers idle.  Every step is O(1) per job."""

    def __init__(self, batches: Iterable[list[MatchJob]] = ()) -> None:
        self.others: deque[list[MatchJob]] = deque()
        #: The confirmed loopers' matches, in queue order.
        self.loopers: deque[MatchJob] = deque()
        #: The SPECs whose time-out a replay alone confirmed (their later wall-clock time-outs are charged).
        self.confirmed: set[str] = set()
        #: The SPECs whose time-out stands (confirmed, or on their own clock): their matches are set apart.
        self.apart: set[str] = set()
        self.add(batches)

    def __bool__(self) -> bool:
        return bool(self.others or self.loopers)

    def seats_looper(self, job: MatchJob) -> bool:
        """True when ``job`` seats a player whose time-out stands."""
        return any(spec in self.apart for spec in job.specs)

    def add(self, batches: Iterable[list[MatchJob]], front: bool = False) -> None:
        """Queue ``batches`` at the end, or at the head (``front``: they were next in line)."""
        others: list[list[MatchJob]] = []
        loopers: list[MatchJob] = []
        for batch in batches:
            rest = [j for j in batch if not self.seats_looper(j)] if self.apart else batch
            if len(rest) < len(batch):
                loopers += [j for j in batch if self.seats_looper(j)]
            if rest:
                others.append(rest)
        if front:
            self.others.extendleft(reversed(others))
            self.loopers.extendleft(reversed(loopers))
        else:
            self.others.extend(others)
            self.loopers.extend(loopers)

    def confirm(self, specs: set[str]) -> None:
        """``specs`` timed out, confirmed by a replay alone: their queued matches are set apart (in queue order)."""
        self.confirmed |= specs
        self.set_apart(specs)

    def set_apart(self, specs: set[str]) -> None:
        """``specs``' time-outs stand: their queued matches are set apart (in queue order)."""
        if specs <= self.apart:
            return
        self.apart |= specs
        batches = list(self.others)
        self.others.clear()
        self.add(batches)

    def take(self, looping: bool) -> list[MatchJob]:
        """The batch to start next (the queue is not empty)."""
        if self.loopers and (not looping or not self.others):
            return [self.loopers.popleft()]
        return self.others.popleft()


def _timed_out_specs(o: MatchOutcome, job: MatchJob) -> set[str]:
    """The SPECs of the seats of ``o`` that timed out."""
    return {job.specs[i] for i, f in enumerate(o.faults) if f == Foul.TIMEOUT and i < len(job.specs)}


def _own_clock_specs(o: MatchOutcome, job: MatchJob) -> set[str]:
    """The SPECs of the seats of ``o`` whose time-out was measured on their box's own CPU clock, or was for blocking
    (not ``wall_timeouts``): it stands as played."""
    walls = o.wall_timeouts or [False] * len(o.faults)
    return {job.specs[i] for i, f in enumerate(o.faults) if f == Foul.TIMEOUT and not walls[i] and i < len(job.specs)}


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


class _Inline:
    """Batches played at once in this process (``workers`` 1)."""

    def __init__(self) -> None:
        self._done: list[list[MatchOutcome]] = []

    def room(self) -> bool:
        return not self._done

    def submit(self, batch: list[MatchJob]) -> None:
        self._done.append(play_batch(batch))

    def busy(self) -> bool:
        return bool(self._done)

    def finished(self) -> list[list[MatchOutcome]]:
        out, self._done = self._done, []
        return out

    def close(self) -> None:
        """Nothing to stop."""


class _Pool:
    """Batches played in a local process pool: one playing per worker and one more waiting, so a batch that is no
    longer wanted when its turn comes is still in ``drive``'s queue, where it can be dropped."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool = _local_pool(workers)
        self.pending: set[Future[list[MatchOutcome]]] = set()

    def room(self) -> bool:
        return len(self.pending) < self.workers + 1

    def submit(self, batch: list[MatchJob]) -> None:
        self.pending.add(self.pool.submit(play_batch, batch))

    def busy(self) -> bool:
        return bool(self.pending)

    def finished(self) -> list[list[MatchOutcome]]:
        finished, self.pending = wait(self.pending, return_when=FIRST_COMPLETED)
        return [f.result() for f in finished]

    def close(self) -> None:
        for f in self.pending:
            f.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Dask:
    """Batches played on Dask distributed, at most four per worker queued at once."""

    def __init__(self, address: str, n_workers: int) -> None:
        self.client, self.cluster = _dask_client(address, n_workers)  # one line if Dask is missing
        from dask.distributed import as_completed

        self.capacity = 4 * max(1, len(self.client.scheduler_info().get("workers", {})))
        self.ac = as_completed()

    def room(self) -> bool:
        return bool(self.ac.count() < self.capacity)

    def submit(self, batch: list[MatchJob]) -> None:
        self.ac.add(self.client.submit(play_batch, batch, pure=False))

    def busy(self) -> bool:
        return not self.ac.is_empty()

    def finished(self) -> list[list[MatchOutcome]]:
        return [next(self.ac).result()]

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


@contextmanager
def _executor(workers: int, cluster: str | None, dask_workers: int) -> Iterator[_Inline | _Pool | _Dask]:
    """Where batches play: on Dask (``cluster``), in this process (``workers`` 1) or in a local pool."""
    ex: _Inline | _Pool | _Dask
    if cluster is not None:
        ex = _Dask(cluster, dask_workers)
    else:
        workers = workers or (os.cpu_count() or 1)
        ex = _Inline() if workers == 1 else _Pool(workers)
    try:
        yield ex
    finally:
        ex.close()


def _dask_client(address: str, n_workers: int) -> tuple[Any, Any]:
    """A Dask client on ``address``, or on a new LocalCluster (returned too, to close) when it is ''."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise TwentyOneError("--cluster dask needs Dask: pip install -e '.[dask]'") from None
    if address:
        refused = _refused(address)
        if refused:
            raise TwentyOneError(f"cannot reach the Dask scheduler at {address!r}: {refused}")
        try:
            return Client(address, timeout=10), None
        except OSError as e:
            raise TwentyOneError(f"cannot reach the Dask scheduler at {address!r}: {e}") from None
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    for i, address in enumerate(sorted(client.scheduler_info()["workers"])):
        client.run(_pin_worker, i, sorted(allowed_cpus()), workers=[address])
    return client, cluster


def _refused(address: str) -> str:
    """Why a TCP scheduler ``address`` refuses a connection at once (nothing listens there: said now, not after the
    client's 10 s of retries), or '' (it may be reached, or is not TCP: the client tries)."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, where = parse_address(address)
        if scheme != "tcp":
            return ""
        host, port = parse_host_port(where)
        socket.create_connection((host, int(port)), timeout=2).close()
    except ConnectionRefusedError:
        return "the connection was refused (is its scheduler running?)"
    except (OSError, ValueError, TypeError):
        return ""
    return ""


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

