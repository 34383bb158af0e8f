"""A whole match: the course's ``main.c`` loop, the end conditions and the ranking.

``play_match`` seats the players, shuffles shoe 1, plays rounds until the match ends (nobody left,
a 6th shuffle needed, or 50 rounds per seat; other rule sets change these limits and may end a match
when a player's money passes a target), and ranks the players (``rank``: the order of the
course's ``show_result``; the command line prints it).  With a ``RoundLog`` it writes the round log
of RULES.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from twentyone.core import Generator
from twentyone.errors import TwentyOneError
from twentyone.roundlog import RoundLog
from twentyone.rules import COURSE, Rules
from twentyone.strategy import Strategy
from twentyone.table import StackedGenerator, Table

__all__ = ["Seating", "Standing", "MatchResult", "MatchInterrupted", "play_match", "rank"]


@dataclass(frozen=True)
class Seating:
    """Who sits at a seat: a display name, the SPEC it came from, and its strategy."""

    name: str
    spec: str
    strategy: Strategy


@dataclass(frozen=True)
class Standing:
    """One player's line in the final ranking."""

    rank: int
    seat: int
    name: str
    spec: str
    account: int
    rounds: int
    fouls: int
    fault: str | None = None
    fault_detail: str = ""


@dataclass
class MatchResult:
    """The outcome of one match."""

    seed: int
    decks: int
    rules: str
    reason: str
    rounds: int
    shuffles: int
    ranking: list[Standing]
    #: Every seat's money after each round, if the match was asked to keep it.
    history: list[tuple[int, ...]] = field(default_factory=list)

    def by_seat(self, seat: int) -> Standing:
        """The standing of ``seat``."""
        for s in self.ranking:
            if s.seat == seat:
                return s
        raise KeyError(seat)


class MatchInterrupted(TwentyOneError, KeyboardInterrupt):
    """Ctrl-C during a match; ``result`` holds the standings as they were."""

    def __init__(self, result: MatchResult) -> None:
        super().__init__("match interrupted")
        self.result = result


def rank(accounts: Sequence[tuple[int, int]]) -> list[int]:
    """Competition ranks for (money, rounds) pairs, per the ranking ruling.

    More money first; equal money above zero ties; at zero, more rounds first, equal rounds tie.
    """
    keys = [(m, r if m == 0 else 0) for m, r in accounts]
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def play_match(
    seatings: Sequence[Seating],
    decks: int,
    seed: int,
    rules: Rules = COURSE,
    log: RoundLog | None = None,
    generator: Generator | StackedGenerator | None = None,
    history: bool = False,
    token: object | None = None,
) -> MatchResult:
    """Play one match of ``seatings`` with ``decks`` decks from ``seed`` and return the ranking.  ``token``: the
    match's token (``Strategy.start_match``) when its strategies were started already, by a first try at playing it
    that set up nothing (``twentyone.grading.fast``)."""
    gen = generator if generator is not None else Generator(seed)
    table = Table([(p.name, p.spec, p.strategy) for p in seatings], decks, gen, rules,
                  log.shuffle if log is not None else None)
    n = len(seatings)
    if log is not None:
        log.write({
            "type": "match", "seed": seed, "rules": rules.name, "decks": decks,
            "seats": [{"seat": i + 1, "name": p.name, "player": p.spec} for i, p in enumerate(seatings)],
        })
    if token is None:
        token = object()  # this match, for strategies that set up once per table (Strategy.start_match)
    for i, p in enumerate(seatings):
        p.strategy.start_match(token, decks, n, i + 1)
    fouls = [0] * n
    hist: list[tuple[int, ...]] = []
    table.shuffle_cards()
    reason = "broke"
    try:
        reason = _play_rounds(table, rules, log, fouls, hist if history else None)
    except KeyboardInterrupt:
        result = _result(table, seed, decks, rules, "interrupted", fouls, hist, log)
        raise MatchInterrupted(result) from None
    return _result(table, seed, decks, rules, reason, fouls, hist, log)


def _play_rounds(table: Table, rules: Rules, log: RoundLog | None, fouls: list[int],
                 hist: list[tuple[int, ...]] | None) -> str:
    """Play rounds until the match ends; return the reason."""
    n = len(table.seats)
    max_rounds = rules.rounds_per_seat * n if rules.rounds_per_seat is not None else 0
    max_shoes = rules.max_shoes if rules.max_shoes is not None else 0
    target = rules.target_money
    min_bet = rules.min_bet
    seats = table.seats
    while True:
        active = table.round_init()
        if not active:
            table.round_no -= 1
            return "broke"
        shoe_no, first_card = table.shoe_no, table.pos
        try:
            dealer_bj = table.play_round(active)
        except KeyboardInterrupt:
            table.void_round(active)  # stopped before settlement: the round never happened
            raise
        stopped = False
        try:
            table.show_all(bets_follow=not _last_round(table, rules, max_rounds, max_shoes))
        except KeyboardInterrupt:
            stopped = True  # the round is settled: it is logged and counts
        for s in active:
            if s.foul is not None:
                fouls[s.seat - 1] += 1
        if log is not None and (not log.fouls_only or table.round_faults
                                or any(s.foul is not None for s in active)):
            log.write(table.round_record(active, shoe_no, first_card, dealer_bj))
        if hist is not None:
            hist.append(tuple(s.account for s in seats))
        if stopped:
            raise KeyboardInterrupt
        if max_rounds and table.round_no >= max_rounds:
            return "rounds"
        if not any(s.in_game and not s.faulted and s.account >= min_bet for s in seats):
            return "broke"
        if target is not None and any(s.account > target for s in seats):
            return "target"
        if max_shoes and table.shuffles > max_shoes:
            return "shuffles"
        if table.needs_shuffle():
            if max_shoes and table.shuffles >= max_shoes:
                return "shuffles"
            table.shuffle_cards()


def _last_round(table: Table, rules: Rules, max_rounds: int, max_shoes: int) -> bool:
    """True when the match ends after this round whatever the seats do (the round limit or the shoes;
    0 means no limit).  Otherwise every seat that is still in the game after its ``show`` bets in the
    next round.
    """
    if max_rounds and table.round_no >= max_rounds:
        return True
    return bool(max_shoes) and (table.shuffles > max_shoes
                                or (table.needs_shuffle() and table.shuffles >= max_shoes))


def _result(table: Table, seed: int, decks: int, rules: Rules, reason: str, fouls: list[int],
            hist: list[tuple[int, ...]], log: RoundLog | None) -> MatchResult:
    """Rank the seats, write the end record, and build the MatchResult."""
    seats = table.seats
    ranks = rank([(s.account, s.rounds) for s in seats])
    standings = sorted(
        (
            Standing(r, s.seat, s.name, s.spec, s.account, s.rounds, fouls[s.seat - 1],
                     s.fault_cause or None, s.fault_detail)
            for r, s in zip(ranks, seats)
        ),
        key=lambda st: (st.rank, st.seat),
    )
    if log is not None:
        log.write({
            "type": "end", "reason": reason, "rounds": table.round_no,
            "ranking": [{"rank": st.rank, "seat": st.seat, "account": st.account, "rounds": st.rounds}
                        for st in standings],
        })
    return MatchResult(seed, decks, rules.name, reason, table.round_no, table.shuffles, standings, hist)

