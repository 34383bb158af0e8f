"""The interactive judge problem of seed 004 ("遊戲:外傳"): ``twentyone judge`` (issue 24).

A contestant writes ``void play()`` against ``Blackjack.h``; the judge deals from 5000 shuffled decks, the player
starts with 10^6, and a test is won when the money goes above 1.3x10^6 before the cards run out.  JUDGE.md is the
manual; RULES.md ("The judge problem") lists the rulings.

- ``game``: one test (the shoe, the money, the statement's calls and its rules), in the engine's process;
- ``hands``: the statement's helpers (``is_blackjack``, ``cal_point``, ``cal_max_point``, ``win``);
- ``boxed``: a C++ solution built with the project's ``Blackjack.h`` and run in the sandbox, a box per test;
- ``blackjack``: the Python form of ``Blackjack.h``;
- ``solutions``: what can be judged (C++ and Python files, the built-ins ``sample``, ``strong``, ``strong-bold``);
- ``strong``: the project's strong solution; ``verdict``: Accepted / Wrong_answer;
- ``classrun``: a class on the same seeds (store, ``--resume``, the HTML page); ``commands``: the command.

Only ``twentyone.cli`` imports this package.
"""
