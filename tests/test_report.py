"""Reports: every file is written, JSON follows Gradescope's and PrairieLearn's formats, CSV matches,
student text is escaped, charts are real PNGs, and the class page renders in headless Chromium."""

from __future__ import annotations

import csv
import json
import shutil
import struct
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import IN_CI

from twentyone.grading.config import GradingConfig
from twentyone.grading.charts import CHART_SIZE, CLASS_CHART_SIZE
from twentyone.grading.report import ReportError, csv_table, format_rate, write_reports
from twentyone.grading.results import BankrollSample, ClassReport, Criterion, Incident, StandingRow, StudentScore

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SCRIPT = "<script>alert('pwned')</script>"
HOSTILE = "dan&o'hara"


def running(n: int, rate: float, start: float) -> list[tuple[int, float, float, float]]:
    """A narrowing interval around ``rate`` after each batch of 100 matches."""
    return [(k, rate, max(0.0, rate - start / (k / 100) ** 0.5), min(1.0, rate + start / (k / 100) ** 0.5))
            for k in range(100, n + 1, 100)]


def win_criterion(name: str, threshold: float, status: str, points: float, rate: float, n: int) -> Criterion:
    """A win-rate rubric line with its running interval."""
    low, high = rate - 0.02, rate + 0.02
    return Criterion(name, f"Beats {name[5:]} in at least {threshold:.0%} of matches", points, 20.0, status,
                     f"{rate * n:.0f} of {n} matches won", wins=rate * n, ties=3, losses=n - int(rate * n) - 3,
                     matches=n, rate=rate, low=low, high=high, threshold=threshold,
                     running=running(n, rate, 0.06), mean_account=1200.0, opponent_mean_account=800.0)


def legal(points: float, status: str, detail: str) -> Criterion:
    """The legal-play rubric line."""
    return Criterion("legal", "Plays legally in every match", points, 60.0, status, detail)


def sample(name: str) -> BankrollSample:
    """A short bankroll sample against basic."""
    return BankrollSample(f"beat_basic|{name}|basic|2026|1", f"{name} vs basic, seed 2026", [name, "basic"],
                          [[1000 + 10 * r for r in range(30)], [1000 - 5 * r for r in range(30)]])


@pytest.fixture(scope="module")
def grade_report() -> ClassReport:
    """A class: a passing student, a borderline one, one that did not compile, one with incidents."""
    alice = StudentScore("alice", "subs/alice/mycodes.c", "c", None, "", 100.0, 100.0, 10.0,
                         [legal(60, "pass", "no incident in 1210 matches"),
                          win_criterion("beat_stand", 0.9, "pass", 20, 0.95, 400),
                          win_criterion("beat_basic", 0.6, "pass", 20, 0.7, 400),
                          Criterion("tournament", "Class tournament bonus", 10, 10, "bonus", "rank 1 of 4")],
                         [], 0, [sample("alice")], tournament_rank=1, tournament_size=4)
    bob = StudentScore("bob", "subs/bob.py", "py", None, "", 80.0, 100.0, 3.0,
                       [legal(60, "pass", "no incident"), win_criterion("beat_stand", 0.9, "pass", 20, 0.93, 600),
                        win_criterion("beat_basic", 0.6, "borderline", 0, 0.59, 1000),
                        Criterion("tournament", "Class tournament bonus", 3, 10, "bonus", "rank 3 of 4")],
                       [], 0, [sample("bob")], tournament_rank=3, tournament_size=4)
    carol = StudentScore("carol", "subs/carol/mycodes.c", "", "did not compile: mycodes.c:3: error " + SCRIPT,
                         "mycodes.c:3:5: error: expected ';' before " + SCRIPT, 0.0, 100.0, 0.0,
                         [legal(0, "fail", "did not compile"),
                          Criterion("beat_stand", "Beats stand in at least 90% of matches", 0, 20, "not played",
                                    "did not compile", threshold=0.9),
                          Criterion("beat_basic", "Beats basic in at least 60% of matches", 0, 20, "not played",
                                    "did not compile", threshold=0.6)],
                         [Incident("-", 0, "compile", SCRIPT)], 1, [])
    excerpt = json.dumps({"type": "round", "round": 7, "players": [{"seat": 1, "foul": "illegal_double <b>x</b>"}]})
    dan = StudentScore(HOSTILE, "subs/dan.py", "py", None, "", 40.0, 100.0, 6.0,
                       [legal(0, "fail", "12 incidents"), win_criterion("beat_stand", 0.9, "pass", 20, 0.92, 400),
                        win_criterion("beat_basic", 0.6, "pass", 20, 0.66, 400),
                        Criterion("tournament", "Class tournament bonus", 6, 10, "bonus", "rank 2 of 4")],
                       [Incident("beat_basic|dan|basic|2031|2", 7, "illegal_double", excerpt),
                        Incident("beat_stand|dan|stand|2040|1", 2, "timeout", "decision took 1.2 s > 1.0 s")],
                       12, [sample(HOSTILE)], tournament_rank=2, tournament_size=4)
    standings = [StandingRow(1, "alice", "subs/alice/mycodes.c", 60, 40, 5, 15, 0.708, 0.58, 0.81, 1480.5, 0, 0),
                 StandingRow(2, HOSTILE, "subs/dan.py", 60, 33, 4, 23, 0.583, 0.46, 0.70, 1210.0, 3, 1, ["timeout"])]
    return ClassReport("grade", "CS101 blackjack, spring", "2026-11-23T10:00:00", GradingConfig().to_dict(),
                       [alice, bob, carol, dan], standings, matches=4862, rounds=291720)


