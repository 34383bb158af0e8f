"""A compiled file in process (``--trusted``): the records it is handed as packed C structs, and a crash in it
as that player's foul (PLAYERS.md, "A crash in process")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from twentyone.match import Seating, play_match
from twentyone.players.builtin.champion import Champion
from twentyone.players.builtin.course import Basic
from twentyone.players.spec import make_strategy
from twentyone.records import SeatView, pack_banker, pack_player
from twentyone.rules import PRESETS
from twentyone.strategy import Strategy

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "fixtures" / "c" / "hostile"
STUDENTS = ROOT / "tests" / "fixtures" / "c" / "students"

#: Every set of a file: bet 10, stand; ``show1`` as given.
_SETS = "".join(f"int bet{k}(int N) {{ return 10; }}\nchar first_action{k}(char* t, int len) {{ return 's'; }}\n"
                f"char continue_action{k}(Player(*p)[]) {{ return 's'; }}\n" for k in range(1, 6))


def _file(tmp_path: Path, name: str, show1: str) -> Path:
    shows = "".join(f"void show{k}(Banker* b, Player(*p)[], int pNum, int N, int pos) {{ }}\n" for k in range(2, 6))
    path = tmp_path / name
    path.write_text('#include "mycodes.h"\n' + _SETS + show1 + "\n" + shows, encoding="utf-8")
    return path


def _trusted(spec: str) -> Strategy:
    return make_strategy(spec, warn=lambda m: None)


def test_a_segfault_in_process_is_the_players_crash_with_its_line() -> None:
    """A null pointer in first_action1, in process: seat 1's crash foul at its line, and seat 2 plays every round."""
    seg = _trusted(f"{HOSTILE / 'segfault_first_action1.c'}:1")
    result = play_match([Seating("s", "seg", seg), Seating("b", "basic", Basic())], 6, 3)
    st = result.by_seat(1)
    assert (st.fault, st.rounds) == ("crash", 1)
    assert st.fault_detail == "segmentation fault (signal SIGSEGV) at segfault_first_action1.c:5 in first_action1"
    assert result.by_seat(2).rounds == result.rounds == 100


def test_an_abort_in_process_is_a_crash_and_the_next_match_plays_afresh() -> None:
    """abort() on bet1's third call: a crash in round 3, and again in the next match (its statics are put back)."""
    ab = _trusted(f"{HOSTILE / 'abort_bet1.c'}:1")
    for seed in (1, 2):
        st = play_match([Seating("a", "abort", ab), Seating("b", "basic", Basic())], 6, seed).by_seat(1)
        assert (st.fault, st.rounds) == ("crash", 3)
        assert st.fault_detail == "abort (signal SIGABRT) at abort_bet1.c:4 in bet1"


def test_a_stack_overflow_in_process_is_a_crash(tmp_path: Path) -> None:
    """show1 recursing without end overflows the stack: caught on the handler's own stack, a crash foul."""
    deep = _file(tmp_path, "deep.c", "static int down(int n) { volatile char pad[256]; pad[0] = (char)n; "
                 "return down(n + 1) + pad[0]; }\n"
                 "void show1(Banker* b, Player(*p)[], int pNum, int N, int pos) { down(pos); }")
    st = play_match([Seating("d", "deep", _trusted(f"{deep}:1")), Seating("b", "basic", Basic())], 6, 4).by_seat(1)
    assert (st.fault, st.rounds) == ("crash", 1)
    assert st.fault_detail.startswith("segmentation fault (signal SIGSEGV) at deep.c:")


def test_the_other_sets_of_a_crashed_file_stop_with_it() -> None:
    """Sets 1 and 2 of one file: after set 1 crashes, set 2 (its memory the same) faults on its next call."""
    path = HOSTILE / "segfault_first_action1.c"
    result = play_match([Seating("s1", "1", _trusted(f"{path}:1")), Seating("s2", "2", _trusted(f"{path}:2"))], 6, 3)
    one, two = result.by_seat(1), result.by_seat(2)
    assert (one.fault, two.fault, two.rounds) == ("crash", "crash", 1)
    assert two.fault_detail == "the file crashed earlier in this match: " + one.fault_detail


def test_match_trusted_with_a_segfaulting_file_reports_it(tmp_path: Path) -> None:
    """``match --trusted`` of a segfaulting file ends normally and names the crash and its line (it died with 139)."""
    proc = subprocess.run([sys.executable, "-m", "twentyone", "match", "--trusted", "--seed", "3", "-p",
                           str(HOSTILE / "segfault_first_action1.c"), "-p", "basic",
                           "--output-dir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "crash: segmentation fault (signal SIGSEGV) at segfault_first_action1.c:5 in first_action1" in text


class _Busy(Strategy):
    """Splits, changes, doubles and insures whenever it may, and notes what it saw: every kind of record."""

    def __init__(self) -> None:
        self.checked = 0
        self.split = self.changed = False

    def _check(self, view: SeatView) -> None:
        for k in range(1, 6):
            for first in (False, True):
                want = b"".join(pack_player(p) for p in view.players(k, self_first=first))
                assert view.packed_players(k, self_first=first) == want
            width = max(view.seats, k)
            assert view.packed_show(k) == (pack_banker(view.banker()), b"".join(
                pack_player(p) for p in view.players(k)), width + 1, view.decks, view.pos)
        assert view.packed_show() == view.packed_show(view.seat)
        self.checked += 1
        self.split = self.split or len(view.hands) > 1
        self.changed = self.changed or "c" in view.players()[view.seat - 1].state

    def bet(self, view: SeatView) -> int:
        self._check(view)
        return 10 + view.rounds % 7

    def first_action(self, view: SeatView) -> str:
        self._check(view)
        if view.can_change and view.rounds % 2:
            return "c"
        if view.can_split:
            return "p"
        if view.can_insure and view.rounds % 2:
            return "i"
        return self.continue_action(view)

    def continue_action(self, view: SeatView) -> str:
        self._check(view)
        if view.can_split:
            return "p"
        if view.can_double and view.total in (9, 10, 11):
            return "d"
        return "h" if view.total < 16 else "s"

    def show(self, view: SeatView) -> None:
        self._check(view)


@pytest.mark.parametrize("rules", ["course", "s17-3to2-6d", "french"])
def test_packed_records_are_the_player_and_banker_copies(rules: str) -> None:
    """What a compiled file is handed (packed structs) is byte for byte the Player/Banker copies, at every call,
    through insurance, doubles, splits, Changers and the end-of-round show, at every function set's view."""
    game = PRESETS[rules]
    players = [_Busy() for _ in range(min(game.max_seats, 3))]
    for seed in range(3):
        play_match([Seating(f"p{i}", "busy", p) for i, p in enumerate(players)], game.decks, seed, game)
    assert all(p.checked > 300 for p in players)
    assert any(p.split for p in players) == game.split
    assert any(p.changed for p in players) == game.changer
