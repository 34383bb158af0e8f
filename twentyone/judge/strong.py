"""The project's strong solution of the judge problem: the exact analyser's decisions off the composition it
has seen, and bets toward the target.

It sees every card dealt (its own, the dealer's up card, and the dealer's whole hand, which ``stand`` and
``stand_2`` return), so it knows the composition of the unseen cards exactly.  It plays each hand by the
exact analyser (``twentyone.analysis.decision_evs``) off that composition, under the judge's rules as
RULES.md reads them (the dealer checks for a Black Jack only under an A: against a ten the values are the
analyser's no-peek ones, every stake lost to his Black Jack; a split hand of an A and a ten is a Black Jack,
which the analyser does not count, so the split value of a pair of A or of tens gets that difference
added).  It insures (the whole B/2) only when the hole card is more likely a ten than not: insurance
returns 2C in all, so it pays only then.

Its bets go toward the target.  By default they are ``judge.betting``'s table: at each level of money the bet
that maximises the chance to end above 1.3x10^6, solved by dynamic programming over the odds of a hand's
results (it bets 150,000 from 10^6, less than the 300,001 a single win needs, so that a Black Jack's 3:2 and a
won double reach the target too).  With ``bets="bold"`` it bets what the target needs (or all the money):
bold play.  A double is not made when a single win already reaches the target: it would only risk more.

With ``wait`` it first bets 2 a hand (the smallest bet a Black Jack pays 3:2 on) through the
5000 decks, playing the full shoe's exact decisions, and bets toward the target only once fewer than
``wait_cards`` cards are left and the round's EV off the composition seen (a linear model fitted to the exact
analyser's EVs, ``ev_model``, within 0.5 percentage points of the exact EV down to 100 cards) is ``z``
standard deviations above the full shoe's, or in any case once fewer than ``must_cards`` are left.  Without
``wait`` it bets toward the target from the first hand.  JUDGE.md gives the measured win rates.

Use it in process: ``Strong().play(api)`` with ``api`` a ``Game`` or the ``judge.blackjack`` module (the
command line's built-ins ``strong``: the table, from the first hand; ``strong-wait``: ``wait=True, bets="bold"``,
bold bets only at the end of the shoe when its EV is high; ``strong-bold``: ``bets="bold"``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, Final, Protocol

from twentyone.errors import TwentyOneError
from twentyone.judge.game import TARGET
from twentyone.judge.hands import best_total

__all__ = ["Api", "Strong", "ev_model", "judge_rules", "WAIT_BET"]

#: Card code (1..13) -> the analyser's rank index (0 = A .. 9 = ten-valued).
_RANK: Final = (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9)
_LETTER: Final = "A23456789T"
_FULL: Final = (20000,) * 9 + (80000,)
_Q0: Final = tuple(c / 260000 for c in _FULL)
#: The bet of a waiting hand: the smallest whose Black Jack is paid the whole 3:2 (5B/2 is rounded down).
WAIT_BET: Final = 2


class Api(Protocol):
    """The statement's calls, as ``Game`` and the ``judge.blackjack`` module provide them."""

    def bet_you_have(self) -> int: ...
    def init_game(self, bet: int) -> list[int]: ...
    def buy_insurance(self, insurance_bet: int) -> int: ...
    def double_down(self) -> int: ...
    def split(self) -> list[int]: ...
    def hit_1(self) -> int: ...
    def stand_1(self) -> None: ...
    def hit_2(self) -> int: ...
    def stand_2(self) -> list[int]: ...
    def hit(self) -> int: ...
    def stand(self) -> list[int]: ...


@functools.cache
def judge_rules(ten_up: bool) -> Any:
    """The analyser's options for the judge: the ``judge`` preset (a peek), or without a peek under a ten."""
    from twentyone.analysis import AnalysisRules
    from twentyone.rules import PRESETS

    return AnalysisRules.of(PRESETS["judge"], decks=8, dealer_peeks=not ten_up)


def _round_ev(counts: Sequence[int]) -> float:
    """The exact EV of a round (optimal play) off ``counts``, the dealer peeking under an A only."""
    from twentyone.analysis import Shoe, house_edge

    shoe = Shoe(tuple(counts))
    peek = house_edge(judge_rules(False), shoe)
    ten = house_edge(judge_rules(True), shoe)
    n = sum(counts)
    ev = 0.0
    for i, letter in enumerate(_LETTER):
        if counts[i]:
            ev += counts[i] / n * (ten.by_up[letter] if letter == "T" else peek.by_up[letter])
    return ev


@functools.cache
def ev_model() -> tuple[float, tuple[float, ...]]:
    """A round's EV as a linear function of the unseen cards' proportions: (EV of the full shoe, d) with
    EV(q) ~ EV0 + sum_r d[r] (q[r] - q0[r]), each d[r] fitted by the exact analyser off a 5000-deck shoe
    moved 2% toward rank r (about 4 s, once per process)."""
    base = _round_ev(_FULL)
    n = sum(_FULL)
    eps = 0.02
    d = []
    for r in range(10):
        moved = [round((1 - eps) * c) for c in _FULL]
        moved[r] += n - sum(moved)
        d.append((_round_ev(moved) - base) / eps)
    return base, tuple(d)


