"""The kept bet table of the strong solution: the bet toward the target for an amount of money.

``judge.betting`` measures the hands' results and solves the table; it is kept in ``data/bets.json``, which this
module reads (``load``) and bets from (``table_bet``), so that the strong solution needs nothing of the solving.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Final

from twentyone.judge.game import TARGET

__all__ = ["UNIT", "STEPS", "TABLE_FILE", "load", "table_bet"]

#: The money step of the table; the target is STEPS steps.
UNIT: Final = 1000
STEPS: Final = TARGET // UNIT
TABLE_FILE: Final = Path(__file__).resolve().parent / "data" / "bets.json"


@functools.cache
def load() -> dict[str, Any]:
    """The kept distributions and table (``data/bets.json``)."""
    with open(TABLE_FILE, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def table_bet(money: int) -> int:
    """The table's bet for ``money``: its step's bet in money, or exactly what the target needs when the table bets
    that far (a win then reaches 1.3x10^6 + 1, not more), never more than the money."""
    bets: list[int] = load()["bets"]
    step = min(money // UNIT, STEPS)
    need = TARGET + 1 - money
    bet = bets[step] * UNIT
    # A step bet that reaches the target's step reaches past the target too (step x UNIT <= money), so this one
    # test is the whole boundary: there the bet is exactly what a win needs to end the test.
    if bet >= need:
        bet = need
    return max(1, min(bet, money))
