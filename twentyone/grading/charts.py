"""The reports' PNG charts: a win-rate chart per criterion and the bankroll curves of sample matches.

Drawn with matplotlib (the ``reports`` extra) in parallel processes for a class.  Chinese names are
drawn with the first installed CJK font (``CJK_FONTS``), or in pinyin where there is none; no warning or
log line of the drawing libraries ever reaches the terminal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from twentyone.grading.results import BankrollSample, Criterion, StudentScore

#: Short titles of the known rubric criteria (others use their name).
SHORT = {"legal": "Legal play", "beat_stand": "Beats stand", "beat_basic": "Beats basic",
         "tournament": "Tournament"}

__all__ = ["SHORT", "CHART_SIZE", "CLASS_CHART_SIZE", "NO_CHARTS", "CJK_FONTS", "NO_CJK_FONT", "win_rate_chart",
           "bankroll_chart", "chart_path", "draw_charts", "no_cjk_font", "totals_histogram", "rates_scatter",
           "draw_class_charts", "CLASS_CHARTS"]

#: Chart size in pixels (width, height).
CHART_SIZE = (580, 300)
#: The class page's charts, in pixels (width, height).
CLASS_CHART_SIZE = (560, 400)
#: The class page's charts: file (under ``class/``) and alt text.
CLASS_CHARTS = {"class/totals.png": "Histogram of the students' totals (rubric points plus bonus)",
                "class/win-rates.png": "Each student's win rate against stand by its win rate against basic, with "
                                       "both rubric lines"}
NO_CHARTS = "Charts not drawn: matplotlib is not installed (pip install 'twentyone[reports]')."
#: Fonts that draw Chinese, the first installed one used (behind DejaVu Sans, which draws the rest).
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC", "Noto Sans CJK KR", "Source Han Sans SC",
             "Source Han Sans CN", "Source Han Sans", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei",
             "Droid Sans Fallback", "Microsoft YaHei", "SimHei", "PingFang SC", "Hiragino Sans GB", "Heiti SC",
             "AR PL UMing CN", "AR PL UKai CN", "Noto Serif CJK SC", "Noto Serif CJK JP")
#: Files of those fonts, for a matplotlib font list made before the font was installed (best first).
_CJK_FILES = ("NotoSansCJK", "SourceHanSans", "wqy-?microhei", "wqy-?zenhei", "DroidSansFallback", "msyh", "simhei",
              "PingFang", "Hiragino", "STHeiti", "uming", "ukai", "NotoSerifCJK")
NO_CJK_FONT = ("no font that draws Chinese is installed (e.g. apt-get install fonts-noto-cjk): charts show "
               "Chinese names in pinyin")


def chart_path(name: str, stem: str) -> str:
    """A chart's path relative to ``students/``."""
    return f"{name}/{stem}.png"  # a name write_reports has checked to be one safe path component



@contextmanager
def _library_quiet() -> Iterator[None]:
    """No warning and no log line of matplotlib (or Pillow) reaches the terminal: "Glyph missing from
    font", "findfont: ...", "building the font cache" and the like."""
    import logging
    import warnings

    loggers = [logging.getLogger(name) for name in ("matplotlib", "PIL")]
    levels = [log.level for log in loggers]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for log in loggers:
            log.setLevel(logging.CRITICAL + 1)
        try:
            yield
        finally:
            for log, level in zip(loggers, levels):
                log.setLevel(level)


@functools.cache
def _chart_fonts() -> tuple[tuple[str, ...], frozenset[int] | None]:
    """The font families charts are drawn with, and (when none of them draws Chinese) the characters that
    DejaVu Sans draws; None when a CJK font is among them.  Call inside ``_library_quiet``."""
    from matplotlib import font_manager

    def installed() -> list[str]:
        names = {f.name for f in font_manager.fontManager.ttflist}
        return [n for n in CJK_FONTS if n in names]

    cjk = installed()
    if not cjk:  # matplotlib's font list may predate the font: look for its files and add them
        def rank(f: str) -> int:
            return next((i for i, pat in enumerate(_CJK_FILES) if re.search(pat, Path(f).name, re.I)), -1)

        files = sorted((f for f in font_manager.findSystemFonts() if rank(f) >= 0),
                       key=lambda f: (rank(f), "bold" in f.lower(), f))
        for f in files:
            try:
                font_manager.fontManager.addfont(f)
            except Exception:  # noqa: BLE001 - a font file matplotlib cannot read is simply not used
                continue
            cjk = installed()
            if cjk:
                break
    if cjk:
        return ("DejaVu Sans", cjk[0]), None
    from matplotlib.ft2font import FT2Font

    drawn = FT2Font(font_manager.findfont("DejaVu Sans")).get_charmap()
    return ("DejaVu Sans",), frozenset(drawn)


