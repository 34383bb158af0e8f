"""The course's ``mycodes.c`` in Python: function sets 1..5 of ``bet``, ``first_action``,
``continue_action`` and ``show``, with the same arguments, and the PERSON switch.

Copy this file, write your strategy in the functions (the parts under ``if PERSON: ... else:``),
and seat it with ``twentyone match --player my_copy.py:K``.  With ``PERSON = True`` every function
asks at the terminal instead, like the course's manual mode; automatic play switches it off
(with a warning) so the engine never waits for a keyboard.

Arguments, as in C:
- ``betK(N)``: N decks; return the bet (at least 10).
- ``first_actionK(tmpcards, length)``: ``tmpcards[0]`` is the dealer's up card, ``tmpcards[1]`` is
  ``'X'``, then two characters per seat; player K's cards are ``tmpcards[2*K]`` and
  ``tmpcards[2*K+1]``; ``'-'`` marks an empty seat.  Return ``i h s d`` or ``u``.
- ``continue_actionK(players)``: ``players[0]`` is you (also at ``players[K-1]``); each is a
  ``Player`` record (name account mycards count state mybets points rounds).  Return ``h`` or ``s``.
- ``showK(banker, players, pNum, N, pos)``: the finished round: the dealer's whole hand, every
  player at ``players[seat-1]``, pNum = seats + 1, N decks, pos = cards dealt from this shoe.
"""

from __future__ import annotations

from twentyone.cards import calculate
from twentyone.records import Banker, Player

PERSON = False  # the course's  #define PERSON : True plays by hand at the terminal


def _ask(prompt: str, allowed: str) -> str:
    while True:
        a = input(prompt).strip()[:1]
        if a and a in allowed:
            return a
        print(f"please type one of: {' '.join(allowed)}")


def _bet(K: int, N: int) -> int:
    if PERSON:
        while True:
            text = input(f"player {K}, your bet (at least 10): ").strip()
            if text.isdigit():
                return int(text)
            print("please type a whole number")
    return 10


def _first(K: int, tmpcards: str, length: int) -> str:
    mine = tmpcards[2 * K] + tmpcards[2 * K + 1]
    if PERSON:
        print(f"dealer shows {tmpcards[0]}; player {K} holds {mine} ({calculate(mine)})")
        return _ask("i(nsure) h(it) s(tand) d(ouble) (s)u(rrender): ", "ihsdu")
    return "h" if calculate(mine) < 17 else "s"


def _continue(K: int, players: list[Player]) -> str:
    me = players[0]
    cards = me.mycards[: me.count]
    if PERSON:
        print(f"player {K} holds {cards} ({calculate(cards)})")
        return _ask("h(it) s(tand): ", "hs")
    return "h" if calculate(cards) < 17 else "s"


def _show(K: int, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
    if PERSON:
        print(f"dealer: {banker.mycards[: banker.count]} ({banker.points})")
        for i, p in enumerate(players[: pNum - 1]):
            print(f"  seat {i + 1} {p.name}: {p.mycards[: p.count]} ({p.points}) money {p.account}")


def bet1(N: int) -> int:
    return _bet(1, N)


def first_action1(tmpcards: str, length: int) -> str:
    return _first(1, tmpcards, length)


def continue_action1(players: list[Player]) -> str:
    return _continue(1, players)


def show1(banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
    _show(1, banker, players, pNum, N, pos)


def bet2(N: int) -> int:
    return _bet(2, N)


def first_action2(tmpcards: str, length: int) -> str:
    return _first(2, tmpcards, length)


def continue_action2(players: list[Player]) -> str:
    return _continue(2, players)


def show2(banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
    _show(2, banker, players, pNum, N, pos)


def bet3(N: int) -> int:
    return _bet(3, N)


def first_action3(tmpcards: str, length: int) -> str:
    return _first(3, tmpcards, length)


def continue_action3(players: list[Player]) -> str:
    return _continue(3, players)


def show3(banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
    _show(3, banker, players, pNum, N, pos)


def bet4(N: int) -> int:
    return _bet(4, N)


def first_action4(tmpcards: str, length: int) -> str:
    return _first(4, tmpcards, length)


def continue_action4(players: list[Player]) -> str:
    return _continue(4, players)


def show4(banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
    _show(4, banker, players, pNum, N, pos)


def bet5(N: int) -> int:
    return _bet(5, N)


def first_action5(tmpcards: str, length: int) -> str:
    return _first(5, tmpcards, length)


def continue_action5(players: list[Player]) -> str:
    return _continue(5, players)


def show5(banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
    _show(5, banker, players, pNum, N, pos)
