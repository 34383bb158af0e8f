# PYTHON_ARGCOMPLETE_OK  (tab completion for bash and zsh: twentyone completion bash|zsh)
"""The ``twentyone`` command line: the parser of every command, and the runners of ``grade``, ``tournament``,
``report``, ``similar`` and ``rules`` (``match`` and ``play`` are ``playing``'s; the analysis, the games, the
review and the judge bring their own parsers).

Every error a user can cause prints one line, ``twentyone: error: ...``, and exits with status 2;
nothing prints a traceback.  Each command imports what it needs when it runs, so that ``report``
never loads the table, the sandbox or the C bridge.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from typing import TYPE_CHECKING

from twentyone.clihelp import add_examples, complete, shell_code
from twentyone.errors import CompileError, TwentyOneError
from twentyone.i18n import LANGUAGES, activate, add_lang_option, choose, current
from twentyone.isolation import add_isolation_options, int_range
from twentyone.rules import MAX_SEED, OPTIONS, PRESETS, Rules, format_value, get_rules
from twentyone.safetext import visible

#: The most characters of a compiler's messages printed on the terminal.
MAX_MESSAGES = 8000

if TYPE_CHECKING:
    from twentyone.grading.commands import Execution
    from twentyone.grading.config import Isolation

__all__ = ["main", "add_rule_options", "rules_of"]

PLAYER_HELP = (
    "a player: stand, basic, hilo, champion, mimic, amateur, intermediate, expert, optimal, human, chart:path.csv, "
    "path/to/file.py[:K], path/to/mycodes.c[:K] (or .cpp), or a folder or zip holding one (K = function set, "
    "default 1); repeat for each seat, 1 to 5 seats"
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"twentyone: error: {message} (see '{self.prog} --help')\n")


def _version() -> str:
    """The installed version (setup.py reads it from ``twentyone.__version__``)."""
    from twentyone import __version__

    return __version__


def _whole_decks(text: str) -> int:
    """``--decks`` of match and play: a whole number; its range is the rules' (``Rules.check_table`` says it
    in one line, ``decks out of range: 9 (1 .. 8)``, the same for 0 and 9, 1 .. 5000 under the judge's)."""
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"decks must be a whole number, not {text!r}") from None


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="twentyone", description="The 21 (blackjack) course game: matches, play, grading.")
    p.add_argument("--version", action="version", version=f"twentyone {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    m = sub.add_parser("match", help="play one match between players and print the ranking",
                       description="Play one match between 1 to 5 players and print the final ranking.")
    m.add_argument("--player", "-p", action="append", default=[], metavar="SPEC", help=PLAYER_HELP)
    m.add_argument("--decks", "-n", type=_whole_decks, default=None,
                   help="decks in the shoe, 1 to 8 in the course (the rules': 6)")
    m.add_argument("--seed", "-s", type=int_range(0, MAX_SEED, "seed"), default=1, help="match seed (1)")
    add_rule_options(m)
    m.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="seat names in seat order (default player1, player2, ...)")
    m.add_argument("--log", type=Path, metavar="FILE.jsonl", help="write the round log here")
    m.add_argument("--json", action="store_true", help="print the result as one JSON object")
    add_lang_option(m, languages=LANGUAGES)
    add_isolation_options(m)

    pl = sub.add_parser("play", help="play at the terminal against the dealer",
                        description="Sit at seat 1 and play against the dealer; q or Ctrl-C ends with the standings.")
    pl.add_argument("--decks", "-n", type=_whole_decks, default=None, help="decks (the rules': 6)")
    pl.add_argument("--seed", "-s", type=int_range(0, MAX_SEED, "seed"), default=None,
                    help="match seed (random if not given)")
    pl.add_argument("--with", dest="others", action="append", default=[], metavar="SPEC",
                    help="another player at the next seat (up to 4): " + PLAYER_HELP)
    add_lang_option(pl, languages=LANGUAGES)
    pl.add_argument("--log", type=Path, metavar="FILE.jsonl", help="write the round log here")
    add_rule_options(pl)
    add_isolation_options(pl)

    g = sub.add_parser("grade", help="grade submissions by the course rubric; reports in --out",
                       description="Grade each submission (a mycodes.c, a .py, or a folder or zip holding one, "
                                   "named after the student) by the course rubric, every match stored in "
                                   "--out/results.sqlite, and write the reports there.")
    g.add_argument("submissions", nargs="*", type=Path, metavar="SUBMISSION", help="mycodes.c, .py, folder or zip")
    g.add_argument("--config", type=Path, metavar="FILE.toml", help="thresholds, weights and budgets (see --example-config)")
    g.add_argument("--reference", action="append", default=[], metavar="NAME",
                   help="a built-in player (e.g. champion) graded beside the class as a reference line, no points")
    g.add_argument("--example-config", action="store_true", help="print the default configuration as TOML and exit")
    g.add_argument("--out", type=Path, default=Path("grade-results"), metavar="DIR", help="run folder (grade-results)")
    g.add_argument("--rules", default=None, metavar="NAME",
                   help="rule set, overriding the configuration's 'rules' (course); see 'twentyone rules --presets'")
    g.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule option; repeatable (see 'twentyone rules --options')")
    g.add_argument("--seed", "-s", type=int_range(0, 2**63 - 1, "seed"), default=None,
                   help="base seed, overriding the configuration's 'seed' (default: a secret one drawn for the run, "
                        "shown at the end and on index.html)")
    g.add_argument("--decks", "-n", type=int_range(1, 5000, "decks"), default=None,
                   help="decks, overriding the configuration's 'decks' (6)")
    _run_options(g)

    t = sub.add_parser("tournament", help="play a tournament between players; standings and reports in --out",
                       description="Play a tournament between 2 or more players and rank them by win rate.")
    t.add_argument("players", nargs="*", metavar="SPEC",
                   help=PLAYER_HELP.replace("; repeat for each seat, 1 to 5 seats", "").replace(" human,", "")
                   + "; none with --resume (the stored run has them)")
    t.add_argument("--matches", "-m", type=int_range(1, 100000, "matches"), default=20,
                   help="matches per pair (pairs) or deals of the field (table5) (20)")
    t.add_argument("--seed", "-s", type=int_range(0, MAX_SEED - 200000, "seed"), default=None,
                   help="base seed (default: a secret one drawn for the run, shown at the end and on index.html)")
    t.add_argument("--format", choices=("pairs", "table5"), default="pairs",
                   help="pairs: 2-seat round robin; table5: tables of up to 5 (or the rule set's seats), reseated "
                        "every deal (pairs)")
    t.add_argument("--decks", "-n", type=_whole_decks, default=None, help="decks (the rules': 6)")
    add_rule_options(t)
    t.add_argument("--out", type=Path, default=Path("tournament-results"), metavar="DIR",
                   help="run folder (tournament-results)")
    _run_options(t)

    rp = sub.add_parser("report", help="remake the reports of a grade or tournament run from its database",
                        description="Remake every report in DIR from DIR/results.sqlite alone.")
    rp.add_argument("out", type=Path, metavar="DIR", help="the run folder")
    rp.add_argument("--quiet", "-q", action="store_true", help="do not print the table")
    add_lang_option(rp)  # the pages' language

    sm = sub.add_parser("similar", help="find submissions that share work, by code and by play; pages in --out",
                        description="Compare submissions (taken as grade takes them) by their code and by the "
                                    "decisions they make in the same situations, and write the similarity page "
                                    "into --out. A score is evidence for a person to weigh, not a verdict.")
    sm.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION", help="mycodes.c, .py, folder or zip")
    sm.add_argument("--config", type=Path, metavar="FILE.toml", help="seeds and [similarity] settings, as for grade")
    sm.add_argument("--out", type=Path, default=Path("similarity-results"), metavar="DIR",
                    help="where the pages go (similarity-results)")
    sm.add_argument("--json", action="store_true", help="print the ranked pairs as JSON instead of a table")
    sm.add_argument("--workers", "-j", type=int_range(1, 256, "workers"), default=0, metavar="N",
                    help="local worker processes (default: one per core)")
    sm.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no table")
    sm.add_argument("--trusted", action="store_true", default=None,
                    help="run files in this process, for speed, when you vouch for the code")
    for name, default in (("decision-timeout", "0.25"), ("decision-wall-timeout", "10x --decision-timeout"),
                          ("match-timeout", "60")):
        sm.add_argument(f"--{name}", type=float, default=None, metavar="SECONDS", help=f"as for grade ({default})")

    d = sub.add_parser("doctor", help="show what confines untrusted code on this host and probe it from inside",
                       description="Print each layer of the sandbox on this host (system-call filter, Landlock "
                                   "ABI, user namespace, uid drop, empty root, limits) and whether it holds, then "
                                   "run hostile probes through the real sandbox. Exit 0 when every probe held, 1 "
                                   "when one got out, 2 when this host cannot confine untrusted code at all.")
    d.set_defaults(command="doctor")
    r = sub.add_parser("rules", help="print the rules document (RULES.md)")
    r.add_argument("--presets", action="store_true", help="list the rule presets instead")
    r.add_argument("--options", action="store_true", help="list every --rule KEY=VALUE option instead")

    from twentyone.analysis.commands import add_parsers as add_analysis_parsers  # edge, chart, ev

    add_analysis_parsers(sub)
    from twentyone.review.commands import add_parser as add_review_parser  # review (issue 26)

    add_review_parser(sub)
    from twentyone.games.commands import add_parsers as add_game_parsers  # solo, elimination

    add_game_parsers(sub)
    from twentyone.judge.commands import add_parsers as add_judge_parsers  # judge

    add_judge_parsers(sub)
    from twentyone.grading.autograder.commands import add_parsers as add_autograder_parsers  # autograder, check

    add_autograder_parsers(sub)

    cp = sub.add_parser("completion", help="print the tab-completion code for bash or zsh",
                        description="Print the shell code that makes Tab complete twentyone's commands, options, "
                                    "rule sets and player names (argcomplete).")
    cp.add_argument("shell", choices=("bash", "zsh"), help="the shell")
    add_examples(sub)
    return p


