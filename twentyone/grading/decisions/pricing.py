"""What a played match keeps for its review and replay: its round log, and the price of each decision in it.

The write side of the review (issue 26), called by ``runner.play_job`` once a match is played, in the worker
that played it: ``kept_log`` chooses the records to keep (``grading.keptlog``: the whole log of a traced or
sample match, the rounds with a foul of any other), prices the reviewed seat's decisions in them with the
exact analyser (``twentyone.review.pricing``) and packs it all.  A traced 100-round match costs about
0.1 s here; nothing is played again.  Only ``runner`` imports this module (the report side reads what it
stored: ``grading.decisions``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.grading.decisions.keptlog import INCIDENT_SCOPE, MATCH_SCOPE, REVIEW, pack_log
from twentyone.review.pricing import review_match
from twentyone.review.logs import parse_records

__all__ = ["kept_log", "incident_rounds"]


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def incident_rounds(records: Sequence[dict[str, Any]], per_seat: int) -> dict[int, list[int]]:
    """Seat -> the rounds of ``records`` in which it fouled or faulted, the first ``per_seat`` of each seat."""
    out: dict[int, list[int]] = {}
    for rec in records:
        if rec.get("type") != "round":
            continue
        seats = {int(p["seat"]) for p in rec.get("players", []) if p.get("foul") is not None}
        seats |= {int(f["seat"]) for f in rec.get("faults", [])}
        for s in sorted(seats):
            got = out.setdefault(s, [])
            if len(got) < per_seat:
                got.append(int(rec["round"]))
    return out


def kept_log(records: Sequence[dict[str, Any]], subject: int | None, whole: bool, per_seat: int = 5) -> str:
    """The packed log a match keeps (``grading.keptlog``), '' when it keeps none.

    ``subject`` is the graded seat (None in a tournament match); ``whole`` keeps every round (a traced or sample
    match of a subject), else only the rounds with a foul, ``per_seat`` a seat at most.  The subject's decisions
    are priced (a tournament match's: each fouling seat's) in the rounds kept."""
    fouls = incident_rounds(records, per_seat)
    if whole and subject is not None:
        kept = list(records)
        reviewed: dict[int, set[int] | None] = {subject: None}
        scope = MATCH_SCOPE
    else:
        reviewed_rounds = {s: r for s, r in fouls.items() if subject is None or s == subject}
        if not reviewed_rounds:
            return ""
        wanted = {r for rounds in reviewed_rounds.values() for r in rounds}
        kept = [rec for rec in records if rec.get("type") != "round" or int(rec["round"]) in wanted]
        reviewed = {s: set(r) for s, r in reviewed_rounds.items()}
        scope = INCIDENT_SCOPE
    lines = [_dumps(r) for r in kept]
    try:
        match = parse_records(list(enumerate(kept, 1)), "the match")
        for seat, rounds in reviewed.items():
            review = review_match(match, seat, rounds)
            lines.append(_dumps({"type": REVIEW, "seat": seat, "scope": scope, "hands": review.hands,
                                 "priced": [p.to_list() for p in review.priced],
                                 "bets": [[r, b, round(tc, 3)] for r, b, tc in review.bets],
                                 "skipped": list(review.skipped)}))
    except TwentyOneError as e:  # never costs the match: its replay shows the rounds without prices
        lines.append(_dumps({"type": REVIEW, "seat": subject or 0, "scope": scope, "error": str(e)}))
    return pack_log(lines)
