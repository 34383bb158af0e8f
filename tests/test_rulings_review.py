"""The rulings of RULES.md's "Decision review" (``test_ruling_review_*``): what a seat saw, when it decided, which
options a decision had and what they were worth, how a split and a foul are reviewed, what a bet's note says,
and which matches a grade's review totals.

Each scenario is a match played on a stacked shoe: the chosen cards, then the rest of a real shoe of that many
decks, so the composition a decision is priced off is a real one.  Expected counts are written out by hand;
expected EVs come from the analyser's ``decision_evs`` called directly off the composition worked out here.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import replace

import pytest

from tests.scripted import Scripted
from twentyone.analysis.exact import decision_evs
from twentyone.analysis.options import AnalysisRules
from twentyone.analysis.shoe import Shoe
from twentyone.grading.outcome import JobInfo, MatchOutcome
from twentyone.grading.decisions.numbers import student_review
from twentyone.grading.decisions.pricing import kept_log
from twentyone.grading.store import MatchRow
from twentyone.grading.similarity.traces import TraceRound
from twentyone.legality import Foul
from twentyone.match import Seating, play_match
from twentyone.records import SeatView
from twentyone.review.costs import Priced, bet_note
from twentyone.review.pricing import MatchReview, review_match
from twentyone.review.logs import LoggedMatch, parse_records
from twentyone.review.rounds import Decision, replay_round
from twentyone.roundlog import RoundLog
from twentyone.rules import COURSE, PRESETS, Rules
from twentyone.strategy import Strategy
from twentyone.table import StackedGenerator, StrategyFault

RANKS = "A23456789T"


def counts(**by_rank: int) -> tuple[int, ...]:
    """Counts by rank A, 2 .. 9, T, written by name (``T=2, _6=1``: digits take a leading underscore)."""
    out = [0] * 10
    for name, n in by_rank.items():
        out[RANKS.index(name.lstrip("_"))] = n
    return tuple(out)


def real_rest(front: str, decks: int) -> str:
    """A real shoe of ``decks`` decks less the cards of ``front``, in rank order (tens last)."""
    left = {c: 4 * decks for c in "A23456789TJQK"}
    for c in front:
        left[c] -= 1
    assert min(left.values()) >= 0
    return "".join(c * left[c] for c in "A23456789JQKT")


def played(front: str, strategies: Sequence[Strategy], rules: Rules = COURSE, decks: int = 6, rounds: int = 1,
           shoes: Sequence[str] | None = None, seed: int | None = None) -> LoggedMatch:
    """A match on ``front`` and then the rest of a real shoe (or on ``shoes``, or shuffled from ``seed``), at most
    ``rounds`` rounds a seat, read back from its round log."""
    log = RoundLog(keep=True)
    seatings = [Seating(f"p{i + 1}", "scripted", s) for i, s in enumerate(strategies)]
    generator = None if seed is not None else StackedGenerator(
        list(shoes) if shoes else [front + real_rest(front, decks)])
    play_match(seatings, decks, seed or 1, replace(rules, rounds_per_seat=rounds), log=log, generator=generator)
    return parse_records(list(enumerate(log.records or [], 1)), "scenario")


def decisions(match: LoggedMatch, seat: int) -> list[Decision]:
    """Every decision of ``seat`` in the match, in order."""
    return [d for rnd in match.rounds for d in replay_round(match, rnd).decisions if d.seat == seat]


def priced(match: LoggedMatch, seat: int = 1) -> list[Priced]:
    """``seat``'s decisions priced."""
    return list(review_match(match, seat).priced)


def evs(hand: str, up: str, shoe_less: str, rules: Rules = COURSE, decks: int = 6):  # type: ignore[no-untyped-def]
    """The analyser's values for ``hand`` against ``up`` off a full shoe less the cards ``shoe_less``."""
    shoe = Shoe.decks(decks)
    if shoe_less:
        shoe = shoe.without(shoe_less)
    return decision_evs(hand, up, AnalysisRules.of(rules, decks=decks), shoe)


# ------------------------------------------------------------------------------------------- seen

