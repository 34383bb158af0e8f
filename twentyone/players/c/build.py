"""Build a student's unmodified ``mycodes.c`` into a box program, and into a Python extension module (cffi) when a
trusted player plays it in process.

``compile_student`` compiles the student's file against the project's headers (``c_src/twentyone.h``,
``c_src/mycodes.h`` and the POSIX stand-ins in ``c_src/compat``) and links it with the project's own objects,
compiled once per toolchain and cached (``objects.py``): the course's ``twentyone.c`` and ``tw_rng.c``, the glue
of ``c_src/bridge`` (dispatch by function set, output capture) and ``c_src/compat/tw_compat.c``.  The product is
the submission's **box program** (``BOX_PROGRAM``, with ``c_src/box`` and the serve loop
``c_src/bridge/tw_serve.c``), which plays each sandboxed match: nothing of the student's runs in it before it is
confined (initialisers moved, ``.init`` code and ifunc resolvers refused) and only the course's 20 functions stay
global (SANDBOX.md).  With ``module=True`` it also links the cffi module that plays in process (``--trusted``);
a sandboxed run never builds one.  The student's C file is compiled to see only the names the course's Windows
compilers show it (``STUDENT_C_FLAGS``: C99 and POSIX, not glibc's ``index`` or ``random``).
``compile_program`` builds another game's submission (the judge's) into a box program the same way.  Builds are
cached under a name that covers the file, the project's files, the flags, the toolchain and the jail's layers,
so an unchanged file is never rebuilt; a product over ``TWENTYONE_MAX_MODULE_MIB`` is refused, and the cache
stays under ``TWENTYONE_CACHE_MIB`` (``cache.py``).  Every symbol of the student's code is hidden
(``-fvisibility=hidden``), so two students' ``bet1`` never meet.

``source.prepare_source`` takes care of real students' habits before compiling: ``#define PERSON`` is
switched off in a temporary copy (with a warning; the student's file is never changed), CRLF endings,
GBK or UTF-8 text and Windows' habits are accepted.  A ``.cpp`` hand-in (Dev-C++ projects are C++ by
default) is compiled with g++, its function sets given C linkage by a generated wrapper.

The tools run on the student's text as untrusted code, each in the jail (``jail.py``): a scratch folder holding
only the student's file and copies of the course's files and objects, which they alone may read besides the
toolchain, and alone write; a path watcher and Landlock, each enough alone, hold that on every Linux host;
limits on memory, CPU time, file size and processes; a time limit for the whole build.  So ``#include
"/etc/shadow"``, ``.incbin`` from ``asm`` made by a macro, ``__has_include`` and ``#embed`` all find nothing, and
the messages shown quote only the student's own file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import struct
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from twentyone.errors import CompileError, PlayerSpecError
from twentyone.players.c import elf, headers, jail, objects
from twentyone.players.c.cache import (cache_dir, check_size, finish, max_module_bytes, output_dir, prune_cache,
                                       touch)
from twentyone.players.c.cache import missing_functions as _missing
from twentyone.players.c.linkmsg import compiler_messages
from twentyone.players.c.source import prepare_source
from twentyone.players.sandbox.limits import MAX_MEMORY_BYTES
from twentyone.strategy import FUNCTION_NAMES

__all__ = ["C_SRC", "BRIDGE", "FLAGS", "STUDENT_C_FLAGS", "GLIBC_C_FLAGS", "CXX_FLAGS", "student_c_flags",
           "compile_student", "compile_program", "confinement",
           "module_name", "prune_cache", "max_module_bytes",
           "missing_functions", "cache_dir", "output_dir", "bridge_cdef", "SOURCE_SUFFIXES"]

C_SRC = headers.C_SRC
BRIDGE = C_SRC / "bridge"
COMPILE_TIMEOUT = 120.0
#: Limits of the compiler's processes (each): memory, CPU seconds, the largest file it may write.
COMPILE_MEMORY = 1 << 30
COMPILE_CPU = 60
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
#: The box program's own code is compiled so (c_src/box, the serve loop and the glue it links).
BOX_C_FLAGS = ("-std=gnu99", "-O2")
BOX_CXX_FLAGS = ("-std=gnu++17", "-O2")
#: The glue compiled with every student's file: dispatch by function set, output capture (c_src/bridge), and
#: the part of the conio.h/windows.h stand-ins that needs POSIX headers (c_src/compat/tw_compat.c).
GLUE = ("bridge/tw_dispatch.c", "bridge/tw_capture.c", "compat/tw_compat.c")
#: The box program's own code (c_src/box, and the course's serve loop), linked with the student's objects.
BOX_SOURCES = ("box/tw_box.c", "box/tw_confine.c", "bridge/tw_serve.c")
#: The course's files a build needs, copied into its scratch folder (headers flat in include/).
COURSE_HEADERS = ("twentyone.h", "mycodes.h", "tw_rng.h", "compat/conio.h", "compat/windows.h",
                  "compat/tw_msvc.h", "bridge/tw_bridge.h", "bridge/tw_capture.h", "box/tw_box.h", "box/tw_confine.h")
#: The course's own C files, compiled like the student's and linked into one object with it.
COURSE_SOURCES = ("twentyone.c", "tw_rng.c")
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


def missing_functions(built: Path, k: int) -> list[str]:
    """The functions of set ``k`` that the built module (or box program) lacks, read from its symbol table."""
    return _missing(built, k, FUNCTION_NAMES)


def confinement() -> str:
    """The layers that confine a build on this host (``landlock 7, watcher on``); PlayerSpecError (one line) when
    it has none, so no untrusted file can be built."""
    try:
        abi, watch = jail.layers()
    except jail.JailError as e:
        raise PlayerSpecError(e.strerror or str(e)) from None
    return f"landlock {abi}, watcher {'on' if watch else 'off'}"


def _toolchain() -> bytes:
    """The toolchain's identity, cffi's version and the jail's layers: a new one of any means a new build."""
    if _TOOLCHAIN is not None:  # a test's stand-in
        return _TOOLCHAIN + b"|" + confinement().encode()
    import cffi

    try:
        tools = objects.toolchain_id()
    except jail.JailError as e:
        raise PlayerSpecError(e.strerror or str(e)) from None
    version: str = cffi.__version__
    return tools + b"|cffi " + version.encode() + b"|" + confinement().encode()


