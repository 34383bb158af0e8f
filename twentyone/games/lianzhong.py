"""The Lianzhong table (seed 003): 2 to 5 players, one of whom deals, the dealer's seat passing clockwise.

The first dealer is drawn at random (from the game's seed); after every round the seat passes to the next
player clockwise (轮庄).  Cards are dealt from the seat after the dealer.  Each other player plays the
dealer alone, and the dealer's money settles against each of them.  The table plays the ``lianzhong``
preset (one deck, a new one every round, split once, double on the first two cards only, Black Jack
1:1, no insurance or surrender, no peek); RULES.md, "The Lianzhong table", has every ruling
(``lianzhong_*``).

``LianzhongTable`` is a ``twentyone.table.Table`` whose dealer is a seat: its hand is played by its
player (``Strategy.dealer_action`` on a soft total, **lianzhong_dealer_choice**), or automatically
(托管) for a course function set, which has no dealer function, and for a person who does not answer
in time.  ``play_lianzhong`` plays the rounds and writes the round log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from twentyone.cards import hand_total
from twentyone.core import Generator, StackedGenerator
from twentyone.errors import strategy_text
from twentyone.legality import Foul, dealer_may_choose
from twentyone.match import Seating
from twentyone.roundlog import RoundLog
from twentyone.rules import INT_MAX, PRESETS, Rules
from twentyone.seat import Seat
from twentyone.table import StrategyFault, Table
from twentyone.view import TableSeatView

__all__ = ["LianzhongTable", "LianzhongResult", "LianzhongInterrupted", "DealerView", "play_lianzhong",
           "next_dealer", "settle_dealer", "dealing_order", "dealer_may_choose", "auto_player_action",
           "auto_dealer_action",
           "LIANZHONG", "MIN_PLAYERS", "MAX_PLAYERS"]

LIANZHONG: Final = PRESETS["lianzhong"]
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 5


def auto_player_action(total: int) -> str:
    """托管 for a player (闲家): hit at 11 or less, stand above."""
    return "h" if total <= 11 else "s"


def auto_dealer_action(total: int) -> str:
    """托管 for the dealer (庄家): hit below 17, stand from 17."""
    return "h" if total < 17 else "s"


def settle_dealer(dealer: Seat, players: Sequence[Seat]) -> None:
    """The dealer's money after a round: minus what the players won (**lianzhong_settlement**), kept within a C
    ``int`` as every account (**account_limit**): a function set is shown the dealer's ``Player`` too."""
    money = dealer.account - sum(s.account - s.account_before for s in players)
    dealer.account = min(INT_MAX, max(-INT_MAX - 1, money))


def next_dealer(seats: Sequence[int], dealer: int, n: int) -> int:
    """The seat that deals after ``dealer``: the next one clockwise (seat numbers rise clockwise, 1 after
    ``n``) among ``seats``, those still in the game."""
    for k in range(1, n + 1):
        s = (dealer + k - 1) % n + 1
        if s in seats:
            return s
    raise ValueError("no seat left to deal")


def dealing_order(seats: Sequence[int], dealer: int, n: int) -> list[int]:
    """The players of a round in dealing order: from the seat after the dealer, clockwise."""
    return [s for s in ((dealer + k - 1) % n + 1 for k in range(1, n)) if s in seats]


class DealerView(TableSeatView):
    """The dealer's seat seeing the dealer's hand as its own (``my_cards``, ``total``, ``soft``)."""

    __slots__ = ()

    @property
    def my_cards(self) -> str:
        return "".join(self._t.dealer_shown)

    @property
    def total(self) -> int:
        cards = self._t.dealer_shown
        return hand_total(sum(_hard(c) for c in cards), "A" in cards)

    @property
    def soft(self) -> bool:
        cards = self._t.dealer_shown
        hard = sum(_hard(c) for c in cards)
        return hand_total(hard, "A" in cards) != hard

    @property
    def hands(self) -> tuple[str, ...]:
        return (self.my_cards,)

    @property
    def standing_hands(self) -> tuple[tuple[str, int], ...]:
        """Every player hand the dealer's total will settle: (cards, stake), in dealing order; bust, fouled and
        Black Jack hands are settled already."""
        out: list[tuple[str, int]] = []
        for s in self._t.seats:
            if not s.in_round or s.foul is not None or s.bj:
                continue
            for h in s.hands or [s]:
                if h.total() <= 21:
                    out.append(("".join(h.cards), h.bet))
        return tuple(out)

    @property
    def hand(self) -> int:
        return 0

    @property
    def bet(self) -> int:
        return 0

    @property
    def can_double(self) -> bool:
        return False

    @property
    def can_split(self) -> bool:
        return False

    @property
    def can_surrender(self) -> bool:
        return False

    @property
    def can_insure(self) -> bool:
        return False

    @property
    def can_change(self) -> bool:
        return False


