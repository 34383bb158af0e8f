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


def session_root(tmp_path_factory: pytest.TempPathFactory, config: pytest.Config) -> Path:
    """The folder of this test session that every worker sees: pytest's base temporary folder, or under
    pytest-xdist (``make test``) the controller's, of which each worker's base folder is a subfolder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


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
def private_cache(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Iterator[Path]:
    """Compiled student modules, C players' default output and the doctor's verdicts go to this session's tmp
    folder, never ``~/.cache/twentyone``; subprocesses of the command line inherit it.  The workers of one
    session share it (a build and a verdict are written whole, then renamed into place), so each file compiles
    and each host configuration is examined once per session, not once per worker."""
    cache = session_root(tmp_path_factory, pytestconfig) / "twentyone-cache"
    cache.mkdir(exist_ok=True)
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


#: Who has made the folders on Python's path passable to others, and their modes before: one ledger for the
#: machine, so that two test processes (two workers of ``make test``, or two worktrees' suites) never put a mode
#: back while the other still runs as the ordinary user.
PASSABLE_LEDGER = Path(os.environ.get("TMPDIR") or "/tmp") / "twentyone-tests-passable.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ledger(change: Any, ledger: Path) -> None:
    """Read the ledger, let ``change(holders, modes)`` edit it (holders: pids; modes: path -> mode before), and
    write it back, all under an exclusive lock; holders that have died are dropped first."""
    import fcntl
    import json

    with open(ledger.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = json.loads(ledger.read_text())
        except (OSError, ValueError):
            data = {"holders": [], "modes": {}}
        holders = [pid for pid in data["holders"] if _alive(pid)]
        modes: dict[str, int] = data["modes"]
        change(holders, modes)
        if holders:
            tmp = ledger.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"holders": holders, "modes": modes}))
            tmp.replace(ledger)
        else:
            ledger.unlink(missing_ok=True)


def make_passable(paths: list[Path], ledger: Path = PASSABLE_LEDGER) -> None:
    """Give ``paths`` others' search bit (o+x) until ``put_back``, noting each one's mode before."""

    def take(holders: list[int], modes: dict[str, int]) -> None:
        if not holders:  # everyone before has put back what they changed, or died: the modes now are the truth
            for path, mode in modes.items():
                os.chmod(path, mode)  # put back by no one (a holder died): put back now, then changed again
            modes.clear()
        for path in paths:
            mode = path.stat().st_mode & 0o7777
            if not mode & 0o001:
                modes.setdefault(str(path), mode)
                os.chmod(path, mode | 0o001)
        holders.append(os.getpid())

    _ledger(take, ledger)


def put_back(ledger: Path = PASSABLE_LEDGER) -> None:
    """This process no longer needs the folders passable: the last to leave puts every mode back."""

    def leave(holders: list[int], modes: dict[str, int]) -> None:
        while os.getpid() in holders:
            holders.remove(os.getpid())
        if not holders:
            for path, mode in modes.items():
                try:
                    os.chmod(path, mode)
                except OSError:
                    pass

    _ledger(leave, ledger)


@pytest.fixture(scope="session")
def ordinary_user(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OrdinaryUser]:
    """An ordinary user to run the command line as (the tests run as root: under CI, as a fresh machine does).

    Python lives under root's home on such machines (pyenv): the folders on its way are made passable to others
    (``o+x``, not readable) for the session and put back after, by the last test process on the machine that
    needed them (``make_passable``); the package and its virtual environment are readable already."""
    import shutil
    import sys
    import tempfile

    require(os.geteuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become an ordinary user)")
    make_passable([*Path(os.path.realpath(sys.executable)).parents, *Path(sys.prefix).resolve().parents])
    home = Path(tempfile.mkdtemp(prefix="twentyone-test-user-"))
    os.chmod(home, 0o777)
    try:
        yield OrdinaryUser(home)
    finally:
        put_back()
        shutil.rmtree(home, ignore_errors=True)


# --- CPU time per test -------------------------------------------------------------------------------------------
# `pytest --cpu-durations=N` lists the N tests that took the most CPU: this process's and its waited-for children's
# (compilers, command lines, boxes), setup and teardown included. On a machine shared with other work the wall
# time of --durations says how busy the machine was as much as how heavy the test is; CPU says the latter.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-durations", type=int, default=None, metavar="N",
                     help="list the N tests with the most CPU time (0: all), children's included")


def _cpu_seconds() -> float:
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


_CPU_START = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Each phase's report carries ``cpu``: the CPU seconds since the previous phase ended (or the test began)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    now = _cpu_seconds()
    start = item.stash.get(_CPU_START, None)
    if start is not None:
        report.cpu = now - start
    item.stash[_CPU_START] = now


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    item.stash[_CPU_START] = _cpu_seconds()
    yield


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    count = config.getoption("--cpu-durations")
    if count is None:
        return
    totals: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            cpu = getattr(report, "cpu", None)
            if isinstance(cpu, float) and getattr(report, "nodeid", None):
                totals[report.nodeid] = totals.get(report.nodeid, 0.0) + cpu
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])
    terminalreporter.write_sep("=", f"CPU time per test (total {sum(totals.values()):.1f} s, {len(totals)} tests)")
    for nodeid, cpu in ranked[: count or None]:
        terminalreporter.write_line(f"{cpu:9.2f}s  {nodeid}")


# --- running on several CPUs (pytest-xdist, `make test`) -----------------------------------------------------------


#: Files whose tests share costly work made once per process: a class graded for the module (``class_run``,
#: ``finished_run``, ``grade_report``, ``graded``, ``class_report``), or simulations cached for the tests that
#: compare against them (test_sim).  Under `make test` each of these files runs on one worker, so that the work is
#: done once, not once per worker; every other test is scheduled alone.  (pytest-xdist's own ``xdist_group`` mark
#: does nothing with pytest 9.2, which no longer reads the node id xdist rewrites: hence a scheduler of our own.)
SHARED_WORK_FILES = {"tests/test_handins.py", "tests/test_hostile.py", "tests/test_platforms.py",
                     "tests/test_report.py", "tests/test_review_grading.py", "tests/test_similarity.py",
                     "tests/test_sim.py", "tests/test_storedtext.py"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` (`make test`): the files of SHARED_WORK_FILES each go whole to one worker, first (the
    largest groups are handed out first), then every other test alone, in the order collected (slow first)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedWorkScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path in SHARED_WORK_FILES else nodeid

    return SharedWorkScheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests go first, in their files' order, so that the last minutes of a run on several CPUs are short
    tests on every CPU, not one long test on one while the others wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
