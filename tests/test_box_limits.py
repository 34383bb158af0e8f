"""A box's memory limit holds for memory mapped before it was set, and a Python box sees its file under a neutral
name (SANDBOX.md: "Memory mapped before the limit", "A Python box's file name")."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from twentyone.errors import CompileError, ConfigError, PlayerSpecError
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.c.build import compile_student, static_memory
from twentyone.players.sandbox.limits import MAX_MEMORY_BYTES, MIN_MEMORY_BYTES, Limits
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

pytestmark = pytest.mark.usefixtures("seccomp")

_REST = """
char first_action1(char* tmpcards, int len) { return 's'; }
char continue_action1(Player(*players)[]) { return 's'; }
void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) {}
"""


def _big(declaration: str, mib: int) -> str:
    """A mycodes.c whose static array of ``mib`` MiB (``declaration``: its storage) is filled in its first bet,
    which then says so."""
    return (f'#include "mycodes.h"\n#include <stdio.h>\n#include <string.h>\n{declaration} char big[{mib}UL << 20];\n'
            "static int done;\nint bet1(int N) {\n    if (!done) { memset(big, 1, sizeof big); done = 1;\n"
            '        printf("touched\\n"); fflush(stdout); }\n    return 10;\n}\n' + _REST)


@pytest.mark.parametrize("declaration", ["static", "static __thread"])
def test_the_build_refuses_a_program_whose_static_data_is_over_the_largest_memory_limit(declaration: str,
                                                                                         tmp_path: Path) -> None:
    """A 1.5 GiB static array (in .bss, or thread-local: PT_TLS, one copy mapped before main) is refused by the build
    in one line naming its size and the limit: execve maps it before the box sets its memory limit."""
    path = tmp_path / "mycodes.c"
    path.write_text(_big(declaration, 1536))
    with pytest.raises(CompileError) as e:
        compile_student(path)
    assert str(e.value) == f"{path}: its static data (1537 MiB) is over the memory limit of 1024 MiB", str(e.value)
    assert "\n" not in str(e.value) and not e.value.messages


@pytest.mark.parametrize("declaration", ["static", "static __thread"])
def test_a_programs_static_memory_is_read_from_its_program_headers(declaration: str, tmp_path: Path) -> None:
    """``static_memory`` counts a program's loadable segments and one copy of its thread-local block (whose .tbss no
    segment holds): a 64 MiB static (or thread-local) array is 63 MiB more than a 1 MiB one, and is under the limit."""
    sizes = []
    for mib in (1, 64):
        path = tmp_path / str(mib) / "mycodes.c"
        path.parent.mkdir()
        path.write_text(_big(declaration, mib))
        sizes.append(static_memory(compile_student(path).parent / "box"))
    assert abs(sizes[1] - sizes[0] - (63 << 20)) < 1 << 16, sizes
    assert sizes[1] < 80 << 20, sizes
    assert static_memory(Path(__file__)) == 0


@pytest.mark.slow
def test_a_box_whose_address_space_is_over_its_memory_limit_before_it_runs_does_not_start(tmp_path: Path) -> None:
    """A program whose 96 MiB .bss passes the build (under 1 GiB) is refused when its box starts under a 64 MiB
    limit, in one line naming the limit, before it runs: RLIMIT_AS lowered below what execve mapped takes nothing
    away, so the box checks its address space (tw_confine.c); under the default limit it plays and fills it."""
    path = tmp_path / "mycodes.c"
    path.write_text(_big("static", 96))
    with pytest.raises(PlayerSpecError) as e:
        make_strategy(str(path), warn=lambda m: None, sandbox=Limits(memory_bytes=MIN_MEMORY_BYTES),
                      capture_dir=tmp_path / "small")
    assert "its address space (" in str(e.value) and "over the memory limit of 64 MiB before it ran" in str(e.value)
    assert not any(p.read_text() for p in (tmp_path / "small").glob("*.out"))
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits(), capture_dir=tmp_path / "default")
    try:
        result = play_match([Seating("x", "big", s), Seating("s", "stand", Stand())], 6, 3)
    finally:
        s.close()
    assert result.by_seat(1).fault is None, result.by_seat(1).fault_detail
    assert "touched" in "".join(p.read_text() for p in (tmp_path / "default").glob("*.out"))


def test_a_memory_limit_is_refused_outside_what_every_box_fits(tmp_path: Path) -> None:
    """A memory limit over the largest the build checks against, or under what a Python box has mapped when it
    confines itself, is a configuration error naming the range."""
    for bad in (MAX_MEMORY_BYTES + 1, MIN_MEMORY_BYTES - 1):
        with pytest.raises(ConfigError, match=r"memory limit out of range: .* \(64 \.\. 1024 MiB\)"):
            Limits(memory_bytes=bad)


@pytest.mark.slow
def test_a_python_box_starts_and_plays_under_the_smallest_memory_limit(tmp_path: Path) -> None:
    """A Python box's interpreter is under the smallest memory limit when it confines itself (about 21 MiB of
    64): it starts and plays a match without a fault."""
    path = tmp_path / "li.py"
    path.write_text("def bet1(N):\n    return 10\ndef first_action1(t, n):\n    return 's'\n"
                    "def continue_action1(p):\n    return 's'\ndef show1(b, p, pNum, N, pos):\n    pass\n")
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits(memory_bytes=MIN_MEMORY_BYTES))
    try:
        result = play_match([Seating("x", "li", s), Seating("s", "stand", Stand())], 6, 3)
    finally:
        s.close()
    assert result.by_seat(1).fault is None and result.by_seat(1).rounds > 0, result.by_seat(1).fault_detail


def test_a_python_box_runs_its_file_as_mycodes_py_and_faults_name_the_students_file(tmp_path: Path) -> None:
    """A Python box's file is ``mycodes.py`` to it (``__file__``, its code's co_filename), whatever and wherever the
    student's file is; where a fault happened names the student's file, as in process, and an error loading it
    names the file as given."""
    folder = tmp_path / "2023001_zhang"
    folder.mkdir()
    path = folder / "zhang.py"
    path.write_text("def bet1(N):\n    raise ValueError(__file__ + ' ' + bet1.__code__.co_filename)\n"
                    "def first_action1(t, n):\n    return 's'\ndef continue_action1(p):\n    return 's'\n"
                    "def show1(b, p, pNum, N, pos):\n    pass\n")
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    log = RoundLog(io.StringIO(), keep=True)
    try:
        result = play_match([Seating("x", "zhang", s), Seating("s", "stand", Stand())], 6, 3, log=log)
    finally:
        s.close()
    me = result.by_seat(1)
    assert me.fault == "error"
    assert me.fault_detail == "bet raised ValueError: mycodes.py mycodes.py (at zhang.py:2 in bet1)", me.fault_detail
    broken = folder / "broken.py"
    broken.write_text("def bet1(N):\n    return 10\ndef first_action1(t, n)\n    return 's'\n")
    with pytest.raises(PlayerSpecError) as e:
        make_strategy(str(broken), warn=lambda m: None, sandbox=Limits())
    assert str(e.value).startswith(f"{broken}:3: syntax error"), str(e.value)
