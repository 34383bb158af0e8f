"""One intake for every command: find the strategy file in a file, folder or zip, and name the student.

``take(path)`` is what ``match``, ``tournament`` and ``grade`` do with a path they are given:

- a ``.c``, ``.cpp`` or ``.py`` file is the strategy file itself, and a C or C++ file's folder is its project:
  the headers and ``main.c`` beside it are the student's own (``beside``), as in a folder;
- in a folder or a zip, ``mycodes.c`` / ``mycodes.cpp`` (any case) is the strategy file: the shallowest one,
  with every other copy named in a warning; two equally shallow copies are refused, naming both.  Without
  one, the one ``.c``/``.cpp`` file that is not ``main`` or ``twentyone``; without that, the one ``.py``.
  ``__MACOSX``, ``.git`` and other hidden folders, and build folders (``Debug``, ``Release``, ``x64``,
  ``bin``, ``obj``, ``build``, ``cmake-build-*``) are not looked into.

It returns an ``Intake``: the chosen file, its kind, the student's name (the zip's or folder's name, or a
``mycodes.*`` file's folder), the other copies, the student's own headers and ``main.c`` beside the file,
and the warnings to show: among them one for each own ``twentyone.h``/``mycodes.h`` that differs from the
course's (``players.cheaders``; a C file is always compiled against the course's headers).  Anything unusable raises ``IntakeError``, one line naming the path.

**Zips** are read from their central directory; only the strategy file and the headers and ``main.c``
beside it are unpacked, never anything else.  Entry names without the UTF-8 flag are decoded as the
tools students use wrote them: UTF-8 when every such name is valid UTF-8 (Info-ZIP and macOS), else
CP936/GBK (Windows' own zip tool on a Chinese system, as 7-Zip and unar read it), else cp437; control
characters are escaped.  A zip with an absolute or ``..`` entry is refused; so is one with more than
``ZipLimits.max_files`` entries.  What is unpacked is limited in total size and per-entry compression
ratio, checked on the header's sizes before unpacking and on the bytes actually produced while
unpacking (a header can lie).

**Names that are not UTF-8** (a folder made by ``unzip`` from a GBK zip reaches Python as surrogate
escapes) become readable text: each component is decoded as GBK when it is valid GBK, otherwise its
bytes are escaped (``\\xb0``).  ``Intake.name``, ``Intake.source`` and ``Intake.shown`` are always such
text, safe for a terminal, a database and a file name; ``Intake.path`` is the file on disk.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import struct
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.handin import HandInFileError, check_regular, check_size, file_kind
from twentyone.players.c.headers import own_header_warnings

__all__ = ["SourceKind", "Intake", "ZipLimits", "IntakeError", "take", "beside", "student_name", "readable",
           "is_container", "cleanup", "STRATEGY_NAMES", "handins_inside", "IGNORED_DIRS"]


class SourceKind(StrEnum):
    """The language of a strategy file."""

    C = "c"
    CPP = "cpp"
    PY = "py"


#: A strategy file's kind by its suffix (any case).
KINDS = {".c": SourceKind.C, ".cpp": SourceKind.CPP, ".py": SourceKind.PY}
#: The course's file names: the strategy file is one of these when a folder or zip holds it.
STRATEGY_NAMES = ("mycodes.c", "mycodes.cpp")
#: The course program's own files: never the strategy file, even when they are the only .c beside it.
COURSE_FILES = ("main.c", "main.cpp", "twentyone.c", "twentyone.cpp")
#: Folders never looked into (any case), besides every hidden folder (``.git``, ``.vs`` ...).
IGNORED_DIRS = frozenset({"__macosx", "__pycache__", "build", "debug", "release", "x64", "x86", "bin", "obj",
                          "node_modules", "venv"})
HEADER_SUFFIXES = (".h", ".hpp")
#: Files a folder walk looks at before it gives up (a folder given by mistake, such as a home folder).
MAX_FOLDER_FILES = 20_000
#: Below this size the compression ratio is not checked (a tiny, very regular file compresses a lot).
RATIO_FLOOR = 64 << 10
_CHUNK = 64 << 10
_UNICODE_PATH_EXTRA = 0x7075
_UTF8_FLAG = 0x800


class IntakeError(PlayerSpecError):
    """A path that holds no usable strategy file, or a zip refused by its limits; one line naming the path."""


@dataclass(frozen=True)
class ZipLimits:
    """How much a zip may unpack: total bytes, entries in it, and compression ratio per entry."""

    max_total: int = 50 << 20
    max_files: int = 2000
    max_ratio: int = 200


@dataclass(frozen=True)
class Intake:
    """What a submission or player path holds: the strategy file, its kind, the student, and what else was found."""

    #: The strategy file on disk: the given file, the file in the given folder, or its unpacked copy.
    path: Path
    kind: SourceKind
    #: The student: the zip's or folder's name, or the file's (its folder's for ``mycodes.*``); file-name safe.
    name: str
    #: The path as given, as readable text.
    source: str
    #: The strategy file as people see it: its path inside the zip or folder, or the file's path.
    shown: str
    #: Other copies of ``mycodes.c``/``.cpp`` that were not taken, inside the zip or folder (readable text).
    others: tuple[str, ...] = ()
    #: The student's own headers (``.h``, ``.hpp``) beside the strategy file, on disk.
    headers: tuple[Path, ...] = ()
    #: The student's own ``main.c`` (or ``main.cpp``) beside the strategy file, on disk.
    main: Path | None = None
    #: One line each, to show on the terminal and in the report.
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def where(self) -> str:
        """The strategy file as a readable path: the file's, or the folder's or zip's followed by ``shown``."""
        return self.source if self.shown == self.source else f"{self.source}/{self.shown}"


