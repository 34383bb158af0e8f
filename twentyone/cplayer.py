"""The C bridge: load a student's unmodified ``mycodes.c`` through cffi and seat it like any player.

``compile_student`` builds the file in cffi API mode against the project's headers
(``c_src/twentyone.h``, ``c_src/mycodes.h`` and the POSIX stand-ins in ``c_src/compat``) into a
module named by a hash of the source, the headers and the flags.  Builds run in a subprocess with a
time limit and are cached, so an unchanged file is never rebuilt.  Every symbol of the student's
code is hidden (``-fvisibility=hidden``) and the module is loaded without ``RTLD_GLOBAL``, so two
students' ``bet1`` never meet.

Loading takes care of real students' habits: ``#define PERSON`` is switched off in a temporary copy
(with a warning; the student's file is never changed), CRLF endings and GBK or UTF-8 text are
accepted, the file's static variables are put back to their initial values at the start of every
match, and whatever it prints goes to a size-capped per-match log file, never to the terminal.

This is the only module that touches a compiled student library.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from twentyone.errors import CompileError, PlayerSpecError
from twentyone.records import Banker, Player
from twentyone.strategy import FunctionSetStrategy, Strategy

__all__ = ["C_SRC", "prepare_source", "compile_student", "load_student", "CFunctionSet", "c_strategy",
           "cache_dir", "output_dir"]

C_SRC = Path(__file__).resolve().parent.parent / "c_src"
COMPILE_TIMEOUT = 120.0
STDOUT_CAP = 1 << 20
FLAGS = ("-O1", "-std=gnu99", "-fvisibility=hidden", "-w")
NAMES = ("bet", "first_action", "continue_action", "show")

#: The Python-facing interface of every student module.
CDEF = """
typedef struct { char name[20]; int account; char mycards[20]; int count; char state;
                 int mybets; int points; int rounds; } Player;
typedef struct { char mycards[20]; int count; char state; int points; } Banker;
int tw_missing(int k);
int tw_bet(int k, int N);
char tw_first_action(int k, char *tmpcards, int len);
char tw_continue_action(int k, Player *players);
void tw_show(int k, Banker *banker, Player *players, int pNum, int N, int pos);
int tw_segments(uintptr_t *addr, size_t *len, int max);
int tw_capture_open(const char *path, long cap);
void tw_capture_close(void);
long tw_capture_written(void);
void tw_serve(int in, int out, int k);
"""

_PROTOS = ("int bet{k}(int N)", "char first_action{k}(char *tmpcards, int len)",
           "char continue_action{k}(Player (*players)[])",
           "void show{k}(Banker *pbanker, Player (*players)[], int pNum, int N, int pos)")
#: Weak and hidden: a missing set reads as a null pointer, and nothing is looked up outside the module.
_WEAK = "\n".join(
    f"extern {p.format(k=k)} __attribute__((weak, visibility(\"hidden\")));" for k in range(1, 6) for p in _PROTOS
)

_DISPATCH = "\n".join(
    f"""
    case {k}: switch (which) {{
        case 0: return bet{k} != 0;
        case 1: return first_action{k} != 0;
        case 2: return continue_action{k} != 0;
        default: return show{k} != 0;
    }}"""
    for k in range(1, 6)
)


def _calls(fmt: str) -> str:
    return "\n".join(f"    case {k}: {fmt.format(k=k)}" for k in range(1, 6))


#: The glue compiled with the student's file: dispatch by set, static reset, output capture.
PREAMBLE = f"""
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include "mycodes.h"
{_WEAK}

static int tw_has(int k, int which) {{
    switch (k) {{ {_DISPATCH}
    }}
    return 0;
}}

int tw_missing(int k) {{
    int m = 0;
    for (int w = 0; w < 4; w++) if (!tw_has(k, w)) m |= 1 << w;
    return m;
}}

int tw_bet(int k, int N) {{
    switch (k) {{
{_calls("return bet{k}(N);")}
    }}
    return 0;
}}

char tw_first_action(int k, char *tmpcards, int len) {{
    switch (k) {{
{_calls("return first_action{k}(tmpcards, len);")}
    }}
    return 0;
}}

char tw_continue_action(int k, Player *players) {{
    switch (k) {{
{_calls("return continue_action{k}((Player(*)[])players);")}
    }}
    return 0;
}}

void tw_show(int k, Banker *banker, Player *players, int pNum, int N, int pos) {{
    switch (k) {{
{_calls("show{k}(banker, (Player(*)[])players, pNum, N, pos); return;")}
    }}
}}

