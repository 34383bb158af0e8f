"""The French game's solo mode (seed 001): one player alone against the dealer, under the original rules.

The original rules are the ``french`` preset (a Black Jack returns 2.5 times the stake, a win twice
it, the Changer, no insurance); ``play_solo`` plays it as a one-seat match that ends when the player
can no longer bet, after ``rounds`` rounds (none: never), or on Ctrl-C, with no limit on shoes.
"""

from __future__ import annotations

from twentyone.match import MatchResult, Seating, play_match
from twentyone.roundlog import RoundLog
from twentyone.rules import PRESETS, Rules

__all__ = ["play_solo", "solo_rules"]


def solo_rules(rules: Rules, rounds: int | None) -> Rules:
    """``rules`` for one seat that plays ``rounds`` rounds (None: until the money is gone), any number of shoes."""
    return rules.with_assignments(["max_shoes=none", f"rounds_per_seat={rounds if rounds is not None else 'none'}"])


def play_solo(seating: Seating, seed: int, rules: Rules = PRESETS["french"], decks: int | None = None,
              rounds: int | None = None, log: RoundLog | None = None) -> MatchResult:
    """Play the solo game; ``MatchInterrupted`` on Ctrl-C carries the standing so far."""
    return play_match([seating], decks if decks is not None else rules.decks, seed, solo_rules(rules, rounds),
                      log=log)
