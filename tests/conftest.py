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