def _hard(c: str) -> int:
    return 1 if c == "A" else 10 if c in "TJQK" else int(c)


class LianzhongTable(Table):
    """A ``Table`` whose dealer is one of its seats (``dealer``), playing that seat's dealer decisions."""

    def __init__(self, players: Sequence[tuple[str, str, Any]], generator: Generator | StackedGenerator,
                 rules: Rules = LIANZHONG, on_shuffle: Callable[[int, str, bool], None] | None = None) -> None:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            from twentyone.errors import RulesError

            raise RulesError(f"players out of range: {len(players)} ({MIN_PLAYERS} .. {MAX_PLAYERS}, one of them "
                             "deals)")
        # One seat deals, so a table of n players has n - 1 player seats in every round.
        super().__init__(players, rules.decks, generator, replace(rules, max_seats=MAX_PLAYERS), on_shuffle)
        self.dealer: Seat = self.seats[0]
        self.dealer_actions: list[str] = []
        self.dealer_auto = False
        self.dealer_fouled = False
        #: Told of each automatic decision of a seat that did not decide itself: (seat, what).
        self.on_auto: Callable[[int, str], None] | None = None

    def banker_continue(self) -> None:
        """The dealer's hand, played by the dealer's seat (RULES.md, **lianzhong_dealer_choice**): hit below
        17, stand on a hard 17 or more and on 21; on a soft total where he may choose, his seat decides
        (``Strategy.dealer_action``), automatically for a course function set.  With no player hand left
        to play against (all bust, fouled or settled Black Jacks) he only turns his hole card over."""
        if not self.hole:
            self.hole = self.getcard()
        self.hole_shown = True
        self.dealer_shown.append(self.hole)
        self.dealer_actions = []
        self.dealer_fouled = False
        self.dealer_auto = self.dealer.strategy.course_interface
        if self._anyone_left():
            while True:
                cards = self.dealer_shown
                hard = sum(_hard(c) for c in cards)
                t = hand_total(hard, "A" in cards)
                if t < 17:
                    a = "h"
                elif dealer_may_choose(t, t != hard, len(cards)):
                    a = self._dealer_decides(t)
                    self.dealer_actions.append(a)
                    if a not in ("h", "s"):
                        self.dealer_fouled = True
                        break
                else:
                    break
                if a == "s":
                    break
                self.dealer_shown.append(self.getcard())
        cards = self.dealer_shown
        self.dealer_hard = sum(_hard(c) for c in cards)
        self.dealer_ace = "A" in cards

    def _anyone_left(self) -> bool:
        for s in self.seats:
            if not s.in_round or s.foul is not None or s.bj:
                continue
            if any(h.total() <= 21 for h in (s.hands or [s])):
                return True
        return False

    def _dealer_decides(self, total: int) -> str:
        d = self.dealer
        if d.strategy.course_interface or d.faulted:
            if self.on_auto is not None and not d.faulted:
                self.on_auto(d.seat, "dealer")
            return auto_dealer_action(total)
        try:
            a = d.strategy.dealer_action(DealerView(self, d))
        except StrategyFault as e:
            self.fault(d, e.cause, e.detail)
            return auto_dealer_action(total)
        except Exception as e:  # noqa: BLE001 - any exception from a player's code is a fault
            self.fault(d, Foul.ERROR, f"dealer_action raised {type(e).__name__}: {e}")
            return auto_dealer_action(total)
        if a.__class__ is not str or len(a) != 1:
            self.fault(d, Foul.ERROR, f"dealer_action returned {a!r}, not one character")
            return auto_dealer_action(total)
        return a

    def dealer_total(self) -> int:
        """The dealer's total; a dealer who gave an illegal answer has gone bust (**lianzhong_dealer_foul**)."""
        return 22 if self.dealer_fouled else super().dealer_total()

    def round_record(self, active: list[Seat], shoe: int, first_card: int, dealer_bj: bool) -> dict[str, Any]:
        """The round's log record: the engine's, with the dealer's seat, decisions and money after
        ``dealer_bj`` (RULES.md, "The Lianzhong table")."""
        base = super().round_record(active, shoe, first_card, dealer_bj)
        d = self.dealer
        record: dict[str, Any] = {"type": "round", "round": base["round"], "dealer_seat": d.seat, "shoe": shoe,
                                  "first_card": first_card, "dealer": base["dealer"], "dealer_bj": dealer_bj,
                                  "dealer_actions": "".join(self.dealer_actions), "dealer_auto": self.dealer_auto,
                                  "dealer_foul": self.dealer_fouled, "dealer_before": d.account_before,
                                  "dealer_after": d.account, "players": base["players"]}
        if "faults" in base:
            record["faults"] = base["faults"]
        return record


