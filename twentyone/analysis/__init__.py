"""Exact analysis of the game (issue 12): EVs of every decision, house edges and strategy charts.

One player off the top of a shoe of any composition, under any rule set; computed combinatorially by
the C analyser in ``c_src/analysis`` (never simulated).  This package imports only ``twentyone.cards``,
``rules``, ``core`` and ``errors`` from the engine.

- ``exact``: ``analyse``, ``decision_evs``, ``house_edge``, ``dealer_odds``, ``derived_basic_chart``;
- ``charts``: the ``Chart`` value type (text in the French layout, CSV, PNG) and ``compare_charts``;
- ``shoe``: ``Shoe`` compositions; ``options``: ``AnalysisRules``, the rule options read from a ``Rules``;
- ``commands``: the ``edge``, ``chart`` and ``ev`` commands.
"""

from twentyone.analysis.charts import Chart, ChartDifference, Kind, Row, compare_charts
from twentyone.analysis.errors import AnalysisError, ChartError
from twentyone.analysis.exact import (Analysis, DealerOdds, DecisionEVs, StrategyEV, analyse, dealer_odds,
                                      decision_evs, derived_basic_chart, house_edge)
from twentyone.analysis.options import AnalysisRules
from twentyone.analysis.shoe import Shoe

__all__ = ["Analysis", "AnalysisError", "AnalysisRules", "Chart", "ChartDifference", "ChartError", "DealerOdds",
           "DecisionEVs", "Kind", "Row", "Shoe", "StrategyEV", "analyse", "compare_charts", "dealer_odds",
           "decision_evs", "derived_basic_chart", "house_edge"]
