"""Behaviour similarity: the decisions two submissions made in the same situations, weighed against the
decisions of a family of reference strategies.

Every submission plays its traced matches on the same seeds and seats against ``stand``
(``grading.traces``).  Two submissions are in **the same situation** when, in the same match (seed and
seat), a round starts in the same shoe after the same cards, at the same round number, with the same money
at every seat: they have seen the same cards and the match stands the same.  There they are compared
decision by decision (the bet, then each action) until their first difference: after it their hands, and
the cards still to come, differ.  (Two strategies that play alike stay together for whole matches; they
can also meet again after parting.)

For one pair, over the ``n`` decisions compared:

- ``agreement``: the share of identical decisions;
- ``reference``: the best agreement that either submission has with any one reference strategy over the
  very same decisions (each reference was asked in that submission's own situation while it played);
- the **behaviour score** is ``agreement - reference``: how much better the two explain each other than the
  best reference explains either.  Two students who both play the basic chart, always stand, or hit below
  17 agree with each other, but no better than with that reference: score about 0;
- the **sign test**: on the decisions where "the two agree" and "the best submission agrees with the best
  reference" differ, each way is equally likely when the reference explains the pair as well as the pair
  explains itself.  ``p`` is the one-sided binomial tail of the decisions that go the pair's way.

A pair is flagged when its score is at least ``margin`` (clearly more) and ``p`` is at most ``alpha``
divided by the number of pairs compared (Bonferroni): evidence for a person to weigh, not a verdict.
Decisions where the two made the same choice and no reference makes it (``unusual``) are the sample a
person looks at first.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from twentyone.grading.similarity.traces import REFERENCES, TraceRound

__all__ = ["FLAT_BETTORS", "Slot", "Key", "Play", "Decision", "PairPlay", "Comparison", "plays_of", "compare_plays",
           "sign_test", "Situations", "decision_tokens", "pairs_met"]

#: One traced match: its seed and the submission's seat.
Slot = tuple[int, int]


@dataclass(frozen=True)
class Decision:
    """Where a decision of one submission is: its match, its round, and its place in the round (0 = the bet)."""

    slot: Slot
    round: TraceRound
    j: int


#: The situation a round starts in, within one match: (shoe, cards dealt, round, money).
Key = tuple[int, int, int, tuple[int, ...]]


@dataclass
class Play:
    """One submission's traced decisions, laid end to end."""

    name: str
    #: Each decision's choice: the bet as a number, or the action character.
    choices: list[str]
    #: Each decision's agreement bits (``TraceRound.agree``).
    agree: np.ndarray
    #: The rounds in order, with their match, and the index of each round's first decision.
    rounds: list[tuple[Slot, TraceRound]]
    first: list[int]
    #: The first decision of each round and its number of decisions, by (match, situation).
    starts: dict[tuple[Slot, Key], tuple[int, int]]
    #: Decisions in agreement with each reference, in ``REFERENCES`` order.
    with_reference: list[int] = field(default_factory=list)
    #: The bet it makes most often: the stake the flat-betting references are taken to bet.
    stake: int | None = None
    #: The situation each of its traced matches began in: two plays that share one met (in a grade, every two that
    #: played a traced match in common).
    openings: frozenset[tuple[Slot, Key]] = frozenset()
    #: Each situation of ``starts`` (in its order) as integers: the match's number in ``plays_of``, the shoe, the
    #: cards dealt, the round, each seat's money.
    table: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        """Decisions traced."""
        return len(self.choices)

    def where(self, i: int) -> Decision:
        """Where decision ``i`` was made."""
        k = bisect_right(self.first, i) - 1
        slot, r = self.rounds[k]
        return Decision(slot, r, i - self.first[k])

    def closest(self) -> tuple[str, float]:
        """The reference this submission agrees with most, and the share of its decisions they agree on."""
        if not self.choices:
            return "", 0.0
        best = max(range(len(REFERENCES)), key=lambda r: self.with_reference[r])
        return REFERENCES[best], self.with_reference[best] / len(self.choices)


