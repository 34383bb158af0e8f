"""Each round of a round log replayed card by card: every decision with what the seat could see and choose,
and the steps a replay shows.

``replay_round`` plays one round of a ``LoggedMatch`` (``twentyone.review.logs``) again from its record and
the shoe's order, as the table played it (``twentyone.table.Table.play_round``; bj(6)'s own order for
``game: bj``), and returns a ``RoundPlay``: every decision of every seat (``Decision``: the hand, the up card,
the cards the seat could have seen, the legal options, the answer) and the steps a replay shows (``Step``).
The record's cards are checked against the shoe as they are dealt; a round that does not follow is a
``LogError`` naming it.

"Seen" (RULES.md, **review_seen**): every card dealt face up since the shoe was shuffled, up to the
decision: the earlier rounds' cards (each round ends with every hand and the dealer's whole hand shown) and
this round's cards face up at that moment; never the hole card before the dealer shows it.  Once the shoe is
empty in the middle of a round, only the cards of the shoe that refills it count.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import add
from typing import Any, Final

from twentyone.cards import TENS, VALUE, hand_total
from twentyone.i18n import N_, _
from twentyone.legality import (FAULTS, change_problem, double_amount, double_problem, insurance_problem,
                                split_problem, surrender_problem)
from twentyone.review.logs import RANK_INDEX, LogError, LoggedMatch, LoggedRound, course_interface, plain
from twentyone.storedtext import fault_name, retold

__all__ = ["Decision", "Step", "RoundPlay", "replay_round", "rounds_of"]


@dataclass(frozen=True)
class Decision:
    """One decision of a seat in a round, with what it could see and choose (RULES.md, **review_options**)."""

    round: int
    seat: int
    #: Which decision of the seat in this round (0-based; an insurance decision counts).
    index: int
    #: ``insurance`` (take it or not) or ``play`` (a decision about the hand).
    kind: str
    #: The split hand decided for (0 when the seat did not split).
    hand: int
    split: bool
    #: The hand's cards as dealt (``J6``, ``A55``).
    cards: str
    up: str
    #: The cards the seat could have seen at this decision, counted by rank (A .. T): **review_seen**.
    seen: tuple[int, ...]
    #: The legal answers: letters of ``shdpuc``; an insurance decision's are ``i`` (take) and ``n`` (decline).
    options: str
    #: The answer: a legal letter, or '' after a foul or fault (``foul`` then says which).
    taken: str
    foul: str
    #: Decided before the dealer checked for Black Jack (an A up, the course's order): **review_timing**.
    before_peek: bool
    #: The hand's stake, what a double would add now (less than ``bet``: doubling for less), and the cost of
    #: insurance.
    bet: int
    double_add: int
    insurance: int
    #: Index of the replay step that shows it.
    step: int


@dataclass(frozen=True)
class Step:
    """What the replay shows at one step: ``events`` change the table (see ``twentyone.review.replay``), ``text``
    says what happened, ``decision`` is the index of its decision in ``RoundPlay.decisions`` (-1: none)."""

    text: str
    events: tuple[tuple[Any, ...], ...]
    seat: int = 0
    decision: int = -1


@dataclass(frozen=True)
class RoundPlay:
    """A round replayed: its steps and every seat's decisions in the order they were made."""

    round: int
    steps: tuple[Step, ...]
    decisions: tuple[Decision, ...]
    #: Seats of the round in the order they were dealt, and the dealer's seat in the Lianzhong game (0: none).
    seats: tuple[int, ...]
    dealer_seat: int = 0


@dataclass
class _Hand:
    cards: list[str]
    bet: int
    state: str = ""
    done: bool = False
    added: int = 0
    tape: str = ""
    pos: int = 0

    def total(self) -> int:
        return hand_total(sum(map(VALUE.__getitem__, self.cards)), "A" in self.cards)

    def next(self) -> str:
        if self.pos < len(self.tape):
            self.pos += 1
            return self.tape[self.pos - 1]
        return ""


@dataclass
class _Seat:
    rec: dict[str, Any]
    seat: int
    name: str
    course: bool
    account: int
    hand: _Hand
    hands: list[_Hand] = field(default_factory=list)
    foul: str = ""
    fault: str = ""
    fouled: bool = False
    insured: bool = False
    natural: bool = False
    done: bool = False
    decisions: int = 0


