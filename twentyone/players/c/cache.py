"""The build cache: where finished builds are kept, how big they may be, and how the cache stays under its size.

A build is made in a scratch folder (``tw-build-*``) beside the cache's entries and renamed into the cache only
when finished, so a cache entry is always whole, whoever else builds at the same time.  Entries are a student's
build (``_tw_student_*``: its box program, and its cffi module once a trusted player needed it), another game's
submission (``_tw_program_*``) and a set of the project's own objects (``_tw_objects_*``, ``objects.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from twentyone.errors import CompileError, PlayerSpecError

__all__ = ["cache_dir", "output_dir", "max_module_bytes", "prune_cache", "touch", "finish", "check_size",
           "MAX_MODULE_MIB", "CACHE_MIB", "ENTRY_PREFIXES"]

#: The largest compiled module or box program kept (``TWENTYONE_MAX_MODULE_MIB``, 64 by default): a 240 MB
#: initialised array is refused in one line instead of filling the cache and slowing every match.
MAX_MODULE_MIB = 64
#: The compiled-module cache's total size (``TWENTYONE_CACHE_MIB``, 1024 by default): the least recently used
#: builds are removed past it.
CACHE_MIB = 1024
#: The names of the cache's entries start so.
ENTRY_PREFIXES = ("_tw_student_", "_tw_program_", "_tw_objects_")


def _mib(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not 1 <= int(text) <= 1 << 20:
        raise PlayerSpecError(f"{name} must be a number of MiB, 1 .. 1048576, not {text!r}")
    return int(text)


def max_module_bytes() -> int:
    """The cap on a compiled module's (and box program's) size, in bytes."""
    return _mib("TWENTYONE_MAX_MODULE_MIB", MAX_MODULE_MIB) << 20


def cache_dir() -> Path:
    """Where compiled student modules are kept (``$TWENTYONE_CACHE`` or ``~/.cache/twentyone``)."""
    base = os.environ.get("TWENTYONE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "twentyone")
    return Path(base).resolve() / "c"


def output_dir() -> Path:
    """Where ``twentyone match`` and ``play`` put what C players print, one file per match:
    ``output`` next to the build cache (``$TWENTYONE_CACHE`` or ``~/.cache/twentyone``)."""
    return cache_dir().parent / "output"


def check_size(path: Path, scratch: Path, stopped: bool = False) -> None:
    """Refuse a build whose products passed the module cap, or whose tools were stopped writing past it
    (``stopped``)."""
    cap = max_module_bytes()
    largest = max((f.stat().st_size for f in scratch.rglob("*") if f.is_file() and not f.is_symlink()), default=0)
    if largest > cap or stopped:
        size = f"{largest >> 20} MiB" if largest > cap else f"more than {cap >> 20} MiB"
        raise CompileError(f"{path}: the compiled module would be {size}, over the cap of {cap >> 20} MiB (a large "
                           "initialised array?); TWENTYONE_MAX_MODULE_MIB sets the cap")


def touch(built: Path) -> None:
    """Mark a cached build as used now (the cache keeps the most recently used)."""
    try:
        os.utime(built)
    except OSError:
        pass


def finish(final_dir: Path, out_dir: Path) -> None:
    """Put a finished build in the cache (only finished builds are ever there), then keep the cache in size."""
    try:
        final_dir.rename(out_dir)
    except OSError:
        if not out_dir.exists():
            raise
    prune_cache(keep=out_dir)


def prune_cache(keep: Path | None = None, now: float | None = None) -> list[Path]:
    """Keep the build cache under ``TWENTYONE_CACHE_MIB``: remove the least recently used builds past it (never
    ``keep``), and scratch folders of builds that were killed (over an hour old).  Returns what was removed."""
    root = cache_dir()
    now = time.time() if now is None else now
    removed: list[Path] = []
    builds: list[tuple[float, int, Path]] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        try:
            st = entry.lstat()
        except OSError:
            continue
        if entry.name.startswith("tw-build-"):
            if now - st.st_mtime > 3600:
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
            continue
        if entry.name.startswith(ENTRY_PREFIXES) and entry.is_dir() and not entry.is_symlink():
            size = sum(f.stat().st_size for f in entry.iterdir() if f.is_file())
            builds.append((st.st_mtime, size, entry))
    total = sum(size for _, size, _ in builds)
    cap = _mib("TWENTYONE_CACHE_MIB", CACHE_MIB) << 20
    for _, size, entry in sorted(builds):
        if total <= cap:
            break
        if keep is not None and entry == keep:
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
        total -= size
    return removed


def missing_functions(built: Path, k: int, names: tuple[str, ...]) -> list[str]:
    """The functions ``names`` of set ``k`` that the built module or box program lacks, read from its symbol table
    (no loading)."""
    for attempt in range(3):  # a failed read is said as such, never taken for a file without the functions
        try:  # the program is the student's (its symbol table too): nm gets a bound, as every tool the build runs
            proc = subprocess.run(["nm", str(built)], capture_output=True, text=True, errors="replace", timeout=30)
        except subprocess.TimeoutExpired:
            raise PlayerSpecError(f"{built.name}: its symbols could not be read within 30 s") from None
        if proc.returncode == 0:
            break
        time.sleep(0.1 * (attempt + 1))
    else:
        said = (proc.stderr.strip().splitlines() or [f"nm exited with {proc.returncode}"])[0]
        raise PlayerSpecError(f"{built.name}: its symbols could not be read: {said}")
    defined = {parts[-1] for parts in (ln.split() for ln in proc.stdout.splitlines())
               if len(parts) == 3 and parts[1] in "Tt"}
    return [f"{n}{k}" for n in names if f"{n}{k}" not in defined]
