"""Late and resubmitted hand-ins into a stored grade: ``twentyone grade --resume --out grades NEW.c li.zip ...``.

Each hand-in given is taken through the intake, as ``grade`` takes it, and named; then, by its name:

- **new** (no stored entry of that name): it is added to the class;
- **changed** (its graded file's text differs from the one stored, or it could not be played and now can, or
  the reverse): it replaces the stored entry, and every match that entry played is set aside (moved to the
  store's ``replaced`` table, never deleted);
- **unchanged**: nothing happens to it.

Everything else (every other student's matches, the hand-ins not given) is kept.  The class tournament is then
played as a fresh grade of the class as it now is would play it, on the same seeds (RULES.md,
**grade_late_handins**): in ``duplicate`` (the default) only a new or changed hand-in's deals are played (each
player plays alone on a deal, so every other player's deals stand); in ``pairs`` only the pairs of a new or changed
hand-in are played (every other pair's
matches stand: a pair's matches depend on its two players alone), on every round already played and then as
the stop rule asks; in ``table5`` the tables of a deal are drawn from the whole field, so every deal is played
again (the stored tournament matches are set aside).  So the scores are those of a fresh grade of the final
class with the same seed, and the line printed names the deals (or rounds) that are played again.

A changed zip is unpacked into ``files/NAME/`` only once it is known to be changed; the files it replaces
go to ``files/.replaced/NAME-N/``.  The store is changed in one transaction (``Store.replace_handins``).
"""

from __future__ import annotations

import datetime as _dt
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from twentyone.errors import TwentyOneError
from twentyone.grading.config import GradingConfig
from twentyone.grading.grader import prepare_entries
from twentyone.grading.outcome import EntryKind
from twentyone.grading.store import EntryRow, SourceRow, Store
from twentyone.grading.submissions import find_submissions

__all__ = ["Late", "take_late", "STAGING", "REPLACED"]

#: Where the hand-ins given are unpacked first, to be compared (inside ``files/``).
STAGING = ".incoming"
#: Where the files of a replaced hand-in go (inside ``files/``).
REPLACED = ".replaced"