# ------------------------------------------------------------------------------------------- readable text

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SAFE = re.compile(r"[^0-9A-Za-z._\-\u4e00-\u9fff]+")


def _escape_controls(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _decode_component(raw: bytes) -> str:
    """One name's bytes as text: UTF-8, else GBK, else with every byte that is neither escaped."""
    for encoding in ("utf-8", "gbk"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            pass
    return raw.decode("utf-8", errors="backslashreplace")


def readable(text: str | Path) -> str:
    """``text`` (a path or name, possibly with surrogate escapes of non-UTF-8 bytes) as safe, readable text.

    Each component with such bytes is decoded as GBK when it is valid GBK, otherwise its bytes are escaped
    (``\\xb0``); control characters are escaped.  The result encodes as UTF-8.
    """
    s = str(text)
    if any("\udc80" <= ch <= "\udcff" for ch in s):
        s = os.sep.join(_decode_component(os.fsencode(part)) for part in s.split(os.sep))
    # Any other lone surrogate (not from a file name) is escaped too.
    s = s.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return _escape_controls(s)


def _text_safe(path: Path) -> bool:
    """True when ``path`` is plain text (no surrogate escapes): it can be stored and shown as it is."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def student_name(path: Path) -> str:
    """A file-system- and key-safe name for a submission: its zip's, folder's or file's name (the student).

    A ``mycodes.*`` (or ``strategy.*`` or ``main.*``) file is named by its folder.
    """
    p = Path(os.path.abspath(path))
    suffix = p.suffix.lower()
    stem = p.stem if suffix in (".zip", *KINDS) else p.name
    if stem.lower() in ("mycodes", "strategy", "main") and p.parent.name:
        stem = p.parent.name
    return _SAFE.sub("_", readable(stem)).strip("_") or "submission"


def is_container(path: Path) -> bool:
    """True when ``path`` is a folder or a zip (something ``take`` looks inside)."""
    return path.suffix.lower() == ".zip" or path.is_dir()


# ------------------------------------------------------------------------------------------- choosing

def _kind(name: str) -> SourceKind | None:
    return KINDS.get(os.path.splitext(name)[1].lower())


#: Archives a hand-in may hold instead of its files (a zip in a zip, a zip in a folder).
_ARCHIVE_SUFFIXES = (".zip", ".rar", ".7z", ".tar", ".gz", ".tgz")


def _choose(files: list[tuple[str, ...]], where: str,
            archives: list[str] | None = None) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The strategy file among ``files`` (relative paths as readable parts) and the other copies of it;
    ``archives``: the archives in the hand-in, named when no strategy file is found."""
    named = [f for f in files if f[-1].lower() in STRATEGY_NAMES]
    if named:
        depth = min(len(f) for f in named)
        top = sorted(f for f in named if len(f) == depth)
        if len(top) > 1:
            both = " and ".join("/".join(f) for f in top) if len(top) == 2 else ", ".join("/".join(f) for f in top)
            raise IntakeError(f"{where}: {len(top)} copies of mycodes.c at the same depth: {both} "
                              "(keep one, or give the one to grade)")
        return top[0], sorted((f for f in named if f != top[0]), key=lambda f: (len(f), f))
    cs = sorted(f for f in files if _kind(f[-1]) in (SourceKind.C, SourceKind.CPP)
                and f[-1].lower() not in COURSE_FILES)
    if len(cs) == 1:
        return cs[0], []
    if len(cs) > 1:
        names = ", ".join("/".join(f) for f in cs[:5]) + (" ..." if len(cs) > 5 else "")
        raise IntakeError(f"{where}: several .c/.cpp files and no mycodes.c: {names}")
    pys = sorted(f for f in files if _kind(f[-1]) == SourceKind.PY)
    if len(pys) == 1:
        return pys[0], []
    if len(pys) > 1:
        names = ", ".join("/".join(f) for f in pys[:5]) + (" ..." if len(pys) > 5 else "")
        raise IntakeError(f"{where}: several .py files and no mycodes.c: {names}")
    inner = ""
    if archives:
        some = ", ".join(archives[:3]) + (" ..." if len(archives) > 3 else "")
        inner = f"; it holds {some}, and an archive inside a hand-in is not opened: give the files themselves"
    raise IntakeError(f"{where}: no strategy file (mycodes.c, mycodes.cpp, another .c/.cpp or a .py) in it{inner}")


def _chosen_kind(chosen: tuple[str, ...], where: str) -> SourceKind:
    kind = _kind(chosen[-1])
    if kind is None:  # _choose picks only files of a known kind
        raise IntakeError(f"{where}: {'/'.join(chosen)} is not a .c, .cpp or .py file")
    return kind


def _companions(files: list[tuple[str, ...]], chosen: tuple[str, ...]) -> tuple[list[tuple[str, ...]],
                                                                                  tuple[str, ...] | None]:
    """The headers and the main.c/main.cpp in the strategy file's own folder."""
    if _kind(chosen[-1]) == SourceKind.PY:
        return [], None
    beside = [f for f in files if f[:-1] == chosen[:-1] and f != chosen]
    headers = sorted(f for f in beside if f[-1].lower().endswith(HEADER_SUFFIXES))
    mains = sorted(f for f in beside if f[-1].lower() in ("main.c", "main.cpp"))
    return headers, (mains[0] if mains else None)


def _ignored(part: str) -> bool:
    return part.startswith(".") or part.lower() in IGNORED_DIRS or part.lower().startswith("cmake-build-")


def _holds_code(folder: Path, most: int) -> bool:
    """Whether ``folder`` holds a strategy file where ``take`` would look (hidden and build folders skipped),
    looking at ``most`` entries at most."""
    seen = 0
    try:
        for _root, dirs, names in os.walk(folder):
            dirs[:] = [d for d in dirs if not _ignored(d)]
            for n in names:
                seen += 1
                if seen > most:
                    return False
                if not n.startswith("._") and _kind(n) is not None:
                    return True
    except OSError:
        return False
    return False


def handins_inside(folder: Path, most: int = 2000) -> list[str]:
    """The hand-ins ``folder`` holds when it is a folder of several hand-ins rather than one student's: its zips
    and its folders that hold a strategy file (as ``take`` looks: hidden and build folders skipped), by readable
    name; [] when it has a strategy file of its own at its top level, or holds fewer than two."""
    try:
        children = sorted(c for c in folder.iterdir() if not c.name.startswith(("._", ".")))
    except OSError:
        return []
    if any(c.is_file() and _kind(c.name) is not None for c in children):
        return []
    inner = [readable(c.name) + ("/" if c.is_dir() else "") for c in children
             if (c.is_file() and c.suffix.lower() == ".zip")
             or (c.is_dir() and not _ignored(c.name) and _holds_code(c, most))]
    return inner if len(inner) >= 2 else []


def _other_copies_warning(name: str, shown: str, others: list[str]) -> str:
    return (f"{name}: graded {shown}; other copies, not graded: {', '.join(others)}")


# ------------------------------------------------------------------------------------------- the intake

_temporary: list[tuple[int, Path]] = []


def cleanup() -> None:
    """Remove every folder this process unpacked zips into for ``take`` without a ``dest``."""
    me = os.getpid()
    for pid, folder in list(_temporary):
        if pid == me:
            shutil.rmtree(folder, ignore_errors=True)
            _temporary.remove((pid, folder))


atexit.register(cleanup)


def _scratch() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="twentyone-intake-"))
    _temporary.append((os.getpid(), folder))
    return folder