@pytest.fixture(scope="module")
def tournament_report() -> ClassReport:
    """A three-entry tournament with a faulting entry."""
    rows = [StandingRow(1, "hilo", "hilo", 40, 30, 2, 8, 0.775, 0.63, 0.88, 1330.0, 0, 0),
            StandingRow(2, "basic", "basic", 40, 22, 3, 15, 0.5875, 0.43, 0.72, 1105.0, 0, 0),
            StandingRow(3, "eve", "subs/eve<x>.c", 40, 4, 1, 35, 0.1125, 0.05, 0.24, 610.0, 2, 5, ["crash: SIGSEGV"],
                        "crashed in 5 matches " + SCRIPT)]
    return ClassReport("tournament", "Friday tournament", "2026-11-23T12:00:00",
                       {"matches": 40, "seed": 7, "format": "pairs"}, standings=rows, matches=120, rounds=7200)


@pytest.fixture(scope="module")
def grade_out(grade_report: ClassReport, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """The grade report written once for the module."""
    out = tmp_path_factory.mktemp("grade")
    return out, write_reports(grade_report, out)


def read_json(path: Path) -> Any:
    """Parse a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def png_size(path: Path) -> tuple[int, int]:
    """The width and height of a PNG from its IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    w, h = struct.unpack(">II", data[16:24])
    return int(w), int(h)


def test_every_file_is_written(grade_out: tuple[Path, list[Path]], grade_report: ClassReport) -> None:
    """Pages, charts, CSV, JSON and one platform file per student exist and are the files returned."""
    out, written = grade_out
    assert all(p.is_file() and p.stat().st_size > 0 for p in written)
    assert len(written) == len(set(written))
    for name in ("index.html", "scores.csv", "scores.json"):
        assert out / name in written
    for s in grade_report.students:
        for rel in (f"students/{s.name}.html", f"gradescope/{s.name}/results.json",
                    f"prairielearn/{s.name}/results.json"):
            assert out / rel in written
    assert not (out / "gradescope" / "results.json").exists()
    assert not list(out.rglob("*.png")) and not (out / "students" / "carol").exists()  # charts are in the pages


def test_single_student_gets_top_level_gradescope_file(grade_report: ClassReport, tmp_path: Path) -> None:
    """With exactly one student, gradescope/results.json is that student's results."""
    one = ClassReport("grade", "one", "2026-11-23", {}, grade_report.students[:1])
    write_reports(one, tmp_path)
    assert read_json(tmp_path / "gradescope" / "results.json") == read_json(tmp_path / "gradescope/alice/results.json")


def svgs(page: Path) -> list[Any]:
    """The charts of a page, each parsed as XML (so each is well-formed SVG)."""
    import re
    import xml.etree.ElementTree as ET

    text = page.read_text(encoding="utf-8")
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", text, re.S)]


SVG = "{http://www.w3.org/2000/svg}"


def test_charts_are_inline_svg(grade_out: tuple[Path, list[Path]]) -> None:
    """Each student page holds its charts as well-formed inline SVG of the chart size, each described by its
    title: two win-rate charts and one bankroll chart for alice, bob and dan, none for carol; the class page
    two of the class chart size."""
    out, _ = grade_out
    for name, count in (("alice", 3), ("bob", 3), (HOSTILE, 3), ("carol", 0)):
        charts = svgs(out / "students" / f"{name}.html")
        assert len(charts) == count, name
        for svg in charts:
            assert svg.get("viewBox") == f"0 0 {CHART_SIZE[0]} {CHART_SIZE[1]}" and svg.get("role") == "img"
            assert svg.find(f"{SVG}title") is not None and len(svg.findall(f".//{SVG}polyline")) >= 1
    titles = [svg.find(f"{SVG}title").text for svg in svgs(out / "students" / "alice.html")]
    assert titles == ["Beats stand in at least 90% of matches: running win rate and its interval over 400 matches",
                      "Beats basic in at least 60% of matches: running win rate and its interval over 400 matches",
                      "Bankroll curves: alice vs basic, seed 2026"]
    assert [svg.get("viewBox") for svg in svgs(out / "index.html")] == [
        f"0 0 {CLASS_CHART_SIZE[0]} {CLASS_CHART_SIZE[1]}"] * 2


def test_scores_json_is_the_report(grade_out: tuple[Path, list[Path]], grade_report: ClassReport) -> None:
    """scores.json is ClassReport.to_dict(), totals included."""
    data = read_json(grade_out[0] / "scores.json")
    assert [s["total"] for s in data["students"]] == [110.0, 83.0, 0.0, 46.0]
    assert [s["name"] for s in data["students"]] == ["alice", "bob", "carol", HOSTILE]
    bob = data["students"][1]
    assert [(c["name"], c["status"], c["points"]) for c in bob["criteria"]] == [
        ("legal", "pass", 60), ("beat_stand", "pass", 20), ("beat_basic", "borderline", 0), ("tournament", "bonus", 3)]
    assert data["students"][3]["incident_count"] == 12 and data["students"][3]["incidents"][1]["cause"] == "timeout"
    assert data["kind"] == "grade" and data["matches"] == 4862 and data["rounds"] == 291720


def test_csv_rows_match_the_students(grade_out: tuple[Path, list[Path]], grade_report: ClassReport) -> None:
    """scores.csv has a header and one row per student with the report's numbers."""
    with open(grade_out[0] / "scores.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["name"] for r in rows] == [s.name for s in grade_report.students]
    for r, s in zip(rows, grade_report.students):
        assert float(r["total"]) == s.total and int(r["incidents"]) == s.incident_count
        assert r["error"] == (s.error or "")
    assert rows[1]["beat_basic_status"] == "borderline" and float(rows[1]["beat_basic_rate"]) == 0.59
    assert rows[2]["tournament_points"] == ""


def test_csv_columns_are_stable(grade_report: ClassReport, tournament_report: ClassReport) -> None:
    """Column order follows the rubric, whatever order the criteria come in."""
    header, _ = csv_table(grade_report)
    assert header[:3] == ["name", "kind", "source"]
    assert [h for h in header if h.endswith("_points") and "_max_" not in h] == ["legal_points", "beat_stand_points",
                                                           "beat_basic_points", "tournament_points"]
    header, rows = csv_table(tournament_report)
    assert header[:4] == ["rank", "name", "spec", "matches"] and len(rows) == 3


def test_gradescope_results_follow_the_format(grade_out: tuple[Path, list[Path]],
                                              grade_report: ClassReport) -> None:
    """Gradescope: score = rubric + bonus, tests with name/score/max_score/output/visibility, a leaderboard."""
    for s in grade_report.students:
        gs = read_json(grade_out[0] / "gradescope" / s.name / "results.json")
        assert gs["score"] == pytest.approx(s.total)
        assert gs["stdout_visibility"] in ("hidden", "visible", "after_due_date", "after_published")
        assert gs["output_format"] == "text" and isinstance(gs["output"], str)
        for t in gs["tests"]:
            assert {"name", "output", "visibility"} <= t.keys() and t["visibility"] == "visible"
            assert t["status"] in ("passed", "failed")
            if "score" in t:
                assert 0 <= t["score"] <= t["max_score"]
        rubric = [t for t in gs["tests"] if "score" in t]
        assert sum(t["score"] for t in rubric) == pytest.approx(s.total)
        board = {e["name"]: e["value"] for e in gs["leaderboard"]}
        assert board["total"] == pytest.approx(s.total) and board["incidents"] == s.incident_count
    bob = read_json(grade_out[0] / "gradescope" / "bob" / "results.json")
    basic = next(t for t in bob["tests"] if "beats basic" in t["tags"])
    assert basic["status"] == "failed" and "borderline" in basic["output"]
    assert bob["leaderboard"][2] == {"name": "win rate against basic", "value": 0.59}


def test_prairielearn_results_follow_the_format(grade_out: tuple[Path, list[Path]],
                                                grade_report: ClassReport) -> None:
    """PrairieLearn: gradable, score in 0..1 (bonus capped), tests with points/max_points."""
    for s in grade_report.students:
        pl = read_json(grade_out[0] / "prairielearn" / s.name / "results.json")
        assert {"gradable", "score", "message", "tests"} <= pl.keys()
        assert 0.0 <= pl["score"] <= 1.0
        for t in pl["tests"]:
            assert {"name", "points", "max_points", "message", "output"} <= t.keys()
            assert 0 <= t["points"] <= t["max_points"]
    def read(name: str) -> Any:
        return read_json(grade_out[0] / "prairielearn" / name / "results.json")

    assert read("alice")["score"] == 1.0 and read("alice")["gradable"] is True
    assert read("bob")["score"] == pytest.approx(0.83)
    carol = read("carol")
    assert carol["gradable"] is False and carol["message"].startswith("did not compile")
    assert any(SCRIPT in e for e in carol["format_errors"])


class Text(HTMLParser):
    """Collects a page's script bodies, text and tags."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._in_script else self.text).append(data)


def parse(path: Path) -> Text:
    """Parse an HTML file."""
    p = Text()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_student_text_is_escaped(grade_out: tuple[Path, list[Path]]) -> None:
    """Compiler messages, errors, names and excerpts from students never become markup."""
    out = grade_out[0]
    for page in [out / "index.html", *(out / "students").glob("*.html")]:
        p = parse(page)
        assert len(p.scripts) <= 1 and all("pwned" not in s for s in p.scripts), page
        assert sum(t == "script" for t, _ in p.tags) <= 1 and not any(t == "x" for t, _ in p.tags), page
    carol = parse(out / "students" / "carol.html")
    assert any(SCRIPT in t for t in carol.text)
    dan_page = (out / "students" / f"{HOSTILE}.html").read_text(encoding="utf-8")
    assert "dan&amp;o&#x27;hara" in dan_page and "illegal_double &lt;b&gt;x&lt;/b&gt;" in dan_page
    assert '\n  &quot;round&quot;: 7,' in dan_page  # the JSON excerpt is pretty-printed
    assert not any(t == "b" for t, _ in parse(out / "students" / f"{HOSTILE}.html").tags)
    links = [a["href"] for t, a in parse(out / "index.html").tags if t == "a"]
    assert "students/dan%26o%27hara.html" in links


def test_student_page_shows_the_rubric(grade_out: tuple[Path, list[Path]]) -> None:
    """A student page has every rubric line, the win rate with its interval and the charts."""
    page = (grade_out[0] / "students" / "bob.html").read_text(encoding="utf-8")
    assert page.count("<tr>") == 1 + 4 and "borderline" in page
    assert "59.0% (95% CI 57.0\u201361.0%)" in page
    assert "Beats basic in at least 60% of matches: running win rate" in page and "Bankroll curves: bob vs" in page


def test_unsafe_names_and_kinds_are_refused(grade_report: ClassReport, tmp_path: Path) -> None:
    """A name that is not one path component, or an unknown report kind, is a ReportError naming it."""
    bad = ClassReport("grade", "t", "d", {}, [StudentScore("../x", "", "py", None, "", 0, 100, 0, [], [], 0, [])])
    with pytest.raises(ReportError, match=r"'\.\./x'"):
        write_reports(bad, tmp_path)
    with pytest.raises(ReportError, match="'exam'"):
        write_reports(ClassReport("exam", "t", "d", {}), tmp_path)


def test_a_name_in_a_chart_is_text_the_browser_draws(tmp_path: Path) -> None:
    """A Chinese or hostile name is written into its chart as escaped text (the browser draws it in the page's
    fonts: no pinyin, no tofu, no markup)."""
    name = "张三_<b>&"
    sample = BankrollSample("beat_basic|x|0|1", f"{name} vs basic (built-in), match 0, seat 1", [name, "basic"],
                            [[1000 + 10 * r for r in range(30)], [1000 - 5 * r for r in range(30)]])
    student = StudentScore(name=name, source="subs/z/mycodes.c", kind="c", error=None, messages="", score=0.0,
                           max_score=100.0, bonus=0.0, criteria=[], incidents=[], incident_count=0, samples=[sample])
    write_reports(ClassReport(kind="grade", title="t", created="2026-01-01T00:00:00", config={},
                              students=[student]), tmp_path)
    (chart,) = svgs(tmp_path / "students" / f"{name}.html")
    texts = [t.text for t in chart.iter(f"{SVG}text")]
    assert f"{name} vs basic (built-in), match 0, seat 1" in texts and name in texts  # the title and the legend
    assert chart.find(f".//{SVG}b") is None


def test_format_rate() -> None:
    """A rate is shown with its interval, one decimal."""
    assert format_rate(0.912, 0.893, 0.928) == "91.2% (95% CI 89.3\u201392.8%)"
    assert format_rate(None, None, None) == ""


def test_tournament_report(tournament_report: ClassReport, tmp_path: Path) -> None:
    """A tournament writes the standings as table#scores, a CSV row per entry and no student files."""
    written = write_reports(tournament_report, tmp_path)
    assert {p.relative_to(tmp_path).as_posix() for p in written} == {"index.html", "scores.csv", "scores.json"}
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'id="scores"' in page and "77.5% (95% CI 63.0\u201388.0%)" in page
    assert SCRIPT not in page and "crash: SIGSEGV" in page
    with open(tmp_path / "scores.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["name"] for r in rows] == ["hilo", "basic", "eve"] and rows[2]["faults"] == "5"


# ------------------------------------------------------------------------------------------------ browser

def chromium() -> str:
    """The chromium executable, or skip (fail under CI=true: .ci/run installs it)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if IN_CI:
            pytest.fail("chromium is not installed and CI=true: the browser tests must not skip")
        pytest.skip("chromium not installed: apt-get install chromium")
    return exe


def run_chromium(exe: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with a fresh profile."""
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                               "--no-first-run", "--disable-background-networking", "--disable-component-update",
                               "--disable-sync", f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=90)


class Rows(HTMLParser):
    """The rows of table#scores and that table's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.table: dict[str, str | None] | None = None
        self.rows: list[list[str]] = []
        self._depth = 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id") == "scores":
            self.table, self._depth = a, 1
        elif self._depth and tag == "tr":
            self.rows.append([])
        elif self._depth and tag == "td":
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if self._depth and tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None
        elif self._depth and tag == "table":
            self._depth = 0

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_class_page_in_headless_chromium(grade_out: tuple[Path, list[Path]], grade_report: ClassReport,
                                         tmp_path: Path) -> None:
    """Chromium renders index.html (a window-size screenshot); table#scores is filled and the script sorts it."""
    exe = chromium()
    index = grade_out[0] / "index.html"
    shot = tmp_path / "index.png"
    r = run_chromium(exe, f"--screenshot={shot}", "--window-size=1280,900", index.as_uri())
    assert shot.is_file(), r.stderr
    assert png_size(shot) == (1280, 900) and shot.stat().st_size > 20_000
    r = run_chromium(exe, "--enable-logging=stderr", "--v=0", "--dump-dom", index.as_uri() + "?sort=total&dir=desc")
    assert "Uncaught" not in r.stderr and "Refused to" not in r.stderr, r.stderr  # no script error, no CSP block
    rows = Rows()
    rows.feed(r.stdout)
    assert rows.table is not None, r.stderr
    assert rows.table.get("data-sort-ready") == "1" and rows.table.get("data-sorted-by") == "total:desc"
    body = rows.rows[1:]
    assert len(body) == len(grade_report.students) and all(row and row[0] for row in body)
    by_total = sorted(grade_report.students, key=lambda s: -s.total)
    assert [row[0] for row in body] == [s.name for s in by_total]


# ------------------------------------------------------------------------------------ the class at a glance

def test_class_page_shows_the_win_rates_and_the_class(grade_out: tuple[Path, list[Path]]) -> None:
    """index.html has each win rate with its interval in table#scores, as the terminal has them, and two
    pictures of the class: a histogram of totals and the scatter of the two win rates."""
    out, _ = grade_out
    rows = Rows()
    rows.feed((out / "index.html").read_text(encoding="utf-8"))
    alice = next(r for r in rows.rows[1:] if r and r[0] == "alice")
    assert "95.0% (93.0\u201397.0%)" in alice[3] and "70.0% (68.0\u201372.0%)" in alice[4]
    totals, rates = svgs(out / "index.html")
    assert totals.find(f"{SVG}title").text.startswith("Histogram of the students' totals")
    assert rates.find(f"{SVG}title").text.startswith("Each student's win rate against stand by")
    bars = [r for r in totals.iter(f"{SVG}rect") if r.get("fill") == "#2d6cdf"]
    assert len(bars) == 4  # alice 110, bob 83, carol 0, dan 46: four bins of 5 points


def test_the_scatter_draws_both_rubric_lines_and_labels_every_student(grade_report: ClassReport) -> None:
    """The scatter: a vertical dashed line at the stand threshold, a horizontal one at the basic threshold, and one
    labelled point per student with both win rates (carol, who did not compile, has none), each label beside its
    point."""
    import xml.etree.ElementTree as ET

    from twentyone.grading.charts import rates_scatter
    from twentyone.grading.svg import Plot

    svg = ET.fromstring(rates_scatter(grade_report.students, 0.9, 0.6))
    plot = Plot(*CLASS_CHART_SIZE, (0, 1.02), (0, 1.02), "", "", "")  # the scatter's own mapping
    dashed = [[tuple(map(float, xy.split(","))) for xy in ln.get("points").split()]
              for ln in svg.iter(f"{SVG}polyline") if ln.get("stroke-dasharray")]
    assert [(round(plot.x(0.9), 1), round(plot.y(0), 1)), (round(plot.x(0.9), 1), round(plot.y(1.02), 1))] in dashed
    assert [(round(plot.x(0), 1), round(plot.y(0.6), 1)), (round(plot.x(1.02), 1), round(plot.y(0.6), 1))] in dashed
    labels = {t.text: (float(t.get("x")), float(t.get("y"))) for t in svg.iter(f"{SVG}text") if t.get("class") == "label"}
    assert sorted(labels) == sorted(["alice", "bob", HOSTILE])
    x, y = labels["alice"]
    assert abs(x - plot.x(0.95)) < 30 and abs(y - plot.y(0.7)) < 30


def test_the_scatters_labels_never_pile_up(tmp_path: Path) -> None:
    """Thirty students on a few crowded points and near each other: every label is drawn apart from every other,
    as Chromium lays them out (measured, not estimated), at 1,400 and 800 pixels."""
    from tests.browser import Browser
    from tests.pagefit import fit

    students = []
    for k in range(30):
        stand, basic = 0.86 + 0.003 * (k % 6), 0.40 + 0.004 * (k // 6)
        if k % 5 == 0:
            stand, basic = 0.0, 0.0  # several share a point: one label for them
        students.append(StudentScore(f"student_{2023000 + k}", "s.c", "c", None, "", 60.0, 100.0, 0.0,
                                     [win_criterion("beat_stand", 0.9, "fail", 0, stand, 200),
                                      win_criterion("beat_basic", 0.6, "fail", 0, basic, 200)], [], 0, []))
    write_reports(ClassReport("grade", "crowded", "2026-11-23", GradingConfig().to_dict(), students), tmp_path)
    with Browser(chromium()) as b:
        for width in (1400, 800):
            assert [p for p in fit(b, tmp_path / "index.html", width) if p[0] == "chart"] == []
            labels = b.eval("Array.prototype.map.call(document.querySelectorAll('svg text.label'), "
                            "function (t) { return t.textContent; })")
            assert len(labels) == 25 and "student_2023000, student_2023005 and 4 more" in labels  # 6 share (0, 0)


def test_a_reference_line_is_set_apart(grade_report: ClassReport, tmp_path: Path) -> None:
    """--reference champion: its win rates in a table of their own, no score, neither in table#scores nor in
    the terminal's class table, and no score in scores.csv."""
    import io

    from twentyone.grading.commands import summary_table

    champ = StudentScore("champion (reference)", "champion", "builtin", None, "", 0.0, 100.0, 0.0,
                         [Criterion("legal", "Plays legally", 0, 60, "not played", "a reference line"),
                          win_criterion("beat_stand", 0.9, "pass", 20, 0.96, 200),
                          win_criterion("beat_basic", 0.6, "pass", 20, 0.66, 400)], [], 0, [], reference=True)
    report = ClassReport("grade", "with a reference", "2026-11-23", GradingConfig().to_dict(),
                         grade_report.students + [champ], [], 10, 100)
    write_reports(report, tmp_path)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    rows = Rows()
    rows.feed(page)
    assert [r[0] for r in rows.rows[1:]] == [s.name for s in grade_report.students]
    refs = page[page.index('<table id="references">'):]
    assert "champion (reference)" in refs and "96.0% (95% CI 94.0\u201398.0%)" in refs and "0/60" not in refs
    with open(tmp_path / "scores.csv", encoding="utf-8-sig", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["name"] == "champion (reference)")
    assert row["score"] == row["total"] == row["legal_points"] == "" and row["beat_stand_rate"] == "0.96"
    text = io.StringIO()
    summary_table(report, text)
    shown = text.getvalue()
    head, refs_text = shown.split("reference lines", 1)
    assert "champion" not in head and "96.0% (94.0-98.0)" in refs_text and "0/60" not in refs_text


def test_an_incident_reads_as_a_round(grade_report: ClassReport, tmp_path: Path) -> None:
    """An incident shows the hand, the dealer's card, what was asked and answered and why that was a foul, the
    student's seat highlighted, the match in words; the round record stays one click away."""
    from twentyone.grading.report import render_student

    record = {"type": "round", "round": 7, "shoe": 1, "first_card": 30, "dealer": "9T", "dealer_bj": False,
              "players": [{"seat": 1, "account_before": 990, "bet": 10, "insurance": 0, "actions": "hs",
                           "cards": "T55", "bj": False, "doubled": False, "surrendered": False, "foul": None,
                           "account_after": 980},
                          {"seat": 2, "account_before": 1020, "bet": 10, "insurance": 0, "actions": "",
                           "cards": "T2", "bj": False, "doubled": False, "surrendered": False,
                           "foul": "illegal_action", "account_after": 1010}]}
    inc = Incident("beat_basic|\u5f20\u4e09_2023001|17|2034|2", 7, "illegal_action", json.dumps(record),
                   "the course program fouled this hand too", True, 2, "first_action", "x")
    st = StudentScore("\u5f20\u4e09_2023001", "subs/z", "c", None, "", 40.0, 100.0, 0.0, [], [inc], 1, [])
    page = render_student(st, grade_report)
    assert "round 7 of match 17 against basic, seed 2034, seat 2</h3>" in page
    assert "beat_basic|" not in page.split("<details>")[0]
    from twentyone.grading.report import gradescope_results

    assert "first_action answered 'x' (round 7 of match 17 against basic, seed 2034, seat 2)" in \
        gradescope_results(st)["output"]
    for said in ("<dt>Held</dt><dd>T 2 (12)</dd>", "<dt>Dealer showed</dt><dd>9 ", "<dt>Asked</dt><dd>first_action",
                 "<dt>Answered</dt><dd>&#x27;x&#x27;</dd>", "&#x27;x&#x27; is not a decision the rules allow here"):
        assert said in page, said
    you = page[page.index('<tr class="you">'):]
    assert you.split("</tr>")[0].count("T2") == 1 and "(the student)" in you.split("</tr>")[0]
    assert "<details><summary>The round record (JSON)</summary><pre>" in page and "&quot;dealer&quot;" in page


def _fits(exe: str, page: Path, width: int) -> tuple[bool, str]:
    """Whether ``page`` fits ``width`` pixels without scrolling sideways, measured by Chromium on a copy with a
    measuring script (the report's own CSP would refuse it)."""
    import re

    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text(encoding="utf-8"))
    probe = page.with_name("probe.html")
    probe.write_text(text.replace("</body>", "<script>document.body.setAttribute('data-fits', String("
                                  "document.documentElement.scrollWidth <= window.innerWidth));"
                                  "document.body.setAttribute('data-width', document.documentElement.scrollWidth)"
                                  "</script></body>"), encoding="utf-8")
    r = run_chromium(exe, "--dump-dom", f"--window-size={width},900", probe.as_uri())
    m = re.search(r'data-fits="(\w+)" data-width="(\d+)"', r.stdout)
    assert m is not None, r.stderr
    return m.group(1) == "true", m.group(2)


def test_the_tournament_page_fits_1400_pixels(tmp_path: Path) -> None:
    """Long absolute paths in the Spec column do not push fouls and faults off a 1400-pixel page; the page says
    what its numbers count."""
    exe = chromium()
    deep = "/home/instructor/courses/2026-spring/CS101-blackjack/hand-ins/section-03/" + "x" * 60
    rows = [StandingRow(i + 1, f"student{i}", f"{deep}/student{i}/mycodes.c:1", 120, 60, 10, 50, 0.54, 0.48, 0.60,
                        1010.0, 3, 1, ["timeout"]) for i in range(4)]
    report = ClassReport("tournament", "Tournament of 4 players (pairs, 40 matches per pair)", "2026-11-23",
                         {"matches": 40, "format": "pairs"}, standings=rows, matches=240, rounds=24000)
    write_reports(report, tmp_path)
    fits, width = _fits(exe, tmp_path / "index.html", 1400)
    assert fits, f"the page is {width} px wide"
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "240</b> matches played in all" in page and "Matches played" in page and "one per opponent" in page
    assert f'title="{deep}/student0/mycodes.c:1">student0/mycodes.c:1<' in page


# ------------------------------------------------------------------------------------------ pages that fit

LONG_ERROR = ("/home/instructor/courses/2026-spring/CS101-blackjack/hand-ins/section-03/2023001_zhang/mycodes.c "
              "does not compile: mycodes.c:12:5: error: expected ';' before '}' token")


@pytest.mark.slow
def test_every_page_fits_1400_and_800_pixels(grade_report: ClassReport, tmp_path: Path) -> None:
    """The class page (its Error column), each student page, and a tournament page (its Spec column, a hand-in
    that did not compile): at 1,400 pixels nothing is cut off, no column is squeezed below its longest word and
    every column is in view; at 800 pixels the page never scrolls sideways (a wide table scrolls in its own
    frame) and no word is broken or spills out of its cell.  Measured in Chromium, screenshots kept."""
    from dataclasses import replace

    from tests.browser import Browser
    from tests.pagefit import fit

    students = [replace(s, error=LONG_ERROR) if s.name == "carol" else s for s in grade_report.students]
    grade = replace(grade_report, students=students)
    write_reports(grade, tmp_path / "grade")
    deep = "/home/instructor/courses/2026-spring/CS101-blackjack/hand-ins/section-03"
    rows = [StandingRow(i + 1, f"2023{i:03d}_student", f"{deep}/2023{i:03d}_student/mycodes.c:1", 120, 60, 10, 50,
                        0.54, 0.48, 0.60, 1010.0, 3, 1, ["timeout"], None,
                        [f"2023{i:03d}_student: its own mycodes.h differs from the course's mycodes.h"] if i == 1 else [])
            for i in range(4)]
    rows.append(StandingRow(5, "2023009_broken", f"{deep}/2023009_broken/mycodes.c:1", 0, 0, 0, 0, 0.0, 0.0, 1.0,
                            0.0, 0, 0, [], LONG_ERROR))
    write_reports(ClassReport("tournament", "Tournament of 5 players (pairs, 40 matches per pair)", "2026-11-23",
                              {"matches": 40, "format": "pairs"}, standings=rows, matches=240, rounds=24000),
                  tmp_path / "tournament")
    pages = [tmp_path / "grade" / "index.html", *sorted((tmp_path / "grade" / "students").glob("*.html")),
             tmp_path / "tournament" / "index.html"]
    with Browser(chromium()) as b:
        for page in pages:
            assert fit(b, page, 1400) == [], page
            assert [p for p in fit(b, page, 800) if p[0] != "hidden"] == [], page
            assert page.with_name(f"{page.stem}-800.png").stat().st_size > 10_000
    tournament = (tmp_path / "tournament" / "index.html").read_text(encoding="utf-8")
    broken = tournament[tournament.index("2023009_broken"):].split("</tr>")[0]
    assert "not played" in broken and "0.0%" not in broken and ">5<" not in broken  # no rank, no rate


def test_what_went_wrong_comes_first(grade_report: ClassReport) -> None:
    """A student page puts the error, the rubric and the incidents before the charts and the replays, and lists
    ten replays, the others behind one "more" line."""
    from dataclasses import replace

    from twentyone.grading.report import render_student
    from twentyone.grading.results import ReplayPage, StudentReview

    dan = next(s for s in grade_report.students if s.name == HOSTILE)
    pages = [ReplayPage(f"{HOSTILE}/replays/beat_stand-{k}.html", f"beat_stand|dan|{k}|1",
                        f"{HOSTILE} \u2014 vs stand, match {k}, seat 1", 1, "incidents") for k in range(50)]
    report = replace(grade_report, reviews={HOSTILE: StudentReview(50, 5000, 9000, 1.0, 0.02, [], [], "", pages)})
    page = render_student(dan, report)
    order = [page.index(h) for h in ("<h2>Rubric", "<h2>Incidents", "<h2>Win rates", "<h2>Bankroll",
                                     "<h3>Replays")]
    assert order == sorted(order)
    listed, hidden = page.split("<h3>Replays")[1].split("<details><summary>40 more replays</summary>")
    assert listed.count("<li>") == 10 and hidden.count("<li>") == 40


def test_a_line_decided_at_its_first_look_draws_no_chart_and_its_why_is_a_link(grade_report: ClassReport) -> None:
    """A win-rate line decided at its first look (one point) gets no chart; a line whose statistics are given
    apart (its ``why``) says its short sentence and links to them."""
    from dataclasses import replace

    from twentyone.grading.report import render_student

    alice = next(s for s in grade_report.students if s.name == "alice")
    early = replace(alice.criteria[1], status="fail", detail="fails: it lost its first 20 matches",
                    running=alice.criteria[1].running[:1])
    setattr(early, "why", "won 0 of 20; a submission that wins 90% loses 20 in a row at most 1 in 10^20 of the time")
    student = replace(alice, criteria=[alice.criteria[0], early, *alice.criteria[2:]])
    page = render_student(student, grade_report)
    assert page.count("<svg") == 1 + len(student.samples)  # beat_basic's chart and the bankroll, not beat_stand's
    assert "Beats stand: win rate over matches" not in page
    assert '<td>fails: it lost its first 20 matches <a class="why" href="#why-beat_stand">why</a></td>' in page
    why = page[page.index('<div class="why" id="why-beat_stand">'):]
    assert "a submission that wins 90% loses 20 in a row" in why.split("</div>")[0]
    from twentyone.grading.report import gradescope_results

    (test,) = [t for t in gradescope_results(student)["tests"] if t["tags"][0] == "beats stand"]
    assert test["output"].splitlines()[-1].startswith("why: won 0 of 20; a submission that wins 90%")


def test_a_chart_of_more_curves_than_colours_draws_no_legend() -> None:
    """A judge run's money chart of 20 tests draws every curve but no legend (20 entries would cover the chart);
    one of 5 names each."""
    import xml.etree.ElementTree as ET

    from twentyone.grading.charts import bankroll_chart

    def chart(n: int) -> Any:
        sample = BankrollSample("judge/li", "li: money after each hand", [f"test {k}" for k in range(1, n + 1)],
                                [[1000 + k * r for r in range(50)] for k in range(n)])
        return ET.fromstring(bankroll_chart(sample))

    many, few = chart(20), chart(5)
    assert len(many.findall(f".//{SVG}polyline")) == 20 and len(few.findall(f".//{SVG}polyline")) == 5
    texts = [t.text for t in many.iter(f"{SVG}text")]
    assert "test 1" not in texts and [t.text for t in few.iter(f"{SVG}text")].count("test 5") == 1


# --------------------------------------------------------------------------------------------- languages

def test_the_pages_in_chinese(grade_report: ClassReport, tmp_path: Path) -> None:
    """Written in Chinese (grade --lang zh, the locale), every page says so in <html lang> and its words are the
    catalogue's: headings, columns, statuses, the incidents, the charts; the student's own text is left as it is."""
    from dataclasses import replace

    from twentyone.i18n import using

    report = replace(grade_report, students=[replace(grade_report.students[0], name="张三"),
                                             *grade_report.students[1:]])
    with using("zh"):
        write_reports(report, tmp_path)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in index
    for words in ("成绩（4 名学生）", "点击列标题可排序。", "班级锦标赛", "配置", ">学生<", ">总分<", ">通过<", ">临界<",
                  "全班概览", "学生总分直方图"):
        assert words in index, words
    for english in ("Click a column header", "Scores (", "Configuration", ">Student<", ">pass<", "The class at a"):
        assert english not in index, english
    page = (tmp_path / "students" / f"{HOSTILE}.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page
    for words in ("评分标准", "事件（12）", "超时", "随场数变化的胜率", "班级页面", "胜率"):
        assert words in page, words
    for english in ("Rubric<", "Incidents (", "class page", "Win rates<", "What the fault said"):
        assert english not in page, english
    raw = (tmp_path / "scores.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and "张三" in raw.decode("utf-8-sig")


def test_scores_csv_carries_a_bom_for_excel(grade_out: tuple[Path, list[Path]]) -> None:
    """scores.csv is UTF-8 with a BOM: Excel on a Chinese Windows reads it as UTF-8 (without one it takes GBK and
    garbles every Chinese name); Python reads it with utf-8-sig."""
    raw = (grade_out[0] / "scores.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and raw[3:].decode("utf-8").startswith("name,kind,source,")


def test_the_chinese_class_page_in_headless_chromium(grade_report: ClassReport, tmp_path: Path) -> None:
    """Chromium renders the Chinese class page (zh-CN, a screenshot) and its script sorts table#scores by the
    Chinese headers' stable keys, with no script error."""
    from twentyone.i18n import using

    exe = chromium()
    with using("zh"):
        write_reports(grade_report, tmp_path)
    index = tmp_path / "index.html"
    shot = tmp_path / "index.png"
    r = run_chromium(exe, f"--screenshot={shot}", "--window-size=1280,900", index.as_uri())
    assert shot.is_file() and shot.stat().st_size > 20_000, r.stderr
    r = run_chromium(exe, "--enable-logging=stderr", "--v=0", "--dump-dom", index.as_uri() + "?sort=total&dir=desc")
    assert "Uncaught" not in r.stderr and "Refused to" not in r.stderr, r.stderr
    assert '<html lang="zh-CN">' in r.stdout and ">总分</button>" in r.stdout
    rows = Rows()
    rows.feed(r.stdout)
    assert rows.table is not None and rows.table.get("data-sorted-by") == "total:desc"
    assert [row[0] for row in rows.rows[1:]] == [s.name for s in sorted(grade_report.students, key=lambda s: -s.total)]


def test_a_runs_title_in_the_pages_language() -> None:
    """The title a grade or tournament stored in English when it began is shown in the pages' language; an
    instructor's own title is left as it is."""
    from twentyone.grading.report import shown_title
    from twentyone.i18n import using

    titles = ("Grading of 12 submissions", "Grading of 1 submission", "Tournament of 5 players (pairs, 20 matches per pair)",
              "Tournament of 3 players (table5, 2 deals)", "CS101 blackjack, spring")
    assert [shown_title(t) for t in titles] == list(titles)
    with using("zh"):
        assert [shown_title(t) for t in titles] == ["12 份提交的评分", "1 份提交的评分", "5 名玩家的锦标赛（pairs，每对 20 场）",
                                                     "3 名玩家的锦标赛（table5，2 轮）", "CS101 blackjack, spring"]