/* -- static reset: the student's objects were built first and their .data and .bss renamed to
 * tw_data* and tw_bss, so the linker's __start_/__stop_ symbols bound exactly their statics. -- */
extern char __start_tw_data[] __attribute__((weak)), __stop_tw_data[] __attribute__((weak));
extern char __start_tw_data_rel[] __attribute__((weak)), __stop_tw_data_rel[] __attribute__((weak));
extern char __start_tw_bss[] __attribute__((weak)), __stop_tw_bss[] __attribute__((weak));

int tw_segments(uintptr_t *addr, size_t *len, int max) {{
    char *lo[3] = {{ __start_tw_data, __start_tw_data_rel, __start_tw_bss }};
    char *hi[3] = {{ __stop_tw_data, __stop_tw_data_rel, __stop_tw_bss }};
    int n = 0;
    for (int i = 0; i < 3 && n < max; i++) {{
        if (!lo[i] || hi[i] <= lo[i]) continue;
        addr[n] = (uintptr_t)lo[i]; len[n] = (size_t)(hi[i] - lo[i]); n++;
    }}
    return n;
}}
"""

# The snapshot is kept in Python-owned memory, outside the ranges it restores.

_CAPTURE = r"""
/* the capture functions themselves call the real stdio: undo tw_capture.h's renames here */
#undef printf
#undef vprintf
#undef puts
#undef putchar
#undef fprintf
#undef fputs
#undef fputc
#undef putc
#undef fwrite
#undef scanf
#undef getchar
#undef fflush
#undef system
static FILE *tw_out = NULL;
static long tw_cap = 0, tw_written = 0;

int tw_capture_open(const char *path, long cap) {
    if (tw_out) fclose(tw_out);
    tw_out = fopen(path, "w");
    if (tw_out) setvbuf(tw_out, NULL, _IOLBF, 0);  /* the file is complete at every line */
    tw_cap = cap; tw_written = 0;
    return tw_out ? 0 : -1;
}
void tw_capture_close(void) { if (tw_out) fclose(tw_out); tw_out = NULL; }
long tw_capture_written(void) { return tw_written; }

