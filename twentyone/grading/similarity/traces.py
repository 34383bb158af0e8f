"""Decision traces: what a submission decided, round by round, in a few of its graded matches.

A traced match (``plan.MatchJob.trace``: the first ``similarity.traces`` matches against ``stand``, which
every submission plays on the same seeds and seats) keeps one ``TraceRound`` per round the submission bet
in.  Each round holds the situation (the shoe, the cards of it dealt before the round, the round number and
every seat's money: the same values mean the same cards seen and the same match state) and the decisions:
the bet, then each action character in order.  For each decision, ``agree`` has one bit per reference
strategy of ``REFERENCES`` that would have made the same choice in that very situation (the references are
asked with the submission's own view, ``grading.tracer``), so the read side never needs a player.

The stored form is one short list per round (``TraceRound.to_list``): about 50 bytes, so 2,000 decisions
of 200 submissions take about 2 MB of the store.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["TraceRound", "REFERENCES", "REFERENCE_TITLES", "BET", "hand_at", "decisions"]

#: The reference family, in bit order: bit i of ``TraceRound.agree`` is ``REFERENCES[i]``.
REFERENCES: tuple[str, ...] = ("stand", "basic", "hilo", "champion", "hit<12", "hit<13", "hit<14", "hit<15",
                               "hit<16", "hit<17", "dealer", "chart")
#: How each reference is named on the pages.
REFERENCE_TITLES: dict[str, str] = {
    "stand": "always stand (built-in stand)",
    "basic": "built-in basic",
    "hilo": "built-in hilo (counts cards, bets by the count)",
    "champion": "built-in champion",
    **{f"hit<{n}": f"hit below {n}" for n in range(12, 18)},
    "dealer": "mimic the dealer",
    "chart": "the course's basic chart (derived by the exact analyser)",
}
#: The kind of decision 0 of every round: the bet.
BET = "bet"


class TraceRound(NamedTuple):
    """One round of a traced match, from the traced seat's side.  A named tuple: a class's traces are hundreds of
    thousands of rounds, which the garbage collector then stops walking."""

    #: Shoes begun so far (1: the first shoe).
    shoe: int
    #: Cards of the current shoe dealt before this round (the seat saw every one of them).
    pos: int
    round: int
    #: Every seat's money when the seat was asked for its bet, in seat order.
    money: tuple[int, ...]
    #: The bet the strategy returned (before the table clamps it), or None when it returned no int.
    bet: int | None
    #: The dealer's up card ('' when the round ended before the seat saw one).
    up: str
    #: The seat's cards at the end of the round.
    cards: str
    #: The action characters the strategy returned, in order ('?' for anything that is not one character).
    actions: str
    #: Per decision (the bet, then each action): bit i set when ``REFERENCES[i]`` makes the same choice.
    agree: tuple[int, ...]
    #: Per decision: what the references chose when none chose as the seat did ('' otherwise), e.g. 's/h'.
    others: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[int, int, int, tuple[int, ...]]:
        """The situation at the start of the round: the same key in the same match means the same cards seen
        and the same match state (the round's first four fields, ``r[:4]``)."""
        return (self.shoe, self.pos, self.round, self.money)

    def choices(self) -> list[str]:
        """Each decision's choice as text: the bet as a number ('?' if none), then each action."""
        return ["?" if self.bet is None else str(self.bet), *self.actions]

    def other(self, j: int) -> str:
        """What the references chose at decision ``j`` when none chose as the seat did."""
        return self.others[j] if j < len(self.others) else ""

    def to_list(self) -> list[Any]:
        """The stored form: ``[shoe, pos, round, money, bet, up, cards, actions, agree]`` (+ ``others`` if any)."""
        out: list[Any] = [self.shoe, self.pos, self.round, list(self.money), self.bet, self.up, self.cards,
                          self.actions, list(self.agree)]
        if any(self.others):
            out.append({str(j): o for j, o in enumerate(self.others) if o})
        return out

    @classmethod
    def from_list(cls, data: list[Any]) -> TraceRound:
        """Read the stored form back; ValueError or TypeError if it is not one."""
        shoe, pos, rnd, money, bet, up, cards, actions, agree = data[:9]
        agree_t = tuple(int(a) for a in agree)
        others = [""] * len(agree_t)
        if len(data) > 9:
            for j, o in dict(data[9]).items():
                others[int(j)] = str(o)
        if len(agree_t) != 1 + len(str(actions)):
            raise ValueError(f"a trace round has {len(agree_t)} agreement masks for {1 + len(str(actions))} decisions")
        return cls(int(shoe), int(pos), int(rnd), tuple(int(m) for m in money), None if bet is None else int(bet),
                   str(up), str(cards), str(actions), agree_t, tuple(others))


def hand_at(r: TraceRound, j: int) -> str:
    """The seat's cards when it made decision ``j`` (j >= 1; decision 0 is the bet, before any card)."""
    if j == 0:
        return ""
    return r.cards[:2 + r.actions[:j - 1].count("h")]


def decisions(r: TraceRound) -> int:
    """Decisions in the round: the bet and each action."""
    return 1 + len(r.actions)
