"""The ``grade``, ``tournament`` and ``report`` commands: a run's store, its progress, its reports.

A run lives in one folder (``--out``): ``results.sqlite`` holds the configuration, the entries and
every finished match; the reports are made from it.  A folder that already holds a run is only
continued with ``--resume``, which plays exactly the matches still missing.

The write side (``grader``, ``runner``, the players) is imported only by ``grade`` and ``tournament``:
``report`` reads the store and writes the reports without loading the table, the sandbox or the C
bridge.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from twentyone.errors import TwentyOneError
from twentyone.grading.config import GradingConfig, Isolation, config_from_dict, draw_seed, stored_config
from twentyone.grading.outcome import EntryKind, MatchOutcome
from twentyone.grading.results import ClassReport
from twentyone.grading.scoring import class_report
from twentyone.grading.store import DB_NAME, EntryRow, SourceRow, Store, StoreError
from twentyone.safetext import MAX_SHOWN, visible

if TYPE_CHECKING:
    from twentyone.players.sandbox.limits import Limits

__all__ = ["Execution", "grade", "tournament", "report", "summary_table", "seed_line", "tournament_entries", "FILES",
           "RunInterrupted", "entry_notes", "sandbox_line"]

_T = TypeVar("_T")

#: The folder of ``--out`` that keeps what the matches need on disk: a zip's strategy file (and the headers
#: and main.c beside it), or a copy of a file whose path is not UTF-8, in ``files/NAME/``.
FILES = "files"


@dataclass(frozen=True)
class Execution:
    """Where and how the matches run, and what the terminal shows."""

    workers: int = 0
    cluster: str | None = None
    dask_workers: int = 2
    #: Show a progress bar (only on a terminal).
    progress: bool = True
    #: Where warnings go; the default shows them on the terminal, made visible (they quote students' files).
    warn: Callable[[str], None] = lambda m: print(f"twentyone: warning: {visible(m)}", file=sys.stderr)
    #: Where a line of information goes (the sandbox's layers).
    info: Callable[[str], None] = lambda m: print(f"twentyone: {m}", file=sys.stderr)


def sandbox_line(isolation: Isolation) -> str | None:
    """The one line that names the layers confining the submissions' code here (None when it runs trusted),
    found by starting a real box; PlayerSpecError (one line, what is missing) when this host cannot confine
    it.  Commands ask first and say it once their input is accepted."""
    if isolation.trusted:
        return None
    from twentyone.players.sandbox.doctor import layers_line

    return layers_line()


def _while_proving(isolation: Isolation, work: Callable[[], _T]) -> tuple[_T, str | None]:
    """``work()`` (preparing the submissions: their builds) and ``sandbox_line``, found on a thread meanwhile: a
    host's first proof waits mostly on its probes' boxes while the builds use the CPUs.  A host that cannot confine
    them refuses the run all the same, named first when ``work`` failed too; Ctrl-C does not wait for the proof."""
    if isolation.trusted:
        return work(), None
    import threading

    found: list[str | None] = []
    failed: list[BaseException] = []

    def look() -> None:
        try:
            found.append(sandbox_line(isolation))
        except BaseException as e:  # noqa: BLE001 - handed to the waiting caller
            failed.append(e)

    thread = threading.Thread(target=look, name="sandbox-proof", daemon=True)
    thread.start()

    def line() -> str | None:
        thread.join()
        if failed:
            raise failed[0]
        return found[0]

    try:
        made = work()
    except KeyboardInterrupt:
        raise
    except BaseException:
        line()
        raise
    return made, line()


def _say(line: str | None, execution: Execution) -> None:
    if line is not None:
        execution.info(line)


@contextmanager
def _progress(show: bool, what: str,
              work: Callable[[], tuple[float, float]] | None = None) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on a terminal; silence otherwise.  Yields update(done, plan).  With ``work`` (a grade's
    ``Grader.work``: seat-matches done and left), the time left is estimated from what is left, at the recent
    rate of work, and a line says when the plan changes (``grading.progress``); without, Rich's own estimate."""
    if not (show and sys.stderr.isatty()):
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    from twentyone.grading.progress import Eta, PlanNotes, format_eta

    eta, notes = Eta(), PlanNotes()
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("matches"),
               TimeElapsedColumn()]
    columns += [TextColumn("eta {task.fields[eta]}")] if work is not None else [TextColumn("eta"),
                                                                                 TimeRemainingColumn()]
    with Progress(*columns, transient=False, console=Console(stderr=True)) as bar:
        task = bar.add_task(what, total=None, eta="-")

        def update(done: int, total: int) -> None:
            shown = "-"
            if work is not None:
                eta.update(*work())
                shown = format_eta(eta.seconds())
                said = notes.note(done, max(total, done))
                if said is not None:
                    bar.console.print(f"twentyone: {said}", highlight=False, markup=False)
            bar.update(task, completed=done, total=max(total, done), eta=shown)

        yield update


