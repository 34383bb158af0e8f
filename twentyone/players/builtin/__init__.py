"""The built-in players, seated by name (``players.spec``) and importable from ``mycodes``:

- ``course``: the rubric's reference players ``stand``, ``basic`` (the exact basic chart of the table's rules) and
  ``hilo``, and ``mimic`` (draws like the dealer);
- ``champion``: plays to finish first (a dynamic program over rounds left and the money difference);
- ``levels``: the French game's AI levels ``amateur``, ``intermediate`` and ``expert``;
- ``optimal``: the exact analyser's composition-dependent play;
- ``chart``: a strategy chart read from a file (``chart:FILE``).
"""
