"""Build a student's unmodified ``mycodes.c`` into a Python extension module (cffi) and a box program.

``compile_student`` builds the file in cffi API mode against the project's headers
(``c_src/twentyone.h``, ``c_src/mycodes.h`` and the POSIX stand-ins in ``c_src/compat``), with the
project's glue from ``c_src/bridge`` (dispatch by function set, output capture) and ``c_src/compat/tw_compat.c``,
into a module named by a hash of the source, the headers, the glue and the flags: the module plays in process
(``--trusted``).  The student's C file is compiled to see only the names the course's Windows compilers show it
(``STUDENT_C_FLAGS``: C99 and POSIX, not glibc's ``index`` or ``random``).  The
same objects are linked into the submission's **box program** (``BOX_PROGRAM`` beside the module, with
``c_src/box`` and the serve loop ``c_src/bridge/tw_serve.c``), which plays each sandboxed match: nothing of
the student's runs in it before it is confined (initialisers moved, ``.init`` code and ifunc resolvers
refused) and only the course's 20 functions stay global (SANDBOX.md).  ``compile_program`` builds another
game's submission (the judge's) into a box program the same way.  Builds run in a subprocess (``python -m
twentyone.players.c.build``, this module's ``main``) with a time limit, and are cached, so an unchanged file
is never rebuilt; a product over ``TWENTYONE_MAX_MODULE_MIB`` is refused, and the cache stays under
``TWENTYONE_CACHE_MIB`` (``prune_cache``).  Every symbol of the student's code is hidden
(``-fvisibility=hidden``), so two students' ``bet1`` never meet.

``source.prepare_source`` takes care of real students' habits before compiling: ``#define PERSON`` is
switched off in a temporary copy (with a warning; the student's file is never changed), CRLF endings,
GBK or UTF-8 text and Windows' habits are accepted.  A ``.cpp`` hand-in (Dev-C++ projects are C++ by
default) is compiled with g++, its function sets given C linkage by a generated wrapper.

The compiler runs as untrusted code: in a scratch folder holding only the student's file and copies
of the course's files, with stdin from ``/dev/null``, limits on memory, CPU time, file size (and, for
an ordinary user, processes), dying with the grader, and under Landlock, which lets it read only the
toolchain, Python and that folder, and write only that folder.  So ``#include "/etc/passwd"``,
``.incbin`` of another student's file and ``#include "/dev/stdin"`` all fail, and the messages shown
quote only the student's own file.  Where Landlock is missing this is said once, and absolute and
``..`` includes (found by the preprocessor, so a macro cannot hide them) and inline assembly are
refused before compiling.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from twentyone.errors import CompileError, PlayerSpecError
from twentyone.players.c import headers
from twentyone.players.c.source import prepare_source
from twentyone.players.sandbox import landlock
from twentyone.strategy import FUNCTION_NAMES

__all__ = ["C_SRC", "BRIDGE", "FLAGS", "STUDENT_C_FLAGS", "GLIBC_C_FLAGS", "CXX_FLAGS", "student_c_flags",
           "compile_student", "compile_program",
           "module_name", "prune_cache", "max_module_bytes",
           "missing_functions", "cache_dir", "output_dir", "bridge_cdef", "main", "SOURCE_SUFFIXES"]

C_SRC = headers.C_SRC
BRIDGE = C_SRC / "bridge"
COMPILE_TIMEOUT = 120.0
#: Limits of the compiler's processes (each): memory, CPU seconds, the largest file it may write.
COMPILE_MEMORY = 1 << 30
COMPILE_CPU = 60
#: The largest compiled module or box program kept (``TWENTYONE_MAX_MODULE_MIB``, 64 by default): a 240 MB
#: initialised array is refused in one line instead of filling the cache and slowing every match.
MAX_MODULE_MIB = 64
#: The compiled-module cache's total size (``TWENTYONE_CACHE_MIB``, 1024 by default): the least recently used
#: builds are removed past it.
CACHE_MIB = 1024


def _mib(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not 1 <= int(text) <= 1 << 20:
        raise PlayerSpecError(f"{name} must be a number of MiB, 1 .. 1048576, not {text!r}")
    return int(text)


def max_module_bytes() -> int:
    """The cap on a compiled module's (and box program's) size, in bytes."""
    return _mib("TWENTYONE_MAX_MODULE_MIB", MAX_MODULE_MIB) << 20
#: ``-g``: a crash in the sandbox is named by its line (players/sandbox/crash.py).
FLAGS = ("-O1", "-g", "-std=gnu99", "-fvisibility=hidden", "-w", "-fno-diagnostics-show-caret")
#: Added to FLAGS for the student's own C file only (the course's files and the glue keep glibc's default):
#: glibc then declares C99's and POSIX.1-2008's names (strdup, fdopen ...) but not its own and the BSDs'
#: (index, random, bzero, y0 ...), which -std=gnu99 alone turns on, and ``linux``/``unix`` are no macros.  That
#: is about what the course's Windows compilers show a file, so globals called index, random, pause or link
#: compile here as they do there.  The GNU dialect stays (MinGW's default, and gcc keeps knowing strdup's or
#: alloca's type as a built-in): -std=c99 would also turn on trigraphs, and a prompt's "??(" would print as "[".
#: (A C++ file keeps CXX_FLAGS: g++ always defines _GNU_SOURCE.)
STUDENT_C_FLAGS = ("-D_POSIX_C_SOURCE=200809L", "-Ulinux", "-Uunix")
#: How every student's C file was compiled before STUDENT_C_FLAGS (tw_capture.h defined _GNU_SOURCE): all of
#: glibc's names.  Used when the file does not compile with STUDENT_C_FLAGS (it uses M_PI, MAP_ANONYMOUS ...,
#: names Linux has and the course's compilers may too), and for a file that defines a feature-test macro itself.
GLIBC_C_FLAGS = ("-D_GNU_SOURCE",)
#: The student's file when it is C++ (the course's helpers and the glue stay C).
CXX_FLAGS = ("-O1", "-g", "-std=gnu++17", "-fvisibility=hidden", "-w", "-fno-diagnostics-show-caret")
#: The glue compiled with every student's file: dispatch by function set, output capture (c_src/bridge), and
#: the part of the conio.h/windows.h stand-ins that needs POSIX headers (c_src/compat/tw_compat.c).
GLUE = ("bridge/tw_dispatch.c", "bridge/tw_capture.c", "compat/tw_compat.c")
#: The box program's own code (c_src/box, and the course's serve loop), linked with the student's objects.
BOX_SOURCES = ("box/tw_box.c", "box/tw_confine.c", "bridge/tw_serve.c")
#: The course's files a build needs, copied into its scratch folder (headers flat in include/).
COURSE_HEADERS = ("twentyone.h", "mycodes.h", "tw_rng.h", "compat/conio.h", "compat/windows.h",
                  "compat/tw_msvc.h", "bridge/tw_bridge.h", "bridge/tw_capture.h", "box/tw_box.h", "box/tw_confine.h")
COURSE_SOURCES = ("twentyone.c", "tw_rng.c", *GLUE, *BOX_SOURCES)
#: The box program's name beside the built module.
BOX_PROGRAM = "box"
#: The course's 20 functions: the only symbols of the student's objects left global in the box program, so
#: that no function of the student's (a ``prctl``, a ``malloc``) can stand in for the one the box calls.
COURSE_FUNCTIONS = tuple(f"{n}{k}" for k in range(1, 6) for n in FUNCTION_NAMES)
#: A student's source file, by suffix: C or C++.
SOURCE_SUFFIXES = {".c": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp"}
#: Gives a C++ hand-in's function sets C linkage: the course's declarations come first, inside extern "C".
_CXX_WRAPPER = 'extern "C" {\n#include "mycodes.h"\n}\n#include "student.cpp"\n'


def bridge_cdef() -> str:
    """cffi's cdef of a student module: the course's Player and Banker, then tw_bridge.h's functions."""
    course = (C_SRC / "twentyone.h").read_text(encoding="utf-8")
    types = re.findall(r"typedef struct \{[^}]*\} (?:Player|Banker);", course)
    bridge = (BRIDGE / "tw_bridge.h").read_text(encoding="utf-8")
    body = re.sub(r"/\*.*?\*/", "", bridge, flags=re.S)
    protos = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return "\n".join([*types, *protos]) + "\n"