def entry_error_line(e: EntryRow) -> str:
    """One line for an entry that cannot play: its error and, for a compile failure, the first error (in the first
    ``MAX_SHOWN`` characters of the messages), made visible (``safetext``: the messages quote the student's file)."""
    lines = e.messages[:MAX_SHOWN].splitlines()
    first = next((ln.strip() for ln in lines if re.search(r":\d++(:\d++)?+: (fatal )?error:|: link error: ", ln)), "")
    return visible(f"{e.name}: {e.error}" + (f": {first}" if first else ""))


class RunInterrupted(TwentyOneError):
    """Ctrl-C stopped a run: every finished match is stored, and the line says how to continue (exit 130)."""

    status = 130


def _refuse_existing(out: Path) -> None:
    """Refuse to start a run in ``out`` when it already holds one; a results database that holds no run (left
    by an older version when it refused a command) is removed, so that it never blocks the command."""
    if not Store.exists(out):
        return
    store = Store.open(out)
    if store.meta("kind") is None:
        store.discard()
        return
    store.close()
    raise TwentyOneError(f"{out} already holds a run: add --resume to continue it, or choose another --out")


def _resume_run(out: Path, kind: str) -> Store:
    """Open the run stored in ``out`` to continue it: it must be there, and of ``kind``."""
    if not Store.exists(out):
        raise TwentyOneError(f"{out} holds no run to continue: leave out --resume to start one there")
    store = Store.open(out)
    stored = store.meta("kind")
    if stored != kind:
        store.close()
        if stored is None:
            raise TwentyOneError(f"{out} holds no run to continue (its {DB_NAME} is empty): leave out --resume "
                                 "to start one there")
        raise TwentyOneError(f"{out} holds a {stored} run, not a {kind} run")
    return store


@contextmanager
def _nothing_left_if_refused(out: Path) -> Iterator[None]:
    """Around what a new run does before its store exists (unpacking zips into ``out/files``): if it is refused
    or interrupted there, remove what it made, so the corrected command finds ``out`` as it was."""
    existed, files_existed = out.exists(), (out / FILES).exists()
    try:
        yield
    except BaseException:
        if not existed:
            shutil.rmtree(out, ignore_errors=True)
        elif not files_existed:
            shutil.rmtree(out / FILES, ignore_errors=True)
        raise


def _new_run(out: Path, kind: str, title: str, config: dict[str, Any], entries: list[EntryRow],
             seed_drawn: bool = False) -> Store:
    """Create ``out``'s store for a run that passed every check, whole (``Store.create``: a run killed while it
    is set up leaves no store at all, and the next command starts afresh).  ``seed_drawn``: its base seed was
    drawn at random (RULES.md, **secret_seed**)."""

    def setup(store: Store) -> None:
        store.set_meta("seed_drawn", seed_drawn)
        store.set_meta("title", title)
        store.set_meta("created", _dt.datetime.now().isoformat(timespec="seconds"))
        store.set_meta("config", config)
        store.set_entries(entries)
        if kind == "grade":  # the graded files' text, for the similarity page
            from twentyone.grading.similarity.pairs import collect_sources

            store.set_sources(collect_sources(entries))
        store.set_meta("kind", kind)

    return Store.create(out, setup)


def _continue_command(command: str, out: Path) -> str:
    """The command that continues the run in ``out``, quoted for a POSIX shell so that it works as printed."""
    return f"twentyone {command} --resume --out {shlex.quote(str(out))}"


def _same_sources(stored: Sequence[EntryRow], given: Sequence[str]) -> None:
    from twentyone.players.files.intake import readable

    if given and [e.source for e in stored] != [readable(g) for g in given]:
        raise TwentyOneError("--resume continues the stored run: give the same players or submissions as before "
                             "(or none)")


