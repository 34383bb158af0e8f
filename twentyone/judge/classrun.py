"""A class judged on the same seeds: ``twentyone judge a.cpp b.cpp ... --out DIR``.

Every test is stored the moment it ends in ``DIR/results.sqlite`` (``grading.store``: one row a test, its key
``judge/NAME/K``), so a run that is stopped loses no finished test and ``--resume`` plays only the rest, on the
stored seeds.  From the store alone the run writes ``index.html`` (the sortable table of verdicts, pass counts
and each test's outcome, then every solution's money curves, drawn as ``grade`` draws bankrolls),
``results.csv`` and ``results.json``.  A test's whole result is kept in its row (``TestResult.to_dict``, the
money curve thinned to 500 points), read back with ``TestResult.from_dict``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import random
import sys
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path

from twentyone.errors import CompileError, TwentyOneError
from twentyone.grading.outcome import EntryKind, Incident, JobInfo, MatchOutcome
from twentyone.grading.store import EntryRow, Store
from twentyone.judge.boxed import JudgeLimits
from twentyone.judge.game import Ending, TestResult
from twentyone.judge.solutions import Solution, solution, test_seeds
from twentyone.judge.verdict import Judgement, Verdict

__all__ = ["judge_class", "judgements", "write_pages", "is_judge_run", "remake", "KIND"]

#: The store's ``kind`` of a judge run.
KIND = "judge"
_PURPOSE = "judge"
_CURVE_POINTS = 500


def _key(name: str, idx: int) -> str:
    return f"judge/{name}/{idx}"


def _outcome(name: str, idx: int, seed: int, r: TestResult) -> MatchOutcome:
    """A test as the store keeps matches: the whole result in its one incident's record."""
    info = JobInfo(_PURPOSE, name, idx, seed, (name,), 1)
    d = r.to_dict(_CURVE_POINTS)
    return MatchOutcome(key=_key(name, idx), info=info, reason=str(r.ending), rounds=r.hands, accounts=[r.money],
                        ranks=[1], seat_rounds=[r.hands], fouls=[1 if r.ending is Ending.ILLEGAL else 0],
                        faults=["fault" if r.ending is Ending.FAULT else None], fault_details=[r.reason()],
                        bankroll=[], incidents=[Incident(1, r.hands, _PURPOSE, d)])


def _unique_names(sols: list[Solution]) -> None:
    seen: dict[str, int] = {}
    for s in sols:
        base = s.name
        n = seen.get(base, 0)
        seen[base] = n + 1
        if n:
            s.name = f"{base}-{n + 1}"


def _open(out: Path, resume: bool) -> tuple[Store, bool]:
    if Store.exists(out):
        if not resume:
            raise TwentyOneError(f"{out} already holds a run: add --resume to continue it, or choose another --out")
        store = Store.open(out)
        if store.meta("kind") != KIND:
            kind = store.meta("kind")
            store.close()
            raise TwentyOneError(f"{out} holds a {kind} run, not a judge run")
        return store, True
    if resume:
        raise TwentyOneError(f"nothing to resume: {out} holds no results database")
    return Store.open(out, create=True), False


def judge_class(specs: Sequence[str], out: Path, seed: int | None, tests: int, resume: bool, trusted: bool,
                limits: JudgeLimits, stderr_dir: Path, workers: int = 1, quiet: bool = False,
                as_json: bool = False) -> int:
    """Judge every solution of ``specs`` on the same seeds, storing each test in ``out``; write the pages; the exit
    status (1 when a solution could not be judged)."""
    store, resumed = _open(out, resume)
    try:
        if resumed:
            config = store.meta("config") or {}
            stored = [e.spec for e in store.entries()]
            if specs and list(specs) != stored:
                raise TwentyOneError("--resume continues the stored run: give the same solutions as before (or none)")
            if seed is not None and seed != config.get("seed"):
                raise TwentyOneError(f"--resume: the stored run plays seed {config.get('seed')}, not {seed}")
            specs, seed, tests = stored, int(config["seed"]), int(config["tests"])
        elif seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        seeds = test_seeds(seed, tests)
        sols = [solution(s, trusted, limits, stderr_dir) for s in specs]
        _unique_names(sols)
        rows = _prepare(sols, quiet)
        if not resumed:
            store.set_meta("kind", KIND)
            store.set_meta("title", f"Judge problem (seed 004): {len(sols)} solution{'s' if len(sols) != 1 else ''}")
            store.set_meta("created", _dt.datetime.now().isoformat(timespec="seconds"))
            store.set_meta("config", {"seed": seed, "tests": tests, "cpu_seconds": limits.cpu_seconds,
                                      "wall_seconds": limits.wall()})
            store.set_entries(rows)
        done = store.keys()
        jobs = [(s, k, sd) for s, row in zip(sols, rows) if row.error is None
                for k, sd in enumerate(seeds, 1) if _key(s.name, k) not in done]
        _play(jobs, store, workers, quiet)
        found = judgements(store)
        write_pages(found, store, out)
    finally:
        store.close()
    if as_json:
        print(json.dumps([j.to_dict(curve_points=None) for j in found], ensure_ascii=False))
    elif not quiet:
        _summary(found, out)
    return 1 if any(j.error for j in found) else 0


