"""A person at the Lianzhong table: the terminal's ``Human`` as a dealer too, a time limit on every answer,
and the automatic play (托管) that answers for a person who does not answer in time.

- ``TimedInput``: reads one line from the terminal with a time limit (``NoAnswer`` when it passes); the
  end of input is ``EOFError``, which ``Human`` turns into Ctrl-C (the game ends with its standings).
- ``TablePerson``: ``Human`` with the dealer's decision (``dealer_action``), in the person's language.
- ``Trustee``: any strategy whose unanswered decisions are played automatically (RULES.md,
  **lianzhong_trusteeship**): the minimum bet; a player hits at 11 or less and stands above; the dealer
  hits below 17 and stands from 17.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable
from typing import IO, Final

from twentyone.games.lianzhong import auto_dealer_action, auto_player_action
from twentyone.i18n import N_, translated
from twentyone.players.terminal import Human
from twentyone.records import SeatView
from twentyone.strategy import Strategy

__all__ = ["NoAnswer", "TimedInput", "TablePerson", "Trustee", "DEALER_TEXT"]

#: What a person who deals is told, in English; translated into the person's language when said.
DEALER_TEXT: Final = {"deal": N_("  you deal: {cards} = {total}{soft}"), "soft": N_(" (soft)"),
                      "ask": N_("  h hit, s stand: "), "others": N_("  seat {seat}: {cards}"),
                      "bad": N_("  answer h (hit) or s (stand)")}


class NoAnswer(Exception):
    """No line came within the time limit."""


class TimedInput:
    """``input`` with a time limit: one line from ``stream`` (the terminal), or ``NoAnswer`` after ``timeout``
    seconds; ``EOFError`` at the end of input.  Lines typed ahead are kept for the next question."""

    def __init__(self, timeout: float, stream: IO[str] | None = None, out: IO[str] | None = None) -> None:
        self.timeout = timeout
        self.fd = (stream or sys.stdin).fileno()
        self.out = out or sys.stdout
        self.buffer = b""
        self.closed = False

    def __call__(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        while b"\n" not in self.buffer:
            if self.closed:
                if self.buffer:
                    line, self.buffer = self.buffer, b""
                    return line.decode("utf-8", "replace")
                raise EOFError
            ready, _, _ = select.select([self.fd], [], [], self.timeout)
            if not ready:
                self.out.write("\n")
                raise NoAnswer
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self.closed = True
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")


class TablePerson(Human):
    """The terminal's ``Human`` who may also deal: on a soft total he may choose on, he is asked to hit or
    stand (``h``/``s``, or the words); ``show`` is left to the game, which prints the whole table."""

    name = "human"

    def __init__(self, lang: str | None = None, ask: Callable[[str], str] = input,
                 say: Callable[[str], None] = print) -> None:
        super().__init__(lang, ask=ask, say=say)
        self.text = translated(DEALER_TEXT, self.lang)

    def bet(self, view: SeatView) -> int:
        """The bet, asked only when the rules leave a choice (the Monte Carlo report's is always 2)."""
        rules = view.rules
        if rules.max_bet is not None and rules.max_bet == rules.min_bet:
            return rules.min_bet
        return super().bet(view)

    def dealer_action(self, view: SeatView) -> str:
        t = self.text
        for seat in range(1, view.seats + 1):
            if view.seat_cards(seat):
                self.say(t["others"].format(seat=seat, cards=view.seat_cards(seat)))
        self.say(t["deal"].format(cards=view.my_cards, total=view.total, soft=t["soft"] if view.soft else ""))
        while True:
            text = self.ask(t["ask"]).strip().lower()
            a = {"h": "h", "s": "s", "hit": "h", "stand": "s", "要牌": "h", "拿牌": "h", "停牌": "s"}.get(text, "")
            if a:
                return a
            self.say(t["bad"])

    def show(self, view: SeatView) -> None:
        return None


class Trustee(Strategy):
    """``inner``'s decisions, each played automatically when ``inner`` raises ``NoAnswer`` (托管); ``on_auto``
    is told (seat, what was played)."""

    def __init__(self, inner: Strategy, on_auto: Callable[[int, str], None] | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.on_auto = on_auto
        #: Decisions played automatically so far.
        self.automatic = 0

    def _auto(self, view: SeatView, what: str) -> None:
        self.automatic += 1
        if self.on_auto is not None:
            self.on_auto(view.seat, what)

    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        self.inner.start_match(match, decks, seats, seat)

    def bet(self, view: SeatView) -> int:
        try:
            return self.inner.bet(view)
        except NoAnswer:
            self._auto(view, "bet")
            return view.rules.min_bet

    def first_action(self, view: SeatView) -> str:
        try:
            return self.inner.first_action(view)
        except NoAnswer:
            a = auto_player_action(view.total)
            self._auto(view, a)
            return a

    def continue_action(self, view: SeatView) -> str:
        try:
            return self.inner.continue_action(view)
        except NoAnswer:
            a = auto_player_action(view.total)
            self._auto(view, a)
            return a

    def dealer_action(self, view: SeatView) -> str:
        try:
            return self.inner.dealer_action(view)
        except NoAnswer:
            a = auto_dealer_action(view.total)
            self._auto(view, "dealer " + a)
            return a

    def show(self, view: SeatView) -> None:
        self.inner.show(view)

    def close(self) -> None:
        self.inner.close()
