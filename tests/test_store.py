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


def test_notes_and_the_graded_file_round_trip(tmp_path: Path) -> None:
    """An entry's notes (warnings of its intake and build) and its graded file come back as written."""
    row = EntryRow("li", 0, "li.zip", "/o/files/li/mycodes.c:1", EntryKind.C, None, "",
                   ("li: graded mycodes.c; other copies, not graded: backup/mycodes.c",), "mycodes.c")
    with Store.open(tmp_path, create=True) as s:
        s.set_entries([row])
    with Store.open(tmp_path) as s:
        assert s.entries() == [row]


def test_a_schema_1_store_is_still_read(tmp_path: Path) -> None:
    """A results.sqlite of schema 1 (no notes or graded column) reads, with no notes."""
    db = sqlite3.connect(str(tmp_path / DB_NAME))
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE entries (name TEXT PRIMARY KEY, position INTEGER NOT NULL, source TEXT NOT NULL,
            spec TEXT NOT NULL, kind TEXT NOT NULL, error TEXT, messages TEXT NOT NULL DEFAULT '');
        CREATE TABLE matches (key TEXT PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, idx INTEGER NOT NULL,
            seed INTEGER NOT NULL, names TEXT NOT NULL, outcome TEXT NOT NULL, finished_at REAL NOT NULL);
        INSERT INTO meta VALUES ('schema', '1');
        INSERT INTO entries VALUES ('li', 0, 'li.c', 'li.c:1', 'c', NULL, '');
    """)
    db.commit()
    db.close()
    with Store.open(tmp_path) as s:
        assert s.entries() == [EntryRow("li", 0, "li.c", "li.c:1", EntryKind.C, None, "")]
        s.add_outcome(_outcome())
        assert s.count() == 1


def test_a_name_that_is_not_utf8_never_breaks_the_store(tmp_path: Path) -> None:
    """A lone surrogate (a file name that was not UTF-8) is stored escaped, not 'surrogates not allowed'."""
    bad = "subs/\udcd5\udcc5"
    with Store.open(tmp_path, create=True) as s:
        s.set_entries([EntryRow("x", 0, bad, bad + ":1", EntryKind.C, None, "", (bad,), bad)])
        s.set_meta("title", bad)
        (e,) = s.entries()
    assert e.source == "subs/\\udcd5\\udcc5" and e.notes == (e.source,)


def _damaged_store(tmp_path: Path, damage: str) -> int:
    """A store of one entry and two matches, then ``damage`` done to it; the number of its tables."""
    with Store.open(tmp_path, create=True) as s:
        s.set_meta("config", {"seed": 1})
        s.set_entries([EntryRow("li", 0, "li.c", "li.c:1", EntryKind.C, None, ""),
                       EntryRow("wang", 1, "wang.c", "wang.c:1", EntryKind.C, None, "")])
        s.add_outcome(_outcome("k1"))
        s.add_outcome(_outcome("k2", idx=1))
        s.add_outcome(_outcome("w1", subject="wang"))
    db = sqlite3.connect(str(tmp_path / DB_NAME))
    db.execute(damage)
    db.commit()
    tables = int(db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0])
    db.close()
    return tables


@pytest.mark.parametrize("damage, named", [
    ("UPDATE matches SET outcome = '{\"reason\": ' WHERE key = 'k1'", "match 'k1' (of li) is damaged"),
    ("UPDATE matches SET outcome = json_remove(outcome, '$.fouls') WHERE key = 'k1'",
     "match 'k1' (of li) is damaged (missing key 'fouls')"),
    ("UPDATE matches SET names = '[1, ' WHERE key = 'k1'", "match 'k1' (of li) is damaged"),
    ("UPDATE matches SET outcome = json_set(outcome, '$.ranks', json('[1]')) WHERE key = 'k1'",
     "match 'k1' (of li) is damaged (1 ranks for 2 seats)"),
    ("UPDATE matches SET outcome = json_set(outcome, '$.seat', 7) WHERE key = 'k1'",
     "match 'k1' (of li) is damaged (seat 7 of 2)"),
    ("UPDATE entries SET kind = 'fortran' WHERE name = 'li'", "entry 'li' is damaged"),
    ("UPDATE entries SET notes = 'not json' WHERE name = 'li'", "entry 'li' is damaged"),
])
def test_a_damaged_row_of_one_submission_is_named_and_the_rest_is_read(tmp_path: Path, damage: str,
                                                                       named: str) -> None:
    """A row of one submission with bad JSON, a missing key or values that do not fit: skipped and named in one line
    (Store.damaged), every other row read, and nothing dropped or repaired (RULES.md, grade_store_damage)."""
    _damaged_store(tmp_path, damage)
    with Store.open(tmp_path) as s:
        entries = s.entries()
        keys = [r.key for r in s.matches()]
        (d,) = s.damaged.values()
        line = d.line(s.path)
    assert named in line and "\n" not in line and d.subject == "li"
    assert "wang" in [e.name for e in entries if e.error is None] and "w1" in keys
    if d.table == "entry":
        assert [e.error is not None for e in entries] == [True, False] and keys == ["k1", "k2", "w1"]
    else:
        assert keys == ["k2", "w1"]
    db = sqlite3.connect(str(tmp_path / DB_NAME))
    assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 3
    db.close()


@pytest.mark.parametrize("damage, named", [
    ("UPDATE meta SET value = '{' WHERE key = 'config'", "the run's 'config' is damaged"),
    ("DROP TABLE matches", "cannot be read (no such table: matches)"),
])
def test_damage_that_is_no_single_submissions_is_one_line_and_nothing_changes(tmp_path: Path, damage: str,
                                                                              named: str) -> None:
    """A damaged configuration or a dropped table: one StoreError line naming it; nothing changes."""
    before = _damaged_store(tmp_path, damage)
    with Store.open(tmp_path) as s:
        with pytest.raises(StoreError) as e:
            s.meta("config")
            list(s.matches())
    assert named in str(e.value) and "\n" not in str(e.value)
    db = sqlite3.connect(str(tmp_path / DB_NAME))
    assert db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == before
    if "DROP" not in damage:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 3
    db.close()


def test_a_failed_write_is_one_line_and_keeps_what_was_stored(tmp_path: Path) -> None:
    """A write that fails (here: a read-only database, as a full disk fails) is one StoreError; stored rows stay."""
    with Store.open(tmp_path, create=True) as s:
        s.add_outcome(_outcome("k1"))
    ro = Store(tmp_path / DB_NAME, sqlite3.connect(f"file:{tmp_path / DB_NAME}?mode=ro", uri=True))
    with pytest.raises(StoreError, match="cannot store match 'k2'"):
        ro.add_outcome(_outcome("k2", idx=1))
    ro.close()
    with Store.open(tmp_path) as s:
        assert s.keys() == {"k1"}


# -- kill -9 while a run's store is created (issue 34, item 8) ---------------------------------------------------

#: Runs ``twentyone`` (argv[2:]) and kills itself with SIGKILL at the argv[1]-th call of a method of an SQLite
#: connection (execute, executescript, commit ...): ``kill -9`` at an exact instant of the store's creation.
#: The counting profile is installed when the first connection is opened (no such call comes before it): the
#: command's start-up runs at full speed.
_KILL_AT_CALL = r"""
import os, signal, sqlite3, sys
target, seen = int(sys.argv[1]), [0]

