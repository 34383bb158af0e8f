"""twentyone: the 21点 course game engine, its strategies, and tools to grade students' players.

The engine mirrors the course's C program: ``twentyone.table`` is ``twentyone.c`` (one round),
``twentyone.match`` is ``main.c`` (the match loop and ranking), ``twentyone.cards`` holds
``calculate``.  Rules are in ``twentyone.rules`` and ``RULES.md``.
"""

from twentyone.errors import TwentyOneError
from twentyone.match import MatchResult, Seating, play_match
from twentyone.rules import COURSE, PRESETS, Rules
from twentyone.strategy import Strategy

__all__ = ["COURSE", "PRESETS", "MatchResult", "Rules", "Seating", "Strategy", "TwentyOneError", "play_match"]
__version__ = "0.1.0"
