"""``twentyone lianzhong``: the Lianzhong table (seed 003) at the terminal or unattended.

``--player SPEC`` two to five times (``human`` for a person at the terminal), ``--rounds``, ``--seed``,
``--timeout SECONDS`` (a person who does not answer in time is played automatically, 托管), ``--lang zh|en``,
``--log FILE.jsonl`` and ``--json``.  Every round is printed: who deals, before any bet, then each hand and the
money; the final standings rank the players by money, with each one's score (money won or lost).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Final

from twentyone.errors import TwentyOneError
from twentyone.rules import get_rules

from twentyone.isolation import add_isolation_options, limits_of

__all__ = ["add_parser", "run_lianzhong", "TEXT"]

TEXT: Final[dict[str, dict[str, str]]] = {
    "zh": {
        "you": "你", "round": "第 {round} 局，庄家：座位 {seat}（{name}）",
        "dealer": "  庄家 座位 {seat}（{name}）：{cards} = {total}，{delta:+d}，赌资 {money}",
        "player": "  座位 {seat}（{name}）：{cards} = {total}，下注 {bet}，{result} {delta:+d}，赌资 {money}",
        "win": "赢", "lose": "输", "push": "平", "bust": "爆牌", "bj": "黑杰克",
        "auto": "  座位 {seat} 托管：{what}", "no_dealer": "座位 {seat}（{name}）是课程 C 接口的玩家，没有庄家函数："
        "它坐庄时自动打牌（17 点以下要牌，17 点起停牌）",
        "title": "联众 21 点，种子 {seed}：{rounds} 局", "cols": "名次 座位 名字 玩家 赌资 得分",
        "line": "{rank:>4} {seat:>4}  {name}  {spec}  {money}  {score:+d}", "interrupted": "（中断）",
        "bet": "自动下最小注", "h": "要牌", "s": "停牌", "fault": "座位 {seat} 出错，退出游戏：{detail}",
    },
    "en": {
        "you": "you", "round": "round {round}, dealer: seat {seat} ({name})",
        "dealer": "  dealer seat {seat} ({name}): {cards} = {total}, {delta:+d}, money {money}",
        "player": "  seat {seat} ({name}): {cards} = {total}, bet {bet}, {result} {delta:+d}, money {money}",
        "win": "wins", "lose": "loses", "push": "push", "bust": "bust", "bj": "Black Jack",
        "auto": "  seat {seat} played automatically: {what}",
        "no_dealer": "seat {seat} ({name}) is a course C player with no dealer function: when it deals, its hand is "
                     "played automatically (hit below 17, stand from 17)",
        "title": "Lianzhong, seed {seed}: {rounds} rounds", "cols": "rank seat name player money score",
        "line": "{rank:>4} {seat:>4}  {name}  {spec}  {money}  {score:+d}", "interrupted": "(interrupted)",
        "bet": "the minimum bet", "h": "hit", "s": "stand", "fault": "seat {seat} failed and leaves the game: {detail}",
    },
}


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
    z.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of prompts and results (zh)")
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
    from twentyone.games.tables import seed_of
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
    text = TEXT[args.lang]
    quiet = bool(args.json)

    def say(line: str) -> None:
        if not quiet:
            print(line, flush=True)

    def on_auto(seat: int, what: str) -> None:
        if what != "dealer":
            what = text.get(what, what) if " " not in what else text[what.split()[1]]
            say(text["auto"].format(seat=seat, what=what))

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
    code = 0
    try:
        try:
            result = play_lianzhong(seatings, seed, rounds if rounds is not None else 10**9, rules,
                                    RoundLog(stream) if stream else None, on_round=on_round, on_auto=on_auto,
                                    on_start=on_start)
        except LianzhongInterrupted as e:
            print()
            result, code = e.result, 130
    finally:
        for st in seatings:
            st.strategy.close()
        if stream is not None:
            stream.close()
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
        print(text["line"].format(rank=r, seat=s, name=result.names[s], spec=result.specs[s],
                                  money=result.accounts[s], score=result.score(s)))
    return code


def _total_text(total: int, text: dict[str, str]) -> str:
    return f"{total} {text['bust']}" if total > 21 else str(total)
