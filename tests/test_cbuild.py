"""Building a submission: its box program runs nothing of the student's before it is confined, its size is
capped, and the build cache keeps only finished builds under its size."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from twentyone.errors import CompileError, PlayerSpecError
from twentyone.match import Seating, play_match
from twentyone.players.builtin.course import Stand
from twentyone.players.c.build import cache_dir, compile_student, prune_cache
from twentyone.players.sandbox.limits import Limits
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

pytestmark = pytest.mark.usefixtures("seccomp")

TAIL = r"""
char continue_action1(Player (*p)[]) { return 's'; }
void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}
"""

INIT_SECTION = r"""
#include "mycodes.h"
__asm__(".section .init\n\tnop\n\t.text\n");
int bet1(int N) { return 10; }
char first_action1(char *t, int n) { return 's'; }
""" + TAIL

IFUNC = r"""
#include "mycodes.h"
static int real(int N) { return 10; }
static int (*pick(void))(int) { return real; }
int chosen(int N) __attribute__((ifunc("pick")));
int bet1(int N) { return chosen(N); }
char first_action1(char *t, int n) { return 's'; }
""" + TAIL

#: Every function the box calls before it is confined, defined by the student to do nothing: if any stood in for
#: the real one, the constructor below would run unconfined and read the file.
IMPOSTOR = r"""
#include "mycodes.h"
#include <fcntl.h>
extern long read(int fd, void *buf, unsigned long n);
int prctl(int o, ...) { return 0; }
int setrlimit(int r, const void *l) { return 0; }
int chroot(const char *p) { return 0; }
int setresuid(unsigned a, unsigned b, unsigned c) { return 0; }
int setresgid(unsigned a, unsigned b, unsigned c) { return 0; }
int setgroups(unsigned long n, const void *l) { return 0; }
long syscall(long n, ...) { return 0; }
int unshare(int f) { return 0; }
int close_range(unsigned a, unsigned b, int f) { return 0; }
static int got = 0;
__attribute__((constructor)) static void peek(void)
{
    int fd = open("%s", O_RDONLY);
    char c;
    got = fd >= 0 && read(fd, &c, 1) == 1;
}
int bet1(int N) { return got ? 1000 : 10; }
char first_action1(char *t, int n) { return 's'; }
""" + TAIL


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_init_section_code_is_refused(tmp_path: Path) -> None:
    """Code put in .init by hand would run before main, so before the box is confined: the build refuses it."""
    with pytest.raises(CompileError) as e:
        compile_student(_write(tmp_path, "init.c", INIT_SECTION))
    assert "'.init' section runs code before the sandbox holds" in (e.value.messages or "")


def test_an_ifunc_resolver_is_refused(tmp_path: Path) -> None:
    """An ifunc resolver runs while the program is loaded, before main: the build refuses it."""
    with pytest.raises(CompileError) as e:
        compile_student(_write(tmp_path, "ifunc.c", IFUNC))
    assert "ifunc resolver" in (e.value.messages or "")


def test_the_students_functions_cannot_stand_in_for_the_boxs(tmp_path: Path) -> None:
    """A file that defines prctl, setrlimit, chroot, setresuid, syscall ... as no-ops: the box still confines
    itself (its calls reach the C library), and the constructor's open is a forbidden call while loading."""
    secret = _write(tmp_path, "secret.txt", "secret")
    path = _write(tmp_path, "impostor.c", IMPOSTOR % secret)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    try:
        r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, 1)
    finally:
        s.close()
    assert r.by_seat(1).fault_detail.startswith("while loading (its initialisers): forbidden system call")


