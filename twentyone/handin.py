"""The grader's own reading of a hand-in's files: regular files only, their size capped before they are read.

A hand-in is read in the grader's own process before any sandbox is involved: to find the strategy file, to
compare the student's headers with the course's, to switch PERSON off in a copy, to fingerprint the code.  A
student (or a tar extracted as root) can put anything under a strategy file's name: a FIFO, which blocks the
reader for ever; a device node such as ``/dev/zero``, which never ends; a socket; a huge file.  So every such
read goes through ``read_file``: the path is looked at with ``lstat`` (nothing is opened), then opened with
``O_NONBLOCK | O_NOFOLLOW`` (a FIFO or a device cannot block the open, a link swapped in meanwhile is refused)
and checked again with ``fstat`` on that very descriptor: a regular file, at most ``MAX_SOURCE`` bytes, or one
``HandInFileError`` line naming it.  Nothing is read before both checks pass, and never more than the cap.

Which symbolic links may be followed is the intake's decision (``players.intake``: none that leads out of the
hand-in); ``read_file`` reads the file a path finally names, and ``source_text`` decodes a source file as
every reader of one does (UTF-8, else GBK).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from twentyone.errors import PlayerSpecError

__all__ = ["MAX_SOURCE", "HandInFileError", "read_file", "file_kind", "check_regular", "check_size", "source_text"]

#: The largest strategy file, header or main.c the grader reads (a course hand-in is about 10 KiB).
MAX_SOURCE = 1 << 20


class HandInFileError(PlayerSpecError):
    """A hand-in's file that the grader will not read: not a regular file, or too big; one line naming it."""


def file_kind(mode: int) -> str:
    """What a file's mode says it is, as a refusal names it ('a regular file' for one)."""
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"


def check_size(size: int, shown: str, limit: int = MAX_SOURCE) -> None:
    """HandInFileError if a file of ``size`` bytes is more than a source file may hold."""
    if size > limit:
        raise HandInFileError(f"{shown}: refused: {_mib(size)}, more than the {_mib(limit)} a source file may hold")


def check_regular(st: os.stat_result, shown: str, limit: int = MAX_SOURCE) -> None:
    """HandInFileError unless ``st`` (an ``lstat`` or ``fstat``) is a regular file of at most ``limit`` bytes."""
    if not stat.S_ISREG(st.st_mode):
        raise HandInFileError(f"{shown}: refused: {file_kind(st.st_mode)}, not a regular file")
    check_size(st.st_size, shown, limit)


def read_file(path: Path | str, shown: str | None = None, limit: int = MAX_SOURCE) -> bytes:
    """The bytes of the regular file ``path`` (its symbolic links followed), at most ``limit`` of them;
    HandInFileError with one line, naming ``shown`` (default: the path), for anything else."""
    shown = shown if shown is not None else str(path)
    real = os.path.realpath(path)
    try:
        check_regular(os.lstat(real), shown, limit)
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise HandInFileError(f"cannot read {shown}: no such file") from None
    except OSError as e:
        raise HandInFileError(f"cannot read {shown}: {e.strerror or e}") from None
    try:
        check_regular(os.fstat(fd), shown, limit)  # what was opened, whatever the name names now
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise HandInFileError(f"cannot read {shown}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if size > limit:  # it grew while being read
        raise HandInFileError(f"{shown}: refused: more than the {_mib(limit)} a source file may hold")
    return b"".join(chunks)


def source_text(raw: bytes) -> str:
    """A source file's bytes as text: a UTF-8 byte-order mark dropped, UTF-8, else GBK (Windows in China), else
    UTF-8 with the undecodable bytes replaced."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return raw.decode("gbk")
        except UnicodeDecodeError:
            return raw.decode("utf-8", errors="replace")