def _unchanged_files(store: Store, now: Sequence[SourceRow]) -> None:
    """Refuse to resume a grade whose graded files were changed or removed since it began: the matches stored
    played the files as they were, and the rest would play them as they are."""
    current = {s.name: s.text for s in now if s.role == "submission"}
    for s in store.sources():
        if s.role != "submission" or current.get(s.name) == s.text:
            continue
        what = "can no longer be read" if s.name not in current else "has changed"
        raise TwentyOneError(f"--resume: {s.name}'s graded file {s.shown} {what} since the run began; its stored "
                             "matches played the file as it was: put that file back, or give the hand-in again to "
                             "grade it anew (twentyone grade --resume --out DIR HAND-IN)")


def _finish_run(store: Store, out: Path, execution: Execution, reports: bool = True) -> ClassReport:
    """``_finish`` at the end of ``grade`` or ``tournament``: Ctrl-C while the reports are written says that every
    match is stored and how to write them.  Without ``reports`` only the scores are made (``ClassReport``)."""
    if not reports:
        return class_report(store)
    try:
        return _finish(store, out, execution)
    except KeyboardInterrupt:
        raise RunInterrupted(f"interrupted while writing the reports: all {_stored(store)} matches are stored in "
                             f"{out}; write the reports with: twentyone report {shlex.quote(str(out))}") from None


def _finish(store: Store, out: Path, execution: Execution) -> ClassReport:
    dropped: set[str] = set()  # matches stored only by the workers' timing: no page counts them
    rep = class_report(store, dropped)
    for line in rep.damaged:  # a damaged row of one submission: named, and everyone else is reported
        execution.warn(line)
    sim = None
    if rep.kind == "grade":  # the similarity page (grading.similarity), from the store alone too
        from twentyone.grading.similarity.pairs import similarity_of

        sim = similarity_of(store, dropped)
        rep.similarity = sim.summary()
    write_all(rep, out, execution.warn)
    if sim is not None:
        from twentyone.grading.similarity.pages import write_similarity

        try:
            write_similarity(sim, out)
        except OSError as e:
            raise TwentyOneError(f"cannot write the similarity pages in {str(out)!r}: {e.strerror or e}") from None
    return rep


def write_all(rep: ClassReport, out: Path, warn: Callable[[str], None]) -> list[Path]:
    """Write every report of ``rep`` into ``out``."""
    from twentyone.grading.report import write_reports

    try:
        return write_reports(rep, out)
    except OSError as e:
        raise TwentyOneError(f"cannot write the reports in {str(out)!r}: {e.strerror or e}") from None


def _interrupted(store: Store, out: Path, command: str) -> RunInterrupted:
    return RunInterrupted(f"interrupted: {_stored(store)} matches are stored in {out}; "
                          f"continue with: {_continue_command(command, out)}")


def _stored(store: Store) -> str:
    try:
        return str(store.count())
    except StoreError:
        return "the"


def _store_failed(e: StoreError, store: Store, out: Path, command: str) -> StoreError:
    """A store that failed while playing (a full disk): the line says what is kept and how to continue."""
    return StoreError(f"{e}; {_stored(store)} matches stored before are kept: free some space, then continue "
                      f"with: {_continue_command(command, out)}")


def entry_notes(entries: Sequence[EntryRow]) -> list[str]:
    """Every entry's notes as the terminal shows them, once each, each naming its student (``notes.named``)."""
    from twentyone.grading.notes import named

    return list(dict.fromkeys(named(n, e.name, e.source, re.sub(r":[1-5]$", "", e.spec))
                              for e in entries for n in e.notes))


def _show_entries(entries: Sequence[EntryRow], warn: Callable[[str], None]) -> None:
    """Each entry's notes (once each, named), then the error line of each entry that cannot play."""
    for note in entry_notes(entries):
        warn(note)
    for e in entries:
        if e.error is not None:
            warn(entry_error_line(e))


