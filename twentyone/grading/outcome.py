"""The values that cross from playing to storing to reading: a match job's identity and its outcome.

A ``MatchOutcome`` is made by ``runner.play_job``, stored by ``store.Store.add_outcome`` and read back
with ``MatchOutcome.from_dict``, so every side holds the same typed value, never a dict read by key.
"""

from __future__ import annotations

import copy
from collections.abc import Container
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from twentyone.grading.similarity.traces import TraceRound

__all__ = ["EntryKind", "JobInfo", "MatchOutcome", "Incident", "counted_incidents"]


class EntryKind(StrEnum):
    """What an entry of a run is: a C, C++ or Python file, or a built-in player."""

    C = "c"
    CPP = "cpp"
    PY = "py"
    BUILTIN = "builtin"
    #: A submission that could not be identified (its ``error`` says why).
    UNKNOWN = ""


@dataclass(frozen=True)
class JobInfo:
    """Who a match is for: its purpose, subject, index and seed, the names at each seat, the subject's seat."""

    #: ``legal``, ``beat_stand``, ``beat_basic`` or ``tournament``.
    purpose: str
    #: The graded submission ('' for a tournament match).
    subject: str
    idx: int
    seed: int
    names: tuple[str, ...]
    #: The subject's seat (None for a tournament match).
    seat: int | None = None


@dataclass(frozen=True)
class Incident:
    """A round with a foul, as kept with a match outcome: the seat, the round, the cause and the round record;
    for a foul (not a fault), which function was asked last (``first_action`` or ``continue_action``) and what it
    answered (the round record keeps only legal characters)."""

    seat: int
    round: int
    foul: str
    record: dict[str, Any]
    asked: str = ""
    answer: str = ""