_TOOLCHAIN: bytes | None = None


def _inputs_digest() -> bytes:
    """A hash of everything a build uses besides the student's file: headers, helpers, glue, this build."""
    h = hashlib.sha256()
    files = [*C_SRC.glob("*.h"), *(C_SRC / "compat").glob("*.[ch]"), *BRIDGE.glob("*.[ch]"),
             *(C_SRC / "box").glob("*.[ch]"), C_SRC / "twentyone.c", C_SRC / "tw_rng.c", Path(__file__),
             Path(jail.__file__), Path(objects.__file__)]
    for p in sorted(files):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.digest()


def module_name(source: bytes, lang: str = "c") -> str:
    """The unique module name of a prepared source: a hash of it, its language, the headers, the flags, the
    toolchain and the jail it is built in."""
    h = hashlib.sha256()
    h.update(source)
    h.update(lang.encode())
    h.update(_inputs_digest())
    h.update(" ".join(FLAGS).encode())
    h.update(" ".join([*STUDENT_C_FLAGS, "|", *GLIBC_C_FLAGS]).encode())
    h.update(sys.version.encode())
    h.update(_toolchain())
    return "_tw_student_" + h.hexdigest()[:24]


def _module_file(name: str) -> str:
    return name + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


# -- the project's objects -------------------------------------------------------------------------------------------

def _course_objects() -> Path:
    """The course's C files, compiled as the student's file is (position-independent, FLAGS, tw_capture.h)."""
    flags = ("-fPIC", *FLAGS, "-include", "tw_capture.h")
    return objects.project_objects(cache_dir(), [objects.Unit(C_SRC / s, "cc", flags) for s in COURSE_SOURCES],
                                   [C_SRC / h for h in COURSE_HEADERS])


def _box_objects() -> Path:
    """The box program's own code and the glue it links."""
    return objects.project_objects(cache_dir(), [objects.Unit(C_SRC / s, "cc", BOX_C_FLAGS)
                                                 for s in (*BOX_SOURCES, *GLUE)], [C_SRC / h for h in COURSE_HEADERS])


