"""The built-in players: stand, and hilo's count, bet ramp, insurance and index plays (basic is in test_strategy)."""

from __future__ import annotations

import pytest

from twentyone.players.builtin.course import BUILTINS, HiLo, Stand
from tests.scripted import Scripted, one_round
from twentyone.cards import VALUE
from twentyone.table import StackedGenerator, Table

HILO_VALUE = {c: (1 if 2 <= VALUE[c] <= 6 else -1 if VALUE[c] in (1, 10) else 0) for c in VALUE}


class Warm(HiLo):
    """HiLo that starts its match with a chosen running count."""

    def __init__(self, running: int) -> None:
        self.start = running
        super().__init__()

    def new_match(self, decks: int, seats: int, seat: int) -> None:
        super().new_match(decks, seats, seat)
        self.running = self.start


def test_builtins_are_the_four_documented() -> None:
    """stand, basic, hilo and champion are seated by name."""
    assert sorted(BUILTINS) == ["basic", "champion", "hilo", "stand"]


def test_stand_always_stands_bets_ten_and_never_insures() -> None:
    """The rubric's baseline: bet 10, 's' to every decision, even against an A."""
    s = one_round("T2" + "A9" + "5" * 10, [Stand()])
    p = s.seat(1)
    assert (p["bet"], p["actions"], p["insurance"]) == (10, "s", 0)


def test_hilo_counts_every_card_show_reveals() -> None:
    """After a round the running count is the Hi-Lo sum of every card on the table."""
    h = HiLo()
    s = one_round("2356" + "9T" + "4K" + "8" * 20, [h, Scripted("hs")])
    cards = s.record["dealer"] + "".join(p["cards"] for p in s.record["players"])
    assert h.running == sum(HILO_VALUE[c] for c in cards) and h.running != 0


def test_hilo_restarts_the_count_with_a_new_shoe() -> None:
    """The count of the old shoe is dropped when a new shoe starts."""
    h = HiLo()
    table = Table([("h", "hilo", h)], 1, StackedGenerator(["23" + "45" + "6" * 50, "TK" + "9J" + "Q" * 50]))
    h.new_match(1, 1, 1)
    table.shuffle_cards()
    table.play_round(table.round_init())
    table.show_all()
    first = h.running
    table.shuffle_cards()
    active = table.round_init()
    table.play_round(active)
    table.show_all()
    cards = "".join(table.dealer_shown) + "".join(table.seats[0].cards)
    assert first > 0 and h.running == sum(HILO_VALUE[c] for c in cards) < 0


@pytest.mark.parametrize("running, bet", [(30, 80), (24, 60), (18, 40), (12, 20), (6, 10), (-12, 10)])
def test_hilo_bet_ramp_follows_the_true_count(running: int, bet: int) -> None:
    """Six full decks left: TC = running / 6; 10 up to TC 1, then 20, 40, 60, 80 at TC 2, 3, 4, 5."""
    s = one_round("T7" + "9T" + "5" * 20, [Warm(running)])
    assert s.seat(1)["bet"] == bet


def test_hilo_insures_at_true_count_three() -> None:
    """Against an A it buys insurance at TC >= 3, not below."""
    hot = one_round("T7" + "A9" + "5" * 20, [Warm(18)])
    cold = one_round("T7" + "A9" + "5" * 20, [Warm(12)])
    assert hot.seat(1)["actions"].startswith("i") and not cold.seat(1)["actions"].startswith("i")


def test_hilo_index_play_twelve_against_three() -> None:
    """Hard 12 against a 3: the chart hits; at TC >= 2 Hi-Lo stands."""
    cold = one_round("T2" + "39" + "5" * 20, [Warm(0)])
    warm = one_round("T2" + "39" + "5" * 20, [Warm(12)])
    assert cold.seat(1)["actions"][0] == "h" and warm.seat(1)["actions"] == "s"


def test_hilo_index_play_eleven_against_an_ace_doubles() -> None:
    """Hard 11 against an A: the chart hits; at TC >= 1 Hi-Lo doubles (the dealer has no Black Jack)."""
    cold = one_round("56" + "A9" + "5" * 20, [Warm(0)])
    warm = one_round("56" + "A9" + "5" * 20, [Warm(6)])
    assert cold.seat(1)["actions"][0] == "h" and warm.seat(1)["doubled"]