def test_ruling_review_seen() -> None:
    """A decision sees every card face up since the shuffle: the earlier rounds' whole (hole card and dealer's
    draws included), this round's hands and the draws of the seats that played before it, never the hole card;
    once the shoe is empty in the middle of a round, only the cards of the shoe that refills it."""
    # Round 1: seat 1 T2, seat 2 93, dealer 6 (hole T); seat 1 hits a 5 and stands, seat 2 hits a 4 and stands;
    # the dealer draws an 8.  Round 2: seat 1 T7, seat 2 T8, dealer 9 (hole 9); both stand.
    m = played("T2936T548" + "T7T899", [Scripted("hss"), Scripted("hss")], rounds=2)
    s1, s2 = decisions(m, 1), decisions(m, 2)
    assert s1[0].seen == counts(T=1, _2=1, _9=1, _3=1, _6=1)  # the deal, not the hole card
    assert s2[0].seen == counts(T=1, _2=1, _9=1, _3=1, _6=1, _5=1)  # and seat 1's draw
    assert s2[1].seen == counts(T=1, _2=1, _9=1, _3=1, _6=1, _5=1, _4=1)
    round1 = counts(T=2, _2=1, _9=1, _3=1, _6=1, _5=1, _4=1, _8=1)  # every card of round 1, the hole T too
    assert m.rounds[1].seen_before == round1
    assert s1[2].seen == tuple(a + b for a, b in zip(round1, counts(T=2, _7=1, _8=1, _9=1)))
    # A refill in the middle of a round: the first shoe holds only the deal; seat 1's hit opens a new shoe.
    new = "5" + real_rest("5", 6)
    m = played("", [Scripted("hs"), Scripted("s")], shoes=["T2936T", new])
    s1, s2 = decisions(m, 1), decisions(m, 2)
    assert s1[0].seen == counts()  # the shoe is empty: the next card comes from a new shoe, unseen
    assert s1[1].seen == counts(_5=1) and s2[0].seen == counts(_5=1)  # the new shoe's cards only
    # Fewer than 20 cards unseen (one deck, late in the shoe): the shoe may be refilled before the round ends,
    # so the playing decision is listed but not priced (insurance is: the hole card is dealt already).
    late = played("", [Scripted()], decks=1, rounds=50, seed=5)
    few = [p for p in priced(late) if 52 - p.seen < 20 and p.kind == "play"]
    many = [p for p in priced(late) if 52 - p.seen >= 20]
    assert few and many
    assert all(p.loss is None and "not priced" in p.note for p in few) and all(p.loss is not None for p in many)


# ------------------------------------------------------------------------------------------- timing

def test_ruling_review_timing() -> None:
    """A decision is worth what the seat knew: the first decision against an A, made before the dealer checks for
    Black Jack, is valued over both (a Black Jack voids it: the bet is lost); after the check (a ten up, or after
    insurance) it is valued given no Black Jack."""
    # T6 against an A (hole 9): seat 1 hits before the peek.
    p = priced(played("T6A95", [Scripted("h")]))
    play = [x for x in p if x.kind == "play"][0]
    ev = evs("T6", "A", "")  # the seat saw T, 6 and A: the analyser deals them out of a full shoe
    pbj = ev.p_blackjack
    for letter, v in (("s", ev.stand), ("h", ev.hit), ("d", ev.double), ("u", ev.surrender)):
        assert v is not None and play.value(letter) == pytest.approx(v * (1 - pbj) - pbj, abs=1e-12)
    assert "before the dealer checked" in play.note
    # Insured first, then the hit after the check: given no Black Jack.
    p = priced(played("T6A95", [Scripted("ih")]))
    after = [x for x in p if x.kind == "play"][0]
    assert after.value("h") == pytest.approx(ev.hit, abs=1e-12) and "no Black Jack" in after.note
    # A ten up: the dealer checked before anyone decided.
    p = priced(played("T6T95", [Scripted("h")]))
    ev = evs("T6", "T", "")
    assert p[0].value("h") == pytest.approx(ev.hit, abs=1e-12) and p[0].value("s") == pytest.approx(ev.stand)
    assert p[0].loss == pytest.approx(max(ev.stand, ev.hit, ev.double or -9, ev.surrender or -9) - ev.hit)


# ------------------------------------------------------------------------------------------- options