def add_rule_options(p: argparse.ArgumentParser, default: str = "course") -> None:
    """``--rules NAME`` and ``--rule KEY=VALUE`` (repeatable), read together by ``rules_of``."""
    p.add_argument("--rules", default=default, metavar="NAME",
                   help=f"rule set: {', '.join(PRESETS)} ({default}); see 'twentyone rules --presets'")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule option, e.g. split=true; repeatable (see 'twentyone rules --options')")


def rules_of(args: argparse.Namespace) -> Rules:
    """The rule set ``--rules`` and ``--rule`` name (RulesError, one line, if they cannot be played)."""
    return get_rules(args.rules).with_assignments(args.rule)


def _run_options(p: argparse.ArgumentParser) -> None:
    """Options shared by grade and tournament: resuming, where matches run, isolation, output."""
    p.add_argument("--resume", action="store_true", help="continue the run stored in --out")
    p.add_argument("--workers", "-j", type=int_range(1, 256, "workers"), default=0, metavar="N",
                   help="local worker processes (default: one per core)")
    p.add_argument("--cluster", metavar="dask[:ADDRESS]",
                   help="run on Dask distributed: a scheduler ADDRESS, or a LocalCluster for plain 'dask'")
    p.add_argument("--dask-workers", type=int_range(1, 256, "dask workers"), default=2, metavar="N",
                   help="workers of the LocalCluster that --cluster dask starts (2)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no table")
    add_lang_option(p)  # the pages' language (the terminal's table stays English: it is the instructor's)
    g = p.add_argument_group("isolation (submissions run in the sandbox unless --trusted)")
    g.add_argument("--trusted", action="store_true", default=None,
                   help="run files in this process, for speed, when you vouch for the code")
    g.add_argument("--decision-timeout", type=float, default=None, metavar="SECONDS",
                   help="CPU time limit per decision (0.25)")
    g.add_argument("--decision-wall-timeout", type=float, default=None, metavar="SECONDS",
                   help="wall-clock backstop per decision, against sleeping (default 10x --decision-timeout)")
    g.add_argument("--match-timeout", type=float, default=None, metavar="SECONDS",
                   help="wall-clock limit per match (60)")


