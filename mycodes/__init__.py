"""The course's ``mycodes.c`` in Python: copy ``mycodes/mycodes.py``, fill in its function sets, and seat
it with ``twentyone match --player my_copy.py:K``.

The built-in players live in ``twentyone.players.builtin.course``; they are re-exported here so that
``from mycodes import Basic`` keeps working.  The engine never imports this package.
"""

from twentyone.players.builtin.course import BUILTINS, Basic, HiLo, Stand

__all__ = ["BUILTINS", "Basic", "HiLo", "Stand"]
