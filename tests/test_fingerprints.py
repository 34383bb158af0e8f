"""Code fingerprints and when a pair is flagged: the winnowing guarantee, the noise threshold, common code, the
flag lines, and the false-flag rate of independent strategies (from a mutation audit, issue 22 item 14).

The documented figures are written out here (12-token k-grams, windows of 8: every shared run of 19 tokens is
found, none of 11; common code is in more than max(10, 10%) of the files; a code flag needs 10 fingerprints in
common), so a changed constant fails a test instead of moving the test along with it.
"""

from __future__ import annotations

import hashlib
import math
import random

import pytest

from twentyone.grading.similarity import fingerprints
from twentyone.grading.similarity.behaviour import PairPlay
from twentyone.grading.config import Similarity
from twentyone.grading.similarity.fingerprints import CodeScore, Source, Token, code_scores, common_prints
from twentyone.grading.similarity.pairs import build, code_flagged
from twentyone.grading.similarity.traces import REFERENCES, TraceRound

#: What the README promises: every match of this many tokens or more is found ...
FOUND = 19
#: ... and a run shorter than a k-gram (12 tokens) is never seen.
UNSEEN = 11


def _tokens(kinds: list[str]) -> list[Token]:
    return [Token(k, i, i + 1) for i, k in enumerate(kinds)]


def _prints(kinds: list[str]) -> set[int]:
    """The winnowed fingerprints of one unit of tokens of the given kinds."""
    return fingerprints._winnow(fingerprints._grams([_tokens(kinds)]))


def _filler(rng: random.Random, tag: str, n: int) -> list[str]:
    """``n`` tokens of kinds no other filler and no shared run uses."""
    return [f"{tag}{rng.randrange(40)}" for _ in range(n)]


@pytest.mark.parametrize("seed", range(6))
def test_every_shared_run_of_19_tokens_is_found(seed: int) -> None:
    """Winnowing's guarantee: two files that share a run of 19 tokens (k-grams of 12, windows of 8), at any place
    in each, always share a fingerprint."""
    rng = random.Random(seed)
    for _ in range(60):
        shared = _filler(rng, "z", FOUND)
        a = _filler(rng, "a", rng.randrange(0, 60)) + shared + _filler(rng, "a", rng.randrange(0, 60))
        b = _filler(rng, "b", rng.randrange(0, 60)) + shared + _filler(rng, "b", rng.randrange(0, 60))
        assert _prints(a) & _prints(b), (len(a), len(b))


def test_runs_shorter_than_a_k_gram_are_never_seen() -> None:
    """The noise threshold: files that share only runs of 11 tokens (many of them) share no fingerprint."""
    rng = random.Random(3)
    for _ in range(40):
        runs = [_filler(rng, f"z{k}_", UNSEEN) for k in range(8)]
        a = [t for r in runs for t in _filler(rng, "a", 5) + r]
        b = [t for r in reversed(runs) for t in _filler(rng, "b", 7) + r]
        assert not _prints(a) & _prints(b)


def test_winnowing_keeps_every_windows_minimum() -> None:
    """The fingerprints of a run are the minimum of each window of 8 k-grams (of the whole run when shorter),
    however the minima repeat."""
    rng = random.Random(11)
    for n in (1, 5, 8, 9, 30, 200):
        for _ in range(20):
            run = [rng.randrange(6) for _ in range(n)]  # few values: ties everywhere
            want = {min(run[i:i + 8]) for i in range(max(1, n - 7))}
            assert fingerprints._winnow(run) == want


def _source(name: str, prints: set[int]) -> Source:
    return Source(name, "c", "", [], [], set(prints))


def test_common_code_is_code_in_more_than_a_tenth_of_the_files() -> None:
    """In a class of 100, a fingerprint in 11 files is common code (left out), one in 10 files is not; in a class
    of 20 the floor of 10 files holds."""
    hundred = [_source(f"s{k}", {1000 + k} | ({7} if k < 11 else set()) | ({8} if k < 10 else set()))
               for k in range(100)]
    common = common_prints(hundred)
    assert 7 in common and 8 not in common
    scores = code_scores(hundred)
    assert (0, 1) in scores and scores[(0, 1)].shared == 1  # 8 counts, 7 does not
    twenty = [_source(f"s{k}", {9} if k < 11 else {10} if k < 21 else set()) for k in range(20)]
    assert common_prints(twenty) == {9}


