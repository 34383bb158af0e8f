"""Games played at the terminal beyond the course's match: the French student game (seed 001).

- ``solo``: one player against the dealer under the French game's original rules (``play_solo``);
- ``elimination``: the player and three AI players, the poorest eliminated every three rounds
  (``play_elimination``, ``Schedule``);
- ``commands``: the ``solo`` and ``elimination`` commands of the command line.

This layer sits beside ``twentyone.grading``: it builds players through ``twentyone.players.spec`` and
plays them on ``twentyone.table``/``twentyone.match``.
"""