def _bits(agree: np.ndarray) -> np.ndarray:
    """One column per reference: 1 where the decision agrees with it."""
    return ((agree[:, None] >> np.arange(len(REFERENCES), dtype=np.int64)) & 1).astype(np.int32)


#: The references that always bet the minimum: they are taken to bet a submission's usual stake instead.
FLAT_BETTORS = frozenset(r for r in REFERENCES if r not in ("hilo", "champion"))
_FLAT = sum(1 << REFERENCES.index(r) for r in FLAT_BETTORS)


def _usual_stake(by_slot: Mapping[Slot, Sequence[TraceRound]]) -> int | None:
    """The bet a submission makes most often (None if it made none)."""
    counts: dict[int, int] = defaultdict(int)
    for rounds in by_slot.values():
        for r in rounds:
            if r.bet is not None:
                counts[r.bet] += 1
    return max(counts, key=lambda b: (counts[b], -b)) if counts else None


def plays_of(traces: Mapping[str, Mapping[Slot, Sequence[TraceRound]]]) -> list[Play]:
    """Each submission's traces (by name, then by match) laid out for comparing.

    The size of a flat bet is a scale, not a strategy: the references that always bet the minimum
    (``FLAT_BETTORS``) are taken to bet the submission's usual stake, so a student who bets 20 every round and
    hits below 15 agrees with "hit below 15" on every decision.
    """
    out = []
    slots: dict[Slot, int] = {}
    for name, by_slot in traces.items():
        choices: list[str] = []
        masks: list[int] = []
        rounds: list[tuple[Slot, TraceRound]] = []
        first: list[int] = []
        starts: dict[tuple[Slot, Key], tuple[int, int]] = {}
        table: list[tuple[int, ...]] = []
        stake = _usual_stake(by_slot)
        for slot in sorted(by_slot):
            for r in by_slot[slot]:
                here = len(choices)
                span = (here, len(r.agree))
                if starts.setdefault((slot, r[:4]), span) is span:  # r[:4]: r.key, as one slice
                    table.append((slots.setdefault(slot, len(slots)), *r[:3], *r.money))
                rounds.append((slot, r))
                first.append(here)
                choices.append("?" if r.bet is None else str(r.bet))  # r.choices(), without a list of its own
                choices.extend(r.actions)
                said = r.agree
                masks.append(said[0] & ~_FLAT | (_FLAT if r.bet is not None and r.bet == stake else 0))
                masks.extend(said[1:])
        agree = np.array(masks, dtype=np.int64)
        counts = [int(c) for c in _bits(agree).sum(axis=0)] if masks else [0] * len(REFERENCES)
        opened = frozenset((slot, by_slot[slot][0].key) for slot in by_slot if by_slot[slot])
        out.append(Play(name, choices, agree, rounds, first, starts, counts, stake, opened, table))
    return out


class Situations:
    """The situations the plays reached, numbered, for ``decision_tokens`` and the rows of given pairs: for each play,
    the number of each situation it began a round in (sorted), that round's first decision, its number of
    decisions, and its decisions as numbers, one row per round (-1 past its end)."""

    def __init__(self, plays: Sequence[Play]) -> None:
        codes: dict[str, int] = {}
        self.sid: list[np.ndarray] = []
        self.start: list[np.ndarray] = []
        self.length: list[np.ndarray] = []
        self.decided: list[np.ndarray] = []
        self.width = max((max(n for _, n in p.starts.values()) for p in plays if p.starts), default=0)
        cols = np.arange(self.width)
        for p, sid in zip(plays, _numbered(plays)):
            spans = np.array(list(p.starts.values()), dtype=np.int64).reshape(-1, 2)
            order = np.argsort(sid, kind="stable")
            start, length = spans[order, 0], spans[order, 1]
            self.sid.append(sid[order])
            self.start.append(start)
            self.length.append(length)
            flat = np.array([codes.setdefault(c, len(codes)) for c in p.choices] or [-1], dtype=np.int64)
            at = np.minimum(start[:, None] + cols[None, :], len(flat) - 1)
            self.decided.append(np.where(cols[None, :] < length[:, None], flat[at], -1))
        self.count = max((int(sid.max()) + 1 for sid in self.sid if len(sid)), default=0)