def test_a_code_flag_needs_ten_fingerprints_in_common() -> None:
    """A code score at the flag line is flagged with 10 fingerprints in common, not with 9."""
    s = Similarity()
    assert code_flagged(CodeScore(10, 10, 10), s) and not code_flagged(CodeScore(9, 9, 9), s)
    assert not code_flagged(CodeScore(10, 30, 30), s)  # 0.33: below the 0.5 line


def test_a_high_score_without_a_significant_sign_test_is_not_flagged() -> None:
    """Agreement 12 points above the best reference on 20 decisions: the sign test (2 against 0) is not
    significant, so the pair is not flagged on play."""
    p = PairPlay(compared=20, agreed=20, reference="basic", side=0, reference_agreed=18, wins=2, losses=0, p=0.25)
    assert p.score >= 0.05 and not p.flagged(0.05, 0.01)
    assert PairPlay(40, 40, "basic", 0, 30, 10, 0, 2 ** -10).flagged(0.05, 0.01)


BASIC = 1 << REFERENCES.index("basic")
STAND = 1 << REFERENCES.index("stand")


def _rounds(actions: list[tuple[str, int]]) -> dict[tuple[int, int], list[TraceRound]]:
    """One traced match: a round per (action, agreement mask), all in the same situations for every player."""
    return {(7, 1): [TraceRound(1, 5 * r, r, (1000, 1000), 10, "T", "T7", a, (0, mask))
                     for r, (a, mask) in enumerate(actions, 1)]}


def test_the_sign_test_level_is_divided_by_the_pairs_compared() -> None:
    """A pair that agrees on 10 decisions no reference explains (p = 2^-10, about 0.001) is flagged alone, and not
    among 45 pairs compared, where the level is 0.01 / 45."""
    pair = [("s", STAND)] * 30 + [("h", 0)] * 10
    alone = build(["a", "b"], [], {"a": _rounds(pair), "b": _rounds(pair)}, Similarity(), "two")
    assert [(r.a, r.b) for r in alone.flagged()] == [("a", "b")] and alone.compared == 1
    others = {f"x{k}": {(7, 1): [TraceRound(1, 5 * r, r, (1000, 1000), 20 + k, "T", "T7", "s", (0, STAND))
                                 for r in range(1, 41)]} for k in range(8)}
    crowd = build(["a", "b", *others], [], {"a": _rounds(pair), "b": _rounds(pair), **others}, Similarity(), "ten")
    assert crowd.compared == 45 and not crowd.flagged()
    row = next(r for r in crowd.pairs if {r.a, r.b} == {"a", "b"})
    assert row.play is not None and row.play.score >= 0.05 and 0.01 / 45 < row.play.p <= 0.01


def _coin(*key: object) -> int:
    return hashlib.blake2b(repr(key).encode(), digest_size=1).digest()[0] & 1


def _random_chart(student: int, cls: int, rounds: int = 100) -> dict[tuple[int, int], list[TraceRound]]:
    """The traces of a strategy that answers each situation (round, the decisions so far) by a coin of its own,
    beside a basic chart that does the same by another coin: independent of every other student."""
    out = {}
    for slot in ((7, 1), (7, 2)):
        rs = []
        for r in range(1, rounds + 1):
            path, agree = "", [0]
            while len(path) < 3:
                c = "hs"[_coin("student", cls, student, slot, r, path)]
                agree.append(BASIC if c == "hs"[_coin("basic", cls, slot, r, path)] else 0)
                path += c
                if c == "s":
                    break
            rs.append(TraceRound(1, 5 * r, r, (1000, 1000), 10, "T", "T7" + "5" * path.count("h"), path,
                                 tuple(agree)))
        out[slot] = rs
    return out


@pytest.mark.slow
def test_independent_strategies_are_flagged_at_most_at_the_documented_rate() -> None:
    """Classes of 20 independent strategies (each its own coin per situation): the chance that a class has any
    pair flagged on play is at most similarity.behaviour_alpha (0.01), within three standard errors."""
    alpha, classes = 0.01, 40
    flagged = 0
    for cls in range(classes):
        traces = {f"s{i}": _random_chart(i, cls) for i in range(20)}
        report = build(list(traces), [], traces, Similarity(behaviour_alpha=alpha), "independent")
        assert report.compared == 190
        flagged += bool(report.flagged())
    limit = alpha + 3 * math.sqrt(alpha * (1 - alpha) / classes)
    assert flagged / classes <= limit, f"{flagged} of {classes} classes flagged (limit {limit:.3f})"
