"""The French game's multiplayer mode (seed 001): the person and three AI players, one budget size each;
after every three rounds the poorest is eliminated, a player with no money at once; the winner is the
richest after the ninth round.

``Schedule`` holds the numbers (9 rounds, a check every 3); ``eliminate`` decides who goes after a round
(RULES.md, **elimination** and **elimination_ties**); ``play_elimination`` plays the game on a
``twentyone.table.Table`` and writes the round log with one ``eliminated`` record per elimination.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from twentyone.core import Generator, StackedGenerator
from twentyone.errors import RulesError
from twentyone.match import MatchInterrupted, MatchResult, Seating, Standing
from twentyone.roundlog import RoundLog
from twentyone.rules import PRESETS, Rules
from twentyone.table import Table

__all__ = ["Schedule", "Elimination", "EliminationResult", "EliminationInterrupted", "eliminate", "play_elimination",
           "FRENCH"]

FRENCH = PRESETS["french"]


@dataclass(frozen=True)
class Schedule:
    """How long the game lasts and when the poorest goes: ``rounds`` rounds, a check after every ``every``."""

    rounds: int = 9
    every: int = 3

    def __post_init__(self) -> None:
        if not 1 <= self.every <= self.rounds <= 1000:
            raise RulesError(f"bad elimination schedule: --rounds {self.rounds} --every {self.every} (1 <= every <= "
                             "rounds <= 1000)")

    def is_check(self, round_no: int) -> bool:
        """True after a round at which the poorest player is eliminated."""
        return round_no % self.every == 0


@dataclass(frozen=True)
class Elimination:
    """Players eliminated together after ``round``: for having no money (``broke``) or as the ``poorest``."""

    round: int
    seats: tuple[int, ...]
    reason: str


@dataclass
class EliminationResult:
    """A finished (or interrupted) elimination game: its eliminations, ranking and winners."""

    seed: int
    decks: int
    rules: str
    rounds: int
    eliminations: list[Elimination]
    ranking: list[Standing]
    winners: tuple[int, ...]
    interrupted: bool = False
    accounts: dict[int, int] = field(default_factory=dict)

    def eliminated_in(self, seat: int) -> Elimination | None:
        """The elimination that took ``seat`` out, or None for a winner."""
        return next((e for e in self.eliminations if seat in e.seats), None)


class EliminationInterrupted(MatchInterrupted):
    """Ctrl-C during an elimination game; ``game`` holds its standings so far (``result`` as a match's)."""

    def __init__(self, game: EliminationResult) -> None:
        super().__init__(MatchResult(game.seed, game.decks, game.rules, "interrupted", game.rounds, 0, game.ranking))
        self.game = game


#: Told of each elimination with every seat's money at that moment.
OnElimination = Callable[[Elimination, Mapping[int, int]], None]


def eliminate(accounts: Mapping[int, int], round_no: int, schedule: Schedule, min_bet: int) -> list[Elimination]:
    """Who is eliminated after round ``round_no``, among the players still in (``accounts``: seat -> money).

    Everyone who can no longer bet (money below ``min_bet``: in the French game, no money) goes at once.
    After a check round (every ``schedule.every`` rounds) the poorest player left goes, unless someone
    went for lack of money in that very round (the poorest is then already gone); players tied for the
    least money all go, unless that would leave nobody, when nobody goes.
    """
    out: list[Elimination] = []
    broke = tuple(sorted(s for s, m in accounts.items() if m < min_bet))
    if broke:
        out.append(Elimination(round_no, broke, "broke"))
    left = {s: m for s, m in accounts.items() if s not in broke}
    if schedule.is_check(round_no) and not broke and len(left) > 1:
        least = min(left.values())
        poorest = tuple(sorted(s for s, m in left.items() if m == least))
        if len(poorest) < len(left):
            out.append(Elimination(round_no, poorest, "poorest"))
    return out


def play_elimination(seatings: Sequence[Seating], seed: int, rules: Rules = FRENCH, decks: int | None = None,
                     schedule: Schedule = Schedule(), log: RoundLog | None = None,
                     generator: Generator | StackedGenerator | None = None,
                     on_elimination: OnElimination | None = None) -> EliminationResult:
    """Play one elimination game of ``seatings`` (the person first) and return its result.

    Ctrl-C raises ``EliminationInterrupted`` holding the standings so far (a round cut short is void, as in
    a match).
    """
    decks = decks if decks is not None else rules.decks
    gen = generator if generator is not None else Generator(seed)
    table = Table([(p.name, p.spec, p.strategy) for p in seatings], decks, gen, rules,
                  log.shuffle if log is not None else None)
    if log is not None:
        log.write({"type": "match", "seed": seed, "rules": rules.name, "decks": decks,
                   "seats": [{"seat": i + 1, "name": p.name, "player": p.spec} for i, p in enumerate(seatings)]})
    token = object()
    for i, p in enumerate(seatings):
        p.strategy.start_match(token, decks, len(seatings), i + 1)
    events: list[Elimination] = []
    table.shuffle_cards()
    try:
        _rounds(table, rules, schedule, log, events, on_elimination)
    except KeyboardInterrupt:
        raise EliminationInterrupted(_result(table, seed, decks, rules, events, True, log)) from None
    return _result(table, seed, decks, rules, events, False, log)


def _rounds(table: Table, rules: Rules, schedule: Schedule, log: RoundLog | None, events: list[Elimination],
            on_elimination: OnElimination | None) -> None:
    for _ in range(schedule.rounds):
        active = table.round_init()
        if not active:
            table.round_no -= 1
            return
        shoe_no, first_card = table.shoe_no, table.pos
        try:
            dealer_bj = table.play_round(active)
        except KeyboardInterrupt:
            table.void_round(active)
            raise
        table.show_all(bets_follow=False)
        if log is not None:
            log.write(table.round_record(active, shoe_no, first_card, dealer_bj))
        still = {s.seat: s.account for s in table.seats if s.in_game and not s.faulted}
        faulted = tuple(s.seat for s in active if s.faulted)
        found = ([Elimination(table.round_no, faulted, "fault")] if faulted else []) + eliminate(
            still, table.round_no, schedule, rules.min_bet)
        for e in found:
            for seat in e.seats:
                table.seats[seat - 1].in_game = False
            events.append(e)
            if log is not None:
                log.write({"type": "eliminated", "round": e.round, "seats": list(e.seats), "reason": e.reason})
            if on_elimination is not None:
                on_elimination(e, {s.seat: s.account for s in table.seats})
        if sum(1 for s in table.seats if s.in_game and not s.faulted) <= 1:
            return
        if table.needs_shuffle():
            table.shuffle_cards()


def _result(table: Table, seed: int, decks: int, rules: Rules, events: list[Elimination], interrupted: bool,
            log: RoundLog | None) -> EliminationResult:
    """Rank the players: those still in first, by money; then by when they were eliminated (later is
    better), then by money.  The winners are the richest still in (those eliminated last if nobody is)."""
    out_at = {seat: i for i, e in enumerate(events) for seat in e.seats}
    money = {s.seat: s.account for s in table.seats}
    keys = {seat: (out_at.get(seat, len(events)), money[seat]) for seat in money}
    alive = [seat for seat in money if seat not in out_at]
    if interrupted:
        winners: tuple[int, ...] = ()
    elif alive:
        winners = tuple(seat for seat in alive if money[seat] == max(money[a] for a in alive))
    else:  # the last players all went at once: they share the game
        winners = events[-1].seats
    ranking = sorted(
        (Standing(1 + sum(1 for k in keys.values() if k > keys[s.seat]), s.seat, s.name, s.spec, s.account,
                  s.rounds, 0, s.fault_cause or None, s.fault_detail) for s in table.seats),
        key=lambda st: (st.rank, st.seat))
    if log is not None:
        log.write({"type": "end", "reason": "interrupted" if interrupted else "elimination", "rounds": table.round_no,
                   "ranking": [{"rank": st.rank, "seat": st.seat, "account": st.account, "rounds": st.rounds}
                               for st in ranking]})
    return EliminationResult(seed, decks, rules.name, table.round_no, list(events), ranking, winners, interrupted,
                             money)
