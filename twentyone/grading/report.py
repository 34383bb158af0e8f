"""Reports of a graded class or a tournament: HTML pages with their charts, CSV, JSON and course-platform results.

``write_reports(report, out)`` writes, from a ``ClassReport`` alone (``grading.results``):

- ``index.html``: the class page.  A graded class gets the score table (one row per student: every rubric
  criterion's points and status with its win rate and interval, bonus, total, incidents, the error line),
  the reference lines apart (their win rates, no score), a histogram of totals and a scatter of each
  student's win rate against ``stand`` by its win rate against ``basic`` with both rubric lines; a tournament
  gets its standings
  (win rate with its Wilson interval, mean final money, fouls, faults).  The table is ``table#scores``,
  complete in the static HTML; a small inline script (no external file: reports are read offline) sorts it
  when a header is clicked, by each cell's ``data-sort-value``.  ``index.html?sort=total&dir=desc`` opens it
  sorted.  The page also shows the configuration, the date, and the match and round counts.
- ``students/<name>.html``: what went wrong first (the error, the notes, the compiler's messages, the rubric
  lines, each with a "why" link where the line gives its statistics, the incidents with their rounds), then
  a win-rate chart per win-rate criterion looked at twice or more (the running rate, its interval narrowing
  as matches are played, and the threshold), the bankroll curves of the sample matches, the decision review
  and the replays.  Every chart is inline SVG (``grading.charts``): drawn by the browser in the page's fonts,
  Chinese names included, with nothing to install and no file to load.
- ``scores.csv`` (one row per student, or per standing for a tournament; UTF-8 with a BOM, so that Excel on a
  Chinese Windows opens it with its Chinese names) and ``scores.json`` (``ClassReport.to_dict()``).
- ``gradescope/<name>/results.json`` per student, and ``gradescope/results.json`` too when the report holds
  exactly one student (Gradescope grades one submission per run).
- ``prairielearn/<name>/results.json`` per student.

Scores on the platforms, bonus included, and their text in words: ``grading.platforms``.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from twentyone.errors import TwentyOneError
from twentyone.grading.charts import (bankroll_chart, class_charts, short_title, status_word, student_charts,
                                      win_rate_chart)
from twentyone.grading.incidents import INCIDENT_CSS, render_incident
from twentyone.grading.platforms import gradescope_results, prairielearn_results  # the platforms' files
from twentyone.grading.decisions.pages import ev_lost_cell, replay_link, review_section, write_student_replays
from twentyone.grading.results import ClassReport, Criterion, StandingRow, StudentScore
from twentyone.i18n import _, current, html_lang, ngettext, pgettext
from twentyone.storedtext import retold

__all__ = ["ReportError", "write_reports", "render_index", "render_student", "csv_table", "gradescope_results",
           "prairielearn_results", "win_rate_chart", "bankroll_chart", "format_rate"]

#: Criterion order in tables and CSV columns: the rubric's, then any other in the order first seen.
RUBRIC_ORDER = ("legal", "beat_stand", "beat_basic", "tournament")
STATUSES = ("pass", "fail", "borderline", "not played", "bonus")
class ReportError(TwentyOneError, ValueError):
    """A report cannot be written as asked (e.g. a student name that is not a safe file name)."""


# --------------------------------------------------------------------------------------------- helpers

def format_rate(rate: float | None, low: float | None, high: float | None, confidence: float = 0.95) -> str:
    """'91.2% (95% CI 89.3-92.8%)', or '' when there is no rate."""
    if rate is None:
        return ""
    if low is None or high is None:
        return f"{rate:.1%}"
    return _("{rate:.1%} ({confidence:.0%} CI {low:.1f}\u2013{high:.1%})").format(rate=rate, confidence=confidence,
                                                                               low=low * 100, high=high)


def _num(x: float | None, digits: int = 6) -> str:
    """A number for CSV cells and data attributes: no float noise, '' for None."""
    if x is None:
        return ""
    r = round(float(x), digits)
    if not math.isfinite(r):
        return repr(r)
    return str(int(r)) if r == int(r) else repr(r)


def _pts(x: float) -> str:
    """Points as people write them: 20, 12.5."""
    return f"{x:g}" if x == round(x, 2) else f"{x:.2f}"


def _safe_name(name: str) -> str:
    """``name`` if it can be used as one path component, else ReportError."""
    if not name or name in (".", "..") or any(c in name for c in "/\\\0"):
        raise ReportError(f"student name is not a safe file name: {name!r}")
    return name


_GRADE_TITLE = re.compile(r"Grading of (\d+) submissions?")
_TOURNAMENT_TITLE = re.compile(r"Tournament of (\d+) players \((pairs|table5), (\d+) (deals|matches per pair)\)")


def shown_title(title: str) -> str:
    """A run's title (the store's, made in English when the run began: ``Grading of 12 submissions``,
    ``Tournament of 5 players (pairs, 20 matches per pair)``) in the active language; any other title as it is."""
    m = _GRADE_TITLE.fullmatch(title)
    if m:
        n = int(m[1])
        return ngettext("Grading of {n} submission", "Grading of {n} submissions", n).format(n=n)
    m = _TOURNAMENT_TITLE.fullmatch(title)
    if m:
        n, k = int(m[1]), int(m[3])
        unit = (ngettext("{k} deal", "{k} deals", k) if m[4] == "deals"
                else ngettext("{k} match per pair", "{k} matches per pair", k)).format(k=k)
        return _("Tournament of {n} players ({format}, {unit})").format(n=n, format=m[2], unit=unit)
    return title


def _criterion_names(students: Iterable[StudentScore]) -> list[str]:
    """Every criterion name in the report, rubric order first."""
    seen = [c.name for s in students for c in s.criteria]
    return [n for n in RUBRIC_ORDER if n in seen] + list(dict.fromkeys(n for n in seen if n not in RUBRIC_ORDER))


def _flatten(d: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Nested config dict as ('beat_stand.threshold', '0.9') pairs."""
    rows: list[tuple[str, str]] = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            rows += _flatten(v, key + ".")
        elif isinstance(v, (list, tuple)):
            rows.append((key, ", ".join(str(x) for x in v)))
        else:
            rows.append((key, str(v)))
    return rows