def _numbered(plays: Sequence[Play]) -> list[np.ndarray]:
    """The number of each situation of each play's ``starts`` (in its order), the same number for the same situation
    of every play: the situations' rows of integers (``Play.table``) numbered by one sort of all of them."""
    seats = max((len(row) for p in plays for row in p.table), default=0)
    pad = {n: (-1,) * (seats - n) for n in range(seats + 1)}
    tables = [np.array([row + pad[len(row)] if len(row) < seats else row for row in p.table],
                       dtype=np.int64).reshape(-1, seats) for p in plays]
    if not seats or not sum(len(t) for t in tables):
        return [np.zeros(len(p.starts), dtype=np.int64) for p in plays]
    every = np.concatenate(tables)
    order = np.lexsort(every.T[::-1])
    ranked = every[order]
    number = np.empty(len(every), dtype=np.int64)
    number[order] = np.concatenate(([0], np.cumsum(np.any(ranked[1:] != ranked[:-1], axis=1))))
    return np.split(number, np.cumsum([len(t) for t in tables])[:-1])


def decision_tokens(plays: Sequence[Play], at: Situations) -> tuple[list[list[int]], list[list[int]]]:
    """Each play's decisions as numbers, for ``candidates``: (those its own closest reference does not make, those
    of all its decisions that some play's first list holds).  A number stands for (situation, the round's choices
    up to and including the decision): two plays have the same number exactly where they agreed on that decision
    in the same situation."""
    ids: dict[tuple[int, tuple[str, ...]], int] = {}
    where: dict[int, list[tuple[tuple[str, ...], int]]] = defaultdict(list)  # situation: its unusual prefixes
    unusual: list[list[int]] = []
    for i, p in enumerate(plays):
        odd: list[int] = []
        if p.choices:
            bit = 1 << max(range(len(REFERENCES)), key=lambda r: p.with_reference[r])
            off = np.flatnonzero((p.agree & bit) == 0)
            if len(off):
                order = np.argsort(at.start[i], kind="stable")
                starts = at.start[i][order]
                k = np.searchsorted(starts, off, side="right") - 1
                for t, row in zip(off.tolist(), order[k].tolist()):
                    sid, s0 = int(at.sid[i][row]), int(at.start[i][row])
                    prefix = tuple(p.choices[s0:t + 1])
                    token = ids.get((sid, prefix))
                    if token is None:
                        token = ids[(sid, prefix)] = len(ids)
                        where[sid].append((prefix, token))
                    odd.append(token)
        unusual.append(odd)
    some = np.zeros(at.count, dtype=bool)  # the situations where some play made an unusual decision
    some[list(where)] = True
    made: list[list[int]] = []
    for i, p in enumerate(plays):
        mine: list[int] = []
        for r in np.flatnonzero(some[at.sid[i]]).tolist():
            s0 = int(at.start[i][r])
            for prefix, token in where[int(at.sid[i][r])]:
                if tuple(p.choices[s0:s0 + len(prefix)]) == prefix:
                    mine.append(token)
        made.append(mine)
    return unusual, made


def pairs_met(plays: Sequence[Play]) -> int:
    """How many pairs of ``plays`` began a traced match in the same situation (``Play.openings``), counted by the
    plays' sets of openings, without listing the pairs."""
    by: dict[frozenset[tuple[Slot, Key]], int] = defaultdict(int)
    for p in plays:
        by[p.openings] += 1
    groups = [(o, c) for o, c in by.items() if o]
    total = 0
    for x, (o, c) in enumerate(groups):
        total += c * (c - 1) // 2
        total += sum(c * c2 for o2, c2 in groups[x + 1:] if o & o2)
    return total


