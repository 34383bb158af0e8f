"""``twentyone lianzhong``: the Lianzhong table (seed 003) at the terminal or unattended.

``--player SPEC`` two to five times (``human`` for a person at the terminal), ``--rounds``, ``--seed``,
``--timeout SECONDS`` (a person who does not answer in time is played automatically, 托管), ``--lang zh|en``
(Chinese when neither it nor the locale says another),
``--log FILE.jsonl`` and ``--json``.  Every round is printed: who deals, before any bet, then each hand and the
money; the final standings rank the players by money, with each one's score (money won or lost).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Final

from twentyone.errors import TwentyOneError
from twentyone.games.commands.played import play_to_end
from twentyone.i18n import N_, add_lang_option, translated
from twentyone.rules import get_rules

from twentyone.isolation import add_isolation_options, limits_of

__all__ = ["add_parser", "run_lianzhong", "TEXT"]

#: What the Lianzhong table says, in English (the seed's own words in Chinese: 要牌, 爆牌, 托管); translated from the
#: catalogue (``twentyone.i18n``) when said.
TEXT: Final = {
    "you": N_("you"), "round": N_("round {round}, dealer: seat {seat} ({name})"),
    "dealer": N_("  dealer seat {seat} ({name}): {cards} = {total}, {delta:+d}, money {money}"),
    "player": N_("  seat {seat} ({name}): {cards} = {total}, bet {bet}, {result} {delta:+d}, money {money}"),
    "win": N_("wins"), "lose": N_("loses"), "push": N_("push"), "bust": N_("{total} bust"), "bj": N_("Black Jack"),
    "auto_bet": N_("  seat {seat} played automatically: the minimum bet"),
    "auto_h": N_("  seat {seat} played automatically: hit"), "auto_s": N_("  seat {seat} played automatically: stand"),
    "no_dealer": N_("seat {seat} ({name}) is a course C player with no dealer function: when it deals, its hand is "
                    "played automatically (hit below 17, stand from 17)"),
    "title": N_("Lianzhong, seed {seed}: {rounds} rounds"), "cols": N_("rank seat name player money score"),
    "interrupted": N_("(interrupted)"), "fault": N_("seat {seat} failed and leaves the game: {detail}"),
}
#: A line of the final standings.
LINE: Final = "{rank:>4} {seat:>4}  {name}  {spec}  {money}  {score:+d}"


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``twentyone lianzhong``."""
    z = subparsers.add_parser(
        "lianzhong", help="the Lianzhong table: 2 to 5 players, the dealer's seat rotating (seed 003)",
        description="2 to 5 players, one of whom deals: the first dealer is drawn at random, then the seat passes "
                    "clockwise every round. Each other player plays the dealer alone; one deck, a new one every "
                    "round, split once, double on the first two cards. A person who does not answer within "
                    "--timeout is played automatically (托管); a course C player has no dealer function and "
                    "deals automatically (hit below 17, stand from 17).")
    z.add_argument("--player", "-p", action="append", default=[], metavar="SPEC",
                   help="a seat, 2 to 5 times, clockwise: human (a person) or any player SPEC")
    z.add_argument("--rounds", type=int, default=None, metavar="N",
                   help="rounds to play (with a person: until Ctrl-C; otherwise 10 per player)")
    z.add_argument("--seed", "-s", type=int, default=None, help="seed (random if not given)")
    z.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="a person's time to answer; after it the decision is played automatically (托管)")
    add_lang_option(z, fallback="zh")  # the Lianzhong table: Chinese when neither --lang nor the locale says
    z.add_argument("--rules", default="lianzhong", metavar="NAME", help="rule set (lianzhong)")
    z.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="override one rule option")
    z.add_argument("--log", type=Path, metavar="FILE.jsonl", help="write the round log here")
    z.add_argument("--json", action="store_true", help="print the result as one JSON object (no rounds)")
    add_isolation_options(z, output=False)  # players from files run in the sandbox unless --trusted
    z.set_defaults(game_run=run_lianzhong)


