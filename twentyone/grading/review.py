"""Each student's decision review, from the stored matches alone (issue 26): the numbers of the student page.

``class_reviews(rows, students)`` reads the round logs the matches kept (``grading.keptlog``) and, for each
student, totals the decisions priced in the matches the grade traces (the first ``similarity.traces``
matches against ``stand``: RULES.md, **review_grade**): EV lost per 100 hands, the ten costliest decisions
(each linked to its step in a replay), the EV lost by situation and dealer's card, and the note on bets.  It
also lists the replay pages to write: every traced match, every sample match (the bankroll charts') and
every match with an incident shown on the page.  Nothing is played or priced here: the worker that played a
match priced its decisions (``grading.reviewer``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from twentyone.grading.keptlog import MATCH_SCOPE, REVIEW, unpack_log
from twentyone.grading.results import CostlyDecision, ReplayPage, StudentReview, StudentScore
from twentyone.grading.store import MatchRow
from twentyone.review.costs import LETTERS, Priced, bet_note, by_situation, costliest, per_100
from twentyone.review.replay import round_anchor

__all__ = ["class_reviews", "student_review", "review_records", "seat_of"]

#: How a criterion's matches are named in replay titles.
_WHAT = {"beat_stand": "vs stand", "beat_basic": "vs basic", "legal": "5-seat legal play", "tournament": "tournament"}


def seat_of(row: MatchRow, name: str) -> int:
    """The seat of ``name`` in ``row`` (its subject's seat, else where it sits by name); 0 if it is not there."""
    if row.subject == name and row.outcome.seat is not None:
        return row.outcome.seat
    return row.names.index(name) + 1 if name in row.names else 0


def review_records(log: str) -> list[dict[str, Any]]:
    """The review records of a kept log (ValueError if it cannot be read)."""
    out = []
    for line in unpack_log(log):
        if f'"type":"{REVIEW}"' in line:
            rec = json.loads(line)
            if isinstance(rec, dict) and rec.get("type") == REVIEW:
                out.append(rec)
    return out


def _slug(row: MatchRow, taken: set[str]) -> str:
    base = f"{row.purpose}-{row.idx}"
    slug, k = base, 1
    while slug in taken:
        k += 1
        slug = f"{base}-{k}"
    taken.add(slug)
    return slug


def student_review(name: str, rows: Iterable[MatchRow], shown: Iterable[str] = ()) -> StudentReview | None:
    """The review of ``name`` from ``rows`` (the stored matches); ``shown`` the keys of the matches whose incidents
    its page shows.  None when no match of the student kept a log."""
    wanted_keys = set(shown)
    pages: list[ReplayPage] = []
    taken: set[str] = set()
    priced: list[Priced] = []
    where: dict[int, tuple[str, str]] = {}  # id of a priced decision -> (its replay page, its match's key)
    bets: list[tuple[int, float]] = []
    matches = hands = 0
    for row in rows:
        o = row.outcome
        if not o.log:
            continue
        seat = seat_of(row, name)
        if not seat:
            continue
        own = row.subject == name
        traced = own and bool(o.trace)
        if not (own and (traced or o.bankroll)) and row.key not in wanted_keys:
            continue
        try:
            records = [r for r in review_records(o.log) if r.get("seat") == seat]
        except ValueError:
            records = []
        scope = str(records[0].get("scope", MATCH_SCOPE)) if records else MATCH_SCOPE
        slug = _slug(row, taken)
        what = _WHAT.get(row.purpose, row.purpose)
        title = f"{name} \u2014 {what}, match {row.idx}, seed {row.seed}, seat {seat}"
        pages.append(ReplayPage(f"{name}/replays/{slug}.html", row.key, title, seat, scope, list(row.names), o.log))
        if not traced or scope != MATCH_SCOPE:
            continue
        for rec in records:
            try:
                these = [Priced.from_list(p) for p in rec.get("priced", [])]
                these_bets = [(int(b), float(tc)) for _, b, tc in rec.get("bets", [])]
            except (ValueError, TypeError):
                continue
            matches += 1
            hands += int(rec.get("hands", 0))
            bets += these_bets
            priced += these
            where.update((id(p), (pages[-1].path, row.key)) for p in these)
    if not pages:
        return None
    worst = []
    for p in costliest(priced):
        page, key = where[id(p)]
        worst.append(CostlyDecision(page, round_anchor(p.round, p.step), key, p.round, p.cards, p.up, p.situation,
                                    p.answer, LETTERS.get(p.best, p.best), round(p.loss or 0.0, 6)))
    cells = [(s, u, round(loss, 6), n) for (s, u), (loss, n) in sorted(by_situation(priced).items())]
    lost = sum(p.loss for p in priced if p.loss is not None)
    note = bet_note(bets).text if bets else ""
    return StudentReview(matches, hands, sum(1 for p in priced if p.loss is not None), round(lost, 6),
                         per_100(priced, hands), worst, cells, note, pages)


def class_reviews(rows: Sequence[MatchRow], students: Sequence[StudentScore]) -> dict[str, StudentReview]:
    """Every usable student's review, by name (``student_review``)."""
    out: dict[str, StudentReview] = {}
    for s in students:
        if s.error is not None:
            continue
        review = student_review(s.name, rows, {i.match_key for i in s.incidents})
        if review is not None:
            out[s.name] = review
    return out
