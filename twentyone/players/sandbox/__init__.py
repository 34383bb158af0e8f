"""The sandbox: every untrusted strategy plays each match in a box of its own, confined before any of its
code runs, so a crash, hang, flood or cheat costs only that player.  SANDBOX.md beside this file is the manual.

Split by which side of the pipe each part runs on:

- ``limits``: the limits a box runs under (shared by both sides);
- ``cpus``: where the engine and its boxes run (CPU pinning);
- ``wire``: the frame layout of the pipes, written once (mirrors ``c_src/box`` and ``c_src/bridge/tw_serve.c``);
- ``seccomp``: the system-call filter, built as a BPF program by the engine;
- ``landlock``: Landlock for the compiler (a box sets its own from C);
- ``box``: the engine side of one box: start it, configure it, read its frames, learn its end from the kernel;
- ``ends``: how a box ended, in words (its wait status);
- ``settings``: the empty root and what every box is configured with;
- ``client``: the engine side of a function set, ``SandboxFunctionSet``: a box per match (one per submission per
  table), its calls watched by a thread;
- ``pybox``: the box of a Python file, ``python -I -S`` (a compiled file's box is its own program, c_src/box);
- ``probes``: the doctor's hostile probes, in full boxes and in boxes with one layer alone;
- ``doctor``: ``twentyone doctor``, the host's verdict, and the one line each command prints.

The client never imports the Python box, nor the Python box the client.
"""
