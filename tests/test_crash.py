"""Where a crash happened: a compiled file's crash is named by its source line and function, a Python file's
exception by its own traceback lines; the engine maps addresses itself, never trusting more than a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.sandbox.crash import locate
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy

pytestmark = pytest.mark.usefixtures("seccomp")

TAIL = """
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""


def _crash(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        s.close()
    assert r.by_seat(1).fault == "crash"
    return r.by_seat(1).fault_detail


def test_a_segfault_names_its_line_and_function(tmp_path: Path) -> None:
    """A null write in first_action1 on line 5: 'segmentation fault (signal SIGSEGV) at segv.c:5 in first_action1'."""
    detail = _crash(tmp_path, "segv.c", '#include "mycodes.h"\n'
                    "int bet1(int N) { return 10; }\n"
                    "char first_action1(char *t, int n)\n"
                    "{\n"
                    "    volatile int *p = 0; *p = n;\n"
                    "    return 's';\n"
                    "}\n" + TAIL)
    assert detail == "segmentation fault (signal SIGSEGV) at segv.c:5 in first_action1"


def test_a_crash_inside_the_c_library_names_the_students_call(tmp_path: Path) -> None:
    """strlen(NULL) crashes in libc; the line named is the student's call of it (line 4, in bet1)."""
    detail = _crash(tmp_path, "libc.c", '#include "mycodes.h"\n#include <string.h>\nstatic const char *none;\n'
                    "int bet1(int N) { return 10 + (int)strlen(none); }\n"
                    "char first_action1(char *t, int n) { return 's'; }\n" + TAIL)
    assert detail.startswith("segmentation fault (signal SIGSEGV) at libc.c:4 in bet1"), detail


def test_a_division_by_zero_in_cpp_names_its_line(tmp_path: Path) -> None:
    """A C++ hand-in's integer division by zero: SIGFPE at its own file's line, its function's C++ name."""
    detail = _crash(tmp_path, "div.cpp", '#include "mycodes.h"\n#include <vector>\n'
                    "static std::vector<int> zeros(3, 0);\n"
                    "static int ratio(int a) { return a / zeros[1]; }\n"
                    "int bet1(int N) { return 10 + ratio(N); }\n"
                    "char first_action1(char *t, int n) { return 's'; }\n" + TAIL)
    assert detail.startswith("arithmetic error (signal SIGFPE) at div.cpp:4 in "), detail
    assert "ratio" in detail or "bet1" in detail


def test_a_crash_while_loading_names_the_constructor(tmp_path: Path) -> None:
    """A constructor that crashes: that player's fault in its first match, saying where, while loading."""
    path = tmp_path / "ctor.c"
    path.write_text('#include "mycodes.h"\nstatic volatile long nowhere = 0;\n'
                    "__attribute__((constructor)) static void boom(void)\n"
                    "{\n"
                    "    *(volatile int *)nowhere = 1;\n"
                    "}\n"
                    "int bet1(int N) { return 10; }\nchar first_action1(char *t, int n) { return 's'; }\n" + TAIL)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        s.close()
    assert r.by_seat(1).fault == "crash" and r.by_seat(1).rounds == 1
    assert r.by_seat(1).fault_detail == ("while loading (its initialisers): segmentation fault (signal SIGSEGV) "
                                         "at ctor.c:5 in boom")


def test_a_python_exception_shows_only_the_students_lines(tmp_path: Path) -> None:
    """A Python file's exception: its own frames (line and function), none of the engine's."""
    path = tmp_path / "boom.py"
    path.write_text("def helper(x):\n    return 1 // x\n"
                    "def bet1(N): return 10\n"
                    "def first_action1(t, n):\n    return 'h' if helper(0) else 's'\n"
                    "def continue_action1(p): return 's'\ndef show1(b, p, pNum, N, pos): pass\n")
    s = make_strategy(str(path), warn=lambda m: None, sandbox=Limits())
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        s.close()
    assert r.by_seat(1).fault_detail == ("first_action raised ZeroDivisionError: integer division or modulo by zero "
                                         "(at boom.py:5 in first_action1, boom.py:2 in helper)")


def test_a_report_outside_the_program_names_nothing(tmp_path: Path) -> None:
    """Addresses that are not the program's (a forged or damaged report) give no line, never a guess."""
    from twentyone.players.c.build import BOX_PROGRAM, compile_student

    program = compile_student(Path("c_src/mycodes.c")).parent / BOX_PROGRAM
    assert locate(program, (11, 0, 0x10000, 0x10000 - 8, 1 << 60), "mycodes.c") is None
    assert locate(program, (11, 0), "mycodes.c") is None
    assert locate(tmp_path / "missing", (11, 0, 0, 16), "mycodes.c") is None


def test_abort_names_the_call_not_the_next_function(tmp_path: Path) -> None:
    """abort() as a function's last call: its return address is the next function's, the line named is the call's."""
    detail = _crash(tmp_path, "abort.c", '#include "mycodes.h"\n#include <stdlib.h>\n'
                    "int bet1(int N) { static int calls; if (++calls == 2) abort(); return 10; }\n"
                    "char first_action1(char *t, int n) { return 's'; }\n" + TAIL)
    assert detail == "abort (signal SIGABRT) at abort.c:3 in bet1"
