"""Running many matches: the same jobs give the same outcomes however they run."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from twentyone.errors import TwentyOneError
from twentyone.grading import criterion_jobs, match_key, outcome_row, tournament_jobs, win_count, winner_of
from twentyone.runner import MatchJob, parse_cluster, play_job, run_jobs
from twentyone.submissions import find_submissions

ROOT = Path(__file__).resolve().parent.parent
BASIC_C = str(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c")


def _jobs(n: int) -> list[MatchJob]:
    return criterion_jobs("beat_stand", "basic_c", BASIC_C + ":1", 0, n, 100, 6, None, None)


def test_criterion_jobs_share_seeds_and_alternate_seats() -> None:
    """Every submission gets the same seeds; the submission sits at seat 1, then 2, then 1 ..."""
    a = criterion_jobs("beat_basic", "li", "li.c:1", 0, 4, 7, 6, None, None)
    b = criterion_jobs("beat_basic", "wang", "wang.c:1", 0, 4, 7, 6, None, None)
    assert [j.seed for j in a] == [j.seed for j in b] == [7, 8, 9, 10]
    assert [j.specs for j in a] == [("li.c:1", "basic"), ("basic", "li.c:1")] * 2
    assert a[1].key == match_key("beat_basic", "li", "basic", 8, 2)


def test_tournament_jobs_round_robin() -> None:
    """Every pair meets ``matches`` times with seats alternating."""
    jobs = tournament_jobs([("a", "a.c"), ("b", "b.c"), ("c", "c.c")], 2, 1, 6, None, None)
    assert len(jobs) == 6 and {j.meta["opponent"] for j in jobs if j.meta["submission"] == "a"} == {"b", "c"}
    assert jobs[0].specs == ("a.c", "b.c") and jobs[1].specs == ("b.c", "a.c")


def test_pool_and_in_process_give_identical_outcomes() -> None:
    """A local process pool and one process play the same jobs to the same results."""
    jobs = _jobs(6)
    serial = {o.key: (o.accounts, o.ranks, o.rounds) for o in run_jobs(jobs, workers=1)}
    pooled = {o.key: (o.accounts, o.ranks, o.rounds) for o in run_jobs(jobs, workers=2, batch=2)}
    assert serial == pooled and len(serial) == 6


def test_outcome_row_sees_the_match_from_the_submission() -> None:
    """The store row names the winner from the submission's side, with its money and bankroll."""
    job = _jobs(2)[1]  # the submission at seat 2
    out = play_job(job)
    row = outcome_row(out, "run1")
    assert row["seat_of_submission"] == 2 and row["submission_account"] == out.accounts[1]
    assert row["winner"] == winner_of(out, 2)
    assert row["match_key"] == job.key


def test_a_player_that_cannot_be_built_is_an_error_outcome() -> None:
    """A job whose player cannot be built returns an outcome with the reason, not an exception."""
    out = play_job(MatchJob("k", (str(ROOT / "tests/fixtures/c/hostile/syntax_error.c:1"), "stand"), 1))
    assert out.error is not None and "does not compile" in out.error
    assert winner_of(out, 1) == "opponent"


def test_win_count_ties() -> None:
    """A tie counts half a win by default, nothing with ties='loss'."""
    assert win_count(["submission", "tie", "opponent"]) == (1.5, 3)
    assert win_count(["submission", "tie", "opponent"], ties="loss") == (1.0, 3)


def test_parse_cluster() -> None:
    """--cluster dask means a LocalCluster; dask:ADDRESS a scheduler; anything else is an error."""
    assert parse_cluster("dask") == "" and parse_cluster("dask:tcp://h:8786") == "tcp://h:8786"
    with pytest.raises(TwentyOneError, match="unknown cluster"):
        parse_cluster("spark")


def test_find_submissions(tmp_path: Path) -> None:
    """A .c, a .py, a folder and a zip are found and named; a zip with no strategy gets one line."""
    (tmp_path / "li.c").write_text("int bet1(int N){return 10;}")
    (tmp_path / "wang").mkdir()
    (tmp_path / "wang" / "mycodes.c").write_text("int bet1(int N){return 10;}")
    with zipfile.ZipFile(tmp_path / "zhao.zip", "w") as z:
        z.writestr("zhao/mycodes.c", "int bet1(int N){return 10;}")
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("readme.txt", "nothing here")
    subs = find_submissions([tmp_path / "li.c", tmp_path / "wang", tmp_path / "zhao.zip", tmp_path / "empty.zip",
                             tmp_path / "missing.py"], tmp_path / "work")
    assert [s.name for s in subs] == ["li", "wang", "zhao", "empty", "missing"]
    assert [s.kind for s in subs[:3]] == ["c", "c", "c"]
    assert subs[3].error is not None and "no strategy file" in subs[3].error
    assert subs[4].error is not None and "no such file" in subs[4].error
