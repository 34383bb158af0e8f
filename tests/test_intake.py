"""The one intake (twentyone.players.files.intake): which file of a folder or zip is the strategy, who the student is,
how zip names and names that are not UTF-8 read, and what a zip may unpack."""

from __future__ import annotations

import os
import shutil
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.handins import FIXED_DATE, HANDINS, _RawNameInfo, mojibake, zip_folder
from twentyone.errors import PlayerSpecError
from twentyone.players.files.intake import IntakeError, SourceKind, ZipLimits, readable, student_name, take

ROOT = Path(__file__).resolve().parent.parent
BASIC_C = ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c"
C_TEXT = BASIC_C.read_bytes()


def _folder(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


# ------------------------------------------------------------------------------------------ which file

@pytest.mark.parametrize("name, kind", [("li.c", "c"), ("li.CPP", "cpp"), ("li.py", "py"), ("MYCODES.C", "c")])
def test_a_file_is_its_own_strategy(tmp_path: Path, name: str, kind: str) -> None:
    """A .c, .cpp or .py file (any case) is the strategy file, of that kind."""
    f = tmp_path / "wang" / name
    f.parent.mkdir()
    f.write_bytes(b"x")
    got = take(f)
    assert got.path == f and got.kind == SourceKind(kind) and not got.others and not got.warnings


def test_a_file_of_another_kind_is_one_line(tmp_path: Path) -> None:
    """A .txt, or a path that does not exist, is one IntakeError (a PlayerSpecError) naming it."""
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(PlayerSpecError, match=r"notes\.txt: not a \.c, \.cpp or \.py file"):
        take(tmp_path / "notes.txt")
    with pytest.raises(IntakeError, match="no such file or folder"):
        take(tmp_path / "gone")


def test_student_names() -> None:
    """A zip or folder names the student; a mycodes.* file its folder; other files themselves."""
    assert student_name(Path("subs/li_2023001.zip")) == "li_2023001"
    assert student_name(Path("subs/王五/mycodes.c")) == "王五"
    assert student_name(Path("subs/wang/")) == "wang"
    assert student_name(Path("subs/zhao qian.py")) == "zhao_qian"


def test_shallowest_mycodes_is_taken_and_the_others_named(tmp_path: Path) -> None:
    """mycodes.c at the top and two deeper copies: the top one is taken; the warning names both others."""
    root = _folder(tmp_path / "li", {"proj/mycodes.c": C_TEXT, "proj/old/mycodes.c": b"old",
                                      "proj/old/older/MyCodes.c": b"older", "proj/readme.txt": b""})
    got = take(root)
    assert got.path == root / "proj" / "mycodes.c" and got.shown == "proj/mycodes.c"
    assert got.others == ("proj/old/mycodes.c", "proj/old/older/MyCodes.c")
    (warning,) = got.warnings
    assert warning.startswith("li: graded proj/mycodes.c") and "proj/old/older/MyCodes.c" in warning


def test_two_equally_shallow_copies_are_refused_naming_both(tmp_path: Path) -> None:
    """Two mycodes.c at the same depth (a copied project folder): refused, one line naming both."""
    root = _folder(tmp_path / "li", {"21点游戏/mycodes.c": C_TEXT, "21点游戏 - 副本/mycodes.c": C_TEXT})
    with pytest.raises(IntakeError) as e:
        take(root)
    line = str(e.value)
    assert "\n" not in line and "21点游戏/mycodes.c" in line and "21点游戏 - 副本/mycodes.c" in line


def test_without_mycodes_the_one_other_c_file_then_the_one_py(tmp_path: Path) -> None:
    """No mycodes.*: the one .c besides main.c/twentyone.c; with none, the one .py; several are refused."""
    one_c = _folder(tmp_path / "a", {"main.c": b"", "twentyone.c": b"", "strategy.c": C_TEXT, "x.py": b""})
    assert take(one_c).path.name == "strategy.c"
    one_py = _folder(tmp_path / "b", {"main.c": b"", "player.py": b""})
    assert take(one_py).kind == SourceKind.PY
    with pytest.raises(IntakeError, match="several .c/.cpp files"):
        take(_folder(tmp_path / "c", {"a.c": b"", "b.cpp": b""}))
    with pytest.raises(IntakeError, match="several .py files"):
        take(_folder(tmp_path / "d", {"a.py": b"", "b.py": b""}))
    with pytest.raises(IntakeError, match="no strategy file"):
        take(_folder(tmp_path / "e", {"readme.txt": b""}))


def test_hidden_macosx_and_build_folders_are_not_looked_into(tmp_path: Path) -> None:
    """Copies under .git, __MACOSX, Debug, x64, cmake-build-debug and ._ files never count."""
    root = _folder(tmp_path / "li", {"src/mycodes.c": C_TEXT, "__MACOSX/mycodes.c": b"", ".git/mycodes.c": b"",
                                      "Debug/mycodes.c": b"", "x64/Release/mycodes.c": b"",
                                      "cmake-build-debug/mycodes.c": b"", "._mycodes.c": b""})
    got = take(root)
    assert got.shown == "src/mycodes.c" and not got.others


def test_own_headers_and_main_beside_the_file_are_reported(tmp_path: Path) -> None:
    """The student's own .h files and main.c beside mycodes.c are named (not those of other folders)."""
    got = take(HANDINS / "own_main")
    assert [h.name for h in got.headers] == ["mycodes.h"] and got.main is not None and got.main.name == "main.c"
    cpp = take(HANDINS / "cstyle_cpp")
    assert cpp.kind == SourceKind.CPP and cpp.main is not None and cpp.main.name == "main.cpp"
    assert take(HANDINS / "novice").headers == ()


def test_own_headers_that_differ_are_named_in_a_warning(tmp_path: Path) -> None:
    """An own twentyone.h with another Player layout gets one warning naming it and the field, in a folder or zip;
    the course's own headers, laid out differently (GBK comments, CRLF, other parameter names), get none."""
    got = take(HANDINS / "own_headers")
    (warning,) = got.warnings
    assert "twentyone.h" in warning and "int insured" in warning and "mycodes.h" not in warning
    zipped = take(zip_folder(HANDINS / "own_headers", tmp_path / "li.zip", cp936=True), tmp_path / "files")
    assert zipped.warnings == (warning.replace("own_headers", "li"),)
    from twentyone.grading.submissions import find_submissions

    (sub,) = find_submissions([HANDINS / "own_headers"], tmp_path / "graded")
    assert sub.notes == [warning]  # grade stores it with the submission: its page shows it
    course = (ROOT / "c_src" / "twentyone.h").read_text(encoding="utf-8")
    relaid = ("/* 课程给的头文件 */\r\n" + course.replace("pplayers", "ps").replace("    ", "\t")
              .replace("\n", "\r\n")).encode("gbk")
    same = _folder(tmp_path / "wang", {"mycodes.c": C_TEXT, "TwentyOne.h": relaid,
                                       "mycodes.h": (ROOT / "c_src" / "mycodes.h").read_bytes()})
    assert take(same).warnings == ()
    assert "declares advantage()" in take(HANDINS / "own_main").warnings[0]


# ------------------------------------------------------------------------------------------ zips

def test_cp936_zip_reads_chinese_and_unpacks_only_what_is_needed(tmp_path: Path) -> None:
    """Windows' zip tool (CP936 names, no UTF-8 flag): 21点游戏, not 21╡π╙╬╧╖; only mycodes.c is unpacked."""
    z = zip_folder(HANDINS / "cp936_project", tmp_path / "2023014.zip", cp936=True)
    got = take(z, tmp_path / "files" / "2023014")
    assert got.name == "2023014" and got.shown == "王小明/21点游戏/mycodes.c"
    assert got.others == ("王小明/21点游戏/备份/mycodes.c",)
    assert mojibake("21点游戏") not in "".join(got.warnings) and "21点游戏/备份" in got.warnings[0]
    unpacked = sorted(p.relative_to(tmp_path / "files").as_posix() for p in (tmp_path / "files").rglob("*")
                      if p.is_file())
    assert unpacked == ["2023014/王小明/21点游戏/mycodes.c"]  # not 说明.txt, not the backup
    assert got.path.read_bytes() == (HANDINS / "cp936_project" / "王小明" / "21点游戏" / "mycodes.c").read_bytes()


def test_utf8_names_without_the_flag_read_as_utf8(tmp_path: Path) -> None:
    """A zip whose UTF-8 names lack the flag (as Info-ZIP writes): 备份 stays 备份, never the GBK reading 澶囦唤."""
    z = tmp_path / "li.zip"
    with zipfile.ZipFile(z, "w") as f:
        for name, data in (("备份/mycodes.c", b"old"), ("作业/说明/mycodes.c", C_TEXT), ("mycodes.c", C_TEXT)):
            f.writestr(_RawNameInfo(name.encode("utf-8"), FIXED_DATE), data)  # the UTF-8 bytes, no flag
    with zipfile.ZipFile(z) as f:
        assert not any(i.flag_bits & 0x800 for i in f.infolist())
    got = take(z)
    assert got.shown == "mycodes.c" and got.others == ("备份/mycodes.c", "作业/说明/mycodes.c")


def test_info_zip_unicode_path_field_is_used(tmp_path: Path) -> None:
    """The Unicode Path extra field (0x7075) gives the name when its CRC matches the raw name."""
    raw = b"\xff\xfe/mycodes.c"  # neither UTF-8 nor GBK: without the field it would read as cp437
    unicode_name = "张三/mycodes.c".encode("utf-8")
    z = tmp_path / "zs.zip"
    with zipfile.ZipFile(z, "w") as f:
        info = _RawNameInfo(raw, FIXED_DATE)
        info.extra = struct.pack("<HHBI", 0x7075, 5 + len(unicode_name), 1, zlib.crc32(raw)) + unicode_name
        f.writestr(info, C_TEXT)
    assert take(z).shown == "张三/mycodes.c"


@pytest.mark.parametrize("bad", ["../evil/mycodes.c", "/etc/mycodes.c", "a/../../mycodes.c", "C:\\x\\mycodes.c",
                                 "a\\..\\..\\mycodes.c"])
def test_a_path_that_leaves_the_zip_is_refused(tmp_path: Path, bad: str) -> None:
    """An absolute, drive-letter or .. entry anywhere in the zip refuses the zip, and nothing is unpacked."""
    z = tmp_path / "x.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("ok/mycodes.c", C_TEXT)
        f.writestr(bad, C_TEXT)
    with pytest.raises(IntakeError, match="refused"):
        take(z, tmp_path / "files" / "x")
    assert not (tmp_path / "files").exists() and not (tmp_path / "evil").exists()


def test_too_many_entries_are_refused(tmp_path: Path) -> None:
    """More entries than ZipLimits.max_files: refused before anything is read."""
    z = tmp_path / "many.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("mycodes.c", C_TEXT)
        for i in range(30):
            f.writestr(f"junk/{i}.txt", b"")
    with pytest.raises(IntakeError, match="31 entries"):
        take(z, limits=ZipLimits(max_files=20))


def test_a_strategy_file_too_compressed_is_refused_before_unpacking(tmp_path: Path) -> None:
    """A mycodes.c of 20 MB of spaces (over 200:1): refused on its header; nothing written."""
    z = tmp_path / "bomb.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as f:
        f.writestr("mycodes.c", C_TEXT + b" " * (20 << 20))
    with pytest.raises(IntakeError, match=r"compressed \d+:1"):
        take(z, tmp_path / "files" / "bomb")
    assert not (tmp_path / "files" / "bomb").exists()


def test_the_total_unpacked_is_limited(tmp_path: Path) -> None:
    """The strategy file and its headers may unpack to at most max_total bytes."""
    z = tmp_path / "big.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_STORED) as f:
        f.writestr("mycodes.c", C_TEXT)
        f.writestr("mycodes.h", os.urandom(300 << 10))
    with pytest.raises(IntakeError, match="at most"):
        take(z, tmp_path / "out", limits=ZipLimits(max_total=256 << 10))
    assert take(z, tmp_path / "out").headers[0].stat().st_size == 300 << 10


def _lie_about_size(z: Path, member: str, size: int) -> None:
    """Rewrite ``member``'s uncompressed size in both its local and central headers."""
    data = bytearray(z.read_bytes())
    name = member.encode()
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = 0
        while (at := data.find(sig, at)) >= 0:
            name_at = at + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                data[at + offset:at + offset + 4] = struct.pack("<I", size)
            at += 4
    z.write_bytes(bytes(data))


def test_a_lying_header_cannot_unpack_more(tmp_path: Path) -> None:
    """A header that claims 2 KB for 8 MB of data: checked while unpacking, refused, nothing left behind."""
    z = tmp_path / "liar.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as f:
        f.writestr("mycodes.c", C_TEXT + os.urandom(4 << 20).hex().encode()[: 8 << 20])
    _lie_about_size(z, "mycodes.c", 2048)
    with zipfile.ZipFile(z) as f:
        assert f.getinfo("mycodes.c").file_size == 2048
    with pytest.raises(IntakeError, match="liar.zip"):
        take(z, tmp_path / "files" / "liar")
    assert not (tmp_path / "files" / "liar").exists()


def test_a_bomb_beside_the_strategy_is_never_unpacked(tmp_path: Path) -> None:
    """200 MB of zeros beside mycodes.c: the file is taken, the rest never decompressed, and a note says so."""
    z = tmp_path / "wang.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as f:
        f.writestr("wang/mycodes.c", C_TEXT)
        with f.open("wang/data/photo.bmp", "w", force_zip64=True) as member:
            chunk = bytes(1 << 20)
            for _ in range(200):
                member.write(chunk)
    got = take(z, tmp_path / "files" / "wang")
    assert got.shown == "wang/mycodes.c"
    size = sum(p.stat().st_size for p in (tmp_path / "files").rglob("*") if p.is_file())
    assert size == len(C_TEXT)
    assert any("200.0 MiB" in w for w in got.warnings), got.warnings


def test_a_corrupt_zip_is_one_line(tmp_path: Path) -> None:
    """A file named .zip that is not one: one line."""
    (tmp_path / "li.zip").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(IntakeError, match="not a readable zip"):
        take(tmp_path / "li.zip")


def test_a_zip_without_dest_is_unpacked_into_a_temporary_folder_removed_at_cleanup(tmp_path: Path) -> None:
    """take() without dest (match): a temporary folder, removed by cleanup() (run at exit)."""
    from twentyone.players.files.intake import cleanup

    got = take(zip_folder(HANDINS / "novice", tmp_path / "novice.zip", prefix="novice/"))
    assert got.path.is_file() and got.name == "novice"
    cleanup()
    assert not got.path.exists()


# ------------------------------------------------------------------------------------------ names that are not UTF-8

def test_readable_turns_surrogates_into_gbk_or_escapes() -> None:
    """A GBK name read by Python (surrogate escapes) reads as Chinese; bytes valid in nothing are escaped."""
    gbk = os.fsdecode("张三".encode("gbk"))
    assert readable(f"/subs/{gbk}/mycodes.c") == "/subs/张三/mycodes.c"
    junk = os.fsdecode(b"\xff\xfe\x80")
    assert readable(f"/subs/{junk}") == "/subs/\\xff\\xfe\\x80"
    assert readable("a\x07b") == "a\\x07b"
    readable(f"/subs/{gbk}/{junk}").encode("utf-8")  # never raises


def test_a_folder_that_is_not_utf8_is_copied_under_a_readable_name(tmp_path: Path) -> None:
    """A GBK folder name: the student is 张三, and with dest the file is copied to a path that is text."""
    folder = os.path.join(os.fsencode(tmp_path), "张三".encode("gbk"))
    os.mkdir(folder)
    shutil.copy(BASIC_C, os.path.join(folder, b"mycodes.c"))
    given = Path(os.fsdecode(folder))
    got = take(given, tmp_path / "files" / "张三")
    assert got.name == "张三" and got.source.endswith("/张三")
    assert got.path == tmp_path / "files" / "张三" / "mycodes.c" and got.path.read_bytes() == C_TEXT
    str(got.path).encode("utf-8")
    without = take(given)  # no dest (match): the file is used where it is
    assert without.path.read_bytes() == C_TEXT and without.name == "张三"


# ------------------------------------------------------------------------------------------ the factory and the SPEC

@pytest.mark.parametrize("spec", ["li.c:²", "li.c:３", "li.c:٣", "li.c:½", "x.zip:²"])
def test_a_function_set_in_other_digits_is_one_line(spec: str) -> None:
    """':²' and other non-ASCII digits pass str.isdigit(); parse_spec refuses them with one line."""
    from twentyone.players.spec import parse_spec

    with pytest.raises(PlayerSpecError, match="ASCII digits"):
        parse_spec(spec)


def test_parse_spec_still_takes_paths_and_ascii_sets() -> None:
    """path:K with K in 1..5 splits; a colon in a path without a number does not; 0 and 6 are out of range."""
    from twentyone.players.spec import parse_spec

    assert parse_spec("li/mycodes.c:3") == ("li/mycodes.c", 3) and parse_spec("li.zip") == ("li.zip", None)
    assert parse_spec("a:b/li.c") == ("a:b/li.c", None)
    for bad in ("li.c:0", "li.c:6"):
        with pytest.raises(PlayerSpecError, match="out of range"):
            parse_spec(bad)


@pytest.mark.slow
def test_make_strategy_takes_a_folder_and_a_zip_with_a_function_set(tmp_path: Path) -> None:
    """make_strategy('folder:2') and make_strategy('x.zip:3') seat the file inside, as that function set."""
    from twentyone.players.spec import make_strategy

    z = zip_folder(HANDINS / "cstyle_c", tmp_path / "sun_li.zip", prefix="21点游戏/")
    said: list[str] = []
    for spec, k in ((f"{HANDINS / 'cstyle_c'}:2", 2), (f"{z}:3", 3), (str(HANDINS / "two_copies"), 1)):
        s = make_strategy(spec, warn=said.append)
        try:
            assert s.name == f"mycodes.c:{k}"
        finally:
            s.close()
    assert any("backup/mycodes.c" in w for w in said), said  # the other copy is named


def test_cpp_is_built_in_one_place_as_cpp(tmp_path: Path) -> None:
    """A .cpp (a file, or a folder's mycodes.cpp) is built by build_c, as C++: the same box program either way (a
    C++ file always plays in a box, so no cffi module is built for it)."""
    from twentyone.players.spec import build_c, check_file, make_strategy

    cpp = HANDINS / "cstyle_cpp" / "mycodes.cpp"
    built = build_c(cpp, SourceKind.CPP)
    check_file(cpp, SourceKind.CPP, 1)
    assert build_c(cpp, SourceKind.CPP) == built and built.name == "box"
    assert not list(built.parent.glob("*.so"))
    for spec in (str(cpp), str(HANDINS / "cstyle_cpp")):
        s = make_strategy(spec, warn=lambda m: None)
        s.close()


# ------------------------------------------------------------------------------------------ through the command line

STAND_PY = ROOT / "tests" / "fixtures" / "py" / "stand_py.py"
TINY = {"legal": {"matches": 1}, "beat_stand": {"batch": 2, "min_matches": 2, "max_matches": 2},
        "beat_basic": {"batch": 2, "min_matches": 2, "max_matches": 2}, "tournament": {"matches": 1}}


def _grade(tmp_path: Path, *subs: Path, timeout: float = 300) -> tuple[Any, dict[str, dict[str, Any]]]:
    """A tiny trusted ``grade`` of ``subs`` into tmp_path/out; (the run, scores.json by student)."""
    import json

    from tests.handins import run_cli, write_config

    out = tmp_path / "out"
    r = run_cli(["grade", *subs, "--config", write_config(tmp_path / "g.toml", TINY), "--trusted", "--out", out,
                 "-j", "1", "-q"], tmp_path / "cache", timeout=timeout)
    assert "Traceback" not in r.stderr, r.stderr
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8")) if (out / "scores.json").is_file() else {}
    return r, {s["name"]: s for s in scores.get("students", [])}


@pytest.mark.slow
def test_grade_of_zips_names_the_other_copy_refuses_equal_depth_and_unpacks_only_the_graded_file(
        tmp_path: Path) -> None:
    """Two-copy zips: the shallowest is graded and the backup named (terminal, page, scores.json); two equally
    shallow are one error line; --out keeps only the graded files, no work folder."""
    backup = zip_folder(HANDINS / "two_copies", tmp_path / "2023012.zip")
    same = tmp_path / "2023015.zip"
    with zipfile.ZipFile(same, "w") as f:
        f.writestr("21点游戏/mycodes.c", C_TEXT)
        f.writestr("21点游戏 - 副本/mycodes.c", C_TEXT)
        f.writestr("21点游戏/readme.txt", b"x" * 1000)
    r, scores = _grade(tmp_path, backup, same, STAND_PY)
    assert r.returncode == 1, r.stderr
    graded = scores["2023012"]
    assert graded["error"] is None and graded["incident_count"] == 0  # backup/mycodes.c fouls every hand
    assert graded["graded"] == "mycodes.c" and any("backup/mycodes.c" in n for n in graded["notes"])
    assert [ln for ln in r.stderr.splitlines() if "warning" in ln and "backup/mycodes.c" in ln]
    assert "backup/mycodes.c" in (tmp_path / "out" / "students" / "2023012.html").read_text(encoding="utf-8")
    refused = scores["2023015"]["error"]
    assert "21点游戏/mycodes.c" in refused and "21点游戏 - 副本/mycodes.c" in refused
    assert len([ln for ln in r.stderr.splitlines() if "2023015" in ln]) == 1
    assert scores["stand_py"]["error"] is None
    kept = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")
                  if p.is_file() and p.parts[len((tmp_path / "out").parts)] == "files")
    assert kept == ["files/2023012/mycodes.c"]
    assert not (tmp_path / "out" / "work").exists()