static int tw_emit(const char *s, size_t n) {
    tw_written += (long)n;
    if (!tw_out) return (int)n;
    long room = tw_cap - (tw_written - (long)n);
    if (room <= 0) return (int)n;
    if ((long)n > room) n = (size_t)room;
    fwrite(s, 1, n, tw_out);
    return (int)n;
}
int tw_vprintf(const char *fmt, va_list ap) {
    char buf[4096];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0) return n;
    tw_emit(buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
    return n;
}
int tw_printf(const char *fmt, ...) { va_list ap; va_start(ap, fmt); int n = tw_vprintf(fmt, ap); va_end(ap); return n; }
int tw_puts(const char *s) { tw_emit(s, strlen(s)); tw_emit("\n", 1); return 1; }
int tw_putchar(int c) { char ch = (char)c; tw_emit(&ch, 1); return c; }
int tw_fprintf(FILE *f, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    int n = (f == stdout || f == stderr) ? tw_vprintf(fmt, ap) : vfprintf(f, fmt, ap);
    va_end(ap); return n;
}
int tw_fputs(const char *s, FILE *f) { if (f == stdout || f == stderr) return tw_puts(s) - 1; return fputs(s, f); }
int tw_fputc(int c, FILE *f) { if (f == stdout || f == stderr) return tw_putchar(c); return fputc(c, f); }
size_t tw_fwrite(const void *p, size_t size, size_t n, FILE *f) {
    if (f == stdout || f == stderr) { tw_emit((const char *)p, size * n); return n; }
    return fwrite(p, size, n, f);
}
int tw_scanf(const char *fmt, ...) { (void)fmt; return EOF; }
int tw_getchar(void) { return EOF; }
int tw_fflush(FILE *f) { if (f == stdout || f == stderr) return tw_out ? fflush(tw_out) : 0; return fflush(f); }
int tw_system(const char *cmd) { (void)cmd; return 0; }
"""

#: The sandboxed child's request loop (c_src/tw_serve.c), compiled into every student module.
_SERVE = """
#include "tw_serve.c"
"""

_PERSON = re.compile(rb"^([ \t]*#[ \t]*define[ \t]+)PERSON\b", re.MULTILINE)


def cache_dir() -> Path:
    """Where compiled student modules are kept (``$TWENTYONE_CACHE`` or ``~/.cache/twentyone``)."""
    base = os.environ.get("TWENTYONE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "twentyone")
    return Path(base).resolve() / "c"


def output_dir() -> Path:
    """Where ``twentyone match`` and ``play`` put what C players print, one file per match:
    ``output`` next to the build cache (``$TWENTYONE_CACHE`` or ``~/.cache/twentyone``)."""
    return cache_dir().parent / "output"


def prepare_source(path: Path, warn: Callable[[str], None] | None = None) -> bytes:
    """Read a student's file and return the text to compile: UTF-8, LF endings, PERSON off.

    Raises PlayerSpecError with one line if the file cannot be read or is not C.
    """
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise PlayerSpecError(f"cannot read C file {str(path)!r}: it is a directory") from None
    except OSError as e:
        raise PlayerSpecError(f"cannot read C file {str(path)!r}: {e.strerror or e}") from None
    if b"\0" in raw or not raw.strip():
        what = "empty" if not raw.strip() else "binary data"
        raise PlayerSpecError(f"{path} is not a C source file ({what})")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = raw.decode("gbk")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
    data = text.replace("\r\n", "\n").replace("\r", "\n").encode("utf-8")
    if not _looks_like_c(text):
        raise PlayerSpecError(f"{path} is not C source (it defines no C function; "
                              "is it another language's file named .c?)")
    if not re.search(rb"\b(bet|first_action|continue_action|show)[1-5]\s*\(", data):
        raise PlayerSpecError(f"{path} is not a course mycodes.c file (no bet1..5, first_action1..5, "
                              "continue_action1..5 or show1..5 in it)")
    if _PERSON.search(data):
        # The macro is renamed, not commented out: the rest of the line (a comment, even one that
        # goes on to the next lines) stays as it was, and PERSON is simply not defined.
        data = _PERSON.sub(rb"\1TWENTYONE_PERSON_SWITCHED_OFF", data)
        if warn is not None:
            warn(f"{path}: #define PERSON is on; playing automatically from a copy (the file is not changed)")
    return data


_C_DEFINITION = re.compile(r"\b(?:int|char|void)\s*\*?\s*\w+\s*\([^()]*\)\s*\{")


def _looks_like_c(text: str) -> bool:
    """True when the text defines at least one C function (``int``, ``char`` or ``void`` name(...) {)."""
    return _C_DEFINITION.search(text) is not None


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


def _headers_digest() -> bytes:
    h = hashlib.sha256()
    for p in sorted(C_SRC.rglob("*.[ch]")):
        if p.name in ("main.c", "mycodes.c"):
            continue
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.digest()


def module_name(source: bytes) -> str:
    """The unique module name of a prepared source: a hash of it, the headers and the flags."""
    h = hashlib.sha256()
    h.update(source)
    h.update(_headers_digest())
    h.update(" ".join(FLAGS).encode())
    h.update(PREAMBLE.encode() + _CAPTURE.encode() + _SERVE.encode() + CDEF.encode())
    h.update(sys.version.encode())
    h.update(_toolchain())
    return "_tw_student_" + h.hexdigest()[:24]


_BUILD_SCRIPT = """
import json, os, subprocess, sys
from cffi import FFI
args = json.loads(sys.argv[1])
incs = [f"-I{d}" for d in args["include_dirs"]]
objs = []
for i, src in enumerate(args["sources"]):
    obj = os.path.join(args["tmpdir"], f"part{i}.o")
    r = subprocess.run([args["cc"], "-c", "-fPIC", *args["flags"], *incs, src, "-o", obj])
    if r.returncode:
        sys.exit(1)
    objs.append(obj)
student = os.path.join(args["tmpdir"], "student.o")
if subprocess.run(["ld", "-r", "-o", student, *objs]).returncode:
    sys.exit(1)
renames = []
for old, new in ((".data", "tw_data"), (".data.rel.local", "tw_data_rel"), (".data.rel", "tw_data_rel"),
                 (".bss", "tw_bss")):
    renames += ["--rename-section", f"{old}={new}"]
if subprocess.run(["objcopy", *renames, student]).returncode:
    sys.exit(1)
ffi = FFI()
ffi.cdef(args["cdef"])
ffi.set_source(args["name"], args["preamble"], include_dirs=args["include_dirs"],
               extra_compile_args=args["flags"], extra_objects=[student])
ffi.compile(tmpdir=args["tmpdir"], verbose=False)
"""


def compile_student(path: Path, warn: Callable[[str], None] | None = None,
                    timeout: float = COMPILE_TIMEOUT) -> Path:
    """Compile ``path`` (or reuse the cached build) and return the built module's file."""
    path = path.resolve()
    source = prepare_source(path, warn)
    name = module_name(source)
    out_dir = cache_dir() / name
    for built in out_dir.glob(f"{name}*.so"):
        return built
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tw-build-", dir=out_dir.parent) as tmp:
        tmpdir = Path(tmp)
        copy = tmpdir / "mycodes.c"
        copy.write_bytes(source)
        import json

        args = {
            "cdef": CDEF, "name": name, "preamble": PREAMBLE + _CAPTURE + _SERVE,
            "sources": [str(copy), str(C_SRC / "twentyone.c"), str(C_SRC / "tw_rng.c")],
            "cc": os.environ.get("CC", "gcc"),
            "include_dirs": [str(C_SRC), str(C_SRC / "compat")],
            "flags": [*FLAGS, "-include", str(C_SRC / "tw_capture.h")],
            "tmpdir": str(tmpdir),
        }
        proc = _run_group([sys.executable, "-c", _BUILD_SCRIPT, json.dumps(args)], tmpdir, timeout)
        if proc is None:
            raise CompileError(f"{path}: compiling took longer than {timeout:g} s")
        if proc.returncode != 0:
            raise CompileError(f"{path} does not compile", _compiler_messages(proc, copy, path))
        product = next(tmpdir.glob(f"{name}*.so"), None)
        if product is None:
            raise CompileError(f"{path}: the compiler produced no module")
        final_dir = tmpdir / "final"
        final_dir.mkdir()
        product.replace(final_dir / product.name)
        try:
            final_dir.rename(out_dir)
        except OSError:
            if not out_dir.exists():
                raise
    return next(out_dir.glob(f"{name}*.so"))


def _run_group(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[bytes] | None:
    """Run ``cmd`` in a process group of its own; None (and the whole group killed) after ``timeout``."""
    import signal

    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
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


def _compiler_messages(proc: subprocess.CompletedProcess[bytes], copy: Path, original: Path) -> str:
    text = (proc.stderr + b"\n" + proc.stdout).decode("utf-8", errors="replace")
    text = text.replace(str(copy), str(original))
    keep = [ln for ln in text.splitlines()
            if str(original) in ln and ("error" in ln or "warning" in ln or "note" in ln)]
    if not keep:
        keep = [ln for ln in text.splitlines() if "error" in ln.lower()][:20]
    return "\n".join(keep[:40]) or text[-2000:]


_loaded: dict[Path, Any] = {}


def load_student(built: Path) -> Any:
    """Load a built module (without RTLD_GLOBAL) once per process and return its ``lib``/``ffi``."""
    if built in _loaded:
        return _loaded[built]
    name = built.name.split(".")[0]
    loader = importlib.machinery.ExtensionFileLoader(name, str(built))
    spec = importlib.util.spec_from_file_location(name, str(built), loader=loader)
    if spec is None:
        raise PlayerSpecError(f"cannot load compiled module {built}")
    flags = sys.getdlopenflags()
    sys.setdlopenflags(os.RTLD_NOW | os.RTLD_LOCAL)
    try:
        module: ModuleType = importlib.util.module_from_spec(spec)
    finally:
        sys.setdlopenflags(flags)
    state = _ModuleState(module)
    _loaded[built] = state
    return state


class _ModuleState:
    """A loaded student module and the snapshot of its static variables, taken right after loading."""

    def __init__(self, module: ModuleType) -> None:
        self.ffi: Any = getattr(module, "ffi")
        self.lib: Any = getattr(module, "lib")
        ffi = self.ffi
        addr = ffi.new("uintptr_t[]", 8)
        size = ffi.new("size_t[]", 8)
        n = self.lib.tw_segments(addr, size, 8)
        if n <= 0:
            raise PlayerSpecError("cannot find the static data of the compiled module")
        self._segments = [(int(addr[i]), int(size[i])) for i in range(n)]
        #: The match token (``Strategy.start_match``) whose statics and output are set up.
        self.match: object = None
        #: Matches this file has played in this process (numbers its output files).
        self.matches = 0
        self._saved = [ffi.buffer(ffi.cast("char *", a), ln)[:] for a, ln in self._segments]

    def reset_statics(self) -> None:
        """Put every static variable of the module back to its value at load time."""
        self.lib.tw_capture_close()
        for (addr, n), saved in zip(self._segments, self._saved):
            self.ffi.memmove(self.ffi.cast("char *", addr), saved, n)


class CFunctionSet:
    """Course function set K of a compiled student file, with the C arguments."""

    def __init__(self, state: _ModuleState, k: int, source: Path) -> None:
        self.state = state
        self.k = k
        self.source = source
        self._ffi = state.ffi
        self._lib = state.lib
        self.capture_dir: Path | None = None
        self._match = 0

    def reset(self, match: object) -> None:
        """Fresh statics and a fresh output log for the new ``match`` (a token).

        Function sets of one file at one table share the file's statics and its output, as the
        five players of one mycodes.c do in the course program: the first set reset for a match
        restores them and opens the match's output file; the others join it.
        """
        st = self.state
        if match is not None and st.match is match:
            return
        st.match = match
        st.reset_statics()
        if self.capture_dir is None:
            self._lib.tw_capture_open(os.devnull.encode(), STDOUT_CAP)
            return
        st.matches += 1
        from twentyone.submissions import safe_name

        log = self.capture_dir / f"{safe_name(self.source)}-set{self.k}-match{st.matches}.out"
        try:
            self.capture_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise PlayerSpecError(f"cannot make the output folder {str(self.capture_dir)!r}: "
                                  f"{e.strerror or e}") from None
        if self._lib.tw_capture_open(str(log).encode(), STDOUT_CAP) != 0:
            raise PlayerSpecError(f"cannot write the output file {str(log)!r}")

    def bet(self, N: int) -> int:
        return int(self._lib.tw_bet(self.k, N))

    def first_action(self, tmpcards: str, length: int) -> str:
        buf = self._ffi.new("char[]", tmpcards.encode("latin-1") + b"\0")
        return str(self._lib.tw_first_action(self.k, buf, length).decode("latin-1"))

    def _players(self, players: list[Player]) -> Any:
        arr = self._ffi.new("Player[]", len(players))
        for i, p in enumerate(players):
            c = arr[i]
            if p.name:
                c.name = p.name.encode("utf-8")[:19]
            c.account = p.account
            if p.mycards:
                c.mycards = p.mycards.encode("latin-1")[:19]
            c.count = p.count
            if p.state:
                c.state = p.state.encode("latin-1")[:1]
            c.mybets = p.mybets
            c.points = p.points
            c.rounds = p.rounds
        return arr

    def continue_action(self, players: list[Player]) -> str:
        return str(self._lib.tw_continue_action(self.k, self._players(players)).decode("latin-1"))

    def show(self, banker: Banker, players: list[Player], pNum: int, N: int, pos: int) -> None:
        b = self._ffi.new("Banker *")
        if banker.mycards:
            b.mycards = banker.mycards.encode("latin-1")[:19]
        b.count = banker.count
        b.state = banker.state.encode("latin-1")[:1] if banker.state else b"\0"
        b.points = banker.points
        self._lib.tw_show(self.k, b, self._players(players), pNum, N, pos)

    def close(self) -> None:
        self._lib.tw_capture_close()


def c_strategy(path: Path, k: int, warn: Callable[[str], None] | None = None, sandbox: Any = None,
               capture_dir: Path | None = None) -> Strategy:
    """Compile (or reuse) ``path`` and return its function set ``k`` as a seated strategy.

    With ``sandbox`` (a ``twentyone.sandbox.Limits``) the module is loaded only in a worker process.
    """
    built = compile_student(path, warn)
    missing = missing_functions(built, k)
    if missing:
        raise PlayerSpecError(f"{path} has no function set {k} (missing: {', '.join(missing)})")
    if sandbox is not None:
        from twentyone.sandbox import SandboxFunctionSet

        from twentyone.submissions import safe_name

        return FunctionSetStrategy(SandboxFunctionSet("c", built, k, sandbox, capture_dir=capture_dir, warn=warn,
                                                      label=safe_name(path)), k, name=f"{path.name}:{k}")
    fs = CFunctionSet(load_student(built), k, path)
    fs.capture_dir = capture_dir
    return FunctionSetStrategy(fs, k, name=f"{path.name}:{k}")


def missing_functions(built: Path, k: int) -> list[str]:
    """The functions of set ``k`` that the built module lacks, read from its symbol table (no loading)."""
    proc = subprocess.run(["nm", str(built)], capture_output=True, text=True, errors="replace")
    defined = {parts[-1] for parts in (ln.split() for ln in proc.stdout.splitlines())
               if len(parts) == 3 and parts[1] in "Tt"}
    return [f"{n}{k}" for n in NAMES if f"{n}{k}" not in defined]
