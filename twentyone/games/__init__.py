"""Games played at the terminal beyond the course's match: the French student game (seed 001) and the
other tables of the source documents (seeds 002 and 003).

- ``solo``: one player against the dealer under the French game's original rules (``play_solo``);
- ``elimination``: the player and three AI players, the poorest eliminated every three rounds
  (``play_elimination``, ``Schedule``);
- ``bj``: the 1972 Unix game bj(6) as its program behaved (``BjGame``);
- ``lianzhong``: the Lianzhong table, the dealer's seat rotating (``play_lianzhong``); ``people``: a person
  there (time limits, 托管);
- ``montecarlo``: the Monte Carlo course report's twelve games and ``--runs`` (``play_report``,
  ``play_runs``);
- ``commands``: every game's command of the command line, one module a game (``commands`` itself: ``solo`` and
  ``elimination``; ``commands.bj``, ``commands.lianzhong``, ``commands.montecarlo``).

This layer sits beside ``twentyone.grading``: it builds players through ``twentyone.players.spec`` and
plays them on ``twentyone.table``/``twentyone.match``.
"""
