"""The review in a grade: what a played match keeps (its log, its decisions priced), what the class and student
pages show of it, the replay pages they link to (checked in headless Chromium by clicking a link), and
``twentyone report`` making the same pages again from the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from tests.browser import Browser
from tests.conftest import require
from tests.test_report import chromium
from twentyone.grading.commands import Execution, grade
from twentyone.grading.config import config_from_dict
from twentyone.grading.decisions.keptlog import unpack_log
from twentyone.grading.outcome import JobInfo, MatchOutcome
from twentyone.grading.plan import MatchJob
from twentyone.grading.report import write_reports
from twentyone.grading.results import ClassReport
from twentyone.grading.decisions.pricing import kept_log
from twentyone.grading.runner import play_job
from twentyone.grading.scoring import class_report
from twentyone.grading.store import Store

ROOT = Path(__file__).resolve().parent.parent
FOULS_PY = ROOT / "tests" / "fixtures" / "py" / "fouls_py.py"
STAND_PY = ROOT / "tests" / "fixtures" / "py" / "stand_py.py"
READY = "document.getElementById('replay') && document.getElementById('replay').dataset.ready === '1'"


def _types(log: str) -> list[str]:
    return [json.loads(line)["type"] for line in unpack_log(log)]


def _job(spec: str, idx: int, trace: bool, bankroll: bool) -> MatchJob:
    info = JobInfo("beat_stand", "s", idx, 11 + idx, ("s", "stand (built-in)"), 1)
    return MatchJob(f"beat_stand|s|{idx}", (spec, "stand"), 11 + idx, info, trace=trace, bankroll=bankroll)


def test_a_match_keeps_what_its_review_needs() -> None:
    """A traced match keeps its whole log and the subject's decisions priced; another match keeps only its rounds
    with a foul (and its shuffles); a clean match that is neither keeps nothing; the kept log survives the
    store's round trip."""
    traced = play_job(_job(str(FOULS_PY), 0, True, False))
    types = _types(traced.log)
    assert types.count("round") == traced.rounds and types.count("review") == 1 and types[0] == "match"
    review = json.loads(unpack_log(traced.log)[-1])
    assert review["seat"] == 1 and review["scope"] == "match" and review["hands"] == traced.seat_rounds[0]
    assert review["priced"] and any(p[11] == "illegal_action" for p in review["priced"])
    other = play_job(_job(str(FOULS_PY), 1, False, False))
    rounds = [json.loads(line) for line in unpack_log(other.log) if '"type":"round"' in line]
    assert 0 < len(rounds) <= 5 and all(any(p["foul"] for p in r["players"]) for r in rounds)
    assert "shuffle" in _types(other.log) and json.loads(unpack_log(other.log)[-1])["scope"] == "incidents"
    assert play_job(_job(str(STAND_PY), 2, False, False)).log == ""
    back = MatchOutcome.from_dict(traced.to_dict(), traced.key, traced.info)
    assert back.log == traced.log
    assert "log" not in play_job(_job(str(STAND_PY), 3, False, False)).to_dict()


def test_kept_log_prices_each_fouling_seat_of_a_tournament_match() -> None:
    """With no subject (a tournament match) the rounds with a foul are kept and each fouling seat is priced."""
    info = JobInfo("tournament", "", 0, 5, ("a", "b"), None)
    o = play_job(MatchJob("tournament|x", (str(FOULS_PY), "basic"), 5, info))
    lines = [json.loads(line) for line in unpack_log(o.log)]
    assert [r["seat"] for r in lines if r["type"] == "review"] == [1]
    assert kept_log([], None, False) == ""


SMALL: dict[str, Any] = {
    "legal": {"matches": 2},
    "beat_stand": {"batch": 6, "min_matches": 6, "max_matches": 6},
    "beat_basic": {"batch": 2, "min_matches": 2, "max_matches": 2},
    "tournament": {"matches": 1},
    "similarity": {"traces": 3},
    "isolation": {"trusted": True},
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ClassReport]:
    """A class of two Python files graded on a small budget, reports written."""
    out = tmp_path_factory.mktemp("review-grade")
    rep = grade([FOULS_PY, STAND_PY], config_from_dict(SMALL), out, False,
                Execution(workers=1, progress=False, warn=lambda m: None))
    return out, rep


