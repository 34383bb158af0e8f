"""A match outcome as the report reads it: the incidents of a seat that count against legal play, and a stored
outcome that does not fit its seats refused when it is read back."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from tests.outcomes import outcome
from twentyone.grading.outcome import EntryKind, Incident, MatchOutcome, counted_incidents
from twentyone.grading.store import DB_NAME, EntryRow, Store

ALL = ("illegal_action", "illegal_insurance", "crash", "timeout", "error")


def _incident(seat: int, rnd: int, foul: str) -> Incident:
    return Incident(seat, rnd, foul, {"type": "round", "round": rnd, "players": []})


def test_fouls_past_the_kept_records_count() -> None:
    """A seat with 5 fouls of which 3 round records were kept: all 5 count against legal play (the count of fouls
    is whole; only their records are cut), and a foul of a kind not counted is left out only when it was kept."""
    o = replace(outcome([1, 2], fouls=[5, 0]), incidents=[_incident(1, r, "illegal_action") for r in (1, 2, 3)])
    assert counted_incidents(o, 0, ALL) == 5
    assert counted_incidents(o, 0, ("crash",)) == 2  # the 2 unkept fouls may be of any kind: they count
    assert counted_incidents(o, 1, ALL) == 0


def test_a_fault_with_its_own_record_counts_once() -> None:
    """A crash in a decision is a foul of its round and the seat's fault: its kept record and the fault are one
    incident, not two; a fault with no kept record (it happened at settlement, no foul) counts on its own."""
    kept = replace(outcome([2, 1], faults=["crash", None], fouls=[2, 0]),
                   incidents=[_incident(1, 4, "illegal_action"), _incident(1, 9, "crash")])
    assert counted_incidents(kept, 0, ALL) == 2
    assert counted_incidents(kept, 0, ("illegal_action",)) == 1
    alone = replace(outcome([2, 1], faults=["timeout", None], fouls=[1, 0]), incidents=[_incident(1, 4, "illegal_action")])
    assert counted_incidents(alone, 0, ALL) == 2


def test_rank_zero_from_a_damaged_store_is_refused(tmp_path: Path) -> None:
    """A stored outcome whose ranks do not start at 1 (rank 0) is damaged: from_dict refuses it, and the store
    names the row and reads the rest."""
    o = outcome([1, 2], purpose="beat_stand", subject="li", seat=1, names=["li", "stand (built-in)"], key="k1")
    stored = o.to_dict()
    with pytest.raises(ValueError, match=r"ranks \[0, 1\] of 2 seats"):
        MatchOutcome.from_dict({**stored, "ranks": [0, 1]}, o.key, o.info)
    with Store.open(tmp_path, create=True) as s:
        s.set_entries([EntryRow("li", 0, "li.c", "li.c:1", EntryKind.C, None, "")])
        s.add_outcome(o)
        s.add_outcome(replace(o, key="k2", info=replace(o.info, idx=1)))
    db = sqlite3.connect(str(tmp_path / DB_NAME))
    db.execute("UPDATE matches SET outcome = json_set(outcome, '$.ranks', json('[0, 1]')) WHERE key = 'k1'")
    db.commit()
    db.close()
    with Store.open(tmp_path) as s:
        keys = [r.key for r in s.matches()]
        (d,) = s.damaged.values()
        assert keys == ["k2"] and "match 'k1' (of li) is damaged (ranks [0, 1] of 2 seats)" in d.line(s.path)


def _asdict_form(o: MatchOutcome) -> dict[str, object]:
    """The stored form as ``to_dict`` made it with ``dataclasses.asdict`` before it was written out by hand."""
    from dataclasses import asdict

    d = asdict(o)
    del d["key"], d["info"]
    d["seat"] = o.info.seat
    if o.trace:
        d["trace"] = [r.to_list() for r in o.trace]
    else:
        del d["trace"]
    for name, keep in (("log", o.log), ("ev_lost", o.ev_lost), ("ev_hands", o.ev_lost),
                       ("wall_timeouts", any(o.wall_timeouts))):
        if not keep:
            del d[name]
    return d


def test_the_stored_form_is_the_same_text_as_before() -> None:
    """``to_dict`` writes every field out by hand (``asdict`` was most of the grading process's time): a stored row
    is still the same text, key for key in the same order, with every optional part present or absent, and it
    shares no list with the outcome (a record changed later would change what was stored)."""
    import json

    from twentyone.grading.similarity.traces import TraceRound

    base = replace(outcome([2, 1], faults=["crash", None], fouls=[2, 0], seat=1, purpose="beat_stand"),
                   incidents=[_incident(1, 4, "illegal_action"), replace(_incident(1, 9, "crash"), asked="bet",
                                                                          answer="x")],
                   bankroll=[[990, 1010], [980, 1020]], error=None, replay="confirmed", first_fault="timeout")
    variants = [base, replace(base, log="eJwLAAAA"), replace(base, ev_lost=[0.5, 0.0], ev_hands=[10, 12]),
                replace(base, wall_timeouts=[True, False]), replace(base, wall_timeouts=[False, False]),
                replace(base, incidents=[], bankroll=[], replay=None, info=replace(base.info, seat=None))]
    traced = [TraceRound.from_list(r) for r in _trace_rows()]
    variants.append(replace(base, trace=tuple(traced)))
    for o in variants:
        got = o.to_dict()
        assert json.dumps(got) == json.dumps(_asdict_form(o))
        assert json.dumps(MatchOutcome.from_dict(got, o.key, o.info).to_dict()) == json.dumps(got)
        if got["incidents"]:
            got["incidents"][0]["record"]["players"].append("changed")
        assert all(i.record["players"] == [] for i in o.incidents)


def _trace_rows() -> list[list[object]]:
    """Two rounds of a decision trace as stored (``TraceRound.to_list``), taken from a traced match."""
    from twentyone.grading.config import GradingConfig
    from twentyone.grading.plan import criterion_job
    from twentyone.grading.runner import play_job

    cfg = GradingConfig(seed=3)
    job = criterion_job(cfg, "beat_stand", cfg.win_criteria()["beat_stand"], "s",
                        str(Path(__file__).parent / "fixtures" / "c" / "students" / "basic.c") + ":1", 0, None)
    played = play_job(job)
    assert played.trace
    return [r.to_list() for r in played.trace[:2]]
