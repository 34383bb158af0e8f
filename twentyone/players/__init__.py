"""Players: turn a SPEC into a ``Strategy`` seated at the table.

- ``spec``: the one factory, ``make_strategy`` (and ``parse_spec``, ``check_file``, ``build_c``);
- ``intake``: a file, folder or zip given by the user -> the strategy file and the student's name, for
  every command;
- ``builtin`` and ``charts``: the built-in players ``stand``, ``basic`` and ``hilo``;
- ``pyplayer``: Python function sets and ``STRATEGY`` files;
- ``cbuild``: building a student's ``mycodes.c`` through cffi; ``cplayer``: loading and calling it;
- ``terminal``: a person at the terminal (``human``);
- ``sandbox``: running a file's strategy in a box of its own, one per match.

Nothing is imported here, so that importing one of them loads only what it needs.
"""