# Possessive quantifiers (``*+``, ``++``) never give back what they took: linear in the student's text.
#: A feature-test macro the file defines itself (``#define _GNU_SOURCE`` and the like).
_FEATURE_MACRO = re.compile(rb"^[ \t]*+#[ \t]*+define[ \t]++_(?:GNU|DEFAULT|BSD|SVID|XOPEN|POSIX_C|POSIX)_SOURCE\b",
                            re.MULTILINE)


def student_c_flags(source: bytes) -> list[list[str]]:
    """The flags a student's C file is compiled with besides FLAGS, in the order they are tried: the first that
    compiles the file is used; when none does, the compiler's messages are the first's.

    STUDENT_C_FLAGS, then GLIBC_C_FLAGS (so no file that compiled before STUDENT_C_FLAGS stops compiling).  A file
    that defines a feature-test macro itself (``#define _GNU_SOURCE``) gets only GLIBC_C_FLAGS: its define comes
    too late to count after tw_capture.h, which is force-included first and includes <stdio.h>, and it asked for
    glibc's names."""
    if _FEATURE_MACRO.search(source):
        return [list(GLIBC_C_FLAGS)]
    return [list(STUDENT_C_FLAGS), list(GLIBC_C_FLAGS)]


def cache_dir() -> Path:
    """Where compiled student modules are kept (``$TWENTYONE_CACHE`` or ``~/.cache/twentyone``)."""
    base = os.environ.get("TWENTYONE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "twentyone")
    return Path(base).resolve() / "c"


def output_dir() -> Path:
    """Where ``twentyone match`` and ``play`` put what C players print, one file per match:
    ``output`` next to the build cache (``$TWENTYONE_CACHE`` or ``~/.cache/twentyone``)."""
    return cache_dir().parent / "output"


def _toolchain() -> bytes:
    """The compiler's and cffi's versions: a new compiler or cffi means a new build."""
    global _TOOLCHAIN
    if _TOOLCHAIN is None:
        import cffi

        try:
            cc = subprocess.run([os.environ.get("CC", "gcc"), "--version"], capture_output=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            cc = b"unknown compiler"
        _TOOLCHAIN = cc.split(b"\n", 1)[0] + b"|cffi " + cffi.__version__.encode()
    return _TOOLCHAIN


_TOOLCHAIN: bytes | None = None


def _inputs_digest() -> bytes:
    """A hash of everything a build uses besides the student's file: headers, helpers, glue, this build."""
    h = hashlib.sha256()
    files = [*C_SRC.glob("*.h"), *(C_SRC / "compat").glob("*.[ch]"), *BRIDGE.glob("*.[ch]"),
             *(C_SRC / "box").glob("*.[ch]"), C_SRC / "twentyone.c", C_SRC / "tw_rng.c", Path(__file__)]
    for p in sorted(files):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.digest()


def module_name(source: bytes, lang: str = "c") -> str:
    """The unique module name of a prepared source: a hash of it, its language, the headers and the flags."""
    h = hashlib.sha256()
    h.update(source)
    h.update(lang.encode())
    h.update(_inputs_digest())
    h.update(" ".join(FLAGS).encode())
    h.update(" ".join([*STUDENT_C_FLAGS, "|", *GLIBC_C_FLAGS]).encode())
    h.update(sys.version.encode())
    h.update(_toolchain())
    return "_tw_student_" + h.hexdigest()[:24]


def compile_student(path: Path, warn: Callable[[str], None] | None = None,
                    timeout: float = COMPILE_TIMEOUT) -> Path:
    """Compile ``path`` (C, or C++ by its suffix), or reuse the cached build; return the built module's file."""
    path = path.resolve()
    lang = SOURCE_SUFFIXES.get(path.suffix.lower(), "c")
    source = prepare_source(path, warn)
    name = module_name(source, lang)
    out_dir = cache_dir() / name
    for built in out_dir.glob(f"{name}*.so"):
        if (out_dir / BOX_PROGRAM).is_file():
            _touch(out_dir)
            return built
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tw-build-", dir=out_dir.parent) as tmp:
        scratch = Path(tmp)
        args = _scratch(scratch, source, lang, name)
        proc = _build_confined(args, scratch, timeout, path, warn)
        student = scratch / ("student.cpp" if lang == "cpp" else "mycodes.c")
        if proc.returncode != 0:
            _check_size(path, scratch, proc)
            raise CompileError(f"{path} does not compile", _compiler_messages(proc, student, path))
        product = next(scratch.glob(f"{name}*.so"), None)
        if product is None:
            raise CompileError(f"{path}: the compiler produced no module")
        box = scratch / BOX_PROGRAM
        if not box.is_file():
            raise CompileError(f"{path}: the compiler produced no box program")
        _check_size(path, scratch)
        final_dir = scratch / "final"
        final_dir.mkdir()
        product.replace(final_dir / product.name)
        box.replace(final_dir / BOX_PROGRAM)
        _finish(final_dir, out_dir)
    return next(out_dir.glob(f"{name}*.so"))


def compile_program(path: Path, source: bytes, *, lang: str, headers: Sequence[Path], box_sources: Sequence[Path],
                    keep: Sequence[str], warn: Callable[[str], None] | None = None,
                    timeout: float = COMPILE_TIMEOUT) -> Path:
    """Compile a submission that is not a course ``mycodes.c`` (the judge problem's solution) into a box program,
    the same careful way (a confined compiler, nothing run before main, the cache), or reuse the cached build.

    ``source`` is the text to compile (``path`` names it in messages); ``headers`` are copied beside it;
    ``box_sources`` are the trusted code linked with it, which define ``tw_box_prepare`` and ``tw_box_serve``
    (c_src/box/tw_box.h); ``keep`` are the only symbols of the submission left global (C++ names mangled).
    Returns the box program; raises CompileError (with the compiler's messages about the file) or
    PlayerSpecError.
    """
    path = path.resolve()
    h = hashlib.sha256(source + lang.encode() + _inputs_digest() + _toolchain())
    h.update(" ".join([*FLAGS, *CXX_FLAGS, *STUDENT_C_FLAGS, "|", *GLIBC_C_FLAGS]).encode())
    for extra in (*headers, *box_sources):
        h.update(extra.name.encode() + extra.read_bytes())
    h.update("\0".join(keep).encode())
    name = "_tw_program_" + h.hexdigest()[:24]
    out_dir = cache_dir() / name
    if (out_dir / BOX_PROGRAM).is_file():
        _touch(out_dir)
        return out_dir / BOX_PROGRAM
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tw-build-", dir=out_dir.parent) as tmp:
        scratch = Path(tmp)
        include = scratch / "include"
        include.mkdir()
        for header in headers:
            shutil.copyfile(header, include / header.name)
        course = scratch / "course"
        course.mkdir()
        for rel in ("box/tw_box.c", "box/tw_confine.c", "box/tw_box.h", "box/tw_confine.h"):
            shutil.copyfile(C_SRC / rel, (course if rel.endswith(".c") else include) / Path(rel).name)
        for src in box_sources:
            shutil.copyfile(src, course / src.name)
        student = scratch / ("student.cpp" if lang == "cpp" else "student.c")
        student.write_bytes(source)
        args = {
            "name": name, "lang": lang, "student": str(student), "sources": [], "glue": [], "module": False,
            "box_sources": [str(course / "tw_box.c"), str(course / "tw_confine.c"),
                            *(str(course / src.name) for src in box_sources)],
            "keep": list(keep), "cc": os.environ.get("CC", "gcc"), "cxx": os.environ.get("CXX", "g++"),
            "include_dirs": [str(include)], "flags": list(FLAGS), "cxx_flags": list(CXX_FLAGS), "student_flags": [],
            "student_c_flags": student_c_flags(source),
            "tmpdir": str(scratch), "confine": landlock.abi() >= 1,
        }
        proc = _build_confined(args, scratch, timeout, path, warn)
        if proc.returncode != 0:
            _check_size(path, scratch, proc)
            raise CompileError(f"{path} does not compile", _compiler_messages(proc, student, path))
        box = scratch / BOX_PROGRAM
        if not box.is_file():
            raise CompileError(f"{path}: the compiler produced no program")
        _check_size(path, scratch)
        final_dir = scratch / "final"
        final_dir.mkdir()
        box.replace(final_dir / BOX_PROGRAM)
        _finish(final_dir, out_dir)
    return out_dir / BOX_PROGRAM


def _check_size(path: Path, scratch: Path, proc: subprocess.CompletedProcess[bytes] | None = None) -> None:
    """Refuse a build whose products passed the module cap, or whose tools were stopped writing past it."""
    cap = max_module_bytes()
    largest = max((f.stat().st_size for f in scratch.rglob("*") if f.is_file() and not f.is_symlink()), default=0)
    stopped = proc is not None and b"File size limit exceeded" in proc.stderr
    if largest > cap or stopped:
        size = f"{largest >> 20} MiB" if largest > cap else f"more than {cap >> 20} MiB"
        raise CompileError(f"{path}: the compiled module would be {size}, over the cap of {cap >> 20} MiB (a large "
                           "initialised array?); TWENTYONE_MAX_MODULE_MIB sets the cap")


def _touch(built: Path) -> None:
    """Mark a cached build as used now (the cache keeps the most recently used)."""
    try:
        os.utime(built)
    except OSError:
        pass


def _finish(final_dir: Path, out_dir: Path) -> None:
    """Put a finished build in the cache (only finished builds are ever there), then keep the cache in size."""
    try:
        final_dir.rename(out_dir)
    except OSError:
        if not out_dir.exists():
            raise
    prune_cache(keep=out_dir)


def prune_cache(keep: Path | None = None, now: float | None = None) -> list[Path]:
    """Keep the build cache under ``TWENTYONE_CACHE_MIB``: remove the least recently used builds past it (never
    ``keep``), and scratch folders of builds that were killed (over an hour old).  Returns what was removed."""
    import time

    root = cache_dir()
    now = time.time() if now is None else now
    removed: list[Path] = []
    builds: list[tuple[float, int, Path]] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        try:
            st = entry.lstat()
        except OSError:
            continue
        if entry.name.startswith("tw-build-"):
            if now - st.st_mtime > 3600:
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
            continue
        if entry.name.startswith(("_tw_student_", "_tw_program_")) and entry.is_dir() and not entry.is_symlink():
            size = sum(f.stat().st_size for f in entry.iterdir() if f.is_file())
            builds.append((st.st_mtime, size, entry))
    total = sum(size for _, size, _ in builds)
    cap = _mib("TWENTYONE_CACHE_MIB", CACHE_MIB) << 20
    for _, size, entry in sorted(builds):
        if total <= cap:
            break
        if keep is not None and entry == keep:
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
        total -= size
    return removed


def _scratch(scratch: Path, source: bytes, lang: str, name: str) -> dict[str, Any]:
    """Fill the build's scratch folder (the student's file, copies of the course's) and return the build's
    arguments, every path inside the folder."""
    include = scratch / "include"
    include.mkdir()
    for rel in COURSE_HEADERS:
        shutil.copyfile(C_SRC / rel, include / Path(rel).name)
    course = scratch / "course"
    course.mkdir()
    for rel in COURSE_SOURCES:
        shutil.copyfile(C_SRC / rel, course / Path(rel).name)
    if lang == "cpp":
        (scratch / "student.cpp").write_bytes(source)
        (scratch / "mycodes.cpp").write_text(_CXX_WRAPPER)
        student = scratch / "mycodes.cpp"
    else:
        student = scratch / "mycodes.c"
        student.write_bytes(source)
    return {
        "cdef": bridge_cdef(), "name": name, "lang": lang, "student": str(student),
        "sources": [str(course / "twentyone.c"), str(course / "tw_rng.c")],
        "glue": [str(course / Path(g).name) for g in GLUE],
        "box_sources": [str(course / Path(b).name) for b in BOX_SOURCES],
        "cc": os.environ.get("CC", "gcc"), "cxx": os.environ.get("CXX", "g++"),
        "include_dirs": [str(include)],
        "flags": list(FLAGS), "cxx_flags": list(CXX_FLAGS), "student_c_flags": student_c_flags(source),
        "student_flags": ["-include", str(include / "tw_capture.h")],
        "tmpdir": str(scratch), "confine": landlock.abi() >= 1,
    }


_said_unconfined = False


def _build_confined(args: dict[str, Any], scratch: Path, timeout: float, path: Path,
                    warn: Callable[[str], None] | None) -> subprocess.CompletedProcess[bytes]:
    """Run this module's build step on ``args`` in ``scratch`` (confined when Landlock is there, said otherwise);
    CompileError when it takes longer than ``timeout`` seconds."""
    if not args["confine"]:
        _say_unconfined(warn)
    proc = _run_untrusted([sys.executable, "-m", "twentyone.players.c.build", json.dumps(args)], scratch, timeout)
    if proc is None:
        raise CompileError(f"{path}: compiling took longer than {timeout:g} s")
    return proc


def _say_unconfined(warn: Callable[[str], None] | None) -> None:
    global _said_unconfined
    if not _said_unconfined and warn is not None:
        _said_unconfined = True
        warn("Landlock is not available: the compiler is not confined to its folder, so absolute and '..' "
             "includes and inline assembly are refused before compiling")


def _untrusted_child(file_size: int) -> None:
    """In the compiler's process, before it starts: die with the grader, and take the compile limits."""
    import resource

    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG (die_with_parent's, fork-safe)
    resource.setrlimit(resource.RLIMIT_AS, (COMPILE_MEMORY, COMPILE_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (COMPILE_CPU, COMPILE_CPU + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() != 0:  # root is not bound by RLIMIT_NPROC; an ordinary user's count is all of theirs
        mine = sum(1 for p in Path("/proc").iterdir() if p.name.isdigit() and _owned(p))
        resource.setrlimit(resource.RLIMIT_NPROC, (mine + 64, mine + 64))


def _owned(p: Path) -> bool:
    try:
        return p.stat().st_uid == os.geteuid()
    except OSError:
        return False


def _run_untrusted(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[bytes] | None:
    """Run the compiler's ``cmd`` as untrusted code, in a process group of its own; None (and the whole
    group killed) after ``timeout``."""
    env = dict(os.environ, TMPDIR=str(cwd), LC_ALL="C")
    # The tools may write a little more than the cap (the cap is checked on what they made), never much more.
    limit = functools.partial(_untrusted_child, max_module_bytes() + (16 << 20))
    p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, env=env, preexec_fn=limit)  # noqa: PLW1509
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        return None
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


_LINK = re.compile(r"(multiple definition of|undefined reference to) [`'‘](?:tw_)?(\w+)['’]")


def _compiler_messages(proc: subprocess.CompletedProcess[bytes], copy: Path, original: Path) -> str:
    """The compiler's messages about the student's own file, under its own name; nothing quoted from
    any other file.  Link errors are named by the student's function (``printf``, not ``tw_printf``)."""
    text = (proc.stderr + b"\n" + proc.stdout).decode("utf-8", errors="replace")
    text = text.replace(str(copy), str(original)).replace(str(copy.parent / "mycodes.cpp"), str(original))
    prefix = f"{original}:"
    keep = [ln for ln in text.splitlines() if ln.startswith(prefix)]
    links = []
    for m in _LINK.finditer(text):
        line = f"{original}: link error: {m.group(1)} `{m.group(2)}'"
        if m.group(1).startswith("multiple"):
            line += " (the course's program or the project's output capture already defines it)"
        if line not in links:
            links.append(line)
    keep += links
    if not keep:
        keep = [f"{original}: the build failed ({_stage(text)})"]
    return "\n".join(keep[:40])


def _stage(text: str) -> str:
    """Which step of the build failed, without quoting its messages (they may name other files)."""
    if "Assembler messages" in text or "Error:" in text:
        return "the assembler refused it"
    if "ld:" in text or "collect2" in text:
        return "the linker refused it"
    return "the compiler stopped without a message about the file"


def missing_functions(built: Path, k: int) -> list[str]:
    """The functions of set ``k`` that the built module lacks, read from its symbol table (no loading)."""
    proc = subprocess.run(["nm", str(built)], capture_output=True, text=True, errors="replace")
    defined = {parts[-1] for parts in (ln.split() for ln in proc.stdout.splitlines())
               if len(parts) == 3 and parts[1] in "Tt"}
    return [f"{n}{k}" for n in FUNCTION_NAMES if f"{n}{k}" not in defined]


def main(argv: Sequence[str] | None = None) -> int:
    """The build, run in a subprocess by ``compile_student``: ``python -m twentyone.players.c.build ARGS``.

    ARGS is a JSON object.  The process first confines itself (Landlock: read the toolchain, Python and
    the scratch folder, write only that folder), or, where it cannot, checks the source first
    (``_refused``).  The student's file and the course helpers are then compiled (with ``tw_capture.h``
    force-included) and linked into one relocatable object whose ``.data`` and ``.bss`` are renamed
    ``tw_data*`` and ``tw_bss`` (so ``tw_segments`` finds exactly their statics); cffi then builds the
    module from that object and the glue.  Exit status 1 on any failure, with the messages on stderr.
    """
    import cffi.recompiler  # noqa: F401 - everything the build needs is loaded before the process is confined
    from cffi import FFI
    from cffi._shimmed_dist_utils import Distribution  # noqa: F401

    args: dict[str, Any] = json.loads((argv if argv is not None else sys.argv[1:])[0])
    scratch = args["tmpdir"]
    if args["confine"]:
        landlock.restrict(read=_python_paths(), write=[scratch, "/dev/null"])
    else:
        problem = _refused(args)
        if problem:
            print(problem, file=sys.stderr)
            return 1
    incs = [f"-I{d}" for d in args["include_dirs"]]
    objs = []
    cpp = args["lang"] == "cpp"
    units = [(args["student"], cpp), *((src, False) for src in args["sources"])]
    for i, (src, is_cpp) in enumerate(units):
        obj = os.path.join(scratch, f"part{i}.o")
        cc, flags = (args["cxx"], args["cxx_flags"]) if is_cpp else (args["cc"], args["flags"])
        if i == 0 and not is_cpp:  # the student's own C file: only the names Windows' compilers show it
            if not _compile_student_c([cc, "-c", "-fPIC", *flags], args.get("student_c_flags", [[]]),
                                      [*args["student_flags"], *incs, src, "-o", obj]):
                return 1
        else:
            cmd = [cc, "-c", "-fPIC", *flags, *args["student_flags"], *incs, src, "-o", obj]
            if subprocess.run(cmd, stdin=subprocess.DEVNULL).returncode:
                return 1
        objs.append(obj)
    student = os.path.join(scratch, "student.o")
    if subprocess.run(["ld", "-r", "-o", student, *objs]).returncode:
        return 1
    boxed = _link_box(args, student, incs)
    if boxed is not None:
        if boxed:
            print(boxed, file=sys.stderr)
        return 1
    if not args.get("module", True):
        return 0
    renames = []
    for old, new in ((".data", "tw_data"), (".data.rel.local", "tw_data_rel"), (".data.rel", "tw_data_rel"),
                     (".bss", "tw_bss")):
        renames += ["--rename-section", f"{old}={new}"]
    if subprocess.run(["objcopy", *renames, student]).returncode:
        return 1
    ffi = FFI()
    ffi.cdef(args["cdef"])
    ffi.set_source(args["name"], '#include "tw_bridge.h"\n', sources=args["glue"],
                   include_dirs=args["include_dirs"], extra_compile_args=args["flags"], extra_objects=[student],
                   libraries=["stdc++"] if cpp else [])
    try:
        ffi.compile(tmpdir=scratch, verbose=False)
    except Exception as e:  # noqa: BLE001 - the linker's own messages are above; say which step failed
        print(f"the module could not be linked: {type(e).__name__}", file=sys.stderr)
        return 1
    return 0


def _compile_student_c(head: list[str], choices: list[list[str]], tail: list[str]) -> bool:
    """Compile the student's C file with the first of ``choices`` (``student_c_flags``) that compiles it; its
    messages are shown.  When none does, the first one's messages are shown and False returned."""
    first = b""
    for k, extra in enumerate(choices):
        proc = subprocess.run([*head, *extra, *tail], stdin=subprocess.DEVNULL, capture_output=True)
        if k == 0:
            first = proc.stderr + proc.stdout
        if proc.returncode == 0:
            sys.stderr.buffer.write(proc.stderr + proc.stdout)
            sys.stderr.flush()
            return True
    sys.stderr.buffer.write(first)
    sys.stderr.flush()
    return False


#: Sections whose code would run before the box program's main(): refused (a C or C++ compiler never makes
#: them; only a hand-written ``.section`` does).
_BEFORE_MAIN = (".init", ".fini")
#: The student's initialisers, moved where the box program runs them once it is confined (c_src/box/tw_box.c);
#: finalisers are dropped (the box ends with _exit).
_MOVED = ((".init_array", "tw_init_array"), (".ctors", "tw_ctors"), (".preinit_array", "tw_preinit_array"),
          (".fini_array", "tw_fini_array"), (".dtors", "tw_fini_array"))


def _sections(obj: str) -> list[str]:
    """The section names of an object file (``readelf -SW``)."""
    out = subprocess.run(["readelf", "-SW", obj], capture_output=True, text=True, errors="replace").stdout
    return [m.group(1) for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)", out, re.M)]


def _link_box(args: dict[str, Any], student: str, incs: list[str]) -> str | None:
    """Link the submission's box program (``BOX_PROGRAM``) from a copy of ``student`` in which nothing runs
    before main (initialisers moved, ``.init``/``.fini`` code and ifunc resolvers refused) and only the course's
    20 functions stay global.  None when it is linked; else why not ('' when the tools' messages say it)."""
    scratch = args["tmpdir"]
    boxed = os.path.join(scratch, "boxed.o")
    renames = []
    for name in _sections(student):
        if name in _BEFORE_MAIN:
            return f"{args['student']}:1: error: a '{name}' section runs code before the sandbox holds; refused"
        for old, new in _MOVED:
            if name == old or name.startswith(old + "."):
                renames += ["--rename-section", f"{name}={new}"]
    symbols = subprocess.run(["readelf", "-sW", student], capture_output=True, text=True, errors="replace").stdout
    if re.search(r"\bIFUNC\b", symbols):
        return f"{args['student']}:1: error: an ifunc resolver runs before the sandbox holds; refused"
    keep = os.path.join(scratch, "keep.txt")
    with open(keep, "w", encoding="ascii") as f:
        f.write("\n".join(args.get("keep", COURSE_FUNCTIONS)) + "\n")
    if subprocess.run(["objcopy", *renames, f"--keep-global-symbols={keep}", student, boxed]).returncode:
        return ""
    objs = [boxed]
    cpp = args["lang"] == "cpp"
    for i, src in enumerate(args["box_sources"] + args["glue"]):
        obj = os.path.join(scratch, f"box{i}.o")
        is_cpp = src.endswith(".cpp")
        cpp = cpp or is_cpp
        compiler = [args["cxx"], "-std=gnu++17"] if is_cpp else [args["cc"], "-std=gnu99"]
        if subprocess.run([*compiler, "-c", "-O2", *incs, src, "-o", obj], stdin=subprocess.DEVNULL).returncode:
            return ""
        objs.append(obj)
    link = [args["cxx"] if cpp else args["cc"], "-o", os.path.join(scratch, BOX_PROGRAM), *objs, "-lm"]
    if subprocess.run(link, stdin=subprocess.DEVNULL).returncode:
        return ""
    return None


def _python_paths() -> list[str]:
    """What a confined build may read besides the toolchain: Python and its installed packages."""
    import site
    import sysconfig

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages()}
    paths.update(p for p in sysconfig.get_paths().values() if p)
    return sorted(paths)


_ASM = re.compile(rb"\b(?:asm|__asm__|__asm)\b")


def _refused(args: dict[str, Any]) -> str:
    """Without Landlock: why the source may not be compiled ('' if it may).  The preprocessor lists every
    file it includes (so a macro cannot hide one); each must be the scratch folder's or the system's."""
    student = Path(args["student"])
    name = student.name if args.get("module", True) is False else ("mycodes.c" if args["lang"] == "c" else "student.cpp")
    body = (student.parent / name).read_bytes()
    if _ASM.search(body):
        return f"{student.parent / name}:1: error: inline assembly is refused where the compiler cannot be confined"
    cc = args["cxx"] if args["lang"] == "cpp" else args["cc"]
    flags = args["cxx_flags"] if args["lang"] == "cpp" else [*args["flags"], *args.get("student_c_flags", [[]])[0]]
    proc = subprocess.run([cc, "-M", *flags, *args["student_flags"], *(f"-I{d}" for d in args["include_dirs"]),
                           str(student)], stdin=subprocess.DEVNULL, capture_output=True)
    if proc.returncode:
        return ""  # the compile that follows reports it
    deps = proc.stdout.decode("utf-8", "replace").replace("\\\n", " ").split(":", 1)[-1].split()
    allowed = (args["tmpdir"], "/usr/include", "/usr/lib/gcc", "/usr/local/include", "/usr/lib/llvm")
    for dep in deps:
        real = os.path.realpath(dep)
        if not real.startswith(allowed):
            return (f"{student.parent / name}:1: error: includes a file outside the course's headers and the "
                    "system's, which is refused where the compiler cannot be confined")
    return ""


if __name__ == "__main__":
    sys.exit(main())
