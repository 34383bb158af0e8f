"""The French game's commands, added to ``twentyone``'s command line by ``add_parsers``.

- ``twentyone solo``: one player (you, or ``--player SPEC``) alone against the dealer, French rules;
- ``twentyone elimination``: you (or ``--player SPEC``) and three AI players (``--level`` or ``--ai SPEC``)
  with one budget size (``--money``); the poorest goes every three rounds; the richest after the ninth wins.

Both take ``--rules NAME`` (``french``) and ``--rule KEY=VALUE``, ``--decks``, ``--seed``, ``--lang fr|en|zh``
(prompts and results; French when neither it nor the locale says another), ``--log FILE.jsonl`` and
``--json``.  Errors are ``TwentyOneError``s, which the command line prints as one line and exits 2.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any, Final

from twentyone.errors import TwentyOneError
from twentyone.games.commands.played import play_to_end
from twentyone.i18n import LANGUAGES, N_, add_lang_option, ngettext, translated
from twentyone.isolation import add_isolation_options, limits_of
from twentyone.rules import MAX_SEED, Rules, get_rules

if TYPE_CHECKING:
    from twentyone.games.elimination import EliminationResult
    from twentyone.match import Seating

__all__ = ["add_parsers", "run_solo", "run_elimination", "TEXT"]

LEVEL_NAMES: Final = ("amateur", "intermediate", "expert")

#: What the French game says, in English; translated from the catalogue (``twentyone.i18n``) when said.
TEXT: Final = {
    "you": N_("you"), "out": N_("round {round}: seat {seat} ({name}) is eliminated: {reason} (money {money})"),
    "poorest": N_("the poorest"), "broke": N_("no money left"), "fault": N_("a fault"),
    "title": N_("elimination, seed {seed}: {rounds}"), "winner": N_("winner: {names}"), "tie": N_("winners: {names}"),
    "none": N_("interrupted: no winner"), "cols": N_("rank,seat,name,player,money,eliminated"),
    "at": N_("round {round} ({reason})"), "solo": N_("solo, seed {seed}: {rounds}, money {start} -> {money}"),
}


def rounds_text(n: int, text: Mapping[str, str] | None = None) -> str:
    """``1 round``, ``2 rounds`` in the active language (French: ``0 manche``, ``1 manche``, ``2 manches``)."""
    return ngettext("{n} round", "{n} rounds", n).format(n=n)


def _rule_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rules")
    g.add_argument("--rules", default="french", metavar="NAME", help="rule set (french); 'twentyone rules --presets'")
    g.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule option; repeatable ('twentyone rules --options')")
    g.add_argument("--money", type=int, default=None, metavar="N", help="every player's budget (the rules': 1000)")
    g.add_argument("--decks", "-n", type=int, default=None, help="decks (the rules': 6)")
    p.add_argument("--seed", "-s", type=int, default=None, help="seed (random if not given)")
    add_lang_option(p, fallback="fr", languages=LANGUAGES)  # French when neither --lang nor the locale says
    p.add_argument("--log", type=Path, metavar="FILE.jsonl", help="write the round log here")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_isolation_options(p, output=False)  # players from files run in the sandbox unless --trusted


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``solo`` and ``elimination`` commands; each sets ``game_run`` to its runner."""
    s = subparsers.add_parser("solo", help="the French game alone against the dealer (seed 001)",
                              description="One player against the dealer under the French game's original rules "
                                          "(Black Jack returns 2.5x the stake, a win 2x, Changer with a pair).")
    s.add_argument("--player", "-p", default="human", metavar="SPEC",
                   help="who plays: human (default) or any player SPEC (a built-in, a .py or .c file, chart:FILE)")
    s.add_argument("--rounds", type=int, default=None, metavar="N",
                   help="rounds to play (a person: until Ctrl-C or no money; another player: 100)")
    _rule_options(s)
    s.set_defaults(game_run=run_solo)

    e = subparsers.add_parser("elimination", help="the French game against three AI players, the poorest "
                                                  "eliminated every three rounds (seed 001)",
                              description="You and three AI players with one budget size: after every three rounds "
                                          "the poorest is eliminated, a player with no money at once; the richest "
                                          "after the ninth round wins.")
    e.add_argument("--player", "-p", default="human", metavar="SPEC",
                   help="who sits in the person's seat: human (default) or any player SPEC, to run unattended")
    e.add_argument("--level", choices=LEVEL_NAMES, default="intermediate", help="the AI players' level (intermediate)")
    e.add_argument("--ai", action="append", default=[], metavar="SPEC",
                   help="the AI players instead of --level: once for all three, or three times, one per seat")
    e.add_argument("--rounds", type=int, default=9, metavar="N", help="rounds in the game (9)")
    e.add_argument("--every", type=int, default=3, metavar="N", help="the poorest is eliminated every N rounds (3)")
    _rule_options(e)
    e.set_defaults(game_run=run_elimination)
    from twentyone.games.commands.lianzhong import add_parser as add_lianzhong
    from twentyone.games.commands.montecarlo import add_parser as add_montecarlo
    from twentyone.games.commands.bj import add_parsers as add_bj

    add_bj(subparsers)
    add_lianzhong(subparsers)
    add_montecarlo(subparsers)