def profile(frame, event, arg):
    if event == "c_call" and isinstance(getattr(arg, "__self__", None), sqlite3.Connection):
        seen[0] += 1
        if seen[0] == target:
            os.kill(os.getpid(), signal.SIGKILL)

connect = sqlite3.connect

def counted(*args, **kwargs):
    sys.setprofile(profile)
    return connect(*args, **kwargs)

sqlite3.connect = counted
from twentyone.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.slow
def test_a_store_killed_while_it_is_created_is_absent_or_complete(tmp_path: Path) -> None:
    """kill -9 at each of the first SQLite calls of a grade (the store's creation among them) leaves no store or
    a complete one: never one that --resume cannot open ('no such table: meta'); --resume then finishes it, or a
    new grade starts in the same folder."""
    import subprocess
    import sys

    from tests.test_grading import STAND_PY, _small_toml

    cfg = _small_toml(tmp_path)
    complete = 0
    for k in (1, 3, 8, 14, 20, 21, 22, 26, 40):  # the tables, the run's setup, its publication, its first matches
        out = tmp_path / f"k{k}"
        r = subprocess.run([sys.executable, "-c", _KILL_AT_CALL, str(k), "grade", str(STAND_PY), "--config",
                            str(cfg), "--out", str(out), "-q", "-j", "1"], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == -9, (k, r.returncode, r.stderr)
        if Store.exists(out):
            with Store.open(out) as s:  # complete: a run's kind is its last line
                assert s.meta("kind") == "grade" and s.entries(), k
            complete += 1
            again = ["grade", "--resume", "--out", str(out), "-q", "-j", "1"]
        else:
            again = ["grade", str(STAND_PY), "--config", str(cfg), "--out", str(out), "-q", "-j", "1"]
        r = subprocess.run([sys.executable, "-m", "twentyone", *again], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (k, again[1], r.stderr)
        assert not list(out.glob(".results.sqlite.*")), k  # no temporary file left behind
    assert complete, "no kill landed after the store was made: the test did not reach it"
