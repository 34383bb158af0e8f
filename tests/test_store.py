"""The results database: every match once, kept across crashes, readable alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.outcomes import outcome
from twentyone.grading.outcome import EntryKind, MatchOutcome
from twentyone.grading.store import DB_NAME, EntryRow, Store, StoreError


def _outcome(key: str = "k1", purpose: str = "beat_stand", subject: str = "li", idx: int = 0,
             rounds: int = 3) -> MatchOutcome:
    return outcome([1, 2], accounts=[1010, 990], seat=1, purpose=purpose, subject=subject, idx=idx, seed=idx,
                   names=[subject, "stand"], key=key, rounds=rounds)


def test_a_match_is_stored_once(tmp_path: Path) -> None:
    """The second write of the same key is ignored: a resumed run can never duplicate a match."""
    with Store.open(tmp_path, create=True) as s:
        assert s.add_outcome(_outcome())
        assert not s.add_outcome(_outcome(rounds=9))
        assert s.count() == 1 and s.keys() == {"k1"}
        (row,) = s.matches()
        assert row.outcome == _outcome() and row.names == ["li", "stand"]


def test_meta_and_entries_round_trip(tmp_path: Path) -> None:
    """Configuration and entries come back as written, in order."""
    rows = [EntryRow("wang", 1, "w.c", "w.c:1", EntryKind.C, None, ""),
            EntryRow("li", 0, "l.c", "", EntryKind.C, "bad", "l.c:1: e")]
    with Store.open(tmp_path, create=True) as s:
        s.set_meta("config", {"seed": 3, "名字": "李"})
        s.set_entries(rows)
    with Store.open(tmp_path) as s:
        assert s.meta("config") == {"seed": 3, "名字": "李"} and s.meta("missing", 5) == 5
        assert [e.name for e in s.entries()] == ["li", "wang"]


def test_each_match_is_committed_at_once(tmp_path: Path) -> None:
    """Another connection sees a match as soon as add_match returns (what survives kill -9)."""
    with Store.open(tmp_path, create=True) as s:
        s.add_outcome(_outcome(purpose="legal"))
        other = sqlite3.connect(str(tmp_path / DB_NAME))
        assert other.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 1
        other.close()


def test_matches_filter_and_order(tmp_path: Path) -> None:
    """Matches of one purpose and subject come back in index order."""
    with Store.open(tmp_path, create=True) as s:
        for i in (2, 0, 1):
            s.add_outcome(_outcome(f"a{i}", "beat_basic", "li", i))
        s.add_outcome(_outcome("b", "beat_basic", "wang", 0))
        assert [r.idx for r in s.matches("beat_basic", "li")] == [0, 1, 2]
        assert len(list(s.matches())) == 4


def test_missing_or_foreign_database(tmp_path: Path) -> None:
    """Opening a folder without a database, or a foreign SQLite file, is one clear error."""
    with pytest.raises(StoreError, match="no results database"):
        Store.open(tmp_path)
    sqlite3.connect(str(tmp_path / DB_NAME)).execute("CREATE TABLE meta (key TEXT, value TEXT)")
    with pytest.raises(StoreError, match="not a twentyone results database"):
        Store.open(tmp_path)
