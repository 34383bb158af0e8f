"""Scores from the results database alone: the rubric of each submission, or a tournament's standings.

``class_report(store)`` reads the configuration, the entries and every stored match and returns the
``results.ClassReport`` that every report is written from, so ``twentyone report DIR`` can remake the
reports at any time.  The decision rule is applied to the stored matches in index order, batch by
batch, exactly as the grader applied it while playing, so the score does not depend on the order in
which matches finished (local pool, Dask, or a resumed run).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from twentyone.grading.copies import COPY_NOTE, code_of
from twentyone.grading.config import GradingConfig, WinRate, seats_of, stored_config
from twentyone.grading.outcome import EntryKind, counted_incidents
from twentyone.grading.results import (BankrollSample, ClassReport, Criterion, Incident, StandingRow, Status,
                                       StudentScore, cause_words, match_title)
from twentyone.grading.decisions.numbers import class_reviews
from twentyone.grading.rubric import Result, faulted_in, judge_batches, winner_of
from twentyone.grading.standings import Place, judge_tournament, places, standings
from twentyone.grading.stats import Decision
from twentyone.grading.verdicts import worded
from twentyone.grading.store import EntryRow, MatchRow, Store
from twentyone.i18n import N_, _
from twentyone.safetext import visible, visible_data

__all__ = ["class_report", "grade_student", "shown_key", "MAX_INCIDENTS_SHOWN", "COURSE_PROGRAM", "course_note"]

MAX_INCIDENTS_SHOWN = 50
#: The most characters of an incident's round record or fault text shown (a record of five seats is about 1,500).
MAX_EXCERPT = 20_000

TITLES = {  # in English; each is translated (twentyone.i18n) when a report is made
    "legal": N_("Plays legally: no foul, crash or time-out in any match"),
    "beat_stand": N_("Beats the always-stand player in at least {t:.0%} of 2-seat matches"),
    "beat_basic": N_("Beats the basic-strategy player in at least {t:.0%} of 2-seat matches"),
    "tournament": N_("Class tournament: bonus by place (players who cannot be told apart share it)"),
}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _win_criterion(purpose: str, crit: WinRate, rows: list[MatchRow], config: GradingConfig) -> Criterion:
    """Apply the decision rule to one criterion's stored matches."""
    title = _(TITLES[purpose]).format(t=crit.threshold)
    results = {r.idx: winner_of(r.outcome, r.outcome.seat) for r in rows if r.outcome.seat is not None}
    by_idx = {r.idx: r for r in rows}
    faulted = {r.idx for r in rows if r.outcome.seat is not None and faulted_in(r.outcome, r.outcome.seat)}
    judgement = judge_batches(results, crit, config.ties, faulted)
    verdict, running = judgement.verdict, judgement.running
    crit_max = crit.weight
    if verdict is None:
        return Criterion(purpose, title, 0.0, crit_max, Status.NOT_PLAYED, _("no complete batch of matches stored"),
                         threshold=crit.threshold, confidence=crit.confidence)
    used = [results[i] for i in range(verdict.matches)]
    c: Counter[Result] = Counter(used)
    decision = verdict.status
    if decision == Decision.PASS:
        points = crit_max
    elif decision == Decision.BORDERLINE:
        rule = config.borderline
        passed = rule == "pass" or (rule == "estimate" and verdict.rate >= crit.threshold)
        points = crit_max if passed else 0.0
    else:
        points = 0.0
    status = Status.INCOMPLETE if decision == Decision.OPEN else Status(decision)
    verdict = worded(judgement, crit, used, config.ties, config.borderline)
    outcomes = [by_idx[i].outcome for i in range(verdict.matches)]
    sub_money = [o.accounts[(o.seat or 1) - 1] for o in outcomes]
    opp_money = [o.accounts[2 - (o.seat or 1)] for o in outcomes]
    return Criterion(purpose, title, points, crit_max, status, verdict.summary, why=verdict.why, wins=c[Result.WIN] + (
        0.5 * c[Result.TIE] if config.ties == "half" else 0.0), ties=c[Result.TIE], losses=c[Result.LOSS],
        matches=verdict.matches, rate=verdict.rate, low=verdict.low, high=verdict.high,
        threshold=crit.threshold, running=running, mean_account=sum(sub_money) / len(sub_money),
        opponent_mean_account=sum(opp_money) / len(opp_money), confidence=crit.confidence)


