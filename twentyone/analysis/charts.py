"""Strategy charts: rows of hands by columns of dealer up cards, each cell an action and its fallbacks.

A ``Chart`` is a value: rows keyed by ``Row`` (hard or soft total with two cards or with three cards or
more, or a pair), ten cells each, for up cards ``2 3 4 5 6 7 8 9 T A``.  A cell is a preference
string over H hit, S stand, D double, U surrender and P split: the first action the situation allows
is played (``DS``: double, else stand).  A cell may stop before its stand or hit; then D and U fall
back to hit, and P to the row of the pair's total.  ``Chart.decide`` plays a chart; ``compare_charts``
lists where two charts differ.

Charts are written as CSV (``hand,2,3,...,T,A`` then one row per line, labels such as ``hard 12``,
``soft 18``, ``pair 88``, ``hard 16 3+``, ranges ``hard 5-8`` and lists ``pair AA / pair 88``; lines
starting with ``#`` are comments, ``# title:`` names the chart), and as text and a coloured PNG in the order
of the French course document (``hard 17+``, ``hard 16``..``hard 9``, ``hard 5-8``, ``soft 19-21 (A-8 to
A-10)``, ``soft 18 (A-7)``..``soft 13 (A-2)`` and the pairs; groups are split where their rows differ), the
text's row labels the PNG's, each with a legend of the letters it shows.
"""

from __future__ import annotations

import csv
import io
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final

from twentyone.analysis.errors import AnalysisError, ChartError
from twentyone.analysis.shoe import RANKS, rank_index
from twentyone.i18n import N_, _, ljust, pgettext, width

__all__ = ["UPS", "Kind", "Row", "Chart", "ChartDifference", "compare_charts", "check_cell", "chart_text",
           "plain_label", "LEGEND"]

#: Column order: the dealer's up card.
UPS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
_CELL = re.compile(r"^(?!.*(.).*\1)[DUP]{0,3}[HS]?$")


class Kind(StrEnum):
    """What a row holds."""

    HARD = "hard"
    SOFT = "soft"
    PAIR = "pair"


