"""The Monte Carlo course report (seed 003): twelve games of one player against the dealer, scored.

Two decks (104 cards), shuffled for every game.  The cards are dealt one at a time, the player first
(me, dealer, me, dealer); the player plays his hand out, then the dealer draws below 17 (an ace counts 11
unless that busts him).  The report's player mimics the dealer (the built-in ``mimic``); any strategy or
a person may sit in his place.  Each game is scored -2 (a loss), 0 (a tie), +2 (a win) or +3 (a win with
a two-card 21), and the report prints each game's cards and score, and the total.

Where the report's program departs from its text, this follows the text (RULES.md, "The Monte Carlo
report", ``montecarlo_*``): the player finishes his hand before the dealer draws; a player who busts
loses and the dealer does not show his cards; a natural scores +3 whenever it wins, a dealer's bust
included; equal totals tie, a 21 against a 21 whatever the cards.

``MonteCarloTable`` is a ``twentyone.table.Table`` with the report's deal, dealer and scoring;
``play_report`` plays the twelve games, ``play_runs`` repeats them for ``--runs``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from twentyone.cards import VALUE, hand_total
from twentyone.core import Generator, StackedGenerator
from twentyone.match import Seating
from twentyone.roundlog import RoundLog
from twentyone.rules import PRESETS, Rules
from twentyone.seat import Seat
from twentyone.table import Table

__all__ = ["MonteCarloTable", "GameScore", "RunsSummary", "Tally", "play_report", "play_runs", "report_score", "summarise",
           "MONTECARLO", "GAMES", "Z95"]

MONTECARLO: Final = PRESETS["montecarlo"]
#: Games in one report.
GAMES: Final = 12
#: The two-sided 95% quantile of the normal distribution.
Z95: Final = 1.959963984540054


def report_score(player: str, dealer: str, natural: bool, foul: bool = False) -> int:
    """A game's score from the player's and the dealer's cards (RULES.md, **montecarlo_natural**,
    **montecarlo_ties**): a bust or a foul -2; a dealer's bust or a higher total a win, +3 with a natural
    and +2 without; equal totals 0; a lower total -2."""
    t = _total(player)
    if foul or t > 21:
        return -2
    d = _total(dealer)
    if d > 21 or t > d:
        return 3 if natural else 2
    return 0 if t == d else -2


def _total(cards: str) -> int:
    return hand_total(sum(VALUE[c] for c in cards), "A" in cards)


class MonteCarloTable(Table):
    """A ``Table`` playing the report's game: one card each in turn, the player first; the dealer draws only
    when the player stands, and shows nothing after the player busts; the report's scoring."""

    #: The report's score of each seat's game this round.
    scores: dict[int, int] = {}

    def first_deal(self, active: list[Seat]) -> None:
        """Me, dealer, me, dealer (**montecarlo_deal**): the dealer's first card is face up."""
        up = ""
        for round_ in range(2):
            for s in active:
                s.take(self.getcard())
            c = self.getcard()
            if round_ == 0:
                up = c
            else:
                self.hole = c
        for s in active:
            s.bj = s.hard == 11 and s.ace and len(s.cards) == 2
        self.up_card = up
        self.dealer_shown = [up]

    def banker_continue(self) -> None:
        """The dealer draws below 17, standing on soft 17, after the player; after a bust he shows nothing
        (**montecarlo_bust_hides**)."""
        standing = [s for s in self.seats if s.in_round and s.foul is None and s.total() <= 21]
        self.dealer_hard = VALUE[self.up_card] + VALUE[self.hole]
        self.dealer_ace = "A" in (self.up_card, self.hole)
        if not standing:
            return
        super().banker_continue()

    def dealer_cards(self) -> str:
        """Every card the dealer holds, shown or not."""
        shown = self.dealer_shown
        return "".join(shown) if self.hole_shown else shown[0] + self.hole

    def judge(self, active: list[Seat], dealer_bj: bool) -> None:
        """Settle by the report's scores on the bet of 2: a win returns 2B (5 with a natural: +3), a tie B."""
        dealer = self.dealer_cards()
        self.scores = {}
        for s in active:
            score = report_score("".join(s.cards), dealer, s.bj, s.foul is not None)
            self.scores[s.seat] = score
            s.account += s.bet + s.bet * score // 2  # the score is a bet of 2's: scaled to the bet

    def round_record(self, active: list[Seat], shoe: int, first_card: int, dealer_bj: bool) -> dict[str, Any]:
        """The engine's record with every dealer card in ``dealer``, ``dealer_shown`` false after a bust, and
        the game's ``score``."""
        record = super().round_record(active, shoe, first_card, dealer_bj)
        record["dealer"] = self.dealer_cards()
        record["dealer_shown"] = self.hole_shown
        record["score"] = self.scores.get(active[0].seat, 0)
        return record


@dataclass(frozen=True)
class GameScore:
    """One game as the report prints it: the player's and the dealer's cards and the score."""

    game: int
    player: str
    dealer: str
    dealer_shown: bool
    natural: bool
    foul: str | None
    score: int


def _table(seating: Seating, generator: Generator | StackedGenerator, rules: Rules,
           log: RoundLog | None) -> MonteCarloTable:
    return MonteCarloTable([(seating.name, seating.spec, seating.strategy)], rules.decks, generator, rules,
                           log.shuffle if log is not None else None)


