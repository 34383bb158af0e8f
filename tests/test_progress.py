"""grade's progress: a plan that never grows, a time left estimated from what is left, a line when the plan
changes (issue 35: the ETA jumped 16 -> 28 -> 38 -> 49 -> 13 -> 4 minutes as the plan shrank)."""

from __future__ import annotations

from pathlib import Path

import pytest

from twentyone.grading.grader import Grader, prepare_entries
from twentyone.grading.progress import Eta, PlanNotes, format_eta
from twentyone.grading.store import Store

from tests.ptyterm import Terminal
from tests.test_grading import BASIC_C, STAND_PY, small


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_eta_is_the_work_left_at_the_recent_rate() -> None:
    """At a steady 10 seat-matches a second, the time left is what is left / 10, and it falls with the plan;
    it never rises while the work goes on at the same pace."""
    clock = Clock()
    eta = Eta(window=60, clock=clock)
    assert eta.seconds() is None  # nothing timed yet
    left, shown = 6000.0, []
    for t in range(0, 300, 5):
        clock.now = float(t)
        if t == 100:
            left -= 3000  # criteria decided early: the plan shrinks
        eta.update(10.0 * t, left - 10.0 * t)
        shown.append(eta.seconds())
    assert shown[1] == (6000 - 50) / 10
    assert all(a is not None and b is not None and b <= a for a, b in zip(shown[1:], shown[2:]))
    assert shown[-1] == (3000 - 2950) / 10


def test_eta_follows_a_slower_pace_from_the_last_minutes() -> None:
    """When matches become slower (5-seat tournament deals after 2-seat criteria), the rate of the window, not of
    the whole run, gives the estimate."""
    clock = Clock()
    eta = Eta(window=60, clock=clock)
    done = 0.0
    for t in range(0, 601, 10):
        clock.now = float(t)
        done += 100 if t <= 300 else 20
        eta.update(done, 1000)
    assert eta.seconds() == 1000 / 2  # 20 every 10 s over the last minute


def test_plan_notes_say_when_the_plan_changed() -> None:
    """A line when the plan moves by a tenth or more, none for smaller moves."""
    notes = PlanNotes()
    assert notes.note(0, 3600) is None
    assert notes.note(100, 3600) is None and notes.note(3000, 3600) is None  # played: no change of plan
    assert notes.note(200, 3550) is None  # 50 fewer of 3,400 left
    assert notes.note(200, 1440) == "plan: at most 1,240 matches left (was 3,400): criteria decided early"
    assert notes.note(300, 1500) is None
    assert format_eta(750) == "about 12 min" and format_eta(None) == "-" and format_eta(30) == "about 30 s"


def test_the_plan_never_grows_as_matches_finish(tmp_path: Path) -> None:
    """The plan a grade reports after every stored batch never grows: the legal-play matches asked for stay in it
    until they are stored (they left it when asked for, and came back one by one as they finished)."""
    cfg = small(tournament={"matches": 2, "max_matches": 4}).seeded()
    entries = prepare_entries([STAND_PY, BASIC_C], tmp_path / "files", cfg)

    def setup(s: Store) -> None:
        s.set_entries(entries)
        s.set_meta("config", cfg.to_dict())
        s.set_meta("kind", "grade")

    seen: list[tuple[int, int]] = []
    with Store.create(tmp_path, setup) as store:
        grader = Grader(store, cfg, entries, on_match=lambda d, t: seen.append((d, t)))
        grader.run(1)
        done, left = grader.work()
    plans = [t for _, t in seen]
    assert len(plans) > 5 and all(b <= a for a, b in zip(plans, plans[1:])), plans
    assert seen[-1][0] == seen[-1][1] and left == 0 and done > seen[-1][0]  # seats: more than matches


@pytest.mark.slow
def test_grade_on_a_terminal_shows_the_eta_and_the_plan_changes(tmp_path: Path) -> None:
    """On a terminal, grade draws its bar with 'eta about ...' and says when its plan shrank."""
    cfg = tmp_path / "g.toml"  # stand_py fails both criteria early: the plan shrinks
    cfg.write_text('[legal]\nmatches = 2\n[beat_stand]\nbatch = 20\nmin_matches = 20\nmax_matches = 200\n'
                   '[beat_basic]\nbatch = 20\nmin_matches = 20\nmax_matches = 200\n[tournament]\nmatches = 2\n'
                   'max_matches = 2\n[isolation]\ntrusted = true\n')
    term = Terminal("grade", str(STAND_PY), str(BASIC_C), "--config", str(cfg), "--out", str(tmp_path / "o"),
                    "-j", "1", timeout=300)
    status = term.wait()
    assert status == 0, term.screen[-2000:]
    assert "eta about" in term.screen and "matches left (was" in term.screen, term.screen[-3000:]