def _deals_why(standing: StandingRow, units: int, conf: str, place: Place | None) -> str:
    """Why a ``duplicate`` tournament placed a player where it did (RULES.md, **grade_bonus**)."""
    high = "-" if standing.ev_high is None or standing.ev_high == float("inf") else f"{standing.ev_high:.2f}"
    why = _("Every player played {units} deal(s) alone at the table, each deal on the same shoe for everyone, and "
            "every decision was priced with the exact analyser: EV lost {lost:.2f} per 100 hands ({conf} CI "
            "{low:.2f}-{high}) over {hands} hands. Places go by it; two neighbours are told apart when their "
            "deal-by-deal difference is clear at {conf}, else they share the mean bonus of their places (to the "
            "nearest half point). On the same shoes it ended richer than {wins}, level with {ties} and poorer than "
            "{losses} of the other players' matches (mean final money {money:,.0f}).").format(
        units=units, lost=standing.ev_lost, conf=conf, low=standing.ev_low or 0.0, high=high, hands=standing.hands,
        wins=standing.wins, ties=standing.ties, losses=standing.losses, money=standing.mean_account)
    if standing.faults:
        why += _(" It faulted (crashed, timed out or erred) in some deal, so it ranks below every player that never "
                 "did.")
    if place is not None and place.copies:
        why += _(" Identical copies of one hand-in share their places.")
    return why


#: What the course's own program (main.c and twentyone.c as handed out, with the bugs RULES.md lists) did
#: for each kind of incident: the report says it next to every incident.
COURSE_PROGRAM = {  # in English; the pages translate each (twentyone.i18n)
    "illegal_action": N_("the course program fouled this hand too: any character other than i, h, s, d and u "
                         "forfeits the round's stakes"),
    "illegal_insurance": N_("the course program fouled this hand too: insurance is only offered against an A"),
    "unaffordable_insurance": N_("insurance not affordable: the course program fouled this hand too"),
    "unaffordable_double": N_("the course program accepted this double and let the account go negative; this tool "
                              "now doubles for less, so a run graded today never records it"),
    "error": N_("no course-program counterpart: the strategy raised an exception or returned something that is "
                "not one action character, which the course's C program could not receive"),
    "crash": N_("in the course program a crash ends the whole program, for every player"),
    "timeout": N_("in the course program the game would have hung here"),
}


def course_note(cause: str) -> str:
    """What the course program did for an incident of ``cause`` (a foul or fault name, maybe with a note)."""
    return COURSE_PROGRAM.get(cause.split(" ", 1)[0], "")


def _incidents(name: str, rows: Iterable[MatchRow], counted: Iterable[str] = COURSE_PROGRAM
               ) -> tuple[list[Incident], int, int, Counter[str], list[str]]:
    """(incidents shown, incidents counted, matches seen, count by cause, notes) of ``name`` over ``rows``.

    Only the kinds in ``counted`` count against the legal-play points; the others are shown, marked so.
    A time-out stands only when a replay alone confirmed it; one the replay cleared is a note.
    """
    shown: list[Incident] = []
    counts = set(counted)
    count = 0
    matches = 0
    causes: Counter[str] = Counter()
    notes: list[str] = []

    def add(key: str, rnd: int, cause: str, excerpt: str, seat: int = 0, asked: str = "", answer: str = "") -> None:
        kind = cause.split(" ", 1)[0]
        causes[cause] += 1
        if len(shown) < MAX_INCIDENTS_SHOWN:
            shown.append(Incident(key, rnd, visible(cause, 200), visible(excerpt, MAX_EXCERPT), course_note(kind),
                                  kind in counts, seat, visible(asked, 200), visible(answer, 200)))

    for row in rows:
        if name not in row.names:
            continue
        matches += 1
        o = row.outcome
        label = shown_key(row)
        if o.replay == "cleared" and o.first_fault:
            notes.append(_("a time-out in match {match} was not confirmed when the match was replayed alone (the "
                           "machine, not the strategy, was slow): the replay's result counts").format(match=label))
        for seat0, who in enumerate(row.names):
            if who != name:
                continue
            fault = o.faults[seat0]
            if not (o.fouls[seat0] or fault):
                continue
            count += counted_incidents(o, seat0, counts)
            recs = [inc for inc in o.incidents if inc.seat == seat0 + 1]
            for inc in recs:
                add(label, inc.round, _confirmed(inc.foul, o.replay),
                    json.dumps(visible_data(inc.record), ensure_ascii=False), inc.seat, inc.asked, inc.answer)
            if fault and not any(inc.foul == fault for inc in recs):
                add(label, o.seat_rounds[seat0], _confirmed(fault, o.replay),
                    o.fault_details[seat0] or o.error or fault)
            if o.fouls[seat0] > len(recs):
                more = o.fouls[seat0] - len(recs)
                causes["more fouls (not all kept)"] += more
    return shown, count, matches, causes, notes


