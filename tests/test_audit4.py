"""Sandbox v3's fifth hostile audit (issue 32, "Done when: ... a fresh hostile audit"): routes a clever student who
has read the project's source takes, as hand-ins (tests/fixtures/audit4/) run through the real command line or the
real grading API.  Each test asserts the safe behaviour, so it fails while its route is open (all fail on main as
this audit found it; ``twentyone doctor`` said "every layer held alone and every probe held (29)"):

- code before confinement: an initialiser in a section the build misreads (``.init_array.00100=x``: objcopy splits
  ``--rename-section OLD=NEW`` at the first ``=``; ``.init_array.1 x``: the build takes one word of readelf's
  listing for the name) is not moved, and the linker runs it from ``.init_array`` before the box program's
  ``main`` confines anything: it writes a file of the grader's, as root or as the grader's user, from a course
  hand-in and from a judge solution;
- a program the build never saw: a mycodes.c carrying, in top-level asm, the .gnu.lto_* sections of a program
  compiled elsewhere with -flto: gcc's linker plugin claims the object at the final link, drops the native code
  the build checked and compiles the bytecode instead (its constructors run before ``main``, its names stay
  global);
- memory past the limit: a program's own 1.5 GiB ``.bss`` is mapped by ``execve`` before the box lowers
  ``RLIMIT_AS`` to 1 GiB, and the box fills it;
- identical copies that are not: ``grade`` plays a Python hand-in once for every file with the same tokens
  (comments aside), but the box compiles another text than the tokens were read from (the file's coding line is
  obeyed by ``tokenize`` and ignored by the box), and a strategy reads its own comments from the frames that run it;
  either way one student's matches, faults and all, are stored as another's;
- a mulligan: a time-out on the box's own CPU clock is replayed alone and, unless the replay times out at the same
  round, thrown away for the replay's result: a hand-in takes one when its match (or a rival's, at its table) goes
  badly;
- the grader's folders: a Python box sees its file's absolute path on the grader's disk (``__file__``).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from tests.conftest import OrdinaryUser
from tests.escape_helpers import run

pytestmark = pytest.mark.slow  # every test runs the command line or a grade end to end

AUDIT = Path(__file__).resolve().parent / "fixtures" / "audit4"


def _folder(user: OrdinaryUser | None, tmp: Path) -> Path:
    if user is None:
        folder = tmp / f"hand-in-{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        os.chmod(folder, 0o777)
        return folder
    return user.folder(f"hand-in-{uuid.uuid4().hex[:8]}")


def _command(user: OrdinaryUser | None, tmp: Path, args: list[str], timeout: float = 300) -> tuple[int | None, str,
                                                                                                    str]:
    """``twentyone ARGS`` as ``user`` (None: root): (exit status, stdout, stderr)."""
    if user is None:
        r = run(args, tmp, cwd=tmp, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    got = user.run(args, tmp, timeout=timeout)
    return got.returncode, got.stdout, got.stderr


# -- code before confinement ----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("seccomp")
@pytest.mark.parametrize(("fixture", "section"), [("early_ctor.c", ".init_array.00100=x"),
                                                  ("early_ctor.c", ".ctors.00100=x"),
                                                  ("early_ctor_asm.c", ".init_array.1 x")])
@pytest.mark.parametrize("who", ["root", "user"])
def test_an_initialiser_in_a_section_the_build_misreads_runs_only_once_confined(
        who: str, fixture: str, section: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A C hand-in whose constructor sits in a section named ``.init_array.00100=x`` (or ``.ctors.00100=x``, or, by
    top-level asm, ``.init_array.1 x``, which readelf's listing shows as two words) creates no file of the
    grader's: its initialiser runs once the box is confined (and fails there), or the build refuses it.  objcopy
    took ``--rename-section .init_array.00100=x=tw_init_array`` as renaming a section ``.init_array.00100`` (and the
    build read ``.init_array.1`` off the listing); the linker put the real one in ``.init_array``, and glibc ran it
    before main(): the constructor wrote the file, unconfined, as root or as the grader's user."""
    user = request.getfixturevalue("ordinary_user") if who == "user" else None
    folder = _folder(user, tmp_path)
    mark = folder / "written-before-confinement"
    text = (f'#define MARK "{mark}"\n#define SECTION "{section}"\n' + (AUDIT / fixture).read_text())
    path = folder / "mycodes.c"
    path.write_text(text)
    os.chmod(path, 0o644)
    code, out, err = _command(user, tmp_path, ["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json"])
    assert not mark.exists(), f"the constructor ran before confinement and wrote {mark}: {mark.read_text()!r}"
    assert "Traceback" not in err, err[-2000:]
    assert code in (0, 1, 2), (code, err[-2000:])


