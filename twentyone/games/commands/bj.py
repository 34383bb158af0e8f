"""The commands of the other source documents' tables, added by ``add_parsers``:

- ``twentyone bj``: the 1972 Unix game bj(6) (seed 002), in English, as its program behaved;
- ``twentyone lianzhong``: the Lianzhong table (seed 003), 2 to 5 players, the dealer's seat rotating;
- ``twentyone montecarlo``: the Monte Carlo course report (seed 003): twelve games, or ``--runs N`` of
  them against the exact value, with a histogram.

Each takes ``--player SPEC`` (any player of the project, ``human`` for a person), ``--seed`` and
``--log FILE.jsonl``, and ends cleanly on the end of input or Ctrl-C.  Errors are ``TwentyOneError``s,
which the command line prints as one line and exits 2.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from twentyone.errors import TwentyOneError
from twentyone.rules import MAX_SEED

from twentyone.isolation import add_isolation_options, limits_of

__all__ = ["add_parsers", "run_bj", "seed_of"]


def seed_of(args: argparse.Namespace) -> int:
    """``--seed``, or a random one; one line if out of range."""
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(MAX_SEED)
    if not 0 <= seed <= MAX_SEED:
        raise TwentyOneError(f"seed out of range: {seed} (0 .. 2^64-1)")
    return int(seed)


def _rounds(args: argparse.Namespace, person: bool, default: int) -> int | None:
    rounds: int | None = args.rounds if args.rounds is not None or person else default
    if rounds is not None and rounds < 1:
        raise TwentyOneError(f"rounds out of range: {rounds} (1 or more)")
    return rounds


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``bj``; it sets ``game_run`` to its runner (``lianzhong`` and ``montecarlo`` are added by their own
    modules, ``games.commands.lianzhong`` and ``games.commands.montecarlo``)."""
    b = subparsers.add_parser(
        "bj", help="the 1972 Unix game bj(6): $2 a hand, y or return to its questions (seed 002)",
        description="bj(6), as its 1972 program played: one deck, $2 every hand, a natural pays $3, insurance, "
                    "one split, double down on 10 or 11. Answer each question with y and return for yes, or "
                    "return alone for no. Ctrl-C prints the action and the standing and ends the game; so does "
                    "the end of input, silently.")
    b.add_argument("--player", "-p", default="human", metavar="SPEC",
                   help="who answers: human (default) or any player SPEC (a built-in, chart:FILE, a .py or .c file)")
    b.add_argument("--rounds", type=int, default=None, metavar="N",
                   help="hands to play (a person: until Ctrl-C; another player: 100)")
    b.add_argument("--seed", "-s", type=int, default=None, help="seed of the deck (random if not given)")
    b.add_argument("--log", type=Path, metavar="FILE.jsonl", help="write the round log here")
    b.add_argument("--json", action="store_true", help="print the result as one JSON object at the end")
    add_isolation_options(b, output=False)  # players from files run in the sandbox unless --trusted
    b.set_defaults(game_run=run_bj)


def run_bj(args: argparse.Namespace) -> int:
    """``twentyone bj``: 0 when the session ends, as bj's only way out was the interrupt."""
    from twentyone.core import Generator
    from twentyone.games.bj import BjGame, PersonAnswers, RandomDeck, StrategyAnswers
    from twentyone.players.spec import make_strategy
    from twentyone.roundlog import RoundLog, open_log

    seed = seed_of(args)
    person = args.player == "human"
    rounds = _rounds(args, person, 100)
    strategy = None if person else make_strategy(args.player, sandbox=limits_of(args))
    stream = open_log(args.log)
    try:
        answers: PersonAnswers | StrategyAnswers = PersonAnswers() if strategy is None else StrategyAnswers(strategy)
        game = BjGame(answers, RandomDeck(Generator(seed)), name="you" if person else "player", spec=args.player,
                      strategy=strategy, log=RoundLog(stream) if stream else None)
        result = game.play(rounds, seed)
    finally:
        if strategy is not None:
            strategy.close()
        if stream is not None:
            stream.close()
    if args.json:
        print(json.dumps({"seed": seed, "hands": result.hands, "action": result.action, "standing": result.standing,
                          "reason": result.reason, "fault": result.fault or None}))
    elif result.reason in ("rounds", "broke", "fault"):
        game.practice()  # the session's end, as bj.s printed the action and the standing at a shuffle
    if result.reason == "fault":
        raise TwentyOneError(f"player {args.player!r} failed: {result.fault}")
    return 0
