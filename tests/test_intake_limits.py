"""The grader's own intake trusts no hand-in (issue 21, audit item 5): regular files only, capped, linear patterns.

A FIFO named ``mycodes.c`` hung the grader; a ``/dev/zero`` device node grew it by 2 GB in 5 s; a tar extracted as
root recreates both; a comment of ``int``, 300,000 spaces and ``(`` made a pattern backtrack for minutes.  Each
check runs in a child process killed after a wall-clock deadline, so what hangs today fails instead of hanging.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from twentyone.errors import PlayerSpecError
from twentyone.handin import MAX_SOURCE
from twentyone.players.files.intake import IntakeError, take

ROOT = Path(__file__).resolve().parent.parent
STAND_PY = ROOT / "tests" / "fixtures" / "py" / "stand_py.py"
BASIC_C = ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c"
CLI = [sys.executable, "-m", "twentyone"]
IS_ROOT = os.geteuid() == 0


def in_child(fn: Callable[[], Any], wall: float = 30.0) -> tuple[float, str]:
    """(CPU seconds, what happened) of ``fn()`` in a forked child, killed after ``wall`` seconds (then inf)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        start = time.process_time()
        try:
            fn()
            what = "ok"
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            what = f"{type(e).__name__}: {e}"
        os.write(w, json.dumps([time.process_time() - start, what[:2000]]).encode())
        os._exit(0)
    os.close(w)
    try:
        ready, _, _ = select.select([r], [], [], wall)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            return float("inf"), f"still running after {wall:g} s"
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        cpu, what = json.loads(data or b'[Infinity, "died"]')
        return float(cpu), str(what)
    finally:
        os.close(r)
        os.waitpid(pid, 0)


def _refused(fn: Callable[[], Any], *words: str) -> None:
    cpu, what = in_child(fn, wall=20)
    assert cpu < 1 and ("IntakeError" in what or "PlayerSpecError" in what or "HandInFileError" in what), what
    assert all(w in what for w in words) and "\n" not in what, what


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


# -- regular files only --------------------------------------------------------------------------------------

def test_a_fifo_named_mycodes_c_is_refused_in_one_line_not_read(tmp_path: Path) -> None:
    """A FIFO as the strategy file, alone or in a folder: one line naming it; nothing blocks on it."""
    from twentyone.players.c.source import prepare_source
    from twentyone.players.files.python import read_source

    fifo = _fifo(tmp_path / "li" / "mycodes.c")
    _refused(lambda: take(fifo), "a FIFO")
    _refused(lambda: take(tmp_path / "li"), "li/mycodes.c", "a FIFO")
    _refused(lambda: prepare_source(fifo), "a FIFO")
    _refused(lambda: read_source(_fifo(tmp_path / "x.py"), "x.py"), "a FIFO")


