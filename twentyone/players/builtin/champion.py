"""``champion``: a built-in player that plays to finish first in the match, not to win the most money.

The course ranks by money at the end of the match, so the objective is the probability of ranking
first (ties counting half), not the expected value of a hand.  Everything the player does is derived
from two computations, the hand analysis of ``twentyone.analysis.shoemodel`` and the dynamic program of this
module; no decision or bet is typed in by hand.

**1. Exact hand values for the count (``twentyone.analysis.shoemodel``).**  ``show`` reveals every card, so
the player keeps the Hi-Lo running count of the shoe.  The true count indexes a composition of the
unseen cards (the one it implies on average), and ``ShoeModel`` computes for it, exactly, the
dealer's final totals, the EV of every action for every total, softness and up card, and ``J``, the
joint distribution of two seats' results per unit bet in one round, correlated through the dealer's
hand they both play against.  The count-indexed EV-best charts are the deviations (for example
doubling 10 against a T at +4, hitting 12 against a 4 below 0) and decide insurance.

**2. A dynamic program over (rounds left, money difference) (``value_tables``).**  For two seats the
state is ``n``, the rounds left, and ``D``, own money minus the opponent's, in steps of 5.  With the
opponent betting 10 and this player betting ``10 m``, one round moves ``D`` by ``5 (m hx - hy)``,
where ``hx`` and ``hy`` are the two seats' results per unit bet in half-units (``HALF``: -4 a lost
double, -2 a loss, -1 a surrender, 0 a push, +2 a win, +4 a won double or a Black Jack), drawn from
``J`` at true count 0.  ``V_0(D)`` is 1 ahead, 1/2 level, 0 behind;
``V_n(D) = max_m E[V_{n-1}(D + 5 (m hx - hy))]`` over the bets the money allows (money is taken as
1000 + D; below 10 the player is out of the game and has lost).  ``V_n(D)`` is the probability of
finishing ahead when betting by the program and playing EV-best hands, so ``V_100(0)`` is the
method's own forecast of its 2-seat win rate (``python -m twentyone.grading.evaluate`` prints it).  It takes
about 0.1 s of numpy per opponent model, made lazily once per process.  Behind near the end the best
bet is the one that overtakes; ahead it is the minimum; far from the end it grows with the deficit.

**How it plays.**  Bet: with ``n`` rounds left, the bet maximising ``E[V_{n-1}]`` one round ahead with
``J`` at the current true count (so the count sizes the bet where the match state allows), the
smallest of equal ones; on the last round ``V_0`` compares the money exactly.  Those one-round
maximisations are cached per (opponent model, its bet, true count, ``n``) for every ``D`` at once
(``bet_row``); an unusual state (odd money, a rival bet the tables were not made for, a bet that
could put the player out) is solved on the spot.  Hand decisions: the count-indexed EV-best legal
action, unless ``V_{n-1}`` is not close to linear over the stakes of the hand (a second difference
over one or two own stakes, over two of the rival's, or the cross difference of the two, above
``Champion.critical``); then every legal action is scored by ``E[V_{n-1}]`` over the dealer's final
total, this hand's final total under the action (EV-best play after a hit), and the opponent's result
(exact if it has already played its hand, else its two cards played by its model).  So ahead it avoids
doubles that risk the lead and may surrender to keep it; behind it doubles and hits for the variance
it needs.

**Opponents.**  The opponent's play is modelled by the policy among ``OPPONENT_MODELS`` (the EV-best
chart, always stand, hit below 17) that disagrees least with its decisions seen so far (every hand is
shown); each model has its own ``J``.  An opponent that bets more than the minimum gets tables of its
own: the program is solved with the opponent betting its mean bet so far (rounded to one of
``TABLE_BETS``), and this round's bet is its actual bet when it bet first, else its mean bet at this
true count so far.

**More seats (3 to 5).**  A documented approximation: the rival is the richest other seat, ``D`` is
own money minus the rival's, and the 2-seat tables are used.  Rounds left are the smaller of the round
limit and an estimate from the shoes left (the 5-shoe limit ends 5-seat matches first): cards left in
this shoe above the reshuffle mark and in the shoes to come, divided by the cards per round seen.

Limits: the infinite-shoe draw ignores the removal of the cards of the hand itself (a few hundredths
of a percent of EV); the money limit in the tables assumes the opponent holds about 1000.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from twentyone.cards import VALUE
from twentyone.records import Player, SeatView
from twentyone.rules import COURSE
from twentyone.analysis.shoemodel import (
    HALF,
    HILO,
    RANK_INDEX,
    Policy,
    State,
    by_dealer,
    ev_policy,
    final_class,
    shoe_model,
)
from twentyone.strategy import Strategy

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]

__all__ = ["Champion", "value_tables", "bet_row", "warm_up", "joint_table", "tables_for", "OPPONENT_MODELS",
           "evaluate", "main"]


# -- 1. opponent models and one round's joint results ------------------------------------------------
def _stand(st: State, two: bool, u: int) -> str:
    return "S"


def _dealer_like(st: State, two: bool, u: int) -> str:
    return "H" if st[0] < 17 else "S"


#: Opponent models: name -> policy.  ``basic`` is the EV-best chart of a neutral shoe (true count 0).
OPPONENT_MODELS: Final[dict[str, Policy]] = {
    "basic": lambda st, two, u: shoe_model(0).best(st, two, u),
    "stand": _stand,
    "dealer": _dealer_like,
}


@lru_cache(maxsize=None)
def joint_table(bucket: int, opponent: str) -> tuple[tuple[float, ...], ...]:
    """``J`` at true count ``bucket``: this player EV-best for that count, the opponent by its model."""
    m = shoe_model(bucket)
    j = m.joint((f"ev{bucket}", ev_policy(m)), (opponent, OPPONENT_MODELS[opponent]))
    return tuple(tuple(row) for row in j)


# -- 2. the dynamic program -------------------------------------------------------------------------
#: Money difference grid, in steps of 5 (half the minimum bet): -1100 .. +2200.
D_LO: Final = -220
#: The course's match limits, which the program is made for (they are set in the course preset).
_COURSE_ROUNDS: Final = COURSE.rounds_per_seat or 50
_COURSE_SHOES: Final = COURSE.max_shoes or 5
D_HI: Final = 440
#: Bets the tables consider, in units of the minimum bet 10.
BET_UNITS: Final = tuple(list(range(1, 21)) + list(range(25, 101, 5)))
#: The opponent's money the tables assume (the course's start).
O_REF: Final = COURSE.start_money


def value_tables(j: Sequence[Sequence[float]], rounds: int, opponent_bet: int = 1) -> list[FloatArray]:
    """``V[n][D - D_LO]`` for n = 0..rounds: the probability of finishing ahead with ``n`` rounds left.

    ``j`` is the per-round joint result distribution (``ShoeModel.joint``); the opponent bets
    ``opponent_bet`` minimum bets every round.
    """
    import numpy as np

    d = np.arange(D_LO, D_HI + 1)
    v = np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0))
    tables = [v]
    for _ in range(rounds):
        v = _step(v, j, opponent_bet)[0]
        tables.append(v)
    return tables


def _step(v: FloatArray, j: Sequence[Sequence[float]], opponent_bet: int) -> tuple[FloatArray, FloatArray]:
    """One round of the dynamic program: (V_n, the best bet in minimum bets) from V_{n-1}, for every D."""
    import numpy as np

    size = len(v)
    money = O_REF + 5 * np.arange(D_LO, D_LO + size)
    pad = 2 * (2 * BET_UNITS[-1] + 2 * opponent_bet) + 8
    padded = np.concatenate([np.zeros(pad), v, np.ones(pad)])
    # w[i][D] = sum_k J[i][k] V[D - hy_k]: the opponent's part, once per own result i
    w = []
    for i in range(6):
        acc = np.zeros(size + 2 * pad)
        for k, hy in enumerate(HALF):
            if j[i][k]:
                acc += j[i][k] * np.roll(padded, hy * opponent_bet)
        w.append(acc)
    best = np.zeros(size)
    arg = np.ones(size)
    for m in BET_UNITS:
        ok = money >= COURSE.min_bet * m
        if not ok.any():
            break
        ev = np.zeros(size)
        for i, hx in enumerate(HALF):
            s = pad + m * hx
            ev += w[i][s:s + size]
        better = ok & (ev > best + 1e-12)
        best = np.where(better, ev, best)
        arg = np.where(better, m, arg)
    alive = money >= COURSE.min_bet
    return np.where(alive, best, 0.0), arg


class _Tables:
    """The value tables against one opponent model and bet, grown on demand, as arrays and as lists."""

    def __init__(self, opponent: str, opponent_bet: int) -> None:
        self.opponent = opponent
        self.opponent_bet = opponent_bet
        self.arrays: list[FloatArray] = []
        self.lists: list[list[float]] = []

    def upto(self, n: int) -> None:
        """Make sure ``V_n`` is there."""
        if n < len(self.arrays):
            return
        rounds = max(n, 100, 2 * len(self.arrays))
        self.arrays = value_tables(joint_table(0, self.opponent), rounds, self.opponent_bet)
        self.lists = [a.tolist() for a in self.arrays]


#: Opponent bets the tables are made for, in minimum bets (an opponent's mean bet is rounded to one).
TABLE_BETS: Final = (1, 2, 3, 4, 6, 8)


@lru_cache(maxsize=None)
def tables_for(opponent: str, opponent_bet: int = 1) -> _Tables:
    """The (cached) value tables against ``opponent`` betting ``opponent_bet`` minimum bets a round."""
    return _Tables(opponent, opponent_bet)


def warm_up(opponent: str = "basic", buckets: Sequence[int] = range(-6, 7), rounds: int = 100) -> None:
    """Make the tables a match against ``opponent`` needs (about a second), so that timing starts warm."""
    for bucket in buckets:
        joint_table(bucket, opponent)
        for n in range(1, rounds + 1):
            bet_row(opponent, 1, bucket, n)


@lru_cache(maxsize=None)
def bet_row(opponent: str, opponent_bet: int, bucket: int, n: int) -> list[int]:
    """The best bet (in minimum bets) for every D with ``n`` rounds left, this round at true count ``bucket``."""
    t = tables_for(opponent, opponent_bet)
    t.upto(n - 1)
    return [int(m) for m in _step(t.arrays[n - 1], joint_table(bucket, opponent), opponent_bet)[1]]


@lru_cache(maxsize=None)
def _joint_cells(bucket: int, opponent: str) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The nonzero cells of ``joint_table``: (own result, opponent result, probability), per unit bet."""
    import numpy as np

    j = joint_table(bucket, opponent)
    cells = [(HALF[i], HALF[k], j[i][k]) for i in range(6) for k in range(6) if j[i][k] > 0]
    return (np.array([c[0] / 2 for c in cells]), np.array([c[1] / 2 for c in cells]),
            np.array([c[2] for c in cells]))


