"""Exact analysis of the game (issue 12): EVs of every decision, house edges and strategy charts.

One player off the top of a shoe of any composition, under any rule set; computed combinatorially by
the C analyser in ``c_src/analysis`` (never simulated).  This package imports only ``twentyone.cards``,
``rules``, ``core`` and ``errors`` from the engine.

- ``exact``: ``analyse``, ``decision_evs``, ``house_edge``, ``dealer_odds``, ``derived_basic_chart``;
- ``charts``: the ``Chart`` value type (text in the French layout, CSV, PNG) and ``compare_charts``;
- ``shoe``: ``Shoe`` compositions; ``options``: ``AnalysisRules``, the rule options read from a ``Rules``;
- ``commands``: the ``edge``, ``chart`` and ``ev`` commands.

``exact`` (which loads the compiled core) is imported on first use of one of its names, so building
the command line does not load the C library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twentyone.analysis.charts import Chart, ChartDifference, Kind, Row, compare_charts
from twentyone.analysis.errors import AnalysisError, ChartError
from twentyone.analysis.options import AnalysisRules
from twentyone.analysis.shoe import Shoe

if TYPE_CHECKING:
    from twentyone.analysis.exact import (Analysis, DealerOdds, DecisionEVs, StrategyEV, analyse, dealer_odds,
                                          decision_evs, derived_basic_chart, house_edge)

__all__ = ["Analysis", "AnalysisError", "AnalysisRules", "Chart", "ChartDifference", "ChartError", "DealerOdds",
           "DecisionEVs", "Kind", "Row", "Shoe", "StrategyEV", "analyse", "compare_charts", "dealer_odds",
           "decision_evs", "derived_basic_chart", "house_edge"]

_EXACT = frozenset({"Analysis", "DealerOdds", "DecisionEVs", "StrategyEV", "analyse", "dealer_odds", "decision_evs",
                    "derived_basic_chart", "house_edge"})


def __getattr__(name: str) -> Any:
    if name in _EXACT:
        from twentyone.analysis import exact

        return getattr(exact, name)
    raise AttributeError(f"module 'twentyone.analysis' has no attribute {name!r}")
