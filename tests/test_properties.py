"""Hypothesis properties of whole matches, checked against independent re-computations from the log."""

from __future__ import annotations

import io
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mycodes.builtin import Basic, HiLo, Stand
from twentyone.cards import calculate
from twentyone.core import Generator, new_shoe
from twentyone.match import Seating, play_match, rank
from twentyone.records import SeatView
from twentyone.roundlog import RoundLog
from twentyone.strategy import Strategy


class Chaotic(Strategy):
    """Random bets and actions, legal or not, from its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def bet(self, view: SeatView) -> int:
        return self.rng.choice([0, 5, 10, 10, 25, 100, 400, 2000])

    def first_action(self, view: SeatView) -> str:
        return self.rng.choice("ihsduhsx")

    def continue_action(self, view: SeatView) -> str:
        return self.rng.choice("hhssdux")


def _players(kinds: list[int], seed: int) -> list[Seating]:
    makers = [lambda i: Stand(), lambda i: Basic(), lambda i: HiLo(), lambda i: Chaotic(seed * 10 + i)]
    return [Seating(f"p{i + 1}", "x", makers[k](i)) for i, k in enumerate(kinds)]


def _log(kinds: list[int], decks: int, seed: int) -> list[dict[str, Any]]:
    log = RoundLog(io.StringIO(), keep=True)
    play_match(_players(kinds, seed), decks, seed, log=log)
    return log.records or []


def expected_delta(p: dict[str, Any], dealer: str, dealer_bj: bool) -> int:
    """Money won or lost by one hand, computed from RULES.md alone."""
    bet, ins = p["bet"], p["insurance"]
    stake = 2 * bet if p["doubled"] else bet
    if p["foul"] is not None:
        return -(stake + ins)
    if dealer_bj:
        assert not p["doubled"] and not p["surrendered"]
        return 2 * ins + (0 if p["bj"] else -bet)  # insurance: I staked, 3I back
    if p["bj"]:
        return 2 * bet - ins
    if p["surrendered"]:
        return -(bet - bet // 2) - ins
    t, d = calculate(p["cards"]), calculate(dealer)
    if t > 21:
        return -stake - ins
    if d > 21 or t > d:
        return stake - ins
    if t == d:
        return -ins
    return -stake - ins


KINDS = st.lists(st.integers(0, 3), min_size=1, max_size=5)


@settings(max_examples=150, deadline=None)
@given(kinds=KINDS, decks=st.integers(1, 8), seed=st.integers(0, 2**64 - 1))
def test_money_moves_only_by_ruled_amounts(kinds: list[int], decks: int, seed: int) -> None:
    """Every hand's money change is the ruled amount for its cards and actions; nothing else moves."""
    recs = _log(kinds, decks, seed)
    money = {i + 1: 1000 for i in range(len(kinds))}
    for r in recs:
        if r["type"] != "round":
            continue
        for p in r["players"]:
            assert p["account_before"] == money[p["seat"]]
            assert p["account_after"] - p["account_before"] == expected_delta(p, r["dealer"], r["dealer_bj"])
            assert p["account_after"] >= 0
            money[p["seat"]] = p["account_after"]
    end = recs[-1]
    assert {e["seat"]: e["account"] for e in end["ranking"]} == money


@settings(max_examples=80, deadline=None)
@given(kinds=KINDS, decks=st.integers(1, 8), seed=st.integers(0, 2**64 - 1))
def test_cards_come_from_the_shoe_in_dealing_order(kinds: list[int], decks: int, seed: int) -> None:
    """Every round's cards are the shoe's next cards, in the dealing order of RULES.md."""
    shoes: dict[int, str] = {}
    for r in _log(kinds, decks, seed):
        if r["type"] == "shuffle":
            shoes[r["shoe"]] = r["order"]
            continue
        if r["type"] != "round" or (r["shoe"] + 1) in shoes:
            continue  # a round that spans a mid-round refill
        ps = r["players"]
        seq = "".join(p["cards"][:2] for p in ps) + r["dealer"][:2] + "".join(p["cards"][2:] for p in ps) + r["dealer"][2:]
        assert shoes[r["shoe"]][r["first_card"]:r["first_card"] + len(seq)] == seq


@settings(max_examples=15, deadline=None)
@given(kinds=KINDS, decks=st.integers(1, 8), seed=st.integers(0, 2**64 - 1))
def test_same_seed_same_log(kinds: list[int], decks: int, seed: int) -> None:
    """The same seed and the same strategies give the same log, line for line."""
    assert _log(kinds, decks, seed) == _log(kinds, decks, seed)


@settings(max_examples=50, deadline=None)
@given(decks=st.integers(1, 8), seed=st.integers(0, 2**64 - 1), shoes=st.integers(1, 3))
def test_shuffle_is_a_permutation_of_n_decks(decks: int, seed: int, shoes: int) -> None:
    """Each shoe holds exactly N decks' cards."""
    g = Generator(seed)
    full = sorted(new_shoe(decks))
    for _ in range(shoes):
        assert sorted(g.shoe(decks)) == full


@given(st.text(alphabet="A23456789TJQK", min_size=1, max_size=12))
def test_total_over_21_is_always_bust(cards: str) -> None:
    """calculate never counts an A as 11 when that would pass 21, and the hard total bounds it."""
    hard = sum(1 if c == "A" else 10 if c in "TJQK" else int(c) for c in cards)
    t = calculate(cards)
    assert t in (hard, hard + 10)
    assert t == hard or t <= 21


def _rank_ref(pairs: list[tuple[int, int]]) -> list[int]:
    def beats(a: tuple[int, int], b: tuple[int, int]) -> bool:
        if a[0] != b[0]:
            return a[0] > b[0]
        return a[0] == 0 and a[1] > b[1]
    return [1 + sum(beats(o, p) for o in pairs) for p in pairs]


@given(st.lists(st.tuples(st.sampled_from([0, 0, 5, 990, 1000, 1010]), st.integers(0, 250)), min_size=1, max_size=5))
def test_ranking_follows_the_ruling(pairs: list[tuple[int, int]]) -> None:
    """rank() agrees with a direct reading of the ranking ruling."""
    assert rank(pairs) == _rank_ref(pairs)


@settings(max_examples=20, deadline=None)
@given(kinds=KINDS, decks=st.integers(1, 8), seed=st.integers(0, 2**64 - 1))
def test_end_record_ranking_follows_the_ruling(kinds: list[int], decks: int, seed: int) -> None:
    """The end record's ranks are the ruling's ranks of the final money and rounds."""
    end = _log(kinds, decks, seed)[-1]
    pairs = [(e["account"], e["rounds"]) for e in end["ranking"]]
    assert [e["rank"] for e in end["ranking"]] == _rank_ref(pairs)