def _prepare(sols: list[Solution], quiet: bool) -> list[EntryRow]:
    """Build each solution; one entry row each, with the error that keeps it out."""
    rows = []
    for i, s in enumerate(sols):
        error, messages = None, ""
        try:
            s.prepare(warn=None if quiet else _warn)
        except CompileError as e:
            error, messages = str(e), e.messages
        except TwentyOneError as e:
            error = str(e)
        kind = {"cpp": EntryKind.CPP, "py": EntryKind.PY}.get(s.kind, EntryKind.BUILTIN)
        rows.append(EntryRow(s.name, i, s.spec, s.spec, kind, error, messages))
    return rows


def _warn(message: str) -> None:
    print(f"twentyone: warning: {message}", file=sys.stderr)


def _run_job(job: tuple[Solution, int, int]) -> tuple[str, int, int, TestResult]:
    from twentyone.players.sandbox.cpus import release

    release()
    sol, k, seed = job
    return sol.name, k, seed, sol.test(seed)


def _play(jobs: list[tuple[Solution, int, int]], store: Store, workers: int, quiet: bool) -> None:
    """Play the tests not stored yet, storing each as it ends."""
    total = len(jobs)
    say: Callable[[int], None] = (lambda n: None) if quiet or not sys.stderr.isatty() else (
        lambda n: print(f"\rjudged {n} of {total} tests", end="" if n < total else "\n", file=sys.stderr, flush=True))
    if workers <= 1 or total < 2:
        for n, (sol, k, seed) in enumerate(jobs, 1):
            store.add_outcome(_outcome(sol.name, k, seed, sol.test(seed)))
            say(n)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(_run_job, job) for job in jobs]
        for n, fut in enumerate(as_completed(futures), 1):
            name, k, seed, r = fut.result()
            store.add_outcome(_outcome(name, k, seed, r))
            say(n)


def judgements(store: Store) -> list[Judgement]:
    """Every solution's judgement, from the store alone."""
    config = store.meta("config") or {}
    seeds = test_seeds(int(config.get("seed", 0)), int(config.get("tests", 0)))
    out = []
    for e in store.entries():
        j = Judgement(e.name, e.spec, str(e.kind), seeds, error=e.error, messages=e.messages)
        if e.error is None:
            for row in store.matches(_PURPOSE, e.name):
                try:
                    j.results.append(TestResult.from_dict(row.outcome.incidents[0].record))
                except (KeyError, ValueError, TypeError, IndexError) as err:
                    raise TwentyOneError(f"results database {str(store.path)!r}: test {row.key!r} is damaged "
                                         f"({err})") from None
        out.append(j)
    return out


def is_judge_run(out: Path) -> bool:
    """True when ``out`` holds a judge run's store."""
    if not Store.exists(out):
        return False
    with Store.open(out) as store:
        return bool(store.meta("kind") == KIND)


def remake(out: Path, quiet: bool = False) -> list[Judgement]:
    """Rewrite the pages of the judge run in ``out`` from its store alone (``twentyone report DIR``)."""
    with Store.open(out) as store:
        found = judgements(store)
        write_pages(found, store, out)
    if not quiet:
        _summary(found, out)
    return found


def _summary(found: list[Judgement], out: Path) -> None:
    for j in found:
        reason = f": {j.reason()}" if j.verdict is not Verdict.ACCEPTED else ""
        print(f"{j.name}: {j.verdict}, passed {j.passed} of {len(j.seeds)}{reason}")
    print(f"report: {out / 'index.html'}")


# -- the pages -----------------------------------------------------------------------------------------------------

_SHORT = {Ending.WON: "won", Ending.BROKE: "lost", Ending.CARDS: "no cards", Ending.ILLEGAL: "illegal",
          Ending.FAULT: "fault"}


def _cell(r: TestResult) -> tuple[str, str]:
    """A test's table cell (HTML) and its sort value."""
    cls = "pass" if r.won else "fail"
    text = f'<span class="badge {cls}">{escape(_SHORT[r.ending])}</span><br>{r.money:,}'
    return text, str(r.money)