def _module_objects() -> Path:
    """The glue a cffi module links (position-independent)."""
    return objects.project_objects(cache_dir(), [objects.Unit(C_SRC / s, "cc", ("-fPIC", *FLAGS)) for s in GLUE],
                                   [C_SRC / h for h in COURSE_HEADERS])


_GLUE_NAMES: dict[str, frozenset[str]] = {}


def _glue_names(cached: Path, folder: Path) -> frozenset[str]:
    """The global names the project's glue defines (its objects from the cache folder ``cached``, copied into
    ``folder``): a student's file that defines one too (its own ``printf``, made ``tw_printf`` by the output
    capture) does not link, as it does not with the course's compilers, whose stdio.h defines printf; read once per
    process and set of objects, with nm."""
    found = _GLUE_NAMES.get(cached.name)
    if found is None:
        import subprocess

        objs = [str(folder / (Path(g).stem + ".o")) for g in GLUE]
        out = subprocess.run([jail.toolchain()["nm"], "-g", "--defined-only", *objs], capture_output=True, text=True,
                             errors="replace").stdout
        found = _GLUE_NAMES[cached.name] = frozenset(p[-1] for p in (ln.split() for ln in out.splitlines())
                                                     if len(p) == 3)
    return found


def _fetch(make: Callable[[], Path], into: Path) -> tuple[Path, list[str]]:
    """The project's objects ``make`` returns (their cache folder), copied into the build's folder ``into``; made
    again if the cache was pruned under this build."""
    for attempt in (1, 2):
        folder = make()
        into.mkdir(exist_ok=True)
        try:
            copies = []
            for obj in sorted(folder.glob("*.o")):
                shutil.copyfile(obj, into / obj.name)
                copies.append(str(into / obj.name))
            if copies:
                return folder, copies
        except FileNotFoundError:
            if attempt == 2:
                raise
    raise CompileError(f"the project's objects in {folder} are missing")


# -- builds ----------------------------------------------------------------------------------------------------------

def compile_student(path: Path, warn: Callable[[str], None] | None = None, timeout: float = COMPILE_TIMEOUT, *,
                    module: bool = False) -> Path:
    """Compile ``path`` (C, or C++ by its suffix), or reuse the cached build; return its box program, or with
    ``module`` its cffi module (for a trusted player in process), built beside it."""
    path = path.resolve()
    lang = SOURCE_SUFFIXES.get(path.suffix.lower(), "c")
    source = prepare_source(path, warn)
    name = module_name(source, lang)
    out_dir = cache_dir() / name
    wanted = out_dir / (_module_file(name) if module else BOX_PROGRAM)
    if wanted.is_file() and (out_dir / BOX_PROGRAM).is_file():
        touch(out_dir)
        return wanted
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tw-build-", dir=out_dir.parent) as tmp:
        scratch = Path(tmp)
        _, course = _fetch(_course_objects, scratch / "course")
        box_dir, box = _fetch(_box_objects, scratch / "box-objects")
        glue = _fetch(_module_objects, scratch / "glue")[1] if module else None
        include = scratch / "include"
        include.mkdir()
        for rel in COURSE_HEADERS:
            shutil.copyfile(C_SRC / rel, include / Path(rel).name)
        if lang == "cpp":
            (scratch / "student.cpp").write_bytes(source)
            (scratch / "mycodes.cpp").write_text(_CXX_WRAPPER)
            student, shown_copy = scratch / "mycodes.cpp", scratch / "student.cpp"
        else:
            student = shown_copy = scratch / "mycodes.c"
            student.write_bytes(source)
        py_include = [p for p in {sysconfig.get_paths()["include"], sysconfig.get_paths()["platinclude"]} if p]
        steps = _Steps(scratch, path, shown_copy, timeout, warn, py_include if module else [])
        # The build's folder named as "." in the debug information and __FILE__: the same file builds to the same
        # program wherever it was built (grading finds identical copies by their programs: RULES.md grade_copies).
        forced = ["-include", str(include / "tw_capture.h"), f"-I{include}", f"-ffile-prefix-map={scratch}=."]
        if lang == "cpp":
            steps.compile([steps.tools["cxx"], "-c", "-fPIC", *CXX_FLAGS, *forced, str(student)], [[]], "part0.o")
        else:
            steps.compile([steps.tools["cc"], "-c", "-fPIC", *FLAGS, *forced, str(student)], student_c_flags(source),
                          "part0.o")
        linked = steps.combine(["part0.o", *course])
        steps.box(linked, COURSE_FUNCTIONS, box, cpp=lang == "cpp", clash=_glue_names(box_dir, scratch / "box-objects"))
        check_static_memory(scratch / BOX_PROGRAM, path)
        if glue is not None:
            steps.module(linked, name, glue, include, cpp=lang == "cpp")
        check_size(path, scratch)
        if out_dir.is_dir() and glue is not None:  # a box already cached: the module joins it
            os.replace(scratch / _module_file(name), wanted)
            touch(out_dir)
            return wanted
        final_dir = scratch / "final"
        final_dir.mkdir()
        (scratch / BOX_PROGRAM).replace(final_dir / BOX_PROGRAM)
        if glue is not None:
            (scratch / _module_file(name)).replace(final_dir / _module_file(name))
        finish(final_dir, out_dir)
    return wanted


