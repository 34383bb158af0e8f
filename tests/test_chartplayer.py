"""A strategy chart as a player (``chart:path.csv``): loading, playing, and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripted import one_round
from twentyone.errors import PlayerSpecError
from twentyone.players.builtin.chart import FRENCH_EXPERT, ChartStrategy, load_chart
from twentyone.players.spec import builtin_name, make_strategy
from twentyone.rules import PRESETS

CSV = """# title: tiny
hand,2,3,4,5,6,7,8,9,T,A
hard 4-11,H,H,H,H,H,H,H,H,H,H
hard 12-21,S,S,S,S,S,S,S,S,S,S
pair 88,P,P,P,P,P,P,P,P,P,P
"""


def test_chart_spec_loads_a_csv_and_plays_it(tmp_path: Path) -> None:
    """chart:FILE seats a ChartStrategy of that file; it splits 8-8 where the rules allow and stands on 12."""
    path = tmp_path / "tiny.csv"
    path.write_text(CSV, encoding="utf-8")
    s = make_strategy(f"chart:{path}")
    assert isinstance(s, ChartStrategy) and s.name == f"chart:{path}"
    sc = one_round("88" "7T" "4" "5" + "9" * 40, [s], 6, PRESETS["s17-3to2-6d"])
    assert sc.seat(1)["actions"] == "p" and [h["cards"] for h in sc.seat(1)["hands"]] == ["84", "85"]
    sc = one_round("88" "7T" + "9" * 40, [make_strategy(f"chart:{path}")], 6, PRESETS["course"])
    assert sc.seat(1)["actions"] == "s" and sc.seat(1)["foul"] is None  # no split in the course: 16 stands


def test_chart_spec_errors_are_one_line(tmp_path: Path) -> None:
    """A missing or malformed chart file is a PlayerSpecError naming the file and the fault."""
    with pytest.raises(PlayerSpecError, match="cannot read chart"):
        make_strategy(f"chart:{tmp_path}/none.csv")
    (tmp_path / "bad.csv").write_text("hand,2,3,4,5,6,7,8,9,T,A\nhard 12,H,X,S,S,S,S,S,S,S,S\n", encoding="utf-8")
    with pytest.raises(PlayerSpecError, match="bad chart cell: 'X'"):
        make_strategy(f"chart:{tmp_path}/bad.csv")


def test_french_expert_is_shipped_and_named() -> None:
    """chart:french-expert is the shipped expert chart; built-in names cover the AI levels and charts."""
    assert load_chart(FRENCH_EXPERT).title.startswith("French expert chart")
    assert isinstance(make_strategy("chart:french-expert"), ChartStrategy)
    assert [builtin_name(s) for s in ("expert", "optimal", "chart:french-expert", "x.c")] == [
        "expert", "optimal", "chart-french-expert", None]


def test_decisions_are_remembered_across_players() -> None:
    """Two players of one chart share what they decided."""
    chart = load_chart(FRENCH_EXPERT)
    a, b = ChartStrategy(chart), ChartStrategy(chart)
    one_round("T6" "7T" "5" + "9" * 40, [a], 6, PRESETS["french"])
    assert a._memo is b._memo and a._memo


def test_chart_files_as_students_save_them(tmp_path: Path) -> None:
    """A chart saved as UTF-8 with a BOM or as GBK (Excel on a Chinese Windows) reads as the UTF-8 one."""
    text = "# title: 我的表\n# 注释：8-8 分牌\n" + CSV.split("\n", 1)[1]
    plain = load_chart(_write(tmp_path / "plain.csv", text.encode("utf-8")))
    for name, raw in (("bom.csv", b"\xef\xbb\xbf" + text.encode("utf-8")), ("gbk.csv", text.encode("gbk")),
                      ("crlf.csv", text.replace("\n", "\r\n").encode("gbk"))):
        chart = load_chart(_write(tmp_path / name, raw))
        assert chart.rows == plain.rows and chart.title == "我的表", name


@pytest.mark.parametrize("raw, what", [(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "a PNG image"),
                                       ("hand,2\n".encode("utf-16"), "UTF-16 text"),
                                       (b"hand,2,3\n\x00\x01\x02binary", "not text")],
                         ids=["png", "utf16", "binary"])
def test_a_file_that_is_not_a_chart_csv_is_one_line(tmp_path: Path, raw: bytes, what: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """match -p chart:basic.png and chart --compare basic.png: one error line naming the file, no traceback."""
    from twentyone.cli import main

    path = _write(tmp_path / "basic.png", raw)
    for args in (["match", "-p", f"chart:{path}"], ["chart", "--compare", str(path)]):
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and err.startswith("twentyone: error: ") and "Traceback" not in err, err
        assert str(path) in err and what in err, err


def _write(path: Path, raw: bytes) -> Path:
    path.write_bytes(raw)
    return path
