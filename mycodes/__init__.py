"""Strategies for the twentyone engine: the course's ``mycodes`` mirror and the built-in players.

``mycodes.mycodes`` is the course's ``mycodes.c`` in Python (function sets 1..5 and PERSON).
``mycodes.builtin`` holds ``stand``, ``basic`` and ``hilo``; ``mycodes.charts`` the basic chart.
"""

from mycodes.builtin import BUILTINS, Basic, HiLo, Stand

__all__ = ["BUILTINS", "Basic", "HiLo", "Stand"]
