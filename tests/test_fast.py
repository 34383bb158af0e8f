"""A plain match's rounds in C (``twentyone.grading.fast``): the same outcome as the Python engine's, or none.

Each test plays the same jobs twice, once as a grade does (the C table first) and once with the C table switched
off (the Python engine, the reference), and compares every field of the outcomes.  The students here decide by a
hash of every byte they are shown (``tests/fixtures/c/fast/mycodes.c``), so a single byte of a Player, the Banker,
tmpcards, pNum, N or pos that the two tables show differently soon makes different rounds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from twentyone.core import fast_lib
from twentyone.grading import fast, runner
from twentyone.grading.outcome import JobInfo
from twentyone.grading.plan import MatchJob
from twentyone.players.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
HASHER = str(ROOT / "tests" / "fixtures" / "c" / "fast" / "mycodes.c")
#: Its Python twin, played in a Python box (whose continue_action and show bodies are marshal data).
PY_HASHER = str(ROOT / "tests" / "fixtures" / "py" / "fast" / "mycodes.py")
HOSTILE = ROOT / "tests" / "fixtures" / "c" / "hostile"


def _fresh() -> None:
    """Forget the seated players of this process (a file's other sets would share their box) and the files handed
    back."""
    for strategy in runner._CACHE.values():
        strategy.close()
    runner._CACHE.clear()
    fast.HANDED_BACK.clear()


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    _fresh()
    yield
    _fresh()


def _jobs(specs: Sequence[str], seeds: range, decks: Sequence[int] = (6,)) -> list[MatchJob]:
    return [MatchJob(f"t|{i}", tuple(specs), seed, JobInfo("beat_stand", "x", i, seed, tuple(specs), 1),
                     decks[i % len(decks)], "course", limits=Limits(), bankroll=False)
            for i, seed in enumerate(seeds)]


class _Counted:
    """``fast_lib`` with ``tw_fast_play`` counted: how many matches C played whole, and why the others were handed
    back."""

    def __init__(self) -> None:
        self.whole = 0
        self.handed: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(fast_lib, name)

    def tw_fast_play(self, m: Any, seats: Any) -> int:
        why = int(fast_lib.tw_fast_play(m, seats))
        if why:
            self.handed.append(why)
        else:
            self.whole += 1
        return why


def _both(monkeypatch: pytest.MonkeyPatch, jobs: list[MatchJob],
          forget: bool = True) -> tuple[list[dict[str, Any]], list[dict[str, Any]], _Counted]:
    """The outcomes of ``jobs`` as a grade plays them, and by the Python engine alone; ``forget``: every match is
    tried in C (a file handed back is not remembered)."""
    counted = _Counted()
    with monkeypatch.context() as m:
        m.setattr(fast, "fast_lib", counted)
        graded = []
        for job in jobs:
            if forget:
                fast.HANDED_BACK.clear()
            graded.append(asdict(runner.play_job(job)))
    _fresh()
    with monkeypatch.context() as m:
        m.setattr(fast, "eligible", lambda job: False)
        python = [asdict(runner.play_job(job)) for job in jobs]
    return graded, python, counted


@pytest.mark.parametrize("specs", [
    (f"{HASHER}:1", "stand"),
    ("stand", f"{HASHER}:4"),
    (f"{HASHER}:2", "basic"),                                  # set 2 at seat 1: the table re-indexed for K = 2
    ("basic", "stand", f"{HASHER}:5", "basic", "stand"),       # five seats; a seat of none past them for set 5
    (f"{HASHER}:1",),                                          # alone, staking big: it goes broke
    ("stand", "basic"),
    (f"{PY_HASHER}:1", "stand"),                                # a Python box
    ("stand", "basic", f"{PY_HASHER}:2"),                      # a Python box, re-indexed for K = 2
], ids=["set1-stand", "stand-set4", "set2-basic", "five-seats", "alone", "builtins", "py-set1", "py-set2-seat3"])
def test_the_c_table_plays_every_plain_match_as_the_python_engine(monkeypatch: pytest.MonkeyPatch,
                                                                   specs: tuple[str, ...]) -> None:
    """Matches of 1 to 8 decks (mid-round refills, the sixth shuffle), small and huge bets, insurance, doubles,
    surrenders, Black Jacks: the C table plays them whole, and every field of every outcome is the Python
    engine's."""
    jobs = _jobs(specs, range(3000, 3032), decks=(1, 2, 6, 8))
    graded, python, counted = _both(monkeypatch, jobs)
    assert graded == python
    assert counted.whole >= 30 and len(counted.handed) <= 2, (counted.whole, counted.handed)
    reasons = {o["reason"] for o in graded}
    assert reasons >= ({"broke"} if len(specs) == 1 else {"shuffles"} if len(specs) >= 3 else {"shuffles", "rounds"})


@pytest.mark.parametrize("hasher", [HASHER, PY_HASHER], ids=["c", "py"])
def test_a_match_with_a_foul_is_handed_back_and_played_by_the_python_engine(monkeypatch: pytest.MonkeyPatch,
                                                                             hasher: str) -> None:
    """Set 3 fouls now and then (an illegal action, insurance it cannot pay): those matches are handed back at the
    foul and played again from the start by the Python engine, whose outcome (its fouls and incidents) is kept."""
    graded, python, counted = _both(monkeypatch, _jobs((f"{hasher}:3", "stand"), range(100, 140)))
    assert graded == python
    fouled = [o for o in graded if o["fouls"][0]]
    assert fouled and all(o["incidents"] for o in fouled)
    assert counted.handed.count(fast_lib.TW_FAST_FOUL) == len(fouled) and counted.whole == len(graded) - len(fouled)


def test_a_file_handed_back_is_played_in_python_from_then_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """After its first foul a file is not tried in C again in this process: a file that fouls or times out in every
    match pays for each match once, not twice."""
    graded, python, counted = _both(monkeypatch, _jobs((f"{HASHER}:3", "stand"), range(100, 140)), forget=False)
    assert graded == python
    first = next(i for i, o in enumerate(graded) if o["fouls"][0])
    assert counted.handed == [fast_lib.TW_FAST_FOUL] and counted.whole == first


@pytest.mark.parametrize("fixture, fault", [("segfault_first_action1.c", "crash"), ("loop_bet1.c", "timeout"),
                                            ("abort_bet1.c", "crash")])
def test_a_box_that_ends_mid_match_is_the_python_engines_fault(monkeypatch: pytest.MonkeyPatch, fixture: str,
                                                               fault: str) -> None:
    """A crash or a time-out in the C table hands the match back: the Python engine plays it again in a new box and
    charges the fault, with its words, as it always did."""
    spec = str(HOSTILE / fixture) + ":1"
    jobs = [replace(j, limits=Limits(decision_timeout=0.2)) for j in _jobs((spec, "stand"), range(7, 9))]
    graded, python, counted = _both(monkeypatch, jobs)
    assert graded == python
    assert all(o["faults"][0] == fault and o["fault_details"][0] for o in graded)
    assert counted.whole == 0 and len(counted.handed) == 2
    # its end, or the crash report it wrote first
    assert all(h in (fast_lib.TW_FAST_ENDED, fast_lib.TW_FAST_REPLY) for h in counted.handed)


def test_a_box_that_cannot_start_keeps_its_fault_for_the_first_call(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """A file whose initialiser crashes has no box when its match begins: the C table plays nothing, and the Python
    engine plays the match with the same start (the fault is that match's, at its first call), not a new one."""
    src = tmp_path / "mycodes.c"
    src.write_text('#include "mycodes.h"\n'
                   "__attribute__((constructor)) static void boom(void) { abort(); }\n"
                   "int bet1(int N) { return 10; }\nchar first_action1(char *t, int n) { return 's'; }\n"
                   "char continue_action1(Player (*p)[]) { return 's'; }\n"
                   "void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) { }\n", encoding="utf-8")
    graded, python, counted = _both(monkeypatch, _jobs((f"{src}:1", "stand"), range(3)))
    assert graded == python
    assert all(o["faults"][0] == "crash" and o["seat_rounds"][0] == 1 for o in graded)
    assert counted.whole == 0 and counted.handed == []


def test_only_plain_course_matches_are_tried_in_c() -> None:
    """A match that keeps a log, a trace, a bankroll or prices, another rule set or a trusted player is the Python
    engine's alone."""
    job = _jobs((f"{HASHER}:1", "stand"), range(1))[0]
    assert fast.eligible(job)
    changes: list[dict[str, Any]] = [{"trace": True}, {"bankroll": True}, {"priced": True}, {"duplicate": True},
                                     {"rules": "course-h17"}, {"limits": None}, {"decks": 9}]
    for change in changes:
        assert not fast.eligible(replace(job, **change)), change


def test_a_round_costs_a_box_one_round_trip(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """show, the next bet and the next first_action travel together (the deal they see is in the shoe already): a
    file that always stands is asked the whole match in one round trip a round, plus the first bet's."""
    src = tmp_path / "mycodes.c"
    src.write_text('#include "mycodes.h"\nint bet1(int N) { return 10; }\n'
                   "char first_action1(char *t, int n) { return 's'; }\n"
                   "char continue_action1(Player (*p)[]) { return 's'; }\n"
                   "void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) { }\n", encoding="utf-8")
    trips: list[tuple[int, int]] = []

    class Trips(_Counted):
        def tw_fast_play(self, m: Any, seats: Any) -> int:
            why = super().tw_fast_play(m, seats)
            trips.append((m.calls, m.rounds))
            return why

    graded, python, counted = _both(monkeypatch, [replace(j, specs=(f"{src}:1", "stand"))
                                                  for j in _jobs(("x",), range(20, 30))])
    assert graded == python and counted.whole == 10
    monkeypatch.setattr(fast, "fast_lib", Trips())
    for job in _jobs((f"{src}:1", "stand"), range(20, 30)):
        runner.play_job(job)
    assert len(trips) == 10 and all(calls == rounds + 1 for calls, rounds in trips), trips


def test_two_boxes_at_a_table_play_as_in_the_python_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Two files at one table, each in its own box: every box is shown the round before any reply is read, and each
    still sees its own calls in the course's order, so the outcomes are the Python engine's."""
    other = tmp_path / "mycodes.c"
    other.write_bytes(Path(HASHER).read_bytes())
    jobs = _jobs((f"{HASHER}:4", "basic", f"{other}:2"), range(700, 724), decks=(1, 6))
    graded, python, counted = _both(monkeypatch, jobs)
    assert graded == python
    assert counted.whole == len(jobs) and not counted.handed


def test_a_box_that_blocks_is_ended_by_the_watchdog_and_the_python_engine_charges_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The C table reads a reply blocking, as the client does: a file that blocks in a call (it waits on its own
    request pipe, for a request that cannot come) is ended by the watchdog, which watches the C table's calls in
    flight as the client's; the C table's read meets its end and the Python engine plays the match and charges the
    time-out."""
    src = tmp_path / "mycodes.c"
    src.write_text('#include "mycodes.h"\n#include <unistd.h>\nint bet1(int N) { return 10; }\n'
                   "char first_action1(char *t, int n) { char c; if (t[0] == 'A') read(3, &c, 1); return 's'; }\n"
                   "char continue_action1(Player (*p)[]) { return 's'; }\n"
                   "void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) { }\n", encoding="utf-8")
    graded, python, counted = _both(monkeypatch, _jobs((f"{src}:1", "stand"), range(5, 7)))
    assert graded == python
    assert all(o["faults"][0] == "timeout" and "blocked" in o["fault_details"][0] for o in graded), graded
    assert counted.whole == 0 and counted.handed == [fast_lib.TW_FAST_ENDED] * 2
