"""Strategies: the Pythonic ``Strategy`` class, the course's function sets, and adapters both ways.

The engine talks to every player through ``Strategy``: ``bet``, ``first_action``,
``continue_action`` and ``show``, each given the seat's ``SeatView``; where a player deals (the
Lianzhong table) also ``dealer_action``.  A course-style function
set (``betK``, ``first_actionK``, ``continue_actionK``, ``showK`` from a Python module or a
compiled ``mycodes.c``) is seated through ``FunctionSetStrategy``, which builds the course's
``tmpcards`` and Player/Banker copies, re-indexed for set K as RULES.md says.
``as_function_set`` goes the other way: it turns a ``Strategy`` into course-style callables.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from twentyone.cards import calculate, hand_value
from twentyone.legality import double_problem, insurance_problem, surrender_problem
from twentyone.records import NO_CARD, Banker, Player, SeatView, ShowArgs, pack_banker, pack_player
from twentyone.rules import COURSE

__all__ = ["Strategy", "FunctionSet", "PackedFunctionSet", "FunctionSetStrategy", "as_function_set", "CourseFunctions",
           "CourseSeatView", "FUNCTION_NAMES"]

#: The four functions of a course function set K: ``betK first_actionK continue_actionK showK``.
FUNCTION_NAMES = ("bet", "first_action", "continue_action", "show")


class Strategy:
    """A player's decisions.  Subclass it and override what you need; the defaults stand and bet 10.

    Each decision is one character: ``i`` insurance, ``h`` hit, ``s`` stand, ``d`` double, ``u``
    surrender, and where the rules allow them ``p`` split a pair and ``c`` the French game's Changer.
    The view's ``can_x`` say which are legal now; ``view.rules`` are the table's rules.
    """

    #: A short name for tables and logs.
    name = "strategy"
    #: True for a course function set: the course's interface has no split and no Changer, so such a
    #: player never splits or changes a card (``p`` and ``c`` from it are illegal actions).
    course_interface = False

    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        """Called by the engine once before every match; ``match`` is a token unique to that match.

        Strategies that share state between seats of one table (the function sets of one C file)
        use the token to set up once per match.  The default calls ``new_match``.
        """
        self.new_match(decks, seats, seat)

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        """Called once before every match; reset any state kept between rounds here."""

    def bet(self, view: SeatView) -> int:
        """Return the bet for this round (raised to 10, lowered to all the money)."""
        return 10

    def first_action(self, view: SeatView) -> str:
        """Return ``i``, ``h``, ``s``, ``d`` or ``u`` (or ``p``, ``c`` where allowed) for the two-card hand."""
        return "s"

    def continue_action(self, view: SeatView) -> str:
        """Return ``h`` or ``s`` (or a first decision right after insurance; ``h s d p`` as allowed on a
        split hand's first two cards, ``view.hand`` telling which hand of ``view.hands`` it is)."""
        return "s"

    def show(self, view: SeatView) -> None:
        """See every card of the finished round."""

    def dealer_action(self, view: SeatView) -> str:
        """As the dealer, where a player deals (the Lianzhong table, ``twentyone lianzhong``): return ``h`` to
        hit or ``s`` to stand on a soft total the dealer may choose on (RULES.md, **lianzhong_dealer_choice**).

        ``view.my_cards``, ``total`` and ``soft`` are the dealer's hand; ``seat_cards(n)`` each player's cards
        and ``players()`` their stakes.  The default stands, as the automatic play does: hit below 17, stand
        from 17.  A course function set (``course_interface``) is never asked: it has no dealer function.
        """
        return "s"

    def show_before_bet(self, view: SeatView) -> None:
        """``show``, when this seat will be asked for its next bet unless this very call faults.

        The engine calls it instead of ``show`` when that is sure; the default is ``show``.  A strategy
        in a sandbox's box uses the hint to fetch that bet in the same round trip: it still sees
        ``show`` and then ``bet``, in that order.
        """
        self.show(view)

    def close(self) -> None:
        """Release anything the strategy holds (sandbox boxes, loaded libraries)."""


class FunctionSet(Protocol):
    """One course function set K: ``betK first_actionK continue_actionK showK`` with the C arguments."""

    def reset(self, match: object) -> None:
        """Put every static variable back to its initial value at the start of ``match`` (a token).

        Function sets of one file seated at one table share its statics, as in the course program:
        they are reset once per match token.
        """

    def bet(self, N: int) -> int:
        """``int betK(int N)``."""

    def first_action(self, tmpcards: str, length: int) -> str:
        """``char first_actionK(char* tmpcards, int len)``."""

    def continue_action(self, players: list[Player]) -> str:
        """``char continue_actionK(Player(*players)[])``: players[0] is the caller."""

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        """``void showK(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)``."""

    def close(self) -> None:
        """Release what the set holds."""


class PackedFunctionSet(FunctionSet, Protocol):
    """A function set that also takes the records as the C structs' bytes (``records.PLAYER``, ``BANKER``), as the
    table packs them: a compiled file's, which would only turn ``Player`` objects back into those bytes."""

    def continue_packed(self, players: bytes) -> str:
        """``continue_action`` on ``players``, packed ``Player`` structs (players[0] is the caller)."""

    def show_packed(self, banker: bytes, players: bytes, pNum: int, N: int, pos: int) -> None:
        """``show`` on a packed ``Banker`` and packed ``Player`` structs."""


class FunctionSetStrategy(Strategy):
    """Seat a course function set K at any seat, with the table re-indexed for K."""

    course_interface = True

    def __init__(self, functions: FunctionSet, k: int, name: str = "") -> None:
        if not 1 <= k <= 5:
            raise ValueError(f"function set out of range: {k!r} (1 .. 5)")
        self.functions = functions
        self.k = k
        self.name = name or f"set{k}"
        #: The set's calls on packed records (``PackedFunctionSet``), when it has them: no ``Player`` is made.
        self._continue_packed = getattr(functions, "continue_packed", None)
        self._show_packed = getattr(functions, "show_packed", None)
        #: ``show`` and the next bet in one go, when the set has it (a sandbox's box).
        self._show_then_bet = getattr(functions, "show_then_bet", None)
        #: The same on packed records (a C box's).
        self._show_then_bet_packed = getattr(functions, "show_then_bet_packed", None)

    def start_match(self, match: object, decks: int, seats: int, seat: int) -> None:
        self.functions.reset(match)

    def bet(self, view: SeatView) -> int:
        return self.functions.bet(view.decks)

    def first_action(self, view: SeatView) -> str:
        k = self.k
        width = max(view.seats, k)
        return self.functions.first_action(view.tmpcards(k), 2 + 2 * width)

    def continue_action(self, view: SeatView) -> str:
        if self._continue_packed is not None:
            return self._continue_packed(view.packed_players(self.k, self_first=True))  # type: ignore[no-any-return]
        return self.functions.continue_action(view.players(self.k, self_first=True))

    def show(self, view: SeatView) -> None:
        if self._show_packed is not None:
            self._show_packed(*view.packed_show(self.k))
            return
        k = self.k
        width = max(view.seats, k)
        self.functions.show(view.banker(), view.players(k), width + 1, view.decks, view.pos)

    def show_before_bet(self, view: SeatView) -> None:
        ahead = self._show_then_bet
        if ahead is None or type(self).show is not FunctionSetStrategy.show:
            if self._show_packed is not None and type(self).show is FunctionSetStrategy.show:
                self._show_packed(*view.packed_show(self.k))  # ``show``, one call less: every round, every seat
            else:
                self.show(view)
            return
        k = self.k
        if self._show_then_bet_packed is not None:
            self._show_then_bet_packed(*view.packed_show(k), view.decks)
            return
        width = max(view.seats, k)
        ahead(view.banker(), view.players(k), width + 1, view.decks, view.pos, view.decks)

    def close(self) -> None:
        self.functions.close()


class CourseSeatView:
    """A ``SeatView`` rebuilt from the course's C arguments, for ``as_function_set``.

    It knows only what those arguments carry: a function set sees no rules, so legality is the
    course's (``twentyone.legality`` with ``COURSE``); what the arguments do not tell is empty or 0.
    """

    def __init__(self, seat: int, decks: int, seats: int, up: str, mine: str, account: int, bet: int,
                 state: str, *, dealer: str = "", pos: int = 0, tmpcards: str = "",
                 players: list[Player] | None = None, banker: Banker | None = None, rounds: int = 0) -> None:
        self.seat, self.decks, self.seats, self.up_card = seat, decks, seats, up
        self.my_cards, self.account, self.bet, self.pos = mine, account, bet, pos
        self.dealer_cards = dealer
        self.name = ""
        self.rounds = rounds
        self.round = 0
        self.shoe_size = 52 * decks
        self.total, self.soft = hand_value(mine)
        self.can_double = double_problem(COURSE, len(mine), state, account, bet) is None
        self.can_surrender = surrender_problem(COURSE, len(mine), state) is None
        self.can_insure = insurance_problem(COURSE, up, state, account, bet) is None
        self.can_split = self.can_change = False  # the course has neither
        self.hands, self.hand, self.rules = (mine,), 0, COURSE
        self._tmpcards = tmpcards
        self._players = players or []
        self._banker = banker

    def seat_cards(self, seat: int) -> str:
        if 0 < seat <= len(self._players):
            p = self._players[seat - 1]
            return p.mycards[: p.count]
        t = self._tmpcards
        cards = t[2 * seat: 2 * seat + 2] if 2 * seat + 2 <= len(t) else ""
        return "" if NO_CARD in cards else cards

    def round_cards(self) -> str:
        return self.dealer_cards + "".join(p.mycards[: p.count] for p in self._players)

    def tmpcards(self, k: int | None = None) -> str:
        return self._tmpcards

    def players(self, k: int | None = None, *, self_first: bool = False) -> list[Player]:
        out = [replace(p) for p in self._players]
        if self_first and out and 0 < self.seat <= len(out):
            out[0] = replace(out[self.seat - 1])
        return out

    def banker(self) -> Banker:
        if self._banker is not None:
            return replace(self._banker)
        return Banker(self.up_card, len(self.up_card), "d", calculate(self.up_card) if self.up_card else 0)

    def packed_players(self, k: int | None = None, *, self_first: bool = False) -> bytes:
        return b"".join(pack_player(p) for p in self.players(k, self_first=self_first))

    def packed_banker(self) -> bytes:
        return pack_banker(self.banker())

    def packed_show(self, k: int | None = None) -> ShowArgs:
        return (self.packed_banker(), self.packed_players(k), max(self.seats, k or self.seat) + 1, self.decks,
                self.pos)


class CourseFunctions:
    """A ``Strategy`` seen as course function set ``k``: callables with the C arguments."""

    def __init__(self, strategy: Strategy, k: int, decks_hint: int = 6) -> None:
        self.strategy = strategy
        self.k = k
        self._up = ""
        self._decks = decks_hint

    def reset(self, match: object = None) -> None:
        self.strategy.start_match(match if match is not None else object(), self._decks, 5, self.k)

    def bet(self, N: int) -> int:
        self._decks = N
        return self.strategy.bet(CourseSeatView(self.k, N, 5, "", "", 0, 0, ""))

    def first_action(self, tmpcards: str, length: int) -> str:
        k = self.k
        self._up = tmpcards[0]
        mine = tmpcards[2 * k : 2 * k + 2]
        view = CourseSeatView(k, self._decks, (length - 2) // 2, tmpcards[0], mine, 10**9, 10, "",
                              tmpcards=tmpcards)
        return self.strategy.first_action(view)

    def continue_action(self, players: list[Player]) -> str:
        me = players[0]
        view = CourseSeatView(self.k, self._decks, len(players), self._up, me.mycards[: me.count],
                              me.account, me.mybets, me.state, players=players, rounds=me.rounds)
        return self.strategy.continue_action(view)

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        me = players[self.k - 1]
        view = CourseSeatView(self.k, N, pNum - 1, banker.mycards[:1], me.mycards[: me.count], me.account,
                              me.mybets, me.state, dealer=banker.mycards[: banker.count], pos=pos,
                              players=players, banker=banker, rounds=me.rounds)
        self.strategy.show(view)

    def close(self) -> None:
        self.strategy.close()


def as_function_set(strategy: Strategy, k: int) -> CourseFunctions:
    """Return ``strategy`` as course function set ``k`` (bet/first_action/continue_action/show)."""
    return CourseFunctions(strategy, k)
