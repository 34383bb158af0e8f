"""The exact-analysis commands, added to ``twentyone``'s command line by ``add_parsers``.

- ``twentyone edge [--all]``: the round's exact EV (and SD) for optimal and basic play;
- ``twentyone chart [--kind basic|best] [--csv FILE] [--png FILE] [--compare CHART]``: the strategy
  chart in the French document's layout, written as CSV or PNG, compared with another chart;
- ``twentyone ev HAND vs UP [HAND vs UP ...]``: the exact EV of each decision, e.g. ``twentyone ev T6 vs 2``
  or ``twentyone ev "A7 vs 9" "88 vs A"``.

Each takes ``--rules NAME``, ``--decks N``, ``--rule KEY=VALUE`` (any option of
``twentyone.analysis.options``, repeatable) and ``--shoe COMPOSITION`` (the shoe the round is dealt
from, e.g. ``A:20,2:24,...,T:90`` or the remaining cards).  Errors are ``TwentyOneError``s, which the
command line prints as one line.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Final

from twentyone.analysis.options import MAX_OPTION_DECKS, OPTION_NAMES, AnalysisRules
from twentyone.analysis.shoe import Shoe
from twentyone.errors import TwentyOneError
from twentyone.i18n import _, add_lang_option, ljust, ngettext
from twentyone.rules import get_rules, parse_assignment

__all__ = ["add_parsers", "run_edge", "run_chart", "run_ev", "hands_and_ups", "FRENCH_EXPERT"]

#: The French document's expert chart, as printed (``--compare french-expert``).
FRENCH_EXPERT: Final = Path(__file__).resolve().parent / "data" / "french-expert.csv"


def _decks(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise argparse.ArgumentTypeError(f"decks out of range: {text!r} (1 .. 8)")
    return int(text)


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rules and shoe")
    g.add_argument("--rules", default="course", metavar="NAME", help="rule set (course)")
    g.add_argument("--decks", "-n", type=_decks, default=None, help="decks in a full shoe, 1 to 8 (the rules': 6)")
    g.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help=f"override one rule option; repeatable (keys: {', '.join(OPTION_NAMES)})")
    g.add_argument("--shoe", metavar="COMPOSITION",
                   help="the shoe the round is dealt from, e.g. A:20,2:24,3:24,4:24,5:24,6:24,7:24,8:24,9:24,T:90, "
                        "or the remaining cards AAT5K...")
    add_lang_option(p)


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``edge``, ``chart`` and ``ev`` commands; each sets ``analysis_run`` to its runner."""
    e = subparsers.add_parser("edge", help="exact EV of a round (and its SD) for optimal and basic play",
                              description="Exact EV per initial bet of one player off the top of the shoe, "
                                          "with the standard deviation when no hand is split.")
    e.add_argument("--all", action="store_true", help="also always-stand and mimic-the-dealer")
    _common(e)
    e.set_defaults(analysis_run=run_edge)

    c = subparsers.add_parser("chart", help="the exact strategy chart (hard, soft, pairs by up card 2..A)",
                              description="Print the strategy chart derived exactly for the rules, in the "
                                          "French document's layout; write it as CSV or PNG.")
    c.add_argument("--kind", choices=("basic", "best"), default="basic",
                   help="basic: best total-dependent chart; best: composition-dependent best first decision "
                        "of one representative hand a row (basic)")
    c.add_argument("--csv", type=Path, metavar="FILE", help="write the chart as CSV")
    c.add_argument("--png", type=Path, metavar="FILE", help="write the chart as a coloured PNG")
    c.add_argument("--compare", metavar="CHART",
                   help="a chart CSV (or 'french-expert') to compare with: differences and its EV")
    _common(c)
    c.set_defaults(analysis_run=run_chart)

    v = subparsers.add_parser("ev", help="exact EV of each decision: twentyone ev T6 vs 2",
                              description="Exact EV per initial bet of each decision for a hand against an up "
                                          "card (or several: T6 vs 2 A7 vs 9), later decisions played optimally.")
    v.add_argument("words", nargs="+", metavar="HAND vs UP",
                   help="one or more, e.g. T6 vs 2, A7 vs 9, 88 vs A, T42 vs T (quoted or not; 'vs' may be left out)")
    _common(v)
    v.set_defaults(analysis_run=run_ev)


def _setup(args: argparse.Namespace) -> tuple[AnalysisRules, Shoe | None]:
    """The options and the shoe (None: a full shoe of the options' decks) the command analyses.

    A rule set of more decks than the options take (``judge``: 5000) is analysed off its own full shoe,
    unless ``--decks``, ``--rule decks=N`` or ``--shoe`` says otherwise."""
    rules = get_rules(args.rules)
    many = rules.decks if rules.decks > MAX_OPTION_DECKS else 0
    opts = AnalysisRules.of(rules, decks=args.decks if args.decks is not None else min(rules.decks, MAX_OPTION_DECKS))
    opts = opts.with_assignments(args.rule)
    if args.shoe:
        return opts, Shoe.parse(args.shoe)
    if many and args.decks is None and all(parse_assignment(a)[0] != "decks" for a in args.rule):
        return opts, Shoe.decks(many)
    return opts, None


