"""The frames on a sandboxed worker's pipes, written once for both sides (mirrors c_src/bridge/tw_serve.c).

Engine -> child: a 16-byte header ``REQUEST`` {op, n, a, b, c} and a body.

====  =======================================  =============================================
op    call                                     body
====  =======================================  =============================================
'M'   start the match                          the capture file's path (``a`` bytes)
'B'   ``bet(a)``                               none
'F'   ``first_action(tmpcards, a)``            ``n`` bytes of tmpcards
'C'   ``continue_action(players)``             C: ``n`` Player structs; Python: ``a`` bytes of marshal data
'S'   ``show(banker, players, a, b, c)``       C: a Banker and ``n`` Player structs; Python: ``a`` bytes
'Q'   the match is over                        none
====  =======================================  =============================================

Child -> engine: 8-byte ``REPLY`` frames {tag, value}: 'H' pid (first, written before any student code
runs), 'P' ready for the match, 'R' a call's value, 'E' a fault's text (``value`` bytes follow).

Zygote -> engine (control socket): 12-byte ``CONTROL`` frames {tag, a, b}: 'R' ready (a = 1 with the
system-call filter), 'E' could not load (``a`` bytes of text follow), 'S' child ``a`` forked, 'X' child
``a`` exited with wait status ``b``.  Engine -> zygote: one byte 'F' carrying two descriptors
(SCM_RIGHTS), the read end of a request pipe and the write end of a reply pipe: fork a spare child.
"""

from __future__ import annotations

import marshal
import struct
from typing import Any

from twentyone.records import Banker, Player

__all__ = ["REQUEST", "REPLY", "CONTROL", "PLAYER", "BANKER", "MAX_TEXT", "QUIT", "request", "body_size",
           "c_player", "c_banker", "py_players", "py_show", "read_py_players", "read_py_show"]

REQUEST = struct.Struct("=cB2xiii")
REPLY = struct.Struct("=c3xi")
CONTROL = struct.Struct("=c3xii")
PLAYER = struct.Struct("=20si20sic3xiii")  # the C Player struct, 64 bytes
BANKER = struct.Struct("=20sic3xi")  # the C Banker struct, 32 bytes
#: The longest text frame (a fault's text, a load error).
MAX_TEXT = 1 << 16
QUIT = REQUEST.pack(b"Q", 0, 0, 0, 0)

_NAMES: dict[str, bytes] = {}


def request(op: bytes, n: int = 0, a: int = 0, b: int = 0, c: int = 0) -> bytes:
    """A request header."""
    return REQUEST.pack(op, n, a, b, c)


def body_size(op: bytes, n: int, a: int) -> int:
    """The length of a request's body as a Python worker reads it."""
    if op == b"F":
        return n
    return a if op in (b"C", b"S", b"M") else 0


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
