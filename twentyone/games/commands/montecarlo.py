"""``twentyone montecarlo``: the Monte Carlo course report (seed 003), then past it.

Without ``--runs`` it plays the report's twelve games for ``--player`` (``mimic``, the report's player, by
default; ``human`` for a person) and prints each game's cards and score and the total, as the report does.
With ``--runs N`` it repeats the twelve games N times and prints the mean score per game with its 95%
interval beside the exact value of the same game (``twentyone.analysis.report_value``), and with
``--png FILE`` a histogram of the twelve-game totals; on a terminal a bar shows the runs done and the time
left (not with ``--json``), and Ctrl-C prints the result of the runs done so far, marked partial (exit
130).  ``--lang zh|en`` (Chinese when neither it nor the locale says another); ``--log`` and ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from twentyone.errors import TwentyOneError
from twentyone.i18n import N_, add_lang_option, translated
from twentyone.rules import get_rules

from twentyone.isolation import add_isolation_options, limits_of

__all__ = ["add_parser", "run_montecarlo", "TEXT", "card_values", "write_histogram"]

#: What the Monte Carlo report says, in English (the seed's own words in Chinese); translated from the catalogue
#: (``twentyone.i18n``) when said.
TEXT: Final = {
    "game": N_("game {game}: me {me}, dealer {dealer}, score {score:+d}"), "hidden": N_(" (not shown)"),
    "bust": N_(" (bust)"), "bj": N_(" (Black Jack)"), "foul": N_(" (foul: {foul})"), "total": N_("total: {total:+d}"),
    "title": N_("Monte Carlo, seed {seed}: {runs} runs of {games} games ({player})"),
    "mean": N_("mean score per game {mean:+.4f}, 95% interval {low:+.4f} .. {high:+.4f} ({n} games)"),
    "exact": N_("exact value (the analyser, the report's scoring): {score:+.4f} per game ({pct:+.4f}% of the "
                "bet): {where}"),
    "inside": N_("inside the interval"), "outside": N_("outside the interval"),
    "other": N_("the exact value is the report's player's (mimic): {score:+.4f} per game; this player is {player}"),
    "totals": N_("twelve-game totals: mean {mean:+.2f}, lowest {lo:+d}, highest {hi:+d}"),
    "png": N_("histogram: {path}"), "interrupted": N_("(interrupted)"),
    "partial": N_("(interrupted after {done} of {asked} runs: a partial result)"),
    "none": N_("interrupted before the first run ended: no result"),
    "hist_title": N_("{games}-game totals of {runs} runs"), "hist_x": N_("total score"), "hist_y": N_("runs"),
}


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``twentyone montecarlo``."""
    m = subparsers.add_parser(
        "montecarlo", help="the Monte Carlo report: twelve games scored -2/0/+2/+3, or --runs N of them (seed 003)",
        description="The course report's simulation: two decks shuffled for every game, one player against the "
                    "dealer, both drawing below 17; each game scores -2 (loss), 0 (tie), +2 (win) or +3 (win with "
                    "a two-card 21). --runs N repeats the twelve games and compares the mean with the exact value.")
    m.add_argument("--player", "-p", default="mimic", metavar="SPEC",
                   help="who plays: mimic (the report's player, default), human, or any player SPEC")
    m.add_argument("--runs", type=int, default=None, metavar="N",
                   help="repeat the twelve games N times: mean score per game, 95%% interval, exact value "
                        "(on a terminal a bar shows the time left; Ctrl-C gives the runs done so far)")
    m.add_argument("--png", type=Path, default=None, metavar="FILE.png",
                   help="with --runs: write a histogram of the twelve-game totals here")
    m.add_argument("--games", type=int, default=12, metavar="N", help="games in one report (12)")
    m.add_argument("--seed", "-s", type=int, default=None, help="seed (random if not given)")
    add_lang_option(m, fallback="zh")  # the course report: Chinese when neither --lang nor the locale says
    m.add_argument("--rules", default="montecarlo", metavar="NAME", help="rule set (montecarlo)")
    m.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="override one rule option")
    m.add_argument("--log", type=Path, metavar="FILE.jsonl", help="without --runs: write the round log here")
    m.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_isolation_options(m, output=False)  # players from files run in the sandbox unless --trusted
    m.set_defaults(game_run=run_montecarlo)