def test_a_refused_zip_is_one_line_and_the_others_are_graded(tmp_path: Path) -> None:
    """A zip whose mycodes.c is itself a bomb (over 200:1): its one error line; everyone else is graded."""
    bomb = tmp_path / "zhao.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as f:
        f.writestr("zhao/mycodes.c", C_TEXT + b" " * (60 << 20))
    r, scores = _grade(tmp_path, bomb, STAND_PY)
    assert r.returncode == 1, r.stderr
    assert "refused" in scores["zhao"]["error"] and scores["stand_py"]["error"] is None
    assert len([ln for ln in r.stderr.splitlines() if "zhao" in ln]) == 1, r.stderr
    assert sum(p.stat().st_size for p in (tmp_path / "out").rglob("*") if p.is_file()) < 8 << 20


@pytest.mark.slow
def test_resume_of_a_zip_run_uses_the_kept_file(tmp_path: Path) -> None:
    """--resume of a zip run reads the graded file kept in --out/files, even when the zip is gone."""
    from tests.handins import run_cli

    z = zip_folder(HANDINS / "novice", tmp_path / "liu.zip", prefix="liu/")
    r, first = _grade(tmp_path, z, STAND_PY)
    assert r.returncode == 0, r.stderr
    z.unlink()
    import json
    import sqlite3

    db = sqlite3.connect(tmp_path / "out" / "results.sqlite")
    db.execute("DELETE FROM matches WHERE subject = 'liu' AND purpose = 'legal'")
    db.commit()
    db.close()
    again = run_cli(["grade", "--resume", "--out", tmp_path / "out", "-j", "1", "-q"], tmp_path / "cache", timeout=300)
    assert again.returncode == 0, again.stderr
    scores = {s["name"]: s for s in json.loads((tmp_path / "out" / "scores.json").read_text())["students"]}
    assert scores == first


