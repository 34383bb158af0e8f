"""Every decision of a seat valued by the exact analyser: the EV of each legal option, the one taken, the EV lost.

``review_match(match, seat)`` replays each round of a ``LoggedMatch`` (``twentyone.review.rounds``) and prices
each decision of ``seat`` (``price``) off the composition the seat could have seen since the shuffle
(RULES.md, **review_seen**), with ``twentyone.analysis.exact.decision_evs``: the shoe the round is dealt from
is the full shoe less the cards seen, with the hand and the up card put back (the analyser deals them out of
it).  EVs are per initial bet of the hand; later decisions are played optimally.  Analyser results are cached
by (rules, composition, hand, up card), so a review of a 100-round match takes well under a second.

What each decision is worth is what the seat knew when it made it (**review_timing**); a double for less,
insurance, surrender and split hands are priced as RULES.md says (**review_options**, **review_split**); a
foul is priced as the hand it loses (**review_foul**); bets get a note, not a price (**review_bet_note**).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from twentyone.analysis.exact import DecisionEVs, decision_evs
from twentyone.analysis.options import MAX_OPTION_DECKS, AnalysisRules
from twentyone.analysis.shoe import Shoe
from twentyone.errors import TwentyOneError
from twentyone.i18n import _
from twentyone.review.costs import Priced, bet_note, BetNote, per_100, situation, true_count
from twentyone.review.logs import RANK_INDEX, LogError, LoggedMatch, rank_of
from twentyone.review.rounds import Decision, RoundPlay, replay_round
from twentyone.rules import Rules

__all__ = ["MatchReview", "review_match", "price", "analysis_rules", "MIN_UNSEEN"]

#: Differences below this are rounding: no EV lost.
_EPSILON = 1e-9
#: A playing decision with fewer cards unseen is listed but not priced: the shoe may run out and be refilled
#: before the round ends, which the analyser cannot play (RULES.md, **review_seen**).
MIN_UNSEEN = 20


@dataclass(frozen=True)
class MatchReview:
    """A seat's decisions in a match, priced, with the rounds replayed (for the replay page)."""

    match: LoggedMatch
    seat: int
    #: Rounds the seat played (placed a bet in).
    hands: int
    priced: tuple[Priced, ...]
    #: (round, bet, true count before the bet) for each round the seat played.
    bets: tuple[tuple[int, int, float], ...]
    plays: dict[int, RoundPlay] = field(default_factory=dict)
    #: Rounds that could not be replayed, one line each.
    skipped: tuple[str, ...] = ()

    @property
    def ev_lost(self) -> float:
        """EV lost in all, in initial bets."""
        return sum(p.loss for p in self.priced if p.loss is not None)

    @property
    def per_100(self) -> float | None:
        """EV lost per 100 hands, in initial bets."""
        return per_100(self.priced, self.hands)

    def bet_note(self) -> BetNote:
        """How the bets followed the true count."""
        return bet_note([(b, tc) for _round, b, tc in self.bets])


def analysis_rules(rules: Rules) -> AnalysisRules:
    """The analyser's options for an engine rule set (a shoe of more than 8 decks is passed as a composition)."""
    return AnalysisRules.of(rules, decks=min(rules.decks, MAX_OPTION_DECKS))


class _Values:
    """The analyser's values for ``hand`` (sorted ranks) against ``up`` off ``shoe`` under ``opts``, cached: a
    table per analysis options, then by (shoe, hand, up).  The options of a review are one object, so a decision
    looks its table up by identity and never hashes or compares the options' Fractions again."""

    #: Entries a table keeps; a full table starts afresh.
    MAX = 200_000

    def __init__(self) -> None:
        #: Values the analyser was asked for (not found in a table).
        self.misses = 0
        self._tables: dict[AnalysisRules, dict[tuple[tuple[int, ...], str, str], DecisionEVs]] = {}
        self._last: tuple[AnalysisRules | None, dict[tuple[tuple[int, ...], str, str], DecisionEVs]] = (None, {})

    def __call__(self, opts: AnalysisRules, shoe: tuple[int, ...], hand: str, up: str) -> DecisionEVs:
        last, table = self._last
        if opts is not last:
            table = self._tables.setdefault(opts, {})
            self._last = (opts, table)
        key = (shoe, hand, up)
        ev = table.get(key)
        if ev is None:
            if len(table) >= self.MAX:
                table.clear()
            self.misses += 1
            ev = table[key] = decision_evs(hand, up, opts, Shoe(shoe))
        return ev

    def cache_clear(self) -> None:
        """Forget every value (a benchmark times the analyser afresh)."""
        self._tables.clear()
        self._last = (None, {})


_values = _Values()


@lru_cache(maxsize=64)
def _full(decks: int) -> tuple[int, ...]:
    """The counts of a full shoe of ``decks`` decks."""
    return Shoe.decks(decks).counts


def _ranks(cards: str) -> str:
    return "".join(sorted(rank_of(c) for c in cards))