def card_values(cards: str) -> str:
    """Cards as the report writes them: values joined by ``+`` (``3+5+4+10``; an ace is ``A``)."""
    return "+".join("A" if c == "A" else "10" if c in "TJQK" else c for c in cards)


def run_montecarlo(args: argparse.Namespace) -> int:
    """``twentyone montecarlo``: 0, or 130 after Ctrl-C or the end of a person's input."""
    from twentyone.games.montecarlo import play_report, play_runs
    from twentyone.games.people import TablePerson
    from twentyone.games.commands.bj import seed_of
    from twentyone.match import Seating
    from twentyone.players.spec import make_strategy
    from twentyone.roundlog import RoundLog, open_log

    rules = get_rules(args.rules).with_assignments(args.rule)
    rules.check_table(rules.decks, 1)
    if not 1 <= args.games <= 10**6:
        raise TwentyOneError(f"games out of range: {args.games} (1 .. 1000000)")
    if args.runs is not None and not 1 <= args.runs <= 10**7:
        raise TwentyOneError(f"runs out of range: {args.runs} (1 .. 10000000)")
    if args.runs is not None and args.player == "human":
        raise TwentyOneError("--runs plays unattended: give --player SPEC (mimic, the report's player, by default)")
    if args.png is not None and args.runs is None:
        raise TwentyOneError("--png draws the totals of --runs N: give --runs")
    if args.runs is not None and args.log is not None:
        raise TwentyOneError("--log records the twelve games of one report: leave out --runs")
    seed = seed_of(args)
    text = translated(TEXT)
    person = args.player == "human"
    strategy = TablePerson(args.lang) if person else make_strategy(args.player, lang=args.lang,
                                                                   sandbox=limits_of(args))
    seating = Seating("me", args.player, strategy)
    try:
        if args.runs is not None:
            return _runs(args, seating, seed, rules, text)
        stream = open_log(args.log)
        played: list[Any] = []
        code = 0

        def show(g: Any) -> None:
            played.append(g)
            if not args.json:
                print(_game_line(g, text), flush=True)

        try:
            play_report(seating, seed, rules, args.games, RoundLog(stream) if stream else None, on_game=show)
        except KeyboardInterrupt:
            print()
            code = 130
        finally:
            if stream is not None:
                stream.close()
    finally:
        strategy.close()
    total = sum(g.score for g in played)
    if args.json:
        print(json.dumps({"seed": seed, "rules": rules.name, "player": args.player, "games": [
            {"game": g.game, "me": g.player, "dealer": g.dealer, "dealer_shown": g.dealer_shown, "score": g.score}
            for g in played], "total": total, "interrupted": code != 0}, ensure_ascii=False))
    else:
        print(text["total"].format(total=total) + (" " + text["interrupted"] if code else ""))
    return code


def _game_line(g: Any, text: dict[str, str]) -> str:
    me = f"{card_values(g.player)}={_total(g.player)}"
    if g.foul:
        me += text["foul"].format(foul=g.foul)
    elif _total(g.player) > 21:
        me += text["bust"]
    elif g.natural:
        me += text["bj"]
    if g.dealer_shown:
        d = g.dealer
        dealer = f"{card_values(d)}={_total(d)}" + (text["bust"] if _total(d) > 21 else "")
    else:
        dealer = card_values(g.dealer[0]) + "+?" + text["hidden"]
    return text["game"].format(game=g.game, me=me, dealer=dealer, score=g.score)


def _total(cards: str) -> int:
    from twentyone.cards import calculate

    return calculate(cards)


