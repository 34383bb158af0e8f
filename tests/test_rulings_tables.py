"""One test per ruling of RULES.md's "bj(6)", "The Lianzhong table" and "The Monte Carlo report" sections
(``test_ruling_<name>``), each played on chosen cards; expected money is written out from RULES.md."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.scripted import Scripted
from twentyone.core import Generator, StackedGenerator
from twentyone.games.bj import BjGame, PersonAnswers, RandomDeck, StackedDeck, StrategyAnswers
from twentyone.games.lianzhong import LianzhongResult, dealer_may_choose, dealing_order, next_dealer, play_lianzhong
from twentyone.games.commands.montecarlo import TEXT as MC_TEXT
from twentyone.games.commands.montecarlo import _game_line
from twentyone.games.montecarlo import GameScore, play_report, report_score, summarise
from twentyone.games.people import NoAnswer, TimedInput, Trustee
from twentyone.i18n import translated, using
from twentyone.legality import Foul, double_problem
from twentyone.match import Seating
from twentyone.players.builtin.course import Mimic
from twentyone.records import SeatView
from twentyone.roundlog import RoundLog
from twentyone.errors import RulesError
from twentyone.rules import PRESETS, Rules, get_rules
from twentyone.strategy import Strategy

FILL = "9C" * 60  # bj: cards after the chosen ones


# -- helpers -------------------------------------------------------------------------------------------------
class Session:
    """bj for a person typing ``answers`` (or a strategy), on chosen decks; keeps every line and record.  A
    person's line is the question and the answer as the terminal echoes it; with no answer left, Ctrl-C."""

    def __init__(self, decks: Sequence[str], answers: Sequence[str] = (), strategy: Strategy | None = None,
                 rules: Rules = PRESETS["unix-bj"]) -> None:
        self.lines: list[str] = []
        self.answers = list(answers)
        self.log = RoundLog(keep=True)
        if strategy is None:
            who: Any = PersonAnswers(ask=self._ask)
        else:
            who = StrategyAnswers(strategy)
        self.game = BjGame(who, StackedDeck(list(decks)), strategy=strategy, say=self.lines.append, log=self.log,
                           rules=rules)

    def _ask(self, prompt: str) -> str:
        if not self.answers:
            self.lines.append(prompt)
            raise KeyboardInterrupt
        answer = self.answers.pop(0)
        self.lines.append(prompt + answer.rstrip("\n"))
        return answer if answer.endswith("\n") else answer + "\n"

    def play(self, hands: int | None) -> list[dict[str, Any]]:
        """Play ``hands`` hands; the round records."""
        self.game.play(hands)
        return [r for r in self.log.records or [] if r["type"] == "round"]

    def text(self) -> str:
        return "\n".join(self.lines)

    def after(self, line: str) -> list[str]:
        """The lines after the first ``line``."""
        return self.lines[self.lines.index(line) + 1:]


def bj(deck: str, answers: Sequence[str] = (), strategy: Strategy | None = None) -> tuple[Session, dict[str, Any]]:
    """One bj hand on ``deck`` (then nines); the session and the player's record."""
    s = Session([deck + FILL], answers, strategy)
    (r,) = s.play(1)
    return s, r