def sign_test(wins: int, losses: int) -> float:
    """One-sided exact sign test: P(at least ``wins`` of ``wins + losses`` fair coin tosses)."""
    n = wins + losses
    if n == 0 or wins == 0:
        return 1.0
    if wins * 2 <= n:
        return 1.0 if wins * 2 < n else 0.5 + 0.5 * math.exp(_log_comb(n, wins) - n * math.log(2))
    logs = [_log_comb(n, k) - n * math.log(2) for k in range(wins, n + 1)]
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(x - top) for x in logs))


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


@dataclass
class PairPlay:
    """What two submissions' decisions in the same situations show."""

    #: Decisions compared, and those identical.
    compared: int
    agreed: int
    #: The reference that explains one of the two best over these decisions, which one (0 first, 1 second) and
    #: the decisions they agree on.
    reference: str
    side: int
    reference_agreed: int
    #: The sign test's decisions: the pair agrees but the reference does not (``wins``), and the other way.
    wins: int
    losses: int
    p: float
    #: Decisions where the two made the same choice and no reference makes it: how many, and a sample
    #: (indices into each ``Play``).  Filled in by ``Comparison.detail`` for the pairs shown.
    unusual: int = 0
    sample: list[tuple[int, int]] = field(default_factory=list)
    #: How many of the unusual shared choices are bets (the rest are actions).
    unusual_bets: int = 0

    @property
    def agreement(self) -> float:
        """The share of identical decisions."""
        return self.agreed / self.compared if self.compared else 0.0

    @property
    def reference_agreement(self) -> float:
        """The best agreement of either with any reference, over the same decisions."""
        return self.reference_agreed / self.compared if self.compared else 0.0

    @property
    def score(self) -> float:
        """The behaviour score: agreement with each other minus the best agreement with a reference."""
        return self.agreement - self.reference_agreement

    def flagged(self, margin: float, alpha: float) -> bool:
        """Clearly more agreement than any reference explains: score >= ``margin`` and p <= ``alpha``."""
        return self.compared > 0 and self.score >= margin and self.p <= alpha


#: Unusual shared choices kept per pair for its page.
SAMPLE = 20


@dataclass
class Comparison:
    """Every pair of plays that met in a situation, and the stretches compared (kept for ``detail``)."""

    plays: Sequence[Play]
    pairs: dict[tuple[int, int], PairPlay]
    #: One row per pair and round compared: the pair's index in ``order``, each play's first decision of the
    #: stretch, its length and whether it ends on a difference.
    _pair: np.ndarray
    _sa: np.ndarray
    _sb: np.ndarray
    _n: np.ndarray
    _d: np.ndarray
    order: list[tuple[int, int]]

    def __post_init__(self) -> None:
        self._index = {key: k for k, key in enumerate(self.order)}
        self._rows = np.argsort(self._pair, kind="stable")  # the rows of each pair, together
        self._bounds = np.searchsorted(self._pair[self._rows], np.arange(len(self.order) + 1))

    def detail(self, i: int, j: int) -> PairPlay:
        """``pairs[(i, j)]`` with its unusual shared choices counted and sampled."""
        p = self.pairs[(i, j)]
        k = self._index[(i, j)]
        rows = self._rows[self._bounds[k]:self._bounds[k + 1]]
        rows = rows[np.argsort(self._sa[rows], kind="stable")]  # in the first play's order: the sample is its earliest
        a, b = self.plays[i], self.plays[j]
        # every decision the two agreed on, row by row: its place in the row (t) and in each play
        agreed = self._n[rows] - self._d[rows]
        t = np.arange(int(agreed.sum()), dtype=np.int64) - np.repeat(np.cumsum(agreed) - agreed, agreed)
        at_a, at_b = np.repeat(self._sa[rows], agreed) + t, np.repeat(self._sb[rows], agreed) + t
        odd = np.flatnonzero((a.agree[at_a] == 0) & (b.agree[at_b] == 0))
        found = [(int(at_a[x]), int(at_b[x])) for x in odd[:SAMPLE]]  # a stretch starts at a round's bet: t == 0
        found.sort(key=lambda x: (a.where(x[0]).slot, x[0]))
        p.unusual, p.sample, p.unusual_bets = len(odd), found, int((t[odd] == 0).sum())
        return p


