"""The exact analyser's own exceptions, beside the package's ``BadCardsError`` and ``RulesError``.

Both derive from ``twentyone.errors.TwentyOneError`` and from the builtin a caller would catch.
"""

from __future__ import annotations

from twentyone.errors import TwentyOneError

__all__ = ["AnalysisError", "ChartError"]


class AnalysisError(TwentyOneError, RuntimeError):
    """The analyser could not finish (out of memory, or asked for a strategy it was not given)."""


class ChartError(TwentyOneError, ValueError):
    """A strategy chart (CSV text, a row label or a cell) is not valid."""