def shown_key(row: MatchRow) -> str:
    """A match as students are shown it: its key without the run's seed (RULES.md, **secret_seed**), as
    ``purpose|subject|index|seat``; a tournament match's key, which holds no seed, as it is."""
    if row.purpose == "tournament":
        return row.key
    return f"{row.purpose}|{row.subject}|{row.idx}|{row.outcome.seat or '-'}"


#: The most characters of a compiler's messages shown for one submission.
MAX_MESSAGES = 8000


def _messages(text: str) -> str:
    """A compiler's messages as shown: their lines kept, everything else made visible, cut to MAX_MESSAGES."""
    return visible(text, MAX_MESSAGES, lines=True)


def _confirmed(cause: str, replay: str | None) -> str:
    if cause != "timeout":
        return cause
    if replay == "confirmed":
        return f"{cause} (confirmed on replay)"
    if replay == "charged":
        return f"{cause} (charged without a replay: a replay alone had confirmed an earlier time-out of this player)"
    return cause


def _samples(rows: list[MatchRow]) -> list[BankrollSample]:
    """The money curves of ``rows``' matches, each titled in the active language."""
    out = []
    for r in rows:
        curve = r.outcome.bankroll
        if not curve:
            continue
        names = list(r.names)
        title = match_title(r.purpose, r.idx, r.outcome.seat or "-")
        out.append(BankrollSample(shown_key(r), title, names, [[h[i] for h in curve] for i in range(len(names))]))
    return out


