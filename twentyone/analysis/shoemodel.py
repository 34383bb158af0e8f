"""Exact values of the course's hands for a shoe composition: the hand analysis behind ``champion``.

Cards are drawn with the probabilities of a composition of the unseen cards (an infinite shoe of that
composition), so every value below is exact for that draw.  ``ShoeModel`` computes the dealer's final
total (17..21 or bust, given the up card and no dealer Black Jack), the expected value of stand,
hit, double and surrender for every total, softness and up card (so the EV-best action), the
distribution of a hand's final total under any policy, and ``ShoeModel.joint``: the joint
distribution of two seats' results in one round, correlated through the dealer's hand they share.

``count_composition`` turns a Hi-Lo true count ``t`` into the composition it implies on average: per
deck left, ``t/2`` more high cards (T, A) and ``t/2`` fewer low ones (2..6).  ``shoe_model(t)`` is
the cached model of that composition, so the charts it gives are count-indexed: the deviations
(10 v T doubles at +4, 12 v 4 hits below 0, ...) and insurance (tens above a third) come out of
the exact values.  Course rules: dealer stands on soft 17 and peeks, Black Jack pays 2:1, late
surrender, double on any two cards, no split.  The draw ignores the removal of the hand's own cards
(a few hundredths of a percent of EV).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final

from twentyone.cards import VALUE

__all__ = ["ShoeModel", "shoe_model", "count_composition", "ev_policy", "by_dealer", "final_class", "Policy",
           "State", "STATES", "HALF", "OUT", "RANK_INDEX", "HILO", "ACE", "TEN"]

# -- cards ------------------------------------------------------------------------------------------
#: Rank indices 0..9 are A, 2, ..., 9, T (J, Q and K count as T).
RANK_INDEX: Final = {c: (0 if c == "A" else 9 if VALUE[c] == 10 else VALUE[c] - 1) for c in VALUE}
_VAL: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
ACE, TEN = 0, 9
HILO: Final = {c: (1 if 2 <= VALUE[c] <= 6 else -1 if VALUE[c] in (1, 10) else 0) for c in VALUE}

#: A hand state: (best total, soft), soft meaning an A counts 11.
State = tuple[int, bool]
#: Final classes of a player hand: 0 is 16 or less, 1..5 are 17..21, 6 is bust.
BUST_CLASS: Final = 6
#: Dealer final classes: 0..4 are 17..21, 5 is bust.
DEALER_BUST: Final = 5
#: Result of one hand per unit bet, in half-units: lost double, loss, surrender, push, win, won double or BJ.
HALF: Final = (-4, -2, -1, 0, 2, 4)
_H: Final = {h: i for i, h in enumerate(HALF)}
#: OUT[player class][dealer class]: +1 win, 0 push, -1 loss.
OUT: Final = tuple(
    tuple((1 if d == DEALER_BUST else -1) if p == 0 else -1 if p == BUST_CLASS else
          (1 if d == DEALER_BUST or p - 1 > d else 0 if p - 1 == d else -1) for d in range(6))
    for p in range(7))


def final_class(total: int) -> int:
    return 0 if total <= 16 else total - 16 if total <= 21 else BUST_CLASS


def _add(state: State, r: int) -> State:
    """The state after drawing rank index ``r`` (a total above 21 is bust)."""
    t, soft = state
    hard = (t - 10 if soft else t) + _VAL[r]
    if (soft or r == ACE) and hard <= 11:
        return hard + 10, True
    return hard, False


def _two(a: int, b: int) -> State:
    return _add(_add((0, False), a), b)


#: Every state a live hand can be in (hard 4..21, soft 12..21).
STATES: Final[tuple[State, ...]] = tuple([(t, False) for t in range(4, 22)] + [(t, True) for t in range(12, 22)])


def count_composition(true_count: float) -> list[float]:
    """Rank probabilities (A, 2..9, T) of a shoe whose Hi-Lo true count is ``true_count``.

    Per deck left the high cards (T, A) are 20 + t/2 and the low ones (2..6) 20 - t/2, spread evenly
    in each group; 7, 8 and 9 keep 4 each.  This is the composition the count implies on average.
    """
    t = max(-15.0, min(15.0, true_count))
    per = [4 + t / 10] + [4 - t / 10] * 5 + [4.0] * 3 + [16 + 0.4 * t]
    return [x / 52 for x in per]


Policy = Callable[[State, bool, int], str]
"""A playing policy: (state, two cards, up rank index) -> ``H``, ``S``, ``D`` or ``U``."""


class ShoeModel:
    """Exact values of the course's hands when cards are drawn with probabilities ``q`` (A, 2..9, T)."""

    def __init__(self, q: Sequence[float]) -> None:
        s = sum(q)
        self.q = [x / s for x in q]
        q = self.q
        #: P(dealer Black Jack | up card), and the dealer's final class distribution given no Black Jack.
        self.pbj = [q[TEN] if u == ACE else q[ACE] if u == TEN else 0.0 for u in range(10)]
        memo: dict[State, list[float]] = {}

        def dealer(st: State) -> list[float]:
            if st in memo:
                return memo[st]
            t = st[0]
            if t >= 17:  # the dealer stands on every 17, soft 17 included
                out = [0.0] * 6
                out[DEALER_BUST if t > 21 else t - 17] = 1.0
            else:
                out = [0.0] * 6
                for r in range(10):
                    sub = dealer(_add(st, r))
                    for d in range(6):
                        out[d] += q[r] * sub[d]
            memo[st] = out
            return out

        self.dealer: list[list[float]] = []
        for u in range(10):
            acc = [0.0] * 6
            for r in range(10):
                if (u == ACE and r == TEN) or (u == TEN and r == ACE):
                    continue
                sub = dealer(_two(u, r))
                for d in range(6):
                    acc[d] += q[r] * sub[d]
            norm = 1.0 - self.pbj[u]
            self.dealer.append([x / norm for x in acc])
        #: EV of standing with final class c against up card u.
        self.stand_ev = [[sum(self.dealer[u][d] * OUT[c][d] for d in range(6)) for u in range(10)]
                         for c in range(7)]
        self.ev3: dict[State, list[float]] = {}
        self.act3: dict[State, str] = {}
        self.act2: dict[State, str] = {}
        self.ev2: dict[State, list[dict[str, float]]] = {}
        self._solve()
        self._fin3: dict[str, dict[State, list[list[float]]]] = {}
        self.insure = 3 * q[TEN] > 1.0

    def _next(self, st: State) -> list[tuple[float, State | None]]:
        """(probability, next state or None for a bust) for each rank."""
        out: list[tuple[float, State | None]] = []
        for r in range(10):
            n = _add(st, r)
            out.append((self.q[r], n if n[0] <= 21 else None))
        return out

    def _solve(self) -> None:
        """EV-best actions: ``act3[state][u]`` (H/S) after hitting, ``act2[state][u]`` (H/S/D/U) on two cards."""
        order = sorted(STATES, key=lambda s: (s[0] - 10 if s[1] else s[0]), reverse=True)
        for st in order:  # every next state has a larger hard sum, so it is done already
            evs, acts = [], ""
            for u in range(10):
                stand = self.stand_ev[final_class(st[0])][u]
                hit = sum(p * (-1.0 if n is None else self.ev3[n][u]) for p, n in self._next(st))
                evs.append(max(stand, hit))
                acts += "H" if hit > stand else "S"
            self.ev3[st], self.act3[st] = evs, acts
        for st in STATES:
            acts, rows = "", []
            for u in range(10):
                row = {
                    "S": self.stand_ev[final_class(st[0])][u],
                    "H": sum(p * (-1.0 if n is None else self.ev3[n][u]) for p, n in self._next(st)),
                    "D": 2 * sum(p * (-1.0 if n is None else self.stand_ev[final_class(n[0])][u])
                                 for p, n in self._next(st)),
                    "U": -0.5,
                }
                rows.append(row)
                acts += max(row, key=lambda a: row[a])
            self.ev2[st], self.act2[st] = rows, acts

    def best(self, st: State, two: bool, u: int) -> str:
        """The EV-best action: H, S, D or U on two cards, H or S after."""
        return (self.act2 if two else self.act3)[st][u]

    def fin3(self, name: str, policy: Policy) -> dict[State, list[list[float]]]:
        """Final class distributions [u][class] of a hand of three cards or more played by ``policy``."""
        if name in self._fin3:
            return self._fin3[name]
        table: dict[State, list[list[float]]] = {}
        order = sorted(STATES, key=lambda s: (s[0] - 10 if s[1] else s[0]), reverse=True)
        for st in order:
            rows = []
            for u in range(10):
                out = [0.0] * 7
                if policy(st, False, u) == "H" and st[0] < 21:
                    for p, n in self._next(st):
                        if n is None:
                            out[BUST_CLASS] += p
                        else:
                            sub = table[n][u]
                            for c in range(7):
                                out[c] += p * sub[c]
                else:
                    out[final_class(st[0])] = 1.0
                rows.append(out)
            table[st] = rows
        self._fin3[name] = table
        return table

    def result(self, st: State, u: int, action: str, name: str, policy: Policy) -> list[list[float]]:
        """P(result | dealer class): rows d = 0..5, columns ``HALF``; the hand plays ``action`` then ``policy``."""
        if action == "U":
            return [[0.0, 0.0, 1.0, 0.0, 0.0, 0.0] for _ in range(6)]
        cls = [0.0] * 7
        mult = 2 if action == "D" else 1
        if action == "S":
            cls[final_class(st[0])] = 1.0
        else:
            fin = self.fin3(name, policy)
            for p, n in self._next(st):
                if n is None:
                    cls[BUST_CLASS] += p
                elif action == "D":
                    cls[final_class(n[0])] += p
                else:
                    sub = fin[n][u]
                    for c in range(7):
                        cls[c] += p * sub[c]
        return by_dealer(cls, mult)

    def hands(self) -> list[tuple[float, State | None]]:
        """The two-card deals: (probability, state), state None for a Black Jack."""
        acc: dict[State | None, float] = {}
        for a in range(10):
            for b in range(10):
                key = None if {a, b} == {ACE, TEN} else _two(a, b)
                acc[key] = acc.get(key, 0.0) + self.q[a] * self.q[b]
        return [(p, st) for st, p in acc.items()]

    def round_results(self, name: str, policy: Policy) -> list[list[list[float]]]:
        """For each up card (no dealer Black Jack): P(result | dealer class) of a seat playing ``policy``."""
        deals = self.hands()
        out = []
        for u in range(10):
            acc = [[0.0] * 6 for _ in range(6)]
            for p, st in deals:
                if st is None:
                    for d in range(6):
                        acc[d][_H[4]] += p
                    continue
                res = self.result(st, u, policy(st, True, u), name, policy)
                for d in range(6):
                    for i in range(6):
                        acc[d][i] += p * res[d][i]
            out.append(acc)
        return out

    def joint(self, ours: tuple[str, Policy], theirs: tuple[str, Policy]) -> list[list[float]]:
        """J[i][j]: P(this seat's result is HALF[i] and the other's HALF[j]) per round, per unit bet."""
        mine, other = self.round_results(*ours), self.round_results(*theirs)
        pbj_hand = 2 * self.q[ACE] * self.q[TEN]
        j = [[0.0] * 6 for _ in range(6)]
        lose, push = _H[-2], _H[0]
        for u in range(10):
            qu, pb = self.q[u], self.pbj[u]
            # dealer Black Jack: a player Black Jack pushes, every other hand loses its bet
            for i, pi in ((push, pbj_hand), (lose, 1 - pbj_hand)):
                for k, pk in ((push, pbj_hand), (lose, 1 - pbj_hand)):
                    j[i][k] += qu * pb * pi * pk
            for d in range(6):
                w = qu * (1 - pb) * self.dealer[u][d]
                a, b = mine[u][d], other[u][d]
                for i in range(6):
                    if a[i]:
                        for k in range(6):
                            j[i][k] += w * a[i] * b[k]
        return j

    def ev(self, name: str, policy: Policy) -> float:
        """Expected result per unit bet of one round played by ``policy``."""
        j = self.joint((name, policy), (name, policy))
        return sum(j[i][k] * HALF[i] / 2 for i in range(6) for k in range(6))


def by_dealer(cls: Sequence[float], mult: int) -> list[list[float]]:
    """Turn a final class distribution with stake multiplier ``mult`` into P(result | dealer class)."""
    rows = []
    win, lose = _H[2 * mult], _H[-2 * mult]
    for d in range(6):
        row = [0.0] * 6
        for c in range(7):
            if cls[c]:
                o = OUT[c][d]
                row[win if o > 0 else lose if o < 0 else _H[0]] += cls[c]
        rows.append(row)
    return rows


@lru_cache(maxsize=None)
def shoe_model(bucket: int) -> ShoeModel:
    """The ``ShoeModel`` of true count ``bucket`` (cached)."""
    return ShoeModel(count_composition(bucket))


def ev_policy(model: ShoeModel) -> Policy:
    def policy(st: State, two: bool, u: int) -> str:
        return model.best(st, two, u)
    return policy