def grade(submissions: Sequence[Path], config: GradingConfig | None, out: Path, resume: bool,
          execution: Execution, config_given: bool = False, reports: bool = True) -> ClassReport:
    """Grade ``submissions`` into ``out`` (or continue the run there) and write the reports (``reports``: false
    makes the scores only, as the autograders do).

    Every check that can refuse a new run (no submissions, a folder that holds a run) is made before anything
    is written, and a run refused or interrupted while its submissions are prepared leaves nothing behind.
    """
    from twentyone.grading.grader import Grader, prepare_entries

    if resume:
        store = _resume_run(out, "grade")
        try:
            stored_cfg = stored_config(store.meta("config", {}))
            if config is not None and config.seed is None:  # no seed given: the run's own is kept
                config = replace(config, seed=stored_cfg.seed)
            if config_given and config is not None and config != stored_cfg:
                raise TwentyOneError("--resume continues the stored run: its configuration differs from --config")
            config = stored_cfg
            line = sandbox_line(config.isolation)
            if submissions:  # late and resubmitted hand-ins: the new and changed are graded, the rest kept
                from twentyone.grading.late import take_late

                for said in take_late(store, config, submissions, out / FILES).lines():
                    execution.info(said)
            entries = store.entries()
            from twentyone.grading.similarity.pairs import collect_sources

            if not store.sources():  # a run stored before the graded files' text was kept
                store.set_sources(collect_sources(entries))
            _unchanged_files(store, collect_sources(entries))
        except BaseException:
            store.close()
            raise
    else:
        if not submissions:
            raise TwentyOneError("no submissions: give mycodes.c files, .py files, folders or zips")
        if len(submissions) == 1:  # a folder of hand-ins, given alone: the class, never one student (GRADING.md)
            from twentyone.grading.submissions import several_handins

            several = several_handins(submissions[0])
            if several is not None:
                raise TwentyOneError(several)
        _refuse_existing(out)
        config = config or GradingConfig()
        drawn = config.seed is None
        config = seeded = config.seeded()  # a secret seed unless one is pinned (RULES.md, secret_seed)
        with _nothing_left_if_refused(out):
            entries, line = _while_proving(config.isolation,
                                           lambda: prepare_entries(submissions, out / FILES, seeded, warn=None))
            entries += reference_entries(config, len(entries))
            graded = len(entries) - len(config.reference)
            store = _new_run(out, "grade", f"Grading of {graded} submission{'s' if graded != 1 else ''}",
                             config.to_dict(), entries, seed_drawn=drawn)
    try:
        _show_entries([e for e in entries if ("entry", e.name) not in store.damaged], execution.warn)
        _say(line, execution)
        holder: list[Grader] = []
        with _progress(execution.progress, "grading", lambda: holder[0].work()) as update:
            grader = Grader(store, config, entries, on_match=update)
            holder.append(grader)
            try:
                grader.run(execution.workers, execution.cluster, execution.dask_workers)
            except KeyboardInterrupt:
                raise _interrupted(store, out, "grade") from None
            except StoreError as e:
                raise _store_failed(e, store, out, "grade") from None
        return _finish_run(store, out, execution, reports)
    finally:
        store.close()


def reference_entries(config: GradingConfig, first: int) -> list[EntryRow]:
    """The built-in players graded beside the class, without points (``config.reference``)."""
    note = ("a reference line: a built-in player graded beside the class for comparison, without points "
            "(champion is the best known player)")
    return [EntryRow(f"{name} (reference)", first + i, name, name, EntryKind.BUILTIN, None, "", (note,))
            for i, name in enumerate(config.reference)]


def tournament_entries(specs: Sequence[str], files: Path, limits: Limits | None = None) -> list[EntryRow]:
    """Name and check each tournament SPEC through the intake; a file that cannot be used keeps its error line.

    A built-in is named by itself; a file, folder or zip by its student (``players.intake.student_name``),
    with ``.c``, ``.cpp`` or ``.py`` added when that would clash with a built-in or an earlier entry, then
    ``_2``, ``_3`` ...  A zip's strategy file is unpacked into ``files/NAME``.  A malformed SPEC (``:K``
    not 1..5) is an error before anything is built.
    """
    from concurrent.futures import ThreadPoolExecutor

    from twentyone.grading.grader import check_player, strategy_class
    from twentyone.players.files.intake import IntakeError, readable, student_name, take
    from twentyone.players.spec import builtin_name, make_strategy, parse_spec

    builtins = [builtin_name(spec) for spec in specs]  # the built-in players and chart:FILE (data, not code)
    parsed = [(spec, None) if b is not None else parse_spec(spec) for spec, b in zip(specs, builtins)]
    names: list[str] = []
    seen: set[str] = set()
    for spec, b, (target, k) in zip(specs, builtins, parsed):
        if b is not None:
            name = b
        else:
            base = student_name(Path(target)) + (f"_{k}" if k and k != 1 else "")
            suffix = Path(target).suffix.lower().lstrip(".")
            name = base
            if (name in seen or builtin_name(name) == name) and suffix in ("c", "cpp", "py"):
                name = f"{base}.{suffix}"
        unique, i = name, 2
        while unique in seen or (b is None and builtin_name(unique) == unique):
            unique, i = f"{name}_{i}", i + 1
        seen.add(unique)
        names.append(unique)

    def check(pos: int) -> EntryRow:
        spec, (target, k), name = specs[pos], parsed[pos], names[pos]
        if builtins[pos] is not None:
            try:
                make_strategy(spec).close()  # a chart file that does not parse is this entry's one line
            except TwentyOneError as e:
                return EntryRow(name, pos, spec, spec, EntryKind.BUILTIN, str(e), "")
            return EntryRow(name, pos, spec, spec, EntryKind.BUILTIN, None, "")
        source = readable(spec)
        try:
            found = take(Path(target).expanduser(), files / name, name=name)
        except IntakeError as e:
            return EntryRow(name, pos, source, source, EntryKind.UNKNOWN, str(e), "")
        error, messages, said = check_player(found.path, found.kind, k or 1, found.where, limits)
        spec = f"{found.path}:{k or 1}"
        if error is not None and found.kind == "py" and k is None:  # a STRATEGY class: its true reason
            error, spec = strategy_class(found.path, error, spec, limits, "seat")
        return EntryRow(name, pos, source, spec, EntryKind(found.kind), error, messages,
                        (*found.warnings, *said), found.shown)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return list(pool.map(check, range(len(specs))))


