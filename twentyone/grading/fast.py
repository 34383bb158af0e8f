"""A plain match's rounds played in C in the engine's process (``c_src/fast/tw_fast.c``); the Python engine decides.

Most of a grade is criterion matches that keep nothing but their result: a hand-in in its box against ``stand``
or ``basic``, no log, no trace, no bankroll.  Their rounds are the engine's own work, about 20 us each in
Python; here ``tw_fast_play`` plays them, sending each box the same frames as the Python client does
(``twentyone.players.sandbox.wire``) on the same pipes.  The student's code stays in its box: only the table and
the built-in players are in C, in this process.

The Python engine stays the reference.  The C table plays only rounds it is sure of: at a foul, a reply that is not
a value, a box that ends (or that the watchdog ends: blocked, or past its limit), a pipe that is full, or an
interrupt, it stops and hands the match back: the match is played again from its start by ``match.play_match`` in
new boxes, and that result is the one kept (a box keeps state between calls, so a match is never continued
half-way).  A
file handed back once is played in Python for the rest of the process's matches.  ``tests/test_fast.py`` plays the
same matches both ways, and students that decide by every byte they are shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from twentyone.core import fast_ffi, fast_lib
from twentyone.grading.plan import MatchJob
from twentyone.match import MatchResult, Seating, Standing, rank
from twentyone.players.builtin.course import Basic, Stand, basic_tables
from twentyone.players.sandbox.client import SandboxFunctionSet
from twentyone.rules import COURSE, get_rules
from twentyone.strategy import FunctionSetStrategy, Strategy

__all__ = ["eligible", "play", "HANDED_BACK"]

_REASONS = ("broke", "rounds", "shuffles")
#: The SPECs whose match was handed back in this process (a foul, a fault, a slow reply): played in Python from then
#: on, so that a file that fouls or times out pays for its matches once.
HANDED_BACK: set[str] = set()


def eligible(job: MatchJob) -> bool:
    """Whether ``job`` may be tried in C: a plain match under the course rules (nothing kept but its result), with a
    sandbox, of at most five seats."""
    return (job.limits is not None and not (job.trace or job.bankroll or job.priced or job.duplicate)
            and job.rules == COURSE.name and 1 <= job.decks <= 8 and 1 <= len(job.specs) <= 5
            and not any(spec in HANDED_BACK for spec in job.specs))


def _seat(strategy: Strategy) -> int | SandboxFunctionSet | None:
    """What plays ``strategy`` in C: a built-in's kind, a file's set in a box of its own, or None (only Python can)."""
    inner = getattr(strategy, "inner", None)  # a file player's ``runner.Answers``
    if inner is not None and type(inner) is FunctionSetStrategy:
        fs = inner.functions
        if type(fs) is SandboxFunctionSet and fs.plays_alone():
            return fs
        return None
    if type(strategy) is Stand:
        return int(fast_lib.TW_FAST_STAND)
    if type(strategy) is Basic:
        return int(fast_lib.TW_FAST_BASIC)
    return None


def play(job: MatchJob, seatings: Sequence[Seating]) -> tuple[MatchResult | None, object | None]:
    """Play ``job`` in C: (its result, None); or (None, token) when the Python engine must play it, with the match's
    token when its strategies were started and nothing was played (a box that could not start keeps its fault for
    the match's first call), else with None (a new match, in new boxes)."""
    rules = get_rules(job.rules)
    if rules != COURSE:
        return None, None
    kinds = [_seat(s.strategy) for s in seatings]
    if any(k is None for k in kinds) or any(len(s.name.encode("utf-8")) > 19 for s in seatings):
        return None, None  # (a Python box is shown a seat's whole name; the C table holds 19 bytes of it)
    n = len(seatings)
    token = object()
    for i, s in enumerate(seatings):
        s.strategy.start_match(token, job.decks, n, i + 1)
    seats = fast_ffi.new("tw_fast_seat[]", n)
    boxes: list[SandboxFunctionSet] = []
    flights = []  # the seats' flight counters: kept alive here while C holds pointers to them
    for i, (s, kind) in enumerate(zip(seatings, kinds)):
        seat = seats[i]
        name = s.name.encode("utf-8")[:19]
        fast_ffi.memmove(seat.name, name, len(name))
        if isinstance(kind, SandboxFunctionSet):
            flight = fast_ffi.new("int[2]")
            pipes = kind.fly(flight)
            if pipes is None:
                for fs in boxes:
                    fs.land(True)  # nothing was asked of them: the Python engine plays the match as it began
                return None, token
            boxes.append(kind)
            flights.append(flight)
            seat.kind, seat.k, seat.flight, seat.py = fast_lib.TW_FAST_BOX, kind.k, flight, kind.kind == "py"
            seat.wfd, seat.rfd = pipes
        else:
            seat.kind = kind
    first, later = basic_tables(job.decks)
    keep = (fast_ffi.from_buffer(first), fast_ffi.from_buffer(later))  # alive while C reads them, as ``flights``
    m = fast_ffi.new("tw_fast_match *")
    m.seats, m.decks, m.seed = n, job.decks, job.seed
    m.start_money, m.min_bet, m.threshold = rules.start_money, rules.min_bet, rules.reshuffle_threshold(job.decks)
    m.rounds_per_seat, m.max_shoes = rules.rounds_per_seat or 0, rules.max_shoes or 0
    m.basic_first, m.basic_later = keep
    handed = -1
    try:
        handed = fast_lib.tw_fast_play(m, seats)
    finally:
        for fs in boxes:
            fs.land(handed == 0)
    if handed:
        if handed != fast_lib.TW_FAST_INTERRUPTED and m.handover_seat:
            HANDED_BACK.add(seatings[m.handover_seat - 1].spec)
        return None, None
    ranks = rank([(m.account[i], m.seat_rounds[i]) for i in range(n)])
    standings = sorted((Standing(ranks[i], i + 1, s.name, s.spec, m.account[i], m.seat_rounds[i], 0)
                        for i, s in enumerate(seatings)), key=lambda st: (st.rank, st.seat))
    return MatchResult(job.seed, job.decks, rules.name, _REASONS[m.reason], m.rounds, m.shuffles, standings), None
