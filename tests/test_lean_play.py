"""What a graded match skips for speed changes nothing it keeps (issue 33): the rounds a page never shows are not
logged, and a C box gets the table's packed records as they are, without a ``Player`` made and packed again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from twentyone.grading.config import GradingConfig
from twentyone.grading.plan import criterion_job
from twentyone.grading.runner import play_job
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Basic, Stand
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

ROOT = Path(__file__).resolve().parent.parent
FOULS_PY = str(ROOT / "tests" / "fixtures" / "py" / "fouls_py.py")


def _has_foul(rec: dict[str, Any]) -> bool:
    return bool(rec.get("faults")) or any(p["foul"] is not None for p in rec["players"])


def test_a_fouls_only_log_keeps_every_other_record_and_each_round_with_a_foul() -> None:
    fouler = make_strategy(FOULS_PY)
    logs = []
    for fouls_only in (False, True):
        log = RoundLog(keep=True, fouls_only=fouls_only)
        play_match([Seating("f", "fouls_py.py", fouler), Seating("b", "basic", Basic())], 6, 11, log=log)
        logs.append(log.records or [])
    whole, lean = logs
    assert [r for r in whole if r["type"] != "round" or _has_foul(r)] == lean
    rounds = [r for r in whole if r["type"] == "round"]
    # The case is not empty: the match has rounds with and without a foul, and a shuffle.
    assert 0 < sum(map(_has_foul, rounds)) < len(rounds) and any(r["type"] == "shuffle" for r in lean)


@pytest.mark.parametrize("sandbox", [None, Limits()], ids=["trusted", "sandboxed"])
def test_a_graded_match_without_a_page_stores_what_the_whole_log_gave(monkeypatch: pytest.MonkeyPatch,
                                                                      sandbox: Limits | None) -> None:
    """The stored outcome (incidents, kept log and its priced review, money) is the one the whole log gives."""
    c = GradingConfig(seed=5)
    job = replace(criterion_job(c, "beat_stand", c.beat_stand, "fouls", FOULS_PY, 3, sandbox), trace=False)
    assert not (job.trace or job.bankroll or job.priced)
    lean = play_job(job).to_dict()
    real = RoundLog.__init__

    def whole(self: RoundLog, stream: Any = None, keep: bool = False, fouls_only: bool = False) -> None:
        real(self, stream, keep)

    monkeypatch.setattr(RoundLog, "__init__", whole)
    assert play_job(job).to_dict() == lean
    assert lean["incidents"] and lean["log"]


_ECHO_C = r"""#include "mycodes.h"
#include <stdio.h>
static unsigned sum(const unsigned char* p, int n) { unsigned s = 7; for (int i = 0; i < n; i++) s = s * 31 + p[i]; return s; }
int bet1(int N) { return 10; }
char first_action1(char* tmpcards, int len) { return tmpcards[2] == 'A' ? 'd' : 'h'; }
char continue_action1(Player(*players)[])
{
    printf("C %u\n", sum((const unsigned char*)*players, 3 * (int)sizeof(Player)));
    return (*players)[0].points < 16 ? 'h' : 's';
}
void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{
    printf("S %u %u %d %d %d\n", sum((const unsigned char*)pbanker, (int)sizeof(Banker)),
           sum((const unsigned char*)*players, (pNum - 1) * (int)sizeof(Player)), pNum, N, pos);
}
"""


def test_a_c_box_gets_the_same_bytes_packed_or_rebuilt(tmp_path: Path) -> None:
    """Every byte of the players and banker a C box's continue_action and show read (names, cards past the count,
    state, stakes) is the same whether the table's packed records go to the box or ``Player`` copies packed again:
    the box prints a checksum of them in every call."""
    src = tmp_path / "echo.c"
    src.write_text(_ECHO_C)
    outputs = []
    for packed in (True, False):
        out = tmp_path / ("packed" if packed else "rebuilt")
        s = make_strategy(str(src) + ":1", sandbox=Limits(), capture_dir=out)
        fs = s.functions  # type: ignore[attr-defined]
        assert hasattr(fs, "show_then_bet_packed")
        if not packed:
            del fs.continue_packed, fs.show_then_bet_packed
            s._continue_packed = s._show_then_bet_packed = None  # type: ignore[attr-defined]
        try:
            play_match([Seating("名字很长的一位同学-abcdefgh", "stand", Stand()), Seating("me", "echo.c", s),
                        Seating("b", "basic", Basic())], 6, 3)
        finally:
            s.close()
        outputs.append(b"".join(p.read_bytes() for p in sorted(out.iterdir())))
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"S ") > 50 and outputs[0].count(b"C ") > 5


def test_a_c_box_answers_show_and_the_next_bet_in_one_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine sends show and the next bet together; the box writes both replies at once, and the engine takes
    them in one read: a match costs one read per request written, not one per reply."""
    import twentyone.players.sandbox.client as client

    counts = {"read": 0, "write": 0, "pairs": 0}
    real_read, real_write = client._read, client._write

    def read(fd: int, n: int) -> bytes:
        counts["read"] += 1
        return real_read(fd, n)

    def write(fd: int, data: bytes) -> int:
        counts["write"] += 1
        counts["pairs"] += data[:1] == b"S" and data[-16:-15] == b"B"  # a show request with a bet request after it
        return real_write(fd, data)

    s = make_strategy(str(ROOT / "c_src" / "mycodes.c") + ":1", sandbox=Limits())
    try:
        play_match([Seating("me", "mycodes.c", s), Seating("s", "stand", Stand())], 6, 3)  # box started, warm
        monkeypatch.setattr(client, "_read", read)
        monkeypatch.setattr(client, "_write", write)
        result = play_match([Seating("me", "mycodes.c", s), Seating("s", "stand", Stand())], 6, 4)
    finally:
        s.close()
    assert result.rounds > 50 and counts["pairs"] > 50  # shows with their bet were sent
    assert counts["read"] <= counts["write"]