@contextmanager
def _progress(show: bool, runs: int) -> Iterator[Callable[[int], None]]:
    """Runs done, a bar and the time left on the terminal (stderr) when ``show``; nothing otherwise.  Yields
    ``update(done)``, cheap enough to call after every run (the bar is redrawn a few times a second)."""
    if not show:
        yield lambda done: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    with Progress(BarColumn(), MofNCompleteColumn(), TextColumn("runs"), TimeElapsedColumn(), TextColumn("eta"),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("runs", total=runs)
        last = [0.0]

        def update(done: int) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.1 or done == runs:
                last[0] = now
                bar.update(task, completed=done)

        yield update


def _runs(args: argparse.Namespace, seating: Any, seed: int, rules: Any, text: dict[str, str]) -> int:
    """``--runs N``: the summary, a histogram with ``--png``; progress on a terminal; Ctrl-C prints the summary of
    the runs done so far, marked partial, and returns 130."""
    from twentyone.analysis.report_value import report_value
    from twentyone.games.montecarlo import Tally, play_runs

    try:
        with _progress(not args.json and sys.stderr.isatty(), args.runs) as update:
            summary = play_runs(seating, seed, args.runs, rules, args.games, on_run=update)
    except KeyboardInterrupt:  # before the first run began, or as the bar was drawn
        summary = Tally().summary(interrupted=True)
    code = 130 if summary.interrupted else 0
    done = summary.runs
    partial = text["partial"].format(done=done, asked=args.runs) if summary.interrupted else ""
    if not done:
        if args.json:
            print(json.dumps({"seed": seed, "rules": rules.name, "player": args.player, "runs": 0,
                              "runs_asked": args.runs, "interrupted": True}))
        else:
            print(text["none"])
        return code
    exact = report_value(rules)
    inside = summary.low <= exact.score <= summary.high
    totals = summary.totals
    if args.png is not None:
        write_histogram(args.png, totals, done, args.games, text,
                        args.games * exact.score if args.player == "mimic" else None)
    if args.json:
        print(json.dumps({"seed": seed, "rules": rules.name, "player": args.player, "runs": done,
                          "runs_asked": args.runs, "interrupted": summary.interrupted,
                          "games": summary.games, "mean": summary.mean, "se": summary.se, "low": summary.low,
                          "high": summary.high, "exact": exact.score if args.player == "mimic" else None,
                          "exact_mimic": exact.score, "inside": inside if args.player == "mimic" else None,
                          "totals": totals, "png": str(args.png) if args.png is not None else None}))
        return code
    print(text["title"].format(seed=seed, runs=done, games=args.games, player=args.player) +
          (" " + partial if partial else ""))
    print(text["mean"].format(mean=summary.mean, low=summary.low, high=summary.high, n=summary.games))
    if args.player == "mimic":
        print(text["exact"].format(score=exact.score, pct=100 * exact.ev,
                                   where=text["inside"] if inside else text["outside"]))
    else:
        print(text["other"].format(score=exact.score, player=args.player))
    mean = sum(t * k for t, k in totals.items()) / done
    print(text["totals"].format(mean=mean, lo=min(totals), hi=max(totals)))
    if args.png is not None:
        print(text["png"].format(path=args.png))
    return code


def write_histogram(path: Path, totals: Mapping[int, int], runs: int, games: int, text: dict[str, str],
                    expected: float | None = None) -> None:
    """A PNG histogram of the twelve-game totals (how many runs made each), one bar per total, with the exact
    expected total as a line."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TwentyOneError("--png needs matplotlib: pip install -e '.[reports]'") from None
    from matplotlib import font_manager

    from twentyone.analysis.charts import CJK_FONTS

    counts = totals
    xs = sorted(counts)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.bar(xs, [counts[x] for x in xs], width=0.9, color="#4C72B0")
    if expected is not None:
        ax.axvline(expected, color="#C44E52", linewidth=1.5, label=f"exact {expected:+.2f}")
        ax.legend()
    if any(ord(ch) > 127 for ch in text["hist_x"]):
        names = {f.name for f in font_manager.fontManager.ttflist}
        cjk = next((n for n in CJK_FONTS if n in names), None)
        if cjk is None:
            text = dict(TEXT)  # no font to draw Chinese with: the picture's words in English
        else:
            plt.rcParams["font.family"] = cjk
    ax.set_title(text["hist_title"].format(runs=runs, games=games))
    ax.set_xlabel(text["hist_x"])
    ax.set_ylabel(text["hist_y"])
    fig.tight_layout()
    try:
        fig.savefig(path, format="png")
    except OSError as e:
        raise TwentyOneError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
