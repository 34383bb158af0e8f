"""Test helpers: a scripted strategy and one-round scenarios on a stacked shoe."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from twentyone.records import SeatView
from twentyone.rules import COURSE, Rules
from twentyone.strategy import Strategy
from twentyone.table import StackedGenerator, Table


class Scripted(Strategy):
    """Bets ``bet`` and answers decisions from a script, recording what it was shown."""

    name = "scripted"

    def __init__(self, actions: str = "", bet: Any = 10, default: str = "s") -> None:
        self.actions = list(actions)
        self.bet_value = bet
        self.default = default
        self.seen_first: list[str] = []
        self.seen_continue: list[str] = []
        self.shown: list[str] = []
        self.calls: list[str] = []

    def bet(self, view: SeatView) -> int:
        self.calls.append("bet")
        return self.bet_value  # type: ignore[no-any-return]

    def _next(self) -> str:
        return self.actions.pop(0) if self.actions else self.default

    def first_action(self, view: SeatView) -> str:
        self.calls.append("first")
        self.seen_first.append(view.tmpcards())
        return self._next()

    def continue_action(self, view: SeatView) -> str:
        self.calls.append("continue")
        self.seen_continue.append(view.my_cards)
        return self._next()

    def show(self, view: SeatView) -> None:
        self.calls.append("show")
        self.shown.append(view.round_cards())


@dataclass
class Scenario:
    """The outcome of one round played on a stacked shoe."""

    table: Table
    record: dict[str, Any]
    strategies: list[Strategy] = field(default_factory=list)

    def seat(self, n: int) -> dict[str, Any]:
        """The round record of seat ``n``."""
        for p in self.record["players"]:
            if p["seat"] == n:
                return p  # type: ignore[no-any-return]
        raise KeyError(n)

    def delta(self, n: int) -> int:
        """Money won (+) or lost (-) by seat ``n`` this round."""
        p = self.seat(n)
        return int(p["account_after"]) - int(p["account_before"])


def one_round(cards: str, strategies: Sequence[Strategy], decks: int = 6, rules: Rules = COURSE,
              accounts: Sequence[int] | None = None) -> Scenario:
    """Play one round with the shoe stacked as ``cards`` (dealt from the front) and return it."""
    table = Table([(f"p{i + 1}", "scripted", s) for i, s in enumerate(strategies)], decks,
                  StackedGenerator([cards]), rules)
    for i, s in enumerate(strategies):
        s.new_match(decks, len(strategies), i + 1)
    if accounts is not None:
        for seat, money in zip(table.seats, accounts):
            seat.account = money
    table.shuffle_cards()
    active = table.round_init()
    shoe, first = table.shoe_no, table.pos
    bj = table.play_round(active)
    table.show_all()
    return Scenario(table, table.round_record(active, shoe, first, bj), list(strategies))
