"""The review on the grade's pages (issue 26): a student page's section, the class page's column, the links of
incidents and sample matches to their rounds, and the replay pages themselves.

``report`` calls these hooks; everything shown comes from ``ClassReport.reviews`` (``grading.decisions``), so
``twentyone report DIR`` makes the same pages from the store alone.  Every text from a student is escaped
(``html.escape``); a replay page sets it as data (``twentyone.review.replay``).  Replay pages are written
under ``students/<name>/replays/``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from html import escape
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from twentyone.grading.decisions.keptlog import REVIEW, unpack_log
from twentyone.grading.results import ClassReport, ReplayPage, StudentReview, StudentScore
from twentyone.i18n import N_, _, current, pgettext, using
from twentyone.review.costs import SITUATIONS, UPS, Priced, situation_words
from twentyone.review.replay import render_replay, round_anchor
from twentyone.review.logs import LogError, SeatInfo, parse_records
from twentyone.review.rounds import rounds_of

__all__ = ["ev_lost_cell", "review_section", "replay_link", "write_replays", "write_student_replays",
           "EV_LOST_HELP"]

EV_LOST_HELP = N_("EV lost per 100 hands: what the strategy's decisions cost against the best play, in initial "
                  "bets, priced exactly off the cards it could have seen, in the matches the grade traces (0 = every "
                  "decision was the best one)")


#: Replay links listed on a student page; the others are behind one "more" line.
SHOWN_REPLAYS = 10

_CSS = "#heatmap td.heat{padding:2px 6px;min-width:42px;line-height:1.15}#heatmap th{padding:2px 8px}"


def ev_lost_cell(report: ClassReport, name: str) -> tuple[str, str]:
    """The class page's cell for ``name``: (text, sort value); an em dash without a review."""
    r = report.reviews.get(name)
    if r is None or r.per_100 is None:
        return "\u2014", ""
    return f"{r.per_100:.2f}", f"{r.per_100:.6f}"


def _href(path: str, anchor: str = "") -> str:
    return quote(path) + (f"#{anchor}" if anchor else "")


def _page_for(report: ClassReport, name: str, match_key: str) -> ReplayPage | None:
    r = report.reviews.get(name)
    if r is None:
        return None
    return next((p for p in r.replays if p.match_key == match_key), None)


def replay_link(report: ClassReport, name: str, match_key: str, round_no: int | None = None) -> str:
    """A link (HTML) from ``name``'s page to ``match_key``'s replay, at round ``round_no``; '' without a replay."""
    page = _page_for(report, name, match_key)
    if page is None:
        return ""
    anchor = round_anchor(round_no, foul=True) if round_no else ""
    text = _("replay round {round}").format(round=round_no) if round_no else _("replay")
    return f'<a class="replay" href="{escape(_href(page.path, anchor))}">{escape(text)}</a>'


