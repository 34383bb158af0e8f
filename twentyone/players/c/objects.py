"""The project's own objects, compiled once per toolchain and content, and linked with every submission.

A submission's build compiles one file, the student's.  Everything else it links (the course's ``twentyone.c``
and ``tw_rng.c``, the box program's ``c_src/box``, the serve loop, the glue of ``c_src/bridge`` and
``c_src/compat``, the judge's client) is the project's own code: ``project_objects`` compiles a set of them into
the build cache once, in a folder named by a hash of their bytes, the headers they see, their flags and the
toolchain (``toolchain_id``: each program's path, size and time), and every later build copies the objects from
there.  Builds running at once (the grade's worker processes) take a lock while a set is made, so it is compiled
once, and a set is in the cache only when complete (made in a scratch folder, then renamed).  These files are the
project's, not a student's: they are compiled outside the build's jail.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from twentyone.errors import CompileError
from twentyone.players.c.jail import toolchain

__all__ = ["Unit", "project_objects", "toolchain_id", "OBJECTS_PREFIX"]

#: Cache folders of the project's objects start so (``build.prune_cache`` keeps them like any build).
OBJECTS_PREFIX = "_tw_objects_"
#: How long the compiler may take over one set of the project's files, in seconds.
TIMEOUT = 300.0


@dataclass(frozen=True)
class Unit:
    """One of the project's source files and how it is compiled: ``tool`` is ``cc`` or ``cxx``."""

    source: Path
    tool: str
    flags: tuple[str, ...]

    @property
    def object(self) -> str:
        return self.source.stem + ".o"


_IDS: dict[tuple[str, ...], bytes] = {}


def toolchain_id() -> bytes:
    """What identifies this host's toolchain without running it: each program's path, real path, size and time
    (a new gcc or binutils is a new file)."""
    tools = toolchain()
    key = tuple(f"{role}={program}" for role, program in sorted(tools.programs.items()))
    found = _IDS.get(key)
    if found is None:
        h = hashlib.sha256()
        for role, program in sorted(tools.programs.items()):
            real = os.path.realpath(program)
            st = os.stat(real)
            h.update(f"{role}={program}>{real}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        assembler = shutil.which("as")
        if assembler is not None:
            st = os.stat(os.path.realpath(assembler))
            h.update(f"as={os.path.realpath(assembler)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        found = _IDS[key] = h.hexdigest().encode()
    return found


def _key(units: Sequence[Unit], headers: Sequence[Path]) -> str:
    h = hashlib.sha256(toolchain_id())
    for u in units:
        h.update(f"\0{u.source.name}\0{u.tool}\0{' '.join(u.flags)}\0".encode())
        h.update(u.source.read_bytes())
    for p in sorted(headers, key=lambda p: p.name):
        h.update(f"\0{p.name}\0".encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:24]


def project_objects(root: Path, units: Sequence[Unit], headers: Sequence[Path]) -> Path:
    """The folder in the build cache ``root`` holding ``units`` compiled (each ``Unit.object``), with ``headers``
    beside them (as ``-I`` of that folder sees them); compiled now when no build has done it yet."""
    done = root / (OBJECTS_PREFIX + _key(units, headers))
    if done.is_dir():
        _touch(done)
        return done
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "objects.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_dir():  # another process made them while this one waited
            return done
        with tempfile.TemporaryDirectory(prefix="tw-build-objects-", dir=root) as tmp:
            scratch = Path(tmp)
            made = scratch / "made"
            made.mkdir()
            for header in headers:
                shutil.copyfile(header, made / header.name)
            tools = toolchain()
            for u in units:
                cmd = [tools[u.tool], "-c", *u.flags, f"-I{made}", str(u.source), "-o", str(made / u.object)]
                proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT, cwd=made,
                                      env={"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C",
                                           "TMPDIR": str(scratch)})
                if proc.returncode:
                    text = (proc.stderr + proc.stdout).decode("utf-8", "replace").strip()
                    raise CompileError(f"the project's own {u.source.name} does not compile with this toolchain",
                                       text[-4000:])
            for header in headers:
                (made / header.name).unlink()
            made.rename(done)
    return done


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass
