"""The reports' charts, as inline SVG (``grading.svg``): a win-rate chart per criterion, the bankroll curves of
sample matches, and the class page's histogram of totals and scatter of win rates.

Each function returns an ``<svg>`` element that the page holds itself: nothing is written to disk, no library
draws anything, and the browser draws every text, Chinese names included, in the page's fonts.  A criterion
decided at its first look (one point: no curve) gets no chart; its rubric line says what was decided and why.
The scatter places each student's label where it overlaps no other label, no point and the legend, beside its
point or, in a crowd, at the nearest free place with a line to its point (``_place``).
"""

from __future__ import annotations

from collections.abc import Sequence

from twentyone.grading.results import BankrollSample, Criterion, StudentScore
from twentyone.grading.svg import PALETTE, Plot, percent, text_width
from twentyone.i18n import N_, _, pgettext

#: Short titles of the known rubric criteria (others use their name), in English: ``short_title`` translates.
SHORT = {"legal": N_("Legal play"), "beat_stand": N_("Beats stand"), "beat_basic": N_("Beats basic"),
         "tournament": N_("Tournament")}


def short_title(name: str) -> str:
    """A criterion's short title in the active language (its name when it has none)."""
    return _(SHORT[name]) if name in SHORT else name


def status_word(status: str) -> str:
    """A rubric line's status (``pass``, ``borderline`` ...: the stored value) in the active language."""
    words = {"pass": pgettext("status", "pass"), "fail": pgettext("status", "fail"),
             "borderline": pgettext("status", "borderline"), "incomplete": pgettext("status", "incomplete"),
             "not played": pgettext("status", "not played"), "bonus": pgettext("status", "bonus"),
             "reference": pgettext("status", "reference")}
    return words.get(str(status), str(status))


__all__ = ["SHORT", "short_title", "status_word", "CHART_SIZE", "CLASS_CHART_SIZE", "win_rate_chart",
           "bankroll_chart", "student_charts",
           "totals_histogram", "rates_scatter", "class_charts", "has_curve"]

#: A student page's chart, in pixels (width, height): the viewBox, scaled to the width the page has.
CHART_SIZE = (580, 300)
#: The class page's charts, in pixels (width, height).
CLASS_CHART_SIZE = (560, 400)
_BLUE, _RED, _ORANGE, _GREY = "#2d6cdf", "#c0392b", "#c77c00", "#7b8794"


def has_curve(c: Criterion) -> bool:
    """Whether ``c`` gets a win-rate chart: a win-rate line looked at twice or more (one look is one dot)."""
    return c.rate is not None and bool(c.matches) and c.name != "tournament" and len(c.running) >= 2


def win_rate_chart(criterion: Criterion) -> str:
    """The running win rate of ``criterion``, its interval band narrowing as matches are played, and the
    threshold (SVG)."""
    c = criterion
    run = list(c.running)
    xs = [r[0] for r in run]
    ys = [r[2] for r in run] + [r[3] for r in run] + ([c.threshold] if c.threshold is not None else [])
    # Zoomed on the band and the threshold: a narrow interval stays visible.
    low, high = max(0.0, min(ys) - 0.05), min(1.0, max(ys) + 0.05)
    p = Plot(*CHART_SIZE, (0, max(xs + [1]) * 1.02), (low, high),
             _("{criterion}: win rate over matches ({status})").format(criterion=short_title(c.name),
                                                                       status=status_word(c.status)),
             _("matches played"), _("win rate"), y_format=percent)
    p.band(xs, [r[2] for r in run], [r[3] for r in run], _BLUE, _("{confidence:.0%} interval").format(
        confidence=c.confidence))
    p.line([(r[0], r[1]) for r in run], _BLUE, 1.6, label=_("win rate"), dots=True)
    if c.threshold is not None:
        p.hline(c.threshold, _RED, _("threshold {threshold:.0%}").format(threshold=c.threshold))
    return p.svg(_("{criterion}: running win rate and its interval over {n} matches").format(criterion=c.title,
                                                                                            n=c.matches))