def price(d: Decision, rules: Rules, opts: AnalysisRules, decks: int) -> Priced:
    """Price decision ``d`` of a match played under ``rules`` with ``decks`` decks."""
    full = _full(decks)
    remaining = [f - s for f, s in zip(full, d.seen)]
    unseen = sum(remaining)
    if min(remaining) < 0 or unseen < 1:
        raise LogError(f"round {d.round}: seat {d.seat} has seen more cards than a shoe of {decks} decks holds")
    seen = sum(d.seen)
    if d.kind == "insurance":
        return _insurance(d, rules, tuple(remaining), seen)
    sit = situation(d.cards, rules.split)
    if unseen < MIN_UNSEEN:
        return Priced(d.round, d.seat, d.index, d.step, d.kind, d.hand, d.cards, d.up, sit,
                      tuple((a, None) for a in d.options), d.taken, d.foul, "", None, seen, d.bet,
                      _("not priced: only {unseen} cards unseen, the shoe may be refilled before the round "
                        "ends").format(unseen=unseen))
    up = rank_of(d.up)
    hand = _ranks(d.cards)
    for c in hand + up:  # the hand and the up card back in the shoe the analyser deals them from
        remaining[RANK_INDEX[c]] += 1
    shoe = tuple(remaining)
    ev = _values(opts, shoe, hand, up)
    values: dict[str, float | None] = {"s": ev.stand, "h": ev.hit, "d": ev.double, "p": ev.split,
                                       "u": ev.surrender, "c": None}
    notes: list[str] = []
    short = "d" in d.options and d.double_add < d.bet and values["d"] is not None
    if short:
        values["d"] = values["d"] * (d.bet + d.double_add) / (2 * d.bet)  # type: ignore[operator]
    pbj = ev.p_blackjack
    if d.before_peek and ev.given_no_blackjack:
        # Decided before the dealer checked: a dealer Black Jack (chance pbj) voids every choice, the bet lost.
        values = {a: None if v is None else v * (1 - pbj) - pbj for a, v in values.items()}
        notes.append(_("decided before the dealer checked for Black Jack"))
    elif ev.given_no_blackjack:
        notes.append(_("the dealer has no Black Jack (he checked)"))
    if "c" in d.options:
        notes.append(_("the Changer is not valued"))
    options = tuple((a, values.get(a)) for a in d.options)
    valued = [(a, v) for a, v in options if v is not None]
    best, best_v = max(valued, key=lambda av: av[1]) if valued else ("", 0.0)
    if short and "d" in (d.taken, best):  # said where the double's price matters: taken, or the best option
        notes.insert(0, _("a double for less: {add} of {bet}").format(add=d.double_add, bet=d.bet))
    if d.foul:
        taken_v: float | None = -1.0  # the hand's stake is lost (review_foul)
    else:
        taken_v = values.get(d.taken)
    loss = None if taken_v is None or not valued else max(0.0, best_v - taken_v)
    if loss is not None and loss < _EPSILON:
        loss = 0.0
    return Priced(d.round, d.seat, d.index, d.step, d.kind, d.hand, d.cards, d.up, sit, options, d.taken, d.foul,
                  best, loss, seen, d.bet, _("; ").join(notes))


def _insurance(d: Decision, rules: Rules, remaining: tuple[int, ...], seen: int) -> Priced:
    """Insurance: the side bet's EV (per initial bet) off the cards not seen; declining it is worth 0."""
    pbj = remaining[9] / sum(remaining)
    take = d.insurance / d.bet * (float(rules.insurance_pays) * pbj - (1 - pbj)) if d.bet else 0.0
    options = (("i", take), ("n", 0.0))
    best = "i" if take > 0 else "n"
    taken_v = take if d.taken == "i" else 0.0
    loss = max(take, 0.0) - taken_v
    return Priced(d.round, d.seat, d.index, d.step, "insurance", d.hand, d.cards, d.up, "insurance", options,
                  d.taken, d.foul, best, loss if loss >= _EPSILON else 0.0, seen, d.bet,
                  _("chance of the dealer's Black Jack {chance:.1%} off the {unseen} cards not seen").format(
                      chance=pbj, unseen=sum(remaining)))


def review_match(match: LoggedMatch, seat: int, rounds: Iterable[int] | None = None) -> MatchReview:
    """Price every decision of ``seat`` in ``match`` (only ``rounds`` when given); a round that cannot be
    replayed is skipped and named."""
    match.seat(seat)
    wanted = None if rounds is None else set(rounds)
    opts = analysis_rules(match.rules)
    priced: list[Priced] = []
    bets: list[tuple[int, int, float]] = []
    plays: dict[int, RoundPlay] = {}
    skipped: list[str] = []
    hands = 0
    for rnd in match.rounds:
        if wanted is not None and rnd.number not in wanted:
            continue
        mine = [p for p in rnd.record.get("players", []) if isinstance(p, dict) and p.get("seat") == seat]
        try:
            play = replay_round(match, rnd)
        except LogError as e:
            skipped.append(str(e))
            continue
        plays[rnd.number] = play
        if not mine:
            continue
        hands += 1
        bets.append((rnd.number, int(mine[0]["bet"]), true_count(rnd.seen_before, match.shoe_size)))
        try:
            priced += [price(d, match.rules, opts, match.decks) for d in play.decisions if d.seat == seat]
        except (LogError, TwentyOneError) as e:
            skipped.append(_("round {round}: not priced ({why})").format(round=rnd.number, why=e))
    return MatchReview(match, seat, hands, tuple(priced), tuple(bets), plays, tuple(skipped))
