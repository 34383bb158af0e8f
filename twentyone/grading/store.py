"""The results database of a grading or tournament run: one SQLite file, ``results.sqlite`` in ``--out``.

Every match is written in its own transaction the moment it finishes, so a run killed at any point
(even with ``kill -9``) keeps every finished match, and ``--resume`` plays only the rest: a match's key
is its primary key, so it can never be stored twice.  Reports are made from this file alone.

Tables: ``meta`` (kind, title, configuration, created), ``entries`` (the submissions or tournament
players, with any error that kept one out), ``matches`` (one row per finished match: its purpose,
subject, index, seed, the names at each seat and the whole outcome as JSON).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.grading.outcome import EntryKind, JobInfo, MatchOutcome

__all__ = ["Store", "EntryRow", "MatchRow", "DB_NAME", "StoreError"]

DB_NAME = "results.sqlite"
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    name TEXT PRIMARY KEY, position INTEGER NOT NULL, source TEXT NOT NULL, spec TEXT NOT NULL,
    kind TEXT NOT NULL, error TEXT, messages TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS matches (
    key TEXT PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, idx INTEGER NOT NULL,
    seed INTEGER NOT NULL, names TEXT NOT NULL, outcome TEXT NOT NULL, finished_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS matches_by_subject ON matches (purpose, subject, idx);
"""


class StoreError(TwentyOneError, OSError):
    """The results database cannot be created, opened or read."""


@dataclass(frozen=True)
class EntryRow:
    """A submission or tournament player as stored."""

    name: str
    position: int
    source: str
    spec: str
    kind: EntryKind
    error: str | None
    messages: str


@dataclass(frozen=True)
class MatchRow:
    """A finished match as stored, its outcome read back into a ``MatchOutcome``."""

    key: str
    purpose: str
    subject: str
    idx: int
    seed: int
    names: list[str]
    outcome: MatchOutcome


class Store:
    """An open results database."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn

    @classmethod
    def exists(cls, out: Path) -> bool:
        """True when ``out`` already holds a results database."""
        return (out / DB_NAME).is_file()

    @classmethod
    def open(cls, out: Path, create: bool = False) -> Store:
        """Open ``out/results.sqlite``; with ``create`` make the folder and the tables first."""
        path = out / DB_NAME
        if not create and not path.is_file():
            raise StoreError(f"no results database in {str(out)!r} (expected {DB_NAME})")
        try:
            if create:
                out.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            if create:
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                conn.commit()
            version = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open results database {str(path)!r}: {e}") from None
        if version is None or version[0] != SCHEMA_VERSION:
            conn.close()
            raise StoreError(f"{str(path)!r} is not a twentyone results database of this version")
        return cls(path, conn)

    def close(self) -> None:
        """Close the database."""
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        """Store ``value`` (as JSON) under ``key``."""
        self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, ensure_ascii=False)))
        self._conn.commit()

    def meta(self, key: str, default: Any = None) -> Any:
        """The value stored under ``key``, or ``default``."""
        row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None or key == "schema" else json.loads(row[0])

    # -- entries -----------------------------------------------------------------------------
    def set_entries(self, rows: list[EntryRow]) -> None:
        """Store the entries (replacing any stored before)."""
        with self._conn:
            self._conn.execute("DELETE FROM entries")
            self._conn.executemany(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(r.name, r.position, r.source, r.spec, r.kind, r.error, r.messages) for r in rows])

    def entries(self) -> list[EntryRow]:
        """The entries in their original order."""
        return [EntryRow(name, pos, source, spec, EntryKind(kind), error, messages) for name, pos, source, spec, kind,
                error, messages in self._conn.execute(
                    "SELECT name, position, source, spec, kind, error, messages FROM entries ORDER BY position")]

    # -- matches -----------------------------------------------------------------------------
    def add_outcome(self, o: MatchOutcome) -> bool:
        """Store a finished match in its own transaction; False if its key was already there."""
        info = o.info
        with self._conn:
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (o.key, info.purpose, info.subject, info.idx, info.seed, json.dumps(list(info.names), ensure_ascii=False),
                 json.dumps(o.to_dict(), ensure_ascii=False, separators=(",", ":")), time.time()))
        return cur.rowcount == 1

    def keys(self) -> set[str]:
        """The keys of every stored match."""
        return {r[0] for r in self._conn.execute("SELECT key FROM matches")}

    def count(self) -> int:
        """Matches stored."""
        return int(self._conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def matches(self, purpose: str | None = None, subject: str | None = None) -> Iterator[MatchRow]:
        """Stored matches, optionally of one purpose and subject, in (purpose, subject, idx) order."""
        sql = "SELECT key, purpose, subject, idx, seed, names, outcome FROM matches"
        cond, args = [], []
        if purpose is not None:
            cond.append("purpose=?")
            args.append(purpose)
        if subject is not None:
            cond.append("subject=?")
            args.append(subject)
        if cond:
            sql += " WHERE " + " AND ".join(cond)
        sql += " ORDER BY purpose, subject, idx"
        for key, p, s, idx, seed, names, outcome in self._conn.execute(sql, args):
            who = json.loads(names)
            d = json.loads(outcome)
            info = JobInfo(p, s, idx, seed, tuple(who), d.get("seat"))
            yield MatchRow(key, p, s, idx, seed, who, MatchOutcome.from_dict(d, key, info))
