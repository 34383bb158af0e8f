"""Tournament schedules (pairs and table5) and standings from stored matches."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from tests.outcomes import outcome
from twentyone.grading.plan import tables, tournament_jobs
from twentyone.grading.standings import pairwise, standings
from twentyone.grading.store import MatchRow

E3 = [("a", "stand"), ("b", "basic"), ("c", "hilo")]


def test_pairs_every_pair_meets_with_seats_swapped_on_the_same_seed() -> None:
    """Each pair plays m matches; matches 2j and 2j+1 share a seed with the seats swapped."""
    jobs = tournament_jobs(E3, "pairs", 4, 100, 6, "course", None)
    assert len(jobs) == 3 * 4
    ab = [j for j in jobs if set(j.info.names) == {"a", "b"}]
    assert [j.seed for j in ab] == [100, 100, 101, 101]
    assert [j.info.names for j in ab[:2]] == [("a", "b"), ("b", "a")]


def test_table5_every_seed_is_played_in_every_rotation() -> None:
    """Every table of a deal is played once per seat rotation on the deal's seed: each entry takes every seat."""
    assert tables(3, 0, 1) == [[0, 1, 2]] == tables(3, 1, 1)
    jobs = tournament_jobs([(str(i), "stand") for i in range(5)], "table5", 2, 40, 6, "course", None)
    assert len(jobs) == 2 * 5 and [j.seed for j in jobs] == [40] * 5 + [41] * 5
    for deal in (0, 1):
        seats = Counter((name, seat) for j in jobs if j.info.idx == deal for seat, name in enumerate(j.info.names))
        assert set(seats.values()) == {1} and len(seats) == 25
    big = tournament_jobs([(str(i), "stand") for i in range(7)], "table5", 1, 3, 6, "course", None)
    assert len(big) == 7 and Counter(j.info.names[0] for j in big) == Counter(str(i) for i in range(7))


@given(st.integers(6, 60), st.integers(0, 50), st.integers(0, 2**32))
def test_table5_splits_the_field_into_balanced_tables(n: int, deal: int, seed: int) -> None:
    """Every entry sits exactly once per deal, at tables of 2 to 5 differing in size by at most one."""
    ts = tables(n, deal, seed)
    assert sorted(e for t in ts for e in t) == list(range(n))
    sizes = [len(t) for t in ts]
    assert max(sizes) <= 5 and min(sizes) >= 2 and max(sizes) - min(sizes) <= 1


def test_skip_leaves_out_stored_matches() -> None:
    """--resume: matches already stored are not scheduled again."""
    jobs = tournament_jobs(E3, "table5", 3, 1, 6, "course", None)
    rest = tournament_jobs(E3, "table5", 3, 1, 6, "course", None, skip={jobs[0].key})
    assert [j.key for j in rest] == [j.key for j in jobs[1:]]


def _row(names: list[str], ranks: list[int], faults: list[str | None], accounts: list[int]) -> MatchRow:
    return MatchRow("k", "tournament", "", 0, 1, names, outcome(ranks, faults, accounts, names=names))


def test_pairwise_results_and_faults() -> None:
    """Better rank wins, equal rank ties, a faulted player loses to everyone who did not fault."""
    row = _row(["a", "b", "c"], [1, 1, 3], [None, None, "crash"], [1200, 1200, 0])
    assert list(pairwise(row)) == [("a", "b", "tie"), ("a", "c", "win"), ("b", "c", "win")]
    rich_faulter = _row(["a", "b"], [2, 1], [None, "timeout"], [900, 5000])
    assert list(pairwise(rich_faulter)) == [("a", "b", "win")]


def test_standings_rank_by_rate_then_money() -> None:
    """Win rate (ties half) orders the table; the interval and the mean money come with it."""
    rows = [_row(["a", "b"], [1, 2], [None, None], [1100, 900]), _row(["b", "a"], [1, 1], [None, None], [1000, 1000])]
    st_ = standings(rows, [("a", "x"), ("b", "y")])
    assert [(r.name, r.rank, r.wins, r.ties, r.losses) for r in st_] == [("a", 1, 1, 1, 0), ("b", 2, 0, 1, 1)]
    assert st_[0].rate == 0.75 and st_[0].low < 0.75 < st_[0].high and st_[0].mean_account == 1050


def test_two_faulting_players_tie_whatever_their_ranks() -> None:
    """Two players who both faulted tie each other, even when one ended richer; both lose to one who did not."""
    row = _row(["a", "b", "c"], [1, 2, 3], ["crash", "timeout", None], [1500, 900, 100])
    assert list(pairwise(row)) == [("a", "b", "tie"), ("a", "c", "loss"), ("b", "c", "loss")]


def test_equal_rates_are_ranked_by_mean_money() -> None:
    """With equal win rates the player with more mean final money ranks first (the standings' tie-break)."""
    rows = [_row(["a", "b"], [1, 2], [None, None], [1300, 700]), _row(["b", "a"], [1, 2], [None, None], [1010, 990])]
    st_ = standings(rows, [("a", "x"), ("b", "y")])
    assert [(r.name, r.rank, r.rate) for r in st_] == [("a", 1, 0.5), ("b", 2, 0.5)]
    assert st_[0].mean_account == 1145 and st_[1].mean_account == 855


def _standing(name: str, rate: float, low: float, high: float, money: float = 1000.0):  # type: ignore[no-untyped-def]
    from twentyone.grading.results import StandingRow

    return StandingRow(0, name, name, 10, 0, 0, 0, rate, low, high, money, 0, 0)


def test_tied_standings_share_the_better_rank() -> None:
    """Equal win rates and equal money tie: both take the better place, and the next player the place after them
    (competition ranking: 1, 1, 3)."""
    rows = [_row(["a", "b"], [1, 1], [None, None], [1000, 1000]), _row(["b", "a"], [1, 1], [None, None], [1000, 1000]),
            _row(["a", "c"], [1, 2], [None, None], [1100, 900]), _row(["b", "c"], [1, 2], [None, None], [1100, 900])]
    table = standings(rows, [("a", "x"), ("b", "x"), ("c", "y")])
    assert [(r.name, r.rank) for r in table] == [("a", 1), ("b", 1), ("c", 3)]


def test_touching_intervals_are_not_separated() -> None:
    """Intervals that touch (one's low equals the next one's high) overlap: those places are not separated, and
    the two players share the bonus of the places they span."""
    from twentyone.grading.standings import places, separated

    touching = [_standing("a", 0.8, 0.6, 0.9), _standing("b", 0.5, 0.4, 0.6), _standing("c", 0.1, 0.0, 0.2)]
    assert not separated(touching, 1) and not separated(touching, 2)
    got = {n: (p.first, p.last, p.bonus) for n, p in places(touching, (10.0, 6.0, 3.0)).items()}
    assert got == {"a": (1, 2, 8.0), "b": (1, 2, 8.0), "c": (3, 3, 3.0)}
    apart = [_standing("a", 0.8, 0.61, 0.9), _standing("b", 0.5, 0.4, 0.6), _standing("c", 0.1, 0.0, 0.2)]
    assert separated(apart, 2)
    assert {n: p.bonus for n, p in places(apart, (10.0, 6.0, 3.0)).items()} == {"a": 10.0, "b": 6.0, "c": 3.0}
