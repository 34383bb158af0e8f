"""The build's jail (issue 32, "the build confined on every host"): no tool of a student's build reads a file
outside the build's folder and the toolchain, whatever the text does to make it (``.incbin`` from ``asm`` made by a
macro, ``.include``, ``#include MACRO``, ``#include_next``, ``__has_include``, ``_Pragma("GCC dependency")``,
``#embed``), with Landlock and without (``TWENTYONE_LANDLOCK_ABI=0``), as root and as an ordinary user, for C and
C++ hand-ins and the judge's C++ solutions.

Each secret file is watched with inotify while the builds run: the kernel reports any process that opens it, so
"not read" is observed, not inferred from the build's word.  The builds run in a separate process (as uid 65534
through ``setpriv`` for the ordinary user), one per Landlock ABI and user, and each secret holds a marker that
would be in the built program had it been read.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.escape_helpers import abi_env

pytestmark = pytest.mark.usefixtures("seccomp")

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "tests" / "fixtures" / "c" / "jail"
NOBODY = 65534

#: Each hostile build: its fixture, what its secret file holds (what it would put into the program if read),
#: and how it is built (a course hand-in, in process too, or a judge solution).
TRICKS: dict[str, tuple[str, str, str]] = {
    "paste_incbin": ("paste_incbin.c", "{marker}", "box"),
    "paste_incbin_trusted": ("paste_incbin.c", "{marker}", "module"),
    "asm_include": ("asm_include.c", '.ascii "{marker}"\n', "box"),
    "include_macro": ("include_macro.c", '"{marker}"\n', "box"),
    "include_next": ("include_next.c", '"{marker}"\n', "box"),
    "has_include": ("has_include.c", "{marker}", "box"),
    "pragma_dependency": ("pragma_dependency.c", "{marker}", "box"),
    "embed": ("embed.c", "{marker}", "box"),
    "cpp_paste_incbin": ("paste_incbin.cpp", "{marker}", "box"),
    "cpp_include_macro": ("include_macro.cpp", '"{marker}"\n', "box"),
    "judge_incbin": ("judge_incbin.cpp", "{marker}", "judge"),
    "judge_has_include": ("judge_has_include.cpp", "{marker}", "judge"),
}
#: Builds whose only gain is whether the file exists: the outcome must be the same when it does not.
EXISTENCE = ("has_include", "judge_has_include", "pragma_dependency")
USERS = ("root", "nobody")
ABIS = ("native", "0")

_DRIVER = r"""
import json, sys
from pathlib import Path
from twentyone.errors import CompileError, TwentyOneError
from twentyone.players.c.build import compile_student
from twentyone.judge.boxed import build as judge_build
out = {}
for name, path, how in json.loads(sys.argv[1]):
    try:
        built = judge_build(Path(path)) if how == "judge" else compile_student(Path(path), module=how == "module")
        out[name] = {"built": str(built), "error": "", "messages": ""}
    except CompileError as e:
        out[name] = {"built": None, "error": str(e), "messages": e.messages}
    except TwentyOneError as e:
        out[name] = {"built": None, "error": str(e), "messages": ""}
print(json.dumps(out))
"""

_IN_OPEN, _IN_ACCESS = 0x20, 0x01
_libc = ctypes.CDLL(None, use_errno=True)


class Watch:
    """inotify on files: which of them any process opened or read while the watch was on."""

    def __init__(self, paths: list[Path]) -> None:
        self.fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        self.paths: dict[int, Path] = {}
        for p in paths:
            wd = _libc.inotify_add_watch(self.fd, os.fsencode(p), _IN_OPEN | _IN_ACCESS)
            assert wd >= 0, (p, os.strerror(ctypes.get_errno()))
            self.paths[wd] = p

    def opened(self) -> set[Path]:
        seen: set[Path] = set()
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return seen
        finally:
            os.close(self.fd)
        at = 0
        while at + 16 <= len(data):
            wd, mask, _, size = struct.unpack_from("iIII", data, at)
            if mask & (_IN_OPEN | _IN_ACCESS) and wd in self.paths:
                seen.add(self.paths[wd])
            at += 16 + size
        return seen


@dataclass
class Run:
    """One driver run: each trick's outcome, the secrets (and their markers) it aimed at, which were opened."""

    outcomes: dict[str, dict[str, Any]]
    secrets: dict[str, tuple[Path, str]]
    opened: set[Path]
    cache: Path
    absent: dict[str, dict[str, Any]]