@pytest.mark.slow
def test_match_of_a_zip_leaves_no_temporary_folder(tmp_path: Path) -> None:
    """match -p x.zip unpacks into a temporary folder and removes it when it ends."""
    from tests.handins import run_cli

    z = zip_folder(HANDINS / "cstyle_c", tmp_path / "sun_li.zip", cp936=True, prefix="21点游戏/")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    r = run_cli(["match", "-p", z, "-p", "basic", "--seed", 2, "--output-dir", tmp_path / "printed"],
                tmp_path / "cache", timeout=300, TMPDIR=str(scratch))
    assert r.returncode == 0, r.stderr
    assert not list(scratch.glob("twentyone-intake-*")), list(scratch.iterdir())


@pytest.mark.slow
def test_match_of_a_folder_that_is_not_utf8_prints_and_logs_readable_text(tmp_path: Path) -> None:
    """match -p <GBK folder>: the table and the round log show 张三, and nothing crashes on the name."""
    import json
    import subprocess
    import sys

    from tests.handins import cli_env

    folder = os.path.join(os.fsencode(tmp_path), "张三".encode("gbk"))
    os.mkdir(folder)
    shutil.copy(BASIC_C, os.path.join(folder, b"mycodes.c"))
    log = tmp_path / "m.jsonl"
    r = subprocess.run([sys.executable, "-m", "twentyone", "match", "-p", folder, "-p", "basic", "--log", str(log),
                        "--output-dir", str(tmp_path / "printed")], capture_output=True, timeout=300, cwd=ROOT,
                       env=cli_env(tmp_path / "cache"))
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8", "replace")
    assert r.returncode == 0 and "Traceback" not in err, err
    first = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert first["seats"][0]["player"].endswith("/张三")
    assert "张三" in out


