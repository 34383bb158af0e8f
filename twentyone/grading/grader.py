"""Grade a class: prepare the submissions, play the rubric's matches into the store, resumably.

The rubric (RULES.md, "Grading") has four parts, each configured in ``grading.config``:

- **legal**: no foul, crash or time-out in any match the submission plays: the win-rate matches, the
  tournament, and ``legal.matches`` extra 5-seat matches beside built-in players (the submission at
  each seat in turn, which exercises every ``tmpcards`` layout);
- **beat_stand** / **beat_basic**: 2-seat matches against the built-in player, in batches, until the
  Wilson interval of the win rate excludes the threshold or the maximum is reached (``rubric.judge_batches``);
- **tournament**: a class tournament between every usable submission; bonus points by rank.

The jobs and their seeds are ``grading.plan``'s.  Every match is stored the moment it finishes
(``grading.store``).  What to play next is worked out from the store alone, so a resumed run plays
exactly the matches still missing, and a run on Dask gives the same scores as one in a local pool.
``grading.scoring`` turns the store into the report.
"""

from __future__ import annotations

import itertools
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from twentyone.errors import CompileError, TwentyOneError
from twentyone.grading.config import GradingConfig, Isolation, WinRate, seats_of
from twentyone.grading.copies import copies_of, mirror
from twentyone.grading.notes import named, source_notes
from twentyone.grading.outcome import EntryKind, MatchOutcome, counted_incidents
from twentyone.grading.plan import SEED_OFFSET, MatchJob, criterion_job, legal_job, tournament_jobs
from twentyone.grading.rubric import Result, SequentialMemo, faulted_in, fewest_counted, judge_batches, winner_of
from twentyone.grading.runner import drive
from twentyone.grading.stats import Verdict
from twentyone.grading.standings import judge_tournament, matches_per_unit
from twentyone.grading.store import EntryRow, MatchRow, Store
from twentyone.grading.submissions import find_submissions
from twentyone.players.files.intake import SourceKind
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import check_file

__all__ = ["prepare_entries", "check_player", "strategy_class", "limits_of", "Grader"]


def prepare_entries(paths: Sequence[Path], workdir: Path, config: GradingConfig,
                    warn: Callable[[str], None] | None = None, names: list[str] | None = None) -> list[EntryRow]:
    """Find each submission's strategy (``players.intake``) and check it can be played: compile C, read Python.

    ``workdir`` receives what must be on disk for the run: a zip's strategy file and the headers and
    ``main.c`` beside it, in ``workdir/NAME/``.  A submission that cannot be used keeps a one-line
    ``error`` (and the compiler's messages); the others are graded all the same.  Every warning (other
    copies of the file, PERSON switched off ...) is kept in the entry's ``notes`` and given to ``warn``.
    C files compile in parallel, one compiler per core.  ``names``: each submission's name, instead of its
    student's (``intake.student_name``).
    """
    from concurrent.futures import ThreadPoolExecutor

    subs = find_submissions(list(paths), workdir, names)

    def check(pos: int) -> EntryRow:
        sub = subs[pos]
        notes = sub.notes
        error, messages, spec, shown = sub.error, "", "", ""
        if error is None and sub.found is not None:
            shown = sub.found.shown
            spec = f"{sub.found.path}:{config.function_set}"
            error, messages, said = check_player(sub.found.path, sub.kind, config.function_set, sub.found.where,
                                                 limits_of(config.isolation))
            if error is not None and sub.kind == "py":
                error, spec = strategy_class(sub.found.path, error, spec, limits_of(config.isolation), "grade")
            notes += said
        return EntryRow(sub.name, pos, sub.source, spec, EntryKind(sub.kind), error, messages, tuple(notes), shown)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        rows = list(pool.map(check, range(len(subs))))
    if warn is not None:
        for note in dict.fromkeys(named(n, r.name, r.source, r.spec.rpartition(":")[0])
                                  for r in rows for n in r.notes):
            warn(note)
    return rows