def test_ruling_review_options() -> None:
    """Options are the legal answers at that point: stand, hit, double, surrender on two cards; hit or stand
    after a hit; insurance against an A when affordable, worth bet//2 / bet x (pays x P(ten in the hole) - P(not))
    off the cards unseen; a double for less worth the double's EV x (bet + added) / (2 x bet)."""
    m = played("T6A95", [Scripted("h")])
    d = decisions(m, 1)
    assert [(x.kind, x.options, x.taken) for x in d] == [("insurance", "in", "n"), ("play", "shdu", "h")]
    ins = priced(m)[0]
    p_ten = (96 - 1) / (312 - 3)  # tens unseen over cards unseen: the seat saw T, 6, A
    assert ins.value("i") == pytest.approx(5 / 10 * (2 * p_ten - (1 - p_ten)), abs=1e-12) and ins.value("n") == 0.0
    assert ins.best == "n" and ins.loss == 0.0
    d = decisions(played("ATA9", [Scripted("s")]), 1)  # a Black Jack against an A decides insurance only
    assert [(x.kind, x.options, x.taken) for x in d] == [("insurance", "in", "n")]
    d = decisions(played("T26T3", [Scripted("hs")]), 1)  # T2 against a 6 (hole T) hits a 3, stands
    assert [x.options for x in d] == ["shdu", "hs"] and d[1].cards == "T23"
    # A double for less: 15 of money, a bet of 10, 5 left to double with.
    m = played("566T9T", [Scripted("d")], rules=replace(COURSE, start_money=15))
    d = decisions(m, 1)
    assert d[0].double_add == 5 and d[0].bet == 10
    p = priced(m)[0]
    ev = evs("56", "6", "")
    assert ev.double is not None and p.value("d") == pytest.approx(ev.double * 15 / 20, abs=1e-12)
    assert "double for less: 5 of 10" in p.note
    # The note is said where the double's price matters: not on a 16 against a T that stood (the double not best).
    m = played("TT67", [Scripted("s")], rules=replace(COURSE, start_money=15))
    (p,) = priced(m)
    assert p.taken == "s" and p.best != "d" and p.value("d") is not None and "double for less" not in p.note


# ------------------------------------------------------------------------------------------- split

def test_ruling_review_split() -> None:
    """Where the rules split, the split is a priced option of a pair and each split hand's decisions are
    reviewed with the options it had (double after a split where allowed, never surrender); a split ace
    that takes its one card decides nothing."""
    rules = PRESETS["s17-3to2-6d"]
    # 88 against a 6 (hole T): split; the left 8 takes a 3 and doubles (a 9), the right 8 takes a T and stands.
    m = played("886T3T97", [Scripted("pds")], rules=rules)
    d = decisions(m, 1)
    assert [(x.cards, x.options, x.taken, x.hand, x.split) for x in d] == [
        ("88", "shdp", "p", 0, False), ("83", "shd", "d", 0, True), ("8T", "shd", "s", 1, True)]
    p = priced(m)
    ev = evs("88", "6", "", rules)
    assert p[0].value("p") == pytest.approx(ev.split, abs=1e-12) and p[0].situation == "pair 8"
    # The left hand decides once both hands have their second card: seen 8 8 6 3 T; the analyser deals the
    # hand (8 3) and the up card (6) out of its shoe, which is the full shoe less the other 8 and the T.
    ev = evs("83", "6", "8T", rules)
    assert p[1].value("d") == pytest.approx(ev.double, abs=1e-12) and p[1].situation == "hard 11"
    # A course C file never splits (its interface has no split): the pair is played by its total.
    log = RoundLog(keep=True)
    front = "886T9"
    play_match([Seating("p1", "mine.c", Scripted("s"))], 6, 1, replace(rules, rounds_per_seat=1), log=log,
               generator=StackedGenerator([front + real_rest(front, 6)]))
    c_file = parse_records(list(enumerate(log.records or [], 1)), "c")
    assert [x.options for x in decisions(c_file, 1)] == ["shd"]
    # Split aces take one card each and stand: only the split itself is a decision.
    m = played("AA6TK5", [Scripted("p")], rules=rules)
    assert [(x.cards, x.taken) for x in decisions(m, 1)] == [("AA", "p")]


# ------------------------------------------------------------------------------------------- fouls

class _Crash(Strategy):
    """Crashes at its first decision, as a sandboxed C file reports it."""

    def first_action(self, view: SeatView) -> str:
        raise StrategyFault(Foul.CRASH, "segmentation fault (signal SIGSEGV) at mine.c:5 in first_action1")


