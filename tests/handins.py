"""Hand-ins as students make them, for tests/test_handins.py.

The fixtures under ``tests/fixtures/handins/`` are folders as they come out of a student's Dev-C++ or Visual
Studio project (GBK or UTF-8 text, CRLF endings, ``#define PERSON`` left on, their own headers and main.c).
Zips are made from them at test time, the way students make them:

- ``zip_tree(..., cp936=True)``: Windows' own "Send to > Compressed (zipped) folder" on a Chinese Windows
  writes every entry name in the OEM code page, CP936 (GBK), *without* the UTF-8 flag (bit 11), with MS-DOS
  as the creating system and an entry for every folder.  ``zipfile`` writes such names only through a
  ``ZipInfo`` whose name encoding is overridden; the result is checked byte for byte after writing.
- ``zip_tree(..., cp936=False)``: 7-Zip, Bandizip and macOS write UTF-8 names with the flag set.

``c_program`` builds the course's C program with ``make c-program MYCODES=...`` in a scratch copy of the
project (symbolic links to every top-level entry but the build products), so a test never overwrites the
developer's ``./twentyone-c`` and two tests never build into the same file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HANDINS = ROOT / "tests" / "fixtures" / "handins"
STUDENTS = ROOT / "tests" / "fixtures" / "c" / "students"
CLI = [sys.executable, "-m", "twentyone"]
#: The general-purpose flag bit that says an entry's name is UTF-8.
UTF8_FLAG = 0x800
#: Every entry's date (a zip's bytes then depend only on its files).
FIXED_DATE = (2023, 12, 20, 21, 30, 0)


class _RawNameInfo(zipfile.ZipInfo):
    """A ZipInfo whose name goes into the zip as exactly the given bytes, without the UTF-8 flag."""

    def __init__(self, raw: bytes, date_time: tuple[int, int, int, int, int, int]) -> None:
        # cp437 maps all 256 byte values, so encoding the name back gives exactly ``raw``.
        super().__init__(raw.decode("cp437"), date_time)
        self.create_system = 0  # MS-DOS, as Windows' zip tool writes

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:  # noqa: N802 (zipfile's name)
        return self.filename.encode("cp437"), self.flag_bits & ~UTF8_FLAG


def mojibake(text: str) -> str:
    """How a CP936 name shows when it is wrongly read as cp437 (e.g. 21点游戏 -> 21╡π╙╬╧╖)."""
    return text.encode("gbk").decode("cp437")


def tree_files(folder: Path, prefix: str = "") -> dict[str, bytes]:
    """Every file under ``folder`` by its zip entry name (``prefix`` + relative path, '/' separated)."""
    return {prefix + p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def zip_tree(files: Mapping[str, bytes], dest: Path, *, cp936: bool = False) -> Path:
    """Write ``files`` (entry name -> bytes) into the zip ``dest``, with an entry for every folder.

    ``cp936``: names in GBK bytes without the UTF-8 flag, as Windows' zip tool writes them; otherwise UTF-8
    names with the flag.  A CP936 zip is read back and its raw names checked.
    """
    folders: list[str] = []
    for name in files:
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i]) + "/"
            if d not in folders:
                folders.append(d)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for name in folders + list(files):
            is_dir = name.endswith("/")
            if cp936:
                info: zipfile.ZipInfo = _RawNameInfo(name.encode("gbk"), FIXED_DATE)
            else:
                info = zipfile.ZipInfo(name, FIXED_DATE)
            if is_dir:
                info.external_attr = 0x10  # MS-DOS directory attribute
                z.writestr(info, b"")
            else:
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0x20  # MS-DOS archive attribute
                z.writestr(info, files[name])
    if cp936:
        with zipfile.ZipFile(dest) as z:
            for info, want in zip(z.infolist(), folders + list(files)):
                assert not info.flag_bits & UTF8_FLAG, info
                assert info.filename.encode("cp437") == want.encode("gbk"), (info.filename, want)
    return dest


def zip_folder(folder: Path, dest: Path, *, prefix: str = "", cp936: bool = False) -> Path:
    """Zip the fixture ``folder`` (its contents, under ``prefix``) into ``dest``."""
    return zip_tree(tree_files(folder, prefix), dest, cp936=cp936)


def with_verdict(cache: Path) -> Path:
    """``cache`` (a private TWENTYONE_CACHE) given the doctor's verdict this session found for this host, as a
    command finds it kept after the host's first: a test of builds or hand-ins does not prove the host again (3 s
    of CPU each; ``test_doctor`` proves it).  The verdict's file is named by the host's configuration and the
    sandbox's code, so a cache used otherwise (another user, a layer forced off) still proves its own."""
    from twentyone.players.sandbox import doctor

    if doctor.verdict().ok:  # found once per session (the session's cache, tests/conftest.py), then kept
        kept = doctor._verdict_file()
        (cache / "doctor").mkdir(parents=True, exist_ok=True)
        if not (cache / "doctor" / kept.name).exists():
            shutil.copyfile(kept, cache / "doctor" / kept.name)
    return cache


