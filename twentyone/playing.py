"""The ``match`` and ``play`` commands: seat the players, play one match, print its ranking and where what
the files printed went.  ``cli`` parses their options and calls ``run_match`` and ``run_play``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from twentyone.errors import TwentyOneError
from twentyone.i18n import N_, _, ngettext, pgettext
from twentyone.rules import MAX_SEED, Rules, get_rules
from twentyone.safetext import visible

if TYPE_CHECKING:
    import argparse

    from twentyone.match import MatchResult, Seating
    from twentyone.players.sandbox.limits import Limits

__all__ = ["run_match", "run_play", "print_ranking", "result_json", "ranking_title"]


def _rules_of(args: argparse.Namespace) -> Rules:
    """The rule set ``--rules`` and ``--rule`` name (RulesError, one line, if they cannot be played)."""
    return get_rules(args.rules).with_assignments(args.rule)


def _seatings(specs: Sequence[str], names: Sequence[str], lang: str, sandbox: Limits | None = None,
              capture_dir: Path | None = None, warn: Callable[[str], None] | None = None) -> list[Seating]:
    from twentyone.match import Seating
    from twentyone.players.files.intake import readable
    from twentyone.players.spec import make_strategy, stderr_warn

    if not specs:
        raise TwentyOneError("no players: give --player SPEC for each seat (1 to 5)")
    if len(specs) > 5:
        raise TwentyOneError(f"too many players: {len(specs)} (at most 5 seats)")
    if len(names) > len(specs):
        raise TwentyOneError(f"more --name ({len(names)}) than --player ({len(specs)})")
    out = []
    for i, spec in enumerate(specs):
        name = names[i] if i < len(names) else f"player{i + 1}"
        try:
            strategy = make_strategy(spec, warn or stderr_warn, lang=lang, sandbox=sandbox, capture_dir=capture_dir)
            # The SPEC goes into the table and the round log: a path that is not UTF-8 as readable text.
            out.append(Seating(name, readable(spec), strategy))
        except BaseException:
            for s in out:
                s.strategy.close()
            raise
    return out


def result_json(result: MatchResult) -> dict[str, Any]:
    """The match result as a JSON-ready dict."""
    return {
        "seed": result.seed, "decks": result.decks, "rules": result.rules, "reason": result.reason,
        "rounds": result.rounds, "shuffles": result.shuffles,
        "ranking": [
            {"rank": s.rank, "seat": s.seat, "name": s.name, "player": s.spec, "account": s.account,
             "rounds": s.rounds, "fouls": s.fouls, "fault": s.fault, "fault_detail": s.fault_detail or None}
            for s in result.ranking
        ],
    }


#: Why a match ended (``MatchResult.reason``), as the ranking's title says it.
_REASONS = {"broke": N_("nobody left who could bet"), "shuffles": N_("ended before a 6th shuffle"),
            "rounds": N_("round limit reached"), "interrupted": N_("interrupted"),
            "target": N_("a player passed the target")}


def ranking_title(result: MatchResult) -> str:
    """The line over the final ranking: the seed, the decks, why the match ended, the rounds and the shoes."""
    reason = _(_REASONS[result.reason]) if result.reason in _REASONS else result.reason
    return _("seed {seed}, {decks}: {rounds} in {shoes}, {reason}").format(
        seed=result.seed, decks=ngettext("{n} deck", "{n} decks", result.decks).format(n=result.decks),
        reason=reason, rounds=ngettext("{n} round", "{n} rounds", result.rounds).format(n=result.rounds),
        shoes=ngettext("{n} shoe", "{n} shoes", result.shuffles).format(n=result.shuffles))


def print_ranking(result: MatchResult, out: IO[str] | None = None) -> None:
    """The final ranking as a table (the course's show_result), in the active language."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console(file=out or sys.stdout, highlight=False)
    t = RichTable(title=ranking_title(result))
    cols = (pgettext("column", "rank"), pgettext("column", "seat"), pgettext("column", "name"),
            pgettext("column", "player"), pgettext("column", "money"), pgettext("column", "rounds"),
            pgettext("column", "fouls"), pgettext("column", "fault"))
    for col, just in zip(cols, ("right", "right", "left", "left", "right", "right", "right", "left")):
        t.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for s in result.ranking:
        t.add_row(str(s.rank), str(s.seat), s.name, s.spec, str(s.account), str(s.rounds), str(s.fouls), s.fault or "")
    console.print(t)
    for s in result.ranking:
        if s.fault:
            console.print(visible(_("seat {seat} ({spec}) left the match: {fault}: {detail}").format(
                seat=s.seat, spec=s.spec, fault=s.fault, detail=s.fault_detail)), markup=False)


def _output_dir(args: argparse.Namespace) -> Path:
    from twentyone.players.c.build import output_dir

    return args.output_dir if args.output_dir is not None else output_dir()


def _run_folder(base: Path, seed: int, specs: Sequence[str]) -> Path | None:
    """A new folder under ``base`` for what this run's file players print (``match-DATE-TIME-seedS``, then
    ``-2``, ``-3`` ...), so that no run overwrites another's; None when no player comes from a file."""
    import time

    from twentyone.players.spec import builtin_name

    if all(builtin_name(s) is not None or s == "human" for s in specs):
        return None
    stem = f"match-{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
    for n in range(1, 10_000):
        folder = base / (stem if n == 1 else f"{stem}-{n}")
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            continue
        except OSError as e:
            raise TwentyOneError(f"cannot make the output folder {str(folder)!r}: {e.strerror or e}") from None
    raise TwentyOneError(f"cannot make the output folder: {str(base / stem)!r} and its numbered neighbours exist")


def _printed_files(folder: Path | None) -> list[Path]:
    """What the file players printed this run, one file per match and seat (empty ones removed, and the folder
    when nothing is left)."""
    if folder is None:
        return []
    kept = []
    for f in sorted(folder.glob("*.out")):
        try:
            if f.stat().st_size:
                kept.append(f)
            else:
                f.unlink()
        except OSError:
            continue
    if not kept:
        try:
            folder.rmdir()
        except OSError:
            pass
    return kept


class _Warnings:
    """Each warning of one command printed once (a file seated at several seats warns once, not once per seat)."""

    def __init__(self) -> None:
        self.said: set[str] = set()

    def __call__(self, message: str) -> None:
        if message not in self.said:
            self.said.add(message)
            print(f"twentyone: warning: {visible(message)}", file=sys.stderr)


def _file_notes(specs: Sequence[str], sandboxed: bool) -> list[str]:
    """What is said of each file seated, as every command says it (``grading.notes.source_notes``, after the
    intake's own warnings): the sets of one C or C++ file at this table are played together, in one copy of
    its variables, sandboxed or not (RULES.md, **shared_statics**)."""
    import os

    from twentyone.grading.notes import source_notes
    from twentyone.players.files.intake import SourceKind, take
    from twentyone.players.spec import builtin_name, parse_spec

    seats: dict[str, tuple[str, list[int]]] = {}
    for spec in specs:
        if builtin_name(spec) is None and spec not in ("human",) and not spec.startswith("chart:"):
            target, k = parse_spec(spec)
            seats.setdefault(os.path.realpath(Path(target).expanduser()), (target, []))[1].append(k or 1)
    notes: list[str] = []
    for target, ks in seats.values():
        try:
            found = take(Path(target).expanduser())
        except TwentyOneError:
            continue  # seating it says why, in one line
        notes += found.warnings
        if found.kind in (SourceKind.C, SourceKind.CPP):
            notes += source_notes(found.path, sorted(set(ks)), separate=False, shown=found.where,
                                  main=found.main)
    return notes


def run_match(args: argparse.Namespace) -> int:
    from twentyone.match import MatchInterrupted, play_match
    from twentyone.isolation import limits_of
    from twentyone.roundlog import RoundLog, open_log

    rules = _rules_of(args)
    decks = args.decks if args.decks is not None else rules.decks
    rules.check_table(decks, max(1, min(len(args.player), 5)))  # before any player is built (over 5: _seatings says)
    limits = limits_of(args, person="human" in args.player)
    folder = _run_folder(_output_dir(args), args.seed, args.player)
    warn = _Warnings()
    for note in _file_notes(args.player, limits is not None):
        warn(note)
    try:
        seatings = _seatings(args.player, args.name, args.lang, limits, folder, warn)
    except BaseException:
        _printed_files(folder)
        raise
    stream = open_log(args.log)
    if limits is not None:  # said once the command can no longer refuse its input
        from twentyone.players.sandbox.client import host_layers_line

        line = host_layers_line()  # the layers of the first box started (none: no file player)
        if line is not None:
            print(f"twentyone: {line}", file=sys.stderr)
    try:
        log = RoundLog(stream) if stream is not None else None
        try:
            result = play_match(seatings, decks, args.seed, rules, log=log)
        except MatchInterrupted as e:
            print_ranking(e.result)
            return 130
    finally:
        if stream is not None:
            stream.close()
        for s in seatings:
            s.strategy.close()
    printed = _printed_files(folder)
    if args.json:
        print(json.dumps(result_json(result), ensure_ascii=False))
    else:
        print_ranking(result)
        for f in printed:
            print(_("what the players' files printed: {file}").format(file=f))
    return 0


def run_play(args: argparse.Namespace) -> int:
    import random

    from twentyone.match import MatchInterrupted, Seating, play_match
    from twentyone.isolation import limits_of
    from twentyone.players.terminal import Human
    from twentyone.roundlog import RoundLog, open_log

    if len(args.others) > 4:
        raise TwentyOneError(f"too many other players: {len(args.others)} (at most 4 with you)")
    rules = _rules_of(args)
    decks = args.decks if args.decks is not None else rules.decks
    rules.check_table(decks, 1 + len(args.others))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(MAX_SEED)
    limits = limits_of(args, person=True)
    folder = _run_folder(_output_dir(args), seed, args.others)
    warn = _Warnings()
    for note in _file_notes(args.others, limits is not None):
        warn(note)
    try:
        others = _seatings(args.others, [], args.lang, limits, folder, warn) if args.others else []
    except BaseException:
        _printed_files(folder)
        raise
    me = Seating(_("you"), "human", Human(lang=args.lang))
    seatings = [me] + [Seating(f"player{i + 2}", s.spec, s.strategy) for i, s in enumerate(others)]
    stream = open_log(args.log)
    try:
        result = play_match(seatings, decks, seed, rules, log=RoundLog(stream) if stream else None)
    except (MatchInterrupted, EOFError) as e:
        print()
        if isinstance(e, MatchInterrupted):
            print_ranking(e.result)
        return 130 if isinstance(e, MatchInterrupted) else 1
    finally:
        if stream is not None:
            stream.close()
        for s in others:
            s.strategy.close()
        for f in _printed_files(folder):
            print(_("what the players' files printed: {file}").format(file=f))
    print_ranking(result)
    return 0
