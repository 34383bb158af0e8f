"""Find the strategy in each submission: a ``mycodes.c``, a ``.py``, or a folder or zip holding one.

A submission is named after its file, folder or zip (the student's name).  Anything that cannot be
used gets ``error`` set with one clear line, and the other students are still graded.
"""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from twentyone.players.spec import safe_name

__all__ = ["Submission", "find_submissions"]


@dataclass
class Submission:
    """One student's submission."""

    name: str
    source: str
    path: Path | None = None
    kind: str = ""
    error: str | None = None
    #: The compiler's messages when a C file does not compile.
    messages: str = ""


def _pick(folder: Path) -> tuple[Path | None, str]:
    """The strategy file inside a folder: mycodes.c first, then one .c, then one .py."""
    files = [f for f in sorted(folder.rglob("*")) if f.is_file() and "__MACOSX" not in f.parts]
    named = [f for f in files if f.name.lower() == "mycodes.c"]
    if named:
        return named[0], "c"
    cs = [f for f in files if f.suffix.lower() == ".c" and f.name.lower() not in ("main.c", "twentyone.c")]
    if len(cs) == 1:
        return cs[0], "c"
    pys = [f for f in files if f.suffix.lower() == ".py"]
    if len(pys) == 1 and not cs:
        return pys[0], "py"
    if len(cs) > 1:
        return None, f"several .c files and no mycodes.c: {', '.join(f.name for f in cs[:5])}"
    if len(pys) > 1:
        return None, f"several .py files: {', '.join(f.name for f in pys[:5])}"
    return None, "no strategy file (mycodes.c or a .py) in it"


def find_submissions(paths: list[Path], workdir: Path) -> list[Submission]:
    """One Submission per path, zips unpacked under ``workdir``; names made unique."""
    out: list[Submission] = []
    seen: dict[str, int] = {}
    for p in paths:
        name = safe_name(p)
        if name in seen:
            seen[name] += 1
            name = f"{name}_{seen[name]}"
        else:
            seen[name] = 1
        sub = Submission(name, str(p))
        if not p.exists():
            sub.error = f"{p}: no such file or folder"
        elif p.is_dir():
            sub.path, what = _pick(p)
            if sub.path is None:
                sub.error = f"{p}: {what}"
            else:
                sub.kind = what
        elif p.suffix.lower() == ".zip":
            dest = workdir / name
            try:
                if dest.exists():
                    shutil.rmtree(dest)
                with zipfile.ZipFile(p) as z:
                    for info in z.infolist():
                        target = (dest / info.filename).resolve()
                        if not str(target).startswith(str(dest.resolve())):
                            raise zipfile.BadZipFile(f"unsafe path {info.filename!r}")
                    z.extractall(dest)
            except (zipfile.BadZipFile, OSError) as e:
                sub.error = f"{p}: not a readable zip ({e})"
            else:
                sub.path, what = _pick(dest)
                if sub.path is None:
                    sub.error = f"{p}: {what}"
                else:
                    sub.kind = what
        elif p.suffix.lower() in (".c", ".py"):
            sub.path, sub.kind = p.resolve(), p.suffix.lower()[1:]
        else:
            sub.error = f"{p}: not a .c, .py, folder or zip"
        out.append(sub)
    return out