@pytest.mark.usefixtures("seccomp")
def test_a_judge_solution_initialiser_in_a_section_the_build_misreads_runs_only_once_confined(
        tmp_path: Path) -> None:
    """The same route from a judge solution (C++): its constructor in ``.init_array.00100=x`` creates no file of the
    grader's.  It ran before the judge's box was confined and wrote the file."""
    folder = _folder(None, tmp_path)
    mark = folder / "written-before-confinement"
    text = (f'#define MARK "{mark}"\n#define SECTION ".init_array.00100=x"\n'
            + (AUDIT / "early_ctor_judge.cpp").read_text())
    path = folder / "early_ctor_judge.cpp"
    path.write_text(text)
    r = run(["judge", str(path), "--tests", "1", "--seed", "5", "--json"], tmp_path, cwd=tmp_path, timeout=300)
    assert not mark.exists(), f"the constructor ran before confinement and wrote {mark}: {mark.read_text()!r}"
    assert "Traceback" not in r.stderr, r.stderr[-2000:]


# -- identical copies that are not ----------------------------------------------------------------------------------
def _grade(tmp_path: Path, files: dict[str, bytes]) -> dict[str, list[str | None]]:
    """Grade one Python hand-in per name (through the real grading API, sandboxed); each name's faults, one per
    seat it held in a stored match."""
    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import config_from_dict
    from twentyone.grading.store import Store

    folders = []
    for name, data in files.items():
        d = tmp_path / name
        d.mkdir()
        (d / f"{name}.py").write_bytes(data)
        folders.append(d)
    config = config_from_dict({"seed": 7, "legal": {"matches": 2},
                               "beat_stand": {"batch": 4, "min_matches": 4, "max_matches": 4},
                               "beat_basic": {"batch": 4, "min_matches": 4, "max_matches": 4},
                               "tournament": {"matches": 3, "max_matches": 3}, "similarity": {"traces": 0}})
    grade(folders, config, tmp_path / "out", False, Execution(progress=False, warn=lambda m: None))
    with Store.open(tmp_path / "out") as store:
        rows = list(store.matches())
    faults: dict[str, list[str | None]] = {name: [] for name in files}
    for r in rows:
        for i, seated in enumerate(r.names):
            if seated in faults:
                faults[seated].append(r.outcome.faults[i])
    return faults


@pytest.mark.usefixtures("seccomp")
def test_python_copies_are_found_by_the_text_the_box_runs(tmp_path: Path) -> None:
    """Two ``.py`` hand-ins with the same tokens by ``tokenize`` (which obeys each file's coding line: latin-1 and
    UTF-8), whose texts, as the box decodes them (UTF-8 first, the coding line ignored), differ: the one that raises
    in bet1 is charged in its own matches and the other is not.  ``grade`` took them for identical copies and stored
    the first one's matches, faults and all, as the other's."""
    import io
    import tokenize

    from twentyone.players.files.python import _text

    latin, utf8 = (AUDIT / "cookie_latin1.py").read_bytes(), (AUDIT / "cookie_utf8.py").read_bytes()

    def tokens(raw: bytes) -> list[tuple[int, str, tuple[int, int]]]:
        return [(t.type, t.string, t.start) for t in tokenize.tokenize(io.BytesIO(raw).readline)
                if t.type not in (tokenize.COMMENT, tokenize.ENCODING)]

    assert tokens(latin) == tokens(utf8) and _text(latin) != _text(utf8)  # the route's premise: the fixtures hold
    faults = _grade(tmp_path, {"li": latin, "wang": utf8})
    assert faults["li"] and faults["wang"], faults
    assert any(f is not None for f in faults["li"]), f"li's file raises in every bet1 in its box: {faults['li']}"
    assert all(f is None for f in faults["wang"]), f"wang's file never faults, yet was charged: {faults['wang']}"