def take(path: Path, dest: Path | None = None, *, name: str | None = None,
         limits: ZipLimits = ZipLimits()) -> Intake:
    """Find the strategy file in ``path`` (a file, folder or zip) and name the student.

    ``dest`` is where a zip's strategy file and the headers and ``main.c`` beside it are unpacked, and
    where a file whose path is not text (not UTF-8) is copied, so that what is stored names a real file;
    without it a zip is unpacked into a temporary folder removed when this process ends (``cleanup``).
    ``name`` overrides the student's name.  Raises IntakeError with one line.
    """
    path = Path(path)
    dest = Path(os.path.abspath(dest)) if dest is not None else None
    source = readable(path)
    student = name or student_name(path)
    if path.suffix.lower() == ".zip" and not path.is_dir():
        return _take_zip(path, dest, student, source, limits)
    if path.is_dir():
        return _take_folder(path, dest, student, source)
    if not path.exists() and not path.is_symlink():
        raise IntakeError(f"{source}: no such file or folder")
    kind = _kind(path.name)
    if kind is None:
        raise IntakeError(f"{source}: not a .c, .cpp or .py file, a folder or a zip")
    _check_file(path, Path(os.path.abspath(path)).parent, source)
    headers, main = beside(path)
    # A file given alone has its folder for a project: its own headers there are compared as a folder's are.
    warnings = tuple(own_header_warnings([(readable(h), h) for h in headers], student))
    if dest is not None and not _text_safe(path):
        copy = dest / _safe_part(readable(path.name))
        _copy(path, copy)
        return Intake(copy, kind, student, source, source, (), headers, main, warnings)
    return Intake(Path(os.path.abspath(path)), kind, student, source, source, (), headers, main, warnings)