def breakable(text: str) -> str:
    """``text`` as HTML whose paths may break after a ``/`` (a long path in a narrow column), nowhere else."""
    return escape(text).replace("/", "/<wbr>")


def _pretty_excerpt(text: str) -> str:
    """A round-log excerpt pretty-printed when it is JSON, as is otherwise."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _badge(status: str) -> str:
    """A coloured status label."""
    cls = status.replace(" ", "-") if status in STATUSES else "other"
    return f'<span class="badge {cls}">{escape(status_word(status))}</span>'


# -------------------------------------------------------------------------------------------------- HTML

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;
  background:#f6f7f9}
main{max-width:1360px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:19px;margin:28px 0 10px;border-bottom:1px solid #d9dde3;padding-bottom:4px}
.meta{color:#5a6472;margin:0 0 14px}.meta b{color:#1d2430}
table{border-collapse:collapse;background:#fff;box-shadow:0 1px 2px #0001;margin:6px 0;display:block;
  width:fit-content;max-width:100%;overflow-x:auto}
th,td{padding:6px 8px;border-bottom:1px solid #e6e9ee;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num{white-space:nowrap}
th button{all:unset;cursor:pointer}th button:hover,th button:focus{text-decoration:underline}
th[aria-sort=ascending] button::after{content:" \\25B2"}
th[aria-sort=descending] button::after{content:" \\25BC"}
tbody tr:hover{background:#f3f7ff}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;color:#fff;
  background:#7b8794}
.pass{background:#23854a}.fail{background:#c0392b}.borderline{background:#c77c00}.bonus{background:#2d6cdf}
.error{color:#b02a1e}
pre{background:#fff;border:1px solid #d9dde3;padding:8px 10px;overflow:auto;max-height:320px;font-size:12.5px}
.config{display:grid;grid-template-columns:repeat(auto-fill,minmax(290px,1fr));gap:2px 18px;font-size:13px}
.config code{color:#5a6472}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.charts svg{background:#fff;border:1px solid #d9dde3;max-width:100%;height:auto}
td .spec,.nowrap{white-space:nowrap}td.why-cell{min-width:11em}
.total{font-size:20px;font-weight:700}.note{color:#5a6472;font-size:13px}a{color:#1f5fbf}
:lang(zh) th{word-break:keep-all}:lang(zh) .badge{white-space:nowrap}
""" + INCIDENT_CSS

