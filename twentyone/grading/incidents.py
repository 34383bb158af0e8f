"""An incident as a person reads it: the round it happened in, not the JSON of its record.

``render_incident`` shows, for one foul or fault of a student's page: the match in words (``match_label``:
"match 17 against basic, seat 2", not ``beat_basic|张三_2023001|17|2``), what the
student held, what the dealer showed, what was asked, what it answered and why that was a foul, and every
seat of the round with the student's own highlighted.  The round record stays one click away, as JSON.
Student text (names, answers, fault details) is escaped everywhere.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from twentyone.cards import hand_value
from twentyone.grading.results import Incident, cause_words
from twentyone.i18n import N_, _, pgettext
from twentyone.storedtext import retold

__all__ = ["match_label", "render_incident", "why_foul", "INCIDENT_CSS"]

INCIDENT_CSS = """
.incident{background:#fff;border:1px solid #d9dde3;border-radius:4px;padding:4px 14px 10px;margin:12px 0}
.incident h3{font-size:15px;margin:8px 0}
.incident dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}
.incident dt{color:#5a6472}.incident dd{margin:0}
table.round tr.you{background:#fff3c4;font-weight:600}
table.round td.cards{font-family:ui-monospace,monospace}
details summary{cursor:pointer;color:#1f5fbf}
"""

#: Why each kind of incident is a foul (RULES.md: **foul**, **illegal_insurance**, **strategy_fault** ...).
WHY = {  # in English; translated where it is shown
    "illegal_insurance": N_("insurance is offered only when the dealer shows an A, as the first decision (and not "
                            "at all under rules without insurance)"),
    "unaffordable_insurance": N_("insurance costs half the bet, and the money left could not pay it"),
    "unaffordable_double": N_("the money left could not pay the whole double (runs graded today double for less "
                              "instead)"),
    "error": N_("the strategy raised an exception, or returned something that is not one action character"),
    "crash": N_("the strategy's process crashed"),
    "timeout": N_("the strategy gave no answer within the decision limit"),
}


def match_label(key: str) -> str:
    """A match's key in words, numbered as the store and the replay pages number it (from 0): the shown key
    ``beat_basic|loopy|3|2`` is "match 3 against basic, seat 2"; the key itself when grading does not make it."""
    parts = key.split("|")

    def number(text: str) -> int | None:
        return int(text) if text.isdigit() else None

    purpose = parts[0]
    if purpose in ("beat_stand", "beat_basic", "legal") and len(parts) >= 4:
        seed = None
        if len(parts) == 5 and all(number(p) is not None for p in parts[2:]):  # a stored key, with its seed
            idx, seed, seat = number(parts[2]), number(parts[3]), number(parts[4])
        else:  # as pages show it (scoring.shown_key): purpose|subject|index|seat, the subject may hold a "|"
            idx, seat = number(parts[-2]), number(parts[-1])
        if idx is not None and (seat is not None or parts[-1] == "-"):
            what = (_("legal-play match {n} beside built-in players").format(n=idx) if purpose == "legal"
                    else _("match {n} against {opponent}").format(n=idx, opponent=purpose[len("beat_"):]))
            return (what + (_(", seed {seed}").format(seed=seed) if seed is not None else "")
                    + (_(", seat {seat}").format(seat=seat) if seat else ""))
    try:
        if purpose == "tournament" and len(parts) == 4 and parts[1].startswith("deal"):
            deal, table = int(parts[1][4:]) + 1, int(parts[2][5:]) + 1
            turn = (_("each alone on its seed") if parts[3] == "duplicate"
                    else _("rotation {n}").format(n=int(parts[3][3:]) + 1))
            return _("class tournament, deal {deal}, table {table}, {turn}").format(deal=deal, table=table, turn=turn)
        if purpose == "tournament" and len(parts) == 4:
            return _("tournament match {n} of {a} and {b}").format(n=int(parts[3]) + 1, a=parts[1], b=parts[2])
        if purpose == "tournament" and len(parts) >= 3 and parts[1].startswith("deal"):  # duplicate: alone on a deal
            return _("class tournament, deal {deal}, alone on its seed").format(deal=int(parts[1][4:]) + 1)
    except ValueError:
        pass
    return key


def why_foul(kind: str, asked: str, answer: str, player: dict[str, Any]) -> str:
    """Why an incident of ``kind`` is a foul, in words, from what was ``asked`` and ``answered``."""
    if kind == "illegal_action":
        shown = f"{answer!r}" if answer else _("its answer")
        if asked == "continue_action" and str(player.get("actions", "")) in ("", "i"):
            allowed = _("h, s, d or u (after insurance the hand still has two cards)")
        elif asked == "continue_action":
            allowed = _("h or s after a hit (a split hand's first two cards may also double or split where allowed)")
        else:
            allowed = _("i, h, s, d or u in the course (p and c where the rules have them), in lower case")
        return _("{answer} is not a decision the rules allow here: the answer must be {allowed}").format(
            answer=shown, allowed=allowed)
    return _(WHY[kind]) if kind in WHY else kind


def _hand(cards: str) -> str:
    if not cards:
        return "\u2014"
    total, soft = hand_value(cards)
    return f"{' '.join(cards)} (" + (_("soft {total}") if soft else "{total}").format(total=total) + ")"


def _student(record: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """The student's entry of a round record: at ``seat``, or the only player (a one-seat duplicate's match)."""
    players = record.get("players") or []
    found = [p for p in players if p.get("seat") == seat]
    if found:
        return found[0]  # type: ignore[no-any-return]
    return players[0] if len(players) == 1 else None


def _fault_detail(record: dict[str, Any], seat: int) -> str:
    for f in record.get("faults") or []:
        if f.get("seat") == seat:
            return str(f.get("detail", ""))
    return ""


def render_incident(i: Incident, pretty: str, notes: str = "") -> str:
    """One incident as HTML: the round in words and as a table of its seats, then its record (``pretty``: the
    excerpt, pretty-printed) one click away; ``notes`` (HTML) come after the heading.  An excerpt that is not a
    round record (a fault's text) is shown as it is."""
    kind = i.cause.split(" ", 1)[0]
    head = (f"<h3>{escape(cause_words(i.cause))} \u00b7 "
            + escape(_("round {round} of {match}").format(round=i.round, match=match_label(i.match_key))) + "</h3>"
            + notes)
    try:
        record = json.loads(i.excerpt)
    except ValueError:
        record = None
    me = _student(record, i.seat) if isinstance(record, dict) else None
    if not isinstance(record, dict) or me is None:
        said = _("What the fault said. Text that comes from the strategy itself (an exception\u2019s message, a load "
                 "error) is the student\u2019s own, quoted as written and cut to 200 characters.")
        return f'<div class="incident">{head}<p class="note">{escape(said)}</p><pre>{escape(retold(pretty))}</pre></div>'
    dealer = str(record.get("dealer", ""))
    what = [(_("Held"), _hand(str(me.get("cards", "")))),
            (_("Dealer showed"), (_("{up} (the dealer's hand at the end: {hand})").format(up=dealer[0],
                                                                                        hand=_hand(dealer))
                                  if dealer else "\u2014")),
            (_("Bet"), _("{bet} of {money}").format(bet=me.get("bet", ""), money=me.get("account_before", "")))]
    if kind in WHY and kind in ("error", "crash", "timeout"):
        detail = _fault_detail(record, int(me.get("seat", 0)))
        what.append((_("What happened"), retold(detail) or kind))
    else:
        if i.asked:
            what.append((_("Asked"), _("{asked}, after {actions}").format(
                asked=i.asked, actions=me.get("actions") or _("no decision yet"))))
        if i.answer:
            what.append((_("Answered"), repr(i.answer)))
    what.append((_("Why it is a foul"), why_foul(kind, i.asked, i.answer, me)))
    rows = []
    for p in record.get("players") or []:
        you = p is me
        mark = ' class="you"' if you else ""
        rows.append(f'<tr{mark}><td class="num">{escape(str(p.get("seat", "")))}'
                    f'{escape(_(" (the student)")) if you else ""}</td>'
                    f'<td class="cards">{escape(str(p.get("cards", "")))}</td>'
                    f'<td class="num">{escape(str(p.get("bet", "")))}</td><td><code>{escape(str(p.get("actions", "")))}'
                    f'</code></td><td class="num">{escape(str(p.get("account_before", "")))} \u2192 '
                    f'{escape(str(p.get("account_after", "")))}</td>'
                    f'<td>{escape(cause_words(str(p.get("foul") or "")))}</td></tr>')
    heads = "".join(f"<th{cls}>{escape(h)}</th>" for cls, h in (
        (' class="num"', pgettext("column", "Seat")), ("", pgettext("column", "Cards")),
        (' class="num"', pgettext("column", "Bet")), ("", pgettext("column", "Actions")),
        (' class="num"', pgettext("column", "Money")), ("", pgettext("column", "Foul"))))
    table = (f'<table class="round"><thead><tr>{heads}</tr></thead><tbody>' + "".join(rows)
             + f'<tr><td>{escape(_("dealer"))}</td><td class="cards">{escape(dealer)}</td><td colspan="4"></td></tr>'
             "</tbody></table>")
    facts = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in what)
    return (f'<div class="incident">{head}<dl>{facts}</dl>{table}'
            f"<details><summary>{escape(_('The round record (JSON)'))}</summary><pre>{escape(pretty)}</pre>"
            "</details></div>")