def beside(path: Path) -> tuple[tuple[Path, ...], Path | None]:
    """The student's own headers and ``main.c`` (or ``main.cpp``) in the folder of the C or C++ file ``path``:
    regular files only, a symbolic link only to a file in that folder; nothing for a ``.py`` file."""
    if _kind(path.name) not in (SourceKind.C, SourceKind.CPP):
        return (), None
    folder = path.parent
    try:
        names = sorted(os.listdir(folder or "."))
    except OSError:
        return (), None
    kept: list[Path] = []
    for n in names:
        low = n.lower()
        if n == path.name or n.startswith("._") or not (low.endswith(HEADER_SUFFIXES) or low in ("main.c", "main.cpp")):
            continue
        try:
            _check_file(folder / n, Path(os.path.abspath(folder)), readable(folder / n))
        except IntakeError:
            continue  # not a file of the student's project: a link out of it, a FIFO, a file too big
        kept.append(folder / n)
    mains = [p for p in kept if p.name.lower() in ("main.c", "main.cpp")]
    return tuple(p for p in kept if p not in mains), (mains[0] if mains else None)


def _safe_part(part: str) -> str:
    part = part.replace("/", "_").replace("\\", "_").replace("\0", "_")
    return "_" if part in ("", ".", "..") else part


def _copy(src: Path, dst: Path) -> None:
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    except OSError as e:
        raise IntakeError(f"{readable(src)}: cannot copy it into {readable(dst.parent)}: {e.strerror or e}") from None