@dataclass(frozen=True, order=True)
class Row:
    """A chart row: a hard or soft total (two cards, or three cards or more if ``more``), or a pair.

    For a pair ``value`` is the rank index (0 = A .. 9 = T).
    """

    kind: Kind
    value: int
    more: bool = False

    @property
    def label(self) -> str:
        """The CSV label: ``hard 12``, ``soft 18``, ``pair 88``, ``hard 16 3+``."""
        if self.kind is Kind.PAIR:
            return f"pair {RANKS[self.value] * 2}"
        return f"{self.kind} {self.value}{' 3+' if self.more else ''}"

    @property
    def words(self) -> str:
        """The CSV label in the active language: ``hard 12``, ``soft 18``, ``pair 88``, ``hard 16, 3+ cards``."""
        if self.kind is Kind.PAIR:
            return _("pair {rank}").format(rank=RANKS[self.value] * 2)
        text = (_("hard {total}") if self.kind is Kind.HARD else _("soft {total}")).format(total=self.value)
        return text + (_(", 3+ cards") if self.more else "")

    @property
    def short(self) -> str:
        """The label as the French chart prints it: ``16``, ``A-7``, ``8-8``, ``16 (3+)``."""
        if self.kind is Kind.PAIR:
            c = "10" if self.value == 9 else RANKS[self.value]
            return f"{c}-{c}"
        text = str(self.value) if self.kind is Kind.HARD else f"A-{self.value - 11}"
        return f"{text} (3+)" if self.more else text

    @classmethod
    def parse(cls, text: str) -> list[Row]:
        """The rows a label names: ``hard 5-8``, ``soft 19-21 3+``, ``pair AA / pair 88``."""
        rows: list[Row] = []
        for part in text.split("/"):
            m = re.fullmatch(r"\s*(hard|soft|pair)\s+(\S+?)(?:\s*-\s*(\d+))?(\s+3\+)?\s*", part)
            if not m:
                raise ChartError(f"bad row label: {part.strip()!r} in {text!r} (e.g. 'hard 12', 'soft 18', "
                                 f"'pair 88', 'hard 16 3+', 'hard 5-8')")
            kind, first, last, more = Kind(m[1]), m[2], m[3], bool(m[4])
            if kind is Kind.PAIR:
                if last or more or len(first) not in (2, 4) or first[: len(first) // 2] != first[len(first) // 2:]:
                    raise ChartError(f"bad pair label: {part.strip()!r} (pair AA .. pair TT)")
                rows.append(cls(kind, rank_index(first[: len(first) // 2]) if first[:2] != "10" else 9))
                continue
            if not first.isdigit():
                raise ChartError(f"bad total in row label: {part.strip()!r}")
            lo, hi = int(first), int(last) if last else int(first)
            low = 12 if kind is Kind.SOFT else 4
            if not low <= lo <= hi <= 21:
                raise ChartError(f"total out of range in row label: {part.strip()!r} ({kind} {low} .. 21)")
            rows.extend(cls(kind, t, more) for t in range(lo, hi + 1))
        return rows


def check_cell(text: str) -> str:
    """Return ``text`` if it is a valid cell (e.g. ``H``, ``DS``, ``P``, ``UH``), else raise ChartError."""
    if not text or not _CELL.match(text):
        raise ChartError(f"bad chart cell: {text!r} (letters H S D U P, no repeats, none after H or S)")
    return text


@dataclass(frozen=True)
class ChartDifference:
    """One cell where two charts disagree (on the first choice)."""

    row: Row
    up: str
    a: str
    b: str

    def __str__(self) -> str:
        return _("{row} vs {up}: {a} / {b}").format(row=self.row.words, up=self.up, a=self.a, b=self.b)


def _default(kind: Kind, total: int) -> str:
    return "S" if total >= (18 if kind is Kind.SOFT else 17) else "H"


@dataclass(frozen=True)
class Chart:
    """A strategy chart: ``rows`` in display order, each ten cells for up cards 2..9, T, A."""

    title: str
    rows: tuple[tuple[Row, tuple[str, ...]], ...]
    _index: dict[Row, tuple[str, ...]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        index: dict[Row, tuple[str, ...]] = {}
        for row, cells in self.rows:
            if len(cells) != len(UPS):
                raise ChartError(f"row {row.label!r} has {len(cells)} cells (need {len(UPS)})")
            for c in cells:
                check_cell(c)
            if row in index:
                raise ChartError(f"row {row.label!r} given twice")
            index[row] = tuple(cells)
        object.__setattr__(self, "_index", index)

    @classmethod
    def build(cls, title: str, rows: Iterable[tuple[Row, Sequence[str]]]) -> Chart:
        """A chart from (row, cells) pairs."""
        return cls(title, tuple((r, tuple(c)) for r, c in rows))

    def row(self, row: Row) -> tuple[str, ...] | None:
        """The cells of ``row``, or None."""
        return self._index.get(row)

    def cell(self, row: Row, up: str) -> str | None:
        """The cell of ``row`` against ``up``, or None."""
        cells = self._index.get(row)
        return cells[UPS.index(_up(up))] if cells else None

    def preference(self, kind: Kind, total: int, cards: int, pair: int | None, up: str) -> str:
        """The full preference (ending with H or S) for a hand: its kind and total, its number of cards,
        the pair's rank index if it is a pair of two cards, against ``up``."""
        col = UPS.index(_up(up))
        out: list[str] = []

        def add(cell: str | None) -> None:
            for a in cell or "":
                if a not in out:
                    out.append(a)

        if pair is not None and cards == 2 and (cells := self._index.get(Row(Kind.PAIR, pair))):
            add(cells[col])
        if not any(a in "HS" for a in out):
            row = self._index.get(Row(kind, total, cards >= 3)) or self._index.get(Row(kind, total))
            add(row[col] if row else None)
        if not any(a in "HS" for a in out):
            add(_default(kind, total) if not out else "H")
        cut = next(i for i, a in enumerate(out) if a in "HS")
        return "".join(out[: cut + 1])

    def decide(self, cards: str, up: str, *, can_double: bool = True, can_surrender: bool = True,
               can_split: bool = True) -> str:
        """The action (``h s d u p``) this chart plays with ``cards`` against ``up``, given what is allowed."""
        ranks = [rank_index(c) for c in cards]
        hard = sum(r + 1 for r in ranks)
        soft = 0 in ranks and hard <= 11
        total = hard + 10 if soft else hard
        if total >= 21:
            return "s"
        pair = ranks[0] if len(ranks) == 2 and ranks[0] == ranks[1] else None
        allowed = {"H", "S"} | ({"D"} if can_double else set()) | ({"U"} if can_surrender else set()) \
            | ({"P"} if can_split and pair is not None else set())
        prefs = self.preference(Kind.SOFT if soft else Kind.HARD, total, len(ranks), pair, up)
        return next(a for a in prefs if a in allowed).lower()

    # -- text ----------------------------------------------------------------------------------------

    def _display(self) -> list[tuple[str, list[Row]]]:
        """The lines the text and the PNG show, in the French document's order, each with its label in plain words
        (``plain_label``) and the rows it stands for.  A group is one line when its rows agree, else one line a
        row; the pairs one a line, A-A then 10-10 down to 2-2; then the 3+ card rows."""
        out: list[tuple[str, list[Row]]] = []
        for _group, rows in _french_groups():
            present = [r for r in rows if r in self._index]
            if not present:
                continue
            if len(present) > 1 and len({tuple(map(_show, self._index[r])) for r in present}) == 1:
                out.append((plain_label(present), present))
            else:
                out.extend((plain_label([r]), [r]) for r in present)
        # The pairs one a line from A-A down to 2-2 (the document's "A-A / 8-8" line would put 8-8 before 10-10).
        pairs = sorted((r for r in self._index if r.kind is Kind.PAIR), key=lambda r: (r.value != 0, -r.value))
        out = [line for line in out if line[1][0].kind is not Kind.PAIR] + [(plain_label([r]), [r]) for r in pairs]
        extra = [r for r in self._index if r.more and ((r.kind is Kind.HARD and 12 <= r.value <= 16)
                                                       or (r.kind is Kind.SOFT and r.value == 18))]
        out.extend((plain_label([r]), [r]) for r in sorted(extra))
        return out

    def legend(self) -> list[tuple[str, str]]:
        """The cell letters this chart shows, each with what it means (no ``P split`` under rules that never
        split): (letter, text) pairs, in the order H, S, D, U, P."""
        shown = {_show(c) for _label, rows in self._display() for c in self._index[rows[0]]}
        out = []
        for letter, word in (("H", N_("hit")), ("S", N_("stand")), ("D", N_("double")), ("U", N_("surrender")),
                             ("P", N_("split"))):
            if any(c[0] == letter for c in shown):
                out.append((letter, f"{letter} {_(word)}" + (_(" ({letter}s: else stand)").format(letter=letter)
                                                             if f"{letter}s" in shown else "")))
        return out

    def to_text(self) -> str:
        """The chart in the French document's order, with the PNG's row labels, then the 3+ card rows and a legend
        of the letters it shows."""
        lines = self._display()
        hand = pgettext("chart", "hand")
        columns = max([width(hand), *(width(label) for label, _rows in lines)]) + 2
        text = [self.title, ljust(hand, columns) + "".join(f"{'10' if u == 'T' else u:>4}" for u in UPS)]
        more = False
        for label, rows in lines:
            if rows[0].more and not more:
                text.append(_("after hitting (3 cards or more):"))
                more = True
            text.append(ljust(label, columns) + "".join(f"{_show(c):>4}" for c in self._index[rows[0]]))
        text.append(_(", ").join(t for _letter, t in self.legend()))
        return "\n".join(text) + "\n"

    # -- CSV -----------------------------------------------------------------------------------------

    def to_csv(self) -> str:
        """The chart as CSV text (one row per line, full preference cells)."""
        buf = io.StringIO()
        buf.write(f"# title: {self.title}\n")
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["hand", *UPS])
        for row, cells in self.rows:
            w.writerow([row.label, *cells])
        return buf.getvalue()

    def write_csv(self, path: Path) -> None:
        """Write ``to_csv()`` to ``path``."""
        try:
            path.write_text(self.to_csv(), encoding="utf-8")
        except OSError as e:
            raise ChartError(f"cannot write chart {str(path)!r}: {e.strerror or e}") from None

    @classmethod
    def from_csv(cls, text: str, title: str = "chart") -> Chart:
        """Read a chart from CSV text; ChartError names the line at fault."""
        lines = text.splitlines()
        for line in lines:
            if line.startswith("# title:"):
                title = line.partition(":")[2].strip()
                break
        body = [(i + 1, line) for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
        if not body:
            raise ChartError("empty chart")
        rows: list[tuple[Row, tuple[str, ...]]] = []
        reader = csv.reader(line for _n, line in body)
        for (lineno, _line), fields_ in zip(body, reader):
            fields_ = [f.strip() for f in fields_]
            if fields_[0].lower() == "hand":
                if [f.upper() for f in fields_[1:]] not in (list(UPS), [*UPS[:8], "10", "A"]):
                    raise ChartError(f"line {lineno}: header must be hand,{','.join(UPS)}")
                continue
            if len(fields_) != len(UPS) + 1:
                raise ChartError(f"line {lineno}: {len(fields_) - 1} cells (need {len(UPS)}) in {fields_[0]!r}")
            try:
                cells = tuple(check_cell(c.upper()) for c in fields_[1:])
                rows.extend((r, cells) for r in Row.parse(fields_[0]))
            except ChartError as e:
                raise ChartError(f"line {lineno}: {e}") from None
        try:
            return cls(title, tuple(rows))
        except ChartError as e:
            raise ChartError(f"{title}: {e}") from None

    @classmethod
    def read(cls, path: Path) -> Chart:
        """Read a chart from a CSV file in UTF-8, UTF-8 with a BOM (Excel's "CSV UTF-8") or GBK (Excel's CSV
        on a Chinese Windows); anything else is refused in one line."""
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise ChartError(f"cannot read chart {str(path)!r}: {e.strerror or e}") from None
        return cls.from_csv(chart_text(raw, str(path)), title=path.stem)

    # -- PNG -----------------------------------------------------------------------------------------

    def write_png(self, path: Path) -> None:
        """A coloured table of the chart as a PNG, drawn with matplotlib: the French layout with row labels
        that need no French document (``hard 5-8``, ``soft 19-21 (A-8 to A-10)``), the up cards over the
        columns, and a legend of the cell letters below."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            from matplotlib.patches import Patch
            from matplotlib.transforms import Bbox
        except ImportError:
            raise AnalysisError("--png needs matplotlib: pip install -e '.[reports]'") from None
        lines = self._display()
        labels = [plain_label(rows) for _label, rows in lines]
        words = [self.title, *labels, *(t for _letter, t in self.legend()), _("dealer's up card")]
        font = _cjk_font() if any(ord(c) > 127 for w in words for c in w) else None
        grid = [[_show(c) for c in self._index[rows[0]]] for _label, rows in lines]
        title = textwrap.fill(self.title, 100)
        # heights in inches: the title's lines, the up cards' caption, the table (a row each), the legend
        table_h = 0.24 * (len(grid) + 1)
        top = 0.15 * (title.count("\n") + 1) + 0.25
        bottom = 0.35
        height = top + table_h + bottom
        if font is not None:
            plt.rcParams["font.family"] = font  # Chinese words: a font that has them (fonts-noto-cjk)
        fig = plt.figure(figsize=(7.2, height))
        ax = fig.add_axes((0.26, bottom / height, 0.72, table_h / height))
        ax.axis("off")
        table = ax.table(cellText=grid, rowLabels=labels, colLabels=["10" if u == "T" else u for u in UPS],
                         cellColours=[[_COLOURS[c[0]] for c in r] for r in grid], cellLoc="center",
                         bbox=Bbox.from_bounds(0.0, 0.0, 1.0, 1.0))
        table.auto_set_font_size(False)
        table.set_fontsize(8)
        fig.text(0.5, 1.0 - 0.04 / height, title, ha="center", va="top", fontsize=8)
        fig.text(0.62, (bottom + table_h + 0.03) / height, _("dealer's up card"), ha="center", va="bottom", fontsize=8)
        handles = [Patch(facecolor=_COLOURS[k], edgecolor="black", label=text) for k, text in self.legend()]
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7, frameon=False,
                   bbox_to_anchor=(0.55, 0.0), handlelength=1.2, columnspacing=1.0)
        try:
            fig.savefig(path, dpi=130, bbox_inches="tight", pad_inches=0.08, format="png")  # whatever the name says
        except OSError as e:
            raise ChartError(f"cannot write chart {str(path)!r}: {e.strerror or e}") from None
        finally:
            plt.close(fig)


#: Fonts that draw Chinese, the first installed one used (Debian's fonts-noto-cjk, Windows' SimHei ...).
CJK_FONTS: Final = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Zen Hei", "SimHei",
                    "Microsoft YaHei")


def _cjk_font() -> str:
    """The name of an installed font matplotlib can draw Chinese with; ChartError when there is none."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    found = next((n for n in CJK_FONTS if n in names), None)
    if found is None:
        raise ChartError("cannot draw the chart's Chinese words: no Chinese font is installed (Debian: apt-get "
                         "install fonts-noto-cjk), or write it in English with --lang en")
    return found


#: What every cell letter means (a chart's own legend names only the letters it shows: ``Chart.legend``).
LEGEND: Final = N_("H hit, S stand, D double (Ds: else stand), U surrender (Us: else stand), P split")
_COLOURS: Final = {"H": "#f7f7f7", "S": "#ffd966", "D": "#93c47d", "U": "#b7b7b7", "P": "#6fa8dc"}


def plain_label(rows: Sequence[Row]) -> str:
    """A line's label for a reader without the French document: ``hard 17+``, ``hard 5-8``,
    ``soft 19-21 (A-8 to A-10)``, ``soft 18 (A-7)``, ``pair 8-8``, ``hard 16, 3+ cards``."""
    first, last = rows[0], rows[-1]
    if first.kind is Kind.PAIR:
        return _("pair {rank}").format(rank=", ".join(r.short for r in rows))
    lo, hi = min(first.value, last.value), max(first.value, last.value)
    if first.kind is Kind.HARD:
        total = f"{lo}+" if hi >= 20 and lo < hi else f"{lo}" if lo == hi else f"{lo}-{hi}"
        text = _("hard {total}").format(total=total)
    else:
        hand = f"A-{lo - 11}" if lo == hi else _("A-{low} to A-{high}").format(low=lo - 11, high=hi - 11)
        text = _("soft {total}").format(total=f"{lo}" if lo == hi else f"{lo}-{hi}") + f" ({hand})"
    return text + (_(", 3+ cards") if first.more else "")


#: The start of files that are surely not a chart's CSV, and what they are.
_NOT_TEXT: Final = ((b"\x89PNG", "a PNG image"), (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a zip archive (an .xlsx?)"),
                    (b"\xd0\xcf\x11\xe0", "an Office document (an .xls?)"), (b"\xff\xd8\xff", "a JPEG image"),
                    (b"\xff\xfe", "UTF-16 text"), (b"\xfe\xff", "UTF-16 text"))
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def chart_text(raw: bytes, where: str) -> str:
    """A chart file's bytes as text: UTF-8 (a BOM is dropped), else GBK; ChartError in one line for anything
    else (an image, a spreadsheet, UTF-16, binary data), naming ``where``."""
    what = next((name for magic, name in _NOT_TEXT if raw.startswith(magic)), None)
    text = None
    if what is None:
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        for encoding in ("utf-8", "gbk"):
            try:
                text = raw.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    if text is None or _CONTROL.search(text):
        raise ChartError(f"cannot read chart {where!r}: it is {what or 'not text'}, not a chart CSV in UTF-8, "
                         "UTF-8 with BOM or GBK (save it from Excel as CSV; see 'twentyone chart --csv')")
    return text


def compare_charts(a: Chart, b: Chart) -> list[ChartDifference]:
    """Every cell of the rows both charts have where their first choices differ, in ``a``'s row order."""
    out: list[ChartDifference] = []
    for row, cells in a.rows:
        other = b.row(row)
        if other is None:
            continue
        for up, x, y in zip(UPS, cells, other):
            if x[0] != y[0]:
                out.append(ChartDifference(row, up, x, y))
    return out


def _up(up: str) -> str:
    return RANKS[rank_index(up)]


def _show(cell: str) -> str:
    """A cell as the text chart prints it: the first choice, with ``s`` when D or U falls back to stand."""
    if cell[0] in "DU" and len(cell) > 1 and cell[1] == "S":
        return cell[0] + "s"
    return cell[0]


def _french_groups() -> list[tuple[str, list[Row]]]:
    """The French chart's hard and soft rows, in its order, with its grouped labels."""
    h, s = Kind.HARD, Kind.SOFT
    groups: list[tuple[str, list[Row]]] = [("17+", [Row(h, t) for t in range(17, 22)])]
    groups += [(str(t), [Row(h, t)]) for t in range(16, 8, -1)]
    groups.append(("5 > 8", [Row(h, t) for t in range(5, 9)]))
    groups.append(("A-8 > A-10", [Row(s, t) for t in range(19, 22)]))
    groups += [(f"A-{t - 11}", [Row(s, t)]) for t in range(18, 12, -1)]
    return groups  # the pairs follow, from A-A down (``Chart._display``)
