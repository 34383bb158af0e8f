"""The sandbox: run an untrusted strategy in a worker process, so a crash, hang, flood or cheat costs
only that player.

Split by which side of the pipe each part runs on:

- ``limits``: the limits a worker runs under (shared by both sides);
- ``cpus``: where the engine and its workers run (CPU pinning);
- ``wire``: the frame layout of the pipes, written once (mirrors ``c_src/bridge/tw_serve.c``);
- ``client``: the engine side, ``SandboxFunctionSet``;
- ``seccomp``: the system-call allow-list, built and loaded in the worker;
- ``worker``: the worker process, ``python -m twentyone.players.sandbox.worker``.

The client never imports the worker, nor the worker the client.
"""