def test_a_module_over_the_cap_is_refused_in_one_line(tmp_path: Path) -> None:
    """A 16 MB initialised array under a cap of 8 MiB: one line naming the cap, exit 2, nothing cached."""
    path = _write(tmp_path, "big.c", '#include "mycodes.h"\nstatic int big[4000000] = {1};\n'
                  "int bet1(int N) { return 10 + big[N]; }\nchar first_action1(char *t, int n) { return 's'; }\n"
                  + TAIL)
    # A cache of its own: the session's is shared with other workers' builds in progress (tw-build-* folders).
    # The doctor's verdicts come along (this host's, found once a session: seconds of CPU).
    cache = tmp_path / "cache"
    if (cache_dir().parent / "doctor").is_dir():
        shutil.copytree(cache_dir().parent / "doctor", cache / "doctor")
    env = dict(os.environ, TWENTYONE_MAX_MODULE_MIB="8", TWENTYONE_CACHE=str(cache))
    r = subprocess.run([sys.executable, "-m", "twentyone", "match", "--sandbox", "-p", str(path), "-p", "stand"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("twentyone: error:")]
    assert len(errors) == 1 and "over the cap of 8 MiB" in errors[0], r.stderr
    assert "Traceback" not in r.stderr
    assert (cache / "c").is_dir()  # the build was made there
    assert not any(p.name.startswith("tw-build-") for p in (cache / "c").iterdir())


def _fake_build(name: str, size: int, age: float) -> Path:
    d = cache_dir() / name
    d.mkdir(parents=True)
    (d / "box").write_bytes(b"\0" * size)
    t = time.time() - age
    os.utime(d, (t, t))
    return d


def test_the_cache_keeps_the_most_recently_used_builds_under_its_size(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    """Past TWENTYONE_CACHE_MIB the least recently used builds go, never the one just made; a scratch folder of
    a killed build goes after an hour, a running one's stays."""
    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TWENTYONE_CACHE_MIB", "3")
    old = _fake_build("_tw_student_old", 1 << 20, 300)
    mid = _fake_build("_tw_student_mid", 1 << 20, 200)
    new = _fake_build("_tw_program_new", 1 << 20, 100)
    just = _fake_build("_tw_student_just", 1 << 20, 400)  # made now, but its time says older: kept all the same
    stale = cache_dir() / "tw-build-killed"
    stale.mkdir()
    os.utime(stale, (time.time() - 7200,) * 2)
    running = cache_dir() / "tw-build-running"
    running.mkdir()
    removed = prune_cache(keep=just)
    assert set(removed) == {old, stale}
    assert mid.exists() and new.exists() and just.exists() and running.exists()
    assert not old.exists() and not stale.exists()


def test_a_cache_hit_counts_as_use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Compiling a file that is cached marks its build as used now, so it is the last to be pruned."""
    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    built = compile_student(Path("c_src/mycodes.c")).parent
    os.utime(built, (time.time() - 1000,) * 2)
    compile_student(Path("c_src/mycodes.c"))
    assert time.time() - built.stat().st_mtime < 60


def test_a_bad_cache_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """TWENTYONE_MAX_MODULE_MIB that is not a number is named in one line."""
    from twentyone.players.c.build import max_module_bytes

    monkeypatch.setenv("TWENTYONE_MAX_MODULE_MIB", "lots")
    with pytest.raises(PlayerSpecError, match="TWENTYONE_MAX_MODULE_MIB must be a number of MiB"):
        max_module_bytes()


def test_a_constructor_runs_after_confinement_and_before_the_first_call(tmp_path: Path) -> None:
    """A global set by a constructor (30, with a priority and without) is ready for the first call of every match:
    every match's first bet is 30."""
    path = _write(tmp_path, "ctor.c", '#include "mycodes.h"\nstatic int start, extra;\n'
                  "__attribute__((constructor(101))) static void first(void) { extra = 10; }\n"
                  "__attribute__((constructor)) static void init(void) { start = 20 + extra; }\n"
                  "int bet1(int N) { int b = start; start = 10; return b; }\n"
                  "char first_action1(char *t, int n) { return 's'; }\n" + TAIL)
    s = make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits())
    firsts = []
    try:
        for seed in (3, 4):
            log = RoundLog(io.StringIO(), keep=True)
            r = play_match([Seating("x", "x", s), Seating("b", "stand", Stand())], 6, seed, log=log)
            assert r.by_seat(1).fault is None
            rounds = [rec for rec in log.records or [] if rec["type"] == "round"]
            firsts.append((rounds[0]["players"][0]["bet"], rounds[1]["players"][0]["bet"]))  # type: ignore[index]
    finally:
        s.close()
    assert firsts == [(30, 10), (30, 10)]


def test_a_sandboxed_player_never_builds_the_cffi_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Seated in the sandbox a C file gets its box program only; seated in process (trusted) it gets the cffi module
    too, beside the same box program."""
    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    path = Path("tests/fixtures/c/students/basic.c")
    make_strategy(f"{path}:1", warn=lambda m: None, sandbox=Limits()).close()
    (built,) = [d for d in cache_dir().iterdir() if d.name.startswith("_tw_student_")]
    assert (built / "box").is_file() and not list(built.glob("*.so"))
    make_strategy(f"{path}:1", warn=lambda m: None).close()
    assert len(list(built.glob("*.so"))) == 1


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every compiler (gcc, g++) a build runs from now on, its student's and the project's alike."""
    import twentyone.players.c.build as cb
    import twentyone.players.c.objects as objects

    runs: list[list[str]] = []
    real_untrusted, real_run = cb._run_untrusted, objects.subprocess.run
    compilers = {os.path.realpath(p) for p in (shutil.which(os.environ.get("CC", "gcc")),
                                                 shutil.which(os.environ.get("CXX", "g++"))) if p}

    def untrusted(j: Any, argv: list[str], deadline: float) -> Any:
        if os.path.realpath(argv[0]) in compilers:
            runs.append(argv)
        return real_untrusted(j, argv, deadline)

    def trusted(argv: list[str], *a: Any, **k: Any) -> Any:
        if os.path.realpath(argv[0]) in compilers:
            runs.append(argv)
        return real_run(argv, *a, **k)

    monkeypatch.setattr(cb, "_run_untrusted", untrusted)
    monkeypatch.setattr(objects.subprocess, "run", trusted)
    return runs


def test_the_projects_objects_are_compiled_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Into an empty cache the first hand-in compiles the project's files once; every later hand-in runs the
    compiler twice, its own file and the link of its box program, and none of the project's files again."""
    monkeypatch.setenv("TWENTYONE_CACHE", str(tmp_path / "cache"))
    runs = _counting(monkeypatch)
    compile_student(Path("tests/fixtures/c/students/basic.c"))
    compiled = [Path(r[r.index("-o") - 1]).name for r in runs if r[1] == "-c"]
    assert sorted(compiled) == sorted(["mycodes.c", "twentyone.c", "tw_rng.c", "tw_box.c", "tw_confine.c",
                                       "tw_serve.c", "tw_dispatch.c", "tw_capture.c", "tw_compat.c"]), compiled
    for name in ("static_counter.c", "helpers.c", "sloppy.c"):
        runs.clear()
        compile_student(Path("tests/fixtures/c/students") / name)
        assert len(runs) == 2, runs
        assert runs[0][1] == "-c" and runs[0][runs[0].index("-o") - 1].endswith("/mycodes.c"), runs[0]
        assert "-c" not in runs[1] and runs[1][runs[1].index("-o") + 1].endswith("/box"), runs[1]
        assert "-fno-use-linker-plugin" in runs[1], runs[1]  # no compiler bytecode linked in place of the code checked


def test_builds_at_once_into_an_empty_cache_share_one_set_of_objects(tmp_path: Path) -> None:
    """Three processes building three hand-ins at once into an empty cache all succeed, and the cache holds one set
    of each kind of the project's objects and no scratch folder."""
    cache = tmp_path / "cache"
    script = ("import sys; from pathlib import Path; from twentyone.players.c.build import compile_student; "
              "print(compile_student(Path(sys.argv[1])))")
    env = dict(os.environ, TWENTYONE_CACHE=str(cache))
    procs = [subprocess.Popen([sys.executable, "-c", script, f"tests/fixtures/c/students/{n}.c"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in ("basic", "helpers", "sloppy")]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    entries = sorted(e.name.rsplit("_", 1)[0] for e in (cache / "c").iterdir() if e.is_dir())
    assert entries == ["_tw_objects", "_tw_objects", "_tw_student", "_tw_student", "_tw_student"], entries


def test_section_names_are_read_from_the_objects_bytes(tmp_path: Path) -> None:
    """The build reads an object's section names from its bytes, whole: a name with a space or an '=' (which
    readelf's listing splits, and objcopy's --rename-section cuts) comes back as the linker sees it, with its type;
    a file that is not an object is an ElfError, not a traceback."""
    from twentyone.players.c import elf

    src = tmp_path / "x.c"
    src.write_text('__asm__(".section \\".init_array.1 x\\",\\"aw\\",@init_array\\n.quad 0\\n.previous");\n'
                   '__attribute__((section(".ctors.00100=x"))) void (*p)(void) = 0;\n')
    subprocess.run(["gcc", "-c", str(src), "-o", str(tmp_path / "x.o")], check=True)
    found = {s.name: s.type for s in elf.sections(tmp_path / "x.o")}
    assert found[b".init_array.1 x"] == 14 and b".ctors.00100=x" in found, found
    assert not elf.PLAIN_NAME.match(b".init_array.1 x") and elf.PLAIN_NAME.match(b".text._ZN3foo3barEv")
    import struct

    head = bytearray(b"\x7fELF\2\1" + b"\0" * 58)
    struct.pack_into("<Q", head, 0x28, 1 << 20)  # section headers past the file's end
    struct.pack_into("<HHH", head, 0x3A, 64, 3, 1)
    (tmp_path / "junk.o").write_bytes(bytes(head))
    with pytest.raises(elf.ElfError):
        elf.sections(tmp_path / "junk.o")


def test_a_program_whose_symbols_cannot_be_read_is_not_said_to_lack_its_functions(tmp_path: Path) -> None:
    """When nm cannot read a built program (here: it is not a program), the build says so in one line; it once
    took the empty listing for a file without function set 2 ("missing: bet2, first_action2 ...", seen once in
    make test's parallel run)."""
    from twentyone.players.c.cache import missing_functions

    junk = tmp_path / "box"
    junk.write_bytes(b"not a program")
    with pytest.raises(PlayerSpecError, match="its symbols could not be read"):
        missing_functions(junk, 2, ("bet", "first_action"))
