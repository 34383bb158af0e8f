"""The results database of a grading or tournament run: one SQLite file, ``results.sqlite`` in ``--out``.

Every match is written in its own transaction the moment it finishes, so a run killed at any point
(even with ``kill -9``) keeps every finished match, and ``--resume`` plays only the rest: a match's key
is its primary key, so it can never be stored twice.  A new database is built whole in a temporary file
and then renamed (``Store.create``): at every instant it is absent or complete.  Reports are made from this
file alone.

Tables: ``meta`` (kind, title, configuration, created), ``entries`` (the submissions or tournament
players, with any error that kept one out, the warnings of their intake and build as a JSON list in
``notes``, and the graded file as shown in ``graded``), ``matches`` (one row per finished match: its
purpose, subject, index, seed, the names at each seat and the whole outcome as JSON), ``sources`` (the
text of each graded file and of the course's templates, for the similarity page; a store made before it
has none), and ``replaced`` (matches set aside by a late or resubmitted hand-in: ``replace_handins``).  Schema 1 (no ``notes`` or ``graded``) is still read.

Nothing here ever deletes or rewrites a stored match; one played by a hand-in that was since replaced is moved,
whole, to ``replaced``.  A failure of the database is a ``StoreError`` with
one line: a full disk while storing (the matches stored before stay), or a database that cannot be read
(damaged pages, a dropped table, a damaged configuration).  A row of one submission that is not what was
stored (bad JSON, a missing key, values that do not fit together) stops nobody else: it is skipped, kept as
it is, and named in ``Store.damaged`` (``Damage``), so that the reports name it and leave that submission
ungraded while every other one is graded (RULES.md, **grade_store_damage**).

What a strategy returned is stored exactly: an outcome that holds text no UTF-8 file can (a lone surrogate
returned as an action) is written as ASCII JSON, whose escapes read back as the very same characters.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.grading.outcome import EntryKind, JobInfo, MatchOutcome
from twentyone.safetext import visible

__all__ = ["Store", "EntryRow", "MatchRow", "SourceRow", "Damage", "DB_NAME", "StoreError"]

DB_NAME = "results.sqlite"
SCHEMA_VERSION = "2"
#: Versions this module reads (and continues: a resumed run never rewrites its entries).
READABLE_VERSIONS = ("1", "2")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    name TEXT PRIMARY KEY, position INTEGER NOT NULL, source TEXT NOT NULL, spec TEXT NOT NULL,
    kind TEXT NOT NULL, error TEXT, messages TEXT NOT NULL DEFAULT '',
    notes TEXT NOT NULL DEFAULT '[]', graded TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS matches (
    key TEXT PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, idx INTEGER NOT NULL,
    seed INTEGER NOT NULL, names TEXT NOT NULL, outcome TEXT NOT NULL, finished_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS matches_by_subject ON matches (purpose, subject, idx);
"""
#: Matches set aside when the hand-in they played was replaced, or the tournament's field changed (``replace_handins``).
_REPLACED = """CREATE TABLE IF NOT EXISTS replaced (
    key TEXT NOT NULL, purpose TEXT NOT NULL, subject TEXT NOT NULL, idx INTEGER NOT NULL,
    seed INTEGER NOT NULL, names TEXT NOT NULL, outcome TEXT NOT NULL, finished_at REAL NOT NULL,
    replaced_at REAL NOT NULL)"""
_SOURCES = """CREATE TABLE IF NOT EXISTS sources (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, shown TEXT NOT NULL, language TEXT NOT NULL, text TEXT NOT NULL)"""


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
    #: Warnings of the intake and the build, one line each (another copy not graded, PERSON switched off ...).
    notes: tuple[str, ...] = ()
    #: The graded file as shown to people: its path in the zip or folder, or the file's path.
    graded: str = ""


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


