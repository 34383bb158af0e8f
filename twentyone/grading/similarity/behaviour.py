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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from twentyone.grading.similarity.traces import REFERENCES, TraceRound

__all__ = ["FLAT_BETTORS", "Slot", "Key", "Play", "Decision", "PairPlay", "Comparison", "plays_of", "compare_plays",
           "sign_test"]

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
    for name, by_slot in traces.items():
        choices: list[str] = []
        masks: list[int] = []
        rounds: list[tuple[Slot, TraceRound]] = []
        first: list[int] = []
        starts: dict[tuple[Slot, Key], tuple[int, int]] = {}
        stake = _usual_stake(by_slot)
        for slot in sorted(by_slot):
            for r in by_slot[slot]:
                starts.setdefault((slot, r.key), (len(choices), len(r.agree)))
                rounds.append((slot, r))
                first.append(len(choices))
                choices += r.choices()
                bet = r.agree[0] & ~_FLAT | (_FLAT if r.bet is not None and r.bet == stake else 0)
                masks += (bet, *r.agree[1:])
        agree = np.array(masks, dtype=np.int64)
        counts = [int(c) for c in _bits(agree).sum(axis=0)] if masks else [0] * len(REFERENCES)
        out.append(Play(name, choices, agree, rounds, first, starts, counts, stake))
    return out


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
        a, b = self.plays[i], self.plays[j]
        found: list[tuple[int, int]] = []
        count = bets = 0
        for k in rows:
            sa, sb, n = int(self._sa[k]), int(self._sb[k]), int(self._n[k] - self._d[k])
            for t in range(n):
                if a.agree[sa + t] == 0 and b.agree[sb + t] == 0:
                    count += 1
                    bets += t == 0  # a stretch starts at a round's bet
                    if len(found) < SAMPLE:
                        found.append((sa + t, sb + t))
        found.sort(key=lambda x: (a.where(x[0]).slot, x[0]))
        p.unusual, p.sample, p.unusual_bets = count, found, bets
        return p


@lru_cache(maxsize=256)
def _pairs_of(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of ``m`` members, as two index arrays."""
    iu, ju = np.triu_indices(m, 1)
    return iu, ju


def compare_plays(plays: Sequence[Play]) -> Comparison:
    """Every pair (i, j), i < j, of ``plays`` that met in at least one situation.

    Rounds meet by (match, situation); within a round two plays are compared decision by decision up to and
    including their first difference.  The sums run on arrays (one row per pair and round compared), so a
    class of 200 is compared in seconds.
    """
    groups: dict[tuple[Slot, Key], list[int]] = defaultdict(list)
    for i, p in enumerate(plays):
        for key in p.starts:
            groups[key].append(i)
    offsets = np.cumsum([0] + [p.decisions for p in plays])
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
        seqs = list(kinds)
        nk = len(seqs)
        nn = np.zeros((nk, nk), dtype=np.int64)
        dd = np.zeros((nk, nk), dtype=np.int64)
        for x in range(nk):
            for y in range(x, nk):
                upto = min(len(seqs[x]), len(seqs[y]))
                first = next((t for t in range(upto) if seqs[x][t] != seqs[y][t]), None)
                nn[x, y] = nn[y, x] = upto if first is None else first + 1
                dd[x, y] = dd[y, x] = 0 if first is None else 1
        iu, ju = _pairs_of(m)
        who = np.array(members, dtype=np.int64)
        at = np.array(starts, dtype=np.int64) + offsets[who]
        kind = np.array(kind_of, dtype=np.int64)
        parts.append((who[iu], who[ju], at[iu], at[ju], nn[kind[iu], kind[ju]], dd[kind[iu], kind[ju]]))
    empty = np.zeros(0, dtype=np.int64)
    if not parts:
        return Comparison(plays, {}, empty, empty, empty, empty, empty, [])
    a, b, sa, sb, n, d = (np.concatenate([p[c] for p in parts]) for c in range(6))
    ids, pair = np.unique(a * len(plays) + b, return_inverse=True)
    count = len(ids)
    masks = np.concatenate([p.agree for p in plays]) if plays else empty
    bits = _bits(masks)
    cum = np.vstack([np.zeros((1, len(REFERENCES)), dtype=np.int64), np.cumsum(bits, axis=0)])
    compared = np.bincount(pair, weights=n, minlength=count)
    agreed = np.bincount(pair, weights=n - d, minlength=count)
    # per pair and reference: decisions where the two agree and the reference agrees with that side
    # (``same``), and where the two differ and it agrees (``diff``: the last decision of a stretch)
    last_a, last_b = np.maximum(sa + n - 1, 0), np.maximum(sb + n - 1, 0)
    with_same = np.zeros((count, 2 * len(REFERENCES)))
    with_diff = np.zeros((count, 2 * len(REFERENCES)))
    for side, (start, last) in enumerate(((sa, last_a), (sb, last_b))):
        end = start + n - d
        for r in range(len(REFERENCES)):  # a column at a time: a class of 200 has millions of rows
            col = side * len(REFERENCES) + r
            with_same[:, col] = np.bincount(pair, weights=cum[end, r] - cum[start, r], minlength=count)
            with_diff[:, col] = np.bincount(pair, weights=bits[last, r] * d, minlength=count)
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