def _heat(cells: list[tuple[str, str, float, int]]) -> str:
    """The heat map: EV lost by situation (rows) and dealer's card (columns), darker where more was lost."""
    by = {(s, u): (loss, n) for s, u, loss, n in cells}
    top = max((loss for loss, _n in by.values()), default=0.0) or 1.0
    rows = []
    for sit in SITUATIONS:
        if not any((sit, u) in by for u in UPS):
            continue
        tds = []
        for u in UPS:
            if (sit, u) not in by:
                tds.append('<td class="num heat"></td>')
                continue
            loss, n = by[(sit, u)]
            alpha = 0.08 + 0.85 * (loss / top) if loss > 0 else 0.0
            style = f' style="background:rgba(192,57,43,{alpha:.2f})"' if alpha else ""
            tip = _("{situation} vs {up}: {loss:.3f} lost in {n} decision(s)").format(
                situation=situation_words(sit), up=u, loss=loss, n=n)
            tds.append(f'<td class="num heat" data-loss="{loss:.6f}" title="{escape(tip)}"{style}>{loss:.2f}<br>'
                       f'<span class="note">{n}</span></td>')
        rows.append(f"<tr><th scope=\"row\">{escape(situation_words(sit))}</th>{''.join(tds)}</tr>")
    head = "".join(f'<th class="num" scope="col">{u}</th>' for u in UPS)
    corner = escape(_("situation \\ dealer"))
    return (f'<table id="heatmap"><thead><tr><th>{corner}</th>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(rows) + "\n</tbody></table>")


def review_section(report: ClassReport, student: StudentScore) -> str:
    """The student page's "Decisions reviewed" section (HTML), '' without a review."""
    r: StudentReview | None = report.reviews.get(student.name)
    if r is None:
        return ""
    parts = [f"<h2>{escape(_('Decisions reviewed'))}</h2>", f"<style>{_CSS}</style>"]
    if r.per_100 is None or not r.matches:
        parts.append('<p class="note">' + escape(_("No traced match was reviewed (a store made before reviews were "
                                                   "kept, or no round played).")) + "</p>")
    else:
        parts.append("<p>" + _("{per_100} initial bets of EV lost per 100 hands ({lost:.2f} over {hands} hands and "
                               "{decisions} priced decisions of the {matches} matches against stand that the grade "
                               "traces).").format(per_100=f'<span class="total" id="ev-lost-per-100">{r.per_100:.2f}'
                                                          "</span>", lost=r.ev_lost, hands=r.hands,
                                                  decisions=r.decisions, matches=r.matches) + "</p>")
        parts.append('<p class="note">' + escape(_("{help}. Each decision is priced by the exact analyser off the "
                                                   "cards the strategy could have seen since the shuffle (RULES.md, "
                                                   "Decision review).").format(help=_(EV_LOST_HELP))) + "</p>")
        if r.costliest:
            rows = []
            # Each match as its replay is titled ("vs stand, match 6, seat 1"), not the replay's file name.
            titles = {p.path: p.title.split(f"{student.name} \u2014 ", 1)[-1] for p in r.replays}
            for k, c in enumerate(r.costliest, 1):
                where = escape(_("round {round}").format(round=c.round))
                link = f'<a href="{escape(_href(c.replay, c.anchor))}">{where}</a>' if c.replay else where
                match = titles.get(c.replay, PurePosixPath(c.replay).stem)
                hand = _("{cards} vs {up}").format(cards=c.cards, up=c.up)
                rows.append(f"<tr><td class=\"num\">{k}</td><td>{escape(match)}</td>"
                            f"<td>{link}</td><td>{escape(hand)}</td><td>{escape(situation_words(c.situation))}</td>"
                            f"<td>{escape(c.answer)}</td><td>{escape(_(c.best))}</td>"
                            f"<td class=\"num\">{c.loss:.3f}</td></tr>")
            heads = "".join(f"<th{cls}>{escape(h)}</th>" for cls, h in (
                ("", "#"), ("", pgettext("column", "Match")), ("", pgettext("column", "Round")),
                ("", pgettext("column", "Hand")), ("", pgettext("column", "Situation")),
                ("", pgettext("column", "Answered")), ("", pgettext("column", "Best")),
                (' class="num"', pgettext("column", "EV lost"))))
            parts.append(f"<h3>{escape(_('The costliest decisions'))}</h3>\n<table id=\"costliest\"><thead><tr>{heads}"
                         "</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table>")
        else:
            parts.append(f"<p>{escape(_('No decision lost any EV.'))}</p>")
        if r.cells:
            parts.append(f"<h3>{escape(_('Where EV was lost'))}</h3>\n<p class=\"note\">" + escape(_(
                "Initial bets lost by situation and dealer's card, with the number of decisions below; darker is "
                "more.")) + "</p>\n" + _heat(r.cells))
        if r.bet_note:
            parts.append(f"<p><b>{escape(_('Bets:'))}</b> {escape(r.bet_note)}</p>")
    if r.replays:
        items = []
        for p in r.replays:
            what = _(" (only the rounds with a foul)") if p.scope != "match" else ""
            items.append(f'<li><a href="{escape(_href(p.path))}">{escape(p.title)}</a>{escape(what)}</li>')
        listed = "<ul class=\"replays\">" + "".join(items[:SHOWN_REPLAYS]) + "</ul>"
        if len(items) > SHOWN_REPLAYS:  # the rest one click away, not a wall of links
            more = _("{n} more replays").format(n=len(items) - SHOWN_REPLAYS)
            listed += (f"<details><summary>{escape(more)}</summary><ul class=\"replays\">"
                       + "".join(items[SHOWN_REPLAYS:]) + "</ul></details>")
        parts.append(f"<h3>{escape(_('Replays'))}</h3>\n<p class=\"note\">" + escape(_(
            "Each match step by step, the student's seat outlined: the arrow keys step through it. The sample "
            "matches of the bankroll charts and every match with an incident shown here are among them."))
            + "</p>\n" + listed)
    return "\n".join(parts)


def _priced(lines: list[str], seat: int) -> list[Priced]:
    out: list[Priced] = []
    for line in lines:
        if f'"type":"{REVIEW}"' not in line:
            continue
        rec = json.loads(line)
        if rec.get("seat") == seat:
            out += [Priced.from_list(p) for p in rec.get("priced", [])]
    return out


def _records(lines: list[str], seat: int) -> list[tuple[int, dict[str, Any]]]:
    """The log's records, other seats' fault texts left out (they are other students' data)."""
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or f'"type":"{REVIEW}"' in line:
            continue
        rec = json.loads(line)
        if rec.get("type") == "round" and rec.get("faults"):
            rec["faults"] = [dict(f, detail="") if f.get("seat") != seat else f for f in rec["faults"]]
        out.append((n, rec))
    return out


def write_replay(page: ReplayPage, student: str, out: Path) -> Path:
    """Write one replay page under ``out/students`` and return its path."""
    lines = unpack_log(page.log)
    match = parse_records(_records(lines, page.seat), page.match_key)
    names = page.names
    seats = tuple(SeatInfo(s.seat, names[s.seat - 1] if s.seat <= len(names) else s.name, "")
                  for s in match.seats)
    match = replace(match, seats=seats, seed=None)  # a student never sees a run's seed (RULES.md, secret_seed)
    plays = {rnd.number: play for rnd, play in rounds_of(match) if not isinstance(play, LogError)}
    note = (_("Only the rounds with a foul were kept for this match (each with the cards seen before it).")
            if page.scope != "match" else _("Every round of the match."))
    back = "../../" + quote(student) + ".html"
    html = render_replay(match, plays, _priced(lines, page.seat), [page.seat], page.title, note,
                         (back, "\u2190 " + _("{student}'s page").format(student=student)))
    path = out / "students" / page.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8", newline="\n")
    return path


def write_student_replays(name: str, pages: Sequence[ReplayPage], out: Path, lang: str | None = None) -> list[Path]:
    """Write the replay pages of student ``name`` in ``lang`` (the active language; a worker process is told it);
    return the files written."""
    written: list[Path] = []
    with using(lang or current()):
        for page in pages:
            try:
                written.append(write_replay(page, name, out))
            except (LogError, ValueError):
                continue  # a damaged kept log: the page lists the replay, which is then missing
    return written


def write_replays(report: ClassReport, out: Path) -> list[Path]:
    """Write every student's replay pages, one student after another; return the files written."""
    return [p for name, review in report.reviews.items() for p in write_student_replays(name, review.replays, out)]