@dataclass(frozen=True)
class SourceRow:
    """The text of a graded file (``role`` ``submission``, named by its entry) or of a course template
    (``template``), as the similarity page reads it."""

    name: str
    role: str
    #: The file as shown to people.
    shown: str
    #: ``c``, ``cpp`` or ``py``.
    language: str
    text: str


@dataclass(frozen=True)
class Damage:
    """A stored row of one submission that is not what was stored: skipped, kept, and named."""

    #: ``match`` or ``entry``.
    table: str
    #: The row's primary key (a match's key, an entry's name).
    key: str
    #: The submission it belongs to: an entry's name, a match's subject ('' for a tournament match).
    subject: str
    #: The names at a match's seats, when they can be read.
    names: tuple[str, ...]
    #: What is wrong with it.
    detail: str

    def line(self, path: Path) -> str:
        """The one line that names it, with what to do."""
        what = f"match {self.key!r}" if self.table == "match" else f"entry {self.key!r}"
        whose = f" (of {self.subject})" if self.table == "match" and self.subject else ""
        return (f"results database {str(path)!r}: {what}{whose} is damaged ({self.detail}); it is left out and "
                "kept as it is: restore the file from a copy, or delete that row and continue with --resume "
                "to play it again")


class Store:
    """An open results database."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self.version = SCHEMA_VERSION
        #: The rows of single submissions found damaged so far, by (table, key): each read skips them.
        self.damaged: dict[tuple[str, str], Damage] = {}

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Turn a database that cannot be read into one StoreError line."""
        try:
            yield
        except sqlite3.Error as e:
            raise StoreError(f"results database {str(self.path)!r} cannot be read ({e}): nothing was changed; "
                             "restore it from a copy (sqlite3's .recover saves what is readable)") from None

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        """Turn a failed write (a full disk ...) into one StoreError line; what was stored before stays."""
        try:
            yield
        except sqlite3.Error as e:
            raise StoreError(f"cannot store {what} in {str(self.path)!r}: {e}") from None

    def _damaged(self, what: str, e: Exception) -> StoreError:
        return StoreError(f"results database {str(self.path)!r}: {what} is damaged ({_detail(e)}); nothing was "
                          "changed: restore the file from a copy, or delete that row to play it again with --resume")

    @classmethod
    def exists(cls, out: Path) -> bool:
        """True when ``out`` already holds a results database."""
        return (out / DB_NAME).is_file()

    def discard(self) -> None:
        """Close and delete this database with its WAL files: for a run refused before anything was stored."""
        self.close()
        for name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm", DB_NAME + "-journal"):
            (self.path.parent / name).unlink(missing_ok=True)

    @classmethod
    def open(cls, out: Path, create: bool = False) -> Store:
        """Open ``out/results.sqlite``; with ``create`` make it first when it is not there (``create``)."""
        path = out / DB_NAME
        if create and not path.is_file():
            return cls.create(out)
        if not path.is_file():
            raise StoreError(f"no results database in {str(out)!r} (expected {DB_NAME})")
        try:
            conn = sqlite3.connect(str(path), timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            version = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open results database {str(path)!r}: {e}") from None
        if version is None or version[0] not in READABLE_VERSIONS:
            conn.close()
            raise StoreError(f"{str(path)!r} is not a twentyone results database of this version")
        store = cls(path, conn)
        store.version = version[0]
        return store

    @classmethod
    def create(cls, out: Path, setup: Callable[[Store], None] | None = None) -> Store:
        """Create ``out/results.sqlite`` whole and open it: its tables, and whatever ``setup`` stores (a run's
        configuration and entries), are written into a temporary file beside it, which then takes the
        database's name in one step.  So at every instant, ``kill -9`` included, the database is either absent
        or complete: never a file without its tables (issue 34: "no such table: meta").  A temporary file left
        by a process that was killed is removed.  An existing database is never replaced (StoreError)."""
        path = out / DB_NAME
        tmp = out / f"{_TMP_PREFIX}{os.getpid()}{_TMP_SUFFIX}"
        try:
            out.mkdir(parents=True, exist_ok=True)
            _remove_stale(out)
            _unlink(tmp)
            conn = sqlite3.connect(str(tmp), timeout=30.0)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot create results database {str(path)!r}: {e}") from None
        building = cls(path, conn)
        try:
            with building._writing("the tables"):
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                conn.commit()
            if setup is not None:
                setup(building)
            conn.close()
            _publish(tmp, path)
        except BaseException:
            building.close()
            _unlink(tmp)
            raise
        return cls.open(out)

    def close(self) -> None:
        """Close the database (a failure to close, e.g. on a full disk, loses nothing committed)."""
        try:
            self._conn.close()
        except sqlite3.Error:
            pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        """Store ``value`` (as JSON) under ``key``."""
        with self._writing(f"the run's {key}"), self._conn:
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                               (key, _json(value)))

    def meta(self, key: str, default: Any = None) -> Any:
        """The value stored under ``key``, or ``default``."""
        with self._reading():
            row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        if row is None or key == "schema":
            return default
        try:
            return json.loads(row[0])
        except (ValueError, TypeError) as e:
            raise self._damaged(f"the run's {key!r}", e) from None

    # -- entries -----------------------------------------------------------------------------
    def set_entries(self, rows: list[EntryRow]) -> None:
        """Store the entries (replacing any stored before)."""
        with self._writing("the entries"), self._conn:
            self._conn.execute("DELETE FROM entries")
            self._conn.executemany(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [tuple(_storable(v) if isinstance(v, str) else v for v in (
                    r.name, r.position, r.source, r.spec, str(r.kind), r.error, r.messages,
                    _json(list(r.notes)), r.graded)) for r in rows])

    def entries(self) -> list[EntryRow]:
        """The entries in their original order.  An entry row that cannot be read is named in ``damaged`` and
        comes back as an entry that cannot play, its ``error`` saying why."""
        extra = ", notes, graded" if self.version != "1" else ", '[]', ''"
        with self._reading():
            rows = self._conn.execute("SELECT name, position, source, spec, kind, error, messages" + extra
                                      + " FROM entries ORDER BY position").fetchall()
        out = []
        for name, pos, source, spec, kind, error, messages, notes, graded in rows:
            try:
                out.append(EntryRow(str(name), int(pos), str(source), str(spec), EntryKind(kind),
                                    None if error is None else str(error), str(messages),
                                    tuple(str(n) for n in json.loads(notes)), str(graded)))
            except (ValueError, TypeError) as e:
                damage = Damage("entry", str(name), str(name), (), _detail(e))
                self.damaged[("entry", damage.key)] = damage
                out.append(EntryRow(str(name), pos if isinstance(pos, int) else len(rows), str(source), str(spec),
                                    EntryKind.UNKNOWN, f"its stored entry is damaged ({damage.detail}): not graded",
                                    ""))
        return out

    # -- sources -----------------------------------------------------------------------------
    def set_sources(self, rows: list[SourceRow]) -> None:
        """Store the source texts (replacing any stored before)."""
        with self._writing("the source files"), self._conn:
            self._conn.execute(_SOURCES)
            self._conn.execute("DELETE FROM sources")
            self._conn.executemany("INSERT INTO sources VALUES (?, ?, ?, ?, ?)",
                                   [tuple(_storable(v) for v in (r.name, r.role, r.shown, r.language, r.text))
                                    for r in rows])

    def sources(self) -> list[SourceRow]:
        """The stored source texts (none in a store made before they were kept)."""
        with self._reading():
            found = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='sources'")
            if found.fetchone() is None:
                return []
            rows = self._conn.execute("SELECT name, role, shown, language, text FROM sources ORDER BY rowid").fetchall()
        return [SourceRow(*(str(v) for v in r)) for r in rows]

    # -- late and resubmitted hand-ins -----------------------------------------------------------
    def replace_handins(self, rows: list[EntryRow], sources: list[SourceRow], set_aside: set[str],
                        history: dict[str, Any]) -> int:
        """Store the entries ``rows`` (new, or replacing the entries of their names) with their ``sources``, and
        move the matches whose keys are in ``set_aside`` to the table ``replaced`` (played by a hand-in that was
        replaced, or in a tournament whose field changed): all in one transaction, so a run killed meanwhile
        keeps the run as it was.  ``history`` is added to the run's ``history``.  The matches moved; nothing is
        deleted: ``replaced`` keeps them with the time they were set aside."""
        names = [r.name for r in rows]
        with self._writing("the late hand-ins"), self._conn:
            self._conn.execute(_SOURCES)
            self._conn.execute(_REPLACED)
            self._conn.execute("CREATE TEMP TABLE IF NOT EXISTS aside (key TEXT PRIMARY KEY)")
            self._conn.execute("DELETE FROM aside")
            self._conn.executemany("INSERT OR IGNORE INTO aside VALUES (?)", [(k,) for k in sorted(set_aside)])
            self._conn.execute("INSERT INTO replaced SELECT m.*, ? FROM matches m WHERE m.key IN "
                               "(SELECT key FROM aside)", (time.time(),))
            moved = self._conn.execute("DELETE FROM matches WHERE key IN (SELECT key FROM aside)").rowcount
            self._conn.executemany("DELETE FROM entries WHERE name=?", [(n,) for n in names])
            self._conn.executemany(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [tuple(_storable(v) if isinstance(v, str) else v for v in (
                    r.name, r.position, r.source, r.spec, str(r.kind), r.error, r.messages,
                    _json(list(r.notes)), r.graded)) for r in rows])
            self._conn.executemany("DELETE FROM sources WHERE role='submission' AND name=?", [(n,) for n in names])
            self._conn.executemany("INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?, ?)",
                                   [tuple(_storable(v) for v in (r.name, r.role, r.shown, r.language, r.text))
                                    for r in sources])
            row = self._conn.execute("SELECT value FROM meta WHERE key='history'").fetchone()
            past = json.loads(row[0]) if row is not None else []
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('history', ?)",
                               (_json([*(past if isinstance(past, list) else []), history]),))
        return moved

    def replaced_count(self) -> int:
        """Matches set aside by late and resubmitted hand-ins (``replace_handins``)."""
        with self._reading():
            found = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='replaced'")
            if found.fetchone() is None:
                return 0
            return int(self._conn.execute("SELECT COUNT(*) FROM replaced").fetchone()[0])

    # -- matches -----------------------------------------------------------------------------
    def add_outcome(self, o: MatchOutcome) -> bool:
        """Store a finished match in its own transaction; False if its key was already there."""
        info = o.info
        with self._writing(f"match {o.key!r}"), self._conn:
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (_storable(o.key), _storable(info.purpose), _storable(info.subject), info.idx, info.seed,
                 _json(list(info.names)), _exact_json(o.to_dict()), time.time()))
        return cur.rowcount == 1

    def keys(self) -> set[str]:
        """The keys of every stored match."""
        with self._reading():
            return {r[0] for r in self._conn.execute("SELECT key FROM matches")}

    def count(self) -> int:
        """Matches stored."""
        with self._reading():
            return int(self._conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def matches(self, purpose: str | None = None, subject: str | None = None,
                below: int | None = None) -> Iterator[MatchRow]:
        """Stored matches, optionally of one purpose and subject and with an index below ``below``, in (purpose,
        subject, idx) order.  A row that cannot be read as a match is skipped and named in ``damaged``."""
        sql = "SELECT key, purpose, subject, idx, seed, names, outcome FROM matches"
        cond: list[str] = []
        args: list[str | int] = []
        if below is not None:
            cond.append("idx < ?")
            args.append(below)
        if purpose is not None:
            cond.append("purpose=?")
            args.append(purpose)
        if subject is not None:
            cond.append("subject=?")
            args.append(subject)
        if cond:
            sql += " WHERE " + " AND ".join(cond)
        sql += " ORDER BY purpose, subject, idx"
        with self._reading():
            rows = self._conn.execute(sql, args)
            for key, p, s, idx, seed, names, outcome in rows:
                who: list[str] = []
                try:
                    who = _names(names)
                    if type(idx) is not int or type(seed) is not int:
                        raise ValueError(f"index {idx!r} and seed {seed!r} are not whole numbers")
                    d = json.loads(outcome)
                    if not isinstance(d, dict):
                        raise ValueError("the outcome is not a JSON object")
                    info = JobInfo(str(p), str(s), idx, seed, tuple(who), d.get("seat"))
                    row = MatchRow(str(key), str(p), str(s), idx, seed, who, MatchOutcome.from_dict(d, str(key), info))
                except (ValueError, TypeError, KeyError, AttributeError) as e:
                    damage = Damage("match", str(key), str(s), tuple(who), _detail(e))
                    self.damaged[("match", damage.key)] = damage
                    continue
                yield row


def _names(text: Any) -> list[str]:
    names = json.loads(text)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("the names are not a list of names")
    return names


def _detail(e: Exception) -> str:
    """What is wrong with a row, in a few words (a stored value can be long: the first 200 characters)."""
    detail = f"missing key {e}" if isinstance(e, KeyError) else str(e) or type(e).__name__
    return visible(detail, 200)


def _storable(text: str) -> str:
    """``text`` as SQLite can store it: a lone surrogate (a name that was not UTF-8) is escaped, never fatal."""
    return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def _clean(value: Any) -> Any:
    """``value`` with every string made storable (see ``_storable``), through lists and dicts."""
    if isinstance(value, str):
        return _storable(value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _exact_json(value: Any) -> str:
    """``value`` as compact JSON that reads back exactly: UTF-8 text when it can be, else ASCII with escapes (a
    lone surrogate is written ``\\ud800``, which ``json.loads`` reads back as that very character)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text


def _json(value: Any, separators: tuple[str, str] | None = None) -> str:
    """``value`` as JSON text that SQLite can store (its strings cleaned first, so JSON escapes cannot bring a
    lone surrogate back when it is read)."""
    text = json.dumps(value, ensure_ascii=False, separators=separators)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(_clean(value), ensure_ascii=False, separators=separators)
    return text


#: The temporary file a new database is built in (``Store.create``): ``.results.sqlite.PID.tmp``.
_TMP_PREFIX = "." + DB_NAME + "."
_TMP_SUFFIX = ".tmp"


def _unlink(path: Path) -> None:
    """Remove ``path`` and its rollback journal, if there."""
    for p in (path, path.with_name(path.name + "-journal")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def _remove_stale(out: Path) -> None:
    """Remove the temporary databases in ``out`` of processes that are gone (killed while creating a store)."""
    for p in out.glob(_TMP_PREFIX + "*" + _TMP_SUFFIX):
        pid = p.name[len(_TMP_PREFIX):-len(_TMP_SUFFIX)]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _unlink(p)
        except OSError:  # alive, another user's: left alone
            pass


def _publish(tmp: Path, path: Path) -> None:
    """Give the finished database ``tmp`` the name ``path`` in one step, never over a database already there
    (a hard link fails if the name is taken; where the file system has no hard links, a rename after a check)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise StoreError(f"results database {str(path)!r} appeared while this one was created: nothing was "
                         "changed") from None
    except OSError:
        if path.exists():
            raise StoreError(f"results database {str(path)!r} appeared while this one was created: nothing "
                             "was changed") from None
        os.replace(tmp, path)
    else:
        tmp.unlink()
    try:  # the new name, on disk (a crash of the machine, not only of the process)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