@pytest.mark.parametrize("magic, what", [(b"Rar!\x1a\x07\x01\x00", "a RAR archive"),
                                         (b"7z\xbc\xaf\x27\x1c\x00\x04", "a 7z archive")])
def test_another_archive_named_zip_says_what_it_is(tmp_path: Path, magic: bytes, what: str) -> None:
    """A RAR or 7z file renamed .zip (a Windows habit) is named for what it is, with what to do."""
    z = tmp_path / "zhou.zip"
    z.write_bytes(magic + os.urandom(200))
    with pytest.raises(IntakeError) as e:
        take(z)
    assert str(e.value) == (f"{readable(z)}: not a readable zip (it is {what} with a .zip name: unpack it, or pack "
                            "it again as a zip)")


def test_a_zip_with_a_password_says_so(tmp_path: Path) -> None:
    """A zip made with a password gets one line that says so, not Python's repr of the zip entry."""
    z = tmp_path / "zheng.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("zheng/mycodes.c", "int bet1(int N) { return 10; }\n")
    data = bytearray(z.read_bytes())
    for sig, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set the "encrypted" flag bit, as zip -P does
        i = data.index(sig)
        struct.pack_into("<H", data, i + at, struct.unpack_from("<H", data, i + at)[0] | 1)
    z.write_bytes(bytes(data))
    with pytest.raises(IntakeError) as e:
        take(z)
    assert str(e.value) == (f"{readable(z)}: cannot unpack zheng/mycodes.c: it is encrypted (a zip with a "
                            "password): zip it again without one")


def test_a_zip_in_a_zip_or_in_a_folder_is_named(tmp_path: Path) -> None:
    """A hand-in that holds only another archive (a zip of the zip, a folder with the zip in it) says so."""
    inner = tmp_path / "sun_21.zip"
    with zipfile.ZipFile(inner, "w") as f:
        f.writestr("sun/mycodes.c", "int bet1(int N) { return 10; }\n")
    outer = tmp_path / "sun.zip"
    with zipfile.ZipFile(outer, "w") as f:
        f.write(inner, "sun/sun_21.zip")
    folder = tmp_path / "sun"
    folder.mkdir()
    shutil.copy(inner, folder / "sun_21.zip")
    for hand_in, shown in ((outer, "sun/sun_21.zip"), (folder, "sun_21.zip")):
        with pytest.raises(IntakeError) as e:
            take(hand_in)
        assert str(e.value).endswith(f"in it; it holds {shown}, and an archive inside a hand-in is not opened: "
                                     "give the files themselves")