# -- 3. the player ----------------------------------------------------------------------------------
_BETS: Final = tuple(10 * m for m in BET_UNITS)


@lru_cache(maxsize=1)
def _bets_array() -> FloatArray:
    """The bets of the grid and a slot after them for the all-in bet (copy it before filling the slot)."""
    import numpy as np

    return np.array(_BETS + (0,), dtype=float)


def _state_of(cards: str) -> State:
    hard = 0
    for c in cards:
        hard += VALUE[c]
    if "A" in cards and hard <= 11:
        return hard + 10, True
    return hard, False


def _is_bj(cards: str) -> bool:
    return len(cards) == 2 and _state_of(cards) == (21, True)


def _decisions(cards: str, state: str, up: int) -> list[tuple[State, bool, int, str]]:
    """The decisions a finished hand shows: (state, two cards, up rank, H/S/D/U)."""
    if len(cards) < 2 or state not in ("h", "s", "d", "u"):
        return []
    st = _state_of(cards[:2])
    if state == "d":
        return [(st, True, up, "D")]
    if state == "u":
        return [(st, True, up, "U")]
    out = [(st, True, up, "H" if len(cards) > 2 else "S")]
    for k in range(3, len(cards) + 1):
        st = _state_of(cards[:k])
        if st[0] >= 21:
            break
        out.append((st, False, up, "H" if k < len(cards) else "S"))
    return out