def tournament(specs: Sequence[str], matches: int, seed: int | None, fmt: str, decks: int, rules: str, out: Path,
               resume: bool, isolation: Isolation, execution: Execution) -> ClassReport:
    """Play a tournament between ``specs`` into ``out`` (or continue the run there) and write the reports;
    without a ``seed`` a new run draws a secret one (RULES.md, **secret_seed**).

    With ``resume`` the SPECs may be left out (the stored run has them).  Every check that can refuse a new run
    is made before its store is created; a refused run leaves nothing behind.
    """
    from twentyone.grading.grader import limits_of
    from twentyone.grading.plan import tournament_jobs
    from twentyone.grading.runner import drive

    if resume:
        store = _resume_run(out, "tournament")
        try:
            cfg: dict[str, Any] = store.meta("config", {})
            entries = store.entries()
            _same_sources(entries, specs)
            line = sandbox_line(Isolation(**cfg.get("isolation", {})))
        except BaseException:
            store.close()
            raise
    else:
        if len(specs) < 2:
            raise TwentyOneError(f"a tournament needs at least 2 players, got {len(specs)}")
        _refuse_existing(out)
        with _nothing_left_if_refused(out):
            entries, line = _while_proving(isolation, lambda: tournament_entries(specs, out / FILES,
                                                                                 limits_of(isolation)))
            _show_entries(entries, execution.warn)
            if sum(e.error is None for e in entries) < 2:
                raise TwentyOneError("fewer than 2 players can play: nothing to do")
            cfg = {"format": fmt, "matches": matches, "seed": draw_seed() if seed is None else seed, "decks": decks,
                   "rules": rules, "isolation": asdict(isolation)}
            unit = "deals" if fmt == "table5" else "matches per pair"
            store = _new_run(out, "tournament", f"Tournament of {len(entries)} players ({fmt}, {matches} {unit})",
                             cfg, entries, seed_drawn=seed is None)
    try:
        if resume:
            _show_entries([e for e in entries if ("entry", e.name) not in store.damaged], execution.warn)
        usable = [(e.name, e.spec) for e in entries if e.error is None]
        if len(usable) < 2:
            raise TwentyOneError("fewer than 2 players can play: nothing to do")
        _say(line, execution)
        try:
            limits = limits_of(Isolation(**cfg["isolation"]))
            fmt, matches, seed, decks, rules = (cfg[k] for k in ("format", "matches", "seed", "decks", "rules"))
        except (KeyError, TypeError) as e:
            raise StoreError(f"results database {str(store.path)!r}: the stored tournament configuration is "
                             f"damaged ({e}); nothing was changed") from None
        jobs = tournament_jobs(usable, fmt, matches, seed, decks, rules, limits, skip=store.keys())
        done = [store.count()]
        total = done[0] + len(jobs)
        with _progress(execution.progress, "tournament") as update:
            update(done[0], total)

            def on_done(outcomes: list[MatchOutcome]) -> list[Any]:
                for o in outcomes:
                    if store.add_outcome(o):
                        done[0] += 1
                update(done[0], total)
                return []

            try:
                drive([jobs[i:i + 10] for i in range(0, len(jobs), 10)], on_done, execution.workers or
                      (os.cpu_count() or 1), execution.cluster, execution.dask_workers)
            except KeyboardInterrupt:
                raise _interrupted(store, out, "tournament") from None
            except StoreError as e:
                raise _store_failed(e, store, out, "tournament") from None
        return _finish_run(store, out, execution)
    finally:
        store.close()