def grade_student(entry: EntryRow, rows: list[MatchRow], config: GradingConfig,
                  tournament_rank: int | None, tournament_size: int, place: Place | None = None,
                  standing: StandingRow | None = None, units: int = 0, dropped: set[str] | None = None) -> StudentScore:
    """The rubric result of one submission from its stored matches; ``dropped`` (if given) gets the keys of its
    stored matches that the result does not count (stored only by the workers' timing)."""
    legal_title = _(TITLES["legal"])
    if entry.error is not None:
        crits = [Criterion("legal", legal_title, 0.0, config.legal.weight, Status.NOT_PLAYED, visible(entry.error))]
        for purpose, crit in config.win_criteria().items():
            crits.append(Criterion(purpose, _(TITLES[purpose]).format(t=crit.threshold), 0.0, crit.weight,
                                   Status.NOT_PLAYED, _("the submission could not be used"),
                                   threshold=crit.threshold))
        return StudentScore(entry.name, visible(entry.source), entry.kind, visible(entry.error),
                            _messages(entry.messages), 0.0, config.max_score, 0.0, crits, [], 0, [], None,
                            tournament_size, [visible(n) for n in entry.notes], visible(entry.graded))
    own = [r for r in rows if r.subject == entry.name]
    crits = []
    for purpose, crit in config.win_criteria().items():
        if crit.weight > 0:
            crits.append(_win_criterion(purpose, crit, [r for r in own if r.purpose == purpose], config))
    lp = config.legal
    # A criterion decided early may have more matches stored (they were playing when it was decided): only the
    # matches its verdict used count, so the legal-play line does not depend on what happened to be stored.
    cut = {c.name: c.matches for c in crits if c.status in (Status.PASS, Status.FAIL, Status.BORDERLINE)}
    # Past legal.max_incidents outside its legal-play matches, a submission's legal-play matches still to play
    # were not played; those already playing were, by the workers' timing: none of them counts.
    outside = _incidents(entry.name, [r for r in rows if not (r.subject == entry.name and (
        r.purpose == "legal" or (r.purpose in cut and r.idx >= cut[r.purpose])))], lp.incidents)[1]
    unplayed = outside > lp.max_incidents and lp.matches > 0

    def counts(r: MatchRow) -> bool:
        """Whether one of its own stored matches counts."""
        return not ((r.purpose in cut and r.idx >= cut[r.purpose]) or (unplayed and r.purpose == "legal"))

    if dropped is not None:
        dropped.update(r.key for r in own if not counts(r))
    rows = [r for r in rows if r.subject != entry.name or counts(r)]
    own = [r for r in own if counts(r)]
    shown, count, matches, causes, replay_notes = _incidents(entry.name, rows, lp.incidents)
    reference = entry.kind == EntryKind.BUILTIN
    if reference:
        legal = Criterion("legal", legal_title, 0.0, lp.weight, Status.NOT_PLAYED,
                          _("a reference line (a built-in player): not graded for legal play, no points"))
    elif matches == 0:
        legal = Criterion("legal", legal_title, 0.0, lp.weight, Status.NOT_PLAYED, _("no match stored"))
    else:
        ok = count <= lp.max_incidents
        what = _(", ").join(_("{cause} {n}").format(cause=cause_words(k), n=v) for k, v in causes.most_common()) \
            or _("none")
        allowed = _(" ({n} allowed)").format(n=lp.max_incidents) if lp.max_incidents else ""
        total = sum(n for k, n in causes.items() if k != "more fouls (not all kept)") + causes[
            "more fouls (not all kept)"]
        detail = (_("no incident in {matches} matches").format(matches=matches) if total == 0 else
                  _("{n} incident(s) counted in {matches} matches{allowed}: {what}").format(
                      n=count, matches=matches, allowed=allowed, what=what))
        if total > count:
            detail += _(" ({n} of kinds the configuration does not count)").format(n=total - count)
        if unplayed:
            detail += _("; its {n} legal-play matches are not counted, those it played included: the incidents of "
                        "its other matches had already cost the points (RULES.md, grade_legal)").format(n=lp.matches)
        legal = Criterion("legal", legal_title, lp.weight if ok else 0.0, lp.weight, Status.PASS if ok else Status.FAIL,
                          detail, matches=matches)
    crits.insert(0, legal)
    bonus = 0.0
    if tournament_rank is not None:
        scale = config.tournament.bonus
        if place is not None:
            bonus = place.bonus
            why = (_("identical copies of one hand-in finished in them (or their intervals overlap)") if place.copies
                   else _("their intervals overlap"))
            where = (_("place {n}").format(n=place.first) if place.first == place.last else
                     _("places {first}\u2013{last}, shared: {why}, so the players in them share the mean bonus of "
                       "the places they span").format(first=place.first, last=place.last, why=why))
        else:
            bonus = scale[tournament_rank - 1] if tournament_rank <= len(scale) else 0.0
            where = _("rank {n}").format(n=tournament_rank)
        detail = _("{where} of {size} in the class tournament").format(where=where, size=tournament_size)
        why = ""
        conf = f"{config.tournament.confidence:.0%}"
        if standing is not None and standing.ev_lost is not None:  # the duplicate format (grading.deals)
            why = _deals_why(standing, units, conf, place)
            detail = _("{where} of {size} in the class tournament, bonus {bonus:g}: on the same shoes as everyone, its "
                       "decisions gave up {lost:.2f} per 100 hands against the best play.").format(
                where=f"{where[0].upper()}{where[1:]}", size=tournament_size, bonus=bonus, lost=standing.ev_lost)
        elif standing is not None:
            detail += _(" (pairwise win rate {rate}, {conf} CI {low}-{high}, over {units} deal(s))").format(
                rate=_pct(standing.rate), conf=conf, low=_pct(standing.low), high=_pct(standing.high), units=units)
        crits.append(Criterion("tournament", _(TITLES["tournament"]), bonus, max(scale, default=0.0), Status.BONUS,
                               detail, why=why, wins=standing.wins if standing else 0.0,
                               ties=standing.ties if standing else 0, losses=standing.losses if standing else 0,
                               matches=standing.matches if standing else 0,
                               rate=standing.rate if standing else None, low=standing.low if standing else None,
                               high=standing.high if standing else None, confidence=config.tournament.confidence))
    score = 0.0 if reference else sum(c.points for c in crits if c.name != "tournament")
    samples = _samples([r for r in own if r.outcome.bankroll])
    return StudentScore(entry.name, visible(entry.source), entry.kind, None, "", score, config.max_score, bonus,
                        crits, shown, count, samples, tournament_rank, tournament_size,
                        [visible(n) for n in entry.notes] + replay_notes, visible(entry.graded), reference)


#: The purposes of a run's stored matches.
PURPOSES = ("legal", "beat_stand", "beat_basic", "tournament")


def _expected(rows: list[MatchRow], names: set[str], path: str) -> tuple[list[MatchRow], list[str]]:
    """The rows that are matches of this run's entries, and one line for each that is not (left out): a
    purpose the run does not play, or a subject or a player that is no entry of it."""
    kept, lines = [], []
    for r in rows:
        if r.purpose not in PURPOSES:
            why = f"purpose {r.purpose!r}"
        elif r.purpose == "tournament" and not set(r.names) <= names:
            why = "players that are not entries of this run"
        elif r.purpose != "tournament" and (r.subject not in names or r.subject not in r.names):
            why = f"subject {r.subject!r}, not an entry seated in it"
        else:
            kept.append(r)
            continue
        lines.append(f"results database {path!r}: match {r.key!r} is not a match of this run ({visible(why, 200)}); "
                     "it is left out and kept as it is")
    return kept, lines