def _check_file(path: Path, root: Path, shown: str) -> None:
    """IntakeError unless ``path`` is a regular file of at most ``handin.MAX_SOURCE`` bytes inside ``root`` (the
    hand-in): a symbolic link is followed only to a file inside it; a FIFO, a device or a socket is refused."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real = Path(os.path.realpath(path))
            if not real.is_relative_to(os.path.realpath(root)):
                raise IntakeError(f"{shown}: refused: a symbolic link leading out of the hand-in (to {readable(real)})")
            st = os.stat(real)
        check_regular(st, shown)
    except HandInFileError as e:
        raise IntakeError(str(e)) from None
    except OSError as e:
        raise IntakeError(f"{shown}: cannot be read: {e.strerror or e}") from None


def _take_folder(folder: Path, dest: Path | None, student: str, source: str) -> Intake:
    found: dict[tuple[str, ...], Path] = {}
    archives: list[str] = []
    seen = 0
    try:
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not _ignored(d))
            rel = Path(root).relative_to(folder).parts
            for n in names:
                seen += 1
                if seen > MAX_FOLDER_FILES:
                    raise IntakeError(f"{source}: more than {MAX_FOLDER_FILES} files in it: is it a submission?")
                if n.lower().endswith(_ARCHIVE_SUFFIXES):
                    archives.append("/".join(readable(p) for p in (*rel, n)))
                if n.startswith("._") or (_kind(n) is None and not n.lower().endswith(HEADER_SUFFIXES)):
                    continue
                found[tuple(readable(p) for p in (*rel, n))] = Path(root) / n
    except OSError as e:
        raise IntakeError(f"{source}: cannot read the folder: {e.strerror or e}") from None
    chosen, others = _choose(list(found), source, archives)
    headers, main = _companions(list(found), chosen)
    shown = "/".join(chosen)
    warnings = [_other_copies_warning(student, shown, ["/".join(o) for o in others])] if others else []
    kind = _chosen_kind(chosen, source)
    wanted = [chosen, *headers, *([main] if main else [])]
    for f in wanted:  # what will be read: regular files inside the hand-in only, checked before anything is read
        _check_file(found[f], folder, f"{source}/{'/'.join(f)}")
    if dest is not None and not all(_text_safe(found[f]) for f in wanted):
        # A name that is not UTF-8: the files are copied under readable names, and those are stored.
        for f in wanted:
            _copy(found[f], dest.joinpath(*(_safe_part(p) for p in f)))
        at = {f: dest.joinpath(*(_safe_part(p) for p in f)) for f in found}
    else:
        at = {f: Path(os.path.abspath(p)) for f, p in found.items()}
    warnings += own_header_warnings([("/".join(h), at[h]) for h in headers], student)
    return Intake(at[chosen], kind, student, source, shown, tuple("/".join(o) for o in others),
                  tuple(at[h] for h in headers), at[main] if main else None, tuple(warnings))


# ------------------------------------------------------------------------------------------- zips

def _raw_name(info: zipfile.ZipInfo) -> bytes:
    """An entry's name as the bytes in the zip (zipfile decoded it as cp437 when the UTF-8 flag is off)."""
    return info.orig_filename.encode("cp437")


