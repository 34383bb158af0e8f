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


def test_table5_small_field_rotates_seats() -> None:
    """Five or fewer sit at one table and every entry takes every seat in turn."""
    assert tables(3, 0, 1) == [[0, 1, 2]] and tables(3, 1, 1) == [[1, 2, 0]]
    seats = Counter((e, t[0].index(e)) for d in range(5) for t in [tables(5, d, 9)] for e in range(5))
    assert set(seats.values()) == {1} and len(seats) == 25


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
