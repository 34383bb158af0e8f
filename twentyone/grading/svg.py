"""Charts as inline SVG: a plot's axes, lines, bands, bars, points and labels, written as text.

The report pages draw their few simple charts here instead of through matplotlib: a chart is a few hundred
bytes of markup in the page itself (no file, no image to load, nothing for the page's Content-Security-Policy
to allow), text is drawn by the browser in the page's own fonts (Chinese names included), and a class's
pages cost no rendering at all when they are written.  ``Plot`` maps data to pixels in a fixed ``viewBox``;
the page scales it to the width it has.  Every text is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

__all__ = ["Plot", "nice_ticks", "text_width", "PALETTE", "percent", "plain"]

#: Line colours, one per series in turn (matplotlib's tab10, which the charts used before).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
_AXIS = "#5a6472"
_GRID = "#e6e9ee"


def nice_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """At most ``most`` round values from ``lo`` to ``hi`` (steps of 1, 2, 2.5 or 5 times a power of ten)."""
    if not math.isfinite(lo) or not math.isfinite(hi) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    k = 0
    while first + k * step <= hi + step * 1e-9:
        ticks.append(round(first + k * step, 10))
        k += 1
    return ticks


def text_width(text: str, size: float) -> float:
    """About how wide ``text`` is drawn at ``size`` pixels (a sans-serif font; CJK characters are square)."""
    return sum(size * (1.0 if ord(ch) >= 0x2E80 else 0.58) for ch in text)


def percent(v: float) -> str:
    """A tick label: ``40%``."""
    return f"{100 * v:.0f}%"


def plain(v: float) -> str:
    """A tick label: ``1200``, ``2.5``."""
    return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:g}"


class Plot:
    """One chart: a ``width`` x ``height`` picture whose plot area maps ``xs`` and ``ys`` (data ranges)."""

    def __init__(self, width: int, height: int, xs: tuple[float, float], ys: tuple[float, float], title: str,
                 xlabel: str, ylabel: str, x_format: Callable[[float], str] = plain,
                 y_format: Callable[[float], str] = plain, x_ticks: Sequence[float] | None = None) -> None:
        self.width, self.height = width, height
        self.left, self.right, self.top, self.bottom = 62.0, width - 14.0, 30.0, height - 40.0
        self.xs = xs if xs[1] > xs[0] else (xs[0], xs[0] + 1)
        self.ys = ys if ys[1] > ys[0] else (ys[0], ys[0] + 1)
        self.title = title
        self.items: list[str] = []
        self.legend_entries: list[tuple[str, str, str]] = []  # (kind, colour, label)
        self._axes(xlabel, ylabel, x_format, y_format, x_ticks)

    # -- coordinates --------------------------------------------------------------------------------------
    def x(self, v: float) -> float:
        return self.left + (v - self.xs[0]) / (self.xs[1] - self.xs[0]) * (self.right - self.left)

    def y(self, v: float) -> float:
        return self.bottom - (v - self.ys[0]) / (self.ys[1] - self.ys[0]) * (self.bottom - self.top)

    def _axes(self, xlabel: str, ylabel: str, x_format: Callable[[float], str], y_format: Callable[[float], str],
              x_ticks: Sequence[float] | None) -> None:
        out = self.items
        for t in nice_ticks(*self.ys):
            py = self.y(t)
            out.append(f'<line x1="{self.left:.1f}" y1="{py:.1f}" x2="{self.right:.1f}" y2="{py:.1f}" '
                       f'stroke="{_GRID}"/>')
            out.append(self._text(self.left - 6, py + 4, y_format(t), 11, "end", _AXIS))
        for t in x_ticks if x_ticks is not None else nice_ticks(*self.xs, most=7):
            px = self.x(t)
            out.append(f'<line x1="{px:.1f}" y1="{self.top:.1f}" x2="{px:.1f}" y2="{self.bottom:.1f}" '
                       f'stroke="{_GRID}"/>')
            out.append(self._text(px, self.bottom + 15, x_format(t), 11, "middle", _AXIS))
        out.append(f'<rect x="{self.left:.1f}" y="{self.top:.1f}" width="{self.right - self.left:.1f}" '
                   f'height="{self.bottom - self.top:.1f}" fill="none" stroke="{_AXIS}"/>')
        out.append(self._text((self.left + self.right) / 2, self.height - 6, xlabel, 12, "middle", "#1d2430"))
        cy = (self.top + self.bottom) / 2
        out.append(f'<text x="14" y="{cy:.1f}" font-size="12" text-anchor="middle" fill="#1d2430" '
                   f'transform="rotate(-90 14 {cy:.1f})">{escape(ylabel)}</text>')
        out.append(self._text(self.width / 2, 18, self.title, 13, "middle", "#1d2430"))

    @staticmethod
    def _text(x: float, y: float, text: str, size: float, anchor: str, colour: str, extra: str = "") -> str:
        return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" fill="{colour}"{extra}>'
                f"{escape(text)}</text>")

    # -- marks --------------------------------------------------------------------------------------------
    def line(self, points: Sequence[tuple[float, float]], colour: str, width: float = 1.5, dash: str = "",
             label: str = "", dots: bool = False) -> None:
        """A polyline through ``points`` (data), dots on each with ``dots``; named in the legend by ``label``."""
        if not points:
            return
        path = " ".join(f"{self.x(a):.1f},{self.y(b):.1f}" for a, b in points)
        style = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="{width:g}" '
                          f'stroke-linejoin="round"{style}/>')
        if dots:
            self.items += [f'<circle cx="{self.x(a):.1f}" cy="{self.y(b):.1f}" r="2.5" fill="{colour}"/>'
                           for a, b in points]
        if label:
            self.legend_entries.append(("dash" if dash else "line", colour, label))

    def band(self, xs: Sequence[float], lows: Sequence[float], highs: Sequence[float], colour: str,
             label: str = "") -> None:
        """The area between ``lows`` and ``highs`` over ``xs``."""
        if not xs:
            return
        pts = [(x, h) for x, h in zip(xs, highs)] + [(x, lo) for x, lo in zip(reversed(xs), reversed(lows))]
        path = " ".join(f"{self.x(a):.1f},{self.y(b):.1f}" for a, b in pts)
        self.items.append(f'<polygon points="{path}" fill="{colour}" fill-opacity="0.2" stroke="none"/>')
        if label:
            self.legend_entries.append(("area", colour, label))

    def hline(self, v: float, colour: str, label: str = "", dash: str = "6 4") -> None:
        self.line([(self.xs[0], v), (self.xs[1], v)], colour, 1.3, dash, label)

    def vline(self, v: float, colour: str, label: str = "", dash: str = "6 4") -> None:
        self.line([(v, self.ys[0]), (v, self.ys[1])], colour, 1.3, dash, label)

    def bar(self, x0: float, x1: float, height: float, colour: str) -> None:
        top, base = self.y(height), self.y(self.ys[0])
        self.items.append(f'<rect x="{self.x(x0) + 0.5:.1f}" y="{top:.1f}" width="{self.x(x1) - self.x(x0) - 1:.1f}" '
                          f'height="{base - top:.1f}" fill="{colour}"/>')

    def point(self, x: float, y: float, colour: str, diamond: bool = False) -> None:
        px, py = self.x(x), self.y(y)
        if diamond:
            self.items.append(f'<polygon points="{px:.1f},{py - 4.5:.1f} {px + 4.5:.1f},{py:.1f} {px:.1f},'
                              f'{py + 4.5:.1f} {px - 4.5:.1f},{py:.1f}" fill="{colour}"/>')
        else:
            self.items.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}"/>')

    def segment(self, a: tuple[float, float], b: tuple[float, float], colour: str, width: float = 0.8) -> None:
        self.items.append(f'<line x1="{self.x(a[0]):.1f}" y1="{self.y(a[1]):.1f}" x2="{self.x(b[0]):.1f}" '
                          f'y2="{self.y(b[1]):.1f}" stroke="{colour}" stroke-width="{width:g}"/>')

    def label(self, px: float, py: float, text: str, colour: str, anchor: str = "start", size: float = 10) -> None:
        """``text`` at pixel ``px``, ``py`` (its baseline), in the class ``label``."""
        self.items.append(self._text(px, py, text, size, anchor, colour, ' class="label"'))

    # -- the picture ----------------------------------------------------------------------------------------
    def legend_box(self, corner: str) -> tuple[float, float, float, float]:
        """Where the legend is drawn in ``corner`` ("upper left" ...): (left, top, right, bottom) in pixels."""
        w = max((text_width(label, 10.5) for _, _, label in self.legend_entries), default=0) + 34
        h = 16 * len(self.legend_entries) + 6
        x0 = self.left + 6 if corner.endswith("left") else self.right - 6 - w
        y0 = self.top + 6 if corner.startswith("upper") else self.bottom - 6 - h
        return x0, y0, x0 + w, y0 + h

    def _legend(self, corner: str | None) -> str:
        if not self.legend_entries:
            return ""
        size = 10.5
        if corner is None:  # the corner whose box covers the fewest marks' points
            corner = min(("upper right", "upper left", "lower right", "lower left"), key=self._crowding)
        x0, y0, x1, y1 = self.legend_box(corner)
        w, h = x1 - x0, y1 - y0
        out = [f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" fill="#ffffff" fill-opacity="0.85" '
               f'stroke="#d9dde3"/>']
        for k, (kind, colour, label) in enumerate(self.legend_entries):
            cy = y0 + 12 + 16 * k
            if kind == "area":
                out.append(f'<rect x="{x0 + 6:.1f}" y="{cy - 5:.1f}" width="18" height="9" fill="{colour}" '
                           'fill-opacity="0.3"/>')
            else:
                dash = ' stroke-dasharray="5 3"' if kind == "dash" else ""
                out.append(f'<line x1="{x0 + 6:.1f}" y1="{cy:.1f}" x2="{x0 + 24:.1f}" y2="{cy:.1f}" stroke="{colour}" '
                           f'stroke-width="2"{dash}/>')
            out.append(self._text(x0 + 30, cy + 4, label, size, "start", "#1d2430"))
        return "".join(out)

    def _crowding(self, corner: str) -> int:
        """How many of the marks' points the legend would cover in ``corner``."""
        import re

        marks = " ".join(self.items)
        coords = [(float(a), float(b)) for a, b in re.findall(r"(-?[\d.]+),(-?[\d.]+)", marks)]
        coords += [(float(a), float(b)) for a, b in re.findall(r'cx="([\d.]+)" cy="([\d.]+)"', marks)]
        x0, y0, x1, y1 = self.legend_box(corner)
        return sum(1 for a, b in coords if x0 <= a <= x1 and y0 <= b <= y1)

    def svg(self, alt: str, legend: str | None = None, css_class: str = "chart") -> str:
        """The chart as an inline ``<svg>`` element, described by ``alt`` (its ``<title>``, read out by screen
        readers); the legend in the ``legend`` corner ("upper left" ...), or the emptiest one."""
        return (f'<svg class="{css_class}" role="img" viewBox="0 0 {self.width} {self.height}" width="{self.width}" '
                f'height="{self.height}" xmlns="http://www.w3.org/2000/svg" font-family="system-ui,-apple-system,'
                f"'Segoe UI',Roboto,'Noto Sans CJK SC',sans-serif\"><title>{escape(alt)}</title>"
                f'<rect width="{self.width}" height="{self.height}" fill="#ffffff"/>'
                + "".join(self.items) + self._legend(legend) + "</svg>")
