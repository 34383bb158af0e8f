"""twentyone: the 21点 course game engine, its strategies, and tools to grade students' players.

The engine mirrors the course's C program: ``twentyone.table`` is ``twentyone.c`` (one round),
``twentyone.match`` is ``main.c`` (the match loop and ranking), ``twentyone.cards`` holds
``calculate``.  Rules are in ``twentyone.rules`` and ``RULES.md``.  Players are built in
``twentyone.players``; grading and tournaments live in ``twentyone.grading``.

The names below are loaded when first used, so that importing one sub-module (say, to remake a
report) does not load the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twentyone.errors import TwentyOneError
    from twentyone.match import MatchResult, Seating, play_match
    from twentyone.rules import COURSE, PRESETS, Rules
    from twentyone.strategy import Strategy

__all__ = ["COURSE", "PRESETS", "MatchResult", "Rules", "Seating", "Strategy", "TwentyOneError", "play_match"]
__version__ = "0.1.0"

_WHERE = {"TwentyOneError": "errors", "MatchResult": "match", "Seating": "match", "play_match": "match",
          "COURSE": "rules", "PRESETS": "rules", "Rules": "rules", "Strategy": "strategy"}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'twentyone' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"twentyone.{where}"), name)
