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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from twentyone.grading.traces import REFERENCES, TraceRound

__all__ = ["Slot", "Play", "Decision", "PairPlay", "plays_of", "compare_plays", "sign_test"]

#: One traced match: its seed and the submission's seat.
Slot = tuple[int, int]


@dataclass(frozen=True)
class Decision:
    """Where a decision of one submission is: its match, its round, and its place in the round (0 = the bet)."""

    slot: Slot
    round: TraceRound
    j: int


@dataclass
class Play:
    """One submission's traced decisions, laid end to end."""

    name: str
    choices: list[str]
    agree: np.ndarray
    where: list[Decision]
    #: The first decision of each round, by (slot, round key).
    starts: dict[tuple[Slot, tuple[int, int, int, tuple[int, ...]]], int]
    #: Decisions in agreement with each reference, in ``REFERENCES`` order.
    with_reference: list[int] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        """Decisions traced."""
        return len(self.choices)

    def closest(self) -> tuple[str, float]:
        """The reference this submission agrees with most, and the share of its decisions they agree on."""
        if not self.choices:
            return "", 0.0
        best = max(range(len(REFERENCES)), key=lambda r: self.with_reference[r])
        return REFERENCES[best], self.with_reference[best] / len(self.choices)


def plays_of(traces: Mapping[str, Mapping[Slot, Sequence[TraceRound]]]) -> list[Play]:
    """Each submission's traces (by name, then by match) laid out for comparing."""
    out = []
    for name, by_slot in traces.items():
        choices: list[str] = []
        masks: list[int] = []
        where: list[Decision] = []
        starts: dict[tuple[Slot, tuple[int, int, int, tuple[int, ...]]], int] = {}
        for slot in sorted(by_slot):
            for r in by_slot[slot]:
                starts.setdefault((slot, r.key), len(choices))
                for j, (c, m) in enumerate(zip(r.choices(), r.agree)):
                    choices.append(c)
                    masks.append(m)
                    where.append(Decision(slot, r, j))
        agree = np.array(masks, dtype=np.int64)
        counts = [int(((agree >> i) & 1).sum()) for i in range(len(REFERENCES))]
        out.append(Play(name, choices, agree, where, starts, counts))
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
    #: (indices into each ``Play``).
    unusual: int
    sample: list[tuple[int, int]]

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


def compare_plays(plays: Sequence[Play]) -> dict[tuple[int, int], PairPlay]:
    """Every pair (i, j), i < j, of ``plays`` that met in at least one situation."""
    groups: dict[tuple[Slot, tuple[int, int, int, tuple[int, ...]]], list[int]] = defaultdict(list)
    for i, p in enumerate(plays):
        for key in p.starts:
            groups[key].append(i)
    idx_a: dict[tuple[int, int], list[int]] = defaultdict(list)
    idx_b: dict[tuple[int, int], list[int]] = defaultdict(list)
    same: dict[tuple[int, int], list[bool]] = defaultdict(list)
    for key, members in groups.items():
        if len(members) < 2:
            continue
        # members with the same choices in this round agree on all of them: compare each kind once
        kinds: dict[tuple[str, ...], list[int]] = defaultdict(list)
        spans: dict[int, tuple[int, int]] = {}
        for i in members:
            p = plays[i]
            start = p.starts[key]
            r = p.where[start].round
            n = len(r.agree)
            spans[i] = (start, n)
            kinds[tuple(p.choices[start:start + n])].append(i)
        kind_list = list(kinds.items())
        for x, (cx, mx) in enumerate(kind_list):
            for y in range(x, len(kind_list)):
                cy, my = kind_list[y]
                # decisions compared: up to and including the first difference
                upto = min(len(cx), len(cy))
                first = next((t for t in range(upto) if cx[t] != cy[t]), None)
                n = upto if first is None else first + 1
                flags = [True] * n if first is None else [True] * first + [False]
                for a in mx:
                    for b in (my if y != x else ()):
                        _add(a, b, n, flags, spans, idx_a, idx_b, same)
                if y == x:
                    for u in range(len(mx)):
                        for v in range(u + 1, len(mx)):
                            _add(mx[u], mx[v], n, flags, spans, idx_a, idx_b, same)
    out = {}
    for pair, ia in idx_a.items():
        i, j = pair
        out[pair] = _judge(plays[i], plays[j], np.array(ia), np.array(idx_b[pair]), np.array(same[pair], dtype=bool))
    return out


def _add(a: int, b: int, n: int, flags: list[bool], spans: dict[int, tuple[int, int]],
         idx_a: dict[tuple[int, int], list[int]], idx_b: dict[tuple[int, int], list[int]],
         same: dict[tuple[int, int], list[bool]]) -> None:
    if a > b:
        a, b = b, a
    sa, sb = spans[a][0], spans[b][0]
    idx_a[(a, b)] += range(sa, sa + n)
    idx_b[(a, b)] += range(sb, sb + n)
    same[(a, b)] += flags


def _judge(a: Play, b: Play, ia: np.ndarray, ib: np.ndarray, same: np.ndarray) -> PairPlay:
    ma, mb = a.agree[ia], b.agree[ib]
    best = (-1, 0, 0)  # (agreed, side, reference)
    bits = {}
    for side, m in ((0, ma), (1, mb)):
        for r in range(len(REFERENCES)):
            v = ((m >> r) & 1).astype(bool)
            n = int(v.sum())
            bits[(side, r)] = v
            if n > best[0]:
                best = (n, side, r)
    agreed_ref, side, r = best
    v = bits[(side, r)]
    wins = int((same & ~v).sum())
    losses = int((~same & v).sum())
    unusual_mask = same & (ma == 0) & (mb == 0)
    unusual = np.flatnonzero(unusual_mask)
    sample = [(int(ia[k]), int(ib[k])) for k in unusual[:SAMPLE]]
    return PairPlay(len(ia), int(same.sum()), REFERENCES[r], side, agreed_ref, wins, losses, sign_test(wins, losses),
                    len(unusual), sample)