def test_ruling_review_foul() -> None:
    """An illegal answer is priced as the hand it loses (EV -1 per bet, against the best legal option); a
    strategy fault (crash, time-out, error) is not priced, but the replay shows it where it happened, with its
    text and the cards on the table."""
    m = played("T69833", [Scripted("x")])
    p = priced(m)
    ev = evs("T6", "9", "")
    best = max(v for v in (ev.stand, ev.hit, ev.double, ev.surrender) if v is not None)
    assert (p[0].taken, p[0].foul, p[0].loss) == ("", "illegal_action", pytest.approx(best + 1, abs=1e-12))
    m = played("T6983", [_Crash()])
    assert priced(m) == []
    steps = replay_round(m, m.rounds[0]).steps
    fault = [s for s in steps if any(e[0] == "foul" for e in s.events)]
    assert len(fault) == 1 and "mine.c:5 in first_action1" in fault[0].text
    assert ("card", 1, 0, "T") in steps[0].events and ("card", 1, 0, "6") in steps[0].events


# ------------------------------------------------------------------------------------------- bets

def test_ruling_review_bet_note() -> None:
    """A bet has no EV loss: its note says how the bets followed the Hi-Lo true count (the correlation of bet and
    true count, bets by true count rounded down), or that they were flat."""
    flat = bet_note([(10, -2.5), (10, 0.3), (10, 4.0)])
    assert flat.correlation is None and "flat" in flat.text and "no EV loss" in flat.text
    pairs = [(10, -1.2), (10, 0.4), (20, 1.5), (40, 2.2), (80, 3.9), (10, -0.1)]
    note = bet_note(pairs)
    r = statistics.correlation([tc for _, tc in pairs], [float(b) for b, _ in pairs])
    assert note.correlation == pytest.approx(r) and "rose with the count" in note.text
    assert dict((k, (n, mean)) for k, n, mean in note.rows) == {"-2 or less": (1, 10.0), "-1": (1, 10.0),
                                                               "0": (1, 10.0), "+1": (1, 20.0), "+2": (1, 40.0),
                                                               "+3 or more": (1, 80.0)}
    against = bet_note([(b, -tc) for b, tc in pairs])
    assert against.correlation == pytest.approx(-r) and "against the count" in against.text
    assert not math.isnan(note.correlation or 0.0)


# ------------------------------------------------------------------------------------------- grade

def _row(key: str, subject: str, idx: int, match: list[dict], seat: int, traced: bool, sample: bool) -> MatchRow:
    info = JobInfo("beat_stand", subject, idx, 1, ("alice", "stand (built-in)"), seat)
    trace = (TraceRound(1, 0, 1, (1000, 1000), 10, "9", "T6", "s", (0, 0)),) if traced else ()
    o = MatchOutcome(key, info, "rounds", 3, [1000, 1000], [1, 1], [3, 3], [0, 0], [None, None], ["", ""],
                     bankroll=[[1000, 1000]] if sample else [], trace=trace,
                     log=kept_log(match, seat, traced or sample))
    return MatchRow(key, "beat_stand", subject, idx, 1, ["alice", "stand (built-in)"], o)


def test_ruling_review_grade() -> None:
    """A grade's review totals the decisions of the matches it traces, priced when they were played: EV lost per
    100 hands is 100 x the EV lost over the hands the student played there; a sample match that is not traced
    gets a replay but does not count."""
    from twentyone.players.builtin.course import Basic, Stand

    logs = []
    for seed in (3, 4):
        log = RoundLog(keep=True)
        play_match([Seating("p1", "basic", Basic()), Seating("p2", "stand", Stand())], 6, seed,
                   replace(COURSE, rounds_per_seat=10), log=log)
        logs.append(list(log.records or []))
    traced = _row("t", "alice", 0, logs[0], 1, True, False)
    sample = _row("s", "alice", 9, logs[1], 1, False, True)
    r = student_review("alice", [traced, sample])
    assert r is not None
    direct: MatchReview = review_match(parse_records(list(enumerate(logs[0], 1)), "t"), 1)
    assert r.matches == 1 and r.hands == direct.hands == 20
    assert r.ev_lost == pytest.approx(direct.ev_lost, abs=1e-5)
    assert r.per_100 == pytest.approx(100 * direct.ev_lost / 20, abs=1e-4)
    assert [p.match_key for p in r.replays] == ["t", "s"]
    assert all(c.match_key == "t" for c in r.costliest)