def run_lianzhong(args: argparse.Namespace) -> int:
    """``twentyone lianzhong``: 0, or 130 after Ctrl-C or the end of input."""
    from twentyone.games.lianzhong import (MAX_PLAYERS, MIN_PLAYERS, LianzhongInterrupted, LianzhongTable,
                                           play_lianzhong)
    from twentyone.games.people import TablePerson, TimedInput, Trustee
    from twentyone.games.commands.bj import seed_of
    from twentyone.match import Seating
    from twentyone.players.spec import make_strategy
    from twentyone.roundlog import RoundLog, open_log
    from twentyone.seat import Seat
    from twentyone.strategy import Strategy

    specs: list[str] = args.player
    if not MIN_PLAYERS <= len(specs) <= MAX_PLAYERS:
        raise TwentyOneError(f"players out of range: {len(specs)} (give --player {MIN_PLAYERS} to {MAX_PLAYERS} "
                             "times, human for a person)")
    if args.timeout is not None and not 0 < args.timeout <= 3600:
        raise TwentyOneError(f"timeout out of range: {args.timeout} (0 .. 3600 seconds)")
    rules = get_rules(args.rules).with_assignments(args.rule)
    seed = seed_of(args)
    person = "human" in specs
    rounds = args.rounds if args.rounds is not None else (None if person else 10 * len(specs))
    if rounds is not None and rounds < 1:
        raise TwentyOneError(f"rounds out of range: {rounds} (1 or more)")
    text = translated(TEXT)
    quiet = bool(args.json)

    def say(line: str) -> None:
        if not quiet:
            print(line, flush=True)

    def on_auto(seat: int, what: str) -> None:
        if what != "dealer":
            say(text["auto_" + what.split()[-1]].format(seat=seat))

    seatings: list[Seating] = []
    try:
        for i, spec in enumerate(specs):
            strategy: Strategy
            if spec == "human":
                ask = TimedInput(args.timeout) if args.timeout is not None else input
                strategy = Trustee(TablePerson(args.lang, ask=ask), on_auto)
                name = text["you"] + (str(i + 1) if specs.count("human") > 1 else "")
            else:
                strategy = make_strategy(spec, lang=args.lang, sandbox=limits_of(args, person="human" in specs))
                name = spec if "/" not in spec and "." not in spec else Path(spec.rsplit(":", 1)[0]).name
            seatings.append(Seating(name, spec, strategy))
    except BaseException:
        for st in seatings:
            st.strategy.close()
        raise
    for i, st in enumerate(seatings):
        if st.strategy.course_interface:
            say(text["no_dealer"].format(seat=i + 1, name=st.name))

    def on_start(table: LianzhongTable) -> None:
        d = table.dealer
        say(text["round"].format(round=table.round_no, seat=d.seat, name=d.name))

    def on_round(table: LianzhongTable, active: list[Seat], dealer_bj: bool) -> None:
        d = table.dealer
        dealer_cards = "".join(table.dealer_shown)
        say(text["dealer"].format(seat=d.seat, name=d.name, cards=dealer_cards,
                                  total=text["bj"] if dealer_bj else _total_text(table.dealer_total(), text),
                                  delta=d.account - d.account_before, money=d.account))
        for s in active:
            delta = s.account - s.account_before
            hands = s.hands or [s]
            cards = " | ".join("".join(h.cards) for h in hands)
            total = text["bj"] if s.bj else " | ".join(_total_text(h.total(), text) for h in hands)
            result = text["win"] if delta > 0 else text["lose"] if delta < 0 else text["push"]
            say(text["player"].format(seat=s.seat, name=s.name, cards=cards, total=total, bet=s.bet - s.added,
                                      result=result, delta=delta, money=s.account))
        for f in table.round_faults:
            say(text["fault"].format(seat=f["seat"], detail=f["detail"]))

    stream = open_log(args.log)
    result, code = play_to_end(
        lambda: play_lianzhong(seatings, seed, rounds if rounds is not None else 10**9, rules,
                               RoundLog(stream) if stream else None, on_round=on_round, on_auto=on_auto,
                               on_start=on_start),
        LianzhongInterrupted, lambda e: e.result, [st.strategy for st in seatings], stream)
    ranking = result.ranking()
    if args.json:
        print(json.dumps({"seed": seed, "rules": rules.name, "rounds": result.rounds, "reason": result.reason,
                          "ranking": [{"rank": r, "seat": s, "name": result.names[s], "player": result.specs[s],
                                       "account": result.accounts[s], "score": result.score(s),
                                       "fault": result.faults.get(s)} for r, s in ranking]}, ensure_ascii=False))
        return code
    print(text["title"].format(seed=seed, rounds=result.rounds) + (
        " " + text["interrupted"] if result.reason == "interrupted" else ""))
    print(text["cols"])
    for r, s in ranking:
        print(LINE.format(rank=r, seat=s, name=result.names[s], spec=result.specs[s],
                                  money=result.accounts[s], score=result.score(s)))
    return code


def _total_text(total: int, text: dict[str, str]) -> str:
    return text["bust"].format(total=total) if total > 21 else str(total)
