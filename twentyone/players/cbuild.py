"""Build a student's unmodified ``mycodes.c`` into a Python extension module, through cffi.

``compile_student`` builds the file in cffi API mode against the project's headers
(``c_src/twentyone.h``, ``c_src/mycodes.h`` and the POSIX stand-ins in ``c_src/compat``), with the
project's glue from ``c_src/bridge`` (dispatch by function set, output capture, the sandbox's serve
loop), into a module named by a hash of the source, the headers, the glue and the flags.  Builds run
in a subprocess (``python -m twentyone.players.cbuild``, this module's ``main``) with a time limit,
and are cached, so an unchanged file is never rebuilt.  Every symbol of the student's code is hidden
(``-fvisibility=hidden``), so two students' ``bet1`` never meet.

``prepare_source`` takes care of real students' habits before compiling: ``#define PERSON`` is
switched off in a temporary copy (with a warning; the student's file is never changed), and CRLF
endings and GBK or UTF-8 text are accepted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from twentyone.errors import CompileError, PlayerSpecError
from twentyone.strategy import FUNCTION_NAMES

__all__ = ["C_SRC", "BRIDGE", "FLAGS", "prepare_source", "compile_student", "module_name", "missing_functions",
           "cache_dir", "output_dir", "bridge_cdef", "main"]

C_SRC = Path(__file__).resolve().parent.parent.parent / "c_src"
BRIDGE = C_SRC / "bridge"
COMPILE_TIMEOUT = 120.0
FLAGS = ("-O1", "-std=gnu99", "-fvisibility=hidden", "-w")
#: The glue compiled with every student's file (c_src/bridge): dispatch, output capture, serve loop.
GLUE = ("tw_dispatch.c", "tw_capture.c", "tw_serve.c")


def bridge_cdef() -> str:
    """cffi's cdef of a student module: the course's Player and Banker, then tw_bridge.h's functions."""
    course = (C_SRC / "twentyone.h").read_text(encoding="utf-8")
    types = re.findall(r"typedef struct \{[^}]*\} (?:Player|Banker);", course)
    bridge = (BRIDGE / "tw_bridge.h").read_text(encoding="utf-8")
    body = re.sub(r"/\*.*?\*/", "", bridge, flags=re.S)
    protos = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return "\n".join([*types, *protos]) + "\n"


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


def _inputs_digest() -> bytes:
    """A hash of everything a build uses besides the student's file: headers, helpers, glue, this build."""
    h = hashlib.sha256()
    files = [*C_SRC.glob("*.h"), *(C_SRC / "compat").glob("*.h"), *BRIDGE.glob("*.[ch]"),
             C_SRC / "twentyone.c", C_SRC / "tw_rng.c", Path(__file__)]
    for p in sorted(files):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.digest()


def module_name(source: bytes) -> str:
    """The unique module name of a prepared source: a hash of it, the headers and the flags."""
    h = hashlib.sha256()
    h.update(source)
    h.update(_inputs_digest())
    h.update(" ".join(FLAGS).encode())
    h.update(sys.version.encode())
    h.update(_toolchain())
    return "_tw_student_" + h.hexdigest()[:24]


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
        args = {
            "cdef": bridge_cdef(), "name": name,
            "sources": [str(copy), str(C_SRC / "twentyone.c"), str(C_SRC / "tw_rng.c")],
            "glue": [str(BRIDGE / g) for g in GLUE],
            "cc": os.environ.get("CC", "gcc"),
            "include_dirs": [str(C_SRC), str(C_SRC / "compat"), str(BRIDGE)],
            "flags": list(FLAGS),
            "student_flags": ["-include", str(BRIDGE / "tw_capture.h")],
            "tmpdir": str(tmpdir),
        }
        proc = _run_group([sys.executable, "-m", "twentyone.players.cbuild", json.dumps(args)], tmpdir, timeout)
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


def missing_functions(built: Path, k: int) -> list[str]:
    """The functions of set ``k`` that the built module lacks, read from its symbol table (no loading)."""
    proc = subprocess.run(["nm", str(built)], capture_output=True, text=True, errors="replace")
    defined = {parts[-1] for parts in (ln.split() for ln in proc.stdout.splitlines())
               if len(parts) == 3 and parts[1] in "Tt"}
    return [f"{n}{k}" for n in FUNCTION_NAMES if f"{n}{k}" not in defined]


def main(argv: Sequence[str] | None = None) -> int:
    """The build, run in a subprocess by ``compile_student``: ``python -m twentyone.players.cbuild ARGS``.

    ARGS is a JSON object.  The student's file and the course helpers are compiled (with
    ``tw_capture.h`` force-included) and linked into one relocatable object whose ``.data`` and
    ``.bss`` are renamed ``tw_data*`` and ``tw_bss`` (so ``tw_segments`` finds exactly their statics);
    cffi then builds the module from that object and the glue.  Exit status 1 on any failure.
    """
    from cffi import FFI

    args: dict[str, Any] = json.loads((argv if argv is not None else sys.argv[1:])[0])
    incs = [f"-I{d}" for d in args["include_dirs"]]
    objs = []
    for i, src in enumerate(args["sources"]):
        obj = os.path.join(args["tmpdir"], f"part{i}.o")
        cmd = [args["cc"], "-c", "-fPIC", *args["flags"], *args["student_flags"], *incs, src, "-o", obj]
        if subprocess.run(cmd, stdin=subprocess.DEVNULL).returncode:
            return 1
        objs.append(obj)
    student = os.path.join(args["tmpdir"], "student.o")
    if subprocess.run(["ld", "-r", "-o", student, *objs]).returncode:
        return 1
    renames = []
    for old, new in ((".data", "tw_data"), (".data.rel.local", "tw_data_rel"), (".data.rel", "tw_data_rel"),
                     (".bss", "tw_bss")):
        renames += ["--rename-section", f"{old}={new}"]
    if subprocess.run(["objcopy", *renames, student]).returncode:
        return 1
    ffi = FFI()
    ffi.cdef(args["cdef"])
    ffi.set_source(args["name"], '#include "tw_bridge.h"\n', sources=args["glue"],
                   include_dirs=args["include_dirs"], extra_compile_args=args["flags"], extra_objects=[student])
    ffi.compile(tmpdir=args["tmpdir"], verbose=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