def _execution(args: argparse.Namespace) -> Execution:
    from twentyone.grading.commands import Execution
    from twentyone.grading.runner import parse_cluster

    cluster = parse_cluster(args.cluster) if args.cluster else None
    return Execution(workers=args.workers, cluster=cluster, dask_workers=args.dask_workers,
                     progress=not args.quiet)


def _isolation(args: argparse.Namespace, base: Isolation) -> Isolation:
    """``base`` with the command-line options applied and checked."""
    from dataclasses import replace

    from twentyone.players.sandbox.limits import check_timeout

    changes: dict[str, Any] = {}
    if args.trusted:
        changes["trusted"] = True
    for name in ("decision_timeout", "match_timeout", "decision_wall_timeout"):
        v = getattr(args, name)
        if v is not None:
            changes[name] = check_timeout(f"--{name.replace('_', '-')}", v)
    return replace(base, **changes)


def _run_grade(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from twentyone.grading.commands import grade, seed_line, summary_table
    from twentyone.grading.config import GradingConfig, example_toml, load_config

    if args.example_config:
        print(example_toml(), end="")
        return 0
    config = load_config(args.config) if args.config else GradingConfig()
    config = replace(config, isolation=_isolation(args, config.isolation))
    if args.reference:
        config = replace(config, reference=tuple(dict.fromkeys(config.reference + tuple(args.reference)))).check()
    if args.rules is not None or args.rule:
        config = replace(config, rules=get_rules(args.rules or config.rules).with_assignments(args.rule).name).check()
    if args.seed is not None:
        config = replace(config, seed=args.seed).check()
    if args.decks is not None:
        config = replace(config, decks=args.decks).check()
    given = args.config is not None or args.trusted or args.decision_timeout is not None \
        or args.match_timeout is not None or args.decision_wall_timeout is not None or bool(args.reference) \
        or args.rules is not None or bool(args.rule) or args.seed is not None or args.decks is not None
    rep = grade(args.submissions, config, args.out, args.resume, _execution(args), config_given=given)
    if not args.quiet:
        summary_table(rep)
        print(f"report: {args.out / 'index.html'}")
        print(seed_line(args.out))
    return 1 if any(s.error for s in rep.students) or rep.damaged else 0


def _run_tournament(args: argparse.Namespace) -> int:
    from twentyone.grading.commands import seed_line, summary_table, tournament
    from twentyone.grading.config import Isolation

    if "human" in args.players:  # a person cannot sit through a tournament's hundreds of matches
        raise TwentyOneError("human cannot play in a tournament (it plays hundreds of matches unattended): to play "
                             "against players yourself, use 'twentyone play --with SPEC'")
    rules = rules_of(args)
    decks = args.decks if args.decks is not None else rules.decks
    rules.check_table(decks, 1)  # tables are sized to the rule set's seats (one seat: the duplicate format)
    rep = tournament(args.players, args.matches, args.seed, args.format, decks, rules.name, args.out,
                     args.resume, _isolation(args, Isolation()), _execution(args))
    if not args.quiet:
        summary_table(rep)
        print(f"report: {args.out / 'index.html'}")
        print(seed_line(args.out))
    return 1 if any(r.error for r in rep.standings) or rep.damaged else 0


def _run_report(args: argparse.Namespace) -> int:
    from twentyone.grading.commands import Execution, report, seed_line, summary_table
    from twentyone.judge.classrun import is_judge_run, remake

    if is_judge_run(args.out):  # a class judged by 'twentyone judge --out'
        remake(args.out, quiet=args.quiet)
        return 0

    rep = report(args.out, Execution(progress=False))
    if not args.quiet:
        summary_table(rep)
        print(f"report: {args.out / 'index.html'}")
        print(seed_line(args.out))
    return 1 if rep.damaged else 0


def _run_similar(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from twentyone.grading.commands import Execution
    from twentyone.grading.config import GradingConfig, load_config
    from twentyone.grading.similarity.command import similar, summary_table

    config = load_config(args.config) if args.config else GradingConfig()
    drawn = config.seed is None
    config = replace(config, isolation=_isolation(args, config.isolation)).seeded()
    rep = similar(args.submissions, config, args.out,
                  Execution(workers=args.workers, progress=not args.quiet and not args.json))
    seed = (f"seed: {config.seed} (drawn at random for this run: secret; the configuration's seed pins it)" if drawn
            else f"seed: {config.seed} (pinned by the configuration)")
    if args.json:
        print(json.dumps(rep.to_dict(), indent=2, ensure_ascii=False))
        print(f"twentyone: note: {seed}", file=sys.stderr)
    elif not args.quiet:
        summary_table(rep)
        print(f"report: {args.out / 'similarity.html'}")
        print(seed)
    return 1 if any(m.error for m in rep.members) else 0


def _fail(message: str, code: int = 2) -> int:
    print(f"twentyone: error: {visible(message)}", file=sys.stderr)  # it may quote a submission: made visible
    return code


def _run_rules(args: argparse.Namespace) -> int:
    if args.presets:
        for name, r in PRESETS.items():
            print(f"{name}: {r.describe()}")  # the game as the analysis commands' headers say it, then money and seats
        return 0
    if args.options:
        for key, (kind, detail, text) in OPTIONS.items():
            allowed = "|".join(detail) if kind == "choice" else {"int?": "int or none"}.get(kind, kind)
            print(f"{key} ({allowed}, course: {format_value(getattr(PRESETS['course'], key))}): {text}")
        return 0
    print((Path(__file__).parent / "RULES.md").read_text(encoding="utf-8"))
    return 0


def _subparser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (the top-level parser when there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``twentyone`` console script."""
    parser = _build_parser()
    if argv is None and "_ARGCOMPLETE" in os.environ:
        complete(parser)
    args, extra = parser.parse_known_args(argv)
    if extra:  # the subcommand's own parser says it, so the line points to its own --help
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help()
        return 2
    before = current()
    if hasattr(args, "lang_fallback"):  # a command a student reads: --lang, else the locale, else its own
        args.lang = choose(args.lang, args.lang_fallback, languages=args.lang_choices)
        activate(args.lang)
    try:
        return _dispatch(args)
    finally:
        activate(before)  # main called again in one process (a test) finds the language as it was


def _dispatch(args: argparse.Namespace) -> int:
    """Run the command ``args`` names; a user's error is one line and exit 2."""
    try:
        if getattr(args, "analysis_run", None) is not None:
            return int(args.analysis_run(args))
        if getattr(args, "game_run", None) is not None:
            return int(args.game_run(args))
        if getattr(args, "judge_run", None) is not None:
            return int(args.judge_run(args))
        if getattr(args, "grading_run", None) is not None:
            return int(args.grading_run(args))
        if args.command == "match":
            from twentyone.playing import run_match

            return run_match(args)
        if args.command == "play":
            from twentyone.playing import run_play

            return run_play(args)
        if args.command == "grade":
            return _run_grade(args)
        if args.command == "tournament":
            return _run_tournament(args)
        if args.command == "report":
            return _run_report(args)
        if args.command == "similar":
            return _run_similar(args)
        if args.command == "doctor":
            from twentyone.players.sandbox.doctor import main as doctor

            return doctor()
        if args.command == "completion":
            print(shell_code(args.shell), end="")
            return 0
        return _run_rules(args)
    except CompileError as e:
        _fail(str(e))
        if e.messages:
            print(visible(e.messages, MAX_MESSAGES, lines=True), file=sys.stderr)
        return 2
    except TwentyOneError as e:
        return _fail(str(e), getattr(e, "status", 2))  # a grade or tournament stopped by Ctrl-C: 130
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