def check_player(path: Path, kind: str, k: int, shown: str | None = None,
                 limits: Limits | None = None) -> tuple[str | None, str, list[str]]:
    """(error, compiler messages, warnings) for the strategy file ``path`` as function set ``k``; no error if usable.

    ``shown`` replaces the file's path on disk in every line (a zip's file is shown as the zip's path
    followed by its path in the zip, ``players.intake.Intake.where``).  With ``limits`` a Python file is
    read and parsed in a sandbox worker, never in this process.
    """
    said: list[str] = []

    def show(text: str) -> str:
        return text.replace(str(path), shown) if shown else text

    def collect(message: str) -> None:
        said.append(show(message))

    try:
        source_kind = SourceKind(kind)
    except ValueError:
        return show(f"{path}: not a .c, .cpp or .py strategy file"), "", said
    try:
        check_file(path, source_kind, k, collect, limits)
    except CompileError as e:
        return show(str(e)), show(e.messages), said
    except TwentyOneError as e:
        return show(str(e)), "", said
    if source_kind in (SourceKind.C, SourceKind.CPP):  # what every command says of the file (notes.source_notes)
        said += source_notes(path, (k,), shown=shown)
    return None, "", said


def strategy_class(path: Path, error: str, spec: str, limits: Limits | None, command: str) -> tuple[str | None, str]:
    """(error, SPEC) for a Python file whose function set could not be used (``error``): when it defines
    ``STRATEGY`` instead, it is seated as that class in process (trusted), or refused with the true reason and
    what to do (sandboxed).  Any other file keeps ``error`` and ``spec``."""
    from twentyone.players.files.python import defines_strategy
    from twentyone.players.spec import make_strategy

    try:
        raw = path.read_bytes()
    except OSError:
        return error, spec
    if "has no function set" not in error or not defines_strategy(raw):
        return error, spec
    if limits is not None:
        return (f"{path.name}: a STRATEGY class runs in process only, never in the sandbox: {command} it with "
                "--trusted (only code you have read), or write it as function sets (bet1, first_action1, "
                "continue_action1, show1)"), spec
    try:
        make_strategy(str(path)).close()
    except TwentyOneError as e:
        return str(e), spec
    return None, str(path)


def limits_of(iso: Isolation) -> Limits | None:
    """The sandbox limits of a run's jobs, or None when submissions run trusted."""
    if iso.trusted:
        return None
    return Limits.for_timeouts(iso.decision_timeout, iso.match_timeout, iso.decision_wall_timeout)


def program_key(entry: EntryRow) -> str | None:
    """What makes ``entry`` the program it is, for finding identical copies (RULES.md, **grade_copies**; None:
    unknown, never a copy): its box program's hash (C, C++; the build is cached, so this costs a read), or the hash
    of its bytes, exactly as the box is given them (Python: the box compiles that text, coding line ignored, and a
    strategy can read it, comments and line ends included, from the frames that run it)."""
    import hashlib

    path = Path(re.sub(r":\d+$", "", entry.spec))
    try:
        if entry.kind in (EntryKind.C, EntryKind.CPP):
            from twentyone.players.c.build import compile_student

            program = compile_student(path, module=False)
            return "c:" + hashlib.sha256(program.read_bytes()).hexdigest()
        if entry.kind == EntryKind.PY:
            from twentyone.players.files.python import read_source

            return "py:" + hashlib.sha256(read_source(path, entry.spec)).hexdigest()
    except Exception:  # noqa: BLE001 - a file that cannot be read or built now is no one's copy
        return None
    return None


@dataclass(eq=False)
class _Progress:
    """A win-rate criterion of one submission: what is played and what is decided."""

    purpose: str
    crit: WinRate
    name: str
    spec: str
    results: dict[int, Result] = field(default_factory=dict)
    #: The indices of the matches the submission faulted in (RULES.md, **grade_faults**).
    faulted: set[int] = field(default_factory=set)
    issued: set[int] = field(default_factory=set)
    verdict: Verdict | None = None
    #: Where the sequential test stopped on ``results`` (``rubric.SequentialMemo``): judged again, it goes on.
    memo: SequentialMemo = field(default_factory=SequentialMemo)

    def record(self, idx: int, outcome: MatchOutcome, seat: int) -> None:
        """Note match ``idx``'s result for the submission at ``seat``."""
        self.results[idx] = winner_of(outcome, seat)
        if faulted_in(outcome, seat):
            self.faulted.add(idx)


