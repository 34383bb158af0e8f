"""Priced decisions as plain values, and what a review makes of them.

A ``Priced`` is one decision with the EV of each legal option (per initial bet of the hand, from the exact
analyser: ``twentyone.review.pricing``), the option taken, the best one and the EV lost.  Everything here is
plain Python, so the grade's report side can read and total stored decisions without the analyser:

- ``situation``: the row a decision is totalled in, ``hard 16``, ``soft 18``, ``pair 8`` (where the rules
  split) or ``insurance``; ``SITUATIONS`` and ``UPS`` order the rows and the dealer's cards;
- ``by_situation``, ``costliest`` and ``per_100``: the totals, the costliest decisions, EV lost per 100 hands;
- ``true_count`` and ``bet_note``: how the bets followed the Hi-Lo true count (RULES.md, **review_bet_note**).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from twentyone.cards import VALUE
from twentyone.i18n import N_, _

__all__ = ["Priced", "BetNote", "SITUATIONS", "UPS", "LETTERS", "situation", "by_situation", "costliest",
           "per_100", "true_count", "bet_note", "up_rank", "situation_words", "letter_word"]

#: The dealer's up cards as the tables show them, left to right.
UPS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
#: The rows of the tables by situation, top to bottom.
SITUATIONS: Final = (tuple(f"hard {t}" for t in range(4, 22)) + tuple(f"soft {t}" for t in range(12, 22))
                     + tuple(f"pair {r}" for r in "A23456789T") + ("insurance",))
#: What each answer letter is called (in English, as JSON has it; ``letter_word`` in the active language).
LETTERS: Final = {"s": N_("stand"), "h": N_("hit"), "d": N_("double"), "p": N_("split"), "u": N_("surrender"),
                  "c": N_("Changer"), "i": N_("insure"), "n": N_("no insurance")}
#: Hi-Lo's tag of each rank: 2-6 +1, 7-9 0, tens and aces -1 (index as the analyser's ranks A, 2 .. 9, T).
_HILO: Final = (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1)


def letter_word(letter: str) -> str:
    """An answer letter as its word in the active language (the letter itself when it has none)."""
    return _(LETTERS[letter]) if letter in LETTERS else letter


def situation_words(sit: str) -> str:
    """A situation (``hard 16``, ``soft 18``, ``pair 8``, ``insurance``: the stored key) in the active language."""
    kind, space, rest = sit.partition(" ")
    if not space:
        return _("insurance") if sit == "insurance" else sit
    words = {"hard": N_("hard {total}"), "soft": N_("soft {total}"), "pair": N_("pair {rank}")}
    return _(words[kind]).format(total=rest, rank=rest) if kind in words else sit


def up_rank(card: str) -> str:
    """A card as a column of the tables: ten-valued cards are ``T``."""
    return "T" if card in ("T", "J", "Q", "K") else card


def situation(cards: str, pairs: bool) -> str:
    """The row of a playing decision on ``cards``: ``pair X`` for two cards of one value when ``pairs`` (the
    rules split), else ``soft T`` when an ace counts 11, else ``hard T``."""
    if pairs and len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]]:
        return f"pair {up_rank(cards[0])}"
    hard = sum(VALUE[c] for c in cards)
    if "A" in cards and hard <= 11:
        return f"soft {hard + 10}"
    return f"hard {hard}"


@dataclass(frozen=True)
class Priced:
    """A decision priced: each option's EV per initial bet (None: not valued), the answer, the best, the loss."""

    round: int
    seat: int
    #: Which decision of the seat in its round, and the replay step that shows it.
    index: int
    step: int
    #: ``insurance`` or ``play``.
    kind: str
    #: The split hand (0 when the seat did not split).
    hand: int
    cards: str
    up: str
    situation: str
    options: tuple[tuple[str, float | None], ...]
    #: The answer's letter ('' after a foul: ``foul`` names it).
    taken: str
    foul: str
    best: str
    #: EV lost, in initial bets (None: the answer is not valued, e.g. the Changer).
    loss: float | None
    #: Cards the seat could have seen since the shuffle.
    seen: int
    bet: int
    note: str = ""

    def value(self, letter: str) -> float | None:
        """The EV of option ``letter`` (None when it is not an option or not valued)."""
        for a, v in self.options:
            if a == letter:
                return v
        return None

    @property
    def answer(self) -> str:
        """The answer in words."""
        return _("foul ({foul})").format(foul=self.foul) if self.foul else letter_word(self.taken)

    def to_list(self) -> list[Any]:
        """The stored form (``from_list`` reads it back)."""
        return [self.round, self.seat, self.index, self.step, self.kind, self.hand, self.cards, self.up,
                self.situation, [[a, None if v is None else round(v, 6)] for a, v in self.options], self.taken,
                self.foul, self.best, None if self.loss is None else round(self.loss, 6), self.seen, self.bet,
                self.note]

    @classmethod
    def from_list(cls, data: Sequence[Any]) -> Priced:
        """Read the stored form back; ValueError or TypeError if it is not one."""
        (rnd, seat, index, step, kind, hand, cards, up, sit, options, taken, foul, best, loss, seen, bet,
         note) = data
        return cls(int(rnd), int(seat), int(index), int(step), str(kind), int(hand), str(cards), str(up), str(sit),
                   tuple((str(a), None if v is None else float(v)) for a, v in options), str(taken), str(foul),
                   str(best), None if loss is None else float(loss), int(seen), int(bet), str(note))

    def to_dict(self) -> dict[str, Any]:
        """As JSON (``twentyone review --json``)."""
        return {"round": self.round, "seat": self.seat, "decision": self.index, "kind": self.kind,
                "hand": self.hand, "cards": self.cards, "up": self.up, "situation": self.situation,
                "options": {LETTERS.get(a, a): v for a, v in self.options},
                "taken": LETTERS.get(self.taken, self.taken) if self.taken else None, "foul": self.foul or None,
                "best": LETTERS.get(self.best, self.best), "ev_lost": self.loss, "seen": self.seen, "bet": self.bet,
                "note": self.note}


