"""The similarity pages: ``similarity.html`` (one ranked table of pairs) and a side-by-side page per pair.

``write_similarity(report, out)`` writes, from a ``similarity.SimilarityReport`` alone:

- ``similarity.html``: what the scores mean, the ranked table of pairs (``table#scores``, sortable like the
  class page: code score, behaviour score, the reference each submission is closest to, the decisions
  compared, the flags), and every submission with its closest reference;
- ``similarity/pair-NNN-A--B.html`` for each listed pair: the two files side by side, the matching
  stretches highlighted in the same colour and numbered (each links to its partner), and a sample of the
  situations where the two made the same choice and no reference makes it;
- ``similarity.json``: the table as data.

Every page says that a score is evidence for a person to weigh, not a verdict.  Student text is escaped
everywhere; the pages use only their own inline script (the class page's Content-Security-Policy).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from urllib.parse import quote

from twentyone.grading.similarity.behaviour import Play
from twentyone.grading.similarity.fingerprints import K, Region, Source, matched_regions
from twentyone.grading.report import SORT_JS, _page, _td, _th
from twentyone.grading.similarity.pairs import (CODE_MIN_SHARED, MAX_UNLISTED, VERDICT, PairRow, SimilarityReport,
                                         reference_title)
from twentyone.grading.similarity.traces import hand_at
from twentyone.rules import COURSE
from twentyone.safetext import visible, visible_data

__all__ = ["write_similarity", "render_similarity", "render_pair", "PAGE", "FOLDER"]

PAGE = "similarity.html"
FOLDER = "similarity"
#: Highlight colours of matched stretches, in turn.
COLOURS = 6

EXTRA_CSS = """
.verdict{background:#fff6d6;border:1px solid #e2c55a;padding:8px 12px;border-radius:4px;max-width:900px}
.sbs{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:14px;align-items:start}
.side h3{font-size:15px;margin:0 0 4px}
.file{position:relative;display:flex;background:#fff;border:1px solid #d9dde3;max-height:78vh;overflow:auto;
  font:12.5px/1.4 ui-monospace,"Noto Sans Mono CJK SC","DejaVu Sans Mono",monospace}
.file pre{margin:0;border:0;padding:6px 8px;max-height:none;overflow:visible;background:none;font:inherit}
.file pre.gutter{color:#8a94a3;text-align:right;user-select:none;border-right:1px solid #e6e9ee;background:#f8f9fb}
a.m{color:inherit;text-decoration:none;border-radius:2px}
a.m:target{outline:2px solid #c0392b}
.m0{background:#ffe08a}.m1{background:#b9e6c9}.m2{background:#bfd7ff}.m3{background:#f7c6d9}.m4{background:#d8c8f3}
.m5{background:#ffd0a8}
.flag{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;color:#fff;
  background:#c0392b;margin-right:4px}
"""

LAYOUT_JS = """
(function () {
  var sbs = document.querySelector(".sbs");
  if (!sbs) { return; }
  var files = sbs.querySelectorAll(".file");
  if (files.length === 2) {
    var r0 = files[0].getBoundingClientRect(), r1 = files[1].getBoundingClientRect();
    var side = r1.left >= r0.right - 1 && Math.abs(r0.top - r1.top) < 2 && r0.width > 100 && r1.width > 100;
    sbs.setAttribute("data-layout", side ? "side-by-side" : "stacked");
  }
  sbs.setAttribute("data-ready", "1");
})();
"""


def _esc(text: str) -> str:
    """A submission's text in HTML: control characters made visible (``safetext.visible``), then escaped."""
    return escape(visible(text))


def _code(text: str) -> str:
    """A stretch of a submission's file in HTML: whole, its lines kept, control characters made visible."""
    return escape(visible(text, len(text) + 1, lines=True))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _score_cell(text: str, sort: float) -> str:
    return _td(text, f"{sort:.6f}", num=True)


def _flags(row: PairRow) -> str:
    out = []
    if row.code_flag:
        out.append('<span class="flag">code</span>')
    if row.play_flag:
        out.append('<span class="flag">play</span>')
    return "".join(out)


def render_similarity(report: SimilarityReport, back: str | None = None) -> str:
    """``similarity.html``: the ranked table of pairs and every submission's closest reference."""
    s = report.settings
    members = {m.name: m for m in report.members}
    parts = []
    if back:
        parts.append(f'<p><a href="{escape(back)}">\u2190 class page</a></p>')
    parts += [f"<h1>{escape(report.title)}</h1>",
              f'<p class="verdict"><b>{escape(VERDICT)}</b> A high score says where to look; a shared idea, a '
              "shared textbook or a shared strategy explains many of them.</p>",
              "<h2>How the scores are made</h2>",
              '<ul class="note">'
              "<li><b>Code score</b>: the share of fingerprints two files have in common (2 \u00d7 shared / "
              "(fingerprints of the one + of the other), from 0 to 1). The files are parsed, comments are dropped, "
              "names and literals are replaced by their kind, and each function is fingerprinted on its own, so "
              "renaming, reformatting and reordering change nothing. The course's template, the function headers "
              f"every student writes and code found in many files never count. Flagged from {s.code_flag:g} with at "
              f"least {CODE_MIN_SHARED} fingerprints in common.</li>"
              "<li><b>Behaviour score</b>: in the matches against the always-stand player, which every submission "
              "plays on the same seeds and seats, the decisions (bets and actions) two submissions made in the same "
              "situation (the same cards seen, the same round, the same money) are compared. Score = their "
              "agreement minus the best agreement either has with any reference strategy over the same "
              "decisions: two players of the basic chart agree, but no more than the chart explains. Flagged when "
              f"the score is at least {100 * s.behaviour_margin:g} points and the sign test is significant at "
              f"{s.behaviour_alpha:g} divided by the {report.compared} pairs compared.</li>"
              "<li><b>Closest reference</b>: of always stand, the built-ins basic, hilo and champion, hit below "
              "12 to 17, mimic the dealer and the course's basic chart, the one the submission agrees with most "
              "over all its traced decisions.</li>"
              "<li>Columns: <b>Agreement</b>, the share of the compared decisions on which the two agree; "
              "<b>Best reference</b>, the best agreement either has with one reference over the same decisions "
              "(and which reference); <b>Decisions</b>, how many decisions were compared; <b>Closest</b>, each "
              "submission's closest reference over all its traced decisions.</li></ul>"]
    listed = report.listed()
    n = len(report.members)
    parts.append(f"<h2>Pairs ({len(report.flagged())} flagged, {len(listed)} listed of {n * (n - 1) // 2})</h2>")
    parts.append('<p class="note">Sorted by the strongest evidence: pairs flagged on both code and play, then on '
                 "one, then the rest, each by the larger of its two scores against its flag line. Click a column "
                 "header to sort; click a pair for the two files side by side.</p>")
    head = [_th("rank", "Rank", True), _th("pair", "Pair"), _th("code", "Code score", True),
            _th("behaviour", "Behaviour score", True), _th("agreement", "Agreement", True),
            _th("reference", "Best reference", True), _th("decisions", "Decisions", True),
            _th("closest_a", "Closest: first"), _th("closest_b", "Closest: second"), _th("flags", "Flagged")]
    rows = []
    for k, row in enumerate(listed, 1):
        names = f'<span class="nowrap">{escape(row.a)}&nbsp;\u2194</span> <span class="nowrap">{escape(row.b)}</span>'
        link = f'<a href="{escape(FOLDER + "/" + quote(row.page))}">{names}</a>' if row.page else names
        p = row.play
        cells = [_td(str(k), str(k), True), _td(link, f"{row.a}\u2194{row.b}".lower(), raw=True),
                 _score_cell(f"{row.code_score:.2f}" if row.code else "\u2014", row.code_strength),
                 _score_cell(f"{100 * p.score:+.1f}" if p else "\u2014", row.play_strength),
                 _score_cell(_pct(p.agreement) if p else "\u2014", p.agreement if p else -1),
                 _score_cell(f"{_pct(p.reference_agreement)} ({p.reference})" if p else "\u2014",
                             p.reference_agreement if p else -1),
                 _td(str(p.compared) if p else "0", str(p.compared if p else 0), True)]
        for name in (row.a, row.b):
            m = members.get(name)
            cells.append(_td(f"{m.closest} {_pct(m.closest_share)}" if m and m.closest else "\u2014",
                             f"{m.closest_share:.6f}" if m else ""))
        cells.append(_td(_flags(row), str(row.flags), raw=True))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    if rows:
        parts.append(f'<table id="scores">\n<thead><tr>{"".join(head)}</tr></thead>\n<tbody>\n' + "\n".join(rows)
                     + "\n</tbody>\n</table>")
    else:
        parts.append('<p class="note">No two submissions have anything in common beyond the template and the '
                     "references.</p>")
    unlisted = report.unlisted()
    if unlisted:
        parts.append(f"<h2>Pairs not listed ({len(unlisted)})</h2>")
        parts.append('<ul id="not-listed">' + "".join(f"<li>{n} pair{'s' if n != 1 else ''}: {escape(kind)}</li>"
                                                     for kind, n in report.unlisted_counts()) + "</ul>")
        shown = unlisted[:MAX_UNLISTED]
        more = (f" (the first {len(shown)} of {len(unlisted)})" if len(shown) < len(unlisted) else "")
        parts.append(f"<details><summary>Why each pair is not listed{more}</summary><ul>"
                     + "".join(f"<li>{escape(a)} \u2194 {escape(b)}: {escape(why)}</li>" for a, b, _, why in shown)
                     + "</ul></details>")
    parts.append("<h2>Submissions</h2>")
    mrows = []
    for m in report.members:
        notes = "".join(f'<br><span class="note">{_esc(t)}</span>' for t in m.notes)
        mrows.append(f"<tr><td>{escape(m.name)}{notes}</td><td><code>{_esc(m.shown).replace('/', '/<wbr>')}</code></td>"
                     f"<td>{escape(m.language)}</td><td class=\"num\">{m.prints}</td>"
                     f"<td class=\"num\">{m.decisions}</td>"
                     f"<td>{escape(reference_title(m.closest)) if m.closest else ''}"
                     f"</td><td class=\"num\">{_pct(m.closest_share) if m.closest else ''}</td></tr>")
    parts.append('<table id="members"><thead><tr><th>Submission</th><th>File</th><th>Language</th>'
                 '<th class="num">Own fingerprints</th><th class="num">Decisions traced</th>'
                 '<th>Closest reference</th><th class="num">Agreement with it</th></tr></thead>\n<tbody>\n'
                 + "\n".join(mrows) + "\n</tbody></table>")
    if report.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{_esc(t)}</li>" for t in report.notes) + "</ul>")
    return _page(report.title, f"<style>{EXTRA_CSS}</style>\n" + "\n".join(parts), SORT_JS)


def _marked(text: str, spans: list[tuple[int, int, int]], side: str, other: str) -> str:
    """``text`` escaped, each span (start, end, k) a link to the partner stretch ``other``k."""
    out = []
    at = 0
    for start, end, k in sorted(spans):
        if start < at:
            continue
        out.append(_code(text[at:start]))
        out.append(f'<a class="m m{k % COLOURS}" id="{side}{k}" href="#{other}{k}" title="match {k}">'
                   f"{_code(text[start:end])}</a>")
        at = end
    out.append(_code(text[at:]))
    return "".join(out)


def _file_box(title: str, shown: str, text: str, spans: list[tuple[int, int, int]], side: str, other: str) -> str:
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    gutter = "\n".join(str(i) for i in range(1, lines + 1))
    return (f'<div class="side"><h3>{escape(title)}</h3><p class="note"><code>{_esc(shown)}</code></p>'
            f'<div class="file" id="file-{side}"><pre class="gutter" aria-hidden="true">{gutter}</pre>'
            f'<pre class="code">{_marked(text, spans, side, other)}</pre></div></div>')


def _decision_rows(pa: Play, pb: Play, sample: list[tuple[int, int]]) -> str:
    rows = []
    for ia, ib in sample:
        d = pa.where(ia)
        r = d.round
        choice = pa.choices[ia]
        what = "bet" if d.j == 0 else ("first action" if d.j == 1 else "next action")
        hand = hand_at(r, d.j) if d.j else "\u2014"
        seed, seat = d.slot
        e = pb.where(ib)
        others = r.other(d.j) or e.round.other(e.j)
        if d.j == 0 and pa.stake is not None:  # the flat bettors bet this player's usual stake, not the minimum
            others = "/".join(dict.fromkeys([str(pa.stake)] + [x for x in others.split("/")
                                                                 if x and x != str(COURSE.min_bet)]))
        rows.append(f"<tr><td class=\"num\">{seed}</td><td class=\"num\">{seat}</td><td class=\"num\">{r.round}</td>"
                    f"<td class=\"num\">{r.money[seat - 1] if seat - 1 < len(r.money) else ''}</td>"
                    f"<td>{escape(what)}</td><td><code>{escape(hand)}</code></td><td><code>{escape(r.up)}</code></td>"
                    f"<td><b><code>{_esc(choice)}</code></b></td><td><code>{escape(others)}</code></td></tr>")
    return "\n".join(rows)


def render_pair(report: SimilarityReport, row: PairRow) -> str:
    """A pair's page: the scores, the two files side by side with the matches highlighted, the shared unusual
    choices."""
    members = {m.name: m for m in report.members}
    a, b = report.sources.get(row.a), report.sources.get(row.b)
    parts = [f'<p><a href="../{PAGE}">\u2190 all pairs</a></p>',
             f"<h1>{escape(row.a)} \u2194 {escape(row.b)}</h1>",
             f'<p class="verdict"><b>{escape(VERDICT)}</b></p>']
    if row.flags:
        parts.append(f"<p>Flagged: {_flags(row)}</p>")
    facts = []
    c = row.code
    if c is not None:
        facts.append(f"<tr><th>Code score</th><td>{c.score:.2f}: {c.shared} fingerprints in common, of {c.a} "
                     f"({escape(row.a)}) and {c.b} ({escape(row.b)}) of their own</td></tr>")
    else:
        facts.append("<tr><th>Code score</th><td>0: no fingerprint in common (or not comparable)</td></tr>")
    p = row.play
    if p is not None:
        who = [row.a, row.b][p.side]
        facts.append(f"<tr><th>Decisions compared</th><td>{p.compared} in the same situations</td></tr>")
        facts.append(f"<tr><th>Agreement</th><td>{_pct(p.agreement)} of them identical</td></tr>")
        facts.append(f"<tr><th>Best reference</th><td>{escape(reference_title(p.reference))} agrees with "
                     f"{escape(who)} on {_pct(p.reference_agreement)} of the same decisions</td></tr>")
        facts.append(f"<tr><th>Behaviour score</th><td>{100 * p.score:+.1f} points (agreement minus best reference); "
                     f"sign test: {p.wins} decisions go the pair's way, {p.losses} the reference's, p = {p.p:.2g}"
                     "</td></tr>")
        facts.append(f"<tr><th>Unusual shared choices</th><td>{p.unusual}: the same choice, made by no reference "
                     f"({p.unusual_bets} bets, {p.unusual - p.unusual_bets} actions)</td></tr>")
    else:
        facts.append("<tr><th>Decisions compared</th><td>none: the two never met in the same situation</td></tr>")
    for name in (row.a, row.b):
        m = members.get(name)
        if m and m.closest:
            facts.append(f"<tr><th>Closest reference of {escape(name)}</th><td>{escape(reference_title(m.closest))}, "
                         f"{_pct(m.closest_share)} of its {m.decisions} traced decisions</td></tr>")
    parts.append('<table id="facts"><tbody>' + "".join(facts) + "</tbody></table>")

    parts.append("<h2>The two files</h2>")
    if a is None or b is None or a.error or b.error:
        parts.append('<p class="note">One of the files is not available as code.</p>')
    else:
        regions = matched_regions(a, b, report.ignore)
        parts.append(_regions_note(regions, a, b))
        spans_a = [(r.a_start, r.a_end, k) for k, r in enumerate(regions, 1)]
        spans_b = [(r.b_start, r.b_end, k) for k, r in enumerate(regions, 1)]
        ma, mb = members.get(row.a), members.get(row.b)
        parts.append('<div class="sbs">'
                     + _file_box(row.a, ma.shown if ma else "", a.text, spans_a, "a", "b")
                     + _file_box(row.b, mb.shown if mb else "", b.text, spans_b, "b", "a") + "</div>")
    pa, pb = report.plays.get(row.a), report.plays.get(row.b)
    if p is not None and p.sample and pa is not None and pb is not None:
        parts.append(f"<h2>Unusual shared choices ({len(p.sample)} of {p.unusual} shown)</h2>")
        stake = pa.stake
        parts.append('<p class="note">Situations where both made the same choice and no reference strategy makes '
                     "it (the references' choices in the last column; the references that bet the minimum are taken "
                     f"to bet this player's usual stake{f', {stake}' if stake is not None else ''}). When they are "
                     "all bets, the two may simply share a betting system.</p>")
        parts.append('<table id="unusual"><thead><tr><th class="num">Seed</th><th class="num">Seat</th>'
                     '<th class="num">Round</th><th class="num">Money</th><th>Decision</th><th>Hand</th>'
                     "<th>Up card</th><th>Both chose</th><th>References chose</th></tr></thead><tbody>"
                     + _decision_rows(pa, pb, p.sample) + "</tbody></table>")
    title = f"{row.a} \u2194 {row.b} \u2014 {report.title}"
    return _page(title, f"<style>{EXTRA_CSS}</style>\n" + "\n".join(parts), LAYOUT_JS)


def _regions_note(regions: list[Region], a: Source, b: Source) -> str:
    if not regions:
        return '<p class="note">No stretch of code in common (beyond the template and code many files share).</p>'
    ta = sum(r.tokens for r in regions)
    return (f'<p class="note">{len(regions)} matching stretch{"es" if len(regions) != 1 else ""} of at least '
            f"{K} tokens ({ta} tokens: {_pct(ta / max(1, len(a.tokens)))} of the first file's tokens, "
            f"{_pct(ta / max(1, len(b.tokens)))} of the second's), highlighted in the same colour and numbered "
            "alike; click one to go to its partner. The template and code many files share are never "
            "highlighted.</p>")


def write_similarity(report: SimilarityReport, out: Path, back: str | None = "index.html") -> list[Path]:
    """Write ``similarity.html``, a page per listed pair and ``similarity.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    page = out / PAGE
    page.write_text(render_similarity(report, back), encoding="utf-8", newline="\n")
    written.append(page)
    folder = out / FOLDER
    for row in report.listed():
        if row.page:
            folder.mkdir(exist_ok=True)
            path = folder / row.page
            path.write_text(render_pair(report, row), encoding="utf-8", newline="\n")
            written.append(path)
    data = out / "similarity.json"
    data.write_text(json.dumps(visible_data(report.to_dict()), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(data)
    return written
