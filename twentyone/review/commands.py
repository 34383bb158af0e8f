"""``twentyone review LOG.jsonl [--seat N] [--json] [--html FILE]``: what a seat's strategy did, decision by decision.

Reads any round log (``match``, ``grade``'s kept matches, the C program's ``--log``, the games') and prints,
for every decision of the seat, the EV of each legal option (exact, off the cards the seat could have seen
since the shuffle), the option taken and the EV lost; then the EV lost by situation and dealer's card, the ten
costliest decisions, a note on the bets and the true count, and EV lost per 100 hands.  ``--json`` prints it
all as one JSON object; ``--html FILE`` also writes the match's replay page, the seat highlighted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twentyone.errors import TwentyOneError
from twentyone.i18n import _, add_lang_option, ljust, ngettext

if TYPE_CHECKING:
    from twentyone.review.pricing import MatchReview

__all__ = ["add_parser", "run_review", "format_review"]


def _seat(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 5:
        raise argparse.ArgumentTypeError(f"seat out of range: {text!r} (1 .. 5)")
    return int(text)


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``review`` command; it sets ``analysis_run`` to its runner."""
    r = subparsers.add_parser(
        "review", help="the price of every decision in a round log, and its replay as a web page",
        description="For each decision of a seat in a round log: the exact EV of every legal option off the "
                    "cards the seat could have seen since the shuffle, the option taken and the EV lost; then "
                    "the EV lost by situation and dealer's card, the ten costliest decisions, how the bets "
                    "followed the true count, and the EV lost per 100 hands (RULES.md, \"Decision review\").")
    r.add_argument("log", type=Path, metavar="LOG.jsonl",
                   help="a round log: match --log, the C program's --log, a game's --log")
    r.add_argument("--seat", type=_seat, default=None, metavar="N", help="the seat to review (the first seat)")
    r.add_argument("--json", action="store_true", help="print the review as one JSON object")
    r.add_argument("--html", type=Path, metavar="FILE",
                   help="also write the match's replay: one page that works offline (arrow keys step through it)")
    add_lang_option(r)
    r.set_defaults(analysis_run=run_review)


def run_review(args: argparse.Namespace) -> int:
    """``twentyone review``: print the review; write the replay page with ``--html``."""
    from twentyone.review.pricing import review_match
    from twentyone.review.logs import read_log

    match = read_log(args.log)
    if not match.seats:
        raise TwentyOneError(f"{args.log}: the match record names no seat")
    seat = args.seat if args.seat is not None else match.seats[0].seat
    review = review_match(match, seat)
    if args.html is not None:
        from twentyone.review.replay import render_replay

        info = match.seat(seat)
        page = render_replay(match, review.plays, review.priced, [seat],
                             _("Replay: {log}, seat {seat} ({name})").format(log=args.log.name, seat=seat,
                                                                             name=info.name),
                             note=_("Every round of the log; the reviewed seat is outlined in yellow."))
        try:
            args.html.write_text(page, encoding="utf-8")
        except OSError as e:
            raise TwentyOneError(f"cannot write {str(args.html)!r}: {e.strerror or e}") from None
    if args.json:
        print(json.dumps(review_json(review), ensure_ascii=False, indent=1))
    else:
        print(format_review(review))
    if args.html is not None:
        print("twentyone: " + _("replay written to {file} (open it in a browser; it needs no network)").format(
            file=args.html), file=sys.stderr)
    return 0


def review_json(review: MatchReview) -> dict[str, Any]:
    """A ``MatchReview`` as JSON."""
    from twentyone.review.costs import by_situation, costliest

    info = review.match.seat(review.seat)
    cells = by_situation(review.priced)
    return {
        "log": review.match.source, "rules": review.match.rules.name, "decks": review.match.decks,
        "seat": review.seat, "name": info.name, "player": info.player, "hands": review.hands,
        "decisions": [p.to_dict() for p in review.priced],
        "ev_lost": round(review.ev_lost, 6),
        "ev_lost_per_100_hands": None if review.per_100 is None else round(review.per_100, 6),
        "by_situation": [{"situation": s, "up": u, "ev_lost": round(loss, 6), "decisions": n}
                         for (s, u), (loss, n) in sorted(cells.items())],
        "costliest": [p.to_dict() for p in costliest(review.priced)],
        "bets": review.bet_note().to_dict(),
        "not_reviewed": list(review.skipped),
    }


