"""One test per ruling of RULES.md, named after it, each on a shoe stacked with chosen cards.

Shoes are dealt from the front: each player in the game gets two cards in seat order, then the
dealer's up card and hole card, then cards in play order, then the dealer's draws.
"""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

import pytest

from mycodes.builtin import Basic, Stand
from tests.scripted import Scripted, one_round
from twentyone.cards import VALUE, calculate, check_cards, is_black_jack
from twentyone.core import Generator, new_shoe
from twentyone.errors import BadCardsError, RulesError
from twentyone.match import Seating, play_match, rank
from twentyone.records import Banker, Player
from twentyone.roundlog import RoundLog
from twentyone.rules import COURSE, PRESETS
from twentyone.strategy import FunctionSetStrategy
from twentyone.table import StackedGenerator, Table

FILL = "9"


def pad(cards: str, decks: int = 6) -> str:
    """``cards`` then filler up to a full shoe, so no reshuffle or refill interferes."""
    return cards + FILL * (decks * 52 - len(cards))


class Recorder:
    """A course function set that answers from a script and records every argument it was given."""

    def __init__(self, actions: str = "", bet: int = 10, mutate: bool = False) -> None:
        self.actions = list(actions)
        self.bet_value = bet
        self.mutate = mutate
        self.calls: list[tuple[str, Any]] = []

    def reset(self) -> None:
        self.calls.append(("reset", None))

    def bet(self, N: int) -> int:
        self.calls.append(("bet", N))
        return self.bet_value

    def first_action(self, tmpcards: str, length: int) -> str:
        self.calls.append(("first", (tmpcards, length)))
        return self.actions.pop(0) if self.actions else "s"

    def continue_action(self, players: list[Player]) -> str:
        self.calls.append(("continue", [replace(p) for p in players]))
        if self.mutate:
            for p in players:
                p.account = 10**6
                p.mycards = "AAAA"
                p.mybets = 0
        return self.actions.pop(0) if self.actions else "s"

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        self.calls.append(("show", (replace(banker), [replace(p) for p in players], pNum, N, pos)))
        if self.mutate:
            players[0].account = 10**6
            banker.points = 99

    def close(self) -> None:
        pass

    def of(self, kind: str) -> list[Any]:
        return [a for k, a in self.calls if k == kind]


# -- table and shoe -------------------------------------------------------------------------------
def test_ruling_seats() -> None:
    """1 to 5 player seats plus the dealer."""
    for n in (1, 5):
        Table([("p", "s", Stand())] * n, 6, Generator(1))
    for n in (0, 6):
        with pytest.raises(RulesError, match="seats out of range"):
            Table([("p", "s", Stand())] * n, 6, Generator(1))


def test_ruling_decks() -> None:
    """N decks, 1 to 8, 52 cards each, no jokers."""
    for n in (1, 8):
        assert len(Generator(1).shoe(n)) == 52 * n
        Table([("p", "s", Stand())], n, Generator(1))
    for n in (0, 9):
        with pytest.raises(RulesError, match="decks out of range"):
            Table([("p", "s", Stand())], n, Generator(1))


def test_ruling_card_codes() -> None:
    """Cards are A 2..9 T J Q K; T J Q K count 10; A counts 11 unless that busts."""
    assert "".join(VALUE) == "A23456789TJQK"
    assert [VALUE[c] for c in "TJQK"] == [10, 10, 10, 10]
    assert calculate("A9") == 20 and calculate("A48") == 13 and calculate("A3A") == 15
    assert calculate("AA") == 12 and calculate("AK") == 21 and calculate("KQ5") == 25
    for bad in ("X", "1", "a", "10"):
        with pytest.raises(BadCardsError):
            check_cards(bad)


