"""A round log read back: ``read_log`` reads any round log of the project (``match``, ``grade``'s kept matches,
the C program's ``--log``, the games': ``solo``, ``elimination``, ``bj``, ``lianzhong``, ``montecarlo``) into a
``LoggedMatch``: its rules, seats and rounds, each round with the cards it deals (its shoe's order from the
round's first card, or bj(6)'s ``drawn``) and the cards shown since the shuffle before it (RULES.md,
**review_seen**).  ``twentyone.review.rounds`` replays the rounds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from twentyone.errors import TwentyOneError
from twentyone.safetext import visible
from twentyone.rules import Rules, get_rules

__all__ = ["LogError", "SeatInfo", "LoggedRound", "LoggedMatch", "read_log", "parse_log", "parse_records",
           "rank_counts", "rank_of", "course_interface", "plain", "RANKS", "RANK_INDEX", "MAX_TEXT"]

#: The analyser's ranks, in its index order: ace, two .. nine, ten-valued (J, Q and K count as T).
RANKS: Final = "A23456789T"
#: A card's rank index (A, 2 .. 9, T), as ``rank_counts`` counts it.
RANK_INDEX: Final = {**{c: i for i, c in enumerate(RANKS)}, "J": 9, "Q": 9, "K": 9}
#: Most characters of a name or a fault's text a review keeps (they are the students' data).
MAX_TEXT: Final = 200


class LogError(TwentyOneError, ValueError):
    """A round log cannot be read or replayed; the message names the file and line, or the round."""


def plain(text: object) -> str:
    """Text from a log (the students' data) as one line that is safe to show (``safetext.visible``: control
    characters and text-reordering marks as ``\\x1b`` escapes), whitespace collapsed, at most ``MAX_TEXT``
    characters."""
    return visible(" ".join(str(text).split()), MAX_TEXT)


def rank_of(card: str) -> str:
    """A card's rank as the analyser names it (J, Q and K are T)."""
    return RANKS[RANK_INDEX[card]]


def rank_counts(cards: str) -> tuple[int, ...]:
    """Counts by rank index (A, 2 .. 9, T) of ``cards``."""
    counts = [0] * 10
    for c in cards:
        counts[RANK_INDEX[c]] += 1
    return tuple(counts)


@lru_cache(maxsize=1024)
def course_interface(player: str) -> bool:
    """True when a seat's player SPEC names a C or C++ file: a course function set, which never splits nor uses
    the Changer (its interface has neither)."""
    path = player.rsplit(":", 1)[0] if player.rsplit(":", 1)[-1].isdigit() else player
    return path.lower().endswith((".c", ".cpp", ".cc", ".cxx"))


@dataclass(frozen=True)
class SeatInfo:
    """A seat of the log's match record."""

    seat: int
    name: str
    player: str


@dataclass(frozen=True)
class LoggedRound:
    """A round record with where its cards come from."""

    record: dict[str, Any]
    number: int
    #: Line of the log the record is on (1-based).
    line: int
    #: The shoe's order the round deals from, from ``start`` on ('' when the log does not say), then ``refill``:
    #: the order of a shoe refilled in the middle of the round ('' when none was).
    order: str
    start: int
    refill: str
    #: The cards shown since the shuffle, before this round, counted by rank (A .. T): the seat saw them all.
    seen_before: tuple[int, ...]

    def card(self, k: int) -> str:
        """The ``k``-th card the round deals ('' past what the log holds)."""
        i = self.start + k
        if i < len(self.order):
            return self.order[i]
        i -= len(self.order)
        return self.refill[i] if self.refill and i < len(self.refill) else ""

    @property
    def refill_at(self) -> int:
        """How many of the round's cards come before its refill (-1: no refill)."""
        return len(self.order) - self.start if self.refill else -1


@dataclass(frozen=True)
class LoggedMatch:
    """A round log read back."""

    source: str
    #: '' for the engine's matches, else the game of the match record (``bj``, ``lianzhong``, ``montecarlo``).
    game: str
    rules: Rules
    decks: int
    seats: tuple[SeatInfo, ...]
    rounds: tuple[LoggedRound, ...]
    seed: int | None = None
    reason: str = ""

    @property
    def shoe_size(self) -> int:
        """Cards in a full shoe."""
        return self.decks * 52

    def seat(self, n: int) -> SeatInfo:
        """The seat numbered ``n``; LogError if the match has none."""
        for s in self.seats:
            if s.seat == n:
                return s
        raise LogError(f"{self.source} has no seat {n} (seats: {', '.join(str(s.seat) for s in self.seats)})")


def read_log(path: Path) -> LoggedMatch:
    """Read the round log at ``path``; LogError names what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise LogError(f"{str(path)!r} is not a round log: it is not text (byte {e.start + 1} is not UTF-8); "
                       "a round log is what match --log FILE.jsonl writes") from None
    except OSError as e:
        raise LogError(f"cannot read log {str(path)!r}: {e.strerror or e}") from None
    return parse_log(text.splitlines(), str(path))


def parse_log(lines: list[str], source: str) -> LoggedMatch:
    """A log's lines (JSON objects, one a line) as a ``LoggedMatch``; ``source`` names it in errors."""
    records: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            raise LogError(f"{source} line {n}: not a JSON object (is this a round log? --log FILE.jsonl)") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            raise LogError(f"{source} line {n}: not a round-log record (no \"type\")")
        records.append((n, rec))
    return parse_records(records, source)


