"""The ``similar`` command: which submissions are not independent, by code and by play.

``twentyone similar SUBMISSION...`` takes the submissions as ``grade`` takes them (``players.intake``, C
compiled, in the sandbox unless ``--trusted``), plays each one's traced matches against ``stand`` (the
first ``similarity.traces`` of ``grade``'s matches against ``stand``: the same seeds, seats and
decisions), and writes the similarity page (``simpages``) into ``--out``.  A ``grade`` run makes the same
page from its store; this command needs no store and plays only the traced matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from twentyone.errors import TwentyOneError
from twentyone.grading.commands import (FILES, Execution, _nothing_left_if_refused, _progress, entry_error_line,
                                        entry_notes, sandbox_line)
from twentyone.grading.config import GradingConfig
from twentyone.grading.grader import limits_of, prepare_entries
from twentyone.grading.outcome import MatchOutcome
from twentyone.grading.plan import MatchJob, criterion_job
from twentyone.grading.runner import drive
from twentyone.grading.similarity.pairs import SimilarityReport, build, collect_sources
from twentyone.grading.similarity.pages import write_similarity
from twentyone.grading.similarity.traces import TraceRound

__all__ = ["similar", "summary_table"]


def similar(submissions: Sequence[Path], config: GradingConfig, out: Path, execution: Execution) -> SimilarityReport:
    """Compare ``submissions`` by code and by play; write the pages into ``out`` and return the report."""
    if not submissions:
        raise TwentyOneError("no submissions: give mycodes.c files, .py files, folders or zips")
    if len(submissions) < 2:  # nothing to compare it with: refused before anything is compiled or played
        raise TwentyOneError(f"similar compares submissions with each other: give two or more ({len(submissions)} "
                             "given)")
    line = sandbox_line(config.isolation)
    config = config.seeded()  # a secret seed unless the configuration pins one (RULES.md, secret_seed)
    with _nothing_left_if_refused(out):  # Ctrl-C while the files compile leaves --out as it was
        entries = prepare_entries(list(submissions), out / FILES, config)
    if line is not None:
        execution.info(line)
    for note in entry_notes(entries):
        execution.warn(note)
    for e in entries:
        if e.error is not None:
            execution.warn(entry_error_line(e) + " (its code is still compared when it can be read)")
    limits = limits_of(config.isolation)
    jobs = [criterion_job(config, "beat_stand", config.beat_stand, e.name, e.spec, i, limits)
            for e in entries if e.error is None for i in range(config.similarity.traces)]
    traces: dict[str, dict[tuple[int, int], list[TraceRound]]] = {}
    total, done = len(jobs), [0]
    with _progress(execution.progress, "similar") as update:
        update(0, total)

        def on_done(outcomes: list[MatchOutcome]) -> list[list[MatchJob]]:
            for o in outcomes:
                if o.trace and o.seat is not None:
                    traces.setdefault(o.info.subject, {})[(o.info.seed, o.seat)] = list(o.trace)
            done[0] += len(outcomes)
            update(done[0], total)
            return []

        drive([jobs[i:i + 8] for i in range(0, len(jobs), 8)], on_done, execution.workers, execution.cluster,
              execution.dask_workers)
    report = build([e.name for e in entries], collect_sources(entries), traces, config.similarity,
                   f"Similarity of {len(entries)} submission{'s' if len(entries) != 1 else ''}",
                   {e.name: e.error for e in entries if e.error})
    try:
        write_similarity(report, out, back=None)
    except OSError as e:
        raise TwentyOneError(f"cannot write the similarity pages in {str(out)!r}: {e.strerror or e}") from None
    return report


def summary_table(report: SimilarityReport, rows: int = 20) -> None:
    """The strongest pairs as a table on the terminal."""
    import sys

    from rich.console import Console
    from rich.table import Table

    out = sys.stdout
    console = Console(file=out, highlight=False, width=None if out.isatty() else 200)
    members = {m.name: m for m in report.members}
    t = Table(title=f"{report.title}: {report.summary()}")
    for col in ("pair", "code", "behaviour", "agreement", "best reference", "decisions", "closest references",
                "flagged"):
        t.add_column(col, justify="left" if col in ("pair", "closest references", "flagged") else "right",
                     overflow="fold")
    for row in report.listed()[:rows]:
        p = row.play
        closest = " / ".join(f"{members[n].closest} {100 * members[n].closest_share:.0f}%" if members[n].closest
                             else "-" for n in (row.a, row.b))
        t.add_row(f"{row.a} <-> {row.b}", f"{row.code_score:.2f}" if row.code else "-",
                  f"{100 * p.score:+.1f}" if p else "-", f"{100 * p.agreement:.1f}%" if p else "-",
                  f"{100 * p.reference_agreement:.1f}% {p.reference}" if p else "-", str(p.compared if p else 0),
                  closest, " ".join(w for w, f in (("code", row.code_flag), ("play", row.play_flag)) if f))
    console.print(t)
    counts = report.unlisted_counts()
    if counts:  # why the other pairs are not in the table
        console.print(f"pairs not listed: {sum(n for _, n in counts)}", markup=False)
        for kind, n in counts:
            console.print(f"  {n}: {kind}", markup=False)