def test_ruling_seeded_shuffle() -> None:
    """One seed fixes every shoe: a uniform Fisher-Yates shuffle of deck-by-deck ordered cards."""
    assert new_shoe(1).decode() == "A23456789TJQK" * 4
    g1, g2 = Generator(1), Generator(1)
    first = g1.shoe(6).decode()
    # golden value: the same on every machine (SplitMix64 + Lemire + Fisher-Yates in c_src/tw_rng.c)
    assert first[:60] == "2TAK835TQJ67444658552K752A4A79J37Q59289JKK96869J8QTK2T8J6J2J"
    assert g2.shoe(6).decode() == first
    assert g1.shoe(6) == g2.shoe(6) != first.encode()  # the second shoe continues the same stream
    assert sorted(first) == sorted(new_shoe(6).decode())
    assert Generator(2).shoe(6).decode() != first


def test_ruling_reshuffle_quarter() -> None:
    """A new shoe after a round that leaves fewer than a quarter of the cards, and only then."""
    log = RoundLog(io.StringIO(), keep=True)
    play_match([Seating("a", "basic", Basic()), Seating("b", "stand", Stand())], 1, 77, log=log)
    recs = log.records or []
    checked = 0
    for i, r in enumerate(recs):
        if r["type"] != "round":
            continue
        used = len(r["dealer"]) + sum(len(p["cards"]) for p in r["players"])
        left = 52 - (r["first_card"] + used)
        nxt = recs[i + 1]
        if nxt["type"] == "round":
            assert left >= 13
            assert nxt["first_card"] == r["first_card"] + used
            checked += 1
        elif nxt["type"] == "shuffle":
            assert left < 13 and nxt["mid_round"] is False
            checked += 1
    assert checked > 5


def test_ruling_five_shoes() -> None:
    """The match ends instead of a 6th shuffle: at most 5 shoes."""
    log = RoundLog(io.StringIO(), keep=True)
    r = play_match([Seating("a", "stand", Stand())], 1, 5, log=log)
    shuffles = [x for x in log.records or [] if x["type"] == "shuffle"]
    assert r.reason == "shuffles" and r.shuffles == 5 and len(shuffles) == 5
    last = [x for x in log.records or [] if x["type"] == "round"][-1]
    used = len(last["dealer"]) + sum(len(p["cards"]) for p in last["players"])
    assert 52 - (last["first_card"] + used) < 13


def test_ruling_mid_round_refill() -> None:
    """A shoe that runs out mid-round is refilled at once, counted and logged; the round finishes."""
    seen: list[tuple[int, str, bool]] = []
    t = Table([("p", "s", Scripted("h"))], 6, StackedGenerator(["98" "T7", "5" + FILL * 100]), COURSE,
              on_shuffle=lambda k, order, mid: seen.append((k, order[:1], mid)))
    t.shuffle_cards()
    active = t.round_init()
    t.play_round(active)
    assert [(k, mid) for k, _, mid in seen] == [(1, False), (2, True)]
    assert "".join(t.seats[0].cards) == "985" and t.shuffles == 2
    # the refill that is one shuffle too many still finishes its round, then the match ends
    rules = replace(COURSE, max_shoes=1)
    r = play_match([Seating("p", "x", Scripted("h"))], 6, 1, rules,
                   generator=StackedGenerator(["98" "T7", "5" + FILL * 400]))
    assert r.reason == "shuffles" and r.rounds == 1 and r.shuffles == 2


# -- money and bets -------------------------------------------------------------------------------
def test_ruling_start_money() -> None:
    """Every player starts with 1000; money is an integer."""
    sc = one_round(pad("T9" "T8" "T7"), [Scripted(), Scripted()])
    assert [p["account_before"] for p in sc.record["players"]] == [1000, 1000]
    assert all(isinstance(p["account_after"], int) for p in sc.record["players"])


def test_ruling_bet_clamp() -> None:
    """A bet below 10 is raised to 10; a bet above the money is lowered to all of it."""
    sc = one_round(pad("T9" "T9" "T9" "T9" "T8"), [Scripted(bet=3), Scripted(bet=-7), Scripted(bet=5000),
                                                     Scripted(bet=20)], accounts=[1000, 1000, 1000, 15])
    assert [p["bet"] for p in sc.record["players"]] == [10, 10, 1000, 15]