def lz(cards: str, strategies: Sequence[Strategy], dealer: int = 1, rounds: int = 1, rules: Rules | None = None,
       more: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Lianzhong rounds on chosen decks (each round a new one: ``cards``, then ``more``); the log records."""
    log = RoundLog(keep=True)
    seats = [Seating(f"p{i + 1}", "scripted", s) for i, s in enumerate(strategies)]
    decks = [d + "9" * (52 - len(d)) for d in (cards, *more)]
    play_lianzhong(seats, 0, rounds, rules or PRESETS["lianzhong"], log=log, generator=StackedGenerator(decks),
                   first_dealer=dealer)
    return log.records or []


def rounds(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == "round"]


def money(r: dict[str, Any]) -> dict[int, int]:
    """Each player's money won or lost in a round record, the dealer's under his seat."""
    out = {p["seat"]: p["account_after"] - p["account_before"] for p in r["players"]}
    out[r["dealer_seat"]] = r["dealer_after"] - r["dealer_before"]
    return out


class Dealer(Scripted):
    """A scripted player whose dealer decisions come from ``dealer`` (and who stands as a player)."""

    def __init__(self, dealer: str = "", actions: str = "", default: str = "s") -> None:
        super().__init__(actions, default=default)
        self.dealer = list(dealer)
        self.asked: list[str] = []

    def dealer_action(self, view: SeatView) -> str:
        self.asked.append(view.my_cards)
        return self.dealer.pop(0) if self.dealer else "s"


def mc(cards: str, strategy: Strategy | None = None) -> GameScore:
    """One game of the report on chosen cards (then tens)."""
    (g,) = play_report(Seating("me", "x", strategy or Mimic()), 0, games=1,
                       generator=StackedGenerator([cards + "T" * (104 - len(cards))]))
    return g


# -- bj(6) ---------------------------------------------------------------------------------------------------
def test_ruling_bj_deck() -> None:
    """bj_deck: 'drawn at random from those left; Shuffle before the first hand, before a hand with fewer than
    15 left, and at a draw with one card left, when all 52 go back'."""
    deck = RandomDeck(Generator(3))
    cards = [deck.draw() for _ in range(52)]
    assert len(set(cards)) == 52 and deck.left() == 0
    deck.refill()
    assert deck.left() == 52
    # 18 cards: the first hand leaves 14, so the next is preceded by a shuffle; that one's deck of 7 is down to
    # one card after two hits, so the third hit shuffles first (the 4C left goes back, the next deck deals 4S).
    s = Session(["9D8H" "TH9S" + "2C" * 14, "7DTC" "5H6S" "2H3D" "4C", "4S" + "5D" * 30],
                ["", "", "y", "y", "y", ""])
    s.play(2)
    assert s.lines[:3] == ["Black Jack", "new game", "Shuffle"] and s.lines[3] == "9D up"  # no money yet
    shuffles = [r for r in s.log.records or [] if r["type"] == "shuffle"]
    assert [(x["left"], x["mid_round"], x["action"], x["standing"]) for x in shuffles] == [(14, False, 2, 2),
                                                                                          (1, True, 2, 2)]
    assert s.after("You win $2")[:5] == ["new game", "Shuffle", "Action $2", "You win $2", "7D up"]
    assert s.after("Hit? y")[:10] == ["2H", "", "Hit? y", "3D", "", "Hit? y", "Shuffle", "Action $2", "You win $2",
                                      "4S"]


def test_ruling_bj_deal() -> None:
    """bj_deal: 'new game; the dealer's up card and hole card, then the player's two; KD up, then TH+4S and a
    blank line; every later card alone, a blank line after it but a double down's'."""
    s, r = bj("KD7C" "TH4S" "5C", ["y", ""])
    assert s.lines == ["Black Jack", "new game", "Shuffle", "KD up", "TH+4S", "", "Hit? y", "5C", "", "Hit? ",
                       "You have 19", "Dealer has 7C = 17", "", "You win $2"]
    assert r["drawn"] == "KD7CTH4S5C" and r["players"][0]["cards"] == "T45" and r["dealer"] == "K7"
    s, r = bj("KD7C" "5H6S" "9D", ["y"])
    assert s.after("Double down? y") == ["9D", "You have 20", "Dealer has 7C = 17", "", "You win $4"]


def test_ruling_bj_questions() -> None:
    """bj_questions: 'Insurance? before the natural is checked; after a dealer natural no more questions; Split
    pair?, Double down?, Hit? at 21 too; an answer starting with y is yes, anything else no'."""
    s, _ = bj("AD7C" "AHKS", [""])  # a natural against an ace: insurance first, then the natural
    assert s.lines[5:8] == ["", "Insurance? ", "You have black jack!"]
    s, _ = bj("KDAC" "8H8S", [])  # a ten up and a dealer natural: nothing is asked
    assert not any("?" in line for line in s.lines) and s.lines[-3:] == ["Dealer has AC = blackjack", "",
                                                                        "You lose $2"]
    s, r = bj("6D7C" "5H5S" "TH", ["Y", "x", "yes", ""])  # Y and x are no, yes is yes
    assert s.lines[6:11] == ["Split pair? Y", "Double down? x", "Hit? yes", "TH", ""]
    assert r["players"][0]["actions"] == "hs" and s.after("Hit? ") == ["You have 20"] + s.lines[-3:]
    s, _ = bj("6D7C" "5H6S" "TH", ["", "y", ""])  # 21 after a hit: asked again
    assert s.lines[6:12] == ["Double down? ", "Hit? y", "TH", "", "Hit? ", "You have 21"]
    s, r = bj("6D7C" "THKS" "AH" "9S", ["y", "", ""])  # a split hand's two-card 21 is asked too
    assert s.lines[6:14] == ["Split pair? y", "AH", "", "Hit? ", "You have 21", "9S", "", "Hit? "]
    assert [h["cards"] for h in r["players"][0]["hands"]] == ["TA", "K9"]


def test_ruling_bj_money() -> None:
    """bj_money: '$2 a hand; insurance $1 pays $2; natural $3, a push against a dealer natural; a dealer natural
    takes only the bet; the result is the hand's net; a split counts $6 of action'."""
    s, r = bj("ADKC" "9H7S", ["y"])  # insured against a dealer natural: -2 - 1 + 3 = 0
    assert s.lines[-2:] == ["", "You break even"] and (r["action"], r["standing"]) == (3, 0)
    s, r = bj("9D7C" "AHKS", [])
    assert s.lines[-1] == "You win $3" and r["standing"] == 3
    s, r = bj("ADKC" "AHKS", ["y"])  # insured natural against a natural: push and +2
    assert s.lines[-1] == "You win $2" and r["standing"] == 2
    s, r = bj("KDAC" "5H6S", [])  # an 11 against a dealer natural: only the $2 bet
    assert s.lines[-1] == "You lose $2" and (r["action"], r["standing"]) == (2, -2)
    s, r = bj("TD8C" "TH8S", [""])  # 18 against 18: a push gives the bet back
    p = r["players"][0]
    assert s.lines[-3:] == ["Dealer has 8C = 18", "", "You break even"] and r["standing"] == 0
    assert p["account_after"] == p["account_before"] == 1000
    s, r = bj("7D9C" "8H8S" "TC" "TH", ["y", "", ""])  # split: two 18s against a dealer who busts
    p = r["players"][0]
    assert s.lines[-1] == "You win $4" and (r["action"], r["standing"]) == (6, 4)
    assert p["account_after"] - p["account_before"] == 4 and [h["result"] for h in p["hands"]] == ["win", "win"]


def test_ruling_bj_split_double() -> None:
    """bj_split_double: 'any two tens split once, each split hand taking its second card when its turn comes;
    split aces one card each; a hard 10 or 11 doubles, also on a split hand'."""
    s, r = bj("7D9C" "THKS" "5H" "4D" "6S", ["y", "y", "", ""])  # T-5 hits a 4 (19), then K-6 stands
    p = r["players"][0]
    assert [h["cards"] for h in p["hands"]] == ["T54", "K6"] and r["drawn"].startswith("7D9CTHKS5H4D6S")
    assert "Double down? " not in s.text() and s.text().count("Split pair?") == 1
    s, r = bj("7D9C" "AHAS" "5H" "6S", ["y"])
    p = r["players"][0]
    assert [h["cards"] for h in p["hands"]] == ["A5", "A6"] and "Hit? " not in s.text()
    assert s.after("Split pair? y")[:6] == ["5H", "", "You have 16", "6S", "", "You have 17"]
    s, r = bj("7D9C" "5H5S" "6H" "TC" "4D", ["y", "y", ""])  # 5-6: double; 5-4: no double on 9
    hands = r["players"][0]["hands"]
    assert hands[0]["doubled"] and hands[0]["cards"] == "56T" and not hands[1]["doubled"]
    assert s.after("Split pair? y")[:7] == ["6H", "", "Double down? y", "TC", "You have 21", "4D", ""]
    assert r["action"] == 8 and hands[0]["bet"] == 2 and r["standing"] == 4 + 2  # the dealer busts: $4 and $2
    assert double_problem(PRESETS["unix-bj"], 2, "", 100, 2, 10, True) is not None  # a soft 10 (A-9 is 20)


def test_ruling_bj_dealer() -> None:
    """bj_dealer: 'the dealer stands on soft 17, draws only when a hand stands; Dealer has, his hole card and
    his draws; nothing about him after a bust, on the player's natural or on two naturals'."""
    s, r = bj("AC6D" "TH9S", ["", ""])  # the dealer's A-6 is a soft 17: he stands
    assert "Dealer has 6D = 17" in s.lines and r["dealer"] == "A6"
    s, r = bj("5C6D" "TH9S" "2H" "4S", [""])
    assert "Dealer has 6D+2H+4S = 17" in s.lines and r["dealer"] == "5624"
    s, r = bj("5C6D" "TH5S" "9H", ["y"])  # the player busts: nothing about the dealer
    assert s.lines[-4:] == ["9H", "", "You bust", "", "You lose $2"][1:] and r["dealer"] == "56"
    assert not any(line.startswith("Dealer") for line in s.lines)
    for deck in ("5C6D" "AHKS", "ADKC" "AHKS"):  # the player's natural; both naturals
        s, r = bj(deck, [""])
        assert not any(line.startswith("Dealer") for line in s.lines) and len(r["dealer"]) == 2
    s, r = bj("5C6D" "8H8S" "TC" "9D" "TH" "5S", ["y", "y", "y"])  # both split hands bust
    assert not any(line.startswith("Dealer") for line in s.lines) and r["dealer"] == "56"
    s, r = bj("5C6D" "8H8S" "TC" "9D" "TH" "5S", ["y", "y", "", "9H"])  # the right one stands: he draws
    assert "Dealer has 6D+5S+9C = bust" in s.lines and r["standing"] == -2 + 2


def test_ruling_bj_interrupt() -> None:
    """bj_interrupt: 'Ctrl-C prints a new line, the action and the standing, a new line; the action of the hands
    before, the standing with what the hand cut short settled; the end of input a new line'."""
    s = Session(["9D8H" "TH9S" "AD7C" "9H7S" + FILL], ["", "y"])  # won $2; then insured at an ace, cut at Hit?
    result = s.game.play(None)
    assert result.reason == "interrupted" and result.hands == 1 and (result.action, result.standing) == (2, 1)
    assert s.lines[-6:] == ["Insurance? y", "Hit? ", "", "Action $2", "You win $1", ""]
    end = (s.log.records or [])[-1]
    assert end == {"type": "end", "reason": "interrupted", "rounds": 1, "action": 2, "standing": 1,
                   "cut": {"round": 2, "settled": -1}}
    s = Session(["5C6D" "8H8S" "TC" "9D" "TH" + FILL], ["y", "y"])  # the left split hand busts, then Ctrl-C
    result = s.game.play(None)
    assert (result.hands, result.action, result.standing) == (0, 0, -2) and s.lines[-3:] == ["Hit? ", "", ""]

    class EndOfInput(PersonAnswers):
        def answer(self, game: BjGame, question: str, letter: str) -> bool:
            raise EOFError

    lines: list[str] = []
    game = BjGame(EndOfInput(), StackedDeck(["7D7C5H6S" + FILL]), say=lines.append)
    assert game.play(None).reason == "end of input" and game.action == 0 and lines[-2:] == ["", ""]


def test_ruling_bj_strategy_answers() -> None:
    """bj_strategy_answers: 'i p d h are yes to their questions, s no, each echoed; a decision bj cannot take is a
    foul; a course function set is never asked to split'."""
    s, r = bj("7D9C" "5H6S" "TH", strategy=Scripted("d"))
    assert s.lines[6:9] == ["Double down? y", "TH", "You have 21"] and r["standing"] == 4
    s, r = bj("7D9C" "AH7S", strategy=Scripted("d"))  # a soft 18 cannot double down
    assert r["players"][0]["foul"] == Foul.ILLEGAL_ACTION and r["standing"] == -2
    assert any("gave an illegal answer" in line for line in s.lines) and s.lines[-1] == "You lose $2"
    s, r = bj("ADKC" "9H7S", strategy=Scripted("i"))
    assert s.lines[6] == "Insurance? y" and r["standing"] == 0

    class CourseSet(Scripted):
        course_interface = True

    s, r = bj("7D9C" "8H8S" "TH", strategy=CourseSet("hs"))
    assert "Split pair?" not in s.text() and s.lines[6:9] == ["Hit? y", "TH", ""]


def test_ruling_bj_broke() -> None:
    """bj_broke: 'a session ends before a hand when the player's money is below $9 (4.5 bets)'."""
    for money, hands, reason in ((9, 1, "rounds"), (8, 0, "broke")):
        s = Session(["7D9C" "TH9S" + FILL], strategy=Scripted("s"), rules=get_rules(f"unix-bj,start_money={money}"))
        result = s.game.play(1)
        assert (result.hands, result.reason) == (hands, reason)


def test_ruling_unix_bj_engine() -> None:
    """unix_bj_engine: '--rules unix-bj: 15 cards, no shoe limit, $2, insurance 2:1, 3:2, double hard 10-11 also
    after a split, one split, aces one card'."""
    u = PRESETS["unix-bj"]
    assert (u.decks, u.reshuffle_threshold(1), u.max_shoes, u.min_bet, u.max_bet, u.blackjack_pays, u.double_on,
            u.double_after_split, u.split_hands, u.split_aces_one_card, u.surrender, u.dealer_peeks) == (
        1, 15, None, 2, 2, 1.5, "10-11", True, 2, True, False, True)
    assert double_problem(u, 2, "p", 100, 2, 11, False) is None  # a split hand's 11 doubles
    assert get_rules("course,reshuffle_at=15").reshuffle_threshold(6) == 15
    with pytest.raises(RulesError, match="a number of cards 1 .. 1000000"):
        get_rules("course,reshuffle_at=0")
    from twentyone.match import play_match

    log = RoundLog(keep=True)
    play_match([Seating("p", "s", Scripted("s", bet=2))], 1, 4, u, log=log)
    recs = log.records or []
    shoe_first = {r["shoe"]: r["first_card"] for r in reversed(recs) if r["type"] == "round"}
    last = {}
    for r in recs:
        if r["type"] == "round":
            last[r["shoe"]] = r["first_card"] + len(r["players"][0]["cards"]) + len(r["dealer"])
    assert all(52 - last[k] < 15 for k in last if k + 1 in shoe_first)  # each shoe was played down below 15
    assert all(52 - r["first_card"] >= 15 for r in recs if r["type"] == "round")


# -- the Lianzhong table ---------------------------------------------------------------------------------------
def test_ruling_lianzhong_dealer_seat() -> None:
    """lianzhong_dealer_seat: 'first dealer at random from the seed; then the next seat clockwise still in the
    game; dealing from the seat after the dealer'."""
    assert next_dealer([1, 2, 3, 4], 4, 4) == 1 and next_dealer([1, 3, 4], 1, 4) == 3
    assert dealing_order([1, 2, 3, 4, 5], 3, 5) == [4, 5, 1, 2] and dealing_order([1, 2, 4], 4, 4) == [1, 2]
    recs = lz("T9" "T8" "T7" "T6", [Scripted() for _ in range(3)], dealer=3, rounds=4,
              more=["T9T8T7T6"] * 3)
    assert [r["dealer_seat"] for r in rounds(recs)] == [3, 1, 2, 3]
    assert [[p["seat"] for p in r["players"]] for r in rounds(recs)][:2] == [[1, 2], [2, 3]]
    log = RoundLog(keep=True)
    play_lianzhong([Seating(f"p{i}", "s", Scripted()) for i in range(4)], 77, 1, log=log)
    assert (log.records or [])[0]["first_dealer"] == 1 + Generator(77).below(4)


def test_ruling_lianzhong_shuffle() -> None:
    """lianzhong_shuffle: 'a new shuffled deck for every round'."""
    log = RoundLog(keep=True)
    play_lianzhong([Seating(f"p{i}", "s", Scripted()) for i in range(3)], 5, 6, log=log)
    recs = log.records or []
    shuffles = [r for r in recs if r["type"] == "shuffle"]
    assert len(shuffles) == 6 and all(r["first_card"] == 0 for r in rounds(recs))
    assert [r["shoe"] for r in rounds(recs)] == [s["shoe"] for s in shuffles] == [1, 2, 3, 4, 5, 6]


def test_ruling_lianzhong_settlement() -> None:
    """lianzhong_settlement: 'a bust loses even if the dealer busts; Black Jack 1:1 and above 21; ties push; the
    dealer's Black Jack takes every stake but a Black Jack's; the dealer pays minus the players' sum'."""
    # dealer seat 1 (T6, then T: bust); seat 2 AK (Black Jack), seat 3 T9 stands, seat 4 T5 hits a T (bust).
    (r,) = rounds(lz("AK" "T9" "T5" "T6" "T" "T", [Dealer(), Scripted(), Scripted("s"), Scripted("h")]))
    assert money(r) == {2: 10, 3: 10, 4: -10, 1: -10}
    # the dealer's A-K: seat 2's A-Q pushes, seat 3's doubled 11 loses 20 (no peek).
    (r,) = rounds(lz("AQ" "65" "AK" "9", [Dealer(), Scripted(), Scripted("d")]))
    assert r["dealer_bj"] and money(r) == {2: 0, 3: -20, 1: 20}
    # seat 2's Black Jack beats the dealer's three-card 21; seat 3's three-card 21 pushes it; seat 4's 19 loses.
    (r,) = rounds(lz("AJ" "T5" "T9" "T4" "6" "7", [Dealer(), Scripted(), Scripted("h"), Scripted("s")]))
    assert r["dealer"] == "T47" and money(r) == {2: 10, 3: 0, 4: -10, 1: 0}


def test_ruling_lianzhong_actions() -> None:
    """lianzhong_actions: 'one split, each hand plays on (aces too); double only on the first two cards; no
    insurance, no surrender'."""
    # seat 2 splits A-A: A-5 hits a 2 (18), A-9 stands (20), against the dealer's T-8.
    (r,) = rounds(lz("AA" "T8" "5" "9" "2", [Dealer(), Scripted("phss")]))
    p = r["players"][0]
    assert [h["cards"] for h in p["hands"]] == ["A52", "A9"] and money(r) == {2: 10, 1: -10}
    (r,) = rounds(lz("88" "T8" "3" "2", [Dealer(), Scripted("pd")]))  # no double after a split
    assert r["players"][0]["foul"] == Foul.ILLEGAL_ACTION
    (r,) = rounds(lz("73" "T8" "2", [Dealer(), Scripted("hd")]))  # no double after a hit
    assert r["players"][0]["foul"] == Foul.ILLEGAL_ACTION
    recs = lz("T6" "T5" "A8", [Dealer(), Scripted("u"), Scripted("i")])
    assert [p["foul"] for p in rounds(recs)[0]["players"]] == [Foul.ILLEGAL_ACTION, Foul.ILLEGAL_INSURANCE]


def test_ruling_lianzhong_dealer_choice() -> None:
    """lianzhong_dealer_choice: 'hit below 17; choose on a soft 17 and on a two-card soft 18-20; a hit over 17
    stands; with no hand to play against only the hole card is turned'."""
    assert [dealer_may_choose(t, True, 2) for t in (16, 17, 18, 20, 21)] == [False, True, True, True, False]
    assert [dealer_may_choose(t, True, 3) for t in (17, 18)] == [True, False]
    assert not dealer_may_choose(17, False, 2)
    d = Dealer("h")
    (r,) = rounds(lz("T8" "A6" "A" "9", [d, Scripted()]))  # hits; A-6-A is a soft 18 of three cards: stands
    assert d.asked == ["A6"] and r["dealer"] == "A6A" and r["dealer_actions"] == "h" and money(r) == {2: 0, 1: 0}
    d = Dealer("s")
    (r,) = rounds(lz("T9" "A8", [d, Scripted()]))  # a two-card soft 19: he may stand
    assert d.asked == ["A8"] and money(r) == {2: 0, 1: 0}
    d = Dealer("h")
    (r,) = rounds(lz("T6" "25" "T", [d, Scripted("h")]))  # everyone bust: the dealer only turns his card
    assert r["dealer"] == "25" and d.asked == []


def test_ruling_lianzhong_dealer_foul() -> None:
    """lianzhong_dealer_foul: 'a dealer decision other than h or s: his hand counts as bust; one that raises is a
    fault: played automatically, the seat leaves'."""
    (r,) = rounds(lz("T9" "T5" "A6" "T", [Dealer("x"), Scripted("s"), Scripted("h")]))
    assert r["dealer_foul"] and money(r) == {2: 10, 3: -10, 1: 0}

    class Broken(Dealer):
        def dealer_action(self, view: SeatView) -> str:
            raise ValueError("no idea")

    recs = lz("T9" "T8" "A6", [Broken(), Scripted(), Scripted()], rounds=2, more=["T9A6"])
    r1, r2 = rounds(recs)
    assert r1["faults"][0]["seat"] == 1 and r1["dealer"] == "A6" and money(r1) == {2: 10, 3: 10, 1: -20}
    assert r2["dealer_seat"] == 2 and [p["seat"] for p in r2["players"]] == [3]


def test_ruling_lianzhong_trusteeship() -> None:
    """lianzhong_trusteeship: 'a person out of time: the minimum bet, a player hits at 11 or less, the dealer
    below 17; a course function set deals automatically'."""

    class Silent(Strategy):
        def bet(self, view: SeatView) -> int:
            raise NoAnswer

        def first_action(self, view: SeatView) -> str:
            raise NoAnswer

        def continue_action(self, view: SeatView) -> str:
            raise NoAnswer

        def dealer_action(self, view: SeatView) -> str:
            raise NoAnswer

    told: list[tuple[int, str]] = []
    (r,) = rounds(lz("56" "T8" "5" "4", [Dealer(), Trustee(Silent(), lambda s, w: told.append((s, w)))]))
    p = r["players"][0]
    assert (p["bet"], p["actions"], p["cards"]) == (10, "hs", "565") and told == [(2, "bet"), (2, "h"), (2, "s")]
    told.clear()
    (r,) = rounds(lz("T9" "A6", [Trustee(Silent(), lambda s, w: told.append((s, w))), Scripted()]))
    assert r["dealer"] == "A6" and told == [(1, "dealer s")]

    class CourseSet(Dealer):
        course_interface = True

    d = CourseSet("h")
    (r,) = rounds(lz("T9" "A6", [d, Scripted()]))
    assert d.asked == [] and r["dealer_auto"] and r["dealer_actions"] == "s"
    read, write = os.pipe()
    with os.fdopen(read, "r") as stream, open(os.devnull, "w") as out:
        ask = TimedInput(0.05, stream, out)
        with pytest.raises(NoAnswer):
            ask("? ")
        os.write(write, b"s\nh\n")
        assert (ask("? "), ask("? ")) == ("s", "h")
        os.close(write)
        with pytest.raises(EOFError):
            ask("? ")


def test_ruling_lianzhong_money() -> None:
    """lianzhong_money: 'below the minimum at a round's start: out for good, skipped as dealer; the dealer covers
    every bet, even below zero'."""
    rules = PRESETS["lianzhong"].with_assignments(["start_money=15"])
    recs = lz("T9" "T8" "T6" "T", [Dealer(), Scripted(), Scripted()], rounds=2, rules=rules, more=["T9T8"])
    r1, r2 = rounds(recs)
    assert r1["dealer_after"] == 15 - 20 and money(r1) == {2: 10, 3: 10, 1: -20}
    assert r2["dealer_seat"] == 2 and [p["seat"] for p in r2["players"]] == [3]
    assert (recs[-1]["reason"], {e["seat"]: e["score"] for e in recs[-1]["ranking"]}[1]) == ("rounds", -20)
    assert [(e["rank"], e["seat"]) for e in recs[-1]["ranking"]] == [(1, 3), (2, 2), (3, 1)]
    tied = LianzhongResult(0, 1, "rounds", 1000, {1: 1010, 2: 990, 3: 1010, 4: 980, 5: 990}, {}, {})
    assert tied.ranking() == [(1, 1), (1, 3), (3, 2), (3, 5), (5, 4)]  # equal money shares a rank
    assert LianzhongResult(0, 1, "rounds", 1000, {1: 1000, 2: 1000}, {}, {}).ranking() == [(1, 1), (1, 2)]


def test_lianzhong_dealers_money_stays_within_an_int() -> None:
    """lianzhong_money and account_limit: 'like every account, the dealer's stays within a C int' -- three players
    who each win or lose 2,147,483,647 take the dealer past neither end (its Player record is packed as an int for
    every function set's show)."""
    from twentyone.games.lianzhong import settle_dealer
    from twentyone.players.builtin.course import Stand
    from twentyone.rules import INT_MAX
    from twentyone.seat import Seat

    def seats(change: int) -> list[Seat]:
        out = []
        for k in range(2, 5):
            s = Seat(k, f"p{k}", "stand", Stand(), INT_MAX)
            s.account_before, s.account = (0, INT_MAX) if change > 0 else (INT_MAX, 0)
            out.append(s)
        return out

    dealer = Seat(1, "d", "stand", Stand(), INT_MAX)
    settle_dealer(dealer, seats(+1))
    assert dealer.account == -INT_MAX - 1 == -2**31
    settle_dealer(dealer, seats(-1))
    assert dealer.account == INT_MAX
    dealer.account = 1000
    settle_dealer(dealer, seats(+1)[:1])
    assert dealer.account == 1000 - INT_MAX  # within the range: settled as before
    dealer.packed()  # a C int: packs


# -- the Monte Carlo report ----------------------------------------------------------------------------------
def test_ruling_montecarlo_deal() -> None:
    """montecarlo_deal: 'one card at a time, me first; I finish my hand before the dealer draws'."""
    log = RoundLog(keep=True)
    play_report(Seating("me", "mimic", Mimic()), 0, games=1, log=log,
                generator=StackedGenerator(["5T2673" "5" + "9" * 97]))
    (r,) = rounds(log.records or [])
    assert (r["players"][0]["cards"], r["dealer"], r["score"]) == ("5273", "T65", -2)


def test_ruling_montecarlo_player() -> None:
    """montecarlo_player: 'the report's player draws below 17 as the dealer does; only hit and stand'."""
    assert mc("A" "T" "6" "7").player == "A6"  # a soft 17 stands
    assert mc("9" "T" "6" "7" "2").player == "962"
    g = mc("5" "T" "6" "7", Scripted("d"))
    assert g.foul == Foul.ILLEGAL_ACTION and g.score == -2


def test_ruling_montecarlo_bust_hides() -> None:
    """montecarlo_bust_hides: 'a bust scores -2 at once; the dealer neither draws nor shows his cards'."""
    g = mc("T" "5" "6" "6" "T" "2")
    assert (g.player, g.dealer, g.dealer_shown, g.score) == ("T6T", "56", False, -2)
    with using("zh"):
        line = _game_line(g, translated(MC_TEXT))
    assert line == "第 1 局：我 10+6+10=26（爆牌），庄家 5+?（不亮牌），得分 -2"


def test_ruling_montecarlo_natural() -> None:
    """montecarlo_natural: 'a natural is my own first two cards; +3 whenever it wins, a dealer's bust included'."""
    g = mc("A" "T" "K" "6" "T")  # my A-K against T-6-T (26)
    assert (g.player, g.dealer, g.natural, g.score) == ("AK", "T6T", True, 3)
    assert mc("A" "T" "K" "T").score == 3  # against a 20
    assert report_score("A55", "T7", natural=False) == 2  # a three-card 21 is no natural


def test_ruling_montecarlo_ties() -> None:
    """montecarlo_ties: 'equal totals tie, a 21 against a 21 whatever the cards; lower loses'."""
    assert mc("A" "7" "K" "7" "7").score == 0  # my natural against the dealer's 7-7-7
    assert mc("7" "A" "7" "K" "7").score == 0  # my 7-7-7 against the dealer's natural
    assert [report_score("T8", d, False) for d in ("T8", "T9", "T7", "T6T")] == [0, -2, 2, 2]
    # the score is money on a stake of 2: a tie gives the stake back, a win pays 2, a natural 3, a loss takes 2
    for cards, score in (("T" "8" "8" "T", 0), ("T" "8" "9" "T", 2), ("A" "8" "K" "T", 3), ("7" "8" "T" "T", -2)):
        log = RoundLog(keep=True)
        (g,) = play_report(Seating("me", "mimic", Mimic()), 0, games=1, log=log,
                           generator=StackedGenerator([cards + "T" * 100]))
        (p,) = rounds(log.records or [])[0]["players"]
        assert (g.score, p["bet"], p["account_after"] - p["account_before"]) == (score, 2, score), cards


def test_ruling_montecarlo_exact() -> None:
    """montecarlo_exact: 'the mean per game +/- 1.96 standard errors; the exact value, -0.1171 per game, is the
    analyser's mimic EV corrected for the 21s, times 2' (RULES.md prints the value the code computes)."""
    from twentyone.analysis.report_value import report_value

    s = summarise([2, -2, 0, 3], [2, 1])
    assert s.mean == 0.75 and s.se == pytest.approx((sum((x - 0.75) ** 2 for x in (2, -2, 0, 3)) / 3 / 4) ** 0.5)
    assert (s.low, s.high) == pytest.approx((0.75 - 1.959964 * s.se, 0.75 + 1.959964 * s.se))
    v = report_value()
    rules_text = (Path(__file__).resolve().parent.parent / "twentyone" / "RULES.md").read_text(encoding="utf-8")
    m = re.search(r"\*\*montecarlo_exact\*\*.*?(-0\.\d{4}) per game \((-\d\.\d{4})% of the bet; the analyser's own "
                  r"value is (-\d\.\d{4})%\)", rules_text, re.S)
    assert m is not None
    assert (f"{v.score:.4f}", f"{100 * v.ev:.4f}", f"{100 * v.analyser_ev:.4f}") == m.groups()
    assert v.cases.natural_against_21 == v.cases.twenty_one_against_natural > 0  # the same rule on both sides