def parse_records(records: list[tuple[int, dict[str, Any]]], source: str) -> LoggedMatch:
    """A log's records, each with its line number, as a ``LoggedMatch``; ``source`` names it in errors."""
    if not records or records[0][1].get("type") != "match":
        raise LogError(f"{source}: a round log starts with its match record (type \"match\")")
    first = records[0][1]
    try:
        rules = get_rules(str(first["rules"]))
        decks = int(first["decks"])
        seats = tuple(SeatInfo(int(s["seat"]), plain(s.get("name", "")), plain(s.get("player", "")))
                      for s in first["seats"])
    except TwentyOneError as e:
        raise LogError(f"{source} line {records[0][0]}: {e}") from None
    except (KeyError, TypeError, ValueError) as e:
        raise LogError(f"{source} line {records[0][0]}: a bad match record ({e!r})") from None
    game = str(first.get("game", ""))
    size = decks * 52
    orders: dict[int, str] = {}
    prefix: dict[int, tuple[int, tuple[int, ...]]] = {}  # shoe -> (cards counted, their counts by rank)
    seen: tuple[int, ...] = (0,) * 10  # bj: the cards shown since the shuffle, from the rounds' records
    refill_next = False  # a mid-round shuffle record was read since the last round
    rounds: list[LoggedRound] = []
    reason = ""
    for n, rec in records[1:]:
        kind = rec.get("type")
        if kind == "shuffle":
            if rec.get("mid_round"):
                refill_next = True
            else:
                seen = (0,) * 10
            if isinstance(rec.get("order"), str):
                orders[int(rec.get("shoe", 0))] = rec["order"]
        elif kind == "round":
            try:
                rnd = _logged_round(rec, n, orders, prefix, seen, refill_next, size)
                shown = rank_counts("".join(_shown_cards(rec)))
            except (KeyError, TypeError, ValueError) as e:
                raise LogError(f"{source} line {n}: a bad round record ({e!r})") from None
            rounds.append(rnd)
            refill_next = False
            if rnd.refill_at >= 0:  # only the cards dealt from the new shoe are part of it
                old = rank_counts("".join(rnd.card(k) for k in range(rnd.refill_at)))
                seen = tuple(max(0, a - b) for a, b in zip(shown, old))
            else:
                seen = tuple(a + b for a, b in zip(seen, shown))
        elif kind == "end":
            reason = str(rec.get("reason", ""))
    seed = first.get("seed")
    return LoggedMatch(source, game, rules, decks, seats, tuple(rounds), seed if isinstance(seed, int) else None,
                       reason)


def _logged_round(rec: dict[str, Any], line: int, orders: dict[int, str],
                  prefix: dict[int, tuple[int, tuple[int, ...]]], seen: tuple[int, ...], refill_next: bool,
                  size: int) -> LoggedRound:
    """A round record with its cards: from its shoe's order when the log has it (every card dealt before the
    round was shown: **review_seen**), else from bj(6)'s ``drawn`` and the cards its records show."""
    number = int(rec["round"])
    first_card = int(rec.get("first_card", 0))
    if isinstance(rec.get("drawn"), str):  # bj: the faces drawn this round, rank then suit
        drawn = rec["drawn"]
        cards = "".join(drawn[i] for i in range(0, len(drawn), 2))
        cut = size - first_card if refill_next else len(cards)  # the old deck ran out after its last card
        return LoggedRound(rec, number, line, cards[:cut], 0, cards[cut:], seen)
    shoe = int(rec["shoe"])
    order = orders.get(shoe, "")
    if not order:
        return LoggedRound(rec, number, line, "", 0, "", seen)
    done, counts = prefix.get(shoe, (0, (0,) * 10))
    if first_card < done:
        done, counts = 0, (0,) * 10
    more = rank_counts(order[done:first_card])
    counts = tuple(a + b for a, b in zip(counts, more))
    prefix[shoe] = (first_card, counts)
    refill = orders.get(shoe + 1, "") if refill_next else ""
    return LoggedRound(rec, number, line, order, first_card, refill, counts)


def _shown_cards(rec: dict[str, Any]) -> list[str]:
    """Every card of a round record that is face up at its end: the players' hands (a split seat's hands,
    a card a Changer took away) and the dealer's cards as the record gives them."""
    out: list[str] = []
    for p in rec.get("players", []):
        hands = p.get("hands")
        if hands:
            for h in hands:
                out += list(h["cards"])
        else:
            out += list(p["cards"])
        out += list(p.get("changed", ""))
    dealer = str(rec.get("dealer", ""))
    if rec.get("dealer_shown") is False and len(dealer) >= 2:  # the Monte Carlo report hides it after a bust
        dealer = dealer[0]
    return out + list(dealer)