class _Replay:
    """One round played again from its record and its cards."""

    def __init__(self, match: LoggedMatch, rnd: LoggedRound) -> None:
        self.m = match
        self.rules = match.rules
        self.rnd = rnd
        self.rec = rnd.record
        self.n = rnd.number
        self.dealt = 0
        self.steps: list[Step] = []
        self.events: list[tuple[Any, ...]] = []
        self.decisions: list[Decision] = []
        #: Face-up cards of this round by rank index, for each part of the shoe they came from (before a refill,
        #: after).
        self.shown: tuple[list[int], list[int]] = ([0] * 10, [0] * 10)
        self.hole = ""
        self.up = ""
        names = {s.seat: s.name for s in match.seats}
        players = {s.seat: s.player for s in match.seats}
        # What a fault at the end of the round says: its detail, else its cause (a record may give no detail).
        self.show_faults = {int(f["seat"]): plain(f.get("detail", "")) or plain(f.get("cause", "")) or _("no reason")
                            for f in self.rec.get("faults", []) if isinstance(f, dict)}
        self.seats: list[_Seat] = []
        for p in self.rec["players"]:
            seat = int(p["seat"])
            bet = int(p["bet"])
            name = names.get(seat)
            s = _Seat(p, seat, _("seat {seat}").format(seat=seat) if name is None else name,
                      course_interface(players.get(seat, "")),
                      int(p["account_before"]) - bet, _Hand([], bet, tape=str(p["actions"])),
                      foul=str(p["foul"] or ""), fault=self.show_faults.get(seat, ""))
            self.seats.append(s)

    # -- cards ---------------------------------------------------------------------------------------------
    def _part(self) -> int:
        return 1 if 0 <= self.rnd.refill_at <= self.dealt else 0

    def draw(self) -> str:
        c = self.rnd.card(self.dealt)
        if c not in VALUE:
            raise LogError(f"round {self.n}: the log has no shoe order for its cards (no shuffle record)"
                           if not self.rnd.order else f"round {self.n}: its cards run past the shoe's")
        self.dealt += 1
        return c

    def face_up(self, c: str) -> None:
        self.shown[1 if 0 <= self.rnd.refill_at < self.dealt else 0][RANK_INDEX[c]] += 1

    def seen(self) -> tuple[int, ...]:
        part = self._part()
        now = self.shown[part]
        return tuple(map(add, now, self.rnd.seen_before)) if part == 0 else tuple(now)

    def step(self, text: str, seat: int = 0, decision: int = -1) -> None:
        self.steps.append(Step(text, tuple(self.events), seat, decision))
        self.events = []

    # -- the round -----------------------------------------------------------------------------------------
    def play(self) -> RoundPlay:
        rec = self.rec
        for s in self.seats:
            self.events.append(("bet", s.seat, s.hand.bet, s.account))
        self._deal()
        self._faults_at_bet()
        self.step(self._deal_text())
        up, dbj = self.up, bool(rec.get("dealer_bj"))
        if self.m.game == "bj":
            self._bj(dbj)
        elif self.rules.dealer_peeks and up in TENS and dbj:
            self.events.append(("reveal", self.hole))
            self.face_up(self.hole)
            self.step(_("The dealer looks at his hole card at once: Black Jack. Nobody decides."))
        elif up == "A" and self.rules.dealer_peeks:
            self._ace_up(dbj)
        else:
            for s in self.seats:
                if s.done:
                    continue
                a = self._first(s, before_peek=False)
                if a is not None and a != "i":
                    self._effect(s, a)
                elif s.insured and not s.done:
                    self._after_insurance(s)
        self._dealer(dbj)
        self._settle()
        self._check()
        dealer_seat = int(rec.get("dealer_seat", 0) or 0)
        return RoundPlay(self.n, tuple(self.steps), tuple(self.decisions), tuple(s.seat for s in self.seats),
                         dealer_seat)

    def _deal(self) -> None:
        order = [(s, 0) for s in self.seats] + [(None, 0)] + [(s, 1) for s in self.seats] + [(None, 1)]
        if self.m.game == "bj":  # bj(6) deals the dealer's two first (RULES.md, bj_deal)
            order = [(None, 0), (None, 1)] + [(s, k) for s in self.seats for k in (0, 1)]
        elif self.m.game != "montecarlo":  # the others deal each player two, then the dealer
            order = [(s, k) for s in self.seats for k in (0, 1)] + [(None, 0), (None, 1)]
        for who, k in order:
            if who is None and k == 1 and not self.rules.hole_card:
                continue
            c = self.draw()
            if who is None:
                if k == 0:
                    self.up = c
                    self.face_up(c)
                    self.events.append(("up", c))
                else:
                    self.hole = c
                    self.events.append(("hole",))
            else:
                who.hand.cards.append(c)
                self.face_up(c)
                self.events.append(("card", who.seat, 0, c))
        for s in self.seats:
            s.natural = s.hand.total() == 21 and len(s.hand.cards) == 2

    def _deal_text(self) -> str:
        hands = _("; ").join(f"{s.name} {''.join(s.hand.cards)}" + (_(" (Black Jack)") if s.natural else "")
                             for s in self.seats)
        return _("Round {round}: bets placed and cards dealt. Dealer shows {up}. {hands}.").format(
            round=self.n, up=self.up, hands=hands)

    def _faults_at_bet(self) -> None:
        """A fault in ``bet`` (its text says so): the seat is dealt its cards and decides nothing."""
        for s in self.seats:
            if s.foul in FAULTS and not s.hand.tape and s.fault.startswith("bet"):
                s.done = s.fouled = True
                self.events.append(("foul", s.seat, s.foul, s.fault))

    # -- decisions -----------------------------------------------------------------------------------------
    def _options(self, s: _Seat, h: _Hand, first: bool) -> str:
        rules = self.rules
        if not first and h.state not in ("p", "a"):
            return "hs"
        t = h.total()
        hard = sum(VALUE[c] for c in h.cards)
        out = "" if h.state == "a" else "h"
        out = "s" + out
        n_hands = len(s.hands) or 1
        if h.state != "a":
            if rules.double_on == "any":
                ok = double_problem(rules, len(h.cards), h.state, s.account, h.bet) is None
            else:
                ok = double_problem(rules, len(h.cards), h.state, s.account, h.bet, t, t != hard) is None
            if ok:
                out += "d"
        if split_problem(rules, h.cards, h.state, n_hands, s.account, h.bet, s.course) is None:
            out += "p"
        if surrender_problem(rules, len(h.cards), h.state) is None:
            out += "u"
        if change_problem(rules, h.cards, h.state, s.course) is None:
            out += "c"
        return out

    def _decide(self, s: _Seat, h: _Hand, first: bool, before_peek: bool, hand_index: int = 0) -> str | None:
        """Read the seat's next answer and note the decision; None after a foul or fault (the hand ends)."""
        options = self._options(s, h, first)
        a = h.next()
        if not a:
            self._foul(s, h, options, before_peek, hand_index)
            return None
        if a not in options:
            options += a  # the table took it: it was legal (a seat's interface the log does not name)
        self._note(s, h, "play", options, a, "", before_peek, hand_index)
        return a

    def _note(self, s: _Seat, h: _Hand, kind: str, options: str, taken: str, foul: str, before_peek: bool,
              hand_index: int) -> None:
        add = double_amount(s.account, h.bet) if "d" in options or "c" in options else 0
        d = Decision(self.n, s.seat, s.decisions, kind, hand_index, bool(s.hands), "".join(h.cards), self.up,
                     self.seen(), options, taken, foul, before_peek, h.bet, add, s.hand.bet // 2, len(self.steps))
        s.decisions += 1
        self.decisions.append(d)

    def _foul(self, s: _Seat, h: _Hand, options: str, before_peek: bool, hand_index: int) -> None:
        if not s.foul or s.fouled:
            raise LogError(f"round {self.n}: seat {s.seat}'s actions end before its hand does")
        s.fouled = True
        h.done = s.done = True
        if s.foul not in FAULTS:
            self._note(s, h, "play", options, "", s.foul, before_peek, hand_index)
            self.events.append(("foul", s.seat, s.foul, ""))
            self.step(_("{name} gives an illegal answer: {foul}. The hand is lost.").format(name=s.name, foul=s.foul),
                      s.seat, len(self.decisions) - 1)
        else:
            self.events.append(("foul", s.seat, s.foul, s.fault))
            self.step(_("{name} faults ({foul}): {fault}. The hand is lost and the player leaves the match.").format(
                name=s.name, foul=fault_name(s.foul), fault=retold(s.fault) or _("no detail")), s.seat)

    def _insurance_offered(self, s: _Seat) -> bool:
        return insurance_problem(self.rules, self.up, "", s.account, s.hand.bet) is None

    def _first(self, s: _Seat, before_peek: bool) -> str | None:
        """The first decision: insurance (when offered) and the play, from one answer (the course's order)."""
        h = s.hand
        offered = self._insurance_offered(s)
        if s.natural:
            a = h.next()
            if not a:
                self._foul(s, h, "s", before_peek, 0)
                return None
            if offered:
                self._note(s, h, "insurance", "in", "i" if a == "i" else "n", "", True, 0)
            if a == "i":
                self._insure(s)
            else:
                h.state, h.done = a, True
                self.events.append(("act", s.seat, 0, a))
                self.step(_("{name} has Black Jack and stands ({answer} means stand).").format(name=s.name,
                                                                                              answer=repr(a)),
                          s.seat, len(self.decisions) - 1 if offered else -1)
            s.done = True
            return None
        options = self._options(s, h, True)
        a = h.next()
        if not a:
            self._foul(s, h, options, before_peek, 0)
            return None
        if offered:
            self._note(s, h, "insurance", "in", "i" if a == "i" else "n", "", True, 0)
        if a == "i":
            self._insure(s)
            return a
        if a not in options:
            options += a
        self._note(s, h, "play", options, a, "", before_peek, 0)
        return a

    def _insure(self, s: _Seat) -> None:
        cost = s.hand.bet // 2
        s.account -= cost
        s.insured = True
        s.hand.state = "i"
        self.events.append(("ins", s.seat, cost, s.account))
        self.step(_("{name} buys insurance for {cost}.").format(name=s.name, cost=cost), s.seat,
                  len(self.decisions) - 1)

    def _ace_up(self, dbj: bool) -> None:
        """An A up and a peek: every seat answers first, then the dealer checks, then the answers take effect."""
        pending: dict[int, str] = {}
        for s in self.seats:
            if s.done:
                continue
            a = self._first(s, before_peek=True)
            if a is not None and a != "i":
                pending[s.seat] = a
                self.events.append(("act", s.seat, 0, a))
                self.step(_("{name} chooses {action}; it takes effect once the dealer has checked for Black "
                            "Jack.").format(name=s.name, action=_word(a)), s.seat, len(self.decisions) - 1)
        if dbj:
            self.events.append(("reveal", self.hole))
            self.face_up(self.hole)
            self.step(_("The dealer checks his hole card: Black Jack. Insurance pays; every other choice is void."))
            for s in self.seats:
                if s.seat in pending:
                    s.hand.done = True
            return
        self.step(_("The dealer checks his hole card: no Black Jack. Insurance is lost; the choices take effect."))
        for s in self.seats:
            if s.done:
                continue
            a = pending.get(s.seat)
            if a is not None:
                self._effect(s, a, announced=True)
            elif s.insured:
                self._after_insurance(s)

    def _after_insurance(self, s: _Seat) -> None:
        if s.natural:
            s.done = True
            return
        a = self._decide(s, s.hand, True, False)
        if a is not None:
            self._effect(s, a)

    def _effect(self, s: _Seat, a: str, announced: bool = False) -> None:
        """A two-card decision takes effect; the hand is then played out through its later decisions."""
        h = s.hand
        self._act(s, h, a, 0, announced)
        if a == "p":
            self._play_split(s)
            return
        while not h.done:
            c = self._decide(s, h, False, False)
            if c is None:
                return
            if c not in "hs":
                raise LogError(f"round {self.n}: seat {s.seat} answered {c!r} where only h or s is legal")
            self._act(s, h, c, 0)

    def _act(self, s: _Seat, h: _Hand, a: str, index: int, announced: bool = False) -> None:
        """Apply answer ``a`` to hand ``h`` and make it a step."""
        who = s.name + (_(" (hand {n})").format(n=index + 1) if s.hands else "")
        dec = len(self.decisions) - 1 if not announced else -1
        text = detail = ""
        if not announced:
            self.events.append(("act", s.seat, index, a))
        if a == "h":
            c = self._card(s, h, index)
            detail = _hit_detail(c, h.total())
            text = _("{who} hits: {detail}").format(who=who, detail=detail)
            h.state = "h"
            if h.total() > 21 or (h.total() == 21 and self.m.game != "bj"):  # bj(6) asks Hit? at 21 too
                h.done = True
        elif a == "s":
            h.state, h.done = "s", True
            text = detail = _("{who} stands on {total}").format(who=who, total=h.total())
        elif a == "d":
            add = double_amount(s.account, h.bet)
            s.account -= add
            h.bet += add
            h.added = add
            self.events.append(("stake", s.seat, index, h.bet, s.account))
            c = self._card(s, h, index)
            h.state, h.done = "d", True
            detail = _hit_detail(c, h.total())
            text = (_("{who} doubles for less ({add}): {detail}") if add < h.bet - add
                    else _("{who} doubles: {detail}")).format(who=who, add=add, detail=detail)
        elif a == "u":
            h.state, h.done = "u", True
            detail = _("half the bet comes back")
            text = _("{who} surrenders: {detail}").format(who=who, detail=detail)
        elif a == "c":
            add = double_amount(s.account, h.bet)
            s.account -= add
            h.bet += add
            h.added = add
            old = h.cards.pop()
            self.events.append(("change", s.seat, old, h.bet, s.account))
            c = self._card(s, h, index)
            h.state = "c"
            if h.total() == 21:
                h.done = True
            detail = _("{old} goes, {card} comes, total {total}").format(old=old, card=c, total=h.total())
            text = _("{who} uses the Changer: {detail}").format(who=who, detail=detail)
        elif a == "p":
            detail = self._split(s, h, index)
            text = _("{who} splits: {detail}").format(who=s.name, detail=detail)
        else:
            raise LogError(f"round {self.n}: seat {s.seat} answered {a!r}, which the table never takes")
        if announced:
            text = _("{who}'s {action} takes effect: {detail}").format(who=who, action=_word(a), detail=detail)
        self.step(_("{text}.").format(text=text), s.seat, dec)

    def _card(self, s: _Seat, h: _Hand, index: int) -> str:
        c = self.draw()
        h.cards.append(c)
        self.face_up(c)
        self.events.append(("card", s.seat, index, c))
        return c

    def _split(self, s: _Seat, h: _Hand, index: int) -> str:
        s.account -= h.bet
        if not s.hands:
            h.state, h.done = "p", True
            left, right = _Hand([h.cards[0]], h.bet), _Hand([h.cards[1]], h.bet)
            s.hands = [left, right]
            at = 0
        else:
            at = s.hands.index(h)
            left, right = h, _Hand([h.cards.pop()], h.bet)
            s.hands.insert(at + 1, right)
        self.events.append(("split", s.seat, at, h.bet, s.account))
        one_card = s.hand.cards[0] == "A" and self.rules.split_aces_one_card
        for k, hand in ((at, left), (at + 1, right)):
            hand.state = "a" if one_card else "p"
            if self.m.game != "bj":  # bj(6) deals a split hand's second card when its turn comes
                self._card(s, hand, k)
                if hand.total() == 21:
                    hand.done = True
        return _("hand {n} {cards}, hand {m} {other}").format(n=at + 1, cards="".join(left.cards), m=at + 2,
                                                              other="".join(right.cards))

    def _play_split(self, s: _Seat) -> None:
        """The split hands left to right (``Table._play_split``); the hand at place i is the log's hand i."""
        recs = s.rec.get("hands") or []
        i = 0
        while not s.fouled and i < len(s.hands):
            h = s.hands[i]
            if i >= len(recs):
                raise LogError(f"round {self.n}: seat {s.seat} split into more hands than its record lists")
            if not h.tape:
                h.tape = str(recs[i].get("actions", ""))
            if len(h.cards) == 1:  # bj(6): the hand's second card, dealt as its turn comes
                self._card(s, h, i)
            while not h.done:
                if h.state == "a" and "p" not in self._options(s, h, True):
                    h.done = True
                    break
                c = self._decide(s, h, True, False, i)
                if c is None:
                    break
                if c == "h" and h.state == "a":
                    raise LogError(f"round {self.n}: seat {s.seat} hit a split ace that takes one card")
                self._act(s, h, c, i)
            i += 1

    # -- bj(6) ---------------------------------------------------------------------------------------------
    def _bj(self, dbj: bool) -> None:
        """bj(6)'s order (RULES.md, **bj_questions**): insurance before the peek, then the hand's questions."""
        s = self.seats[0]
        h = s.hand
        if s.done:
            return
        if self.up == "A":
            offered = self._insurance_offered(s)
            took = h.tape[:1] == "i"
            if offered:
                self._note(s, h, "insurance", "in", "i" if took else "n", "", True, 0)
            if took:
                h.next()
                self._insure(s)
            elif offered:
                self.step(_("{name} declines insurance.").format(name=s.name), s.seat, len(self.decisions) - 1)
        if dbj:
            self.events.append(("reveal", self.hole))
            self.face_up(self.hole)
            self.step(_("The dealer has Black Jack."))
            return
        if s.natural:
            return
        a = self._decide(s, h, True, False)
        if a is not None:
            self._effect(s, a)

    # -- the dealer and settlement --------------------------------------------------------------------------
    def _dealer(self, dbj: bool) -> None:
        dealer = str(self.rec.get("dealer", ""))
        shown = self.rec.get("dealer_shown") is not False
        start = 2 if self.rules.hole_card else 1
        if not self.rules.hole_card:
            self.hole = self.draw()
        if not any(e[0] == "reveal" for s in self.steps for e in s.events) and shown:
            self.events.append(("reveal", self.hole))
            self.face_up(self.hole)
        for _card in dealer[start:]:
            c = self.draw()
            self.events.append(("dcard", c))
            self.face_up(c)
        total = _total(dealer)
        if shown:
            result = _("Black Jack") if dbj else _("bust") if total > 21 else str(total)
            self.step(_("The dealer shows {cards}: {result}.").format(cards=" ".join(dealer), result=result))
        else:
            self.step(_("The dealer does not show his hole card (every hand is bust)."))

    def _settle(self) -> None:
        parts = []
        for s in self.seats:
            p = s.rec
            after = int(p["account_after"])
            net = after - int(p["account_before"])
            for i, hr in enumerate(p.get("hands") or []):
                self.events.append(("result", s.seat, i, str(hr.get("result", ""))))
            self.events.append(("money", s.seat, after, net))
            parts.append(f"{s.name} {'+' if net > 0 else ''}{net} ({after})")
            if s.seat in self.show_faults and not s.foul:
                self.events.append(("foul", s.seat, "fault", self.show_faults[s.seat]))
                parts.append(_("{name} faults in show: {fault}").format(name=s.name,
                                                                          fault=retold(self.show_faults[s.seat])))
        self.step(_("Settlement: {parts}.").format(parts=_("; ").join(parts)))

    def _check(self) -> None:
        """The record's cards are the ones the shoe dealt (a split seat's ``cards`` are its dealt pair)."""
        for s in self.seats:
            p = s.rec
            want, got = str(p["cards"]), "".join(s.hand.cards)
            if want != got:
                raise LogError(f"round {self.n}: seat {s.seat} holds {want!r} in the log but the shoe dealt it "
                               f"{got!r}")
            recs = [str(h["cards"]) for h in p.get("hands") or []]
            if recs != ["".join(h.cards) for h in s.hands]:
                raise LogError(f"round {self.n}: seat {s.seat}'s split hands {recs} are not what the shoe dealt "
                               f"({['' .join(h.cards) for h in s.hands]})")
        dealer = str(self.rec.get("dealer", ""))
        if dealer and dealer[0] != self.up:
            raise LogError(f"round {self.n}: the dealer's up card is {dealer[0]!r} in the log but the shoe dealt "
                           f"{self.up!r}")


_WORD: Final = {"h": N_("hit"), "s": N_("stand"), "d": N_("double"), "u": N_("surrender"), "p": N_("split"),
                "c": N_("the Changer"), "i": N_("insurance")}


def _hit_detail(card: str, total: int) -> str:
    """What a card drawn made of a hand: ``5, total 17`` (``(bust)`` past 21)."""
    return _("{card}, total {total}").format(card=card, total=total) + (_(" (bust)") if total > 21 else "")


def _word(a: str) -> str:
    """An answer letter as a word, in the active language."""
    return _(_WORD[a]) if a in _WORD else a


def _total(cards: str) -> int:
    hard = sum(VALUE[c] for c in cards if c in VALUE)
    return hard + 10 if "A" in cards and hard <= 11 else hard


def replay_round(match: LoggedMatch, rnd: LoggedRound) -> RoundPlay:
    """Play ``rnd`` of ``match`` again: its steps and decisions; LogError when its record does not follow its
    cards."""
    try:
        return _Replay(match, rnd).play()
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, LogError):
            raise
        raise LogError(f"round {rnd.number}: a bad round record ({e!r})") from None


def rounds_of(match: LoggedMatch) -> Iterator[tuple[LoggedRound, RoundPlay | LogError]]:
    """Every round of ``match`` replayed, or the LogError that kept it from replaying."""
    for rnd in match.rounds:
        try:
            yield rnd, replay_round(match, rnd)
        except LogError as e:
            yield rnd, e