def bankroll_chart(sample: BankrollSample, highlight: str | None = None, alt: str = "") -> str:
    """Every seat's money after each round of ``sample`` (SVG); ``highlight``'s line is bold."""
    longest = max((len(c) for c in sample.curves), default=1)
    money = [m for c in sample.curves for m in c] or [0]
    pad = max(1.0, 0.05 * (max(money) - min(money)))
    p = Plot(*CHART_SIZE, (1, max(longest, 2)), (min(money) - pad, max(money) + pad), sample.title,
             pgettext("axis", "round"), pgettext("axis", "money"))
    named = len(sample.names) <= len(PALETTE)  # more curves than colours (a judge run of 20 tests): no legend
    for k, (name, curve) in enumerate(zip(sample.names, sample.curves)):
        bold = name == highlight
        p.line([(r + 1, m) for r, m in enumerate(curve)], PALETTE[k % len(PALETTE)], 2.6 if bold else 1.2,
               label=name if named else "")
    return p.svg(alt or _("Bankroll curves: {title}").format(title=sample.title))


def student_charts(s: StudentScore) -> tuple[list[str], list[str]]:
    """A student's page's charts: (the win-rate charts, the bankroll charts of its sample matches)."""
    return ([win_rate_chart(c) for c in s.criteria if has_curve(c)],
            [bankroll_chart(sample, s.name) for sample in s.samples])


def _rate(s: StudentScore, name: str) -> Criterion | None:
    c = next((c for c in s.criteria if c.name == name), None)
    return c if c is not None and c.rate is not None and c.matches else None