def _header(opts: AnalysisRules, shoe: Shoe | None) -> str:
    """The rules line (the game as ``rules --presets`` describes it), the shoe when it is not a full one, and
    what of the rules the analysis leaves out."""
    from twentyone.analysis.exact import describe

    if shoe is not None and shoe != Shoe.decks(opts.decks) and not shoe.is_full_decks():
        text = (_("rules: {game}").format(game=f"{opts.name}: {opts.describe(-1)}") + "\n"
                + _("shoe: {n} cards ({shoe})").format(n=shoe.total, shoe=shoe))
    else:
        text = _("rules: {game}").format(game=describe(opts, shoe))
    if opts.changer:
        text += "\n" + _("not analysed: the Changer (these figures play without it)")
    return text


def run_edge(args: argparse.Namespace) -> int:
    """``twentyone edge``: print the exact EV and SD."""
    from twentyone.analysis.exact import analyse, house_edge

    opts, shoe = _setup(args)
    a = analyse(opts, shoe)
    print(_header(opts, shoe))
    rows = [(_("optimal (composition-dependent)"), a.optimal), (_("basic (total-dependent chart)"), a.basic)]
    if args.all:
        rows += [(_("always stand"), house_edge(opts, shoe, "stand")),
                 (_("mimic the dealer"), house_edge(opts, shoe, "mimic"))]
    for label, r in rows:
        sd = _("SD {sd:.4f}").format(sd=r.sd) if r.sd is not None else _("SD not computed (hands are split)")
        print(f"{ljust(label, 34)}{100 * r.ev:+9.4f}%   {sd}")
    print(_("EV per initial bet, exact; {seconds:.2f} s").format(seconds=a.seconds))
    return 0


def run_chart(args: argparse.Namespace) -> int:
    """``twentyone chart``: print (and write) the chart; compare it with another."""
    from twentyone.analysis.charts import Chart, compare_charts
    from twentyone.analysis.exact import analyse, house_edge

    opts, shoe = _setup(args)
    other = None
    if args.compare:
        other = Chart.read(FRENCH_EXPERT if args.compare == "french-expert" else Path(args.compare))
    a = analyse(opts, shoe)
    chart = a.basic_chart if args.kind == "basic" else a.best_chart
    if args.csv:  # the files first: one that cannot be written is the command's one line, before any chart
        chart.write_csv(args.csv)
    if args.png:
        chart.write_png(args.png)
    print(chart.to_text(), end="")
    if args.csv:
        print(f"CSV: {args.csv}")
    if args.png:
        print(f"PNG: {args.png}")
    if other is not None:
        diffs = compare_charts(other, chart)
        print("\n" + ngettext("{title} against this chart: {n} cell differs (its cell / this chart's)",
                              "{title} against this chart: {n} cells differ (its cell / this chart's)",
                              len(diffs)).format(title=other.title, n=len(diffs)))
        for d in diffs:
            print(f"  {d}")
        mine = a.basic if args.kind == "basic" else a.optimal
        theirs = house_edge(opts, shoe, other)
        print(_("EV playing {title}: {theirs:+.4f}%; this chart's strategy: {mine:+.4f}%").format(
            title=other.title, theirs=100 * theirs.ev, mine=100 * mine.ev))
    return 0


_VS: Final = ("vs", "v", "against")


def hands_and_ups(words: list[str]) -> list[tuple[str, str]]:
    """The (hand, up card) pairs of ``ev``'s words: ``HAND vs UP`` (or ``HAND UP``) once or more, each as
    separate words or quoted as one (``"A7 vs 9"``); TwentyOneError in one line otherwise."""
    tokens = [t for w in words for t in w.split()]
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        hand = tokens[i]
        j = i + 1
        if j < len(tokens) and tokens[j].lower() in _VS:
            j += 1
        if hand.lower() in _VS or j >= len(tokens) or tokens[j].lower() in _VS:
            raise TwentyOneError(f"expected HAND vs UP (e.g. T6 vs 2), not {' '.join(tokens[i:]) or ' '.join(words)!r}")
        pairs.append((hand, tokens[j]))
        i = j + 1
    if not pairs:
        raise TwentyOneError("expected HAND vs UP (e.g. T6 vs 2)")
    return pairs


def run_ev(args: argparse.Namespace) -> int:
    """``twentyone ev HAND vs UP [HAND vs UP ...]``: print each decision's exact EV for each hand."""
    from twentyone.analysis.exact import decision_evs

    opts, shoe = _setup(args)
    pairs = hands_and_ups(args.words)
    results = [decision_evs(hand, up, opts, shoe) for hand, up in pairs]  # every pair checked before printing
    print(_header(opts, shoe))
    for d in results:
        print((_("{hand} vs {up}: EV per initial bet, given the dealer has no Black Jack") if d.given_no_blackjack
               else _("{hand} vs {up}: EV per initial bet")).format(hand=d.hand, up=d.up))
        if d.natural:
            print("  " + _("Black Jack: {ev:+.6f} (no decision)").format(ev=d.stand))
        else:
            best = d.best
            for name, v in d.options():
                print(f"  {ljust(_(name), 10)}{v:+.6f}  ({100 * v:+.4f}%)" + ("  " + _("best") if name == best else ""))
        if d.insurance is not None:
            print("  " + _("insurance {ev:+.6f}  (side bet of half the bet; dealer Black Jack {chance:.4f})").format(
                ev=d.insurance, chance=d.p_blackjack))
    return 0
