"""Hypothesis properties of the engine, each checked against an independent re-computation from RULES.md.

The settlement, the hand total, the dealer's drawing rule and the ranking are written again here from the
rules text; none of them calls the engine's own arithmetic.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from twentyone.players.builtin.course import Basic, HiLo, Stand
from tests.scripted import Scripted, one_round
from twentyone.cards import calculate
from twentyone.core import MAX_SEED, Generator, new_shoe
from twentyone.match import Seating, play_match, rank
from twentyone.records import SeatView
from twentyone.roundlog import RoundLog
from twentyone.strategy import Strategy

CARDS = "A23456789TJQK"
TEN = set("TJQK")
SEEDS = st.integers(0, MAX_SEED)


# -- independent arithmetic, from RULES.md -------------------------------------------------------
def best_total(cards: str) -> int:
    """A counts 11 when that does not bust the hand, else 1 (card_codes)."""
    total = sum(1 if c == "A" else 10 if c in TEN else int(c) for c in cards)
    for _ in range(cards.count("A")):
        if total + 10 <= 21:
            total += 10
    return total


def soft(cards: str) -> bool:
    """True when an ace counts 11."""
    hard = sum(1 if c == "A" else 10 if c in TEN else int(c) for c in cards)
    return "A" in cards and hard + 10 <= 21


def natural(cards: str) -> bool:
    """Exactly two cards, an A and a ten-value card (black_jack)."""
    return len(cards) == 2 and sorted(c in TEN for c in cards) == [False, True] and "A" in cards


def ruled_delta(p: dict[str, Any], dealer: str) -> int:
    """The money a hand wins or loses, from its bet, cards, actions and the dealer's hand alone."""
    bet, actions, cards = int(p["bet"]), str(p["actions"]), str(p["cards"])
    ins = bet // 2 if actions.startswith("i") else 0
    dealer_bj, player_bj = natural(dealer), natural(cards)
    plays = actions[1:] if actions.startswith("i") else actions
    doubled = not dealer_bj and not player_bj and "d" in plays
    surrendered = not dealer_bj and not player_bj and "u" in plays
    # A double adds the bet again, or what was left of the account (a double for less: "added").
    stake = bet + (int(p.get("added", bet)) if doubled else 0)
    if doubled:
        assert int(p.get("added", bet)) == min(bet, int(p["account_before"]) - bet - ins)
    if p["foul"] is not None:
        return -stake - ins
    if dealer_bj:
        return -bet - ins + 3 * ins + (bet if player_bj else 0)
    if player_bj:
        return 2 * bet - ins
    if surrendered:
        return -(bet - bet // 2) - ins
    t, d = best_total(cards), best_total(dealer)
    if t > 21:
        return -stake - ins
    if d > 21 or t > d:
        return stake - ins
    if t == d:
        return -ins
    return -stake - ins


def dealer_ok(dealer: str) -> bool:
    """The dealer drew while under 17 and stood at 17 or more, soft 17 included (dealer_s17)."""
    if natural(dealer):
        return True
    for i in range(2, len(dealer) + 1):
        if best_total(dealer[:i]) < 17 and i == len(dealer):
            return False
        if best_total(dealer[:i]) >= 17 and i < len(dealer):
            return False
    return len(dealer) >= 2


def better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """True when a ranks strictly above b: more money; at zero money, more rounds."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[0] == 0 and a[1] > b[1]


# -- players -------------------------------------------------------------------------------------
class RandomPlayer(Strategy):
    """Random bets and actions, legal or not, from its own seeded generator; remembers its bets."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.requested: list[int] = []

    def bet(self, view: SeatView) -> int:
        r = self.rng
        b = r.choice([r.randint(-5, 30), r.randint(10, 60), r.randint(0, 1500), 10, 15, 11])
        self.requested.append(b)
        return b

    def first_action(self, view: SeatView) -> str:
        return self.rng.choice("hhhsssdddduuiii" + "xH")

    def continue_action(self, view: SeatView) -> str:
        return self.rng.choice("hhhhsssss" + "dui" + "x")


def seat_players(kinds: list[int], seed: int) -> list[Seating]:
    """Seat Stand (0), Basic (1), HiLo (2) or a RandomPlayer (3) at each seat."""
    out = []
    for i, k in enumerate(kinds):
        s: Strategy = [Stand, Basic, HiLo][k]() if k < 3 else RandomPlayer(seed * 7 + i)
        out.append(Seating(f"p{i + 1}", "kind", s))
    return out


def play(kinds: list[int], decks: int, seed: int, player_seed: int) -> tuple[list[Seating], RoundLog]:
    """Play one match and keep its log."""
    seatings = seat_players(kinds, player_seed)
    log = RoundLog(keep=True)
    play_match(seatings, decks, seed, log=log)
    return seatings, log


def dealing_order(r: dict[str, Any]) -> str:
    """The round's cards in the order RULES.md deals them."""
    ps = r["players"]
    return str("".join(p["cards"][:2] for p in ps) + r["dealer"][:2]
            + "".join(p["cards"][2:] for p in ps) + r["dealer"][2:])


KINDS = st.lists(st.integers(0, 3), min_size=1, max_size=5)
RANDOM_KINDS = st.lists(st.sampled_from([3, 3, 3, 1]), min_size=1, max_size=5)
#: One deck is drawn often: with five seats it runs out in the middle of a round now and then.
DECKS = st.one_of(st.just(1), st.integers(1, 8))


# -- properties ----------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(kinds=RANDOM_KINDS, decks=DECKS, seed=SEEDS, player_seed=st.integers(0, 2**32))
def test_money_moves_only_by_ruled_amounts(kinds: list[int], decks: int, seed: int, player_seed: int) -> None:
    """Every hand's account_after - account_before is the ruled outcome of its cards, dealer and actions."""
    seatings, log = play(kinds, decks, seed, player_seed)
    recs = log.records or []
    money = {i + 1: 1000 for i in range(len(kinds))}
    bets = {i + 1: list(getattr(s.strategy, "requested", [])) for i, s in enumerate(seatings)}
    for r in recs:
        if r["type"] != "round":
            continue
        assert r["dealer_bj"] == natural(r["dealer"])
        assert dealer_ok(r["dealer"]), r["dealer"]
        for p in r["players"]:
            seat = p["seat"]
            assert p["account_before"] == money[seat] >= 10
            if bets[seat]:
                asked = bets[seat].pop(0)
                assert p["bet"] == min(max(asked, 10), p["account_before"])
            assert p["insurance"] == (p["bet"] // 2 if p["actions"].startswith("i") else 0)
            assert p["bj"] == natural(p["cards"])
            if not r["dealer_bj"] and not p["bj"] and p["foul"] is None:
                plays = p["actions"].lstrip("i")
                assert len(p["cards"]) == 2 + plays.count("h") + plays.count("d")
            assert p["account_after"] - p["account_before"] == ruled_delta(p, r["dealer"]), (p, r["dealer"])
            assert p["account_after"] >= 0
            money[seat] = p["account_after"]
    end = recs[-1]
    assert end["type"] == "end"
    assert {e["seat"]: e["account"] for e in end["ranking"]} == money


@settings(max_examples=200, deadline=None)
@given(kinds=KINDS, decks=DECKS, seed=SEEDS, player_seed=st.integers(0, 2**32))
def test_cards_are_dealt_in_order_from_the_shoe(kinds: list[int], decks: int, seed: int, player_seed: int) -> None:
    """Every card of a round record is the next card of the logged shoe, from first_card on, across a refill."""
    _, log = play(kinds, decks, seed, player_seed)
    orders: dict[int, str] = {}
    pending: list[dict[str, Any]] = []
    for rec in log.records or []:
        if rec["type"] == "shuffle":
            assert sorted(rec["order"]) == sorted(new_shoe(decks).decode())
            orders[rec["shoe"]] = rec["order"]
        elif rec["type"] == "round":
            pending.append(rec)
            shoe, first = rec["shoe"], rec["first_card"]
            want = dealing_order(rec)
            got = orders[shoe][first:first + len(want)]
            k = shoe
            while len(got) < len(want):  # ran out mid-round: the next shoe goes on from its first card
                k += 1
                got += orders[k][: len(want) - len(got)]
            assert got == want
    rounds = pending
    for a, b in zip(rounds, rounds[1:]):
        end = a["first_card"] + len(dealing_order(a))
        if b["shoe"] == a["shoe"]:
            assert b["first_card"] == end <= 39 * decks


@settings(max_examples=60, deadline=None)
@given(kinds=KINDS, decks=DECKS, seed=SEEDS, player_seed=st.integers(0, 2**32))
def test_same_seed_same_log(kinds: list[int], decks: int, seed: int, player_seed: int) -> None:
    """The same seed and the same strategies give the same log, line for line; another seed another shoe."""
    _, a = play(kinds, decks, seed, player_seed)
    _, b = play(kinds, decks, seed, player_seed)
    assert a.lines() == b.lines()
    other = Generator((seed + 1) % (MAX_SEED + 1)).shoe(decks).decode()
    assert (a.records or [])[1]["order"] != other


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, decks=st.integers(1, 8), shoes=st.integers(1, 6))
def test_shuffle_is_a_permutation_of_n_decks(seed: int, decks: int, shoes: int) -> None:
    """Every shoe a Generator draws is a permutation of N fresh decks."""
    g = Generator(seed)
    fresh = sorted(new_shoe(decks))
    assert new_shoe(decks).decode() == CARDS * 4 * decks
    for _ in range(shoes):
        shoe = g.shoe(decks)
        assert len(shoe) == 52 * decks
        assert sorted(shoe) == fresh


@settings(max_examples=300, deadline=None)
@given(cards=st.text(alphabet=CARDS, min_size=1, max_size=12))
def test_total_over_21_is_always_bust(cards: str) -> None:
    """calculate matches the rule; a total over 21 means even every A counted 1 is over 21."""
    hard = sum(1 if c == "A" else 10 if c in TEN else int(c) for c in cards)
    assert calculate(cards) == best_total(cards)
    assert (calculate(cards) > 21) == (hard > 21)


@settings(max_examples=150, deadline=None)
@given(shoe=st.text(alphabet=CARDS, min_size=30, max_size=30), bet=st.integers(10, 100))
def test_a_hand_over_21_loses_its_stake(shoe: str, bet: int) -> None:
    """A player who hits until the hand is over 21 stops there and loses the bet, whatever the dealer does."""
    p = Scripted("", bet=bet, default="h")
    sc = one_round(shoe, [p])
    rec = sc.seat(1)
    cards = rec["cards"]
    if calculate(cards) > 21:
        assert calculate(cards[:-1]) < 21
        assert sc.delta(1) == -bet
        assert p.seen_continue == [cards[:i] for i in range(3, len(cards))]
    elif not sc.record["dealer_bj"] and not natural(cards):
        assert calculate(cards) == 21  # a hitter stops only at 21 or over


PAIRS = st.lists(st.tuples(st.sampled_from([0, 0, 0, 5, 10, 990, 1000, 1010]), st.integers(0, 5)),
                 min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(pairs=PAIRS)
def test_ranking_follows_the_ruling(pairs: list[tuple[int, int]]) -> None:
    """match.rank gives competition ranks: 1 + the number of players strictly better by the ruling."""
    assert rank(pairs) == [1 + sum(better(o, p) for o in pairs) for p in pairs]


@settings(max_examples=100, deadline=None)
@given(kinds=KINDS, decks=DECKS, seed=SEEDS, player_seed=st.integers(0, 2**32))
def test_end_record_ranking_follows_the_ruling(kinds: list[int], decks: int, seed: int, player_seed: int) -> None:
    """The log's end record ranks (account, rounds) by the ruling, rounds counting the rounds bet."""
    _, log = play(kinds, decks, seed, player_seed)
    recs = log.records or []
    bet_rounds = {i + 1: 0 for i in range(len(kinds))}
    for r in recs:
        if r["type"] == "round":
            for p in r["players"]:
                bet_rounds[p["seat"]] += 1
    end = recs[-1]
    entries = end["ranking"]
    assert {e["seat"]: e["rounds"] for e in entries} == bet_rounds
    keys = {e["seat"]: (e["account"], e["rounds"]) for e in entries}
    for e in entries:
        assert e["rank"] == 1 + sum(better(k, keys[e["seat"]]) for k in keys.values())
    assert [(e["rank"], e["seat"]) for e in entries] == sorted((e["rank"], e["seat"]) for e in entries)
    n_rounds = sum(1 for r in recs if r["type"] == "round")
    assert end["rounds"] == n_rounds <= 50 * len(kinds)