def by_situation(priced: Iterable[Priced]) -> dict[tuple[str, str], tuple[float, int]]:
    """(situation, up card) -> (EV lost in initial bets, decisions priced)."""
    out: dict[tuple[str, str], tuple[float, int]] = {}
    for p in priced:
        if p.loss is None:
            continue
        key = (p.situation, up_rank(p.up))
        loss, n = out.get(key, (0.0, 0))
        out[key] = (loss + p.loss, n + 1)
    return out


def costliest(priced: Iterable[Priced], n: int = 10) -> list[Priced]:
    """The ``n`` decisions that lost the most EV (those that lost some), the costliest first."""
    lost = [p for p in priced if p.loss is not None and p.loss > 0]
    return sorted(lost, key=lambda p: (-(p.loss or 0.0), p.round, p.seat, p.index))[:n]


def per_100(priced: Iterable[Priced], hands: int) -> float | None:
    """EV lost per 100 hands, in initial bets (None without a hand)."""
    if hands <= 0:
        return None
    return 100.0 * sum(p.loss for p in priced if p.loss is not None) / hands


def true_count(seen: Sequence[int], shoe_size: int) -> float:
    """The Hi-Lo true count of the cards ``seen`` (counts by rank A .. T): running count per deck left."""
    left = max(shoe_size - sum(seen), 1)
    running = sum(t * n for t, n in zip(_HILO, seen))
    return running * 52.0 / left


@dataclass(frozen=True)
class BetNote:
    """How a seat's bets followed the true count: bets and mean bet by true count (rounded down), the
    correlation of bet and true count, and the note in words."""

    rows: tuple[tuple[str, int, float], ...]
    correlation: float | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return {"by_true_count": [{"true_count": k, "bets": n, "mean_bet": round(m, 3)} for k, n, m in self.rows],
                "correlation": None if self.correlation is None else round(self.correlation, 4), "note": self.text}


def _bucket(tc: float) -> int:
    return max(-2, min(3, math.floor(tc)))


def bet_note(bets: Sequence[tuple[int, float]]) -> BetNote:
    """The note on ``bets``, (bet, true count before it) pairs (RULES.md, **review_bet_note**)."""
    if not bets:
        return BetNote((), None, _("No bet was placed."))
    names = {-2: _("-2 or less"), 3: _("+3 or more")}
    rows = []
    for k in range(-2, 4):
        these = [b for b, tc in bets if _bucket(tc) == k]
        if these:
            rows.append((names.get(k, f"{k:+d}" if k else "0"), len(these), sum(these) / len(these)))
    xs, ys = [tc for _bet, tc in bets], [float(b) for b, _tc in bets]
    first = _("A bet has no EV loss of its own: this says how the bets followed the Hi-Lo true count.")
    if min(ys) == max(ys):
        flat = _("Every bet was {bet}: flat betting, whatever the count.").format(bet=bets[0][0])
        return BetNote(tuple(rows), None, _("{first} {then}").format(first=first, then=flat))
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    r = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None
    if r is None:
        how = _("the count never moved, so nothing can be said")
    elif r >= 0.5:
        how = _("the bets rose with the count, as counting asks")
    elif r >= 0.2:
        how = _("the bets rose a little with the count")
    elif r > -0.2:
        how = _("the bets did not follow the count")
    else:
        how = _("the bets fell as the count rose: against the count")
    low = [b for b, tc in bets if tc < 1]  # the bets where the count gave no edge
    low_note = ""
    if low and max(low) > min(ys):
        low_note = _("{above} of {bets} bets at a true count below +1 were above the smallest bet ({least}).").format(
            above=sum(1 for b in low if b > min(ys)), bets=len(low), least=f"{min(ys):g}")
    corr = "" if r is None else _(" (correlation of bet and true count {r:+.2f})").format(r=r)
    then = _("Bets from {low} to {high}: {how}{correlation}.").format(low=f"{min(ys):g}", high=f"{max(ys):g}", how=how,
                                                                      correlation=corr)
    text = _("{first} {then}").format(first=first, then=then)
    return BetNote(tuple(rows), r, _("{first} {then}").format(first=text, then=low_note) if low_note else text)
