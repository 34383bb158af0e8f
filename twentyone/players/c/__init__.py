"""The C bridge: a student's unmodified ``mycodes.c`` (or ``.cpp``) as a player.

- ``headers``: the course's headers, and a student's own copies compared with them;
- ``build``: the confined compiler, into a cffi module (played in process) and a box program (played in the
  sandbox, ``players.sandbox``); the cache;
- ``module``: the compiled module loaded in process, its statics reset per match;
- ``program``: ``make c-program``'s build step (the course's own C program).
"""