def compile_program(path: Path, source: bytes, *, lang: str, headers: Sequence[Path], box_sources: Sequence[Path],
                    keep: Sequence[str], warn: Callable[[str], None] | None = None,
                    timeout: float = COMPILE_TIMEOUT) -> Path:
    """Compile a submission that is not a course ``mycodes.c`` (the judge problem's solution) into a box program,
    the same careful way (the jail, nothing run before main, the cache), or reuse the cached build.

    ``source`` is the text to compile (``path`` names it in messages); ``headers`` are copied beside it;
    ``box_sources`` are the trusted code linked with it (C++ when their suffix says so), which define
    ``tw_box_prepare`` and ``tw_box_serve`` (c_src/box/tw_box.h); ``keep`` are the only symbols of the submission
    left global (C++ names mangled).  Returns the box program; raises CompileError (with the compiler's messages
    about the file) or PlayerSpecError.
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
        touch(out_dir)
        return out_dir / BOX_PROGRAM
    box_headers = [*headers, C_SRC / "box" / "tw_box.h", C_SRC / "box" / "tw_confine.h"]
    units = [objects.Unit(src, "cxx" if src.suffix in (".cpp", ".cc") else "cc",
                          BOX_CXX_FLAGS if src.suffix in (".cpp", ".cc") else BOX_C_FLAGS)
             for src in (C_SRC / "box" / "tw_box.c", C_SRC / "box" / "tw_confine.c", *box_sources)]
    cpp = lang == "cpp" or any(u.tool == "cxx" for u in units)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tw-build-", dir=out_dir.parent) as tmp:
        scratch = Path(tmp)
        _, box = _fetch(lambda: objects.project_objects(cache_dir(), units, box_headers), scratch / "box-objects")
        include = scratch / "include"
        include.mkdir()
        for header in box_headers:
            shutil.copyfile(header, include / header.name)
        student = scratch / ("student.cpp" if lang == "cpp" else "student.c")
        student.write_bytes(source)
        steps = _Steps(scratch, path, student, timeout, warn, [])
        if lang == "cpp":
            steps.compile([steps.tools["cxx"], "-c", "-fPIC", *CXX_FLAGS, f"-I{include}", str(student)], [[]],
                          "part0.o")
        else:
            steps.compile([steps.tools["cc"], "-c", "-fPIC", *FLAGS, f"-I{include}", str(student)],
                          student_c_flags(source), "part0.o")
        linked = steps.combine(["part0.o"])
        steps.box(linked, tuple(keep), box, cpp=cpp)
        if not (scratch / BOX_PROGRAM).is_file():
            raise CompileError(f"{path}: the compiler produced no program")
        check_static_memory(scratch / BOX_PROGRAM, path)
        check_size(path, scratch)
        final_dir = scratch / "final"
        final_dir.mkdir()
        (scratch / BOX_PROGRAM).replace(final_dir / BOX_PROGRAM)
        finish(final_dir, out_dir)
    return out_dir / BOX_PROGRAM


def static_memory(program: Path) -> int:
    """The bytes ``program`` has mapped before main: its loadable segments' sizes in memory (code, data, .bss)
    and one thread's copy of its thread-local block (PT_TLS), read from its program headers; 0 for a file that is
    no ELF program."""
    data = program.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return 0
    wide, end = data[4] == 2, "<" if data[5] == 1 else ">"
    head = struct.Struct(end + ("16xHHIQQQIHHH" if wide else "16xHHIIIIIHHH"))
    if len(data) < head.size:
        return 0
    _, _, _, _, phoff, _, _, _, phentsize, phnum = head.unpack_from(data)
    entry = struct.Struct(end + ("I4xQQQQQ" if wide else "IIIIIII"))  # p_type, ..., p_memsz
    total = 0
    for i in range(phnum):
        at = phoff + i * phentsize
        if phentsize < entry.size or at + entry.size > len(data):
            break
        fields = entry.unpack_from(data, at)
        if fields[0] in (1, 7):  # PT_LOAD, PT_TLS
            total += fields[5]  # p_memsz
    return total


def check_static_memory(program: Path, shown: Path, limit: int = MAX_MEMORY_BYTES) -> None:
    """Refuse a linked box program whose static memory (``static_memory``) is over ``limit``, the largest memory
    limit any box runs under: execve maps it before the box lowers RLIMIT_AS, and a limit lowered below what is
    mapped takes nothing away (the box refuses to go on then too: tw_confine.c; this says it once, at the build)."""
    size = static_memory(program)
    if size > limit:
        raise CompileError(f"{shown}: its static data ({(size + (1 << 20) - 1) >> 20} MiB) is over the memory limit "
                           f"of {limit >> 20} MiB")


def _run_untrusted(j: jail.Jail, argv: list[str], deadline: float) -> jail.Ran:
    """Run one tool of a build on a student's text, in its jail, until ``deadline``."""
    return jail.run(j, argv, deadline)