SORT_JS = """
(function () {
  var table = document.getElementById("scores");
  if (!table || !table.tHead) { return; }
  var heads = table.tHead.rows[0].cells;
  function val(row, i) {
    var c = row.cells[i];
    if (!c) { return ""; }
    var v = c.getAttribute("data-sort-value");
    return v === null ? c.textContent.trim() : v;
  }
  function sortBy(i, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function (r) { var v = val(r, i); return v === "" || !isNaN(Number(v)); });
    var sign = dir === "desc" ? -1 : 1;
    rows.sort(function (a, b) {
      var x = val(a, i), y = val(b, i);
      if (x === "" || y === "") { return (x === "") - (y === ""); }
      return sign * (numeric ? Number(x) - Number(y) : x.localeCompare(y));
    });
    rows.forEach(function (r) { body.appendChild(r); });
    for (var j = 0; j < heads.length; j++) { heads[j].removeAttribute("aria-sort"); }
    heads[i].setAttribute("aria-sort", dir === "desc" ? "descending" : "ascending");
    table.setAttribute("data-sorted-by", heads[i].getAttribute("data-key") + ":" + dir);
  }
  Array.prototype.forEach.call(heads, function (th, i) {
    var b = th.querySelector("button");
    if (!b) { return; }
    b.addEventListener("click", function () {
      sortBy(i, th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc");
    });
  });
  var q = new URLSearchParams(window.location.search);
  var key = q.get("sort");
  Array.prototype.forEach.call(heads, function (th, i) {
    if (key !== null && th.getAttribute("data-key") === key) { sortBy(i, q.get("dir") === "desc" ? "desc" : "asc"); }
  });
  table.setAttribute("data-sort-ready", "1");
})();
"""


def _page(title: str, body: str, script: str = "") -> str:
    """A complete page; its Content-Security-Policy allows only this page's own script and local images."""
    allowed = "'none'"
    if script:
        allowed = "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
    csp = f"default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src {allowed}"
    tail = f"<script>{script}</script>\n" if script else ""
    return (f'<!DOCTYPE html>\n<html lang="{html_lang()}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n"
            f"{tail}</body>\n</html>\n")


def _th(key: str, label: str, num: bool = False) -> str:
    """A sortable header cell; ``key`` names the column in ``?sort=KEY``."""
    cls = ' class="num"' if num else ""
    return f'<th data-key="{escape(key)}"{cls} scope="col"><button type="button">{escape(label)}</button></th>'


def _td(text: str, sort: str, num: bool = False, raw: bool = False, wide: bool = False) -> str:
    """A cell: ``text`` escaped unless ``raw``, with its sort value; ``wide``: a column of sentences (an error,
    a reason), never squeezed below 11 characters."""
    cls = ' class="num"' if num else ' class="why-cell"' if wide else ""
    return f'<td data-sort-value="{escape(sort)}"{cls}>{text if raw else escape(text)}</td>'


def _student_href(name: str) -> str:
    """The class page's link to a student's page."""
    return "students/" + quote(_safe_name(name)) + ".html"


def _rate_note(c: Criterion) -> str:
    """A criterion's win rate and interval under its points, as the terminal table has them ('' when none)."""
    if c.rate is None or not c.matches or c.low is None or c.high is None:
        return ""
    return (f'<br><span class="note">{100 * c.rate:.1f}% ({100 * c.low:.1f}\u2013{100 * c.high:.1f}%)'
            f"</span>")


def _grade_table(report: ClassReport) -> str:
    """The score table of a graded class: one row per student (the reference lines have their own table)."""
    students = [s for s in report.students if not s.reference]
    names = _criterion_names(students)
    head = [_th("name", pgettext("column", "Student")), _th("kind", pgettext("column", "Kind"))]
    head += [_th(n, short_title(n), num=True) for n in names]
    head += [_th("bonus", pgettext("column", "Bonus"), True), _th("total", pgettext("column", "Total"), True),
             _th("incidents", pgettext("column", "Incidents"), True),
             _th("ev_lost", pgettext("column", "EV lost /100 hands"), True), _th("error", pgettext("column", "Error"))]
    rows = []
    for s in students:
        by_name = {c.name: c for c in s.criteria}
        cells = [_td(f'<a href="{escape(_student_href(s.name))}">{escape(s.name)}</a>', s.name.lower(), raw=True),
                 _td(s.kind or "\u2014", s.kind)]
        for n in names:
            c = by_name.get(n)
            if c is None:
                cells.append(_td("", ""))
            else:
                cells.append(_td(f"{_pts(c.points)}/{_pts(c.max_points)} {_badge(c.status)}{_rate_note(c)}",
                                 _num(c.points), num=True, raw=True))
        cells += [_td(_pts(s.bonus), _num(s.bonus), True),
                  _td(f"{_pts(s.total)}/{_pts(s.max_score)}", _num(s.total), True),
                  _td(str(s.incident_count), str(s.incident_count), True),
                  _td(*ev_lost_cell(report, s.name), num=True),  # issue 26 (grading.replay)
                  _td(f'<span class="error">{breakable(s.error)}</span>' if s.error else "", s.error or "", raw=True,
                      wide=True)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table id="scores">\n<thead><tr>{"".join(head)}</tr></thead>\n<tbody>\n'
            + "\n".join(rows) + "\n</tbody>\n</table>")


