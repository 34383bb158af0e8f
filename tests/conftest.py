"""Shared test set-up: a private build cache per session, and the rule that CI never skips a test quietly: every
skip for something the machine lacks (libseccomp, two CPUs, Dask, free disk) is a failure under CI=true."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: Under CI (CI=true) a test that needs what the machine lacks fails instead of skipping.
IN_CI = os.environ.get("CI", "").lower() == "true"

if not IN_CI:  # under CI hypothesis loads its own "ci" profile: fixed examples, no deadline
    from hypothesis import settings

    # A property's examples are not timed: a 200 ms deadline fails on a busy machine, not on a wrong result.
    settings.register_profile("twentyone", deadline=None)
    settings.load_profile("twentyone")


def default_sigint() -> None:
    """In a child about to run a command (``preexec_fn``): SIGINT back to its default, so that the command's
    Python raises KeyboardInterrupt on Ctrl-C even when the tests were started with SIGINT ignored (a
    background job of a shell without job control)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def require(condition: bool, what: str) -> None:
    """Skip the calling test unless ``condition`` holds (``what`` it needs, e.g. "two CPUs"); under CI=true a
    missing requirement fails the test instead, so nothing passes quietly in CI."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"this test needs {what} and CI=true: it must not skip")
    pytest.skip(f"needs {what}")


def require_module(name: str) -> Any:
    """The module ``name`` (``importorskip``, but a failure under CI=true)."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        require(False, f"the module {name} (pip install -e '.[dask]')")
        raise


@pytest.fixture(autouse=True, scope="session")
def english_locale() -> Iterator[None]:
    """The tests read English unless they ask for another language: the locale of the shell that runs them
    (LANG=zh_CN.UTF-8 on a Chinese desktop) is set aside for the session, subprocesses included."""
    names = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    old = {n: os.environ.get(n) for n in names}
    for n in names:
        os.environ.pop(n, None)
    os.environ["LANG"] = "C.UTF-8"
    try:
        yield
    finally:
        for n, v in old.items():
            if v is None:
                os.environ.pop(n, None)
            else:
                os.environ[n] = v


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Compiled student modules and C players' default output go to this session's tmp folder, never
    ``~/.cache/twentyone``; subprocesses of the command line inherit it."""
    cache = tmp_path_factory.mktemp("twentyone-cache")
    old = os.environ.get("TWENTYONE_CACHE")
    os.environ["TWENTYONE_CACHE"] = str(cache)
    try:
        yield cache
    finally:
        if old is None:
            os.environ.pop("TWENTYONE_CACHE", None)
        else:
            os.environ["TWENTYONE_CACHE"] = old


def require_seccomp() -> None:
    """Skip the calling test when no system-call filter can be built here (an architecture the filter does not
    know, without libseccomp's table), except under CI=true, where it fails instead."""
    from twentyone.players.sandbox.seccomp import filter_architecture

    if filter_architecture() is not None:
        return
    if IN_CI:
        pytest.fail("no system-call filter for this architecture and CI=true: the sandbox tests must not skip")
    pytest.skip("no system-call filter for this architecture")


@pytest.fixture
def seccomp() -> None:
    """The test needs the system-call filter (see ``require_seccomp``)."""
    require_seccomp()


class OrdinaryUser:
    """Runs the command line as an ordinary user (uid and gid 65534, no groups), the way a grader who is not
    root runs it: its own cache and home in ``home`` (a folder that user may write)."""

    uid = 65534

    def __init__(self, home: Path) -> None:
        self.home = home

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "CI", "TERM")}
        return {**keep, "HOME": str(self.home), "TWENTYONE_CACHE": str(self.home / "cache"), "NO_COLOR": "1",
                "COLUMNS": "200", **extra}

    def run(self, args: list[str], cwd: Path, timeout: float = 300, **extra: str) -> Any:
        """``python -m twentyone ARGS`` as that user; the finished process (text output)."""
        import subprocess
        import sys

        argv = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--",
                sys.executable, "-P", "-m", "twentyone", *args]
        return subprocess.run(argv, cwd=cwd, env=self.env(**extra), capture_output=True, text=True,
                              timeout=timeout, preexec_fn=default_sigint)

    def folder(self, name: str) -> Path:
        """A folder that user may read and write, for its hand-ins and outputs."""
        path = self.home / name
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, 0o777)
        return path


@pytest.fixture(scope="session")
def ordinary_user(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OrdinaryUser]:
    """An ordinary user to run the command line as (the tests run as root: under CI, as a fresh machine does).

    Python lives under root's home on such machines (pyenv): the folders on its way are made passable to others
    (``o+x``, not readable) for the session and put back after; the package and its virtual environment are
    readable already."""
    import shutil
    import sys
    import tempfile

    require(os.geteuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become an ordinary user)")
    changed: list[tuple[Path, int]] = []
    for path in [*Path(os.path.realpath(sys.executable)).parents, *Path(sys.prefix).resolve().parents]:
        mode = path.stat().st_mode & 0o7777
        if not mode & 0o001 and path not in [p for p, _ in changed]:
            changed.append((path, mode))
            os.chmod(path, mode | 0o001)
    home = Path(tempfile.mkdtemp(prefix="twentyone-test-user-"))
    os.chmod(home, 0o777)
    try:
        yield OrdinaryUser(home)
    finally:
        for path, mode in reversed(changed):
            os.chmod(path, mode)
        shutil.rmtree(home, ignore_errors=True)