def _ev(v: float | None) -> str:
    return f"{_('n/a'):^6}" if v is None else f"{v:+.3f}"


def format_review(review: MatchReview) -> str:
    """A ``MatchReview`` as the terminal shows it, in the active language."""
    from twentyone.review.costs import SITUATIONS, UPS, by_situation, costliest, letter_word, situation_words

    m = review.match
    info = m.seat(review.seat)
    decks = ngettext("{n} deck", "{n} decks", m.decks).format(n=m.decks)
    out = [_("Review of seat {seat} ({name}: {player}) in {log}").format(seat=review.seat, name=info.name,
                                                                         player=info.player, log=m.source),
           _("rules {rules}, {decks}; {rounds} rounds, {hands} played by the seat").format(
               rules=m.rules.name, decks=decks, rounds=len(m.rounds), hands=review.hands),
           _("EV of each option per initial bet, exact off the cards the seat could have seen since the shuffle; "
             "* the best option, > the one taken."), ""]
    for p in review.priced:
        opts = "  ".join(f"{'>' if a == p.taken else ' '}{letter_word(a)} {_ev(v)}{'*' if a == p.best else ''}"
                         for a, v in p.options)
        what = _("foul: {foul}").format(foul=p.foul) if p.foul else letter_word(p.taken)
        lost = _("not priced") if p.loss is None else _("lost {loss:.3f}").format(loss=p.loss)
        hand = _("{cards} vs {up}").format(cards=p.cards, up=p.up) + (
            _(" (hand {n})").format(n=p.hand + 1) if p.hand else "")
        kind = _("insurance") if p.kind == "insurance" else _("play")
        out.append(_("round {round:>4}").format(round=p.round) + f"  {ljust(hand, 16)} {ljust(kind, 9)} {opts}  -> "
                   + _("{what}; {lost}").format(what=what, lost=lost)
                   + (f"  [{p.note}]" if p.note else ""))
    cells = by_situation(review.priced)
    if cells:
        out += ["", _("EV lost by situation and dealer's card (initial bets lost / decisions):"),
                f"{'':<10}" + "".join(f"{u:>9}" for u in UPS)]
        for sit in SITUATIONS:
            if not any((sit, u) in cells for u in UPS):
                continue
            row = "".join(f"{cells[(sit, u)][0]:>6.2f}/{cells[(sit, u)][1]:<2}" if (sit, u) in cells else f"{'.':>9}"
                          for u in UPS)
            out.append(ljust(situation_words(sit), 10) + row)
    worst = costliest(review.priced)
    out += ["", _("The ten costliest decisions:") if worst else _("No decision lost any EV.")]
    for p in worst:
        out.append("  " + _("round {round:>4}: {cards} vs {up} ({situation}): {answer} instead of {best}, "
                            "lost {loss:.3f}").format(round=p.round, cards=p.cards, up=p.up,
                                                      situation=situation_words(p.situation), answer=p.answer,
                                                      best=letter_word(p.best), loss=p.loss))
    out += ["", _("Bets: {note}").format(note=review.bet_note().text)]
    unpriced = sum(1 for p in review.priced if p.loss is None)
    per = review.per_100
    lost_line = _("EV lost: {lost:.3f} initial bets in {priced} priced decisions over {hands} hands").format(
        lost=review.ev_lost, priced=len(review.priced) - unpriced, hands=review.hands)
    out += ["", (_("{line}: {per:.2f} per 100 hands.") if per is not None else _("{line}.")).format(line=lost_line,
                                                                                                   per=per)]
    if unpriced:
        out.append(_("{n} decision(s) listed but not priced (see their notes).").format(n=unpriced))
    for line in review.skipped:
        out.append(_("not reviewed: {what}").format(what=line))
    return "\n".join(out)
