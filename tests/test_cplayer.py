"""Students' original mycodes.c files through cffi: every habit of real files loads and plays."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from twentyone.players.builtin.course import Basic, HiLo, Stand
from twentyone.players.c.build import compile_student, module_name
from twentyone.players.c.source import prepare_source
from twentyone.errors import CompileError
from twentyone.match import Seating, play_match
from twentyone.players.spec import make_strategy
from twentyone.roundlog import RoundLog

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = ROOT / "tests" / "fixtures" / "c" / "students"
HOSTILE = ROOT / "tests" / "fixtures" / "c" / "hostile"
STYLES = ["person_on", "copy_paste5", "static_counter", "bet_grows", "sloppy", "crlf_gbk", "utf8_chinese",
          "partial_sets", "basic"]


def c_player(name: str, k: int = 1, **kw: object) -> object:
    return make_strategy(f"{STUDENTS / name}.c:{k}", warn=lambda m: None, **kw)  # type: ignore[arg-type]


def log_of(specs: list[str], seed: int, decks: int = 6) -> list[dict[str, object]]:
    """The round log of a match between SPECs, with the SPEC text taken out of the match line."""
    log = RoundLog(io.StringIO(), keep=True)
    seats = [Seating(f"player{i + 1}", s, make_strategy(s, warn=lambda m: None)) for i, s in enumerate(specs)]
    play_match(seats, decks, seed, log=log)
    recs = log.records or []
    for seat in recs[0]["seats"]:  # type: ignore[union-attr]
        seat["player"] = ""
    return recs


@pytest.mark.parametrize("style", STYLES)
def test_student_style_loads_and_plays(style: str) -> None:
    """Each style of real student file compiles, loads and plays full matches at every seat it fills."""
    sets = (1, 2) if style == "partial_sets" else (1, 2, 3, 4, 5)
    seats = [Seating(f"p{k}", f"{style}:{k}", c_player(style, k)) for k in sets]  # type: ignore[arg-type]
    for seed in (1, 2):
        r = play_match(seats, 6, seed)
        assert r.reason in ("rounds", "shuffles", "broke") and r.rounds >= 5
        assert all(s.fault is None for s in r.ranking)


def test_an_action_written_as_a_string_is_named(tmp_path: Path) -> None:
    """``return "h";`` in a char function (a beginner's slip: it returns a pointer, read as a garbage letter,
    so every hand fouls) gets a warning with its line and the fix; ``return 'h';`` gets none."""
    clean = (STUDENTS / "basic.c").read_text(encoding="utf-8")
    slip = clean + '\nchar tw_extra(int t)\n{\n    if (t < 12) return "h";\n    return (\'s\');\n}\n'
    line = slip.splitlines().index('    if (t < 12) return "h";') + 1
    said = {}
    for name, text in (("slip", slip), ("clean", clean)):
        path = tmp_path / name / "mycodes.c"
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
        warnings: list[str] = []
        prepare_source(path, warnings.append)
        said[name] = warnings
    assert said["clean"] == []
    assert said["slip"] == [f"{tmp_path / 'slip' / 'mycodes.c'}:{line}: returns the string \"h\" where the "
                            "character 'h' is meant (single quotes): the function returns a pointer, and the engine "
                            "reads a garbage letter"]


def test_person_on_is_switched_off_in_a_copy() -> None:
    """#define PERSON is neutralised with one warning; the student's file is never changed."""
    path = STUDENTS / "person_on.c"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    warnings: list[str] = []
    text = prepare_source(path, warnings.append)
    assert b"#define TWENTYONE_PERSON_SWITCHED_OFF" in text
    assert not re.search(rb"^\s*#\s*define\s+PERSON\b", text, re.MULTILINE)
    assert len(warnings) == 1 and "PERSON" in warnings[0]
    make_strategy(f"{path}:1", warn=warnings.append)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_output_goes_to_a_capped_file_not_the_terminal(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """printf in every function goes to a per-match log file; nothing reaches the terminal."""
    s = c_player("person_on", 1, capture_dir=tmp_path)
    play_match([Seating("p", "person_on", s), Seating("b", "basic", Basic())], 6, 3)  # type: ignore[arg-type]
    out, err = capfd.readouterr()
    assert "first_action1" not in out + err
    text = (tmp_path / "person_on-set1-match1.out").read_text()
    assert "bet1: count=0" in text and "first_action1:" in text and "show1:" in text


def test_gbk_and_crlf_file_prints_its_chinese(tmp_path: Path) -> None:
    """A GBK file with CRLF endings loads; its Chinese strings come out as UTF-8 text."""
    s = c_player("crlf_gbk", 1, capture_dir=tmp_path)
    play_match([Seating("p", "gbk", s)], 6, 1)  # type: ignore[arg-type]
    assert "玩家1下注" in (tmp_path / "crlf_gbk-set1-match1.out").read_text(encoding="utf-8")


def test_mixed_table_of_c_python_and_builtin() -> None:
    """C files, a Python function set and built-in players share one table."""
    seats = [Seating("c1", "basic.c", c_player("basic")), Seating("py", "mycodes.py:2", make_strategy("mycodes/mycodes.py:2")),  # type: ignore[arg-type]
             Seating("hilo", "hilo", HiLo()), Seating("c2", "static_counter.c:4", c_player("static_counter", 4)),  # type: ignore[arg-type]
             Seating("stand", "stand", Stand())]
    r = play_match(seats, 6, 8)
    assert len(r.ranking) == 5 and all(s.fault is None and s.rounds == r.rounds for s in r.ranking)


@pytest.mark.parametrize("style, k", [("person_on", 3), ("copy_paste5", 2), ("basic", 5)])
def test_same_player_at_another_seat_plays_identically(style: str, k: int) -> None:
    """Function set K seated at seat 1 (re-indexed) plays exactly like set 1 there: the same log."""
    for seed in (4, 5):
        natural = log_of([f"{STUDENTS / style}.c:1", "stand"], seed)
        moved = log_of([f"{STUDENTS / style}.c:{k}", "stand"], seed)
        assert moved == natural


def test_static_state_does_not_leak_between_matches() -> None:
    """A file whose bet grows with a static counter bets 10 first in every match."""
    s = c_player("bet_grows")
    for seed in (1, 2, 3):
        log = RoundLog(io.StringIO(), keep=True)
        play_match([Seating("g", "bet_grows", s)], 6, seed, log=log)  # type: ignore[arg-type]
        bets = [r["players"][0]["bet"] for r in log.records or [] if r["type"] == "round"]
        assert bets[:3] == [10, 20, 30]


def test_two_students_bet1_never_clash() -> None:
    """Two files that both define bet1 keep their own: 10, 20, ... and a flat 20."""
    a, b = c_player("bet_grows"), c_player("copy_paste5")
    log = RoundLog(io.StringIO(), keep=True)
    play_match([Seating("a", "a", a), Seating("b", "b", b)], 6, 1, log=log)  # type: ignore[arg-type]
    first = [r for r in log.records or [] if r["type"] == "round"][:2]
    assert [[p["bet"] for p in r["players"]] for r in first] == [[10, 20], [20, 20]]


def test_symbols_are_hidden_and_builds_cached() -> None:
    """The built module exports only its init function, and an unchanged file is not rebuilt."""
    built = compile_student(STUDENTS / "basic.c", module=True)
    assert compile_student(STUDENTS / "basic.c", module=True) == built
    dyn = subprocess.run(["nm", "-D", "--defined-only", str(built)], capture_output=True, text=True).stdout
    names = {line.split()[-1] for line in dyn.splitlines()}
    assert "bet1" not in names and any(n.startswith("PyInit_") for n in names)
    assert module_name(b"int x;") != module_name(b"int y;")


def test_compile_error_names_file_and_line() -> None:
    """A compile error gives the compiler's file:line messages."""
    with pytest.raises(CompileError) as e:
        compile_student(HOSTILE / "syntax_error.c")
    assert "syntax_error.c:7" in e.value.messages or "syntax_error.c:6" in e.value.messages


@pytest.mark.parametrize("spec, message", [
    ("hostile/syntax_error.c", "does not compile"),
    ("hostile/not_c.c", "is not a C source file"),
    ("hostile/missing_sets.c", "missing: continue_action1, show1"),
    ("students/partial_sets.c:3", "has no function set 3 (missing: bet3, first_action3, continue_action3, show3)"),
    ("students/no_such_file.c", "cannot read C file"),
])
def test_bad_c_files_get_one_clear_line(spec: str, message: str) -> None:
    """Bad C input exits 2 before any game with a line naming the problem, never a traceback."""
    r = subprocess.run([sys.executable, "-m", "twentyone", "match", "-p", f"tests/fixtures/c/{spec}", "-p", "stand"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and message in r.stderr.splitlines()[0] and "Traceback" not in r.stderr
    assert r.stdout == ""
    if "syntax" in spec:
        assert "syntax_error.c:" in r.stderr


def _build_c_program(mycodes: Path, out: Path) -> Path:
    exe = out / "twentyone-c"
    src = ROOT / "c_src"
    subprocess.run(["gcc", "-O2", "-std=gnu99", f"-I{src}", f"-I{src / 'compat'}", str(src / "main.c"),
                    str(src / "twentyone.c"), str(src / "tw_rng.c"), str(src / "compat" / "tw_compat.c"), str(mycodes),
                    "-o", str(exe)], check=True)
    return exe


@pytest.mark.parametrize("style", ["basic", "static_counter", "sloppy", "copy_paste5", "helpers"])
@pytest.mark.slow
def test_c_program_and_python_engine_write_identical_logs(style: str, tmp_path: Path) -> None:
    """For several seeds, twentyone-c and the Python engine running the same C file write the same log file,
    byte for byte, the match line included: --source names the players as the Python engine's SPECs do."""
    exe = _build_c_program(STUDENTS / f"{style}.c", tmp_path)
    source = f"{STUDENTS / style}.c"
    for seed, decks, seats in ((1, 6, 2), (2, 1, 5), (3, 8, 3), (4, 2, 4), (5, 4, 1)):
        clog = tmp_path / f"c{seed}.jsonl"
        subprocess.run([str(exe), "--seed", str(seed), "--decks", str(decks), "--seats", str(seats), "--log", str(clog),
                        "--quiet", "--source", source], check=True, capture_output=True)
        out = io.StringIO()  # the Python engine's log of the same match, the SPECs naming the same file
        specs = [f"{source}:{k}" for k in range(1, seats + 1)]
        play_match([Seating(f"player{k}", s, make_strategy(s, warn=lambda m: None)) for k, s in enumerate(specs, 1)],
                   decks, seed, log=RoundLog(out))
        py_text = out.getvalue()
        assert clog.read_bytes() == py_text.encode("utf-8"), (style, seed)
        assert json.loads(py_text.splitlines()[0])["seats"][0]["player"] == f"{source}:1"


def test_c_program_source_names_the_players(tmp_path: Path) -> None:
    """Without --source the match line says mycodes.c:K; with it, PATH:K, JSON-escaped as Python escapes it."""
    exe = _build_c_program(STUDENTS / "basic.c", tmp_path)
    for extra, want in (([], "mycodes.c"), (["--source", 'odd "dir"\\学生/mycodes.c'], 'odd "dir"\\学生/mycodes.c')):
        log = tmp_path / "m.jsonl"
        subprocess.run([str(exe), "--seed", "7", "--decks", "6", "--seats", "2", "--log", str(log), "--quiet", *extra],
                       check=True, capture_output=True)
        first = log.read_text(encoding="utf-8").splitlines()[0]
        assert [s["player"] for s in json.loads(first)["seats"]] == [f"{want}:1", f"{want}:2"]
        assert first == json.dumps(json.loads(first), ensure_ascii=False, separators=(",", ":"))


def test_c_program_student_file_may_call_every_helper(tmp_path: Path) -> None:
    """A student file that calls all 14 helper functions of twentyone.c builds and plays both ways: linked into
    twentyone-c (the make c-program build) and loaded by the Python engine, and its calls do not disturb the game."""
    path = STUDENTS / "helpers.c"
    text = path.read_text()
    helpers = ["init_cards", "shuffle_cards", "round_init", "first_deal", "getcard", "insurance", "hit", "dbl",
               "surrender", "foul", "calculate", "banker_continue", "judge", "show_result"]
    assert all(re.search(rf"\b{h}\(", text) for h in helpers)
    exe = _build_c_program(path, tmp_path)
    r = subprocess.run([str(exe), "--seed", "3", "--decks", "2", "--seats", "5"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "practice round:" in r.stdout and "match ended" in r.stdout
    seats = [Seating(f"p{k}", f"helpers:{k}", make_strategy(f"{path}:{k}", warn=lambda m: None)) for k in range(1, 6)]
    for seed in (1, 2):
        res = play_match(seats, 2, seed)
        assert res.rounds >= 5 and all(s.fault is None for s in res.ranking)
    # the engine's shoes do not depend on the student's own shuffle_cards calls
    log = tmp_path / "h.jsonl"
    subprocess.run([str(exe), "--seed", "3", "--decks", "2", "--seats", "5", "--log", str(log), "--quiet"], check=True,
                   capture_output=True)
    (tmp_path / "b").mkdir()
    basic = _build_c_program(STUDENTS / "basic.c", tmp_path / "b")
    blog = tmp_path / "b.jsonl"
    subprocess.run([str(basic), "--seed", "3", "--decks", "2", "--seats", "5", "--log", str(blog), "--quiet"],
                   check=True, capture_output=True)
    shoes = [ln for ln in log.read_text().splitlines() if '"type":"shuffle"' in ln]
    basic_shoes = [ln for ln in blog.read_text().splitlines() if '"type":"shuffle"' in ln]
    n = min(len(shoes), len(basic_shoes))
    assert n >= 1 and shoes[:n] == basic_shoes[:n]


def test_c_program_interactive_mode(tmp_path: Path) -> None:
    """Without arguments it asks how many people play (the dealer included, as the course counts), the players'
    names and the decks, then plays."""
    exe = _build_c_program(ROOT / "c_src" / "mycodes.c", tmp_path)
    r = subprocess.run([str(exe)], input="9\n3\nLi\nWang\n0\n6\n", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert "number of people at the table, the dealer included (2-6): " in r.stdout
    assert "please type a number from 2 to 6" in r.stdout and "please type a number from 1 to 8" in r.stdout
    assert "match ended" in r.stdout and "Li" in r.stdout and "Wang" in r.stdout


def test_c_program_manual_play_under_person(tmp_path: Path) -> None:
    """PERSON on: the bet typed with scanf and the action read with getche() are both the player's keys.

    getche() must not return the newline scanf left behind (Windows' console reader never sees it),
    or every first action would be an illegal-action foul.
    """
    src = tmp_path / "mycodes.c"
    src.write_text((ROOT / "c_src" / "mycodes.c").read_text().replace("//#define PERSON", "#define PERSON", 1))
    exe = _build_c_program(src, tmp_path)
    keys = "2\nLi\n6\n" + "20\ns\n" * 80  # two people: the dealer and Li
    r = subprocess.run([str(exe)], input=keys, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "match ended" in r.stdout and "illegal_action" not in r.stdout
    assert re.search(r"bet +20", r.stdout) and "after 50 rounds" in r.stdout


def test_a_failed_make_c_program_leaves_no_previous_program(tmp_path: Path) -> None:
    """make c-program of a file that does not compile, after a good one: exit non-zero, no twentyone-c left (it
    would be the previous student's program), and the messages name the student's file."""
    from tests.handins import c_program

    exe, _ = c_program(STUDENTS / "basic.c", tmp_path)
    r = subprocess.run(["make", "--no-print-directory", "-C", str(exe.parent), "c-program",
                        f"MYCODES={HOSTILE / 'syntax_error.c'}"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert not exe.exists() and not (exe.parent / "build" / "c-program" / "twentyone-c").exists()
    assert "syntax_error.c:" in r.stderr and "manual.c" not in r.stderr, r.stderr  # named as the student knows it


def test_c_program_rejects_bad_arguments(tmp_path: Path) -> None:
    """Bad arguments and missing function sets give one line and exit 2."""
    exe = _build_c_program(ROOT / "c_src" / "mycodes.c", tmp_path)
    for args in (["--seed", "1", "--decks", "9", "--seats", "2"], ["--seed", "x", "--decks", "6", "--seats", "2"],
                 ["--seed", "1"], ["--bogus", "1"]):
        r = subprocess.run([str(exe), *args], capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.startswith("twentyone-c: error:") and len(r.stderr.splitlines()) == 1
    partial = _build_c_program(STUDENTS / "partial_sets.c", tmp_path)
    r = subprocess.run([str(partial), "--seed", "1", "--decks", "6", "--seats", "3"], capture_output=True, text=True)
    assert r.returncode == 2 and "no function set 3" in r.stderr


# -- the loader's details ------------------------------------------------------------------------
CLI = [sys.executable, "-m", "twentyone"]


def test_unchanged_file_is_not_compiled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second compile of an unchanged file comes from the cache: the compiler is not run."""
    import twentyone.players.c.build as cp

    built = compile_student(STUDENTS / "basic.c")

    def no_compiler(*a: object, **k: object) -> None:
        raise AssertionError("the compiler ran for a cached file")

    monkeypatch.setattr(cp, "_run_untrusted", no_compiler)
    assert compile_student(STUDENTS / "basic.c") == built


def test_build_name_covers_headers_flags_and_toolchain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing the flags, the headers or the compiler gives a new module name (a new build)."""
    import twentyone.players.c.build as cp

    base = module_name(b"int x;")
    monkeypatch.setattr(cp, "FLAGS", cp.FLAGS + ("-O3",))
    assert module_name(b"int x;") != base
    monkeypatch.undo()
    monkeypatch.setattr(cp, "_inputs_digest", lambda: b"other headers")
    assert module_name(b"int x;") != base
    monkeypatch.undo()
    monkeypatch.setattr(cp, "_TOOLCHAIN", b"gcc 99")
    assert module_name(b"int x;") != base


def test_compile_time_limit(tmp_path: Path) -> None:
    """A compile that takes longer than its limit is stopped and reported in one line."""
    src = tmp_path / "slow.c"
    src.write_text((STUDENTS / "basic.c").read_text() + "\n/* unique: slow */\n")
    with pytest.raises(CompileError, match="compiling took longer than 0.01 s"):
        compile_student(src, timeout=0.01)


def test_modules_are_loaded_without_rtld_global() -> None:
    """A student module's symbols never join the process's global namespace."""
    import ctypes

    from twentyone.players.c.module import load_student

    built = compile_student(STUDENTS / "static_counter.c", module=True)
    load_student(built)
    with pytest.raises(AttributeError):
        getattr(ctypes.CDLL(None), "PyInit_" + built.name.split(".")[0])


def test_person_with_a_comment_on_its_line(tmp_path: Path) -> None:
    """#define PERSON followed by a comment (even one running on) is switched off and compiles."""
    src = tmp_path / "mycodes.c"
    text = (ROOT / "c_src" / "mycodes.c").read_text()
    src.write_text(text.replace("//#define PERSON", "#define PERSON /* manual play:\n   remove this line */", 1))
    warnings: list[str] = []
    s = make_strategy(f"{src}:1", warn=warnings.append)
    result = play_match([Seating("p", "c", s), Seating("b", "basic", Basic())], 6, 2)  # type: ignore[arg-type]
    assert result.rounds > 0 and len(warnings) == 1 and "PERSON" in warnings[0]


def test_person_warning_once_per_file_at_the_command_line() -> None:
    """A PERSON file at two seats warns once."""
    spec = str(STUDENTS / "person_on.c")
    r = subprocess.run(CLI + ["match", "-p", spec + ":1", "-p", spec + ":2", "--seed", "3"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and r.stderr.count("PERSON") == 1, r.stderr


def test_sets_of_one_file_share_its_output_file(tmp_path: Path) -> None:
    """Two function sets of one file print into one file per match, as one program's stdout."""
    a = c_player("person_on", 1, capture_dir=tmp_path / "new" / "dir")
    b = c_player("person_on", 2, capture_dir=tmp_path / "new" / "dir")
    play_match([Seating("a", "p1", a), Seating("b", "p2", b)], 6, 3)  # type: ignore[arg-type]
    files = sorted((tmp_path / "new" / "dir").iterdir())
    assert len(files) == 1
    text = files[0].read_text()
    assert "first_action1:" in text and "first_action2:" in text


@pytest.mark.slow
def test_match_writes_c_output_to_the_default_folder(tmp_path: Path) -> None:
    """Without --output-dir a C player's printing goes to a per-match file under the cache, not the terminal."""
    import os

    from tests.handins import with_verdict

    env = dict(os.environ, TWENTYONE_CACHE=str(with_verdict(tmp_path / "cache")))
    r = subprocess.run(CLI + ["match", "-p", str(STUDENTS / "person_on.c"), "-p", "basic"], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0 and "first_action1" not in r.stdout
    (out,) = (tmp_path / "cache" / "output").glob("match-*-seed1/person_on-set1-match1.out")  # a folder a run
    assert "first_action1:" in out.read_text() and str(out) in r.stdout


def test_unwritable_output_folder_is_one_line(tmp_path: Path) -> None:
    """An output folder that cannot be made is one clear line."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = subprocess.run(CLI + ["match", "-p", str(STUDENTS / "basic.c"), "--output-dir", str(blocker / "sub")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cannot make the output folder" in r.stderr and "Traceback" not in r.stderr


def test_text_that_is_not_c_is_one_line(tmp_path: Path) -> None:
    """A Python file named .c is refused in one line, before the compiler prints pages."""
    src = tmp_path / "strategy.c"
    src.write_text((ROOT / "mycodes" / "mycodes.py").read_text())
    r = subprocess.run(CLI + ["match", "-p", str(src)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "is not C source" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_struct_writes_change_nothing_in_process() -> None:
    """In process too, a file writing account = 1000000 into its Player copy gains nothing."""
    s = make_strategy(f"{HOSTILE / 'write_account.c'}:1", warn=lambda m: None)
    result = play_match([Seating("w", "write", s), Seating("b", "basic", Basic())], 6, 5)
    assert all(st.account < 5000 for st in result.ranking)


def test_python_person_switch_is_turned_off(tmp_path: Path) -> None:
    """A Python copy of mycodes.py with PERSON = True plays automatically, with one warning."""
    src = tmp_path / "mine.py"
    src.write_text((ROOT / "mycodes" / "mycodes.py").read_text().replace("PERSON = False", "PERSON = True", 1))
    warnings: list[str] = []
    s = make_strategy(f"{src}:2", warn=warnings.append)
    result = play_match([Seating("a", "x", Basic()), Seating("m", "mine", s)], 6, 4)
    assert result.rounds > 0 and len(warnings) == 1 and "PERSON" in warnings[0]


def test_python_person_switch_is_named_when_sandboxed(tmp_path: Path) -> None:
    """Sandboxed (the default), the file runs only in its box, where a warning reached nobody: the PERSON note
    comes from its text, once, to the match and to the grade's check alike; PERSON = False gives none."""
    from twentyone.players.sandbox.limits import Limits
    from twentyone.players.spec import check_file
    from twentyone.players.files.intake import SourceKind

    text = (ROOT / "mycodes" / "mycodes.py").read_text(encoding="utf-8")
    on, off = tmp_path / "on.py", tmp_path / "off.py"
    on.write_text(text.replace("PERSON = False", "PERSON = True", 1), encoding="utf-8")
    off.write_text(text, encoding="utf-8")
    for path, expected in ((on, 1), (off, 0)):
        warnings: list[str] = []
        s = make_strategy(f"{path}:2", warn=warnings.append, sandbox=Limits())
        try:
            result = play_match([Seating("a", "x", Basic()), Seating("m", "mine", s)], 6, 4)
        finally:
            s.close()
        assert result.rounds > 0 and [w for w in warnings if "PERSON is on" in w] == warnings
        assert len(warnings) == expected
        checked: list[str] = []
        check_file(path, SourceKind.PY, 2, checked.append, Limits())
        assert checked == warnings


# -- a student's file sees what the course's Windows compilers show it ------------------------------------------

#: Globals that are legal C on Windows (MinGW, MSVC) and that glibc declares as functions: index and random under
#: -std=gnu99 (_DEFAULT_SOURCE), pause, link and sleep through <unistd.h>.
GLIBC_NAMES = ("index", "random", "pause", "link", "sleep")


@pytest.mark.parametrize("sandboxed", [False, True], ids=["trusted", "sandboxed"])
def test_globals_named_like_glibc_functions_compile_and_play(sandboxed: bool, tmp_path: Path,
                                                              request: pytest.FixtureRequest) -> None:
    """A file with globals index, random, pause, link and sleep (and windows.h) compiles, as on Windows, and
    plays legal matches at every seat, in process and in the sandbox."""
    from twentyone.players.sandbox.limits import Limits

    text = (STUDENTS / "glibc_names.c").read_text(encoding="utf-8")
    assert all(re.search(rf"^int {name}\b", text, re.M) for name in GLIBC_NAMES)
    if sandboxed:
        request.getfixturevalue("seccomp")
    kw = {"sandbox": Limits(), "capture_dir": tmp_path / "printed"} if sandboxed else {}
    players = [c_player("glibc_names", k, **kw) for k in range(1, 6)]
    try:
        seats = [Seating(f"p{k}", f"glibc_names:{k}", s) for k, s in enumerate(players, 1)]  # type: ignore[arg-type]
        for seed in (1, 2):
            r = play_match(seats, 6, seed)
            assert r.rounds >= 20 and all(s.fault is None and s.fouls == 0 for s in r.ranking), r
    finally:
        for s in players:
            getattr(s, "close", lambda: None)()


@pytest.mark.parametrize("sandboxed", [False, True], ids=["trusted", "sandboxed"])
def test_windows_habits_compile_and_play(sandboxed: bool, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A file written on Windows: ``#include "MyCodes.h"``, ``<Windows.h>`` and ``<Conio.h>`` in the case
    Visual Studio suggests, CRLF ends and a ^Z after the last line: it compiles (it did not: "MyCodes.h: No
    such file") and plays the same legal matches as the clean file it came from."""
    from twentyone.players.c.source import windows_habits
    from twentyone.players.sandbox.limits import Limits

    raw = (STUDENTS / "windows_habits.c").read_bytes()
    assert raw.endswith(b"\x1a") and b'#include "MyCodes.h"' in raw and b"#include <Windows.h>" in raw
    fixed = windows_habits(raw.replace(b"\r\n", b"\n"))
    assert b'#include "mycodes.h"' in fixed and b"#include <windows.h>" in fixed and b"\x1a" not in fixed
    assert windows_habits(b'#include "Other.h"\n') == b'#include "Other.h"\n'  # not a course header: as written
    if sandboxed:
        request.getfixturevalue("seccomp")
    kw = {"sandbox": Limits(), "capture_dir": tmp_path / "printed"} if sandboxed else {}
    windows, clean = c_player("windows_habits", 1, **kw), c_player("basic", 1, **kw)
    try:
        for seed in (1, 2):
            a = play_match([Seating("w", "windows", windows), Seating("s", "stand", Stand())], 6, seed)  # type: ignore[arg-type]
            b = play_match([Seating("w", "windows", clean), Seating("s", "stand", Stand())], 6, seed)  # type: ignore[arg-type]
            assert a.rounds >= 20 and a.by_seat(1).fault is None and a.by_seat(1).fouls == 0
            assert [(p.account, p.rounds) for p in a.ranking] == [(p.account, p.rounds) for p in b.ranking]
    finally:
        for s in (windows, clean):
            getattr(s, "close", lambda: None)()


@pytest.mark.parametrize("sandboxed", [False, True], ids=["trusted", "sandboxed"])
def test_a_visual_studio_file_with_secure_functions_plays(sandboxed: bool, tmp_path: Path,
                                                          request: pytest.FixtureRequest) -> None:
    """A file written in Visual Studio, with sprintf_s, strcpy_s and scanf_s in its functions, compiles (it did
    not link: "undefined reference to strcpy_s") and plays legal matches at every seat."""
    from twentyone.players.sandbox.limits import Limits

    text = (STUDENTS / "vs_secure.c").read_text(encoding="utf-8")
    assert all(f"{name}(" in text for name in ("sprintf_s", "strcpy_s", "scanf_s"))
    if sandboxed:
        request.getfixturevalue("seccomp")
    kw = {"sandbox": Limits(), "capture_dir": tmp_path / "printed"} if sandboxed else {}
    players = [c_player("vs_secure", k, **kw) for k in (1, 2)]
    try:
        r = play_match([Seating(f"p{k}", f"vs_secure:{k}", s) for k, s in enumerate(players, 1)], 6, 3)  # type: ignore[arg-type]
        assert r.rounds >= 20 and all(s.fault is None and s.fouls == 0 for s in r.ranking), r
    finally:
        for s in players:
            getattr(s, "close", lambda: None)()


def test_the_c_programs_copies_keep_no_windows_habit(tmp_path: Path) -> None:
    """make c-program's two copies of a Windows-written file (manual.c for play by hand, auto.c for the seeded
    runs) both include the headers as they are named here and end without the ^Z."""
    from twentyone.players.c.program import prepare_program

    prepare_program(STUDENTS / "windows_habits.c", tmp_path)
    for copy in ("manual.c", "auto.c"):
        text = (tmp_path / copy).read_bytes()
        assert b'#include "mycodes.h"' in text and b"#include <windows.h>" in text and b"#include <conio.h>" in text
        assert b"\x1a" not in text and b"MyCodes" not in text


def test_the_students_file_sees_c_and_posix_names_only(tmp_path: Path) -> None:
    """The student's C file is compiled with C99's and POSIX's names (strdup, fdopen declared: their addresses
    can be taken) and none of glibc's own or <unistd.h>'s; a Linux-only name ``unix`` is no macro."""
    body = "".join(f"int {name};\n" for name in (*GLIBC_NAMES, "bzero", "y0", "unix", "linux"))
    body += ("static char *(*dup)(const char *) = strdup;\n"
             "static FILE *(*fd)(int, const char *) = fdopen;\n")
    src = tmp_path / "names.c"
    src.write_text('#include "mycodes.h"\n#include <windows.h>\n#include <math.h>\n#include <ctype.h>\n' + body +
                   "int bet1(int N) { index++; return dup != 0 && fd != 0 ? 10 : 20; }\n"
                   "char first_action1(char *t, int n) { return 's'; }\n"
                   "char continue_action1(Player (*p)[]) { return 's'; }\n"
                   "void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}\n")
    s = make_strategy(f"{src}:1", warn=lambda m: None)
    assert s.functions.bet(6) == 10  # type: ignore[attr-defined]
    # and exactly so: the same file with glibc's names does not compile
    from twentyone.players.c.build import FLAGS, STUDENT_C_FLAGS

    inc = ROOT / "c_src"
    base = ["gcc", "-fsyntax-only", *FLAGS, "-include", str(inc / "bridge" / "tw_capture.h"), f"-I{inc}",
            f"-I{inc / 'compat'}", str(src)]
    assert subprocess.run([*base[:2], *STUDENT_C_FLAGS, *base[2:]], capture_output=True).returncode == 0
    assert subprocess.run([*base[:2], "-D_GNU_SOURCE", *base[2:]], capture_output=True).returncode != 0


def test_the_compat_headers_include_only_standard_c(tmp_path: Path) -> None:
    """conio.h and windows.h (with the course's headers) bring in no POSIX header: the key reader and the sleep
    that need <termios.h> and <unistd.h> are tw_compat.c."""
    src = tmp_path / "h.c"
    src.write_text('#include "mycodes.h"\n#include <windows.h>\n#include <conio.h>\n')
    for captured in ([], ["-include", str(ROOT / "c_src" / "bridge" / "tw_capture.h")]):
        deps = subprocess.run(["gcc", "-M", "-std=gnu99", *captured, f"-I{ROOT / 'c_src'}",
                               f"-I{ROOT / 'c_src' / 'compat'}", str(src)],
                              capture_output=True, text=True, check=True).stdout
        assert "compat/conio.h" in deps and "compat/windows.h" in deps
        for posix in ("unistd.h", "termios.h"):
            assert f"/{posix}" not in deps, (posix, captured)


@pytest.mark.slow
def test_a_file_that_needs_glibcs_names_still_compiles(tmp_path: Path) -> None:
    """A file that uses names only glibc's defaults declare (M_PI, MAP_ANONYMOUS) compiles as it did before (the
    build falls back to all of glibc's names); so does one that asks for them with #define _GNU_SOURCE."""
    tail = ("char first_action1(char *t, int n) { return 's'; }\n"
            "char continue_action1(Player (*p)[]) { return 's'; }\n"
            "void show1(Banker *b, Player (*p)[], int pNum, int N, int pos) {}\n")
    uses = tmp_path / "uses.c"
    uses.write_text('#include "mycodes.h"\n#include <math.h>\n#include <sys/mman.h>\n'
                    "int bet1(int N) { void *p = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
                    "  return p != MAP_FAILED && M_PI > 3 ? 10 : 20; }\n" + tail)
    asks = tmp_path / "asks.c"
    asks.write_text('#include "mycodes.h"\n#define _GNU_SOURCE\n'
                    "static char *(*find)(const char *, const char *) = strcasestr;\n"
                    'int bet1(int N) { return find("ABC", "b") ? 10 : 20; }\n' + tail)
    for src in (uses, asks):
        s = make_strategy(f"{src}:1", warn=lambda m: None)
        assert s.functions.bet(6) == 10, src  # type: ignore[attr-defined]


def test_build_name_covers_the_students_flags_and_tw_compat(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """New flags for the student's file, or a changed tw_compat.c, give a new module name: no build made with the
    old ones (index redeclared, a sleeping Sleep) is taken from the cache."""
    import shutil

    import twentyone.players.c.build as cp

    base = module_name(b"int x;")
    monkeypatch.setattr(cp, "STUDENT_C_FLAGS", ())
    assert module_name(b"int x;") != base
    monkeypatch.undo()
    copy = tmp_path / "c_src"
    shutil.copytree(ROOT / "c_src", copy)
    monkeypatch.setattr(cp, "C_SRC", copy)
    monkeypatch.setattr(cp, "BRIDGE", copy / "bridge")
    before = cp._inputs_digest()
    with open(copy / "compat" / "tw_compat.c", "a", encoding="utf-8") as f:
        f.write("/* changed */\n")
    assert cp._inputs_digest() != before


@pytest.mark.timeout(150)
@pytest.mark.parametrize("sandboxed", [False, True], ids=["trusted", "sandboxed"])
def test_sleep_in_show_costs_no_time_in_a_match(sandboxed: bool, tmp_path: Path, request: pytest.FixtureRequest
                                                ) -> None:
    """Sleep(1000) in show (pacing for a person watching) returns at once when the engine plays the file: a match
    of two such seats ends in well under the time its sleeps would take, with no time-out."""
    import time

    from twentyone.players.sandbox.limits import Limits

    if sandboxed:
        request.getfixturevalue("seccomp")
    kw = {"sandbox": Limits(), "capture_dir": tmp_path / "printed"} if sandboxed else {}
    players = [c_player("sleep_show", k, **kw) for k in (1, 2)]
    try:
        seats = [Seating(f"p{k}", f"sleep_show:{k}", s) for k, s in enumerate(players, 1)]  # type: ignore[arg-type]
        play_match(seats, 6, 1)  # warm up: the sandbox's first box and the module are ready
        start = time.monotonic()
        r = play_match(seats, 6, 2)
        took = time.monotonic() - start
    finally:
        for s in players:
            getattr(s, "close", lambda: None)()
    assert all(s.fault is None for s in r.ranking), r
    shows = sum(s.rounds for s in r.ranking)  # one show per seat per round played, a second of sleep each
    # Sleeping, the match would take `shows` seconds (about 200: two seats, 100 rounds).  A match of two quick
    # seats takes well under a second in process and a few in the sandbox, even on a busy 2-core machine: 20 s
    # leaves ample room, and is still a tenth of the sleeps.
    assert shows >= 100, r
    assert took < 20, f"{took:.1f} s for a match with {shows} Sleep(1000) calls"


def _compat_program(tmp_path: Path, body: str, captured: bool) -> Path:
    """A small program using the stand-in headers, linked with tw_compat.c (as make c-program links it); with
    ``captured``, tw_capture.h force-included as the engine compiles a student's file."""
    src, exe = tmp_path / "p.c", tmp_path / ("captured" if captured else "plain")
    src.write_text('#include <windows.h>\n#include <conio.h>\n' + body)
    c = ROOT / "c_src"
    inc = [f"-I{c}", f"-I{c / 'compat'}", f"-I{c / 'bridge'}"]
    force = ["-include", str(c / "bridge" / "tw_capture.h")] if captured else []
    obj = tmp_path / "p.o"
    subprocess.run(["gcc", "-c", "-std=gnu99", "-D_POSIX_C_SOURCE=200809L", *inc, *force, str(src), "-o", str(obj)],
                   check=True)
    subprocess.run(["gcc", "-std=gnu99", *inc, str(obj), str(c / "compat" / "tw_compat.c"),
                    *([str(c / "bridge" / "tw_capture.c")] if captured else []), "-o", str(exe)], check=True)
    return exe


def test_sleep_sleeps_for_a_person_and_not_when_captured(tmp_path: Path) -> None:
    """In the course's C program (not captured) Sleep(300) still waits 0.3 s; captured, Sleep(5000) returns at
    once."""
    import time

    body = "int main(void) { Sleep(%d); return 0; }\n"
    plain = _compat_program(tmp_path, body % 300, captured=False)
    start = time.monotonic()
    subprocess.run([str(plain)], check=True, timeout=30)
    assert time.monotonic() - start >= 0.3
    captured = _compat_program(tmp_path, body % 5000, captured=True)
    start = time.monotonic()
    subprocess.run([str(captured)], check=True, timeout=30)
    assert time.monotonic() - start < 2.5


def test_getche_from_tw_compat_skips_line_ends(tmp_path: Path) -> None:
    """getch()/getche() read by tw_compat.c: from a pipe, the next key that is not a line end (the newline a
    scanf left behind is never read as the key)."""
    exe = _compat_program(tmp_path, 'int main(void) { int n; scanf("%d", &n); int a = getche(); int b = getch();\n'
                                    '  fprintf(stderr, "[%d %c %c]", n, a, b); return 0; }\n', captured=False)
    r = subprocess.run([str(exe)], input="42\nh\r\ns", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stderr == "[42 h s]", r.stderr


def test_visual_studios_secure_functions_stand_in(tmp_path: Path) -> None:
    """scanf_s, sprintf_s, strcpy_s, strncpy_s, strcat_s and gets_s (Visual Studio refuses scanf and strcpy, so
    students use these) link and work as on Windows in the course's C program: a %s or %c takes its buffer's
    size from the arguments and reads no more; captured by the engine they read end-of-file."""
    body = r"""
int main(void) {
    int n = 0, m = 0; char w[4] = "", v[4] = "", c = 0, line[8] = "", buf[16], cat[8] = "ab";
    int got = scanf_s("%d %s%*d %c,%d", &n, w, (unsigned)sizeof w, &c, 1, &m);
    gets_s(line, sizeof line);
    int more = scanf_s("%s", v, (unsigned)sizeof v);
    sprintf_s(buf, sizeof buf, "%d-%s", n, w);
    int r1 = strcpy_s(cat + 2, 6, "cd"), r2 = strcat_s(cat, sizeof cat, "efghij"), r3 = strncpy_s(line, 3, "xyz", 2);
    printf("%d|%d|%s|%c|%d|%d|%s|%s|%d %d %d|%s|\n", got, n, w, c, m, more, v, buf, r1, r2, r3, line);
    return 0;
}
"""
    plain = _compat_program(tmp_path, body, captured=False)
    out = subprocess.run([str(plain)], input="42 abc 7 Z,9 rest\ntoolong\n", capture_output=True, text=True,
                         timeout=30, check=True).stdout
    # four assigned (%*d skips the 7); the rest of the line goes to gets_s; "toolong" fills v[4] with "too";
    # strcat_s past the buffer empties it and says ERANGE (34), as Microsoft's does
    assert out == "4|42|abc|Z|9|1|too|42-abc|0 34 0|xy|\n", out
    captured = _compat_program(tmp_path, body, captured=True)
    done = subprocess.run([str(captured)], input="42 abc\n", capture_output=True, text=True, timeout=30)
    assert done.returncode == 0
