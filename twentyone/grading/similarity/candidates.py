"""Which pairs of a large class are scored: the pairs that could be flagged, found without trying every pair.

A class of ``n`` has ``n (n - 1) / 2`` pairs; scoring each would grow with the square of the class.  Up to
``EXACT_PAIRS`` pairs (a class of 50) every pair is scored, as always.  Past it, only the **candidates** are:
every pair that could be flagged, and no other needs a score to be left out of the table.  A flag needs a
number of things in common, each side's own:

- **code**: a code score of ``code_flag`` with at least ``CODE_MIN_SHARED`` fingerprints in common means that a
  file with ``m`` fingerprints shares at least ``max(CODE_MIN_SHARED, code_flag x m / (2 - code_flag))`` with
  the other (``code_need``);
- **play**: a sign test at level ``a`` needs ``wins - losses >= log2(1 / a)`` (its tail is never below
  ``2^-(wins - losses)``), and the best reference's ``wins - losses`` is at most the decisions the pair agreed
  on where either side's own closest reference chose otherwise (``behaviour.decision_tokens``): so that many of
  one side's unusual decisions were made by the other too (``play_need``).

The pairs that share that many are found by **prefix filtering** (Chaudhuri, Ganti and Kaushik, ICDE 2006;
Bayardo, Ma and Srikant, WWW 2007): a set that must share ``t`` of its ``m`` items with another shares at least
one of any ``m - t + 1`` of them, so each set is looked up by its ``m - t + 1`` rarest items only, and each pair
found is counted exactly.  The items everyone has (the common code, the choices at the start of a match) are
never looked up, so the work grows with the class and with the pairs that really have much in common; and no
pair that could be flagged is missed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

__all__ = ["EXACT_PAIRS", "exact", "overlap_pairs", "code_need", "play_need"]

#: Up to this many pairs, every pair is scored (no candidates): a class of 50.
EXACT_PAIRS = 50 * 49 // 2


def exact(members: int) -> bool:
    """True when a class of ``members`` scores every pair (``EXACT_PAIRS``)."""
    return members * (members - 1) // 2 <= EXACT_PAIRS


def code_need(prints: int, code_flag: float, min_shared: int) -> int:
    """The fingerprints a file of ``prints`` must share with another for the pair to be flagged on code."""
    return max(min_shared, math.ceil(code_flag * prints / (2 - code_flag) - 1e-9))


def play_need(alpha: float) -> int:
    """The unusual decisions one side of a pair must share with the other for the sign test at ``alpha`` (one
    pair's level) to be significant: ``floor(log2(1 / alpha))``, at least 1."""
    return max(1, math.floor(-math.log2(alpha))) if alpha > 0 else 1


def overlap_pairs(probe: Sequence[Sequence[int]], index: Sequence[Sequence[int]],
                  need: Sequence[int]) -> dict[tuple[int, int], int]:
    """Every (i, j), i != j, with ``len(set(probe[i]) & set(index[j])) >= need[i]``, and that count.

    ``index[j]`` is looked up by the ``len(probe[i]) - need[i] + 1`` items of ``probe[i]`` found in the fewest
    ``index`` sets: any ``j`` that shares ``need[i]`` of them holds one of those."""
    owners: dict[int, list[int]] = defaultdict(list)
    for j, items in enumerate(index):
        for t in set(items):
            owners[t].append(j)
    sets = [frozenset(items) for items in index]
    out: dict[tuple[int, int], int] = {}
    for i, items in enumerate(probe):
        # an item nobody else holds can be in no pair's count: left out, the prefix is shorter
        mine = sorted((t for t in set(items) if any(j != i for j in owners.get(t, ())[:2])),
                      key=lambda t: (len(owners[t]), t))
        want = need[i]
        if want <= 0 or len(mine) < want:
            continue
        seen: set[int] = set()
        for t in mine[:len(mine) - want + 1]:
            seen.update(owners.get(t, ()))
        seen.discard(i)
        for j in seen:
            n = len(sets[j].intersection(mine))
            if n >= want:
                out[(i, j)] = n
    return out