@pytest.mark.usefixtures("seccomp")
def test_python_copies_apart_only_by_a_comment_the_strategy_reads_play_apart(tmp_path: Path) -> None:
    """Two ``.py`` hand-ins apart only by a comment of the same length, one of which reads its own text (comments
    included) from the frames that run it and raises when its comment says so: it is charged, the other is not.
    ``grade`` took them for identical copies (tokens without comments) and stored one's matches as the other's."""
    plain = (AUDIT / "comment_reader.py").read_bytes()
    assert plain.count(b"# plain\n") == 1
    marked = plain.replace(b"# plain\n", b"# TANK!\n")
    faults = _grade(tmp_path, {"li": marked, "wang": plain})
    assert faults["li"] and faults["wang"], faults
    assert any(f is not None for f in faults["li"]), f"li's file raises in every bet1: {faults['li']}"
    assert all(f is None for f in faults["wang"]), f"wang's file never faults, yet was charged: {faults['wang']}"



# -- a mulligan -------------------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("seccomp")
def test_a_time_out_on_the_boxs_own_cpu_clock_is_not_played_again(tmp_path: Path) -> None:
    """A ``.py`` hand-in that, in half of its boxes, spins past the decision's CPU limit at a round it draws (1..20):
    every match in which it did so stays charged to it.  ``grade`` replayed each such match alone and, as the replay
    seldom timed out at the same round, kept the replay's result instead: about half the time a clean match, so a
    hand-in can throw away a match it is losing (a rival's too, at a tournament's table)."""
    from twentyone.grading.commands import Execution, grade
    from twentyone.grading.config import config_from_dict
    from twentyone.grading.store import Store

    d = tmp_path / "li"
    d.mkdir()
    (d / "li.py").write_bytes((AUDIT / "reroll.py").read_bytes())
    config = config_from_dict({"seed": 7, "legal": {"matches": 4},
                               "beat_stand": {"batch": 8, "min_matches": 16, "max_matches": 16},
                               "beat_basic": {"batch": 8, "min_matches": 16, "max_matches": 16},
                               "tournament": {"matches": 2, "max_matches": 2}, "similarity": {"traces": 0}})
    grade([d], config, tmp_path / "out", False, Execution(progress=False, warn=lambda m: None))
    with Store.open(tmp_path / "out") as store:
        rows = [r for r in store.matches() if "li" in r.names]
    mine = [(r.outcome.replay, r.outcome.faults[r.names.index("li")]) for r in rows]
    assert any(fault is not None for _, fault in mine), mine  # it did time out
    thrown = [(replay, fault) for replay, fault in mine if replay == "cleared" and fault is None]
    assert not thrown, f"{len(thrown)} matches in which it timed out were played again and kept clean: {mine}"



def _lto_hand_in(home: Path, mark: Path, folder: Path) -> Path:
    """The hand-in of the LTO route: ``home`` compiled with -flto for this host's gcc (the student's step, at home),
    its .gnu.lto_* sections' bytes as top-level asm in a mycodes.c that also defines set 1 in C."""
    import re
    import subprocess

    c_src = Path(__file__).resolve().parents[1] / "c_src"
    obj = folder / "home.o"
    subprocess.run(["gcc", "-flto", "-fPIC", "-O1", "-c", f"-DMARK=\"{mark}\"", f"-I{c_src}", f"-I{c_src / 'compat'}",
                    f"-I{c_src / 'bridge'}", f"-I{c_src / 'box'}", "-include", "tw_capture.h", str(home), "-o",
                    str(obj)], check=True, capture_output=True)
    data = obj.read_bytes()
    listing = subprocess.run(["readelf", "-SW", str(obj)], check=True, capture_output=True, text=True).stdout
    asm = []
    for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\.gnu\.lto_\S+)\s+PROGBITS\s+\S+\s+(\S+)\s+(\S+)", listing, re.M):
        name, offset, size = m.group(1), int(m.group(2), 16), int(m.group(3), 16)
        asm.append(f'.pushsection {name},"e",@progbits')
        chunk = data[offset:offset + size]
        asm += [".byte " + ",".join(str(b) for b in chunk[i:i + 32]) for i in range(0, len(chunk), 32)]
        asm.append(".popsection")
    assert asm, listing
    asm.append(".comm __gnu_lto_slim,1,1")
    obj.unlink()
    text = ('#include "mycodes.h"\n'
            "int bet1(int N) { return 10; }\n"
            "char first_action1(char* tmpcards, int len) { return 's'; }\n"
            "char continue_action1(Player(*players)[]) { return 's'; }\n"
            "void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) {}\n"
            "__asm__(" + "\n".join('"' + line.replace('"', '\\"') + '\\n"' for line in asm) + ");\n")
    path = folder / "mycodes.c"
    path.write_text(text)
    os.chmod(path, 0o644)
    return path


