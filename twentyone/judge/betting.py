"""Bets toward the target: the bet that maximises the chance of taking the money above 1.3x10^6.

A hand played by the strong solution's decisions off a full 5000-deck shoe ends in a few net results per unit
bet: -2 (a lost double or split), -1, 0, +1/2 .. +3 (a Black Jack's +3/2, a won double's +2, split hands').
``outcome_distributions`` measures their odds by playing a million hands in the engine, for each of the three
ways a hand may be played: doubles and splits allowed (the money left pays a second bet), splits but no double
(a double would only stake more than the target needs), and neither (the money cannot pay a second bet).

``bet_table`` then solves the bet by dynamic programming over the money (in steps of ``UNIT``): V(m), the chance
to win the test from m, is the largest over bets b <= m of sum_d P(d) V(m + d b), with V = 1 above the target
and 0 at nothing (policy iteration from bold play: a few seconds).  The table is the best bet at each step of money.  Off the full
shoe the solution, played by this table, wins a test with a chance of about 0.763 by the model, against 0.741
for a bet of what the target needs (bold play): the table bets less, to let a Black Jack's 3:2 and a double
reach the target.

The distributions and the table are kept in ``data/bets.json``, which ``judge.bets`` reads for the strong solution;
``python -m twentyone.judge.betting`` makes it again (about a minute).  ``tests/test_judge_strong.py`` checks the table is the one the kept distributions give,
and the distributions against a fresh sample of hands.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from twentyone.judge.bets import STEPS, TABLE_FILE, UNIT, load, table_bet
from twentyone.judge.game import START_MONEY

__all__ = ["UNIT", "STEPS", "PLAYS", "outcome_distributions", "bet_table", "table_bet", "load", "TABLE_FILE",
           "model_values"]

#: The three ways a hand may be played: (doubles allowed, splits allowed).
PLAYS: Final = {"full": (True, True), "no_double": (False, True), "flat": (False, False)}


def outcome_distributions(hands: int = 1_000_000, seed: int = 900_000) -> dict[str, dict[float, float]]:
    """The odds of each net result per unit bet of a hand played by the strong solution's full-shoe decisions,
    for each of ``PLAYS``: ``hands`` hands each, dealt from shoes of seeds ``seed``, ``seed + 1`` ..."""
    from twentyone.judge.game import Game, JudgeStop
    from twentyone.judge.strong import Strong

    out = {}
    for name, (double, split) in PLAYS.items():
        counts: Counter[float] = Counter()
        n = 0
        s = seed
        while n < hands:
            game, player = Game(s), Strong(wait=False)
            s += 1
            try:
                while n < hands:
                    game.begin_play()
                    before = game.money
                    player.play_fixed(game, 2, double, split)
                    game.end_play()
                    counts[(game.money - before) / 2] += 1
                    n += 1
            except JudgeStop:
                pass
        out[name] = {d: c / n for d, c in sorted(counts.items())}
    return out


def _plays(bets: Any) -> Any:
    """How a hand is played (0 full, 1 no_double, 2 flat) at each money step m with bets ``bets`` (same shape)."""
    import numpy as np

    m = np.arange(STEPS + 1).reshape((-1,) + (1,) * (np.ndim(bets) - 1))
    return np.where((m - bets) >= bets, np.where(m + bets >= STEPS + 1, 1, 0), 2)


def model_values(dists: dict[str, dict[float, float]], bets: Sequence[int]) -> list[float]:
    """The chance to win the test from each money step when betting ``bets``: the model's linear equations,
    V(m) = sum_d P(d) V(m + d b(m)), V(0) = 0, V(won) = 1, solved exactly."""
    import numpy as np

    n = STEPS + 1
    b = np.asarray(bets)
    play = _plays(b)
    a = np.eye(n)
    rhs = np.zeros(n)
    for k, name in enumerate(("full", "no_double", "flat")):
        for d, p in dists[name].items():
            for step in np.nonzero(play == k)[0]:
                m = int(step)
                if m == 0:
                    continue
                nxt: int = min(max(m + math.floor(d * int(b[m])), 0), n)
                if nxt == n:
                    rhs[m] += p
                elif nxt > 0:
                    a[m, nxt] -= p
    return [float(x) for x in np.linalg.solve(a, rhs)]


def bet_table(dists: dict[str, dict[float, float]]) -> tuple[list[int], list[float]]:
    """The best bet (in UNITs) at each money step 0 .. STEPS, and the chance to win from each, by policy iteration
    from bold play: solve the chances of the bets, take at each step the bet best against those chances, until
    no bet changes.

    A state m (money m UNITs) is won once above STEPS.  With a bet b the hand is played ``full`` when the money left
    pays a second bet and a single win does not already reach the target, ``no_double`` when it pays one but a win
    reaches the target, ``flat`` when it cannot pay one."""
    import numpy as np

    n = STEPS + 1
    m = np.arange(n)[:, None]
    b = np.arange(n)[None, :]
    play = _plays(b)
    valid = (b >= 1) & (b <= m)
    moves = [[(p, np.clip(m + np.floor(d * b).astype(np.int64), 0, n)) for d, p in dists[name].items()]
             for name in ("full", "no_double", "flat")]
    bets = np.minimum(np.arange(n), n - np.arange(n))  # bold play
    while True:
        v = np.array(model_values(dists, [int(x) for x in bets]) + [1.0])
        q = np.full((n, n), -1.0)
        for k, steps in enumerate(moves):
            total = np.zeros((n, n))
            for p, nxt in steps:
                total += p * v[nxt]
            q = np.where((play == k) & valid, total, q)
        best = q.argmax(axis=1)
        better = q[np.arange(n), best] > q[np.arange(n), bets] + 1e-12
        better[0] = False
        if not better.any():
            return [int(x) for x in bets], [float(x) for x in v[:n]]
        bets = np.where(better, best, bets)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m twentyone.judge.betting [HANDS]``: measure the distributions, solve the table, write the file."""
    args = list(argv if argv is not None else sys.argv[1:])
    hands = int(args[0]) if args else 1_000_000
    dists = outcome_distributions(hands)
    bets, values = bet_table(dists)
    bold = [min(s, STEPS + 1 - s) for s in range(STEPS + 1)]
    data = {"unit": UNIT, "hands": hands,
            "distributions": {k: [[d, p] for d, p in v.items()] for k, v in dists.items()},
            "bets": bets, "win_chance": round(values[START_MONEY // UNIT], 6),
            "bold_win_chance": round(model_values(dists, bold)[START_MONEY // UNIT], 6)}
    TABLE_FILE.write_text(json.dumps(data) + "\n", encoding="utf-8")
    print(f"wrote {TABLE_FILE}: win chance {data['win_chance']} (bold play {data['bold_win_chance']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
