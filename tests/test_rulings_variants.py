"""One test per ruling of RULES.md's "Rule variants" and "The French game" (``test_ruling_<name>``).

Every scenario is played on a shoe stacked with chosen cards under the rule set it is about; ``deal``
checks that exactly the stacked cards were dealt.  Expected money is written out by hand from RULES.md.
``tests/test_rulings.py::test_every_ruling_has_its_test`` counts these tests with its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from tests.scripted import Scenario, Scripted, one_round
from twentyone.errors import RulesError
from twentyone.legality import Foul
from twentyone.match import Seating, play_match
from twentyone.records import SeatView
from twentyone.roundlog import RoundLog
from twentyone.rules import COURSE, PRESETS, Rules, get_rules
from twentyone.strategy import FunctionSetStrategy, Strategy, as_function_set
from twentyone.table import StackedGenerator, Table

#: Cards left in the shoe after the stacked ones; drawing into them shows up as a wrong position.
TAIL = "9" * 40
SPLIT = PRESETS["s17-3to2-6d"]  # split to 4 hands, aces once, DAS, peek, 3:2, no surrender


def deal(front: str, strategies: Sequence[Strategy], rules: Rules, *, accounts: list[int] | None = None,
         decks: int = 6) -> Scenario:
    """Play one round under ``rules`` whose cards are exactly ``front``."""
    sc = one_round(front + TAIL, strategies, decks, rules, accounts)
    assert sc.table.pos == len(front), f"dealt {sc.table.pos} cards, stacked {len(front)}"
    return sc


class Watcher(Scripted):
    """A Scripted strategy that also notes, at each continue_action, which hand it plays and what is legal."""

    def __init__(self, actions: str = "", bet: Any = 10) -> None:
        super().__init__(actions, bet)
        self.seen: list[tuple[int, tuple[str, ...], str, bool, bool]] = []

    def first_action(self, view: SeatView) -> str:
        self.seen.append((view.hand, view.hands, view.my_cards, view.can_double, view.can_split))
        return super().first_action(view)

    def continue_action(self, view: SeatView) -> str:
        self.seen.append((view.hand, view.hands, view.my_cards, view.can_double, view.can_split))
        return super().continue_action(view)


def hands(sc: Scenario, seat: int = 1) -> list[tuple[str, str, str, int]]:
    """(cards, actions, result, returned) of each split hand of ``seat``."""
    return [(h["cards"], h["actions"], h["result"], h["returned"]) for h in sc.seat(seat)["hands"]]


def play(shoes: list[str], strategies: Sequence[Strategy], rules: Rules, decks: int = 1) -> list[dict[str, Any]]:
    """Play a whole match under ``rules`` on stacked shoes; return its log records."""
    log = RoundLog(keep=True)
    seatings = [Seating(f"p{i + 1}", "scripted", s) for i, s in enumerate(strategies)]
    play_match(seatings, decks, 0, rules, log=log, generator=StackedGenerator(shoes))
    assert log.records is not None
    return log.records


# -- rule sets ---------------------------------------------------------------------------------------
def test_ruling_rule_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    """rule_overrides: '--rule KEY=VALUE ... one grammar ... the rule set's name records them'."""
    from twentyone.cli import main

    r = get_rules("s17-3to2-6d,double_after_split=false")
    assert r.name == "s17-3to2-6d,double_after_split=false" and not r.double_after_split and r.split
    log = RoundLog(keep=True)
    play_match([Seating("p1", "s", Scripted())], 6, 1, r, log=log)
    assert (log.records or [{}])[0]["rules"] == "s17-3to2-6d,double_after_split=false"
    assert main(["match", "-p", "stand", "--rules", "french", "--rule", "changer=false", "--json"]) == 0
    assert '"rules": "french,changer=false"' in capsys.readouterr().out
    assert main(["match", "-p", "stand", "--rule", "split=perhaps"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("twentyone: error: bad value for split: 'perhaps'") and err.count("\n") == 1


def test_ruling_impossible_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """impossible_rules: 'an impossible combination is refused with one line naming the conflict'."""
    from twentyone.cli import main

    with pytest.raises(RulesError, match="dealer_peeks=true needs hole_card=true"):
        get_rules("course,hole_card=false")
    assert main(["match", "-p", "stand", "--rule", "max_bet=5"]) == 2
    err = capsys.readouterr().err
    assert "max_bet=5 is below min_bet=10" in err and err.count("\n") == 1 and "Traceback" not in err


def test_ruling_deck_range() -> None:
    """deck_range: 'a table's decks lie in min_decks .. max_decks; the judge's shoe has 5000 decks'."""
    judge = PRESETS["judge"]
    table = Table([("p1", "s", Scripted())], 5000, StackedGenerator(["T9T7"]), judge)
    assert table.seats[0].view.shoe_size == 260_000
    with pytest.raises(RulesError, match="decks out of range: 9"):
        Table([("p1", "s", Scripted())], 9, StackedGenerator(["T"]), COURSE)
    with pytest.raises(RulesError, match="reshuffle_at=deck needs 2 decks"):
        Table([("p1", "s", Scripted())], 1, StackedGenerator(["T"]), get_rules("course,reshuffle_at=deck"))


def test_ruling_dealer_h17() -> None:
    """dealer_h17: 'with dealer_hits_soft_17 the dealer draws to a soft 17 too'."""
    stand, hit = deal("T8A6", [Scripted("s")], COURSE), deal("T8A62", [Scripted("s")], PRESETS["course-h17"])
    assert (stand.record["dealer"], stand.delta(1)) == ("A6", 10)
    assert (hit.record["dealer"], hit.delta(1)) == ("A62", -10)
    hard = deal("T8T7", [Scripted("s")], PRESETS["course-h17"])  # a hard 17 stands under H17 too
    assert (hard.record["dealer"], hard.delta(1)) == ("T7", 10)


def test_ruling_no_peek() -> None:
    """no_peek: 'without a peek the dealer's Black Jack shows after the players and takes every stake'."""
    no_peek = get_rules("s17-3to2-6d,dealer_peeks=false")
    # 5-5 doubles against a T, draws a 9; the hole card is an A: 20 lost, not 10.
    sc = deal("55TA9", [Scripted("d")], no_peek)
    assert (sc.record["dealer"], sc.record["dealer_bj"], sc.delta(1)) == ("TA", True, -20)
    # 8-8 splits: both hands play, both lose to the Black Jack.
    sc = deal("88TA23", [Scripted("pss")], no_peek)
    assert hands(sc) == [("82", "s", "lose", 0), ("83", "s", "lose", 0)] and sc.delta(1) == -20
    # A surrender keeps nothing against a Black Jack.
    sc = deal("T6TA", [Scripted("u")], get_rules("course,dealer_peeks=false"))
    assert sc.delta(1) == -10
    # With the peek the same deal is settled at once: no decision, the bet lost.
    p = Scripted("d")
    sc = deal("55TA", [p], SPLIT)
    assert ("first" not in p.calls, sc.delta(1)) == (True, -10)


def test_ruling_no_hole_card() -> None:
    """no_hole_card: 'without a hole card the dealer's second card is dealt after the players'."""
    rules = get_rules("course,hole_card=false,dealer_peeks=false")
    p = Scripted("hs")
    # T6, up card 9; the player's hit takes the 4th card (5), then the dealer's second card (8).
    sc = deal("T695" "8", [p], rules)
    assert sc.seat(1)["cards"] == "T65" and sc.record["dealer"] == "98" and sc.delta(1) == 10
    assert p.seen_first == ["9XT6"]


@pytest.mark.parametrize("pays, delta", [("2", 30), ("3/2", 22), ("6/5", 18), ("1", 15)])
def test_ruling_blackjack_payouts(pays: str, delta: int) -> None:
    """blackjack_payouts: 'a Black Jack wins bet x blackjack_pays, rounded down'."""
    sc = deal("AKT7", [Scripted("s", bet=15)], get_rules(f"course,blackjack_pays={pays}"))
    assert sc.delta(1) == delta


def test_ruling_surrender_option() -> None:
    """surrender_option: 'with surrender=false a u is an illegal action'."""
    p = Watcher("u")
    sc = deal("T6T7", [p], PRESETS["course-nosurrender"])
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION and sc.delta(1) == -10


@pytest.mark.parametrize("on, cards, legal", [
    ("9-11", "63", True), ("9-11", "T2", False), ("9-11", "A8", False), ("10-11", "54", False),
    ("10-11", "65", True), ("none", "65", False), ("any", "T2", True),
])
def test_ruling_double_on(on: str, cards: str, legal: bool) -> None:
    """double_on: 'only the two-card hands double_on names may double; a d on another is an illegal action'."""
    p = Watcher("d")
    sc = deal(cards + "T7" + ("2" if legal else ""), [p], get_rules(f"course,double_on={on}"))
    assert p.seen[0][3] is legal
    assert sc.seat(1)["foul"] == (None if legal else Foul.ILLEGAL_ACTION)


# -- splitting ---------------------------------------------------------------------------------------
def test_ruling_split_pair() -> None:
    """split_pair: 'a pair is two cards of one value; p splits it into two hands, each staking the bet'."""
    sc = deal("TK" "7T" "3" "8", [Scripted("pss")], SPLIT)  # T-3 and K-8 stand against 17
    assert sc.seat(1)["actions"] == "p" and sc.seat(1)["cards"] == "TK"
    assert [h[0] for h in hands(sc)] == ["T3", "K8"]
    p = Watcher("p")
    sc = deal("89" "7T", [p], SPLIT)
    assert not p.seen[0][4] and sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION
    p = Watcher("p")
    sc = deal("88" "7T", [p], SPLIT, accounts=[15])  # bet 10 leaves 5: a second bet cannot be paid
    assert not p.seen[0][4] and sc.seat(1)["foul"] == Foul.UNAFFORDABLE_SPLIT and sc.delta(1) == -10
    with pytest.raises(Exception, match="'p'"):
        sc.table.verify_split(sc.table.seats[0])


def test_split_hands_push_and_tie_as_hands_do() -> None:
    """A split hand settles on its own as any hand does (settlement): 17 against the dealer's 17 pushes (its
    stake back), and a split A-T, 21 but not a Black Jack, ties the dealer's three-card 21."""
    sc = deal("88" "7T" "9" "T", [Scripted("pss")], SPLIT)  # 8-9 = 17 v 17 pushes, 8-T = 18 wins
    assert hands(sc) == [("89", "s", "push", 10), ("8T", "s", "win", 20)] and sc.delta(1) == 10
    p = Watcher("ps")
    sc = deal("TT" "65" "A" "5" "T", [p], SPLIT)  # T-A stands on 21; T-5 stands; the dealer 6-5-T makes 21
    assert sc.record["dealer"] == "65T"
    assert hands(sc) == [("TA", "", "push", 10), ("T5", "s", "lose", 0)] and sc.delta(1) == -10


def test_ruling_split_deal_order() -> None:
    """split_deal_order: 'the left hand takes its second card, then the right; hands are played left to right'."""
    p = Watcher("pdphss")
    # 8-8 against a 6 (hole T): hand 1 takes 3, hand 2 takes 8; hand 1 doubles (T); hand 2 (8-8) splits
    # again: it takes 2, the new hand 3 takes 5; hand 2 hits (9) and stands; hand 3 stands; dealer 6T9.
    sc = deal("88" "6T" "38" "T" "25" "9" "9", [p], SPLIT)
    assert hands(sc) == [("83T", "d", "win", 40), ("829", "phs", "win", 20), ("85", "s", "win", 20)]
    assert sc.delta(1) == 40
    assert [(h, cards) for h, _, cards, _, _ in p.seen] == [
        (0, "88"), (0, "83"), (1, "88"), (1, "82"), (1, "829"), (2, "85")]
    assert p.seen[2][1] == ("83T", "88")
    assert p.calls[:3] == ["bet", "first", "continue"]


def test_ruling_split_hands_limit() -> None:
    """split_hands_limit: 'a seat holds at most split_hands hands; a pair beyond that plays as a total'."""
    p = Watcher("pssp")
    sc = deal("88" "7T" "88", [p], get_rules("s17-3to2-6d,split_hands=2"))
    assert [s[4] for s in p.seen] == [True, False, False]
    assert sc.seat(1)["foul"] is None
    p = Watcher("ppp" + "s" * 4)
    sc = deal("88" "7T" "88" "88" "22", [p], SPLIT)  # 88 -> 88 88 -> 88 88 88 -> 82 82 88 88
    assert [s[4] for s in p.seen] == [True, True, True, False, False, False, False]
    assert [h[0] for h in hands(sc)] == ["82", "82", "88", "88"]


def test_ruling_split_aces_one_card() -> None:
    """split_aces_one_card: 'each split ace takes one card and stands, with no decision'."""
    p = Watcher("p")
    sc = deal("AA" "7T" "95", [p], SPLIT)
    assert hands(sc) == [("A9", "", "win", 20), ("A5", "", "lose", 0)] and len(p.seen) == 1
    p = Watcher("phss")
    sc = deal("AA" "7T" "95" "9", [p], get_rules("s17-3to2-6d,split_aces_one_card=false"))
    assert hands(sc) == [("A99", "hs", "win", 20), ("A5", "s", "lose", 0)]


def test_ruling_resplit_aces() -> None:
    """resplit_aces: 'an ace dealt to a split ace may be split again (p) or stand (s); nothing else'."""
    p = Watcher("pp")
    sc = deal("AA" "7T" "A5" "9T", [p], get_rules("s17-3to2-6d,resplit_aces=true"))
    assert hands(sc) == [("A9", "p", "win", 20), ("AT", "", "win", 20), ("A5", "", "lose", 0)]
    p = Watcher("ph")
    sc = deal("AA" "7T" "A5", [p], get_rules("s17-3to2-6d,resplit_aces=true"))
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION
    p = Watcher("p")
    sc = deal("AA" "7T" "A5", [p], SPLIT)
    assert hands(sc)[0][:2] == ("AA", "") and len(p.seen) == 1


def test_ruling_double_after_split() -> None:
    """double_after_split: 'a split hand's first two cards may double when the rules say so'."""
    p = Watcher("pds")
    sc = deal("88" "6T" "38" "T" "9", [p], SPLIT)
    assert hands(sc)[0][:2] == ("83T", "d") and p.seen[1][3]
    p = Watcher("pd")
    sc = deal("88" "7T" "38", [p], get_rules("s17-3to2-6d,double_after_split=false"))
    assert not p.seen[1][3] and sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION and sc.delta(1) == -20


def test_ruling_split_21_not_blackjack() -> None:
    """split_21_not_blackjack: 'a split hand's A and ten is 21, not a Black Jack: it stands and pays 1:1'."""
    p = Watcher("ps")
    sc = deal("TT" "9T" "A7", [p], get_rules("s17-3to2-6d,blackjack_pays=2"))
    assert hands(sc) == [("TA", "", "win", 20), ("T7", "s", "lose", 0)] and sc.delta(1) == 0
    assert len(p.seen) == 2


def test_ruling_split_foul() -> None:
    """split_foul: 'an illegal action on a split hand loses every hand's stake; later hands are not played'."""
    p = Watcher("pxs")
    sc = deal("88" "7T" "32", [p], SPLIT)
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION and sc.delta(1) == -20 and len(p.seen) == 2


def test_ruling_course_interface_no_split() -> None:
    """course_interface_no_split: 'a course function set never splits or changes: p and c from it are illegal'."""
    fs = FunctionSetStrategy(as_function_set(Scripted("p"), 1), 1)
    sc = deal("88" "7T", [fs], SPLIT)
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION
    assert not sc.table.can_split(sc.table.seats[0])
    fs = FunctionSetStrategy(as_function_set(Scripted("c"), 1), 1)
    sc = deal("88" "7T", [fs], PRESETS["french"])
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION


# -- money, insurance, shoe and match ------------------------------------------------------------------
def test_ruling_insurance_option() -> None:
    """insurance_option: 'with insurance=false an i is illegal_insurance; insurance costs bet // 2 and pays
    insurance_pays'."""
    p = Watcher("i")
    sc = deal("T9A7", [p], PRESETS["french"])
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_INSURANCE
    sc = deal("T9AK", [Scripted("i", bet=20)], get_rules("course,insurance_pays=1"))
    assert sc.seat(1)["insurance"] == 10 and sc.delta(1) == -20 - 10 + 20


def test_ruling_zero_insurance() -> None:
    """zero_insurance: 'an insurance of 0 (a bet of 1) is still bought: the hand plays on after it'."""
    judge = PRESETS["judge"]
    # a peek under an A with no Black Jack: i, then h on 6-5 takes the T (21); the dealer's A-7 is soft 18
    p = Scripted("ih", bet=1)
    sc = deal("65" "A7" "T", [p], judge)
    assert (sc.seat(1)["insurance"], sc.seat(1)["actions"], sc.seat(1)["cards"]) == (0, "ih", "65T")
    assert p.calls == ["bet", "first", "continue", "show"] and sc.delta(1) == 1
    # no peek (insurance offered by override): the insured hand plays on at once, as a bet of 2 does
    rules = get_rules("french,insurance=true")
    for bet in (1, 2):
        q = Scripted("is", bet=bet)
        sc = deal("65" "A7", [q], rules)
        assert sc.seat(1)["actions"] == "is" and q.calls == ["bet", "first", "continue", "show"], bet


@pytest.mark.parametrize("at, first_of_shoe_2", [("quarter", 80), ("half", 54), ("deck", 93), ("round", 2)])
def test_ruling_reshuffle_at(at: str, first_of_shoe_2: int) -> None:
    """reshuffle_at: 'after a round the shoe is reshuffled when fewer than a quarter, a half or one deck of it
    is left, or after every round'."""
    # 8 decks (416 cards), rounds of 4 cards: k rounds leave 416 - 4k; a quarter is 104, a half 208, a deck 52.
    rules = get_rules(f"course,reshuffle_at={at},rounds_per_seat=100" + (",max_shoes=none" if at == "round" else ""))
    recs = play(["T8T7" * 104], [Scripted("s")], rules, decks=8)
    rounds = [r for r in recs if r["type"] == "round"]
    assert next(r["round"] for r in rounds if r["shoe"] == 2) == first_of_shoe_2
    assert rules.reshuffle_threshold(8) == {"quarter": 104, "half": 208, "deck": 52, "round": 417}[at]


def test_ruling_bet_limits() -> None:
    """bet_limits: 'a bet below min_bet is raised to it, above max_bet lowered to it, then to all the money'."""
    unix = PRESETS["unix-bj"]
    assert deal("T8T7", [Scripted("s", bet=100)], unix, decks=1).seat(1)["bet"] == 2
    assert deal("T8T7", [Scripted("s", bet=0)], unix, decks=1).seat(1)["bet"] == 2
    judge = PRESETS["judge"]
    assert deal("T8T7", [Scripted("s", bet=1)], judge, decks=5000).seat(1)["bet"] == 1


def test_ruling_start_money_option() -> None:
    """start_money_option: 'every player starts with start_money'."""
    for name, money in (("judge", 1_000_000), ("montecarlo", 100), ("french", 1000)):
        rules = PRESETS[name]
        table = Table([("p1", "s", Scripted())], rules.decks, StackedGenerator(["T"]), rules)
        assert table.seats[0].account == money


def test_ruling_match_limits() -> None:
    """match_limits: 'max_shoes and rounds_per_seat may be none; a match ends (target) when a player's money
    passes target_money'."""
    rules = get_rules("course,target_money=1015")
    recs = play(["T8T7" * 13], [Scripted("s")], rules)
    end = recs[-1]
    assert (end["reason"], end["rounds"], end["ranking"][0]["account"]) == ("target", 2, 1020)
    mc = PRESETS["montecarlo"]
    recs = play(["T8T7" * 26], [Scripted("s", bet=2)], mc, decks=2)
    assert recs[-1]["reason"] == "rounds" and recs[-1]["rounds"] == 12
    assert sum(1 for r in recs if r["type"] == "shuffle") == 12


def test_ruling_changer() -> None:
    """changer: 'with a pair, c replaces the second card with the next one and doubles the stake; the hand
    goes on with h or s'."""
    french = PRESETS["french"]
    p = Watcher("chs")
    # 7-7 against a 6 (hole T): the second 7 goes, a 3 comes (7-3), hit (8): 18 against 6-T-9 (bust).
    sc = deal("77" "6T" "3" "8" "9", [p], french)
    rec = sc.seat(1)
    assert (rec["cards"], rec["changed"], rec["actions"], rec["doubled"], rec["bet"]) == ("738", "7", "chs", True, 10)
    assert sc.delta(1) == 20
    assert sc.table.seats[0].view.seat_cards(1) == "7387"
    p = Watcher("c")
    sc = deal("78" "7T", [p], french)
    assert sc.seat(1)["foul"] == Foul.ILLEGAL_ACTION
    sc = deal("TT" "9T" "A", [Scripted("cs")], french)  # T-A after a Changer: 21, not a Black Jack
    assert sc.seat(1)["bj"] is False and sc.delta(1) == 20
    assert deal("77" "7T", [Scripted("c")], SPLIT).seat(1)["foul"] == Foul.ILLEGAL_ACTION
    assert french.blackjack_pays == Fraction(3, 2)


def test_ruling_presets() -> None:
    """presets: 'the named rule sets, each from its source document' (RULES.md's table)."""
    p = PRESETS
    assert (p["french"].blackjack_pays, p["french"].changer, p["french"].insurance, p["french"].surrender,
            p["french"].dealer_peeks, p["french"].hole_card, p["french"].split, p["french"].min_bet) == (
        Fraction(3, 2), True, False, False, False, True, True, 1)
    u = p["unix-bj"]
    assert (u.decks, u.min_bet, u.max_bet, u.double_on, u.split_hands, u.blackjack_pays, u.insurance) == (
        1, 2, 2, "10-11", 2, Fraction(3, 2), True)
    lz = p["lianzhong"]
    assert (lz.decks, lz.reshuffle_at, lz.blackjack_pays, lz.double_after_split, lz.split_aces_one_card,
            lz.max_seats) == (1, "round", Fraction(1), False, False, 4)
    mc = p["montecarlo"]
    assert (mc.decks, mc.rounds_per_seat, mc.reshuffle_at, mc.double_on, mc.split, mc.min_bet, mc.max_bet) == (
        2, 12, "round", "none", False, 2, 2)
    j = p["judge"]
    assert (j.decks, j.start_money, j.target_money, j.min_bet, j.split_hands, j.double_after_split,
            j.max_shoes, j.rounds_per_seat) == (5000, 10**6, 1_300_000, 1, 2, False, 1, None)
    c = p["s17-3to2-6d"]
    assert (c.decks, c.split_hands, c.double_after_split, c.surrender, c.resplit_aces, c.blackjack_pays) == (
        6, 4, True, False, False, Fraction(3, 2))


# -- the French game -----------------------------------------------------------------------------------
def test_ruling_solo() -> None:
    """solo: 'one player against the dealer; ends with no money, after --rounds, or on Ctrl-C'."""
    import subprocess
    import sys
    from pathlib import Path

    from twentyone.games.solo import play_solo

    r = play_solo(Seating("p", "scripted", Scripted("", bet=10)), 3, PRESETS["french"], rounds=7)
    assert (r.rounds, r.reason, r.rules) == (7, "rounds", "french,max_shoes=none,rounds_per_seat=7")
    broke = play_solo(Seating("p", "scripted", Scripted("", bet=10**6, default="h")), 3, PRESETS["french"])
    assert broke.reason == "broke" and broke.ranking[0].account == 0
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run([sys.executable, "-m", "twentyone", "solo", "--seed", "3"], input="10\nxyz\nr\n",
                         capture_output=True, text=True, cwd=root, timeout=60)
    assert "votre mise" in run.stdout and "'xyz' n'est pas un choix possible" in run.stdout
    assert "t tirer, r rester" in run.stdout and run.returncode == 130 and "Traceback" not in run.stderr


def _elimination(bets: list[int], rounds: int = 9) -> Any:
    """Four players who always hit on an all-ten shoe: each loses its bet every round (20, hit, bust)."""
    from twentyone.games.elimination import Schedule, play_elimination

    seatings = [Seating(f"p{i + 1}", "scripted", Scripted("", bet=b, default="h")) for i, b in enumerate(bets)]
    log = RoundLog(keep=True)
    r = play_elimination(seatings, 0, PRESETS["french"], 6, Schedule(rounds, 3), log,
                         generator=StackedGenerator(["T" * 312]))
    return r, log.records


def test_ruling_elimination() -> None:
    """elimination: 'after rounds 3, 6 and 9 the poorest goes; a player with no money at once; the richest wins'."""
    from twentyone.games.elimination import Elimination, Schedule, eliminate

    r, recs = _elimination([10, 40, 30, 20])
    assert [(e.round, e.seats, e.reason) for e in r.eliminations] == [
        (3, (2,), "poorest"), (6, (3,), "poorest"), (9, (4,), "poorest")]
    assert r.winners == (1,) and r.rounds == 9 and r.accounts[1] == 910
    assert [st.seat for st in r.ranking] == [1, 4, 3, 2]
    assert [x for x in recs if x["type"] == "eliminated"][0] == {
        "type": "eliminated", "round": 3, "seats": [2], "reason": "poorest"}
    assert recs[-1]["type"] == "end" and recs[-1]["reason"] == "elimination"
    assert [len(x["players"]) for x in recs if x["type"] == "round"] == [4, 4, 4, 3, 3, 3, 2, 2, 2]
    # Broke at once (round 1), and no second elimination in a check round where someone went broke.
    r, _ = _elimination([10, 1000, 30, 20])
    assert (r.eliminations[0].round, r.eliminations[0].seats, r.eliminations[0].reason) == (1, (2,), "broke")
    assert eliminate({1: 0, 2: 5, 3: 50}, 3, Schedule(), 1) == [Elimination(3, (1,), "broke")]
    assert eliminate({1: 7, 2: 5, 3: 50}, 4, Schedule(), 1) == []
    # The game ends as soon as one player is left.
    r, _ = _elimination([10, 1000, 1000, 1000])
    assert r.rounds == 1 and r.winners == (1,)


def test_ruling_elimination_ties() -> None:
    """elimination_ties: 'tied poorest all go unless nobody would be left; tied richest share the win'."""
    from twentyone.games.elimination import Elimination, Schedule, eliminate

    assert eliminate({1: 900, 2: 800, 3: 800, 4: 950}, 3, Schedule(), 1) == [Elimination(3, (2, 3), "poorest")]
    assert eliminate({1: 800, 2: 800}, 9, Schedule(), 1) == []
    r, _ = _elimination([10, 10, 30, 30])
    assert [(e.round, e.seats) for e in r.eliminations] == [(3, (3, 4))]
    assert r.winners == (1, 2) and [st.rank for st in r.ranking] == [1, 1, 3, 3]
    r, _ = _elimination([1000, 1000, 1000, 1000])
    assert r.winners == (1, 2, 3, 4) and r.rounds == 1


class FakeView:
    """Just what a chart player and the AI levels read from a view."""

    def __init__(self, cards: str, up: str, *, can_double: bool = True, can_split: bool = True,
                 rules: Rules = PRESETS["french"], account: int = 1000) -> None:
        from twentyone.cards import hand_value

        self.my_cards, self.up_card, self.can_double, self.can_split = cards, up, can_double, can_split
        self.can_surrender = False
        self.total, self.soft = hand_value(cards)
        self.rules, self.account = rules, account


def test_ruling_ai_levels() -> None:
    """ai_levels: 'amateur draws as the dealer; intermediate by rules of thumb; each bets a tenth'."""
    from twentyone.players.builtin.levels import Amateur, Intermediate

    a, i = Amateur(), Intermediate()

    def act(p: Strategy, cards: str, up: str, **kw: Any) -> str:
        return p.first_action(FakeView(cards, up, **kw))  # type: ignore[arg-type]

    assert [act(a, c, "6") for c in ("T6", "T7", "A6", "55", "88")] == ["h", "s", "s", "h", "h"]
    assert act(a, "A6", "6", rules=PRESETS["course-h17"]) == "h"
    assert [act(i, c, "6") for c in ("T6", "T2", "64", "65", "A7", "A8", "88", "AA", "99", "T7")] == [
        "s", "s", "d", "d", "s", "s", "p", "p", "s", "s"]
    assert [act(i, c, "7") for c in ("T6", "T2", "64", "A6", "77")] == ["h", "h", "d", "h", "h"]
    assert [act(i, c, "T") for c in ("64", "92")] == ["h", "h"]
    assert [act(i, c, u) for c in ("54", "63", "72") for u in ("3", "6")] == ["h"] * 6  # a hard 9 hits, never doubles
    assert act(i, "64", "6", can_double=False) == "h" and act(i, "88", "6", can_split=False) == "s"
    a.start_match(object(), 6, 4, 1)
    assert a.bet(FakeView("", "", account=500)) == 50  # type: ignore[arg-type]
    assert a.bet(FakeView("", "", account=20)) == 50  # type: ignore[arg-type]  # fixed for the match


#: The chart as seed 001 prints it (its French labels and cells, verbatim), for the expert_chart ruling.
PRINTED = """\
17+ | R | R | R | R | R | R | R | R | R | R
16 | R | R | R | R | R | T | T | T | T | T
15 | R | R | R | R | R | T | T | T | T | T
14 | R | R | R | R | R | T | T | T | T | T
13 | R | R | R | R | R | T | T | T | T | T
12 | T | T | R | R | R | T | T | T | T | T
11 | D | D | D | D | D | D | D | D | D | T
10 | D | D | D | D | D | D | D | D | D | T
9 | T | D | D | D | T | T | T | T | T | T
5 > 8 | T | T | T | T | T | T | T | T | T | T
A-8 > A-10 | R | R | R | R | R | R | R | R | R | R
A-7 | R | D | D | D | D | R | R | T | T | T
A-6 | T | D | D | D | D | T | T | T | T | T
A-5 | T | T | D | D | D | T | T | T | T | T
A-4 | T | T | D | D | D | T | T | T | T | T
A-3 | T | T | T | D | D | T | T | T | T | T
A-2 | T | T | T | D | D | T | T | T | T | T
A-A / 8-8 | Div | Div | Div | Div | Div | Div | Div | Div | Div | Div
10-10 | R | R | R | R | R | R | R | R | R | R
9-9 | Div | Div | Div | Div | Div | R | Div | Div | R | R
7-7 | Div | Div | Div | Div | Div | Div | T | T | T | T
6-6 | Div | Div | Div | Div | Div | T | T | T | T | T
5-5 | D | D | D | D | D | D | D | D | T | T
4-4 | T | T | T | Div | Div | T | T | T | T | T
3-3 | Div | Div | Div | Div | Div | Div | T | T | T | T
2-2 | Div | Div | Div | Div | Div | Div | T | T | T | T
"""
#: A hand for each printed row.
ROW_HANDS = {"17+": ["T7", "T8", "T9"], "5 > 8": ["32", "42", "52", "62"], "A-8 > A-10": ["A8", "A9"],
             "A-A / 8-8": ["AA", "88"], "10-10": ["TT"]}


def test_ruling_expert_chart() -> None:
    """expert_chart: 'the expert plays exactly the chart printed in the document, splits included'."""
    from twentyone.analysis.charts import UPS
    from twentyone.players.builtin.levels import Expert

    expert = Expert()
    letter = {"R": "s", "T": "h", "D": "d", "Div": "p"}
    checked = 0
    for line in PRINTED.splitlines():
        label, *cells = [c.strip() for c in line.split("|")]
        hands_ = ROW_HANDS.get(label)
        if hands_ is None:
            if label.startswith("A-"):
                hands_ = ["A" + label[2:]]
            elif "-" in label:
                c = "T" if label.startswith("10") else label[0]
                hands_ = [c + c]
            else:
                t = int(label)
                hands_ = [("T" + str(t - 10)) if t >= 12 else {11: "92", 10: "64", 9: "54"}[t]]
        for cards in hands_:
            for up, cell in zip(UPS, cells):
                assert expert.first_action(FakeView(cards, up)) == letter[cell], (label, cards, up)  # type: ignore[arg-type]
                checked += 1
    assert checked == 10 * (len(PRINTED.splitlines()) + 2 + 3 + 1 + 1)
    # What it may not play: a D without a double is a hit; a Div without a split plays the total.
    assert expert.first_action(FakeView("65", "5", can_double=False)) == "h"  # type: ignore[arg-type]
    assert expert.first_action(FakeView("88", "5", can_split=False)) == "s"  # type: ignore[arg-type]
    assert expert.first_action(FakeView("77", "7", can_split=False)) == "h"  # type: ignore[arg-type]