def _reference_table(report: ClassReport) -> str:
    """The reference lines, apart from the class: each built-in's win rates with their intervals, no score."""
    refs = [s for s in report.students if s.reference]
    names = [n for n in _criterion_names(refs) if n not in ("legal", "tournament")]
    head = "".join(f'<th class="num">{escape(short_title(n))}</th>' for n in names)
    rows = []
    for s in refs:
        by_name = {c.name: c for c in s.criteria}
        cells = []
        for n in names:
            c = by_name.get(n)
            text = escape(format_rate(c.rate, c.low, c.high, c.confidence)) if c is not None and c.matches else ""
            played = c.matches if c else 0
            cells.append(f'<td class="num">{text}<br><span class="note">'
                         f'{escape(ngettext("{n} match", "{n} matches", played).format(n=played))}</span></td>')
        rows.append(f'<tr><td><a href="{escape(_student_href(s.name))}">{escape(s.name)}</a></td>{"".join(cells)}</tr>')
    return (f'<table id="references"><thead><tr><th>{escape(pgettext("column", "Reference"))}</th>' + head
            + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _short_spec(spec: str) -> str:
    """A SPEC as the standings show it: a file's last folder and name (``li/mycodes.c:1``), a built-in as itself."""
    if "/" not in spec and "\\" not in spec:
        return spec
    parts = spec.replace("\\", "/").rstrip("/").split("/")
    return "/".join(parts[-2:])


def not_played(r: StandingRow) -> bool:
    """True for an entry that could not be used and sat in no match: it has no place and no win rate."""
    return r.error is not None and r.matches == 0


def _standings_table(standings: Sequence[StandingRow], table_id: str, linked: frozenset[str] = frozenset()) -> str:
    """Standings; the names in ``linked`` link to their student page."""
    head = [_th("rank", pgettext("column", "Rank"), True), _th("name", pgettext("column", "Name")),
            _th("spec", pgettext("column", "Spec")), _th("matches", pgettext("column", "Matches played"), True),
            _th("wins", pgettext("column", "W"), True), _th("ties", pgettext("column", "T"), True),
            _th("losses", pgettext("column", "L"), True), _th("rate", pgettext("column", "Win rate (95% CI)"), True),
            _th("mean_account", pgettext("column", "Mean final money"), True),
            _th("fouls", pgettext("column", "Fouls"), True), _th("faults", pgettext("column", "Faults"), True)]
    rows = []
    for r in standings:
        faults = str(r.faults) + (f" ({', '.join(r.fault_causes)})" if r.fault_causes else "")
        name = f'<a href="{escape(_student_href(r.name))}">{escape(r.name)}</a>' if r.name in linked else escape(r.name)
        name += f'<br><span class="error">{breakable(r.error)}</span>' if r.error else ""
        name += "".join(f'<br><span class="note">{escape(retold(n))}</span>' for n in r.notes)
        spec = f'<span class="spec" title="{escape(r.spec)}">{escape(_short_spec(r.spec))}</span>'
        if not_played(r):  # no place and no rate: nothing was played (the terminal says so too)
            dash = _td("\u2014", "", True)
            cells = [dash, _td(name, r.name.lower(), raw=True), _td(spec, r.spec, raw=True), _td("0", "0", True),
                     dash, dash, dash, _td(status_word("not played"), "", True), dash, dash, dash]
        else:
            cells = [_td(str(r.rank), str(r.rank), True), _td(name, r.name.lower(), raw=True),
                     _td(spec, r.spec, raw=True), _td(str(r.matches), str(r.matches), True),
                     _td(str(r.wins), str(r.wins), True), _td(str(r.ties), str(r.ties), True),
                     _td(str(r.losses), str(r.losses), True), _td(format_rate(r.rate, r.low, r.high), _num(r.rate), True),
                     _td(f"{r.mean_account:,.1f}", _num(r.mean_account), True),
                     _td(str(r.fouls), str(r.fouls), True), _td(faults, str(r.faults), True)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table id="{escape(table_id)}">\n<thead><tr>{"".join(head)}</tr></thead>\n<tbody>\n'
            + "\n".join(rows) + "\n</tbody>\n</table>")


def _class_charts(report: ClassReport) -> str:
    """The class page's pictures: the histogram of totals and the scatter of win rates (inline SVG)."""
    cfg = report.config
    top = max((s.max_score + max((c.max_points for c in s.criteria if c.name == "tournament"), default=0.0)
               for s in report.students), default=100.0)
    svgs = class_charts(report.students, top, float(cfg.get("beat_stand", {}).get("threshold", 0.9)),
                        float(cfg.get("beat_basic", {}).get("threshold", 0.6)))
    return '<div class="charts">' + "".join(svgs) + "</div>"


def render_index(report: ClassReport) -> str:
    """The class page as HTML: the sortable ``table#scores`` (each win rate with its interval), the reference
    lines apart, the class's pictures, the configuration and the run's counts, each saying what it counts."""
    what = _("Graded class") if report.kind == "grade" else _("Tournament")
    parts = [f"<h1>{escape(shown_title(report.title))}</h1>",
             '<p class="meta">' + _("{what} \u00b7 created {created} \u00b7 {matches} matches played in all \u00b7 "
                                    "{rounds} rounds").format(what=escape(what),
                                                              created=f"<b>{escape(report.created)}</b>",
                                                              matches=f"<b>{report.matches:,}</b>",
                                                              rounds=f"<b>{report.rounds:,}</b>") + "</p>"]
    if report.damaged:  # stored rows left out (RULES.md, grade_store_damage): for the instructor, never a student
        parts.append(f'<h2>{escape(_("Damaged results"))}</h2>\n<ul class="error">'
                     + "".join(f"<li>{escape(line)}</li>" for line in report.damaged) + "</ul>")
    if report.kind == "grade":
        ties = report.config.get("ties")
        n = sum(not s.reference for s in report.students)
        parts.append(f"<h2>{escape(ngettext('Scores ({n} student)', 'Scores ({n} students)', n).format(n=n))}</h2>")
        statuses = {k: f"<b>{escape(status_word(k))}</b>" for k in ("pass", "fail", "borderline", "not played")}
        parts.append('<p class="note">' + escape(_("Click a column header to sort.")) + " " + _(
            "Statuses: {pass_} / {fail} when the interval lies wholly above / below the threshold; {borderline} when "
            "it still holds the threshold after the maximum number of matches; {not_played} when the submission "
            "could not be used. Under the points: the win rate and its 95% interval.").format(
                pass_=statuses["pass"], fail=statuses["fail"], borderline=statuses["borderline"],
                not_played=statuses["not played"])
            + (" " + _("A tie counts as {ties}.").format(ties=f"<b>{escape(_ties_word(str(ties)))}</b>")
               if ties is not None else "") + "</p>")
        parts.append(_grade_table(report))
        if any(s.reference for s in report.students):
            parts.append(f"<h2>{escape(_('Reference lines'))}</h2>\n<p class=\"note\">" + escape(_(
                "Built-in players graded beside the class as reference lines, without points: the win rates they "
                "reach here (champion is the best known player).")) + "</p>")
            parts.append(_reference_table(report))
        if report.students:
            parts.append(f"<h2>{escape(_('The class at a glance'))}</h2>")
            parts.append(_class_charts(report))
        if report.similarity:
            parts.append(f"<h2>{escape(_('Similarity'))}</h2>\n<p>" + _("{link}: {summary}.").format(
                link=f'<a href="similarity.html">{escape(_("Similar submissions, by code and by play"))}</a>',
                summary=escape(report.similarity)) + "</p>")
        if report.standings:
            parts.append(f"<h2>{escape(_('Class tournament'))}</h2>")
            parts.append(_standings_note())
            linked = frozenset(s.name for s in report.students)
            parts.append(_standings_table(report.standings, "standings", linked))
    elif report.kind == "tournament":
        n = len(report.standings)
        parts.append(f"<h2>{escape(ngettext('Standings ({n} entry)', 'Standings ({n} entries)', n).format(n=n))}</h2>")
        parts.append('<p class="note">' + escape(_("Click a column header to sort.")) + " " + escape(_(
            "Win rate = (wins + ties/2) / pairwise results, with its Wilson 95% interval.")) + "</p>")
        parts.append(_standings_note())
        parts.append(_standings_table(report.standings, "scores"))
    else:
        raise ReportError(f"unknown report kind: {report.kind!r} (grade or tournament)")
    cfg = "".join(f"<div><code>{escape(k)}</code> = {escape(v)}</div>" for k, v in _flatten(report.config))
    none = f"<div>{escape(_('(none)'))}</div>"
    parts.append(f'<h2>{escape(_("Configuration"))}</h2>\n<div class="config">{cfg or none}</div>')
    return _page(shown_title(report.title), "\n".join(parts), SORT_JS)


def _ties_word(ties: str) -> str:
    """The configuration's ``ties`` (``half``, ``loss``) in the active language."""
    return {"half": pgettext("ties", "half"), "loss": pgettext("ties", "loss")}.get(ties, ties)


def _standings_note() -> str:
    """What the standings' numbers count."""
    matches, w, t, l, spec = (f"<b>{escape(v)}</b>" for v in (
        pgettext("column", "Matches played"), pgettext("column", "W"), pgettext("column", "T"),
        pgettext("column", "L"), pgettext("column", "Spec")))
    return '<p class="note">' + _(
        "{matches}: the matches each entry sat in (the page\u2019s header counts every match of the run). {w}, {t}, "
        "{l}: its results against each other player at its table, one per opponent and match, so k\u22121 per match "
        "at a table of k. {spec}: the file\u2019s folder and name (hover for the whole path).").format(
            matches=matches, w=w, t=t, l=l, spec=spec) + "</p>"


def _rate_cell(c: Criterion) -> str:
    """A rubric line's win-rate cell (HTML): the rate and its interval, then what it counts (the tournament's
    counts are pairwise: a match at a table of k seats gives k-1 results)."""
    rate = escape(format_rate(c.rate, c.low, c.high, c.confidence))
    if not rate or not c.matches:
        return rate
    rate = f'<span class="nowrap">{rate}</span>'  # an interval is never broken at its dash
    if c.name == "tournament":  # pairwise results: one per other player at the table and match
        return rate + '<br><span class="note">' + escape(_(
            "{wins} wins, {ties} ties, {losses} losses against the others at its tables, in the {n} matches it sat "
            "in").format(wins=_pts(c.wins), ties=c.ties, losses=c.losses, n=c.matches)) + "</span>"
    threshold = _("; threshold {threshold:.0%}").format(threshold=c.threshold) if c.threshold is not None else ""
    counts = _("{wins} wins, {ties} ties, {losses} losses in {n} matches").format(wins=_pts(c.wins), ties=c.ties,
                                                                                   losses=c.losses, n=c.matches)
    return rate + '<br><span class="note">' + escape(counts + threshold) + "</span>"


def _why(c: Criterion) -> str:
    """Why a rubric line's status is what it is, with the statistics ('' when the line gives none)."""
    return str(getattr(c, "why", "") or "")


def _incidents_section(s: StudentScore, report: ClassReport) -> list[str]:
    parts = [f"<h2>{escape(_('Incidents ({n})').format(n=s.incident_count))}</h2>"]
    if not s.incidents:
        return parts + [f'<p class="note">{escape(_("None."))}</p>']
    if s.incident_count > len(s.incidents):
        parts.append('<p class="note">' + escape(_("The first {shown} of {n} are shown.").format(
            shown=len(s.incidents), n=s.incident_count)) + "</p>")
    for i in s.incidents:
        link = replay_link(report, s.name, i.match_key, i.round)  # issue 26: its round in the replay
        notes = f'<p class="replay">{link}</p>' if link else ""
        notes += ('<p class="course">' + escape(_("Course program: {what}.").format(what=_(i.course))) + "</p>"
                  if i.course else "")
        if not i.counted:
            notes += ('<p class="note">' + escape(_("Not counted: the configuration does not count this kind of "
                                                    "incident against the legal-play points.")) + "</p>")
        parts.append(render_incident(i, _pretty_excerpt(i.excerpt), notes))
    return parts


def render_student(student: StudentScore, report: ClassReport) -> str:
    """A student's page as HTML: what went wrong first (the error, the notes, the compiler's messages, the
    rubric, the incidents), then the charts, the decision review and the replays."""
    s = student
    parts = [f'<p><a href="../index.html">\u2190 {escape(_("class page"))}</a></p>', f"<h1>{escape(s.name)}</h1>",
             f'<p class="meta">{escape(shown_title(report.title))} \u00b7 {escape(s.kind or _("not usable"))} \u00b7 '
             f"<code>{escape(s.source)}</code></p>",
             f'<p><span class="total">{_pts(s.total)} / {_pts(s.max_score)}</span> '
             + escape(_("(rubric {rubric} + bonus {bonus})").format(rubric=_pts(s.score), bonus=_pts(s.bonus)))
             + (" \u00b7 " + escape(_("tournament rank {rank} of {size}").format(rank=s.tournament_rank,
                                                                                 size=s.tournament_size))
                if s.tournament_rank is not None else "") + "</p>"]
    if s.graded:
        parts.append("<p>" + _("Graded file: {file}").format(file=f"<code>{escape(s.graded)}</code>") + "</p>")
    if s.error:
        parts.append(f'<p class="error"><b>{escape(_("Error:"))}</b> {escape(s.error)}</p>')
    if s.notes:
        parts.append(f"<h2>{escape(_('Notes'))}</h2>\n<ul class=\"notes\">"
                     + "".join(f"<li>{escape(retold(n))}</li>" for n in s.notes) + "</ul>")
    if s.messages:
        parts.append(f"<h2>{escape(_('Compiler messages'))}</h2>\n<pre>{escape(s.messages)}</pre>")
    rows = []
    whys = []
    for c in s.criteria:
        detail = escape(c.detail)
        title = c.title
        if _why(c):
            detail += f' <a class="why" href="#why-{escape(quote(c.name))}">{escape(_("why"))}</a>'
            whys.append(f'<div class="why" id="why-{escape(quote(c.name))}"><h3>'
                        + escape(_("{criterion}: why {status}").format(criterion=title, status=status_word(c.status)))
                        + f"</h3><p>{escape(_why(c))}</p></div>")
        rows.append(f"<tr><td>{escape(title)}</td><td class=\"num\">{_pts(c.points)} / {_pts(c.max_points)}</td>"
                    f"<td>{_badge(c.status)}</td><td>{detail}</td><td>{_rate_cell(c)}</td></tr>")
    heads = "".join(f"<th{cls}>{escape(h)}</th>" for cls, h in (
        ("", pgettext("column", "Criterion")), (' class="num"', pgettext("column", "Points")),
        ("", pgettext("column", "Status")), ("", pgettext("column", "Detail")), ("", pgettext("column", "Win rate"))))
    parts.append(f"<h2>{escape(_('Rubric'))}</h2>\n<table id=\"rubric\"><thead><tr>{heads}</tr></thead>\n<tbody>\n"
                 + "\n".join(rows) + "\n</tbody></table>")
    parts += _incidents_section(s, report)  # what went wrong, before the charts and the replays
    win, bank = student_charts(s)
    for heading, svgs in ((_("Win rates"), win), (_("Bankroll of sample matches"), bank)):
        if svgs:
            parts.append(f'<h2>{escape(heading)}</h2>\n<div class="charts">{"".join(svgs)}</div>')
    parts.append(review_section(report, s))  # issue 26: the decision review and the replays (grading.replay)
    if whys:
        parts.append(f"<h2>{escape(_('Why'))}</h2>\n" + "\n".join(whys))
    return _page(f"{s.name} \u2014 {shown_title(report.title)}", "\n".join(parts))


# ------------------------------------------------------------------------------------- CSV and platforms

GRADE_COLUMNS = ["name", "kind", "source", "score", "bonus", "total", "max_score", "incidents", "tournament_rank",
                 "error"]
CRITERION_COLUMNS = ["points", "max_points", "status", "rate", "low", "high", "matches"]
STANDING_COLUMNS = ["rank", "name", "spec", "matches", "wins", "ties", "losses", "rate", "low", "high",
                    "mean_account", "fouls", "faults", "fault_causes", "error"]


def csv_table(report: ClassReport) -> tuple[list[str], list[list[str]]]:
    """The header and rows of ``scores.csv``: one row per student (grade) or per standing (tournament)."""
    if report.kind == "tournament":  # an entry not played has no rank, rate or money
        return STANDING_COLUMNS, [
            ["", r.name, r.spec, "0", "", "", "", "", "", "", "", "", "", "", r.error or ""]
            if not_played(r) else
            [str(r.rank), r.name, r.spec, str(r.matches), str(r.wins), str(r.ties), str(r.losses), _num(r.rate), _num(r.low),
             _num(r.high), _num(r.mean_account), str(r.fouls), str(r.faults), ";".join(r.fault_causes), r.error or ""]
            for r in report.standings]
    names = _criterion_names(report.students)
    header = GRADE_COLUMNS + [f"{n}_{col}" for n in names for col in CRITERION_COLUMNS]
    rows = []
    for s in report.students:
        ref = s.reference  # a reference line has win rates and no score
        row = [s.name, s.kind, s.source, "" if ref else _num(s.score), "" if ref else _num(s.bonus),
               "" if ref else _num(s.total), "" if ref else _num(s.max_score), str(s.incident_count),
               "" if s.tournament_rank is None else str(s.tournament_rank), s.error or ""]
        by_name = {c.name: c for c in s.criteria}
        for n in names:
            c = by_name.get(n)
            row += ([""] * len(CRITERION_COLUMNS) if c is None else
                    ["" if ref else _num(c.points), "" if ref else _num(c.max_points), "reference" if ref else c.status,
                     _num(c.rate), _num(c.low), _num(c.high), str(c.matches)])
        rows.append(row)
    return header, rows


# ------------------------------------------------------------------------------------------------ entry

def _write(path: Path, text: str, written: list[Path]) -> None:
    """Write a UTF-8 text file and record it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    written.append(path)


def _dump(data: dict[str, Any]) -> str:
    """Strict JSON (no NaN), indented."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


#: The chart files that reports before inline charts wrote: removed when a run's pages are made again.
_OLD_CHARTS = ("class/totals.png", "class/win-rates.png", "students/*/winrate-*.png", "students/*/bankroll-*.png")


def _all_replays(report: ClassReport, out: Path) -> list[list[Path]]:
    """Every student's replay pages, in parallel processes for a class (one per CPU the process may use), in
    the order of ``report.students`` (a review is always a student's: ``class_reviews``)."""
    import os

    students = report.students
    pages = [report.reviews[s.name].replays if s.name in report.reviews else [] for s in students]
    todo = [(s.name, p) for s, p in zip(students, pages)]
    workers = min(len(os.sched_getaffinity(0)), sum(1 for _n, p in todo if p))
    if workers <= 1 or sum(len(p) for p in pages) < 8:
        return [write_student_replays(name, p, out) for name, p in todo]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(write_student_replays, [n for n, _p in todo], [p for _n, p in todo], [out] * len(todo),
                             [current()] * len(todo)))