def _rules(args: argparse.Namespace) -> tuple[Rules, int, int]:
    rules = get_rules(args.rules).with_assignments(
        [*args.rule, *([f"start_money={args.money}"] if args.money is not None else [])])
    decks = args.decks if args.decks is not None else rules.decks
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(MAX_SEED)
    if not 0 <= seed <= MAX_SEED:
        raise TwentyOneError(f"seed out of range: {seed} (0 .. 2^64-1)")
    return rules, decks, seed


def run_solo(args: argparse.Namespace) -> int:
    """``twentyone solo``."""
    from twentyone.games.solo import play_solo
    from twentyone.match import MatchInterrupted, Seating
    from twentyone.players.spec import make_strategy
    from twentyone.roundlog import RoundLog, open_log

    rules, decks, seed = _rules(args)
    rules.check_table(decks, 1)
    rounds = args.rounds if args.rounds is not None or args.player == "human" else 100
    if rounds is not None and rounds < 1:
        raise TwentyOneError(f"rounds out of range: {rounds} (1 or more)")
    text = translated(TEXT)
    strategy = make_strategy(args.player, lang=args.lang, sandbox=limits_of(args, person=args.player == "human"))
    seating = Seating(text["you"] if args.player == "human" else "player", args.player, strategy)
    stream = open_log(args.log)
    result, code = play_to_end(
        lambda: play_solo(seating, seed, rules, decks, rounds, RoundLog(stream) if stream else None),
        MatchInterrupted, lambda e: e.result, [strategy], stream)
    st = result.ranking[0]
    if args.json:
        print(json.dumps({"seed": seed, "rules": rules.name, "rounds": result.rounds, "reason": result.reason,
                          "start": rules.start_money, "money": st.account, "fault": st.fault}))
    else:
        print(text["solo"].format(seed=seed, rounds=rounds_text(result.rounds, text), start=rules.start_money,
                                  money=st.account))
    return code


def _ai_specs(args: argparse.Namespace) -> list[str]:
    ai: list[str] = list(args.ai)
    if not ai:
        return [str(args.level)] * 3
    if len(ai) == 1:
        return ai * 3
    if len(ai) == 3:
        return ai
    raise TwentyOneError(f"--ai given {len(args.ai)} times: give it once (all three AI players) or three times")


def run_elimination(args: argparse.Namespace) -> int:
    """``twentyone elimination``."""
    from twentyone.games.elimination import Elimination, EliminationInterrupted, Schedule, play_elimination
    from twentyone.match import Seating
    from twentyone.players.spec import make_strategy
    from twentyone.roundlog import RoundLog, open_log

    rules, decks, seed = _rules(args)
    rules.check_table(decks, 4)
    schedule = Schedule(args.rounds, args.every)
    text = translated(TEXT)
    specs = [args.player, *_ai_specs(args)]
    limits = limits_of(args, person="human" in specs)
    seatings: list[Seating] = []
    try:
        for i, spec in enumerate(specs):
            name = text["you"] if i == 0 and spec == "human" else ("player" if i == 0 else f"ai{i + 1}")
            seatings.append(Seating(name, spec, make_strategy(spec, lang=args.lang, sandbox=limits)))
    except BaseException:
        for s in seatings:
            s.strategy.close()
        raise
    stream = open_log(args.log)

    def announce(e: Elimination, money: Mapping[int, int]) -> None:
        if not args.json:
            for seat in e.seats:
                print(text["out"].format(round=e.round, seat=seat, name=seatings[seat - 1].name,
                                         reason=text[e.reason], money=money[seat]), flush=True)

    result, code = play_to_end(
        lambda: play_elimination(seatings, seed, rules, decks, schedule, RoundLog(stream) if stream else None,
                                 on_elimination=announce),
        EliminationInterrupted, lambda e: e.game, [s.strategy for s in seatings], stream)
    if args.json:
        print(json.dumps(_result_json(result), ensure_ascii=False))
    else:
        _print_result(result, seatings, text, sys.stdout)
    return code


def _result_json(result: EliminationResult) -> dict[str, Any]:
    return {
        "seed": result.seed, "rules": result.rules, "decks": result.decks, "rounds": result.rounds,
        "winners": list(result.winners),
        "eliminations": [{"round": e.round, "seats": list(e.seats), "reason": e.reason} for e in result.eliminations],
        "ranking": [{"rank": st.rank, "seat": st.seat, "name": st.name, "player": st.spec, "account": st.account,
                     "eliminated": _round_out(result, st.seat)} for st in result.ranking],
    }


def _round_out(result: EliminationResult, seat: int) -> int | None:
    e = result.eliminated_in(seat)
    return None if e is None else e.round


def _print_result(result: EliminationResult, seatings: list[Seating], text: dict[str, str], out: IO[str]) -> None:
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console(file=out, highlight=False)
    t = RichTable(title=text["title"].format(seed=result.seed, rounds=rounds_text(result.rounds, text)))
    for col in text["cols"].split(","):
        t.add_column(col)
    for st in result.ranking:
        e = result.eliminated_in(st.seat)
        at = "" if e is None else text["at"].format(round=e.round, reason=text[e.reason])
        t.add_row(str(st.rank), str(st.seat), st.name, st.spec, str(st.account), at)
    console.print(t)
    names = ", ".join(f"{seatings[s - 1].name} ({s})" for s in result.winners)
    console.print(text["none"] if not result.winners else
                  (text["winner"] if len(result.winners) == 1 else text["tie"]).format(names=names), markup=False)