def totals_histogram(students: Sequence[StudentScore], top: float) -> str:
    """A histogram of the graded students' totals (references left out) in bins of 5 points, 0 to ``top`` (SVG)."""
    totals = [s.total for s in students if not s.reference]
    edges = [5.0 * k for k in range(int(max([top, *totals]) // 5) + 2)]
    counts = [sum(1 for t in totals if lo <= t < hi or (hi == edges[-1] and t == hi)) for lo, hi in zip(edges, edges[1:])]
    most = max(counts, default=0)
    p = Plot(*CLASS_CHART_SIZE, (0, edges[-1]), (0, max(1, most) * 1.05),
             _("Totals of the class (rubric points + bonus)"), pgettext("axis", "total"), pgettext("axis", "students"),
             y_format=lambda v: f"{v:.0f}" if v == int(v) else "")
    for lo, hi, n in zip(edges, edges[1:], counts):
        if n:
            p.bar(lo, hi, n, _BLUE)
    return p.svg(_("Histogram of the students' totals (rubric points plus bonus)"))


def rates_scatter(students: Sequence[StudentScore], stand_line: float, basic_line: float) -> str:
    """Each student's win rate against stand (x) by its win rate against basic (y), with their intervals, each a
    labelled point, and the two rubric lines (SVG).  Reference lines are grey diamonds; students on one point
    share one label; a student without both rates is left out."""
    p = Plot(*CLASS_CHART_SIZE, (0, 1.02), (0, 1.02), _("Win rates: against stand by against basic"),
             _("win rate against stand"), _("win rate against basic"), percent, percent, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    p.vline(stand_line, _RED, _("rubric: {line:.0%} vs stand").format(line=stand_line))
    p.hline(basic_line, _ORANGE, _("rubric: {line:.0%} vs basic").format(line=basic_line))
    labels: dict[tuple[float, float, bool], list[str]] = {}
    for s in students:
        x, y = _rate(s, "beat_stand"), _rate(s, "beat_basic")
        if x is None or y is None or x.rate is None or y.rate is None:
            continue
        colour = _GREY if s.reference else _BLUE
        p.segment((x.low if x.low is not None else x.rate, y.rate), (x.high if x.high is not None else x.rate, y.rate),
                  colour)
        p.segment((x.rate, y.low if y.low is not None else y.rate), (x.rate, y.high if y.high is not None else y.rate),
                  colour)
        labels.setdefault((x.rate, y.rate, s.reference), []).append(s.name)
    for (xr, yr, reference) in labels:
        p.point(xr, yr, _GREY if reference else _BLUE, diamond=reference)
    points = [(p.x(xr), p.y(yr)) for xr, yr, _ref in labels]
    texts = [", ".join(names) if len(names) <= 3 else _("{first}, {second} and {n} more").format(
        first=names[0], second=names[1], n=len(names) - 2) for names in labels.values()]
    legend = "upper left"  # no submission beats basic while losing to stand: free space
    for (px, py, anchor, leader), text, (qx, qy), (_x, _y, reference) in zip(
            _place(p, points, texts, [p.legend_box(legend)]), texts, points, labels):
        colour = _GREY if reference else _BLUE
        if leader:  # from the point to the middle of the label's nearer side
            width = text_width(text, 10)
            p.items.append(f'<line x1="{qx:.1f}" y1="{qy:.1f}" x2="{px if px >= qx else px + width:.1f}" '
                           f'y2="{py - 3:.1f}" stroke="{colour}" stroke-width="0.6" stroke-opacity="0.6"/>')
        p.label(px, py, text, colour, anchor)
    return p.svg(_("Each student's win rate against stand by its win rate against basic, with both rubric lines"),
                 legend=legend)


#: A label's or a point's box: left, top, right, bottom, in pixels.
Box = tuple[float, float, float, float]
#: Where a label may go around its point, in pixels (dx, dy of the text's start, and its anchor), nearest first.
_SPOTS = [(6, -5, "start"), (6, 12, "start"), (-6, -5, "end"), (-6, 12, "end"), (0, -9, "middle"), (0, 17, "middle")]


def _place(p: Plot, points: Sequence[tuple[float, float]], texts: Sequence[str], avoid: Sequence[Box] = (),
           size: float = 10) -> list[tuple[float, float, str, bool]]:
    """A place for each label: its text's x, baseline y, anchor, and whether it needs a leader line to its point.

    A label goes where it overlaps no label placed before, no point, nothing of ``avoid`` (the legend) and not
    the plot's edge: at a spot around its point (``_SPOTS``), else at the free place of the plot nearest to its
    point, joined to it by a thin line; labels are placed from the most crowded point out.  Only a plot too
    full for its labels puts one over another (at its first spot)."""
    boxes: list[Box] = list(avoid)
    dots = [(x - 4, y - 4, x + 4, y + 4) for x, y in points]
    high, low = size * 0.8, size * 0.25

    def box(x: float, y: float, anchor: str, width: float) -> Box:
        x0 = x if anchor == "start" else x - width if anchor == "end" else x - width / 2
        return (x0 - 2, y - high - 1, x0 + width + 2, y + low + 1)

    def free(b: Box) -> bool:
        inside = p.left <= b[0] and b[2] <= p.right and p.top <= b[1] and b[3] <= p.bottom
        return inside and not any(b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3] for o in boxes + dots)

    def crowd(i: int) -> int:
        x, y = points[i]
        return -sum(1 for a, b in points if abs(a - x) < 60 and abs(b - y) < 30)

    out: dict[int, tuple[float, float, str, bool]] = {}
    for i in sorted(range(len(points)), key=crowd):
        x, y = points[i]
        width = text_width(texts[i], size)
        choice = next(((x + dx, y + dy, anchor, False) for dx, dy, anchor in _SPOTS
                       if free(box(x + dx, y + dy, anchor, width))), None)
        if choice is None:  # the nearest free place of the plot, by the label's nearer end
            spots = [(px, py) for px in _steps(p.left + 2, p.right - width - 2, 8)
                     for py in _steps(p.top + high + 2, p.bottom - low - 2, high + low + 2)]
            spots.sort(key=lambda s: (min(abs(s[0] - x), abs(s[0] + width - x)) ** 2 + (s[1] - y) ** 2))
            choice = next(((px, py, "start", True) for px, py in spots if free(box(px, py, "start", width))), None)
        if choice is None:  # kept inside the plot all the same
            choice = (min(max(x + 6, p.left + 2), p.right - width - 2), y - 5, "start", False)
        boxes.append(box(*choice[:3], width))
        out[i] = choice
    return [out[i] for i in range(len(points))]


def _steps(start: float, stop: float, step: float) -> list[float]:
    out = []
    v = start
    while v <= stop:
        out.append(v)
        v += step
    return out


def class_charts(students: Sequence[StudentScore], top: float, stand_line: float, basic_line: float) -> list[str]:
    """The class page's charts: the histogram of totals and the scatter of win rates (SVG)."""
    return [totals_histogram(students, top), rates_scatter(students, stand_line, basic_line)]