def write_pages(found: list[Judgement], store: Store, out: Path) -> list[Path]:
    """``index.html`` (with each solution's money chart in it), ``results.csv`` and ``results.json``."""
    from twentyone.grading.report import SORT_JS, _page, _td, _th, breakable

    title = str(store.meta("title") or "Judge problem (seed 004)")
    config = store.meta("config") or {}
    created = str(store.meta("created") or "")
    n = max((len(j.seeds) for j in found), default=0)
    head = [_th("name", "Solution"), _th("kind", "Kind"), _th("verdict", "Verdict"), _th("passed", "Passed", True)]
    head += [_th(f"t{k}", f"Test {k}", True) for k in range(1, n + 1)] if n <= 20 else []
    head += [_th("reason", "Reason")]
    rows = []
    for j in found:
        cls = "pass" if j.verdict is Verdict.ACCEPTED else "fail"
        cells = [_td(escape(j.name), j.name.lower(), raw=True), _td(j.kind, j.kind),
                 _td(f'<span class="badge {cls}">{escape(str(j.verdict))}</span>', str(j.verdict), raw=True),
                 _td(f"{j.passed}/{len(j.seeds)}", str(j.passed), True)]
        if n <= 20:
            for k in range(n):
                if k < len(j.results):
                    text, sort = _cell(j.results[k])
                    cells.append(_td(text, sort, True, raw=True))
                else:
                    cells.append(_td("", ""))
        cells.append(_td(breakable(j.reason()), j.reason(), raw=True, wide=True))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    seeds = f"{config.get('seed')} .. {int(config.get('seed', 0)) + n - 1}" if n else "none"
    parts = [f"<h1>{escape(title)}</h1>",
             f'<p class="meta">created <b>{escape(created)}</b> \u00b7 seeds <b>{escape(seeds)}</b> \u00b7 '
             f"<b>{n}</b> tests a solution \u00b7 CPU budget <b>{escape(str(config.get('cpu_seconds')))} s</b> "
             "a test</p>",
             '<p class="note">5000 decks, 10^6 to start; a test is won when the money goes above 1.3x10^6. '
             "Accepted only when every test is won. Replay a test with "
             "<code>echo SEED | twentyone judge SOLUTION --local</code>. Click a header to sort.</p>",
             f'<table id="scores">\n<thead><tr>{"".join(head)}</tr></thead>\n<tbody>\n' + "\n".join(rows)
             + "\n</tbody>\n</table>"]
    charts = _charts(found)
    if charts:
        parts.append("<h2>Money after each hand</h2>")
        parts.append('<div class="charts">' + "".join(charts) + "</div>")
    for j in found:
        if j.messages:
            parts.append(f"<h2>{escape(j.name)}: the compiler's messages</h2><pre>{escape(j.messages)}</pre>")
    written = [out / "index.html"]
    (out / "index.html").write_text(_page(title, "\n".join(parts), SORT_JS), encoding="utf-8")
    # UTF-8 with a BOM, as grade's scores.csv: Excel on a Chinese Windows reads a CSV without one as GBK.
    with open(out / "results.csv", "w", encoding="utf-8-sig", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "solution", "kind", "verdict", "passed", "tests", "reason"]
                   + [f"test{k}" for k in range(1, n + 1)])
        for j in found:
            w.writerow([j.name, j.spec, j.kind, str(j.verdict), j.passed, len(j.seeds), j.reason()]
                       + [f"{r.ending}:{r.money}" for r in j.results])
    written.append(out / "results.csv")
    (out / "results.json").write_text(json.dumps({"config": config, "created": created, "solutions": [
        j.to_dict(curve_points=_CURVE_POINTS) for j in found]}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(out / "results.json")
    return written


def _charts(found: list[Judgement]) -> list[str]:
    """One chart a solution, as inline SVG: the money of each of its tests after each hand."""
    from twentyone.grading.charts import bankroll_chart
    from twentyone.grading.results import BankrollSample

    made = []
    for j in found:
        if not j.results:
            continue
        curves = [r.curve[:] or [r.money] for r in j.results]
        stride = max(r.curve_stride for r in j.results)
        every = f" (every {stride}th hand of the longest test)" if stride > 1 else ""
        sample = BankrollSample(f"judge/{j.name}", f"{j.name}: money after each hand{every}",
                                [f"test {k}" for k in range(1, len(curves) + 1)], curves)
        made.append(bankroll_chart(sample, alt=f"{j.name}: the money after each hand of each test"))
    return made