def test_ruling_out_below_min() -> None:
    """A player below 10 at the start of a round is out for good, but still shown every round."""
    out = Scripted()
    sc = one_round(pad("T9" "T8" "T7"), [Scripted(), out], accounts=[1000, 9])
    assert [p["seat"] for p in sc.record["players"]] == [1]
    assert out.calls == ["show"]
    assert sc.table.seats[1].in_game is False


def test_ruling_bet_garbage() -> None:
    """A bet that is not an int is a fault: the minimum bet is staked and lost, and the player is out."""
    s = Scripted(bet=10.5)
    r = play_match([Seating("a", "x", s), Seating("b", "stand", Stand())], 6, 3)
    a = r.by_seat(1)
    assert a.fault == "error" and "10.5" in a.fault_detail
    assert a.account == 990 and a.rounds == 1 and s.calls == ["bet"]
    assert r.by_seat(2).rounds == r.rounds > 1


def test_ruling_strategy_fault() -> None:
    """A strategy that raises fouls the hand and is out of the match with its money as it stood."""
    class Boom(Scripted):
        def first_action(self, view: Any) -> str:
            self.calls.append("first")
            raise ZeroDivisionError("boom")

    s = Boom()
    sc = one_round(pad("T9" "T8" "T7"), [s, Scripted()])
    assert sc.seat(1)["foul"] == "error" and sc.delta(1) == -10
    assert s.calls == ["bet", "first"]  # not even show after a fault
    assert sc.table.seats[0].faulted and "ZeroDivisionError: boom" in sc.table.seats[0].fault_detail
    assert sc.seat(2)["foul"] is None


# -- dealing and naturals -------------------------------------------------------------------------
def test_ruling_deal_order() -> None:
    """Two cards to each player in seat order, then up card and hole card, then play order, then dealer."""
    sc = one_round(pad("23" "45" "T6" "7" "8" "K"), [Scripted("hs"), Scripted("hs")])
    assert sc.seat(1)["cards"] == "237" and sc.seat(2)["cards"] == "458"
    assert sc.record["dealer"] == "T6K" and sc.record["first_card"] == 0


def test_ruling_black_jack() -> None:
    """Exactly two cards, an A and a ten-value card, is a Black Jack; a three-card 21 is not."""
    assert is_black_jack("AK") and is_black_jack("TA") and not is_black_jack("A55") and not is_black_jack("A9")
    sc = one_round(pad("AQ" "55" "T7" "A"), [Scripted(), Scripted("h")])
    assert sc.seat(1)["bj"] is True and sc.seat(2)["bj"] is False
    assert sc.seat(2)["cards"] == "55A" and sc.delta(2) == 10 and sc.delta(1) == 20


def test_ruling_dealer_ten_bj() -> None:
    """Dealer T up, A hole: Black Jack at once, nobody asked to act; show is still called."""
    a, b = Scripted("h"), Scripted("d")
    sc = one_round(pad("T9" "AK" "TA"), [a, b])
    assert "first" not in a.calls and "first" not in b.calls and a.calls[-1] == "show"
    assert sc.record["dealer_bj"] is True and sc.record["dealer"] == "TA"
    assert sc.delta(1) == -10 and sc.delta(2) == 0  # the player's Black Jack pushes


def test_ruling_dealer_ace_peek() -> None:
    """Dealer A up: all first actions first; with a dealer Black Jack every choice but insurance is void."""
    order: list[str] = []

    class Tell(Scripted):
        def first_action(self, view: Any) -> str:
            order.append(f"first{view.seat}")
            return super().first_action(view)

        def continue_action(self, view: Any) -> str:
            order.append(f"continue{view.seat}")
            return super().continue_action(view)

    sc = one_round(pad("96" "55" "87" "AK"), [Tell("h"), Tell("d"), Tell("u")])
    assert order == ["first1", "first2", "first3"]
    assert [sc.seat(i)["cards"] for i in (1, 2, 3)] == ["96", "55", "87"]  # nothing drawn
    assert [sc.delta(i) for i in (1, 2, 3)] == [-10, -10, -10]  # no double stake, no surrender refund
    order.clear()
    sc = one_round(pad("96" "55" "A7" "2" "3" "4"), [Tell("hs"), Tell("h")])
    assert order == ["first1", "first2", "continue1", "continue2"]
    assert sc.seat(1)["cards"] == "962" and sc.seat(2)["cards"] == "553"


