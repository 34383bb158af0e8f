"""Where the commands that seat players run the strategies they load from files: in the sandbox by default.

Every command that builds players from ``.c``, ``.cpp`` or ``.py`` files (``match``, ``play``, ``solo``,
``elimination``; ``grade``, ``tournament`` and ``similar`` have their own options, to the same effect) runs
each such player in a sandbox worker (``twentyone.players.sandbox``) under the limits these options set,
so that a file that crashes or loops costs a fault, never the command.  ``--trusted`` runs them in this
process, for speed, when you vouch for the code.  Built-in players, ``human`` and charts always run in
process.

``add_isolation_options`` adds the options to a command's parser; ``limits_of`` reads them back as the
``Limits`` that ``players.spec.make_strategy(spec, sandbox=...)`` takes, or None for ``--trusted``.
Building a parser loads nothing of the players (``twentyone report`` must not).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twentyone.errors import TwentyOneError

if TYPE_CHECKING:
    from twentyone.players.sandbox.limits import Limits

__all__ = ["add_isolation_options", "limits_of", "int_range", "MATCH_TIMEOUT"]

#: The wall-clock limit of a match in the sandbox, by default (with a person at the table: the sandbox's
#: longest, ``players.sandbox.limits.MAX_SECONDS``, an hour, since their thinking counts).
MATCH_TIMEOUT = 60.0


def add_isolation_options(p: argparse.ArgumentParser, output: bool = True) -> None:
    """``--trusted`` and the sandbox's time limits (and ``--output-dir``, where what the files print goes)."""
    g = p.add_argument_group("players from files (.c, .cpp, .py): run in the sandbox unless --trusted")
    g.add_argument("--trusted", action="store_true",
                   help="run them in this process, for speed, when you vouch for the code (a file that crashes "
                        "or loops then takes the command with it)")
    # The sandbox was an option before it was the default: --sandbox is still accepted, and changes nothing.
    g.add_argument("--sandbox", action="store_true", help=argparse.SUPPRESS)
    g.add_argument("--decision-timeout", type=float, default=1.0, metavar="SECONDS",
                   help="CPU time limit per decision in the sandbox (1.0)")
    g.add_argument("--decision-wall-timeout", type=float, default=0.0, metavar="SECONDS",
                   help="wall-clock backstop per decision, against sleeping (default 10x --decision-timeout)")
    g.add_argument("--match-timeout", type=float, default=None, metavar="SECONDS",
                   help=f"wall-clock limit per match in the sandbox ({MATCH_TIMEOUT:g}; an hour when a person "
                        "plays)")
    if output:
        g.add_argument("--output-dir", type=Path, default=None, metavar="DIR",
                       help="where what each file's strategy prints goes: a folder for each run, one file per "
                            "match, capped at 1 MiB (default ~/.cache/twentyone/output)")


def limits_of(args: argparse.Namespace, person: bool = False) -> Limits | None:
    """The sandbox limits the options ask for, or None for ``--trusted`` (in process).

    ``person``: a person plays at the table, so a match may last as long as the sandbox allows.
    Raises TwentyOneError (one line) for contradicting options or a limit out of range.
    """
    if args.trusted:
        if args.sandbox:
            raise TwentyOneError("--sandbox and --trusted contradict each other (the sandbox is the default)")
        return None
    from twentyone.players.sandbox.limits import MAX_SECONDS, Limits

    match = args.match_timeout if args.match_timeout is not None else (MAX_SECONDS if person else MATCH_TIMEOUT)
    return Limits.for_timeouts(args.decision_timeout, match, args.decision_wall_timeout)


def int_range(lo: int, hi: int, what: str) -> Any:
    """An argparse type: a whole number (any base Python reads) from ``lo`` to ``hi``, else a one-line error
    naming ``what``; every command's whole-number options use it (the lowest layer of the options)."""
    def parse(text: str) -> int:
        try:
            v = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{what} out of range: {v} ({lo} .. {hi})")
        return v
    return parse