def write_reports(report: ClassReport, out: Path) -> list[Path]:
    """Write every report of ``report`` into ``out`` (created if needed); return the files written."""
    if report.kind not in ("grade", "tournament"):
        raise ReportError(f"unknown report kind: {report.kind!r} (grade or tournament)")
    seen: set[str] = set()
    for s in report.students:
        if _safe_name(s.name) in seen:
            raise ReportError(f"two students named {s.name!r}")
        seen.add(s.name)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for pattern in _OLD_CHARTS:
        for old in out.glob(pattern):
            old.unlink(missing_ok=True)
    if (out / "class").is_dir() and not any((out / "class").iterdir()):
        (out / "class").rmdir()
    _write(out / "index.html", render_index(report), written)
    for s, replays in zip(report.students, _all_replays(report, out)):
        written += replays  # issue 26: students/<name>/replays/ (grading.replay)
        _write(out / "students" / f"{s.name}.html", render_student(s, report), written)
    header, rows = csv_table(report)
    # UTF-8 with a BOM: Excel on a Chinese Windows reads a CSV without one as GBK and garbles every Chinese name
    # (as bonus.csv); Python reads it with encoding="utf-8-sig", LibreOffice and pandas either way.
    with open(out / "scores.csv", "w", encoding="utf-8-sig", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    written.append(out / "scores.csv")
    _write(out / "scores.json", _dump(report.to_dict()), written)
    graded = [s for s in report.students if not s.reference]  # reference lines go to no course platform
    for s in graded:
        _write(out / "gradescope" / s.name / "results.json", _dump(gradescope_results(s)), written)
        _write(out / "prairielearn" / s.name / "results.json", _dump(prairielearn_results(s)), written)
    if len(graded) == 1:
        _write(out / "gradescope" / "results.json", _dump(gradescope_results(graded[0])), written)
    return written