@pytest.mark.usefixtures("seccomp")
@pytest.mark.parametrize("who", ["root", "user"])
def test_a_program_of_embedded_lto_bytecode_is_not_linked_unchecked(who: str, tmp_path: Path,
                                                                    request: pytest.FixtureRequest) -> None:
    """A mycodes.c that carries, in top-level asm, the .gnu.lto_* sections of a program compiled elsewhere with
    -flto (the course's files, the function sets and a constructor: lto_home.c) creates no file of the grader's:
    the build refuses it, or links only the code it checked.  gcc's linker plugin claimed the object at the final
    link, dropped its checked native code and compiled the bytecode instead, and its constructor ran from
    .init_array before main(), unconfined."""
    user = request.getfixturevalue("ordinary_user") if who == "user" else None
    folder = _folder(user, tmp_path)
    mark = folder / "written-before-confinement"
    path = _lto_hand_in(AUDIT / "lto_home.c", mark, folder)
    code, out, err = _command(user, tmp_path, ["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json"])
    assert not mark.exists(), f"the constructor ran before confinement and wrote {mark}: {mark.read_text()!r}"
    assert "Traceback" not in err, err[-2000:]

# -- memory past the limit ------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("seccomp")
def test_a_program_whose_own_bss_is_past_the_memory_limit_cannot_use_it(tmp_path: Path) -> None:
    """A C hand-in with a 1.5 GiB static array, which it fills in its first bet, never gets to fill it under the
    box's 1 GiB memory limit: the box or the build refuses it, or it faults.  RLIMIT_AS is set after execve has
    mapped the program's .bss, and a limit below what is mapped takes nothing away: the box filled 1.5 GiB and played
    its match to the end without a fault (as much as the host's overcommit lets execve map: the OOM killer's)."""
    folder = _folder(None, tmp_path)
    path = folder / "mycodes.c"
    path.write_text((AUDIT / "big_bss.c").read_text())
    out_dir = folder / "printed"
    code, out, err = _command(None, tmp_path, ["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json",
                                               "--output-dir", str(out_dir)])
    assert "Traceback" not in err, err[-2000:]
    printed = "".join(p.read_text(errors="replace") for p in out_dir.rglob("*.out"))
    assert "touched" not in printed, f"the box filled 1.5 GiB under its 1 GiB limit: {printed!r} (exit {code})"


# -- the grader's folders -------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("seccomp")
def test_a_python_box_does_not_see_where_the_grader_keeps_the_file(tmp_path: Path) -> None:
    """A ``.py`` hand-in that puts its ``__file__`` in its fault text shows no folder of the grader's: a compiled box
    sees its file as ``./mycodes.c`` (the build names its folder "."), and a Python box should see no more.  It saw
    the absolute path of the hand-in on the grader's disk (the folders above it name the student and the grader's
    layout, and let token-identical copies tell themselves apart: RULES.md grade_copies)."""
    folder = _folder(None, tmp_path) / "li"
    folder.mkdir()
    path = folder / "mycodes.py"
    path.write_text((AUDIT / "where_am_i.py").read_text())
    code, out, err = _command(None, tmp_path, ["match", "-p", str(path), "-p", "stand", "--seed", "3", "--json"])
    assert code == 0, err[-2000:]
    me = next(s for s in json.loads(out)["ranking"] if s["seat"] == 1)
    assert me["fault"] == "error" and "I run as" in (me["fault_detail"] or ""), me
    assert str(folder) not in me["fault_detail"] and str(tmp_path) not in me["fault_detail"], me["fault_detail"]