#: The full shoe's decisions, shared by every game of the process: (hand, up card, options) -> decision; and
#: for a bet of 1 by the first two cards' points and the up card, then by a hand's hard total, whether it holds
#: an A, and the up card (off 5000 decks a hand's composition moves an EV by about 10^-5: none of these).
_FULL_DECISIONS: dict[tuple[str, str, int], str] = {}
_SMALL_FIRST: dict[tuple[int, int, int, int], str] = {}
_SMALL_LATER: dict[tuple[int, bool, int], str] = {}


class Strong:
    """The strong solution; ``play(api)`` plays one hand, as the statement's ``play()``."""

    def __init__(self, wait: bool = False, bets: str = "table", wait_cards: int = 3000, must_cards: int = 120,
                 z: float = 0.5) -> None:
        if bets not in ("table", "bold"):
            raise ValueError(f"bets: 'table' or 'bold', not {bets!r}")
        self.wait = wait
        self.bets = bets
        self.wait_cards = wait_cards
        self.must_cards = must_cards
        self.z = z
        #: Unseen cards by rank index.
        self.left = list(_FULL)
        self.unseen = sum(_FULL)
        self.bold_hands = 0

    # -- what it has seen --------------------------------------------------------------------------------------
    def _see(self, cards: Sequence[int]) -> None:
        left = self.left
        for c in cards:
            left[_RANK[c]] -= 1
        self.unseen -= len(cards)

    def _estimated_ev(self) -> float:
        base, d = ev_model()
        n = self.unseen
        if n <= 0:
            return base
        ev = base + 0.5 / n  # the exact EV off a small shoe is higher by about this (composition-dependent play)
        for r in range(10):
            ev += d[r] * (self.left[r] / n - _FULL[r] / 260000)
        return ev

    def _need(self) -> float:
        """The EV a round must have for a bet toward the target: ``z`` standard deviations above the full shoe's,
        the deviation being that of the model's EV over random compositions of the cards left."""
        base, d = ev_model()
        mean = sum(dr * q for dr, q in zip(d, _Q0))
        sd = math.sqrt(max(sum(dr * dr * q for dr, q in zip(d, _Q0)) - mean * mean, 0.0) / max(self.unseen, 1))
        return base + self.z * sd

    # -- bets --------------------------------------------------------------------------------------------------
    def _toward(self, money: int) -> int:
        """A bet toward the target: the table's (``judge.bets``), or what the target needs (bold play)."""
        if self.bets == "table":
            from twentyone.judge.bets import table_bet

            return table_bet(money)
        return min(money, TARGET + 1 - money)

    def _waiting(self) -> bool:
        """True while it waits for the end of the shoe: more than ``wait_cards`` left, or an EV not worth a bet."""
        if not self.wait or self.unseen <= self.must_cards:
            return False
        return self.unseen > self.wait_cards or self._estimated_ev() <= self._need()

    # -- decisions ---------------------------------------------------------------------------------------------
    def _choose(self, cards: Sequence[int], up: int, options: int, exact: bool) -> str:
        """The best of ``options`` (bits: 1 hit, 2 double, 4 split; stand always) for ``cards`` against ``up``:
        off the composition seen when ``exact``, else off the full shoe (cached)."""
        total = best_total(cards)
        if total >= 21:
            return "stand"
        hand = "".join(sorted(_LETTER[_RANK[c]] for c in cards))
        up_letter = _LETTER[_RANK[up]]
        if not exact:
            key = (hand, up_letter, options)
            got = _FULL_DECISIONS.get(key)
            if got is None:
                got = _FULL_DECISIONS[key] = self._evaluate(hand, up_letter, options, _FULL)
            return got
        # the shoe the hand is dealt from: the unseen cards, this hand's and the up card (the other split hand's
        # cards are seen, and out of it)
        counts = list(self.left)
        for c in (*cards, up):
            counts[_RANK[c]] += 1
        try:
            return self._evaluate(hand, up_letter, options, counts)
        except TwentyOneError:  # the last cards of the shoe: too few for the analyser; the full shoe's decision
            return self._choose(cards, up, options, False)

    def _evaluate(self, hand: str, up: str, options: int, counts: Sequence[int]) -> str:
        from twentyone.analysis import Shoe, decision_evs, dealer_odds

        rules = judge_rules(up == "T")
        shoe = Shoe(tuple(counts))
        d = decision_evs(hand, up, rules, shoe)
        best, value = "stand", d.stand
        if options & 1 and d.hit is not None and d.hit > value:
            best, value = "hit", d.hit
        if options & 2 and len(hand) == 2 and d.double is not None and d.double > value:
            best, value = "double", d.double
        if options & 4 and len(hand) == 2 and d.split is not None:
            split = d.split
            if hand in ("AA", "TT"):
                # each split hand whose second card is the other rank of a Black Jack is one here
                # (1.5 more against his 21, 0.5 more against any other total, a push instead of a loss against
                # his Black Jack when he has not checked for one)
                rest = shoe.without(hand + up)
                p = rest.counts[9 if hand == "AA" else 0] / rest.total
                odds = dealer_odds(up, rules, shoe.without(hand))
                p21 = odds.totals[21]
                pbj = 0.0 if odds.given_no_blackjack else odds.blackjack
                split += 2 * p * (1.5 * p21 + 0.5 * (1 - p21 - pbj) + pbj)
            if split > value:
                best, value = "split", split
        return best

    # -- one hand ----------------------------------------------------------------------------------------------
    def play_fixed(self, api: Api, bet: int, double: bool = True, split: bool = True) -> None:
        """One hand of ``bet`` by the full shoe's decisions, doubling and splitting only as allowed (the waiting
        hands, and ``judge.betting``'s measure of a hand's results)."""
        a, b, up = api.init_game(bet)
        left = self.left
        left[_RANK[a]] -= 1
        left[_RANK[b]] -= 1
        left[_RANK[up]] -= 1
        self.unseen -= 3
        if up == 1 and api.buy_insurance(0) == 1:
            self._see(api.stand()[1:])
            return
        pa, pb = (a if a < 10 else 10), (b if b < 10 else 10)
        options = 1 | (2 if double else 0) | (4 if split and pa == pb else 0)
        key = (pa, pb, up if up < 10 else 10, options) if pa <= pb else (pb, pa, up if up < 10 else 10, options)
        choice = _SMALL_FIRST.get(key)
        if choice is None:
            choice = _SMALL_FIRST[key] = self._choose([a, b], up, options, False)
        if choice == "stand":
            self._see(api.stand()[1:])
            return
        if choice == "double":
            self._see((api.double_down(),))
            self._see(api.stand()[1:])
            return
        if choice == "split":
            c1, c2 = api.split()
            self._see((c1, c2))
            for cards, hit, stand in (([a, c1], api.hit_1, api.stand_1), ([b, c2], api.hit_2, None)):
                while self._small_later(cards, up) == "hit":
                    card = hit()
                    self._see((card,))
                    cards.append(card)
                if stand is not None:
                    stand()
            self._see(api.stand_2()[1:])
            return
        cards = [a, b]
        while choice == "hit":
            card = api.hit()
            left[_RANK[card]] -= 1
            self.unseen -= 1
            cards.append(card)
            choice = self._small_later(cards, up)
        self._see(api.stand()[1:])

    def _small_later(self, cards: list[int], up: int) -> str:
        hard = 0
        ace = False
        for c in cards:
            hard += c if c < 10 else 10
            ace = ace or c == 1
        if hard >= 21 or (ace and hard == 11):
            return "stand"
        key = (hard, ace, up if up < 10 else 10)
        choice = _SMALL_LATER.get(key)
        if choice is None:
            choice = _SMALL_LATER[key] = self._choose(cards, up, 1, False)
        return choice

    def play(self, api: Api) -> None:
        """One hand: bet, insure when it pays, play by the analyser, and note every card seen."""
        money = api.bet_you_have()
        if money > 2 * WAIT_BET and self._waiting():
            self.play_fixed(api, WAIT_BET)
            return
        bet = self._toward(money)
        # a bet toward the target is played off the composition seen; while that is within 1% of the full shoe's
        # (each rank's share), by the full shoe's decisions, cached: they are the same but in near ties
        exact = any(abs(n * 260000 - f * self.unseen) > 0.01 * f * self.unseen for n, f in zip(self.left, _FULL))
        self.bold_hands += 1
        v = api.init_game(bet)
        a, b, up = v[0], v[1], v[2]
        self._see(v)
        left = money - bet
        if up == 1:
            tens = self.left[9]
            c = bet // 2 if 2 * tens > self.unseen and bet // 2 <= left else 0
            left -= c
            if api.buy_insurance(c) == 1:
                self._see(api.stand()[1:])
                return
        # a double that would stake more than the target needs only risks more: a single win already reaches it
        doubles = left >= bet and money + bet <= TARGET
        options = 1 | (2 if doubles else 0) | (4 if left >= bet and min(a, 10) == min(b, 10) else 0)
        cards = [a, b]
        choice = self._choose(cards, up, options, exact)
        if choice == "double":
            self._see([api.double_down()])
            self._see(api.stand()[1:])
            return
        if choice == "split":
            c1, c2 = api.split()
            self._see((c1, c2))
            first, second = [a, c1], [b, c2]
            while self._choose(first, up, 1, exact) == "hit":
                card = api.hit_1()
                self._see((card,))
                first.append(card)
            api.stand_1()
            while self._choose(second, up, 1, exact) == "hit":
                card = api.hit_2()
                self._see((card,))
                second.append(card)
            self._see(api.stand_2()[1:])
            return
        while choice == "hit":
            card = api.hit()
            self._see((card,))
            cards.append(card)
            choice = self._choose(cards, up, 1, exact)
        self._see(api.stand()[1:])
