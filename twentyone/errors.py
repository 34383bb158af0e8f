"""The project's exceptions: one base class, one subclass per cause.

Each also derives from the builtin exception a caller would naturally catch, so
``except ValueError`` keeps working.  Messages are lower-case and name the bad input.
"""

from __future__ import annotations

from twentyone.safetext import visible

#: The most characters of a strategy's own text (an exception message, a load error) that are kept.
MAX_STRATEGY_TEXT = 200


def strategy_text(text: str) -> str:
    """Text that came from a strategy (the student's data) as it is kept and shown: on one line, cut to
    ``MAX_STRATEGY_TEXT`` characters, every control character, lone surrogate and direction override made
    visible (``safetext.visible``), so that a round log, the store and every report can hold it as it is."""
    return visible(" ".join(text[:1 << 16].split()), MAX_STRATEGY_TEXT)


def own_lines(e: BaseException) -> str:
    """`` (at mine.py:5 in bet1, mine.py:2 in helper)``: where an exception of a strategy's file was raised, the
    engine's and Python's own frames trimmed away (the last three of the file's own); '' when there are none.

    The same words in process and in the sandbox's Python box, so a round log is the same either way."""
    import os
    import traceback

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    stdlib = os.path.dirname(os.__file__) + os.sep
    own = [f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}" for f in traceback.extract_tb(e.__traceback__)
           if not f.filename.startswith((package, stdlib, "<"))]
    return f" (at {', '.join(own[-3:])})" if own else ""


class TwentyOneError(Exception):
    """Base class of every error this package raises on purpose."""


class RulesError(TwentyOneError, ValueError):
    """A rule set or table configuration is out of range (decks, seats, money)."""


class BadCardsError(TwentyOneError, ValueError):
    """A card code, stacked shoe or hand is not valid."""


class IllegalActionError(TwentyOneError, ValueError):
    """An action character is not allowed at this point of the hand."""


class PlayerSpecError(TwentyOneError, ValueError):
    """A ``--player`` SPEC cannot be turned into a player (unknown name, unreadable file, missing functions)."""


class StrategyError(TwentyOneError, RuntimeError):
    """A strategy failed: it raised, crashed, timed out or returned garbage."""


class CompileError(TwentyOneError, RuntimeError):
    """A student's C file did not compile; ``messages`` holds the compiler's file:line output."""

    def __init__(self, message: str, messages: str = "") -> None:
        super().__init__(message)
        self.messages = messages


class ConfigError(TwentyOneError, ValueError):
    """A grading configuration has an unknown key or an out-of-range value."""