def test_ruling_first_action_order() -> None:
    """With no A up, each seat is asked and plays its hand out before the next seat is asked."""
    order: list[str] = []

    class Tell(Scripted):
        def first_action(self, view: Any) -> str:
            order.append(f"first{view.seat}")
            return super().first_action(view)

        def continue_action(self, view: Any) -> str:
            order.append(f"continue{view.seat}")
            return super().continue_action(view)

    one_round(pad("96" "55" "T7" "2" "3"), [Tell("hs"), Tell("hs")])
    assert order == ["first1", "continue1", "first2", "continue2"]


def test_ruling_insurance_cost() -> None:
    """Insurance costs bet // 2 and returns 3x that against a dealer Black Jack; it is lost otherwise."""
    sc = one_round(pad("97" "97" "AK"), [Scripted("i", bet=15), Scripted("i")])
    assert sc.seat(1)["insurance"] == 7 and sc.delta(1) == -15 - 7 + 21
    assert sc.delta(2) == 0  # bet 10: -10 - 5 + 15
    sc = one_round(pad("T9" "A7"), [Scripted("is")])  # no dealer Black Jack: insurance lost, 19 beats 18
    assert sc.seat(1)["insurance"] == 5 and sc.delta(1) == -5 + 10 and sc.record["dealer"] == "A7"


def test_ruling_bj_payout() -> None:
    """Black Jack wins 2x the bet; Black Jack against Black Jack pushes; a dealer Black Jack beats 20."""
    sc = one_round(pad("AK" "TA" "T9"), [Scripted(bet=15), Scripted()])
    assert sc.delta(1) == 30 and sc.delta(2) == 20
    sc = one_round(pad("AK" "QT" "AJ"), [Scripted(), Scripted()])
    assert sc.delta(1) == 0 and sc.delta(2) == -10


def test_ruling_action_codes() -> None:
    """i h s d u are the five first actions."""
    for code, cards, delta in (("s", "T9" "T8", 10), ("h", "52" "T8" "T", -10), ("d", "56" "T7" "9", 20),
                               ("u", "T6" "T8", -5)):
        sc = one_round(pad(cards), [Scripted(code)])
        assert sc.seat(1)["actions"].startswith(code) and sc.delta(1) == delta, code
    sc = one_round(pad("T9" "A7"), [Scripted("is")])
    assert sc.seat(1)["actions"] == "is" and sc.seat(1)["insurance"] == 5


def test_ruling_illegal_insurance() -> None:
    """i with no A up, or i the player cannot pay for, is a foul."""
    sc = one_round(pad("T9" "57"), [Scripted("i")])
    assert sc.seat(1)["foul"] == "illegal_insurance" and sc.delta(1) == -10
    sc = one_round(pad("T9" "A7"), [Scripted("i")], accounts=[10])
    assert sc.seat(1)["foul"] == "unaffordable_insurance" and sc.delta(1) == -10


def test_ruling_illegal_double() -> None:
    """A double the player cannot pay for is a foul; the account never goes negative."""
    sc = one_round(pad("56" "T7" "9"), [Scripted("d")], accounts=[15])
    assert sc.seat(1)["foul"] == "unaffordable_double" and sc.seat(1)["account_after"] == 5


def test_ruling_double_one_card() -> None:
    """d doubles the bet, deals exactly one more card and ends the hand."""
    s = Scripted("dh")
    sc = one_round(pad("23" "T7" "2" "9"), [s])
    assert sc.seat(1)["cards"] == "232" and sc.seat(1)["doubled"] is True and "continue" not in s.calls
    assert sc.delta(1) == -20