def _unicode_path(info: zipfile.ZipInfo, raw: bytes) -> str | None:
    """The Info-ZIP Unicode Path extra field (0x7075), when present and made for this very name."""
    extra = info.extra
    i = 0
    while i + 4 <= len(extra):
        tag, size = struct.unpack("<HH", extra[i:i + 4])
        body = extra[i + 4:i + 4 + size]
        if tag == _UNICODE_PATH_EXTRA and len(body) >= 5 and body[0] == 1:
            if struct.unpack("<I", body[1:5])[0] == zlib.crc32(raw):
                try:
                    return body[5:].decode("utf-8")
                except UnicodeDecodeError:
                    return None
        i += 4 + size
    return None


def _decode_names(infos: list[zipfile.ZipInfo]) -> list[str]:
    """Every entry's name as text (see the module docstring for the order of code pages)."""
    names: list[str | None] = []
    unflagged: list[tuple[int, bytes]] = []
    for i, info in enumerate(infos):
        if info.flag_bits & _UTF8_FLAG:
            names.append(info.filename)
            continue
        raw = _raw_name(info)
        names.append(_unicode_path(info, raw) if not raw.isascii() else raw.decode("ascii"))
        if names[-1] is None:
            unflagged.append((i, raw))

    def all_valid(encoding: str) -> bool:
        try:
            for _, raw in unflagged:
                raw.decode(encoding)
        except UnicodeDecodeError:
            return False
        return True

    # UTF-8 first: GBK text is almost never valid UTF-8, while UTF-8 text often is valid GBK (备份 reads 澶囦唤).
    chosen = next((enc for enc in ("utf-8", "gbk") if all_valid(enc)), None)
    for i, raw in unflagged:
        if chosen is not None:
            names[i] = raw.decode(chosen)
            continue
        for enc in ("gbk", "utf-8", "cp437"):
            try:
                names[i] = raw.decode(enc)
                break
            except UnicodeDecodeError:
                pass
    return [_escape_controls(n or "") for n in names]


def _entry_parts(name: str, where: str) -> tuple[str, ...]:
    """An entry name split into its folders and file; IntakeError for an absolute or ``..`` path."""
    text = name.replace("\\", "/")
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        raise IntakeError(f"{where}: refused: the zip holds an absolute path ({name!r})")
    parts = tuple(p for p in text.split("/") if p not in ("", "."))
    if ".." in parts:
        raise IntakeError(f"{where}: refused: the zip holds a path that leaves it ({name!r})")
    return parts


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n < 1 << 30 else f"{n / (1 << 30):.1f} GiB"