_RUNS: dict[tuple[str, str], Run] = {}
#: Every folder the runs made, removed after the module's tests (a run that failed half-way included).
_HOMES: list[Path] = []


def _home(user: str) -> Path:
    """A folder the build's user owns (pytest's tmp_path is root's only)."""
    home = Path(tempfile.mkdtemp(prefix=f"twentyone-test-jail-{user}-"))
    _HOMES.append(home)
    if user == "nobody":
        os.chmod(home, 0o755)
    return home


def _chown(path: Path, user: str) -> None:
    if user == "nobody":
        os.chown(path, NOBODY, NOBODY)


def _driver(cases: list[tuple[str, str, str]], home: Path, user: str, abi: str) -> dict[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if k not in ("TWENTYONE_LANDLOCK_ABI", "TWENTYONE_NO_LANDLOCK")}
    env.update(TWENTYONE_CACHE=str(home / "cache"), HOME=str(home), **abi_env(abi))
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if user == "nobody" else []
    p = subprocess.run([*prefix, sys.executable, "-c", _DRIVER, json.dumps(cases)], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def _run(abi: str, user: str, request: pytest.FixtureRequest) -> Run:
    """Build every trick at Landlock ABI ``abi`` as ``user``, each aimed at a secret of its own (that user's,
    readable by nobody else), the secrets watched; then the existence tricks again, aimed at absent files."""
    found = _RUNS.get((abi, user))
    if found is not None:
        return found
    if user == "nobody":
        request.getfixturevalue("ordinary_user")  # root and setpriv, and Python's folders passable to that user
    home = _home(user)
    (home / "cache").mkdir()
    secrets_dir = home / "private"
    secrets_dir.mkdir(mode=0o700)
    subs = home / "subs"
    subs.mkdir()
    for p in (home / "cache", secrets_dir, subs):
        _chown(p, user)
    secrets: dict[str, tuple[Path, str]] = {}
    cases, absent_cases = [], []
    for name, (fixture, content, how) in TRICKS.items():
        marker = f"TWENTYONE_SECRET_{uuid.uuid4().hex}"
        secret = secrets_dir / f"{name}.txt"
        secret.write_text(content.format(marker=marker))
        os.chmod(secret, 0o600)
        _chown(secret, user)
        secrets[name] = (secret, marker)
        gone = (subs / f"{name}-absent", secrets_dir / "none", absent_cases)
        for dest, aim, into in ((subs / name, secret, cases), gone):
            if into is absent_cases and name not in EXISTENCE:
                continue
            dest.mkdir()
            copy = dest / ("mycodes" + Path(fixture).suffix if how != "judge" else fixture)
            copy.write_text((BUILD / fixture).read_text().replace("/etc/passwd", str(aim)))
            _chown(dest, user)
            _chown(copy, user)
            into.append((name, str(copy), how))
    watch = Watch([s for s, _ in secrets.values()])
    try:
        outcomes = _driver(cases, home, user, abi)
    finally:
        opened = watch.opened()
    absent = _driver(absent_cases, home, user, abi)
    run = _RUNS[(abi, user)] = Run(outcomes, secrets, opened, home / "cache", absent)
    return run


@pytest.fixture(scope="module", autouse=True)
def _cleanup() -> Any:
    yield
    for home in _HOMES:
        shutil.rmtree(home, ignore_errors=True)


def _holding(root: Path, needle: bytes) -> list[Path]:
    return [f for f in sorted(root.rglob("*")) if f.is_file() and needle in f.read_bytes()]


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("trick", list(TRICKS))
def test_no_tool_of_a_build_reads_a_file_outside_it(trick: str, abi: str, user: str,
                                                    request: pytest.FixtureRequest) -> None:
    """A hostile build's secret is never opened by any process (inotify), and its marker is in no built file and
    no message: the build is refused, or built without it."""
    run = _run(abi, user, request)
    secret, marker = run.secrets[trick]
    assert secret not in run.opened, f"{trick}: a tool of the build opened {secret}"
    got = run.outcomes[trick]
    assert marker not in got["error"] and marker not in (got["messages"] or ""), got
    assert not _holding(run.cache, marker.encode()), f"{trick}: the secret is in the build cache"


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("abi", ABIS)
@pytest.mark.parametrize("trick", EXISTENCE)
def test_whether_a_file_exists_is_not_learnt(trick: str, abi: str, user: str, request: pytest.FixtureRequest) -> None:
    """``__has_include`` and ``GCC dependency`` of a secret that exists build as they do when it does not: same
    success, same messages (the path aside)."""
    run = _run(abi, user, request)
    there, absent = run.outcomes[trick], run.absent[trick]
    secret, _ = run.secrets[trick]
    assert (there["built"] is None) == (absent["built"] is None), (there, absent)
    assert there["messages"].replace(str(secret), "X").replace("-absent", "") == \
        absent["messages"].replace(str(secret.parent / "none"), "X").replace("-absent", ""), (there, absent)


@pytest.mark.parametrize("section", [".gnu_debugaltlink", ".interp"])
def test_a_section_naming_another_file_is_refused(section: str, tmp_path: Path) -> None:
    """A .gnu_debugaltlink section (which addr2line follows when a crash is located) or an .interp (the program's
    loader) is refused in one line."""
    from twentyone.errors import CompileError
    from twentyone.players.c.build import compile_student

    src = tmp_path / "mycodes.c"
    src.write_text((BUILD / "section_debugaltlink.c").read_text().replace(".gnu_debugaltlink", section))
    with pytest.raises(CompileError) as e:
        compile_student(src)
    assert f"'{section}' section names another file" in (e.value.messages or "")


def test_a_build_stopped_by_ctrl_c_leaves_no_tool_running(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ctrl-C while a tool of the build runs (in a session of its own, out of the terminal's reach): the tool is
    killed and reaped before the interrupt goes on."""
    from twentyone.players.c import jail

    started: list[int] = []
    real = jail._serve

    def interrupted(j: Any, pid: int, *a: Any) -> Any:
        started.append(pid)
        raise KeyboardInterrupt

    monkeypatch.setattr(jail, "_serve", interrupted)
    j = jail.jail(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        jail.run(j, [j.tools["cc"], "--version"], time.monotonic() + 60)
    monkeypatch.setattr(jail, "_serve", real)
    (pid,) = started
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: neither running nor a zombie


def test_a_hostile_build_without_landlock_is_one_line_and_leaks_nothing(tmp_path: Path) -> None:
    """``match --sandbox`` of the macro-made ``.incbin`` at Landlock ABI 0: one error line naming the file it was
    not let read, exit 2, and the secret nowhere in its output."""
    marker = f"TWENTYONE_SECRET_{uuid.uuid4().hex}"
    secret = tmp_path / "secret.txt"
    secret.write_text(marker)
    src = tmp_path / "li" / "mycodes.c"
    src.parent.mkdir()
    src.write_text((BUILD / "paste_incbin.c").read_text().replace("/etc/passwd", str(secret)))
    env = dict(os.environ, **abi_env("0"))
    r = subprocess.run([sys.executable, "-m", "twentyone", "match", "--sandbox", "-p", str(src), "-p", "stand",
                        "--output-dir", str(tmp_path / "printed")], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=180)
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("twentyone: error:")]
    assert r.returncode == 2 and len(errors) == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"toolchain: {secret} was refused" in r.stderr, r.stderr
    assert marker not in r.stdout + r.stderr
    assert not (tmp_path / "printed").exists() or not _holding(tmp_path / "printed", marker.encode())


def test_a_compiler_wrapper_in_a_home_folder_opens_no_other_file_there(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    """CC is a wrapper script in ~/bin: the jail lets the tools run it, but reads nothing else of that home (only
    a real compiler's install prefix, with its lib/gcc, is taken with its bin)."""
    from twentyone.errors import CompileError
    from twentyone.players.c import jail
    from twentyone.players.c.build import compile_student

    home = tmp_path / "teacher"
    (home / "bin").mkdir(parents=True)
    wrapper = home / "bin" / "gcc"
    wrapper.write_text(f"#!/bin/sh\nexec {shutil.which('gcc')} \"$@\"\n")
    wrapper.chmod(0o755)
    marker = f"TWENTYONE_SECRET_{uuid.uuid4().hex}"
    secret = home / "answers.txt"
    secret.write_text(marker)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    assert str(home / "bin") in jail.toolchain().folders and str(home) not in jail.toolchain().folders
    src = tmp_path / "li" / "mycodes.c"
    src.parent.mkdir()
    src.write_text((BUILD / "paste_incbin.c").read_text().replace("/etc/passwd", str(secret)))
    watch = Watch([secret])
    try:
        with pytest.raises(CompileError):
            compile_student(src)
    finally:
        opened = watch.opened()
    assert not opened and not _holding(tmp_path / "cache", marker.encode())


def test_a_build_is_never_taken_from_the_cache_under_other_layers(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    """A build made at Landlock ABI 0 is not the one a run at the kernel's ABI takes, nor one made without the path
    watcher: the cache's key names the layers it was built under."""
    from tests.conftest import require
    from twentyone.players.c import jail
    from twentyone.players.c.build import compile_student
    from twentyone.players.sandbox import landlock

    require(landlock.kernel_abi() >= 1, "Landlock")
    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    basic = ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c"
    built = {}
    for layers in ("native", "0", "no watcher"):
        with monkeypatch.context() as m:
            if layers == "0":
                for k, v in abi_env("0").items():
                    m.setenv(k, v)
            if layers == "no watcher":
                m.setattr(jail, "WATCH", False)
            built[layers] = compile_student(basic).parent
    assert len(set(built.values())) == 3, built


def test_a_host_with_no_layer_builds_no_untrusted_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No Landlock and no path watcher (switched off, as on a kernel older than 5.5): the build is refused in one
    line that says why, and nothing is compiled."""
    from twentyone.errors import PlayerSpecError
    from twentyone.players.c import jail
    from twentyone.players.c.build import compile_student

    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    for k, v in abi_env("0").items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(jail, "WATCH", False)
    with pytest.raises(PlayerSpecError) as e:
        compile_student(ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c")
    assert "cannot confine the compiler" in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.o"))


def test_the_engine_reads_a_crash_line_with_a_jailed_tool(tmp_path: Path) -> None:
    """addr2line, which reads the debug information a student's text made when a crash is located, runs in the
    build's jail (``jail.tool_output``): it reads the program's own folder, and a file of another folder is refused
    to it (a plain child would read it)."""
    from twentyone.players.c import jail

    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.mkdir()
    other.mkdir()
    for folder in (mine, other):
        (folder / "x.c").write_text("int tw_marker(void) { return 7; }\n")
        subprocess.run(["gcc", "-g", "-c", str(folder / "x.c"), "-o", str(folder / "x.o")], check=True)
    said = jail.tool_output(mine, "addr2line", ["-f", "-e", str(mine / "x.o"), "0x0"], 10.0)
    assert said is not None and "tw_marker" in said, said
    assert jail.tool_output(mine, "addr2line", ["-f", "-e", str(other / "x.o"), "0x0"], 10.0) is None
    plain = subprocess.run(["addr2line", "-f", "-e", str(other / "x.o"), "0x0"], capture_output=True, text=True)
    assert "tw_marker" in plain.stdout