def test_ruling_surrender_half() -> None:
    """u ends the hand and returns bet // 2."""
    sc = one_round(pad("T6" "T9"), [Scripted("u", bet=15)])
    assert sc.seat(1)["surrendered"] is True and sc.delta(1) == -15 + 7


def test_ruling_continue_after_hit() -> None:
    """After h every decision must be h or s; d or u then is a foul."""
    for code in "dui":
        sc = one_round(pad("23" "T7" "4"), [Scripted("h" + code)])
        assert sc.seat(1)["foul"] == "illegal_action" and sc.delta(1) == -10, code


def test_ruling_continue_after_insurance() -> None:
    """After i (no dealer Black Jack) the next decision may be h s d or u; later ones only h or s."""
    sc = one_round(pad("56" "A7" "9"), [Scripted("id")])
    p = sc.seat(1)
    assert p["actions"] == "id" and p["doubled"] and p["cards"] == "569" and sc.delta(1) == -5 + 20
    sc = one_round(pad("T6" "A7"), [Scripted("iu")])
    assert sc.delta(1) == -5 - 5
    sc = one_round(pad("23" "A7" "4"), [Scripted("ihd")])
    assert sc.seat(1)["foul"] == "illegal_action" and sc.delta(1) == -15


def test_ruling_auto_stand_21() -> None:
    """A hand that reaches 21 stands without being asked."""
    s = Scripted("hh")
    sc = one_round(pad("56" "T7" "T"), [s])
    assert sc.seat(1)["cards"] == "56T" and s.calls.count("continue") == 0 and sc.delta(1) == 10


def test_ruling_bust_loses() -> None:
    """A hand over 21 loses at once, even if the dealer busts later."""
    sc = one_round(pad("T6" "T6" "8" "9"), [Scripted("h")])
    assert sc.seat(1)["cards"] == "T68" and sc.record["dealer"] == "T69" and sc.delta(1) == -10


def test_ruling_bj_no_decision() -> None:
    """A Black Jack is asked first_action but makes no play: h s d u all stand; i insures if allowed."""
    for code in "hsdu":
        s = Scripted(code)
        sc = one_round(pad("AK" "T7"), [s])
        assert s.calls == ["bet", "first", "show"] and sc.seat(1)["cards"] == "AK" and sc.delta(1) == 20, code
    sc = one_round(pad("AK" "A7"), [Scripted("i")])
    assert sc.seat(1)["insurance"] == 5 and sc.delta(1) == 20 - 5


def test_ruling_foul() -> None:
    """Any other character, uppercase included, loses everything staked this round; the player stays."""
    for code in ("x", "H", " ", "\n"):
        sc = one_round(pad("T9" "T7"), [Scripted(code)])
        assert sc.seat(1)["foul"] == "illegal_action" and sc.delta(1) == -10, repr(code)
        assert sc.table.seats[0].faulted is False
    sc = one_round(pad("56" "A7" "9"), [Scripted("iz")])
    assert sc.delta(1) == -15  # bet and insurance


def test_ruling_dealer_s17() -> None:
    """The dealer draws to 17 and stands on soft 17; with course-h17 it would hit."""
    sc = one_round(pad("T7" "A6" "5"), [Scripted()])
    assert sc.record["dealer"] == "A6" and sc.delta(1) == 0
    sc = one_round(pad("T7" "A5" "A" "5"), [Scripted()])
    assert sc.record["dealer"] == "A5A"
    sc = one_round(pad("T7" "A6" "T"), [Scripted()], rules=PRESETS["course-h17"])
    assert sc.record["dealer"] == "A6T"
    sc = one_round(pad("T8" "T2" "3" "2"), [Scripted()])
    assert sc.record["dealer"] == "T232"  # 12, 15, 17: stops