@lru_cache(maxsize=None)
def _predictions(st: State, two: bool, u: int) -> tuple[tuple[str, str], ...]:
    """What each opponent model does with ``st`` against up rank ``u``."""
    return tuple((name, policy(st, two, u)) for name, policy in OPPONENT_MODELS.items())


class Champion(Strategy):
    """Plays to finish first: bets and decisions that maximise the probability of ranking first.

    See the module docstring for the method.  ``critical`` is the departure from linearity of the
    value function, over the stakes of a hand, above which decisions are scored by match value
    rather than by expected money.
    """

    name = "champion"
    critical = 0.002

    def __init__(self) -> None:
        self.new_match(6, 2, 1)

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        self.decks, self.seats, self.seat = decks, seats, seat
        self.shoe = decks * 52
        self.threshold = COURSE.reshuffle_threshold(decks)
        self.max_rounds = _COURSE_ROUNDS * seats
        self.running = 0
        self.last_pos = 0
        self.shoe_no = 1
        self.cards_seen = 0
        self.rounds_seen = 0
        # every other seat's bets: the last one, their sum and by true count
        self.last_bet = [COURSE.min_bet] * seats
        self.bet_sum = [0] * seats
        self.bet_n = [0] * seats
        self.by_count: list[dict[int, list[int]]] = [{} for _ in range(seats)]
        self.round_bucket = 0
        self.misses = [dict.fromkeys(OPPONENT_MODELS, 0) for _ in range(seats)]
        self.models = ["basic"] * seats
        # this round: rounds left, the rival (0-based seat, None alone), own money and the difference
        # at the bet, the rival's stake (known or estimated) and the unit of its bets
        self.left = 1
        self.rival: int | None = None
        self.money0 = 0
        self.d0 = 0
        self.c = COURSE.min_bet
        self.unit = 1

    # -- what the player knows -------------------------------------------------------------------
    def _sync(self, pos: int) -> None:
        """Start a new count when a new shoe began before this round."""
        if pos < self.last_pos:
            self.shoe_no += 1
            self.running = 0
        self.last_pos = pos

    def show(self, view: SeatView) -> None:
        pos = view.pos
        cards = view.round_cards()
        if pos < self.last_pos:  # the shoe ran out during this round: count its new part only
            self.shoe_no += 1
            self.running = 0
            cards = cards[-pos:] if pos else ""
        else:
            self.cards_seen += len(cards)
            self.rounds_seen += 1
        self.last_pos = pos
        for ch in cards:
            self.running += HILO[ch]
        dealer = view.dealer_cards
        if self.seats == 1 or not dealer:
            return
        up = RANK_INDEX[dealer[0]]
        dealer_bj = _is_bj(dealer)
        for i, p in enumerate(view.players()):
            if i == self.seat - 1 or p.count < 2:
                continue
            bet = p.mybets // 2 if p.state == "d" else p.mybets
            self.last_bet[i] = bet
            self.bet_sum[i] += bet
            self.bet_n[i] += 1
            seen = self.by_count[i].setdefault(self.round_bucket, [0, 0])
            seen[0] += bet
            seen[1] += 1
            hand = p.mycards[: p.count]
            if dealer_bj or _is_bj(hand):
                continue
            misses = self.misses[i]
            for st, two, u, action in _decisions(hand, p.state, up):
                for name, want in _predictions(st, two, u):
                    if want != action and not (want == "D" and action == "H"):
                        misses[name] += 1
            self.models[i] = min(OPPONENT_MODELS, key=misses.__getitem__)

    def cards_per_round(self) -> float:
        """Cards dealt per round, as seen in this match (a prior of 2.75 a hand and 2.9 for the dealer)."""
        prior = 2.75 * self.seats + 2.9
        return (self.cards_seen + 4 * prior) / (self.rounds_seen + 4)

    def rounds_left(self, view: SeatView) -> int:
        """Rounds left, this one included: the round limit, or the shoes left if they end the match first."""
        by_rounds = self.max_rounds - view.round + 1
        cpr = self.cards_per_round()
        this = int(max(0, self.shoe - view.pos - self.threshold) / cpr) + 1
        full = int((self.shoe - self.threshold) / cpr) + 1
        by_shoes = this + (_COURSE_SHOES - self.shoe_no) * full
        return max(1, min(by_rounds, by_shoes))

    def true_count(self, view: SeatView, extra: str = "") -> float:
        """The Hi-Lo true count of the cards not seen yet (``extra``: cards on the table now)."""
        running = self.running
        for ch in extra:
            running += HILO[ch]
        left = max(self.shoe - view.pos + (1 if extra else 0), 26)
        return running * 52 / left

    def bucket(self, view: SeatView, extra: str = "") -> int:
        """The true count rounded to the ``ShoeModel`` it indexes (-8 .. 8)."""
        return max(-8, min(8, round(self.true_count(view, extra))))

    # -- bets ----------------------------------------------------------------------------------------
    def bet(self, view: SeatView) -> int:
        self._sync(view.pos)
        self.left = n = self.rounds_left(view)
        players = view.players()
        me = self.seat - 1
        mine = view.account
        self.money0 = mine
        rival, theirs = None, -1
        for i, p in enumerate(players):
            if i != me and p.account + p.mybets > theirs:
                rival, theirs = i, p.account + p.mybets
        self.rival = rival
        if rival is None:
            return COURSE.min_bet
        p = players[rival]
        self.round_bucket = bucket = self.bucket(view)
        if p.mybets:  # it bet before this seat
            c = p.mybets
        elif theirs < COURSE.min_bet:
            c = 0
        else:  # its mean bet at this count, or its last bet
            seen = self.by_count[rival].get(bucket)
            c = round(seen[0] / seen[1]) if seen else self.last_bet[rival]
        self.c = c
        k = self.bet_n[rival]
        mean = self.bet_sum[rival] / k / COURSE.min_bet if k else 1.0
        self.unit = min(TABLE_BETS, key=lambda t: abs(t - mean))
        self.d0 = d = mine - theirs
        return self._best_bet(n, mine, d, c, bucket, self.models[rival])

    def _best_bet(self, n: int, mine: int, d: int, c: int, bucket: int, model: str) -> int:
        """The bet with the highest E[V_{n-1}] after this round (the smallest of equal ones)."""
        unit = self.unit
        if c == unit * COURSE.min_bet and d % 5 == 0 and D_LO <= d // 5 <= D_HI:
            # the tables' own case: the rival bets its usual bet; the row holds the answer unless the
            # money limit (the tables take the rival to hold O_REF) could bind
            b = COURSE.min_bet * bet_row(model, unit, bucket, n)[d // 5 - D_LO]
            if 2 * b + COURSE.min_bet <= min(mine, O_REF + d):
                return b
        import numpy as np

        hx, hy, p = _joint_cells(bucket, model)
        k = bisect_right(_BETS, mine)
        cands = _bets_array()[: k + 1].copy()
        cands[k] = mine  # all in (a bet of the grid again when the money is one)
        change = cands[:, None] * hx
        moved = change - (c * hy - d)
        if n == 1:
            val = (moved > 0) + 0.5 * (moved == 0)
        else:
            tables = tables_for(model, self.unit)
            tables.upto(n - 1)
            v = tables.arrays[n - 1]
            idx = np.rint(moved * (2 / COURSE.min_bet)).astype(np.intp)
            idx -= D_LO
            np.maximum(idx, 0, out=idx)
            np.minimum(idx, len(v) - 1, out=idx)
            val = v[idx]
            if mine - 2 * cands[-1] < COURSE.min_bet:  # a bet this large can put the player out
                val = np.where(mine + change < COURSE.min_bet, 0.0, val)
        ev = val @ p
        return int(cands[int(np.argmax(ev >= ev.max() - 1e-9))])

    # -- decisions -----------------------------------------------------------------------------------
    def first_action(self, view: SeatView) -> str:
        return self._decide(view, True)

    def continue_action(self, view: SeatView) -> str:
        return self._decide(view, False)

    def _value_fn(self, d: int) -> Callable[[float, float], float]:
        """V_{left-1} as a function of (own money change, rival money change) from difference ``d``."""
        n = self.left - 1
        if n == 0:
            def final(mine: float, theirs: float) -> float:
                x = d + mine - theirs
                return 1.0 if x > 0 else 0.5 if x == 0 else 0.0
            return final
        assert self.rival is not None
        tables = tables_for(self.models[self.rival], self.unit)
        tables.upto(n)
        v = tables.lists[n]
        inv = 2 / COURSE.min_bet
        top = len(v) - 1
        floor = COURSE.min_bet - self.money0 - (d - self.d0)

        def value(mine: float, theirs: float) -> float:
            if mine < floor:
                return 0.0
            i = round((d + mine - theirs) * inv) - D_LO
            return v[0 if i < 0 else top if i > top else i]
        return value

    def _decide(self, view: SeatView, first: bool) -> str:
        cards = view.my_cards
        st = _state_of(cards)
        two = len(cards) == 2
        if st[0] >= 21:
            return "s"
        up = view.up_card
        u = RANK_INDEX[up]
        bucket = self.bucket(view, view.round_cards())
        model = shoe_model(bucket)
        legal = "HS" + ("D" if two and view.can_double else "") + ("U" if two and view.can_surrender else "")
        if two:
            row = model.ev2[st][u]
            choice = max(legal, key=row.__getitem__)
        else:
            choice = model.act3[st][u]
        if self.rival is not None:
            # money moved only by insurance since the bet: the difference then, less own insurance
            d = self.d0 + (view.account + view.bet - self.money0)
            value = self._value_fn(d)
            b = view.bet
            c = self.c
            # V over the stakes (own and rival's, up to a double each way): its second differences
            # along each and across both, each zero where V is linear and the EV-best play is best
            mid = value(0.0, 0.0)
            bend = max(abs(value(-b, 0.0) + value(b, 0.0) - 2 * mid),
                       abs(value(-2 * b, 0.0) + value(2 * b, 0.0) - 2 * mid) / 4,
                       abs(value(0.0, -2 * c) + value(0.0, 2 * c) - 2 * mid) / 4,
                       abs(value(2 * b, 2 * c) + value(-2 * b, -2 * c)
                           - value(2 * b, -2 * c) - value(-2 * b, 2 * c)) / 4)
            if bend > self.critical:
                return self._best_for_match(view, first, st, u, bucket, legal, choice, d, value).lower()
        if first and up == "A" and model.insure and view.can_insure:
            return "i"
        return choice.lower()

    def _rival_results(self, view: SeatView, first: bool, p: Player, bucket: int) -> list[list[float]]:
        """P(the rival's result | dealer class), per unit of its stake now, columns ``HALF``."""
        cards = p.mycards[: p.count]
        if len(cards) < 2:
            return _NOTHING
        if _is_bj(cards):
            return _BLACK_JACK
        st = _state_of(cards)
        assert self.rival is not None
        if self.rival < self.seat - 1 and not (first and view.up_card == "A"):  # it has played its hand
            if p.state == "u":
                return _SURRENDERED
            cls = [0.0] * 7
            cls[final_class(st[0])] = 1.0
            return by_dealer(cls, 1)
        return _model_result(bucket, self.models[self.rival], st, RANK_INDEX[view.up_card])

    def _best_for_match(self, view: SeatView, first: bool, st: State, u: int, bucket: int, legal: str,
                        choice: str, d: int, value: Callable[[float, float], float]) -> str:
        """The legal action with the highest probability of finishing ahead (``choice`` on a tie)."""
        assert self.rival is not None
        p = view.players()[self.rival]
        dealer = shoe_model(bucket).dealer[u]
        theirs = self._rival_results(view, first, p, bucket)
        b = view.bet / 2
        c = p.mybets / 2
        best_v, best_a = -1.0, choice
        for a in choice + legal.replace(choice, ""):
            mine = _own_result(bucket, st, u, a)
            total = 0.0
            for k in range(6):
                pd = dealer[k]
                if not pd:
                    continue
                ys = [(HALF[j] * c, py) for j, py in enumerate(theirs[k]) if py]
                acc = 0.0
                for i, px in enumerate(mine[k]):
                    if px:
                        x = HALF[i] * b
                        acc += px * sum(py * value(x, y) for y, py in ys)
                total += pd * acc
            if total > best_v + 1e-12:
                best_v, best_a = total, a
        return best_a


_NOTHING: Final = [[0.0, 0.0, 0.0, 1.0, 0.0, 0.0] for _ in range(6)]
_BLACK_JACK: Final = [[0.0, 0.0, 0.0, 0.0, 0.0, 1.0] for _ in range(6)]
_SURRENDERED: Final = [[0.0, 0.0, 1.0, 0.0, 0.0, 0.0] for _ in range(6)]


@lru_cache(maxsize=None)
def _model_result(bucket: int, name: str, st: State, u: int) -> list[list[float]]:
    """P(result | dealer class) of a two-card hand ``st`` played by opponent model ``name``."""
    policy = OPPONENT_MODELS[name]
    return shoe_model(bucket).result(st, u, policy(st, True, u), name, policy)


@lru_cache(maxsize=None)
def _own_result(bucket: int, st: State, u: int, action: str) -> list[list[float]]:
    """P(result | dealer class) of this player's hand ``st`` after ``action``, EV-best afterwards."""
    m = shoe_model(bucket)
    return m.result(st, u, action, f"ev{bucket}", ev_policy(m))