@dataclass
class Late:
    """What the late hand-ins changed."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    #: Matches set aside (moved to ``replaced``).
    set_aside: int = 0
    #: The tournament's stored units (deals or rounds) before, and how they are played again ('' if untouched).
    tournament: str = ""

    def lines(self) -> list[str]:
        """What happened, in a few lines for the terminal (the first says what was new or changed)."""
        def names(xs: list[str]) -> str:
            return ", ".join(xs) if xs else "none"

        if not self.added and not self.changed:
            return [f"late hand-ins: nothing new or changed (unchanged: {names(self.unchanged)}); the run continues"]
        out = [f"late hand-ins: added {names(self.added)}; replaced {names(self.changed)} (its file changed)"
               + (f"; unchanged {names(self.unchanged)}" if self.unchanged else "")
               + (f"; {self.set_aside} stored matches of the replaced hand-ins and the tournament set aside"
                  if self.set_aside else "")]
        if self.tournament:
            out.append(self.tournament)
        return out


def _text(rows: Sequence[SourceRow], name: str) -> str | None:
    return next((r.language + "\n" + r.text for r in rows if r.role == "submission" and r.name == name), None)


def _units(store: Store) -> int:
    """Units (deals or rounds) of the class tournament stored: the highest stored index, plus one."""
    return max((r.idx + 1 for r in store.matches("tournament")), default=0)


def _tournament_line(fmt: str, units: int, joined: list[str], changed: list[str], left: list[str]) -> str:
    """The line that says how the class tournament is played again."""
    who = "; ".join(x for x in (f"{', '.join(joined)} joined" if joined else "",
                                f"{', '.join(changed)} changed" if changed else "",
                                f"{', '.join(left)} can no longer play" if left else "") if x)
    played = f"1-{units}" if units > 1 else "1"
    if fmt == "duplicate":
        return (f"tournament ({who}): the deals of {', '.join(joined + changed) or 'nobody'} are played on the deals "
                f"already played ({played}), on the same seeds, then as the stop rule asks; every other player's deals "
                "stand: each plays alone on a deal (RULES.md, grade_late_handins)")
    if fmt == "pairs":
        return (f"tournament ({who}): the pairs of {', '.join(joined + changed) or 'nobody'} with every other player are "
                f"played on the rounds already played ({played}), on the same seeds, then as the stop rule asks; "
                "every other pair's matches stand (RULES.md, grade_late_handins)")
    return (f"tournament ({who}): every deal is played again for the new field ({'deals ' + played if units else 'none was played yet'}, "
            "on the same seeds, then as the stop rule asks): table5 draws each deal's tables from the whole field "
            "(RULES.md, grade_late_handins)")


def take_late(store: Store, config: GradingConfig, paths: Sequence[Path], files: Path) -> Late:
    """Add the new hand-ins among ``paths`` to the run in ``store`` and replace the changed ones (see the module
    docstring); ``files`` is the run's ``files/`` folder.  Nothing is changed when a hand-in given twice has
    one name (one line), and the store's change is one transaction."""
    from twentyone.grading.similarity.pairs import collect_sources
    from twentyone.players.files.intake import student_name

    stored = {e.name: e for e in store.entries()}
    names = [student_name(p) for p in paths]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TwentyOneError(f"--resume: {len(twice)} hand-in names are given more than once ({', '.join(twice)}): "
                             "give each student's hand-in once")
    staging = files / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    late = Late()
    known = store.sources()
    try:
        subs = find_submissions(list(paths), staging, names)
        fresh: list[tuple[Path, str]] = []
        for p, sub in zip(paths, subs):
            old = stored.get(sub.name)
            if old is None:
                late.added.append(sub.name)
                fresh.append((p, sub.name))
                continue
            if sub.error is not None or old.error is not None:
                same = sub.error is not None and old.error is not None and sub.error == old.error
            else:
                entry = EntryRow(sub.name, 0, sub.source, f"{sub.path}:{config.function_set}", EntryKind(sub.kind),
                                 None, "", (), sub.found.shown if sub.found else "")
                same = _text(collect_sources([entry]), sub.name) == _text(known, sub.name)
            if same:
                late.unchanged.append(sub.name)
            else:
                late.changed.append(sub.name)
                fresh.append((p, sub.name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not fresh:
        return late
    for _, name in fresh:  # the files a replaced hand-in was graded from are kept aside
        if (files / name).exists():
            n = 1
            while (files / REPLACED / f"{name}-{n}").exists():
                n += 1
            (files / REPLACED).mkdir(parents=True, exist_ok=True)
            (files / name).rename(files / REPLACED / f"{name}-{n}")
    rows = prepare_entries([p for p, _ in fresh], files, config, names=[n for _, n in fresh])
    top = max((e.position for e in stored.values()), default=-1)
    placed = []
    for row in rows:
        old = stored.get(row.name)
        if old is not None:
            placed.append(replace(row, position=old.position))
        else:
            top += 1
            placed.append(replace(row, position=top))
    aside = _set_aside(store, config, stored, placed, late)
    late.set_aside = store.replace_handins(placed, [s for s in collect_sources(placed) if s.role == "submission"],
                                           aside, {"when": _dt.datetime.now().isoformat(timespec="seconds"),
                                                   "added": late.added, "changed": late.changed,
                                                   "tournament": late.tournament})
    graded = sum(e.kind != EntryKind.BUILTIN for e in store.entries())
    store.set_meta("title", f"Grading of {graded} submission{'s' if graded != 1 else ''}")
    store.set_meta("copies", None)  # found again among the class as it now is (RULES.md, grade_copies)
    return late


def _set_aside(store: Store, config: GradingConfig, stored: dict[str, EntryRow], placed: list[EntryRow],
               late: Late) -> set[str]:
    """The keys of the stored matches the new entries ``placed`` make stale, and ``late.tournament`` said."""
    changed = set(late.changed)  # a criterion's or legal-play match's key is purpose|subject|...
    aside = {k for k in store.keys() if not k.startswith("tournament|") and k.split("|")[1:2] and
             k.split("|")[1] in changed}
    t = config.tournament
    if not t.enabled:
        return aside

    def plays(e: EntryRow | None) -> bool:
        return e is not None and e.error is None and e.kind != EntryKind.BUILTIN

    now = {r.name: r for r in placed}
    joined = [n for n in late.added if plays(now[n])]
    redone = [n for n in late.changed if plays(stored[n]) and plays(now[n])]
    joined += [n for n in late.changed if not plays(stored[n]) and plays(now[n])]
    left = [n for n in late.changed if plays(stored[n]) and not plays(now[n])]
    if not (joined or redone or left):
        return aside
    units = _units(store)
    late.tournament = _tournament_line(t.format, units, joined, redone, left)
    touched = set(redone) | set(left)
    for row in store.matches("tournament"):
        if t.format not in ("pairs", "duplicate") or touched & set(row.names):
            aside.add(row.key)
    return aside