@dataclass
class LianzhongResult:
    """A finished (or interrupted) Lianzhong game: every seat's money and score, and how it ended."""

    seed: int
    rounds: int
    reason: str
    start: int
    accounts: dict[int, int]
    names: dict[int, str]
    specs: dict[int, str]
    faults: dict[int, str] = field(default_factory=dict)

    def score(self, seat: int) -> int:
        """Money won (+) or lost (-): the score (得分)."""
        return self.accounts[seat] - self.start

    def ranking(self) -> list[tuple[int, int]]:
        """(rank, seat), the richest first; equal money ties."""
        money = self.accounts
        return sorted(((1 + sum(1 for m in money.values() if m > money[s]), s) for s in money))


class LianzhongInterrupted(KeyboardInterrupt):
    """Ctrl-C or the end of input: ``result`` holds the game after the last whole round."""

    def __init__(self, result: LianzhongResult) -> None:
        super().__init__("interrupted")
        self.result = result


#: Told after every round: the table, who played (dealing order) and whether the dealer had Black Jack.
OnRound = Callable[[LianzhongTable, list[Seat], bool], None]
#: Told before every round, before any bet: the table, its ``dealer`` seat and ``round_no`` set.
OnStart = Callable[[LianzhongTable], None]


def play_lianzhong(seatings: Sequence[Seating], seed: int, rounds: int, rules: Rules = LIANZHONG,
                   log: RoundLog | None = None, generator: Generator | StackedGenerator | None = None,
                   on_round: OnRound | None = None, on_auto: Callable[[int, str], None] | None = None,
                   first_dealer: int | None = None, on_start: OnStart | None = None) -> LianzhongResult:
    """Play ``rounds`` rounds (fewer if fewer than two players can still bet) and return the result.

    The first dealer is ``first_dealer``, else drawn from the generator before the first shuffle.  Ctrl-C
    (and the end of a person's input) raises ``LianzhongInterrupted``; the round cut short is void."""
    gen = generator if generator is not None else Generator(seed)
    table = LianzhongTable([(p.name, p.spec, p.strategy) for p in seatings], gen, rules,
                           log.shuffle if log is not None else None)
    table.on_auto = on_auto
    n = len(seatings)
    dealer = first_dealer if first_dealer is not None else 1 + (gen.below(n) if isinstance(gen, Generator) else 0)
    if log is not None:
        log.write({"type": "match", "game": "lianzhong", "seed": seed, "rules": rules.name, "decks": rules.decks,
                   "first_dealer": dealer,
                   "seats": [{"seat": i + 1, "name": p.name, "player": p.spec} for i, p in enumerate(seatings)]})
    token = object()
    for i, p in enumerate(seatings):
        p.strategy.start_match(token, rules.decks, n, i + 1)
    first = True
    reason = "rounds"
    try:
        while table.round_no < rounds:
            in_game = [s.seat for s in table.round_init() if not s.faulted]
            if len(in_game) < MIN_PLAYERS:
                table.round_no -= 1
                reason = "players"
                break
            dealer = dealer if first and dealer in in_game else next_dealer(in_game, dealer, n)
            first = False
            table.dealer = table.seats[dealer - 1]
            table.shuffle_cards()  # a new deck every round (lianzhong_shuffle)
            active = [table.seats[s - 1] for s in dealing_order(in_game, dealer, n)]
            shoe_no, first_card = table.shoe_no, table.pos
            try:
                if on_start is not None:  # who deals is said before anybody bets
                    on_start(table)
                dealer_bj = table.play_round(active)
            except KeyboardInterrupt:
                table.void_round(active)
                raise
            settle_dealer(table.dealer, active)
            stopped = False
            try:
                table.show_all(bets_follow=False)
            except KeyboardInterrupt:
                stopped = True  # the round is settled: it is logged and counts
            if log is not None:
                log.write(table.round_record(active, shoe_no, first_card, dealer_bj))
            if on_round is not None:
                on_round(table, active, dealer_bj)
            if stopped:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        raise LianzhongInterrupted(_result(table, seed, "interrupted", log)) from None
    return _result(table, seed, reason, log)


def _result(table: LianzhongTable, seed: int, reason: str, log: RoundLog | None) -> LianzhongResult:
    seats = table.seats
    result = LianzhongResult(seed, table.round_no, reason, table.rules.start_money,
                             {s.seat: s.account for s in seats}, {s.seat: s.name for s in seats},
                             {s.seat: s.spec for s in seats},
                             {s.seat: f"{s.fault_cause}: {strategy_text(s.fault_detail)}" for s in seats if s.faulted})
    if log is not None:
        log.write({"type": "end", "reason": reason, "rounds": table.round_no,
                   "ranking": [{"rank": r, "seat": s, "account": result.accounts[s], "score": result.score(s)}
                               for r, s in result.ranking()]})
    return result