def cli_env(cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI run: its own compiled-file cache (the host's verdict in it: ``with_verdict``), no
    colours, Python's warnings as usual."""
    with_verdict(cache)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "TWENTYONE_CACHE")}
    env.update(TWENTYONE_CACHE=str(cache), NO_COLOR="1", COLUMNS="200", **extra)
    return env


def run_cli(args: Sequence[str], cache: Path, timeout: float, cwd: Path | None = None,
            **extra: str) -> subprocess.CompletedProcess[str]:
    """``python -m twentyone ARGS`` with its own cache; text output decoded as UTF-8."""
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, encoding="utf-8",
                          errors="replace", timeout=timeout, cwd=cwd or ROOT, env=cli_env(cache, **extra))


def write_config(path: Path, sections: Mapping[str, Mapping[str, object]]) -> Path:
    """A grading configuration TOML with the given [section] keys."""
    lines = []
    for section, keys in sections.items():
        lines.append(f"[{section}]")
        for k, v in keys.items():
            lines.append(f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v)}".replace("'", '"'))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: A small grading budget for the tests: a few matches per criterion, a short tournament.
SMALL_GRADE: dict[str, dict[str, object]] = {
    "legal": {"matches": 3},
    "beat_stand": {"batch": 4, "min_matches": 4, "max_matches": 4},
    "beat_basic": {"batch": 4, "min_matches": 4, "max_matches": 4},
    "tournament": {"matches": 2},
}


def project_copy(workdir: Path) -> Path:
    """A scratch copy of the project: a folder of symbolic links to its top-level entries (not the build products)."""
    farm = workdir / "project"
    farm.mkdir(parents=True)
    skip = {"twentyone-c", ".git", ".pytest_cache", ".hypothesis", ".mypy_cache", "build"}
    for entry in ROOT.iterdir():
        if entry.name not in skip and not entry.name.endswith(".jsonl"):
            (farm / entry.name).symlink_to(entry)
    return farm


def c_program(mycodes: Path, workdir: Path, timeout: float = 180) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``make c-program MYCODES=mycodes`` in a scratch copy of the project; (the program, make's result)."""
    farm = project_copy(workdir)
    r = subprocess.run(["make", "--no-print-directory", "-C", str(farm), "c-program", f"MYCODES={mycodes}"],
                       capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    exe = farm / "twentyone-c"
    assert exe.is_file(), r.stdout + r.stderr
    return exe, r


def strip_players(log_text: str) -> list[str]:
    """A round log's lines with the players' SPECs taken out of the match line (the rest byte for byte)."""
    import json

    lines = log_text.splitlines()
    first = json.loads(lines[0])
    for seat in first["seats"]:
        seat["player"] = ""
    return [json.dumps(first, ensure_ascii=False, separators=(",", ":"))] + lines[1:]


def chromium_or_skip() -> str:
    """The Chromium executable; skipped when there is none, except under CI=true, where that is a failure."""
    import pytest

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is not installed, and CI=true: .ci/run must install it")
        pytest.skip("chromium not installed: apt-get install chromium")
    return exe


def screenshot(exe: str, page: Path, shot: Path, size: tuple[int, int] = (1100, 700)) -> Path:
    """A headless Chromium screenshot of ``page`` (a fresh profile, no network)."""
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--force-device-scale-factor=1", "--disable-lcd-text", "--font-render-hinting=none",
                            "--no-first-run", "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
                            f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file(), r.stderr
    return shot


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, grandchildren ...), read from /proc."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out