def report(out: Path, execution: Execution) -> ClassReport:
    """Remake every report of the run in ``out`` from its database alone."""
    with Store.open(out) as store:
        if store.meta("kind") is None:
            raise StoreError(f"{str(out)!r} holds no run: its {DB_NAME} has no configuration and no match "
                             "(nothing to report)")
        return _finish(store, out, execution)


def summary_table(rep: ClassReport, stream: IO[str] | None = None) -> None:
    """Print the scores or standings as a table on the terminal."""
    from rich.console import Console
    from rich.table import Table

    out = stream or sys.stdout
    # Piped output is not folded to 80 columns: the table is only as wide as it needs.
    console = Console(file=out, highlight=False, width=None if out.isatty() else 200)
    if rep.kind == "tournament":
        t = Table(title=rep.title)
        for col in ("rank", "name", "matches", "W-T-L", "win rate (95% CI)", "mean money", "fouls", "faults"):
            t.add_column(col, justify="left" if col in ("name",) else "right", overflow="fold")
        for r in rep.standings:
            if r.error:
                t.add_row("-", r.name, "0", "-", "not played (see the warning)", "-", "-", "-")
                continue
            t.add_row(str(r.rank), r.name, str(r.matches), f"{r.wins}-{r.ties}-{r.losses}",
                      f"{100 * r.rate:.1f}% ({100 * r.low:.1f}-{100 * r.high:.1f})", f"{r.mean_account:.1f}",
                      str(r.fouls), str(r.faults) + (f" ({', '.join(r.fault_causes)})" if r.fault_causes else ""))
        console.print(t)
        return
    t = Table(title=rep.title)
    t.add_column("student", overflow="fold")
    names = []
    for c in (rep.students[0].criteria if rep.students else []):
        if c.name != "tournament":
            names.append(c.name)
            t.add_column(c.name.replace("_", " "), justify="right", overflow="fold")
    for col in ("bonus", "total", "incidents"):
        t.add_column(col, justify="right")
    for s in rep.students:
        if s.reference:
            continue
        by = {c.name: c for c in s.criteria}
        cells = []
        for n in names:
            crit = by.get(n)
            cells.append("-" if crit is None else f"{crit.points:g}/{crit.max_points:g} {crit.status}"
                         + (f" {100 * crit.rate:.1f}%" if crit.rate is not None else ""))
        t.add_row(s.name, *cells, f"{s.bonus:g}", f"{s.total:g}/{s.max_score:g}", str(s.incident_count))
    console.print(t)
    refs = [s for s in rep.students if s.reference]
    if refs:  # apart from the class: the win rates a built-in reaches, no score
        ref_table = Table(title="reference lines: built-in players graded beside the class, no points")
        ref_table.add_column("reference", overflow="fold")
        rated = [n for n in names if n != "legal"]
        for n in rated:
            ref_table.add_column(f"{n.replace('_', ' ')} (95% CI)", justify="right", overflow="fold")
        for s in refs:
            by = {c.name: c for c in s.criteria}
            shown = []
            for n in rated:
                rc = by.get(n)
                shown.append(f"{100 * rc.rate:.1f}% ({100 * (rc.low or 0):.1f}-{100 * (rc.high or 0):.1f}), "
                             f"{rc.matches} matches" if rc is not None and rc.rate is not None and rc.matches else "-")
            ref_table.add_row(s.name, *shown)
        console.print(ref_table)


def seed_line(out: Path) -> str:
    """The run's base seed for the instructor's terminal, in one line (RULES.md, **secret_seed**)."""
    with Store.open(out) as store:
        cfg = store.meta("config", {})
        drawn = store.meta("seed_drawn", False)
    seed = cfg.get("seed") if isinstance(cfg, dict) else None
    if drawn:
        return (f"seed: {seed} (drawn at random for this run and kept in {out / 'results.sqlite'}: shown only here and "
                "on index.html, never to students; --resume and report use it)")
    return f"seed: {seed} (pinned by --seed or the configuration)"
