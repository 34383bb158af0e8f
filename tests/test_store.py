"""The results database: every match once, kept across crashes, readable alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from twentyone.store import DB_NAME, EntryRow, Store, StoreError


def _outcome(rounds: int = 3) -> dict[str, object]:
    return {"rounds": rounds, "accounts": [1010, 990], "ranks": [1, 2], "faults": [None, None], "seat": 1}


def test_a_match_is_stored_once(tmp_path: Path) -> None:
    """The second write of the same key is ignored: a resumed run can never duplicate a match."""
    with Store.open(tmp_path, create=True) as s:
        assert s.add_match("k1", "beat_stand", "li", 0, 7, ["li", "stand"], _outcome())
        assert not s.add_match("k1", "beat_stand", "li", 0, 7, ["li", "stand"], _outcome(9))
        assert s.count() == 1 and s.keys() == {"k1"}
        (row,) = s.matches()
        assert row.outcome["rounds"] == 3 and row.names == ["li", "stand"]


def test_meta_and_entries_round_trip(tmp_path: Path) -> None:
    """Configuration and entries come back as written, in order."""
    rows = [EntryRow("wang", 1, "w.c", "w.c:1", "c", None, ""), EntryRow("li", 0, "l.c", "", "c", "bad", "l.c:1: e")]
    with Store.open(tmp_path, create=True) as s:
        s.set_meta("config", {"seed": 3, "名字": "李"})
        s.set_entries(rows)
    with Store.open(tmp_path) as s:
        assert s.meta("config") == {"seed": 3, "名字": "李"} and s.meta("missing", 5) == 5
        assert [e.name for e in s.entries()] == ["li", "wang"]


def test_each_match_is_committed_at_once(tmp_path: Path) -> None:
    """Another connection sees a match as soon as add_match returns (what survives kill -9)."""
    with Store.open(tmp_path, create=True) as s:
        s.add_match("k1", "legal", "li", 0, 1, ["li"], _outcome())
        other = sqlite3.connect(str(tmp_path / DB_NAME))
        assert other.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 1
        other.close()


def test_matches_filter_and_order(tmp_path: Path) -> None:
    """Matches of one purpose and subject come back in index order."""
    with Store.open(tmp_path, create=True) as s:
        for i in (2, 0, 1):
            s.add_match(f"a{i}", "beat_basic", "li", i, i, ["li", "basic"], _outcome())
        s.add_match("b", "beat_basic", "wang", 0, 0, ["wang", "basic"], _outcome())
        assert [r.idx for r in s.matches("beat_basic", "li")] == [0, 1, 2]
        assert len(list(s.matches())) == 4


def test_missing_or_foreign_database(tmp_path: Path) -> None:
    """Opening a folder without a database, or a foreign SQLite file, is one clear error."""
    with pytest.raises(StoreError, match="no results database"):
        Store.open(tmp_path)
    sqlite3.connect(str(tmp_path / DB_NAME)).execute("CREATE TABLE meta (key TEXT, value TEXT)")
    with pytest.raises(StoreError, match="not a twentyone results database"):
        Store.open(tmp_path)