#: The first bytes of the archives students send instead of a zip, with their names.
_ARCHIVES = ((b"Rar!\x1a\x07", "a RAR archive"), (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
             (b"\x1f\x8b", "a gzip file"), (b"BZh", "a bzip2 file"), (b"\xfd7zXZ\x00", "an xz file"))


def _other_archive(path: Path) -> str:
    """What another kind of archive named ``.zip`` really is, and what to do; '' if not one of those."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return ""
    what = next((name for magic, name in _ARCHIVES if head.startswith(magic)), "")
    return f"it is {what} with a .zip name: unpack it, or pack it again as a zip" if what else ""


def _take_zip(path: Path, dest: Path | None, student: str, source: str, limits: ZipLimits) -> Intake:
    try:
        z = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise IntakeError(f"{source}: no such file or folder") from None
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise IntakeError(f"{source}: not a readable zip ({_other_archive(path) or e})") from None
    with z:
        infos = z.infolist()
        if len(infos) > limits.max_files:
            raise IntakeError(f"{source}: refused: {len(infos)} entries in the zip (at most {limits.max_files})")
        by_parts: dict[tuple[str, ...], zipfile.ZipInfo] = {}
        for info, text in zip(infos, _decode_names(infos)):
            parts = _entry_parts(text, source)
            mode = (info.external_attr >> 16) & 0o170000
            if not parts or info.is_dir() or mode == stat.S_IFDIR:
                continue
            if any(_ignored(p) for p in parts[:-1]) or parts[-1].startswith("._"):
                continue
            by_parts.setdefault(parts, info)
        files = [p for p in by_parts if _kind(p[-1]) is not None or p[-1].lower().endswith(HEADER_SUFFIXES)]
        archives = ["/".join(p) for p in by_parts if p[-1].lower().endswith(_ARCHIVE_SUFFIXES)]
        chosen, others = _choose(files, source, archives)
        headers, main = _companions(files, chosen)
        wanted = [chosen, *headers, *([main] if main else [])]
        _check_sizes([("/".join(f), by_parts[f]) for f in wanted], source, limits)
        for f in wanted:  # a link or a FIFO, device or socket that an unzip would recreate: refused, as in a folder
            mode = (by_parts[f].external_attr >> 16) & 0o170000
            if mode not in (0, stat.S_IFREG):
                raise IntakeError(f"{source}: refused: {'/'.join(f)} is {file_kind(mode)} in the zip, "
                                  "not a regular file")
            try:
                check_size(by_parts[f].file_size, f"{source}: {'/'.join(f)}")
            except HandInFileError as e:
                raise IntakeError(str(e)) from None
        target = dest if dest is not None else _scratch() / student
        at = {f: target.joinpath(*(_safe_part(p) for p in f)) for f in wanted}
        try:
            if dest is not None and dest.exists():
                shutil.rmtree(dest)
            budget = limits.max_total
            for f in wanted:
                budget -= _unpack(z, by_parts[f], "/".join(f), at[f], budget, source, limits)
        except IntakeError:
            shutil.rmtree(target, ignore_errors=True)
            raise
        except (OSError, zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
            shutil.rmtree(target, ignore_errors=True)
            what = getattr(e, "strerror", None) or e
            if any(by_parts[f].flag_bits & 0x1 for f in wanted):
                what = "it is encrypted (a zip with a password): zip it again without one"
            raise IntakeError(f"{source}: cannot unpack {'/'.join(chosen)}: {what}") from None
        declared = sum(i.file_size for i in infos)
    shown = "/".join(chosen)
    warnings = []
    if others:
        warnings.append(_other_copies_warning(student, shown, ["/".join(o) for o in others]))
    if declared > limits.max_total:
        warnings.append(f"{student}: the zip would unpack to {_mib(declared)}; only {shown} and the headers beside "
                        "it were unpacked")
    warnings += own_header_warnings([("/".join(h), at[h]) for h in headers], student)
    kind = _chosen_kind(chosen, source)
    return Intake(at[chosen], kind, student, source, shown, tuple("/".join(o) for o in others),
                  tuple(at[h] for h in headers), at[main] if main else None, tuple(warnings))


def _check_sizes(items: list[tuple[str, zipfile.ZipInfo]], source: str, limits: ZipLimits) -> None:
    """Refuse, before unpacking, what the headers already say is too big or too compressed."""
    total = 0
    for shown, info in items:
        total += info.file_size
        ratio = info.file_size // max(info.compress_size, 1)
        if info.file_size > RATIO_FLOOR and ratio > limits.max_ratio:
            raise IntakeError(f"{source}: refused: {shown} is compressed {ratio}:1 (at most {limits.max_ratio}:1)")
    if total > limits.max_total:
        raise IntakeError(f"{source}: refused: the files to unpack hold {_mib(total)} "
                          f"(at most {_mib(limits.max_total)})")


def _unpack(z: zipfile.ZipFile, info: zipfile.ZipInfo, shown: str, target: Path, budget: int, source: str,
            limits: ZipLimits) -> int:
    """Unpack one entry in chunks, stopping at the budget or the ratio whatever the header says; bytes written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with z.open(info) as src, open(target, "wb") as out:
        while True:
            chunk = src.read(_CHUNK)
            if not chunk:
                break
            written += len(chunk)
            if written > budget:
                raise IntakeError(f"{source}: refused: unpacking {shown} passed "
                                  f"{_mib(limits.max_total)} (the limit)")
            if written > RATIO_FLOOR and written > limits.max_ratio * max(info.compress_size, 1):
                raise IntakeError(f"{source}: refused: {shown} unpacks more than "
                                  f"{limits.max_ratio} times its compressed size")
            out.write(chunk)
    return written