@lru_cache(maxsize=256)
def _pairs_of(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of ``m`` members, as two index arrays."""
    iu, ju = np.triu_indices(m, 1)
    return iu, ju


def compare_plays(plays: Sequence[Play], pairs: Iterable[tuple[int, int]] | None = None,
                  at: Situations | None = None) -> Comparison:
    """Every pair (i, j), i < j, of ``plays`` that met in at least one situation; with ``pairs``, only those
    of them (the candidates of a large class, ``candidates``).

    Rounds meet by (match, situation); within a round two plays are compared decision by decision up to and
    including their first difference.  The sums run on arrays (one row per pair and round compared), so a
    class of 200 is compared in seconds.
    """
    offsets = np.cumsum([0] + [p.decisions for p in plays])
    parts = _all_rows(plays, offsets) if pairs is None else _pair_rows(plays, offsets, pairs, at or Situations(plays))
    empty = np.zeros(0, dtype=np.int64)
    if not parts:
        return Comparison(plays, {}, empty, empty, empty, empty, empty, [])
    a, b, sa, sb, n, d = (np.concatenate([p[c] for p in parts]) for c in range(6))
    return _aggregate(plays, offsets, a, b, sa, sb, n, d)


def _stretches(seqs: Sequence[tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """For every two of ``seqs`` (a round's decisions, one per play): the decisions compared (up to and including
    the first difference) and whether they end on a difference."""
    nk = len(seqs)
    nn = np.zeros((nk, nk), dtype=np.int64)
    dd = np.zeros((nk, nk), dtype=np.int64)
    for x in range(nk):
        for y in range(x, nk):
            upto = min(len(seqs[x]), len(seqs[y]))
            first = next((t for t in range(upto) if seqs[x][t] != seqs[y][t]), None)
            nn[x, y] = nn[y, x] = upto if first is None else first + 1
            dd[x, y] = dd[y, x] = 0 if first is None else 1
    return nn, dd


def _all_rows(plays: Sequence[Play], offsets: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """The rows of every pair that met: each situation's members, two by two."""
    groups: dict[tuple[Slot, Key], list[int]] = defaultdict(list)
    for i, p in enumerate(plays):
        for key in p.starts:
            groups[key].append(i)
    parts: list[tuple[np.ndarray, ...]] = []
    for key, members in groups.items():
        m = len(members)
        if m < 2:
            continue
        spans = [plays[i].starts[key] for i in members]
        starts = [s0 for s0, _ in spans]
        kinds: dict[tuple[str, ...], int] = {}
        kind_of = []
        for i, (s0, length) in zip(members, spans):
            kind_of.append(kinds.setdefault(tuple(plays[i].choices[s0:s0 + length]), len(kinds)))
        nn, dd = _stretches(list(kinds))
        iu, ju = _pairs_of(m)
        who = np.array(members, dtype=np.int64)
        at = np.array(starts, dtype=np.int64) + offsets[who]
        kind = np.array(kind_of, dtype=np.int64)
        parts.append((who[iu], who[ju], at[iu], at[ju], nn[kind[iu], kind[ju]], dd[kind[iu], kind[ju]]))
    return parts


def _pair_rows(plays: Sequence[Play], offsets: np.ndarray, pairs: Iterable[tuple[int, int]],
               at: Situations) -> list[tuple[np.ndarray, ...]]:
    """The rows of the given pairs only: the situations each two share, each compared up to and including the
    first difference (``_stretches``, on whole arrays), one play's partners at a time."""
    partners: dict[int, list[int]] = defaultdict(list)
    for i, other in pairs:
        partners[i].append(other)
    parts: list[tuple[np.ndarray, ...]] = []
    cols = np.arange(at.width)
    for i in sorted(partners):
        js = sorted(partners[i])
        mine = at.sid[i]
        if not len(mine):
            continue
        theirs = np.concatenate([at.sid[j] for j in js])
        who = np.repeat(np.array(js, dtype=np.int64), [len(at.sid[j]) for j in js])
        row = np.concatenate([np.arange(len(at.sid[j])) for j in js])
        k = np.minimum(np.searchsorted(mine, theirs), len(mine) - 1)
        hit = np.flatnonzero(mine[k] == theirs)
        if not len(hit):
            continue
        x, j, y = k[hit], who[hit], row[hit]  # the row of play i, the partner, the partner's row
        lj = np.concatenate([at.length[q] for q in js])[hit]
        sj = np.concatenate([at.start[q] for q in js])[hit]
        dj = np.concatenate([at.decided[q] for q in js])[hit]
        upto = np.minimum(at.length[i][x], lj)
        differ = (at.decided[i][x] != dj) & (cols[None, :] < upto[:, None])
        d = differ.any(axis=1)
        n = np.where(d, differ.argmax(axis=1) + 1, upto)
        order = np.lexsort((y, j))  # partner by partner, each in its situations' order
        parts.append((np.full(len(hit), i, dtype=np.int64), j[order], (at.start[i][x] + offsets[i])[order],
                      (sj + offsets[j])[order], n[order].astype(np.int64), d[order].astype(np.int64)))
    return parts


def _aggregate(plays: Sequence[Play], offsets: np.ndarray, a: np.ndarray, b: np.ndarray, sa: np.ndarray,
               sb: np.ndarray, n: np.ndarray, d: np.ndarray) -> Comparison:
    """Each pair's sums over its rows: the decisions compared and agreed, and the best reference's."""
    empty = np.zeros(0, dtype=np.int64)
    ids, pair = np.unique(a * len(plays) + b, return_inverse=True)
    count = len(ids)
    masks = np.concatenate([p.agree for p in plays]) if plays else empty
    compared = np.bincount(pair, weights=n, minlength=count)
    agreed = np.bincount(pair, weights=n - d, minlength=count)
    # per pair and reference: decisions where the two agree and the reference agrees with that side
    # (``same``), and where the two differ and it agrees (``diff``: the last decision of a stretch)
    last_a, last_b = np.maximum(sa + n - 1, 0), np.maximum(sb + n - 1, 0)
    end_a, end_b = sa + n - d, sb + n - d
    with_same = np.zeros((count, 2 * len(REFERENCES)))
    with_diff = np.zeros((count, 2 * len(REFERENCES)))
    cum = np.zeros(len(masks) + 1, dtype=np.int32)
    for r in range(len(REFERENCES)):  # a reference at a time: a class of 200 has millions of decisions and rows
        bit = ((masks >> r) & 1).astype(np.int32)
        np.cumsum(bit, out=cum[1:])
        for side, (start, end, last) in enumerate(((sa, end_a, last_a), (sb, end_b, last_b))):
            col = side * len(REFERENCES) + r
            with_same[:, col] = np.bincount(pair, weights=cum[end] - cum[start], minlength=count)
            with_diff[:, col] = np.bincount(pair, weights=bit[last] * d, minlength=count)
    best = np.argmax(with_same + with_diff, axis=1)
    order = [(int(x // len(plays)), int(x % len(plays))) for x in ids]
    out: dict[tuple[int, int], PairPlay] = {}
    for k, ij in enumerate(order):
        col = int(best[k])
        ref_agreed = int(with_same[k, col] + with_diff[k, col])
        wins = int(agreed[k] - with_same[k, col])
        losses = int(with_diff[k, col])
        out[ij] = PairPlay(int(compared[k]), int(agreed[k]), REFERENCES[col % len(REFERENCES)],
                            col // len(REFERENCES), ref_agreed, wins, losses, sign_test(wins, losses))
    return Comparison(plays, out, pair, sa - offsets[a], sb - offsets[b], n, d, order)