def test_ruling_settlement() -> None:
    """Foul loses all, surrender gets bet//2, bust loses, dealer bust pays 2B, higher wins, equal pushes."""
    cases = [("T9" "T6" "8", "s", 10), ("T9" "TK", "s", -10), ("T9" "T9", "s", 0), ("T9" "T8", "s", 10),
             ("56" "T6" "9" "T", "d", 20)]
    for cards, code, delta in cases:
        assert one_round(pad(cards), [Scripted(code)]).delta(1) == delta, cards


def test_ruling_match_end() -> None:
    """The match ends when nobody is left (broke), at a 6th shuffle, or at 50 rounds per seat."""
    r = play_match([Seating("a", "x", Scripted(bet=1000))], 6, 1, generator=StackedGenerator([pad("T6" "T9")]))
    assert r.reason == "broke" and r.rounds == 1 and r.ranking[0].account == 0
    r = play_match([Seating("a", "stand", Stand())], 8, 1)
    assert r.reason == "rounds" and r.rounds == 50
    r = play_match([Seating("a", "stand", Stand())], 1, 1)
    assert r.reason == "shuffles" and r.rounds < 50


def test_ruling_ranking() -> None:
    """More money first; equal money above zero ties; at zero, more rounds first; equal rounds tie."""
    assert rank([(1200, 100), (1200, 90), (0, 30), (0, 50), (5, 10)]) == [1, 1, 5, 4, 3]
    assert rank([(0, 30), (0, 30)]) == [1, 1]


# -- what each strategy sees ----------------------------------------------------------------------
def test_ruling_bet_view() -> None:
    """bet is called with N, the number of decks, once per round per player in the game."""
    rec = Recorder()
    one_round(pad("T9" "T8", 4), [FunctionSetStrategy(rec, 1)], decks=4)
    assert rec.of("bet") == [4]


def test_ruling_tmpcards_view() -> None:
    """tmpcards: up card, X, two cards per seat in seat order, '-' for a seat out of the game."""
    rec = Recorder()
    one_round(pad("23" "45" "T9" "67"), [FunctionSetStrategy(rec, 1), Scripted(), Scripted()],
              accounts=[1000, 5, 1000])
    assert rec.of("first") == [("TX" "23" "--" "45", 8)]


def test_ruling_continue_view() -> None:
    """continue_action: players[0] is the player, also at players[K-1]; the others as they stand."""
    rec = Recorder("hs")
    one_round(pad("T2" "23" "97" "4" "5"), [Scripted("hs"), FunctionSetStrategy(rec, 2)])
    (players,) = rec.of("continue")[:1]
    assert players[0].mycards == "235" and players[1].mycards == "235" and players[0].count == 3
    assert len(players) == 2


def test_ruling_show_view() -> None:
    """show: the dealer's whole hand, every player at [seat-1], pNum = seats + 1, N, and pos."""
    rec = Recorder()
    one_round(pad("T9" "T8" "T5" "2", 2), [FunctionSetStrategy(rec, 1), Scripted()], decks=2)
    banker, players, pnum, n, pos = rec.of("show")[0]
    assert (banker.mycards, banker.count, banker.state, banker.points) == ("T52", 3, "l", 17)
    assert [p.mycards for p in players] == ["T9", "T8"] and (pnum, n, pos) == (3, 2, 7)


def test_ruling_reindex() -> None:
    """Set K at seat s sees its data where set K expects it; a K beyond the seats widens the view."""
    rec = Recorder()
    one_round(pad("23" "45" "T9"), [FunctionSetStrategy(rec, 2), Scripted()])  # set 2 at seat 1
    assert rec.of("first") == [("TX" "45" "23", 6)]
    rec3 = Recorder("hs")
    one_round(pad("23" "45" "T9" "2"), [FunctionSetStrategy(rec3, 4), Scripted()])  # set 4 at seat 1
    assert rec3.of("first") == [("TX" "--" "45" "--" "23", 10)]
    players = rec3.of("continue")[0]
    assert len(players) == 4 and players[0].mycards == players[3].mycards == "232"
    assert players[1].mycards == "45" and players[2] == Player()
    _, shown, pnum, _, _ = rec3.of("show")[0]
    assert pnum == 5 and shown[3].mycards == "232" and shown[0] == Player() and shown[1].mycards == "45"