def _drawable(text: str, drawn: frozenset[int] | None) -> str:
    """``text`` as charts draw it: itself, or (no CJK font: ``drawn`` is what DejaVu Sans draws) with each
    character it cannot draw in pinyin (张三 -> ZhangSan), or as ``U+XXXX`` when there is no pinyin for it."""
    if drawn is None or all(ord(ch) in drawn for ch in text):
        return text
    try:
        from pypinyin import Style, pinyin
    except ImportError:
        pinyin = None  # type: ignore[assignment]
    out = []
    for ch in text:
        if ord(ch) in drawn:
            out.append(ch)
            continue
        said = pinyin(ch, style=Style.NORMAL, errors="ignore") if pinyin is not None else []
        out.append(said[0][0].capitalize() if said and said[0] and said[0][0].isascii() else f"U+{ord(ch):04X}")
    return "".join(out)


@contextmanager
def _chart_context() -> Iterator[Callable[[str], str]]:
    """Around drawing one chart: the chart fonts, and no library warning on the terminal; yields the
    function that turns a text into what the chart draws (``_drawable``)."""
    with _library_quiet():
        import matplotlib

        families, drawn = _chart_fonts()
        with matplotlib.rc_context({"font.family": list(families)}):
            yield functools.partial(_drawable, drawn=drawn)


def no_cjk_font(students: Sequence[StudentScore]) -> bool:
    """True when some chart text of ``students`` holds a character that no installed font draws."""
    texts = [s.name for s in students] + [t for s in students for sm in s.samples for t in (sm.title, *sm.names)]
    if all(t.isascii() for t in texts):
        return False
    try:
        with _library_quiet():
            import matplotlib  # noqa: F401

            _, drawn = _chart_fonts()
    except ImportError:
        return False
    return drawn is not None and any(_drawable(t, drawn) != t for t in texts)


def _figure(title: str, xlabel: str, ylabel: str, size: tuple[int, int] = CHART_SIZE) -> tuple[Any, Any]:
    """A fresh Agg figure and its axes (no pyplot: no global state, safe in threads)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size[0] / 100, size[1] / 100), dpi=100)
    FigureCanvasAgg(fig)
    # Fixed margins for the fixed chart size: a layout engine costs half of every chart's drawing.
    fig.subplots_adjust(left=0.13, right=0.97, top=0.9, bottom=0.14)
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def win_rate_chart(criterion: Criterion, path: Path) -> Path:
    """Draw the running win rate, its interval band and the threshold of ``criterion`` into ``path``."""
    with _chart_context() as text:
        return _win_rate_chart(criterion, path, text)


def _win_rate_chart(criterion: Criterion, path: Path, text: Callable[[str], str]) -> Path:
    from matplotlib.ticker import PercentFormatter

    c = criterion
    run = list(c.running)
    if not run and c.rate is not None and c.low is not None and c.high is not None:
        run = [(c.matches, c.rate, c.low, c.high)]
    fig, ax = _figure(text(f"{SHORT.get(c.name, c.name)}: win rate over matches ({c.status})"), "matches played",
                      "win rate")
    xs = [r[0] for r in run]
    ax.fill_between(xs, [r[2] for r in run], [r[3] for r in run], color="#2d6cdf", alpha=0.2, linewidth=0,
                    label=f"{c.confidence:.0%} interval", step=None)
    ax.plot(xs, [r[1] for r in run], marker="o", markersize=3, color="#2d6cdf", label="win rate")
    if c.threshold is not None:
        ax.axhline(c.threshold, color="#c0392b", linestyle="--", linewidth=1.2, label=f"threshold {c.threshold:.0%}")
    # Zoom on the band and the threshold: a narrow interval must stay visible.
    ys = [r[2] for r in run] + [r[3] for r in run] + ([c.threshold] if c.threshold is not None else [])
    ax.set_ylim(max(0.0, min(ys) - 0.05), min(1.0, max(ys) + 0.05))
    ax.set_xlim(0, max(xs + [1]) * 1.02)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.legend(loc="best", fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def bankroll_chart(sample: BankrollSample, path: Path, highlight: str | None = None) -> Path:
    """Draw every seat's money after each round of ``sample`` into ``path``; ``highlight``'s line is bold."""
    with _chart_context() as text:
        fig, ax = _figure(text(sample.title), "round", "money")
        for name, curve in zip(sample.names, sample.curves):
            bold = name == highlight
            ax.plot(range(1, len(curve) + 1), curve, label=text(name), linewidth=2.4 if bold else 1.2,
                    zorder=3 if bold else 2)
        ax.legend(loc="best", fontsize=8)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="png")
    return path


def draw_charts(s: StudentScore, folder: Path) -> dict[str, str] | None:
    """Draw a student's charts into ``folder``; alt texts by path relative to ``students/`` (None: no matplotlib)."""
    try:
        with _library_quiet():
            import matplotlib  # noqa: F401
    except ImportError:
        return None
    charts: dict[str, str] = {}
    for c in s.criteria:
        # A line decided at its first look has one point: no curve to draw (its rubric line says what and why).
        if c.rate is not None and c.matches and c.name != "tournament" and len(c.running) >= 2:
            rel = chart_path(s.name, f"winrate-{c.name}")
            win_rate_chart(c, folder / rel)
            charts[rel] = f"{c.title}: running win rate and its interval over {c.matches} matches"
    for k, sample in enumerate(s.samples, 1):
        rel = chart_path(s.name, f"bankroll-{k}")
        bankroll_chart(sample, folder / rel, highlight=s.name)
        charts[rel] = f"Bankroll curves: {sample.title}"
    return charts


