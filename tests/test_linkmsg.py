"""What a failed build says (``players.c.linkmsg``): the lines about the student's file, link errors by name, and
the linker's own words, trimmed, when nothing else says why."""

from __future__ import annotations

from pathlib import Path

from twentyone.players.c.linkmsg import MAX_LINE, compiler_messages

SCRATCH = Path("/home/teacher/.cache/twentyone/c/tw-build-k2j4")
COPY = SCRATCH / "student.cpp"
SHOWN = Path("/home/teacher/hw/li/solution.cpp")


def test_the_linkers_own_words_are_shown_trimmed() -> None:
    """A linker error that is neither an undefined reference nor a multiple definition: its lines, with the scratch
    folder's paths cut to what the student knows and the driver's last words dropped."""
    raw = (f"/usr/bin/ld: {SCRATCH}/boxed.o: in function `play()':\n"
           f"(.text+0x15): relocation truncated to fit: R_X86_64_PC32 against symbol `table' defined in .bss\n"
           f"/usr/bin/ld: {SCRATCH}/box-objects/tw_box.o: warning: relocation in read-only section `.text'\n"
           "collect2: error: ld returned 1 exit status\n").encode()
    text = compiler_messages(raw, SCRATCH, COPY, SHOWN)
    lines = text.splitlines()
    assert lines[0] == f"{SHOWN}: the build failed (the linker refused it):"
    assert "  your file: in function `play()':" in lines
    assert "  (.text+0x15): relocation truncated to fit: R_X86_64_PC32 against symbol `table' defined in .bss" in lines
    assert "  tw_box.o: warning: relocation in read-only section `.text'" in lines
    assert "tw-build-" not in text and "collect2" not in text and "/usr/bin/ld" not in text


def test_a_link_error_is_named_by_the_students_function() -> None:
    """``tw_printf`` is the student's ``printf``; a demangled C++ name is kept whole; each line at most MAX_LINE."""
    raw = (f"/usr/bin/ld: {SCRATCH}/part0.o: multiple definition of `tw_printf'; {SCRATCH}/glue/tw_capture.o: first "
           "defined here\n/usr/bin/ld: boxed.o:(.data.rel+0x0): undefined reference to `tools::decide(int)'\n"
           f"/usr/bin/ld: undefined reference to `{'x' * 500}'\n").encode()
    text = compiler_messages(raw, SCRATCH, COPY, SHOWN)
    assert f"{SHOWN}: link error: multiple definition of `printf' (the course's program or the project's output " \
           "capture already defines it)" in text.splitlines()
    assert f"{SHOWN}: link error: undefined reference to `tools::decide(int)'" in text.splitlines()
    assert all(len(ln) <= MAX_LINE for ln in text.splitlines())