def _twelve(table: MonteCarloTable, rules: Rules, games: int, log: RoundLog | None,
            on_game: Callable[[GameScore], None] | None, out: list[GameScore]) -> None:
    """Play ``games`` games on ``table``, a fresh shoe each, into ``out``; Ctrl-C voids the game in play."""
    seat = table.seats[0]
    seat.account = rules.start_money
    seat.rounds = 0
    table.round_no = 0
    seat.strategy.start_match(object(), rules.decks, 1, 1)
    for _ in range(games):
        table.shuffle_cards()
        active = table.round_init()
        if not active:
            break
        shoe_no, first_card = table.shoe_no, table.pos
        try:
            dealer_bj = table.play_round(active)
        except KeyboardInterrupt:
            table.void_round(active)
            raise
        table.show_all(bets_follow=False)
        record = table.round_record(active, shoe_no, first_card, dealer_bj)
        if log is not None:
            log.write(record)
        g = GameScore(table.round_no, "".join(seat.cards), record["dealer"], table.hole_shown, seat.bj,
                      seat.foul, record["score"])
        out.append(g)
        if on_game is not None:
            on_game(g)
        if seat.faulted:
            break


def play_report(seating: Seating, seed: int, rules: Rules = MONTECARLO, games: int = GAMES,
                log: RoundLog | None = None, generator: Generator | StackedGenerator | None = None,
                on_game: Callable[[GameScore], None] | None = None) -> list[GameScore]:
    """Play the report's twelve games (``games``) for ``seating``; ``on_game`` is told of each as it ends.

    Ctrl-C stops after the last whole game (``KeyboardInterrupt`` propagates; the log has an ``end``)."""
    gen = generator if generator is not None else Generator(seed)
    table = _table(seating, gen, rules, log)
    if log is not None:
        log.write({"type": "match", "game": "montecarlo", "seed": seed, "rules": rules.name, "decks": rules.decks,
                   "seats": [{"seat": 1, "name": seating.name, "player": seating.spec}]})
    played: list[GameScore] = []
    reason = "rounds"
    try:
        _twelve(table, rules, games, log, on_game, played)
    except KeyboardInterrupt:
        reason = "interrupted"
        raise
    finally:
        if log is not None:
            s = table.seats[0]
            log.write({"type": "end", "reason": reason, "rounds": table.round_no, "total": sum(g.score for g in played),
                       "ranking": [{"rank": 1, "seat": 1, "account": s.account, "rounds": s.rounds}]})
    return played


@dataclass(frozen=True)
class RunsSummary:
    """``--runs N``: how many of each twelve-game total, and the mean score per game with its 95% interval;
    ``interrupted`` when Ctrl-C stopped the runs (the whole runs played so far are summarised)."""

    totals: Mapping[int, int]
    games: int
    mean: float
    se: float
    interrupted: bool = False

    @property
    def runs(self) -> int:
        """Runs summarised."""
        return sum(self.totals.values())

    @property
    def low(self) -> float:
        """The 95% interval's lower end."""
        return self.mean - Z95 * self.se

    @property
    def high(self) -> float:
        """The 95% interval's upper end."""
        return self.mean + Z95 * self.se


class Tally:
    """Whole runs counted as they end, in constant memory: games, the sum of scores and of their squares
    (exact integers), and how many runs made each total."""

    def __init__(self) -> None:
        self.games = 0
        self.sum = 0
        self.squares = 0
        self.totals: Counter[int] = Counter()

    def add(self, scores: Sequence[int]) -> None:
        """One run's scores."""
        self.games += len(scores)
        self.sum += sum(scores)
        self.squares += sum(x * x for x in scores)
        self.totals[sum(scores)] += 1

    def summary(self, interrupted: bool = False) -> RunsSummary:
        """The mean score per game with its standard error; games are independent (a fresh shoe each), so the
        standard error is the games' standard deviation / sqrt(n).  No game: a mean of 0."""
        n = self.games
        mean = self.sum / n if n else 0.0
        var = (n * self.squares - self.sum * self.sum) / (n * (n - 1)) if n > 1 else 0.0  # exact until divided
        return RunsSummary(dict(sorted(self.totals.items())), n, mean, math.sqrt(var / n) if n else 0.0, interrupted)


def summarise(scores: Sequence[int], totals: Sequence[int]) -> RunsSummary:
    """The mean score per game of ``scores`` (every game of every run) with its standard error, and the count
    of each run's total in ``totals``."""
    tally = Tally()
    tally.games, tally.sum, tally.squares = len(scores), sum(scores), sum(x * x for x in scores)
    tally.totals.update(totals)
    return tally.summary()


def play_runs(seating: Seating, seed: int, runs: int, rules: Rules = MONTECARLO, games: int = GAMES,
              on_run: Callable[[int], None] | None = None) -> RunsSummary:
    """Play the twelve games ``runs`` times from one seed (one stream of shoes) and summarise them;
    ``on_run`` is told how many runs are done after each.  Ctrl-C ends the runs: the run cut short is left
    out, and the summary of the others is marked ``interrupted``."""
    tally = Tally()
    try:
        table = _table(seating, Generator(seed), rules, None)
        for done in range(1, runs + 1):
            played: list[GameScore] = []
            _twelve(table, rules, games, None, None, played)
            tally.add([g.score for g in played])
            if on_run is not None:
                on_run(done)
            if table.seats[0].faulted:
                break
    except KeyboardInterrupt:
        return tally.summary(interrupted=True)
    return tally.summary()