def _not_graded(entry: EntryRow, damaged: int) -> EntryRow:
    """``entry`` as one that cannot be graded, because ``damaged`` of its stored matches cannot be read."""
    return replace(entry, error=f"not graded: {damaged} of its stored matches cannot be read (the results database "
                                "is damaged); the class page names them")


def class_report(store: Store, dropped: set[str] | None = None) -> ClassReport:
    """Everything the reports show, from ``store`` alone; ``dropped`` (if given) gets the keys of the stored
    matches it does not count (``grade_student``), which the similarity page leaves out too.

    A damaged or unexpected row of one submission is left out and named in ``ClassReport.damaged``; that
    submission is not graded (its error says why) and every other one is (RULES.md, **grade_store_damage**).
    """
    kind = store.meta("kind", "grade")
    title = store.meta("title", "twentyone")
    created = store.meta("created") or _dt.datetime.now().isoformat(timespec="seconds")
    entries = store.entries()
    rows, unexpected = _expected(list(store.matches()), {e.name for e in entries}, str(store.path))
    damage = [d.line(store.path) for d in store.damaged.values()] + unexpected
    lost = Counter(d.subject for d in store.damaged.values() if d.table == "match" and d.subject)
    rounds = sum(r.outcome.rounds for r in rows)
    if kind == "tournament":
        cfg: dict[str, Any] = store.meta("config", {})
        players = [(e.name, e.spec) for e in entries if e.error is None]
        table = standings([r for r in rows if r.purpose == "tournament"], players,
                          {e.name: e.error for e in entries if e.error is not None})
        for e in entries:
            if e.error is not None:
                table.append(StandingRow(len(table) + 1, e.name, e.spec or e.source, 0, 0, 0, 0, 0.0, 0.0, 1.0,
                                         0.0, 0, 0, [], e.error))
        notes = {e.name: list(e.notes) for e in entries}
        for row in table:  # what came from the entries' files, made safe to show (RULES.md, shown_text)
            row.spec, row.notes = visible(row.spec), [visible(n) for n in notes.get(row.name, [])]
            row.error = None if row.error is None else visible(row.error)
            row.fault_causes = [visible(c, 200) for c in row.fault_causes]
        return ClassReport("tournament", title, created, cfg, [], table, len(rows), rounds, damaged=damage)
    config = stored_config(store.meta("config", {}))
    # The class tournament was played between the entries as stored (a damaged submission played in it too).
    usable = [e for e in entries if e.error is None and e.kind != EntryKind.BUILTIN]
    ranks: dict[str, int] = {}
    shared: dict[str, Place] = {}
    rows_by: dict[str, StandingRow] = {}
    units = 0
    t_rows = [r for r in rows if r.purpose == "tournament"]
    if config.tournament.enabled and len(usable) >= 2 and t_rows:
        judged = judge_tournament(t_rows, [(e.name, e.spec) for e in usable], config.tournament,
                                  seats=seats_of(config.rules))
        units = judged.units
        duplicate = config.tournament.format == "duplicate"
        shared = places(judged.standings, config.tournament.bonus, code_of(store), judged.cuts,
                        rounded=duplicate, clean_only=duplicate) if units else {}
        for st in judged.standings:
            if units:
                ranks[st.name] = st.rank
                rows_by[st.name] = st
    graded = [_not_graded(e, lost[e.name]) if e.error is None and lost[e.name] else e for e in entries]
    twins: dict[str, str] = store.meta("copies") or {}
    played_for = set(twins.values())
    graded = [replace(e, notes=(*e.notes, COPY_NOTE)) if e.name in twins or e.name in played_for else e
              for e in graded]
    out: set[str] = set()
    students = [grade_student(e, rows, config, ranks.get(e.name), len(ranks), shared.get(e.name),
                              rows_by.get(e.name), units, out) for e in graded]
    report = ClassReport("grade", title, created, config.to_dict(), students, [], len(rows), rounds, damaged=damage)
    # issue 26: each student's review (grading.decisions), of the matches its result counts
    report.reviews = class_reviews([r for r in rows if r.key not in out], students, shown_key)
    if dropped is not None:
        dropped.update(out)
    return report