class Grader:
    """Plays every match the rubric needs for ``entries``, storing each one, until all are decided."""

    def __init__(self, store: Store, config: GradingConfig, entries: Sequence[EntryRow], task_size: int = 10,
                 on_match: Callable[[int, int], None] | None = None) -> None:
        self.store = store
        self.config = config
        self.entries = [e for e in entries if e.error is None]
        self.task_size = task_size
        #: Called as (matches done, matches expected at most) after every stored batch.
        self.on_match = on_match
        self.limits = limits_of(config.isolation)
        #: The seats of the rule set's tables (RULES.md, **grade_table_size**).
        self.seats = seats_of(config.rules)
        self.progress: dict[tuple[str, str], _Progress] = {}
        self.done = 0
        #: The incidents of each graded submission outside its legal-play matches that count against legal play
        #: whatever is played next (``_note_incidents``); past ``legal.max_incidents`` its remaining legal-play
        #: matches are not played, and none of them counts (``scoring``).
        self.incidents: Counter[str] = Counter()
        self._graded = {e.name for e in self.entries if e.kind != EntryKind.BUILTIN}
        self._counted_below = {purpose: fewest_counted(crit, config.ties)
                               for purpose, crit in config.win_criteria().items()}
        self._fixed: list[MatchJob] = []
        #: Identical copies (RULES.md, **grade_copies**): each copy's representative, which plays for it; and each
        #: representative's copies.  Their matches are the representative's, stored under their names (``mirror``).
        stored_copies = store.meta("copies")
        names = {e.name for e in self.entries}
        if isinstance(stored_copies, dict):  # a resumed run keeps the copies it began with
            self.copy_of = {str(c): str(r) for c, r in stored_copies.items() if c in names and r in names}
        else:  # a new run, or one whose hand-ins changed (late.take_late forgets them)
            self.copy_of = copies_of(self.entries, {e.name: program_key(e) for e in self.entries})
        store.set_meta("copies", self.copy_of)
        self.copies: dict[str, list[EntryRow]] = {}
        by_name = {e.name: e for e in self.entries}
        for c, rep in self.copy_of.items():
            self.copies.setdefault(rep, []).append(by_name[c])
        self._by_name = by_name
        #: The class tournament's format mirrors copies only where every player plays alone on a deal.
        self._mirror_tournament = config.tournament.format == "duplicate"
        stored = store.keys()
        rows = list(store.matches())
        rows += self._mirrored_missing(rows, stored)
        stored = store.keys()
        self.done = len(stored)
        # A submission with a damaged stored match is not played further: the report names it, ungraded.
        damaged = {d.subject for d in store.damaged.values() if d.table == "match"}
        for e in self.entries:
            if e.name in damaged:
                continue
            for purpose, crit in config.win_criteria().items():
                if crit.weight > 0:
                    self.progress[(purpose, e.name)] = _Progress(purpose, crit, e.name, e.spec)
            if e.kind != EntryKind.BUILTIN and e.name not in self.copy_of:  # a reference line: win rates only
                self._fixed += [legal_job(config, e.name, e.spec, i, self.limits)
                                for i in range(config.legal.matches)]
        self._fixed = [j for j in self._fixed if j.key not in stored]
        #: Legal-play matches asked for and not yet stored (or dropped): still in the plan (``expected``).
        self._legal_pending: set[str] = set()
        #: Seat-matches played (a match of k seats is k): the work the ETA measures (``work``).
        self.done_work = float(sum(len(r.names) for r in rows))
        t = config.tournament
        #: The class tournament, in batches of units until its bonus places are separated (None: no tournament).
        self.players = [(e.name, e.spec) for e in self.entries if e.kind != EntryKind.BUILTIN]
        self.tournament_rows: list[MatchRow] | None = [] if t.enabled and len(self.players) >= 2 else None
        self.tournament_units = 0  # units issued so far
        #: The keys of the tournament's matches asked for and not yet stored: it is judged again once none is left
        #: (judging is O(matches) a look, so judging it at every finished task would be quadratic).
        self._tournament_playing: set[str] = set()
        self.tournament_done = False
        for row in rows:
            self._note_incidents(row.outcome)
            p = self.progress.get((row.purpose, row.subject))
            if p is not None and row.outcome.seat is not None:
                p.record(row.idx, row.outcome, row.outcome.seat)
                p.issued.add(row.idx)
            elif row.purpose == "tournament" and self.tournament_rows is not None:
                self.tournament_rows.append(row)

    def _left(self) -> tuple[int, int, int]:
        """Matches still to play at most: (legal-play, criteria, tournament), an undecided criterion or tournament
        counted at its maximum."""
        legal = len(self._fixed) + len(self._legal_pending)
        crit = sum(max(0, (p.verdict.matches if p.verdict else p.crit.max_matches) - len(p.results))
                   for p in self.progress.values() if p.name not in self.copy_of)
        tour = 0
        if self.tournament_rows is not None and not self.tournament_done:
            t = self.config.tournament
            mirrored = len(self.copy_of) if self._mirror_tournament else 0
            tour = max(0, matches_per_unit(len(self.players) - mirrored, t.format, self.seats) * t.max_matches
                       - len(self.tournament_rows) + (mirrored * self.tournament_units))
        return legal, crit, tour

    def expected(self) -> int:
        """Matches played or to play: the plan, an undecided criterion or tournament counted at its maximum.  It
        only grows when more is asked of a criterion or the tournament than their maximum (never)."""
        return self.done + sum(self._left())

    def work(self) -> tuple[float, float]:
        """(seat-matches played, seat-matches left at most): a match of k seats is k, so a 5-seat match weighs what
        it costs against a 2-seat one, and an estimate from the rate of work stays true as the mix changes."""
        legal, crit, tour = self._left()
        at_table = 2 if self.config.tournament.format == "pairs" else min(max(len(self.players), 2), self.seats)
        return self.done_work, float(legal * self.seats + crit * 2 + tour * at_table)

    def _advance_tournament(self) -> list[MatchJob]:
        """Judge the class tournament on its stored matches; return the jobs of its next batch, if due."""
        rows = self.tournament_rows
        if rows is None or self.tournament_done or self._tournament_playing:
            return []  # (while some of the batch asked for is still playing, no new look can be complete)
        t = self.config.tournament
        j = judge_tournament(rows, self.players, t, seats=self.seats)
        if j.decided:
            self.tournament_done = True
            return []
        if j.needed <= self.tournament_units:
            return []  # the batch asked for is still playing
        start, self.tournament_units = self.tournament_units, j.needed
        seated = j.active or self.players
        if self._mirror_tournament:  # a copy's deals are its representative's
            seated = [p for p in seated if p[0] not in self.copy_of]
        jobs = tournament_jobs(seated, t.format, j.needed - start, self.config.base_seed + SEED_OFFSET,
                               self.config.decks, self.config.rules, self.limits,
                               skip={r.key for r in rows}, start=start)
        self._tournament_playing = {job.key for job in jobs}
        return jobs

    def _advance(self, p: _Progress) -> list[MatchJob]:
        """Decide ``p`` as far as its stored results allow; return the jobs its next batch still needs."""
        if p.verdict is not None:
            return []
        j = judge_batches(p.results, p.crit, self.config.ties, p.faulted, p.memo)
        if j.decided:
            p.verdict = j.verdict
            return []
        if p.name in self.copy_of:  # its matches come from its representative's
            return []
        missing = [i for i in range(j.needed) if i not in p.results and i not in p.issued]
        p.issued.update(missing)
        return [criterion_job(self.config, p.purpose, p.crit, p.name, p.spec, i, self.limits) for i in missing]

    def _tasks(self, jobs: list[MatchJob]) -> list[list[MatchJob]]:
        return [jobs[i:i + self.task_size] for i in range(0, len(jobs), self.task_size)]

    def first_tasks(self) -> list[list[MatchJob]]:
        """The tasks to start with: each criterion's next batch, the legal-play and tournament matches."""
        # Every criterion's first task, then every second one ...: a submission that times out is seen, and its
        # criteria decided, before many of its matches are queued (``wanted`` drops what is no longer needed).
        each = [self._tasks(self._advance(p)) for p in self.progress.values()]
        tasks = [t for turn in itertools.zip_longest(*each) for t in turn if t]
        # One submission's matches together, so a worker reuses its loaded strategy.
        by_subject: dict[str, list[MatchJob]] = {}
        for j in self._fixed:
            by_subject.setdefault(j.info.subject, []).append(j)
        for jobs in by_subject.values():
            tasks += self._tasks(jobs)
        self._legal_pending.update(j.key for j in self._fixed)
        self._fixed = []
        tasks += self._tasks(self._advance_tournament())
        return tasks

    def _mirrors(self, o: MatchOutcome) -> list[MatchOutcome]:
        """``o`` as each copy of its player's (empty when it is nobody's representative, or a class tournament match
        under a format where copies play for themselves)."""
        if o.info.purpose == "tournament":
            if not self._mirror_tournament or len(o.info.names) != 1:
                return []
            rep = o.info.names[0]
        elif o.info.subject in self.copies:
            rep = o.info.subject
        else:
            return []
        return [mirror(o, self._by_name[rep], c) for c in self.copies.get(rep, ())]

    def _mirrored_missing(self, rows: list[MatchRow], stored: set[str]) -> list[MatchRow]:
        """The representatives' stored matches not yet stored for their copies (a copy given to ``--resume``, a run
        stopped between the two): stored now, and their rows."""
        out = []
        for row in rows:
            for m in self._mirrors(row.outcome):
                if m.key not in stored and self.store.add_outcome(m):
                    out.append(MatchRow(m.key, m.info.purpose, m.info.subject, m.info.idx, m.info.seed,
                                        list(m.info.names), m))
        return out

    def on_done(self, outcomes: list[MatchOutcome]) -> list[list[MatchJob]]:
        """Store a finished task's matches (and, for a representative, its copies' mirrors of them); return the
        tasks that became due."""
        played = {o.key for o in outcomes}
        outcomes = [x for o in outcomes for x in (o, *self._mirrors(o))]
        touched = []
        tournament = False
        for o in outcomes:
            info = o.info
            if self.store.add_outcome(o):
                self.done += 1
                if o.key in played:  # a copy's mirror cost nothing: the rate of work counts what was played
                    self.done_work += len(info.names)
            self._legal_pending.discard(o.key)
            self._note_incidents(o)
            p = self.progress.get((info.purpose, info.subject))
            if p is not None and info.seat is not None:
                p.record(info.idx, o, info.seat)
                touched.append(p)
            elif info.purpose == "tournament" and self.tournament_rows is not None:
                self.tournament_rows.append(MatchRow(o.key, info.purpose, info.subject, info.idx, info.seed,
                                                     list(info.names), o))
                self._tournament_playing.discard(o.key)
                tournament = True
        tasks = []
        for p in dict.fromkeys(touched):
            tasks += self._tasks(self._advance(p))
        if tournament:
            tasks += self._tasks(self._advance_tournament())
        if self.on_match is not None:
            self.on_match(self.done, self.expected())
        return tasks

    def _note_incidents(self, o: MatchOutcome) -> None:
        """Add the incidents of ``o`` that count against legal play whatever is played next, outside its
        legal-play matches: those of a tournament match, and those of a criterion's match below the fewest a
        verdict can use (a later one counts only if the verdict comes to use it).  A legal-play match's own
        incidents never stop the others: which of them had started would then depend on the workers' timing."""
        info = o.info
        if info.purpose == "legal" or (info.purpose in self._counted_below
                                       and info.idx >= self._counted_below[info.purpose]):
            return
        kinds = set(self.config.legal.incidents)
        for seat0, name in enumerate(info.names):
            if name in self._graded and seat0 < len(o.faults):
                self.incidents[name] += counted_incidents(o, seat0, kinds)

    def wanted(self, job: MatchJob) -> bool:
        """False for a job that can change no score: of a criterion decided since the job was queued, or a legal-play
        match of a submission whose incidents already cost it the legal-play points (RULES.md, **grade_legal**)."""
        info = job.info
        if info.purpose == "legal":
            if self.incidents[info.subject] <= self.config.legal.max_incidents:
                return True
            self._legal_pending.discard(job.key)  # dropped: no longer in the plan
            return False
        p = self.progress.get((info.purpose, info.subject))
        return p is None or p.verdict is None

    def run(self, workers: int = 0, cluster: str | None = None, dask_workers: int = 2) -> None:
        """Play until every criterion is decided and every fixed match is stored."""
        first = self.first_tasks()
        if self.on_match is not None:
            self.on_match(self.done, self.expected())
        drive(first, self.on_done, workers=workers or (os.cpu_count() or 1), cluster=cluster,
              dask_workers=dask_workers, wanted=self.wanted)