@dataclass(frozen=True)
class MatchOutcome:
    """What a played match returns: everything the reports need, per seat (index 0 = seat 1)."""

    key: str
    info: JobInfo
    reason: str
    rounds: int
    accounts: list[int]
    ranks: list[int]
    seat_rounds: list[int]
    fouls: list[int]
    #: The fault cause of each seat (``crash``, ``timeout`` ...), or None.
    faults: list[str | None]
    fault_details: list[str]
    #: Every seat's money after each round (kept for a few sample matches).
    bankroll: list[list[int]] = field(default_factory=list)
    #: Rounds with a foul (a few per seat), with their round records.
    incidents: list[Incident] = field(default_factory=list)
    #: A setup error (e.g. a player that could not be built): the match was not played.
    error: str | None = None
    #: After a time-out the match is replayed alone (``runner.drive``): ``confirmed`` when the replay
    #: timed out at the same round too, ``cleared`` when it did not (this is then the replay's result);
    #: ``charged`` when a replay had already confirmed a time-out of the same player, so none was needed.
    replay: str | None = None
    #: What the first play's time-out said, when the replay cleared it.
    first_fault: str = ""
    #: The subject's decision trace, in a traced match (``grading.traces``).
    trace: tuple[TraceRound, ...] = ()
    #: The round log kept for the review and the replay, packed (``grading.keptlog``; '' when none was kept).
    log: str = ""
    #: A priced match (a deal of a ``duplicate`` class tournament): per seat, the EV its decisions lost against the
    #: best play, in initial bets, and the hands priced (``twentyone.review.pricing``); empty when not priced.
    ev_lost: list[float] = field(default_factory=list)
    ev_hands: list[int] = field(default_factory=list)
    #: Per seat, whether its time-out was decided by a wall-clock backstop (the match's wall deadline, a decision's
    #: or loading's wall backstop), the only kind the machine's load may cause and so the only kind replayed
    #: (``runner.drive``); a time-out on the box's own CPU clock, or for blocking, stands.  Empty: none was (and in
    #: a run stored before it was kept).
    wall_timeouts: list[bool] = field(default_factory=list)

    @property
    def seat(self) -> int | None:
        """The subject's seat."""
        return self.info.seat

    def to_dict(self) -> dict[str, Any]:
        """The stored form: the outcome without its key and job info (which have their own columns),
        plus the subject's ``seat``.  Written out field by field (``dataclasses.asdict`` deep-copies every list,
        and the grading process stores every match: it was most of that process's time); the keys in field order,
        as ``asdict`` gave them, so a stored row is the same text (``test_outcome``)."""
        d: dict[str, Any] = {
            "reason": self.reason, "rounds": self.rounds, "accounts": list(self.accounts), "ranks": list(self.ranks),
            "seat_rounds": list(self.seat_rounds), "fouls": list(self.fouls), "faults": list(self.faults),
            "fault_details": list(self.fault_details), "bankroll": [list(h) for h in self.bankroll],
            "incidents": [{"seat": i.seat, "round": i.round, "foul": i.foul, "record": copy.deepcopy(i.record),
                           "asked": i.asked, "answer": i.answer} for i in self.incidents],
            "error": self.error, "replay": self.replay, "first_fault": self.first_fault}
        if self.trace:
            d["trace"] = [r.to_list() for r in self.trace]
        if self.log:
            d["log"] = self.log
        if self.ev_lost:
            d["ev_lost"], d["ev_hands"] = list(self.ev_lost), list(self.ev_hands)
        if any(self.wall_timeouts):
            d["wall_timeouts"] = list(self.wall_timeouts)
        d["seat"] = self.info.seat
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], key: str, info: JobInfo) -> MatchOutcome:
        """Read a stored outcome back; KeyError, TypeError or ValueError if it is not one (``check``)."""
        return cls(
            key=key, info=info, reason=str(d["reason"]), rounds=int(d["rounds"]),
            accounts=[int(x) for x in d["accounts"]], ranks=[int(x) for x in d["ranks"]],
            seat_rounds=[int(x) for x in d["seat_rounds"]], fouls=[int(x) for x in d["fouls"]],
            faults=[None if x is None else str(x) for x in d["faults"]],
            fault_details=[str(x) for x in d["fault_details"]],
            bankroll=[[int(x) for x in h] for h in d.get("bankroll") or []],
            incidents=[Incident(int(i["seat"]), int(i["round"]), str(i["foul"]), dict(i["record"]),
                                str(i.get("asked", "")), str(i.get("answer", ""))) for i in d.get("incidents") or []],
            error=_text_or_none(d.get("error")), replay=_text_or_none(d.get("replay")),
            first_fault=str(d.get("first_fault", "")),
            trace=tuple(TraceRound.from_list(r) for r in d.get("trace") or ()),
            log=str(d.get("log") or ""),
            ev_lost=[float(x) for x in d.get("ev_lost") or []], ev_hands=[int(x) for x in d.get("ev_hands") or []],
            wall_timeouts=[bool(x) for x in d.get("wall_timeouts") or []],
        ).check()

    def check(self) -> MatchOutcome:
        """Self, if it is a match of its seats: a value per seat in every per-seat list, a seat among them, ranks
        from 1, counts never negative; ValueError naming what is not."""
        n = len(self.info.names)
        for what in ("accounts", "ranks", "seat_rounds", "fouls", "faults", "fault_details"):
            if len(getattr(self, what)) != n:
                raise ValueError(f"{len(getattr(self, what))} {what} for {n} seats")
        if self.info.seat is not None and not 1 <= self.info.seat <= n:
            raise ValueError(f"seat {self.info.seat} of {n}")
        if any(not 1 <= r <= n for r in self.ranks):
            raise ValueError(f"ranks {self.ranks} of {n} seats")
        if min(self.seat_rounds + self.fouls + [self.rounds], default=0) < 0:
            raise ValueError("a negative count of rounds or fouls")
        if any(len(h) != n for h in self.bankroll) or any(not 1 <= i.seat <= n for i in self.incidents):
            raise ValueError("a bankroll or an incident of a seat the match does not have")
        if self.ev_lost and not (len(self.ev_lost) == len(self.ev_hands) == n and min(self.ev_hands) >= 0
                                 and all(x >= 0 for x in self.ev_lost)):
            raise ValueError(f"priced EV lost {self.ev_lost} over {self.ev_hands} hands for {n} seats")
        if self.wall_timeouts and len(self.wall_timeouts) != n:
            raise ValueError(f"{len(self.wall_timeouts)} wall_timeouts for {n} seats")
        return self


def counted_incidents(o: MatchOutcome, seat0: int, counted: Container[str]) -> int:
    """The incidents of seat ``seat0`` (from 0) of ``o`` that count against legal play: its kept fouls and its
    fault of the kinds in ``counted``, and every foul whose record was not kept.  The one count both the
    report (``grading.scoring``) and the grader's skipping of needless legal-play matches use."""
    fault = o.faults[seat0]
    if not (o.fouls[seat0] or fault):
        return 0
    recs = [inc for inc in o.incidents if inc.seat == seat0 + 1]
    n = sum(inc.foul.split(" ", 1)[0] in counted for inc in recs)
    if fault and not any(inc.foul == fault for inc in recs):
        n += fault.split(" ", 1)[0] in counted
    return n + max(0, o.fouls[seat0] - len(recs))


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