def _rate(s: StudentScore, name: str) -> Criterion | None:
    c = next((c for c in s.criteria if c.name == name), None)
    return c if c is not None and c.rate is not None and c.matches else None


def totals_histogram(students: Sequence[StudentScore], path: Path, top: float) -> Path:
    """A histogram of the graded students' totals (references left out) in bins of 5 points, 0 to ``top``."""
    with _chart_context():
        fig, ax = _figure("Totals of the class (rubric points + bonus)", "total", "students", CLASS_CHART_SIZE)
        totals = [s.total for s in students if not s.reference]
        edges = [5.0 * k for k in range(int(max([top, *totals]) // 5) + 2)]
        ax.hist(totals, bins=edges, color="#2d6cdf", edgecolor="#ffffff")
        ax.set_xlim(0, edges[-1])
        ax.yaxis.get_major_locator().set_params(integer=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="png")
    return path


def rates_scatter(students: Sequence[StudentScore], path: Path, stand_line: float, basic_line: float) -> Path:
    """Each student's win rate against stand (x) by its win rate against basic (y), with their intervals, each a
    labelled point; the two rubric lines (``stand_line``, ``basic_line``) drawn.  Reference lines are grey
    diamonds, labelled as references; a student without both rates is left out."""
    with _chart_context() as text:
        fig, _ = _rates_figure(students, stand_line, basic_line, text)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="png")
    return path


def _rates_figure(students: Sequence[StudentScore], stand_line: float, basic_line: float,
                  text: Callable[[str], str]) -> tuple[Any, Any]:
    """The scatter of ``rates_scatter`` as a figure and its axes (call inside ``_chart_context``)."""
    from matplotlib.ticker import PercentFormatter

    fig, ax = _figure("Win rates: against stand by against basic", "win rate against stand",
                      "win rate against basic", CLASS_CHART_SIZE)
    ax.axvline(stand_line, color="#c0392b", linestyle="--", linewidth=1.2, label=f"rubric: {stand_line:.0%} vs stand")
    ax.axhline(basic_line, color="#c77c00", linestyle="--", linewidth=1.2, label=f"rubric: {basic_line:.0%} vs basic")
    labels: dict[tuple[float, float, bool], list[str]] = {}  # students on one point share one label
    for s in students:
        x, y = _rate(s, "beat_stand"), _rate(s, "beat_basic")
        if x is None or y is None or x.rate is None or y.rate is None:
            continue
        colour, marker = ("#7b8794", "D") if s.reference else ("#2d6cdf", "o")
        ax.errorbar([x.rate], [y.rate], xerr=[[x.rate - (x.low or x.rate)], [(x.high or x.rate) - x.rate]],
                    yerr=[[y.rate - (y.low or y.rate)], [(y.high or y.rate) - y.rate]], fmt=marker, color=colour,
                    ecolor=colour, elinewidth=0.8, alpha=0.9, markersize=5, capsize=0)
        labels.setdefault((x.rate, y.rate, s.reference), []).append(text(s.name))
    for (x_rate, y_rate, reference), names in labels.items():
        left = x_rate > 0.8  # near the right edge the label goes to the left of its point
        ax.annotate(", ".join(names), (x_rate, y_rate), xytext=(-4 if left else 4, 3), textcoords="offset points",
                    fontsize=7, ha="right" if left else "left", color="#7b8794" if reference else "#2d6cdf")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.legend(loc="upper left", fontsize=8)  # no submission beats basic while losing to stand: free space
    return fig, ax


def draw_class_charts(students: Sequence[StudentScore], out: Path, top: float, stand_line: float,
                      basic_line: float) -> dict[str, str] | None:
    """The class page's charts in ``out/class/``: alt texts by path relative to ``out`` (None: no matplotlib)."""
    try:
        with _library_quiet():
            import matplotlib  # noqa: F401
    except ImportError:
        return None
    totals_histogram(students, out / "class" / "totals.png", top)
    rates_scatter(students, out / "class" / "win-rates.png", stand_line, basic_line)
    return dict(CLASS_CHARTS)
