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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from twentyone.grading.decisions.keptlog import MATCH_SCOPE, REVIEW, unpack_log
from twentyone.grading.results import CostlyDecision, ReplayPage, StudentReview, StudentScore, match_title
from twentyone.grading.store import MatchRow
from twentyone.review.costs import LETTERS, Priced, bet_note, by_situation, costliest, per_100
from twentyone.review.replay import round_anchor

__all__ = ["class_reviews", "student_review", "review_records", "seat_of"]

def seat_of(row: MatchRow, name: str) -> int:
    """The seat of ``name`` in ``row`` (its subject's seat, else where it sits by name); 0 if it is not there."""
    if row.subject == name and row.outcome.seat is not None:
        return row.outcome.seat
    return row.names.index(name) + 1 if name in row.names else 0


def review_records(lines: list[str]) -> list[dict[str, Any]]:
    """The review records of a kept log's lines (``keptlog.unpack_log``)."""
    out = []
    for line in lines:
        if f'"type":"{REVIEW}"' in line:
            rec = json.loads(line)
            if isinstance(rec, dict) and rec.get("type") == REVIEW:
                out.append(rec)
    return out


def _seats_in_log(lines: list[str]) -> int:
    """Seats of a kept log's match record."""
    first = json.loads(lines[0]) if lines else {}
    return len(first.get("seats", [])) if isinstance(first, dict) else 0


def _slug(row: MatchRow, taken: set[str]) -> str:
    base = f"{row.purpose}-{row.idx}"
    slug, k = base, 1
    while slug in taken:
        k += 1
        slug = f"{base}-{k}"
    taken.add(slug)
    return slug


def _stored_key(row: MatchRow) -> str:
    return row.key


def student_review(name: str, rows: Iterable[MatchRow], shown: Iterable[str] = (),
                   key: Callable[[MatchRow], str] = _stored_key) -> StudentReview | None:
    """The review of ``name`` from ``rows`` (the stored matches); ``shown`` the keys of the matches whose incidents
    its page shows; ``key`` names a match as the pages show it (``scoring.shown_key``: never with the run's
    seed).  None when no match of the student kept a log."""
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
        label = key(row)
        if not (own and (traced or o.bankroll)) and label not in wanted_keys:
            continue
        names = list(row.names)
        try:
            lines = unpack_log(o.log)
            if _seats_in_log(lines) == 1 and len(names) > 1:  # a duplicate job keeps the subject's own match
                names, seat = [names[seat - 1]], 1
            records = [r for r in review_records(lines) if r.get("seat") == seat]
        except ValueError:
            records = []
        scope = str(records[0].get("scope", MATCH_SCOPE)) if records else MATCH_SCOPE
        slug = _slug(row, taken)
        title = f"{name} \u2014 {match_title(row.purpose, row.idx, seat_of(row, name))}"  # never the seed
        pages.append(ReplayPage(f"{name}/replays/{slug}.html", label, title, seat, scope, names, o.log))
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
            where.update((id(p), (pages[-1].path, label)) for p in these)
    if not pages:
        return None
    worst = []
    for p in costliest(priced):
        page, match_key = where[id(p)]
        worst.append(CostlyDecision(page, round_anchor(p.round, p.step), match_key, p.round, p.cards, p.up, p.situation,
                                    p.answer, LETTERS.get(p.best, p.best), round(p.loss or 0.0, 6)))
    cells = [(s, u, round(loss, 6), n) for (s, u), (loss, n) in sorted(by_situation(priced).items())]
    lost = sum(p.loss for p in priced if p.loss is not None)
    note = bet_note(bets).text if bets else ""
    return StudentReview(matches, hands, sum(1 for p in priced if p.loss is not None), round(lost, 6),
                         per_100(priced, hands), worst, cells, note, pages)


def class_reviews(rows: Sequence[MatchRow], students: Sequence[StudentScore],
                  key: Callable[[MatchRow], str] = _stored_key) -> dict[str, StudentReview]:
    """Every usable student's review, by name (``student_review``); ``key`` as there."""
    out: dict[str, StudentReview] = {}
    for s in students:
        if s.error is not None:
            continue
        review = student_review(s.name, rows, {i.match_key for i in s.incidents}, key)
        if review is not None:
            out[s.name] = review
    return out