def test_the_class_page_has_the_column(graded: tuple[Path, ClassReport]) -> None:
    """The class page's table has an "EV lost /100 hands" column with each student's figure."""
    out, rep = graded
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'data-key="ev_lost"' in html
    for name, review in rep.reviews.items():
        assert review.per_100 is not None
        assert f'data-sort-value="{review.per_100:.6f}" class="num">{review.per_100:.2f}</td>' in html


def test_the_student_pages_link_to_their_replays(graded: tuple[Path, ClassReport]) -> None:
    """A student page shows EV lost per 100 hands from the 3 traced matches, the costliest decisions each linked
    to a replay step that exists, the heat map, every replay (the traced and sample matches, and the matches of
    its incidents) and a link from each incident with a kept log to its round; scores.json keeps no log."""
    out, rep = graded
    review = rep.reviews["fouls_py"]
    assert review.matches == 3 and review.hands > 0 and review.costliest
    page = (out / "students" / "fouls_py.html").read_text(encoding="utf-8")
    assert f'id="ev-lost-per-100">{review.per_100:.2f}</span>' in page and 'id="heatmap"' in page
    for c in review.costliest:
        target = out / "students" / c.replay
        assert f'href="{c.replay}#{c.anchor}"' in page.replace("%20", " ") and target.is_file()
        data = json.loads(target.read_text(encoding="utf-8").split('id="replay-data">', 1)[1].split("</script>")[0])
        rnd = next(r for r in data["rounds"] if r["n"] == c.round)
        step = int(c.anchor.rsplit("-", 1)[1])
        assert any(data["decisions"][i][11] == pytest.approx(c.loss, abs=1e-4) for i in rnd["steps"][step]["d"])
    keys = {p.match_key for p in review.replays}
    scored = next(s for s in rep.students if s.name == "fouls_py")
    assert {s.match_key for s in scored.samples} <= keys
    linked = [i for i in scored.incidents if i.match_key in keys]
    assert linked and all(f"#round-{i.round}-foul" in page for i in linked)
    for p in review.replays:
        assert (out / "students" / p.path).is_file()
    stored = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert stored["reviews"]["fouls_py"]["replays"] and all("log" not in p for p in
                                                           stored["reviews"]["fouls_py"]["replays"])


def test_report_makes_the_same_replays_again(graded: tuple[Path, ClassReport], tmp_path: Path) -> None:
    """``twentyone report`` (the store alone) writes the same student pages' review and the same replays."""
    out, rep = graded
    with Store.open(out) as store:
        again = class_report(store)
    write_reports(again, tmp_path)
    for p in rep.reviews["fouls_py"].replays:
        assert (tmp_path / "students" / p.path).read_bytes() == (out / "students" / p.path).read_bytes()
    assert again.reviews["fouls_py"].per_100 == rep.reviews["fouls_py"].per_100


@pytest.mark.slow
def test_a_class_writes_the_same_replays_in_a_process_per_cpu(graded: tuple[Path, ClassReport],
                                                               tmp_path: Path) -> None:
    """From 4 students on, each student's charts and replay pages are made in a process per CPU: the pages are
    byte for byte those written in one process, each listed once among the files written, every chart drawn."""
    import os
    from dataclasses import replace

    from twentyone.grading.decisions.pages import write_replays

    out, rep = graded
    students, reviews = [], {}
    for k in (1, 2):
        for s in rep.students:
            name = f"{s.name}_{k}"
            students.append(replace(s, name=name))
            if s.name in rep.reviews:
                r = rep.reviews[s.name]
                reviews[name] = replace(r, replays=[replace(p, path=name + p.path[len(s.name):]) for p in r.replays],
                                        costliest=[replace(c, replay=name + c.replay[len(s.name):])
                                                   for c in r.costliest])
    big = replace(rep, students=students, reviews=reviews)
    assert len(students) >= 4 and sum(len(r.replays) for r in reviews.values()) >= 4
    cpus = set(range(os.cpu_count() or 1))
    require(len(cpus) >= 2, "two CPUs")
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)  # an earlier sandboxed test may have pinned this process to one CPU
    try:
        written = write_reports(big, tmp_path / "pool")
    finally:
        os.sched_setaffinity(0, before)
    one = write_replays(big, tmp_path / "one")
    assert len(one) == sum(len(r.replays) for r in reviews.values())
    for p in one:
        rel = p.relative_to(tmp_path / "one")
        assert (tmp_path / "pool" / rel).read_bytes() == p.read_bytes()
        assert written.count(tmp_path / "pool" / rel) == 1
    from twentyone.grading.charts import has_curve

    for s in students:
        page = (tmp_path / "pool" / "students" / f"{s.name}.html").read_text(encoding="utf-8")
        assert page.count("<svg") == sum(1 for c in s.criteria if has_curve(c)) + len(s.samples)