#: Sections whose code would run before the box program's main(): refused (a C or C++ compiler never makes
#: them; only a hand-written ``.section`` does).
_BEFORE_MAIN = (".init", ".fini")
#: Sections that name another file: debug information that addr2line would follow when a crash is located, the
#: program's loader.  Refused (a compiler never makes them either).
_OTHER_FILE = (".gnu_debuglink", ".gnu_debugaltlink", ".interp")
#: The student's initialisers, moved where the box program runs them once it is confined (c_src/box/tw_box.c);
#: finalisers are dropped (the box ends with _exit).
_MOVED = ((".init_array", "tw_init_array"), (".ctors", "tw_ctors"), (".preinit_array", "tw_preinit_array"),
          (".fini_array", "tw_fini_array"), (".dtors", "tw_fini_array"))
#: The module's statics, renamed so that ``tw_segments`` finds exactly them (module.py snapshots them).
_DATA = ((".data", "tw_data"), (".data.rel.local", "tw_data_rel"), (".data.rel", "tw_data_rel"), (".bss", "tw_bss"))


#: A symbol the object defines with global or weak binding, in ``readelf -s``'s listing: its name.
_DEFINED = re.compile(r"^\s*\d+:\s+\S+\s+\S+\s+\S+\s+(?:GLOBAL|WEAK)\s+\S+\s+(?!UND)\S+\s+(\S+)$", re.M)