def test_ruling_fresh_copies() -> None:
    """Every record given to a strategy is a fresh copy: writing to it changes nothing in the game."""
    rec = Recorder("hs", mutate=True)
    sc = one_round(pad("T2" "T8" "5"), [FunctionSetStrategy(rec, 1)])
    assert sc.seat(1)["cards"] == "T25" and sc.delta(1) == -10
    assert sc.table.seats[0].account == 990


def test_ruling_state_char() -> None:
    """state is the latest action character, '' before the first action of the round."""
    rec = Recorder("hs")
    one_round(pad("23" "45" "T9" "2"), [FunctionSetStrategy(rec, 1), Scripted()])
    players = rec.of("continue")[0]
    assert players[0].state == "h" and players[1].state == ""
    assert players[0].account == 990 and players[0].mybets == 10


# -- the original program's bugs, not copied ------------------------------------------------------
def test_bug_1_round_limit() -> None:
    """The 50 x seats round limit fires."""
    r = play_match([Seating("a", "stand", Stand()), Seating("b", "stand", Stand())], 8, 4)
    assert r.rounds <= 100 and (r.reason != "rounds" or r.rounds == 100)
    r = play_match([Seating("a", "stand", Stand())], 8, 4)
    assert (r.reason, r.rounds) == ("rounds", 50)


def test_bug_2_no_leak_through_tmpcards() -> None:
    """tmpcards holds exactly the dealt up cards, never the next cards of the shoe."""
    rec = Recorder()
    log = RoundLog(io.StringIO(), keep=True)
    play_match([Seating("a", "x", FunctionSetStrategy(rec, 1)), Seating("b", "stand", Stand())], 1, 11, log=log)
    rounds = [r for r in log.records or [] if r["type"] == "round"]
    seen = [t for t, _ in rec.of("first")]
    dealt = [r["dealer"][0] + "X" + "".join(p["cards"][:2] for p in r["players"]) for r in rounds
             if not (r["dealer_bj"] and r["dealer"][0] in "TJQK")]
    assert seen == dealt


def test_bug_3_black_jack_and_insurance_paid_right() -> None:
    """Black Jack pays 2:1 and insurance 2:1 on bet // 2 (not 2x the bet)."""
    assert one_round(pad("AK" "T8"), [Scripted()]).delta(1) == 20
    assert one_round(pad("T9" "AK"), [Scripted("i")]).delta(1) == 0


def test_bug_4_seeded_uniform_shuffle() -> None:
    """Shoes come from the seed, not the clock, and every card is equally likely in every place."""
    assert Generator(9).shoe(1) == Generator(9).shoe(1)
    n = 20_000
    g = Generator(123)
    aces = sum(g.shoe(1)[0] == ord("A") for _ in range(n))
    p = 4 / 52
    se = (p * (1 - p) / n) ** 0.5
    assert abs(aces / n - p) < 4 * se


def test_bug_5_ranking_order() -> None:
    """The richest player ranks first."""
    r = play_match([Seating("a", "stand", Stand()), Seating("b", "x", Scripted(bet=1000))], 6, 1,
                   generator=StackedGenerator([pad("T8" "T6" "T9")]))
    assert r.ranking[0].seat == 1 and r.ranking[0].account > r.ranking[1].account


def test_bug_6_double_never_negative() -> None:
    """A double cannot drive an account below zero."""
    sc = one_round(pad("56" "T7" "2"), [Scripted("d", bet=10)], accounts=[10])
    assert sc.seat(1)["account_after"] == 0 and sc.seat(1)["foul"] == "unaffordable_double"


def test_bug_7_small_money_out() -> None:
    """A player with 1 to 9 left does not bet 10 again: it is out."""
    s = Scripted()
    sc = one_round(pad("T9" "T8"), [s], accounts=[7])
    assert sc.record["players"] == [] and "bet" not in s.calls