def test_a_costliest_link_opens_its_step_in_chromium(graded: tuple[Path, ClassReport]) -> None:
    """Clicking the first costliest decision on the student page opens its replay at that round and step, the
    decision's EV lost on screen; an incident's link opens its round at the foul, shown on the student's seat."""
    exe = chromium()
    out, rep = graded
    review = rep.reviews["fouls_py"]
    first = review.costliest[0]
    with Browser(exe) as b:
        b.open((out / "students" / "fouls_py.html").as_uri(), "document.readyState === 'complete'")
        b.click("#costliest tbody tr a")
        b.wait(READY)
        assert unquote(b.eval("window.location.pathname")).endswith("/students/" + first.replay)
        assert b.eval("document.getElementById('replay').dataset.round") == str(first.round)
        assert b.eval("window.location.hash") == "#" + first.anchor
        losses = b.eval("Array.prototype.map.call(document.querySelectorAll('#decision .lost'), "
                        "function (p) { return Number(p.dataset.loss); })")
        assert any(abs(x - first.loss) < 1e-3 for x in losses)
        b.open((out / "students" / "fouls_py.html").as_uri(), "document.readyState === 'complete'")
        b.click("a.replay")
        b.wait(READY)
        href = b.eval("window.location.hash")
        assert href.startswith("#round-") and href.endswith("-foul")
        assert b.eval("document.getElementById('replay').dataset.round") == href[len("#round-"):-len("-foul")]
        assert b.eval("document.querySelector('.seat.mine .foul').textContent").startswith("illegal_action")
    assert not b.errors, b.errors


def test_no_replay_shows_a_seed(graded: tuple[Path, ClassReport]) -> None:
    """No replay page, student page or scores.json names a match's seed (RULES.md, secret_seed), though the kept
    logs in the store hold them."""
    out, rep = graded
    with Store.open(out) as store:
        seeds = {str(r.seed) for r in store.matches()}
    assert all(len(s) > 6 for s in seeds)  # a secret seed is drawn at random: long numbers
    pages = [out / "students" / p.path for r in rep.reviews.values() for p in r.replays]
    pages += [out / "students" / "fouls_py.html", out / "scores.json"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not [s for s in seeds if s in text], page


def test_a_duplicate_job_keeps_the_subjects_own_match() -> None:
    """Under one-seat rules (unix-bj) a criterion's match is each player alone on the seed: the kept log is the
    subject's own match, whose seat 1 its review prices, and the review reads it at the subject's seat."""
    from twentyone.grading.decisions.numbers import student_review
    from twentyone.grading.store import MatchRow

    info = JobInfo("beat_stand", "s", 0, 7, ("stand (built-in)", "s"), 2)
    job = MatchJob("beat_stand|s|0", ("stand", str(FOULS_PY)), 7, info, rules="unix-bj", decks=1, trace=True,
                   bankroll=True, duplicate=True)
    o = play_job(job)
    first = json.loads(unpack_log(o.log)[0])
    assert [s["player"] for s in first["seats"]] == [str(FOULS_PY)]
    assert json.loads(unpack_log(o.log)[-1])["seat"] == 1
    review = student_review("s", [MatchRow(o.key, "beat_stand", "s", 0, 7, list(info.names), o)])
    assert review is not None and review.matches == 1 and review.hands == o.seat_rounds[1]
    assert review.replays[0].seat == 1 and review.replays[0].names == ["s"]
