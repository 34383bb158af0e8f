"""The frames on a sandboxed match's pipes, written once for Python (mirrors c_src/box and c_src/bridge/tw_serve.c).

Engine -> box, first: the configuration ``CONFIG`` (``tw_box_config`` of c_src/box/tw_confine.h), then
``root_len`` bytes of the empty root's path, ``bpf_len`` bytes of the system-call filter and ``extra_len``
bytes (a Python box: the name it compiles the file under, ``PY_FILE``, NUL, its source).

Engine -> box, then: a 16-byte header ``REQUEST`` {op, n, k, a, b, c} and a body.  ``k`` is the function set
the call is for (one box serves every set of one submission seated at a table, as the course program does);
0 means the set the box was configured with.

====  =======================================  =============================================
op    call                                     body
====  =======================================  =============================================
'B'   ``bet(a)``                               none
'F'   ``first_action(tmpcards, a)``            ``n`` bytes of tmpcards
'C'   ``continue_action(players)``             C: ``n`` Player structs; Python: ``a`` bytes of marshal data
'S'   ``show(banker, players, a, b, c)``       C: a Banker and ``n`` Player structs; Python: ``a`` bytes
'Q'   the match is over                        none
====  =======================================  =============================================

Box -> engine: 8-byte ``REPLY`` frames {tag, value}: 'H' the layers that hold (written before anything of
the student's runs), 'P' ready for the match (after the student's initialisers), 'R' a call's value, 'E' a
fault's text (``value`` bytes follow, at most ``MAX_TEXT``).
"""

from __future__ import annotations

import marshal
import re
import struct
from typing import Any

from twentyone.records import Banker, Player

__all__ = ["PY_FILE", "OVER_MEMORY", "name_python_file",
           "CONFIG", "REQUEST", "REPLY", "PLAYER", "BANKER", "MAX_TEXT", "QUIT", "request", "body_size",
           "c_player", "c_banker", "py_players", "py_show", "read_py_players", "read_py_show"]

#: The name a Python box compiles its file under (its ``__file__``, every code object's ``co_filename``): the same
#: for every hand-in, as a compiled box's is ``./mycodes.c``, so that a box learns nothing of the grader's folders
#: nor which student it plays, and token-identical copies run the same text.  The engine names the student's
#: file in its place in what it shows (``name_python_file``).
PY_FILE = "mycodes.py"
#: ``PY_FILE`` at a line, as errors.own_lines, faulthandler's lines and a syntax error write it.
_AT_LINE = re.compile(rf"(?<![\w./\\-]){re.escape(PY_FILE)}(?=:\d+(?: in |: |,|\)|$))")
def name_python_file(text: str, name: str, head: str | None = None) -> str:
    """A Python box's ``text`` with the student's file ``name`` where the box wrote ``PY_FILE`` at a line
    (``mycodes.py:12 in bet1``, ``mycodes.py:3: syntax error``), and ``head`` (default ``name``) where the text
    begins with either name (an error loading the file: ``mycodes.py has no function set 2``).  The rest of the
    text is the file's own, as it wrote it."""
    for first in (PY_FILE, name):
        if text.startswith(first) and text[len(first):][:1] in (":", " "):
            text = (head or name) + text[len(first):]
            break
    return _AT_LINE.sub(lambda _: name, text)


#: How tw_confine's refusal begins when the box's address space is over its memory limit before anything of the
#: student's ran (c_src/box/tw_confine.c TW_OVER_MEMORY): the program's own doing, not the host's.
OVER_MEMORY = "its address space"

#: tw_box_config (80 bytes): magic, version, flags; engine_pid, landlock_cap, uid, gid, k; memory_bytes,
#: output_bytes, decision_usec; cpu_seconds, open_files; root_len, bpf_len, extra_len, pad.
CONFIG = struct.Struct("=3I5i3q2i4I")
REQUEST = struct.Struct("=cBBxiii")
REPLY = struct.Struct("=c3xi")
PLAYER = struct.Struct("=20si20sic3xiii")  # the C Player struct, 64 bytes
BANKER = struct.Struct("=20sic3xi")  # the C Banker struct, 32 bytes
#: The longest text frame (a fault's text, a load error).
MAX_TEXT = 4096
QUIT = REQUEST.pack(b"Q", 0, 0, 0, 0, 0)

_NAMES: dict[str, bytes] = {}


def request(op: bytes, n: int = 0, a: int = 0, b: int = 0, c: int = 0, k: int = 0) -> bytes:
    """A request header (for function set ``k``; 0: the box's own)."""
    return REQUEST.pack(op, n, k, a, b, c)


def body_size(op: bytes, n: int, a: int) -> int:
    """The length of a request's body as a Python worker reads it."""
    if op == b"F":
        return n
    return a if op in (b"C", b"S") else 0


def c_player(p: Player) -> bytes:
    """``p`` as the C struct, as ``cplayer.CFunctionSet`` fills it in process."""
    name = _NAMES.get(p.name)
    if name is None:
        name = p.name.encode("utf-8")[:19]
        if len(_NAMES) < 4096:
            _NAMES[p.name] = name
    return PLAYER.pack(name, p.account, p.mycards.encode("latin-1")[:19], p.count,
                       p.state.encode("latin-1")[:1] or b"\0", p.mybets, p.points, p.rounds)


def c_banker(b: Banker) -> bytes:
    """``b`` as the C struct."""
    return BANKER.pack(b.mycards.encode("latin-1")[:19], b.count, b.state.encode("latin-1")[:1] or b"\0", b.points)


def _py_player(p: Player) -> tuple[Any, ...]:
    return (p.name, p.account, p.mycards, p.count, p.state, p.mybets, p.points, p.rounds)


def py_players(players: list[Player]) -> bytes:
    """The body of a Python worker's 'C' request."""
    return marshal.dumps([_py_player(p) for p in players])


def py_show(banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> bytes:
    """The body of a Python worker's 'S' request."""
    b = (banker.mycards, banker.count, banker.state, banker.points)
    return marshal.dumps((b, [_py_player(p) for p in players], pNum, N, pos))


def read_py_players(body: bytes) -> list[Player]:
    """The players of a 'C' request body."""
    return [Player(*p) for p in marshal.loads(body)]


def read_py_show(body: bytes) -> tuple[Banker, list[Player], int, int, int]:
    """The arguments of an 'S' request body."""
    b, ps, pnum, n, pos = marshal.loads(body)
    return Banker(*b), [Player(*p) for p in ps], pnum, n, pos