class _Steps:
    """The steps of one build, each a tool run in the build's jail, in its scratch folder; the first that fails
    raises CompileError with the messages about the student's file."""

    def __init__(self, scratch: Path, shown: Path, copy: Path, timeout: float, warn: Callable[[str], None] | None,
                 extra_read: list[str]) -> None:
        import resource

        self.scratch = scratch
        self.shown = shown
        self.copy = copy
        self.timeout = timeout
        self.warn = warn
        self.deadline = time.monotonic() + timeout
        size = max_module_bytes() + (16 << 20)  # the tools may write a little more than the cap, never much more
        limits = [(resource.RLIMIT_AS, COMPILE_MEMORY, COMPILE_MEMORY), (resource.RLIMIT_CORE, 0, 0),
                  (resource.RLIMIT_CPU, COMPILE_CPU, COMPILE_CPU + 1), (resource.RLIMIT_FSIZE, size, size)]
        try:
            self.jail = jail.jail(scratch, extra_read, limits)
        except jail.JailError as e:
            raise PlayerSpecError(e.strerror or str(e)) from None
        self.tools = self.jail.tools
        #: What the tools were refused (files outside the scratch folder and the toolchain), as the text named it.
        self.refused: list[str] = []

    def path(self, name: str) -> str:
        return str(self.scratch / name)

    def run(self, argv: list[str]) -> jail.Ran:
        try:
            ran = _run_untrusted(self.jail, argv, self.deadline)
        except jail.JailError as e:
            raise PlayerSpecError(e.strerror or str(e)) from None
        if ran.returncode is None:
            raise CompileError(f"{self.shown}: compiling took longer than {self.timeout:g} s")
        self.refused += [p for p in ran.refused if p not in self.refused]
        return ran

    def fail(self, ran: jail.Ran, extra: str = "") -> CompileError:
        stopped = b"File size limit exceeded" in ran.stderr or ran.returncode == -25  # SIGXFSZ
        check_size(self.shown, self.scratch, stopped)
        text = compiler_messages(ran.stderr + b"\n" + ran.stdout, self.scratch, self.copy, self.shown,
                                 self.refused)
        return CompileError(f"{self.shown} does not compile", f"{extra}\n{text}".strip() if extra else text)

    def compile(self, head: list[str], choices: list[list[str]], out: str) -> None:
        """Compile the student's file with the first of ``choices`` (extra flags) that compiles it: its messages are
        kept (as warnings); when none does, the first one's messages are the error's."""
        first: jail.Ran | None = None
        for extra in choices:
            ran = self.run([head[0], *head[1:-1], *extra, head[-1], "-o", self.path(out)])
            first = first or ran
            if ran.returncode == 0:
                self._said_refused()
                return
        assert first is not None
        raise self.fail(first)

    def _said_refused(self) -> None:
        if self.refused and self.warn is not None:
            self.warn(f"{self.shown}: the build reads only the submission and the toolchain: "
                      f"{', '.join(self.refused[:3])} was refused, and compiled as if absent")

    def combine(self, objs: list[str]) -> str:
        """The student's object and the course's, as one relocatable object."""
        out = self.path("student.o")
        ran = self.run([self.tools["ld"], "-r", "-o", out, *(self.path(o) if "/" not in o else o for o in objs)])
        if ran.returncode:
            raise self.fail(ran)
        return out

    def sections(self, obj: str) -> list[elf.Section]:
        """The sections of the object ``obj``, from its bytes; a name that is not a compiler's is refused."""
        try:
            found = elf.sections(Path(obj))
        except (OSError, elf.ElfError) as e:
            raise CompileError(f"{self.shown} does not compile", f"{self.shown}: its object cannot be read: {e}") from None
        for section in found:
            if not elf.PLAIN_NAME.match(section.name):
                shown = section.name.decode("ascii", "backslashreplace")[:60]
                raise CompileError(f"{self.shown} does not compile", f"{self.shown}:1: error: a section named "
                                   f"{shown!r} (a name no compiler gives) could be read two ways by the tools; refused")
        return found

    def box(self, student: str, keep: Sequence[str], box_objects: list[str], cpp: bool,
            clash: frozenset[str] = frozenset()) -> None:
        """Link the box program (``BOX_PROGRAM``) from a copy of ``student`` in which nothing runs before main
        (initialisers moved, ``.init``/``.fini`` code and ifunc resolvers refused) and only ``keep`` stays
        global; a global name of ``clash`` that ``student`` defines is a link error, as if linked with them."""
        ran = self.run([self.tools["readelf"], "-SsW", student])
        if ran.returncode:
            raise self.fail(ran)
        listing = ran.stdout.decode("utf-8", "replace")
        # The names from the object's own bytes: a listing splits a name with a space, and objcopy reads the first
        # '=' of "--rename-section OLD=NEW" as the end of OLD, so a name read off the listing, or one with an '=',
        # renamed nothing while the linker still matched it (tests/test_audit4.py).
        sections = self.sections(student)
        renames = []
        for section in sections:
            name = section.name.decode("ascii")
            if name.startswith((".gnu.lto", ".gnu.debuglto")):
                raise CompileError(f"{self.shown} does not compile", f"{self.shown}:1: error: a '{name}' section "
                                   "carries a program of compiler bytecode that the build does not check; refused")
            if section.type in elf.INIT_TYPES and not any(name == old or name.startswith(old + ".")
                                                          for old, _ in _MOVED):
                raise CompileError(f"{self.shown} does not compile", f"{self.shown}:1: error: a '{name}' section "
                                   "of initialisers runs code before the sandbox holds; refused")
            if name in _BEFORE_MAIN:
                raise CompileError(f"{self.shown} does not compile", f"{self.shown}:1: error: a '{name}' section "
                                   "runs code before the sandbox holds; refused")
            if name in _OTHER_FILE:
                raise CompileError(f"{self.shown} does not compile", f"{self.shown}:1: error: a '{name}' section "
                                   "names another file for the tools that read the program; refused")
            for old, new in _MOVED:
                if name == old or name.startswith(old + "."):
                    renames += ["--rename-section", f"{name}={new}"]
        if re.search(r"\bIFUNC\b", listing):
            raise CompileError(f"{self.shown} does not compile",
                               f"{self.shown}:1: error: an ifunc resolver runs before the sandbox holds; refused")
        defined = {m.group(1) for m in _DEFINED.finditer(listing)}
        both = sorted(defined & clash)
        if both:
            raise CompileError(f"{self.shown} does not compile", "\n".join(
                f"{self.shown}: link error: multiple definition of `{n.removeprefix('tw_')}' (the course's program or "
                "the project's output capture already defines it)" for n in both[:10]))
        keep_file = self.scratch / "keep.txt"
        keep_file.write_text("\n".join(keep) + "\n", encoding="ascii")
        boxed = self.path("boxed.o")
        ran = self.run([self.tools["objcopy"], *renames, f"--keep-global-symbols={keep_file}", student, boxed])
        if ran.returncode:
            raise self.fail(ran)
        for section in self.sections(boxed):  # what the linker will see: nothing of the student's runs before main
            name = section.name.decode("ascii")
            if name in _BEFORE_MAIN or any(name == old or name.startswith(old + ".") for old, _ in _MOVED):
                raise CompileError(f"{self.shown} does not compile", f"{self.shown}:1: error: a '{name}' section "
                                   "runs code before the sandbox holds; refused")
        # No linker plugin: it would take an object carrying compiler bytecode and link that instead of the code
        # checked here.
        ran = self.run([self.tools["cxx" if cpp else "cc"], "-fno-lto", "-fno-use-linker-plugin", "-o",
                        self.path(BOX_PROGRAM), boxed, *box_objects, "-lm"])
        if ran.returncode:
            raise self.fail(ran)

    def module(self, student: str, name: str, glue: list[str], include: Path, cpp: bool) -> None:
        """Link the cffi module ``name`` from ``student`` (its statics renamed ``tw_data*``/``tw_bss``, so that
        ``tw_segments`` finds exactly them), the glue, and cffi's wrapper."""
        from cffi import FFI
        from cffi.recompiler import make_c_source

        renamed = self.path("module.o")
        renames = [arg for old, new in _DATA for arg in ("--rename-section", f"{old}={new}")]
        ran = self.run([self.tools["objcopy"], *renames, student, renamed])
        if ran.returncode:
            raise self.fail(ran)
        ffi = FFI()
        ffi.cdef(bridge_cdef())
        wrapper = self.path(f"{name}.c")
        make_c_source(ffi, name, '#include "tw_bridge.h"\n', wrapper, verbose=False)
        incs = [f"-I{p}" for p in dict.fromkeys([str(include), *self.jail.extra_read])]
        ran = self.run([self.tools["cc"], "-c", "-fPIC", *FLAGS, *incs, wrapper, "-o", self.path("wrapper.o")])
        if ran.returncode:
            raise self.fail(ran, f"{self.shown}: the module could not be compiled")
        ran = self.run([self.tools["cc"], "-shared", "-o", self.path(_module_file(name)), self.path("wrapper.o"),
                        *glue, renamed, *(["-lstdc++"] if cpp else []), "-lm"])
        if ran.returncode:
            raise self.fail(ran, f"{self.shown}: the module could not be linked")