def test_grade_names_a_fifo_in_one_line_and_grades_the_others(tmp_path: Path) -> None:
    """`grade` of a hand-in whose mycodes.c is a FIFO, beside a good one: one line, the other graded, no hang."""
    _fifo(tmp_path / "li" / "mycodes.c")
    cfg = tmp_path / "g.toml"
    cfg.write_text("[legal]\nmatches = 1\n[beat_stand]\nbatch = 2\nmin_matches = 2\nmax_matches = 2\n[beat_basic]\n"
                   "batch = 2\nmin_matches = 2\nmax_matches = 2\n[tournament]\nenabled = false\n")
    p = subprocess.Popen([*CLI, "grade", str(tmp_path / "li"), str(STAND_PY), "--config", str(cfg), "--trusted",
                          "--out", str(tmp_path / "out"), "-q", "-j", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail("grade hung on a FIFO named mycodes.c")
    assert p.returncode == 1 and "Traceback" not in err, err
    assert [ln for ln in err.splitlines() if "a FIFO" in ln and "li" in ln], err
    scores = {s["name"]: s for s in json.loads((tmp_path / "out" / "scores.json").read_text("utf-8"))["students"]}
    assert scores["li"]["error"] and scores["stand_py"]["error"] is None


def test_a_device_a_socket_and_a_link_out_of_the_hand_in_are_refused(tmp_path: Path) -> None:
    """A device node (as root), a socket, and links to /dev/zero or /etc/passwd: refused in one line each; a link to a
    file inside the hand-in is followed."""
    cases: list[tuple[Path, str]] = []
    if IS_ROOT:  # a tar extracted as root recreates device nodes; only root can make one
        dev = tmp_path / "dev" / "mycodes.c"
        dev.parent.mkdir()
        os.mknod(dev, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # what /dev/zero is
        cases.append((dev.parent, "a character device"))
    sock_dir = tmp_path / "sock"
    sock_dir.mkdir()
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_dir / "mycodes.c"))
    cases.append((sock_dir, "a socket"))
    for name, target in (("zero", "/dev/zero"), ("passwd", "/etc/passwd")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mycodes.c").symlink_to(target)
        cases.append((tmp_path / name, "a symbolic link leading out of the hand-in"))
        cases.append((tmp_path / name / "mycodes.c", "a symbolic link leading out of the hand-in"))
    try:
        for where, words in cases:
            _refused(lambda: take(where), words)
    finally:
        s.close()
    inside = tmp_path / "inside"
    (inside / "src").mkdir(parents=True)
    (inside / "src" / "real.c").write_bytes(BASIC_C.read_bytes())
    (inside / "mycodes.c").symlink_to("src/real.c")
    assert take(inside).path.resolve() == (inside / "src" / "real.c").resolve()


def test_a_tar_that_recreates_a_fifo_or_a_device_is_refused_once_extracted(tmp_path: Path) -> None:
    """A tar whose mycodes.c is a FIFO (or, as root, a character device), extracted as tar does: refused in one line."""
    kinds = [(tarfile.FIFOTYPE, "a FIFO")] + ([(tarfile.CHRTYPE, "a character device")] if IS_ROOT else [])
    for n, (kind, words) in enumerate(kinds):
        tar = tmp_path / f"hand-in{n}.tar"
        with tarfile.open(tar, "w") as t:
            info = tarfile.TarInfo(f"li{n}/mycodes.c")
            info.type, info.devmajor, info.devminor = kind, 1, 5
            t.addfile(info)
        with tarfile.open(tar) as t:
            t.extractall(tmp_path / "x", filter="fully_trusted")  # as GNU tar does for root
        _refused(lambda: take(tmp_path / "x" / f"li{n}"), words)


def test_a_zip_entry_that_is_a_link_or_a_fifo_is_refused(tmp_path: Path) -> None:
    """A zip whose mycodes.c is a symbolic link or a FIFO entry (Unix modes, as unzip would recreate): one line."""
    for mode, words in ((stat.S_IFLNK | 0o777, "a symbolic link"), (stat.S_IFIFO | 0o644, "a FIFO")):
        z = tmp_path / f"li{mode}.zip"
        with zipfile.ZipFile(z, "w") as f:
            info = zipfile.ZipInfo("li/mycodes.c")
            info.create_system = 3
            info.external_attr = mode << 16
            f.writestr(info, "/etc/passwd")
        _refused(lambda: take(z, tmp_path / "files"), words, "in the zip")


def test_a_big_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 200 MB (sparse) mycodes.c, main.c or header: refused by its size at once; nothing reads it."""
    from twentyone.grading.notes import source_notes
    from twentyone.players.c.source import prepare_source
    from twentyone.players.c.headers import own_header_warnings

    big, header = tmp_path / "li" / "mycodes.c", tmp_path / "li" / "twentyone.h"
    big.parent.mkdir()
    for f in (big, header):
        with f.open("wb") as out:
            out.truncate(200 << 20)
    small = tmp_path / "small" / "mycodes.c"
    small.parent.mkdir()
    small.write_bytes(BASIC_C.read_bytes())
    (small.parent / "main.c").symlink_to(big)  # a link leading out of the hand-in
    _refused(lambda: take(tmp_path / "li"), "200.0 MiB", "more than the 1.0 MiB")
    _refused(lambda: prepare_source(big), "200.0 MiB")
    _refused(lambda: take(tmp_path / "small"), "main.c", "a symbolic link leading out")
    for fn in (lambda: own_header_warnings([("twentyone.h", header)], "li"), lambda: source_notes(small, (1,), main=big)):
        cpu, what = in_child(fn, wall=20)
        assert cpu < 1 and what == "ok", what
    (warning,) = own_header_warnings([("twentyone.h", header)], "li")
    assert "200.0 MiB" in warning and "not used" in warning and MAX_SOURCE == 1 << 20


# -- 1 MB of adversarial text through every step that reads student text --------------------------------------

N = 1_000_000
#: A course function first, so that the text passes prepare_source's checks and reaches every pattern.
PRE = "int bet1(int N) { return 10; }\n"


def _fit(unit: str, head: str = "", tail: str = "", size: int = N) -> str:
    body = size - len(head) - len(tail)
    return head + (unit * (body // len(unit) + 1))[:body] + tail


#: Each aims at a pattern or a parser that grew faster than the text: the audit's ``int``, spaces and ``(``; two
#: adjacent ``\\s*``; a preprocessor line continued to the end; an unterminated string of escapes; unterminated
#: comments (tree-sitter took 12 s for 15 KB of them); deep nesting; a long declaration; a repeated line (every
#: k-gram matching every other); terminal escapes.
def adversarial(size: int = N) -> dict[str, str]:
    """Each adversarial text, ``size`` characters long."""
    return {
        "int_spaces": _fit(" ", "int", "(", size=size),
        "pre_int_spaces": _fit(" ", PRE + "int", "(", size=size),
        "char_blanks": _fit(" \t", PRE + "char", "x", size=size),
        "struct_spaces": _fit(" ", PRE + "typedef struct", "x", size=size),
        "newlines": _fit("\n", "int f", "x", size=size),
        "continued_directive": _fit("#\\\n", PRE, "#\\", size=size),
        "open_string": _fit('\\"', PRE + '"', "\\", size=size),
        "open_comments": _fit("/* ", PRE, size=size),
        "nested_calls": _fit("x(", PRE, size=size),
        "long_declaration": _fit(" a", PRE + "int a", ";", size=size),
        "long_name": _fit("a", PRE + "int ", "[1] x;", size=size),
        "repeated_line": _fit("x = 1;\n", PRE + "int f() {\n", "}", size=size),
        "escapes": _fit("\x1b]52;c;aGk=\x07\x1b[2J", PRE, size=size),
    }


ADVERSARIAL = adversarial()


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def _prepare_source(text: str, tmp: Path) -> None:
    from twentyone.players.c.source import prepare_source

    try:
        prepare_source(_write(tmp, "mycodes.c", text))
    except PlayerSpecError:
        pass


def _looks_like_c(text: str, tmp: Path) -> None:
    from twentyone.players.c.source import _looks_like_c

    _looks_like_c(text)


def _intake(text: str, tmp: Path) -> None:
    for name in ("mycodes.c", "twentyone.h", "mycodes.h", "main.c"):
        _write(tmp / "li", name, text)
    take(tmp / "li")


def _interface(text: str, tmp: Path) -> None:
    from twentyone.players.c.headers import differences, interface

    differences(interface(text), interface(text))


def _notes(text: str, tmp: Path) -> None:
    from twentyone.grading.notes import source_notes

    _write(tmp, "main.c", text)  # read as the student's own main.c beside it
    source_notes(_write(tmp, "mycodes.c", text), (1, 2))


def _fingerprint(language: str) -> Callable[[str, Path], None]:
    def step(text: str, tmp: Path) -> None:
        from twentyone.grading.similarity.fingerprints import fingerprint, read_text

        fingerprint("x", read_text(text.encode("utf-8")), language)

    step.__name__ = f"_fingerprint_{language}"
    return step


def _similarity(text: str, tmp: Path) -> None:
    from twentyone.grading.config import Similarity
    from twentyone.grading.similarity.pairs import build, template_sources
    from twentyone.grading.similarity.pages import render_pair
    from twentyone.grading.store import SourceRow

    sources = [SourceRow(n, "submission", f"{n}.c", "c", text) for n in ("a", "b")] + template_sources()
    report = build(["a", "b"], sources, {}, Similarity(), "t")
    for row in report.listed():
        render_pair(report, row)


def _python(text: str, tmp: Path) -> None:
    from twentyone.players.files.python import _text, defines_strategy, read_source

    raw = read_source(_write(tmp, "li.py", text), "li.py")
    defines_strategy(raw)
    _text(raw)


def _shown(text: str, tmp: Path) -> None:
    from twentyone.grading.commands import entry_error_line
    from twentyone.grading.outcome import EntryKind
    from twentyone.grading.store import EntryRow
    from twentyone.safetext import visible

    visible(text)
    visible(text, lines=True)
    entry_error_line(EntryRow("li", 0, "li.c", "", EntryKind.C, "does not compile", text))


STEPS = {f.__name__.lstrip("_"): f for f in (_prepare_source, _looks_like_c, _intake, _interface, _notes,
                                              *map(_fingerprint, ("c", "cpp", "py")), _similarity, _python, _shown)}


#: CPU seconds under which a step's time is too small to tell a growth rate from this machine's noise.
NOISE = 0.5
#: The most CPU time 1 MB may take at all: the audit's patterns took minutes, and a hand-in is at most 1 MiB.
BUDGET = 5.0


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.slow
def test_one_megabyte_of_adversarial_text_takes_each_step_linear_time(step: str, tmp_path: Path) -> None:
    """Every intake and classification step that reads student text takes each adversarial text in time that grows
    no faster than the text: 1 MB costs at most 8 times what a quarter of it costs (linear work costs 4 times,
    quadratic 16), unless both are below ``NOISE`` seconds, and never more than ``BUDGET``.  CPU time
    (time.process_time) in a child killed after 20 s, modules imported beforehand so that their loading is not
    counted.  A budget of 1 s alone failed on a loaded CI machine at 1.1 s for a step that is constant in the text."""
    STEPS[step](PRE, tmp_path / "warm")  # import what the step uses, in this process, before the children fork
    quarter = adversarial(N // 4)
    slow = {}
    for name, text in ADVERSARIAL.items():
        cpu, what = in_child(lambda: STEPS[step](text, tmp_path / name), wall=20)
        if what != "ok" or cpu >= BUDGET:
            slow[name] = (cpu, what[:200])
        elif cpu >= NOISE:
            small, what = in_child(lambda: STEPS[step](quarter[name], tmp_path / f"{name}.4"), wall=20)
            if what != "ok" or cpu > 8 * max(small, NOISE / 8):
                slow[name] = (cpu, f"a quarter of it: {small:.3f} s, {what[:200]}")
    assert not slow, slow
