"""Similarity past a class of 50 (issue 33): only the pairs that could be flagged are scored (``candidates``), and
what the page finds is what scoring every pair finds."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from tests.bench import similarity_class
from tests.test_similarity import HAN, LI, source
from twentyone.grading.config import Similarity
from twentyone.grading.similarity import candidates
from twentyone.grading.similarity.behaviour import sign_test
from twentyone.grading.similarity.candidates import code_need, exact, overlap_pairs, play_need
from twentyone.grading.similarity.pairs import SimilarityReport, build


@pytest.fixture(scope="module")
def class_of_60() -> tuple[list[str], list[Any], dict[str, Any]]:
    """The similarity benchmark's class at 60 (the bench class's code, generated traces, every fifth a copy), and
    a disguised copy of a file among them, by code."""
    names, sources, traces = similarity_class(60)
    extra = [source(LI / "mycodes.c", "李雷"), source(HAN / "mycodes.c", "han_meimei")]
    return names + ["李雷", "han_meimei"], sources + extra, traces


def _both(cls: tuple[list[str], list[Any], dict[str, Any]]) -> tuple[SimilarityReport, SimilarityReport]:
    names, sources, traces = cls
    assert not exact(len(names))
    scored = build(names, sources, traces, Similarity(), "candidates")
    saved = candidates.EXACT_PAIRS
    candidates.EXACT_PAIRS = 10**9  # every pair scored, as a class of 50 is
    try:
        every = build(names, sources, traces, Similarity(), "every pair")
    finally:
        candidates.EXACT_PAIRS = saved
    return scored, every


@pytest.mark.slow
def test_candidates_find_what_scoring_every_pair_finds(class_of_60: tuple[list[str], list[Any], dict[str, Any]]
                                                       ) -> None:
    """A class of 62: the same pairs flagged (on code and on play), in the same order and with the same numbers, as
    when every one of its 1,891 pairs is scored, from far fewer pairs scored; the weaker pairs listed after them are
    the strongest of the candidates."""
    scored, every = _both(class_of_60)
    assert not scored.exact and every.exact
    assert scored.compared == every.compared == 1770  # the 60 with traces met two by two
    flagged = [(p.a, p.b, p.code_flag, p.play_flag) for p in every.flagged()]
    assert [(p.a, p.b, p.code_flag, p.play_flag) for p in scored.flagged()] == flagged
    assert any(c for _, _, c, _ in flagged) and any(f for _, _, _, f in flagged)
    assert ("李雷", "han_meimei", True, False) in flagged
    rows = {(p.a, p.b): p for p in every.pairs}
    both = {(p.a, p.b) for p in scored.listed()} & {(p.a, p.b) for p in every.listed()}
    for p in scored.pairs:
        q = rows[(p.a, p.b)]
        assert (p.code, p.code_flag, p.play_flag) == (q.code, q.code_flag, q.play_flag)
        assert (p.play is None) == (q.play is None)
        if p.play is not None and q.play is not None:
            assert p.play.__dict__ == q.play.__dict__ if (p.a, p.b) in both else (
                (p.play.compared, p.play.agreed, p.play.reference, p.play.side, p.play.wins, p.play.losses, p.play.p) ==
                (q.play.compared, q.play.agreed, q.play.reference, q.play.side, q.play.wins, q.play.losses, q.play.p))
    others = [rows[(p.a, p.b)].strength(every.settings) for p in scored.listed() if not p.flags]
    assert others and all(x > 0 for x in others) and others == sorted(others, reverse=True)
    assert len(scored.pairs) < len(every.pairs) / 4


@pytest.mark.slow
def test_the_pairs_left_out_of_a_large_class_are_counted_without_listing_them(
        class_of_60: tuple[list[str], list[Any], dict[str, Any]]) -> None:
    """Every pair not listed has a reason, counted by kind without listing the pairs; the counts are those of the
    pairs read one by one, and a pair that met but is no candidate says it is no candidate."""
    names, sources, traces = class_of_60
    report = build(names, sources, traces, Similarity(), "reasons")
    unlisted = report.unlisted()
    n = len(names)
    assert len(unlisted) == n * (n - 1) // 2 - len(report.listed())
    every = list(unlisted)
    assert len(every) == len(unlisted) and unlisted[:5] == every[:5] and unlisted[-1] == every[-1]
    assert dict(report.unlisted_counts()) == dict(Counter(kind for _, _, kind, _ in every))
    assert any("no evidence by play (not a candidate pair)" in kind for _, _, kind, _ in every)


def test_overlap_pairs_finds_exactly_the_pairs_sharing_enough() -> None:
    """Prefix filtering finds every (i, j) whose sets share at least i's need, and no other, on random sets."""
    rng = random.Random(7)
    for _ in range(20):
        pool = list(range(rng.randint(60, 200)))
        probe = [rng.sample(pool, rng.randint(0, 30)) for _ in range(25)]
        index = [rng.sample(pool, rng.randint(0, 60)) for _ in range(25)]
        need = [rng.randint(0, 12) for _ in range(25)]
        want = {(i, j): len(set(probe[i]) & set(index[j])) for i in range(25) for j in range(25)
                if i != j and need[i] > 0 and len(set(probe[i]) & set(index[j])) >= need[i]}
        assert overlap_pairs(probe, index, need) == want


def test_the_bounds_the_candidates_rest_on() -> None:
    """A sign test's tail is never below 2^-(wins - losses), so a flag at a level needs that many of one side's
    unusual decisions shared; a code score at the flag line with 10 in common needs ``code_need`` shared."""
    for wins in range(0, 90):
        for losses in range(0, wins):
            assert sign_test(wins, losses) >= 2.0 ** -(wins - losses) * (1 - 1e-12)
    for alpha in (0.01 / 1770, 0.01 / 44850, 0.5, 1e-30):
        k = play_need(alpha)
        assert 2.0 ** -k >= alpha and (k == 1 or 2.0 ** -(k + 1) < alpha)
    rng = random.Random(3)
    for _ in range(2000):
        a, b = rng.randint(1, 400), rng.randint(1, 400)
        shared = rng.randint(0, min(a, b))
        if shared >= 10 and 2 * shared / (a + b) >= 0.5:
            assert shared >= code_need(a, 0.5, 10) and shared >= code_need(b, 0.5, 10)
