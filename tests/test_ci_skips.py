"""No test passes quietly in CI: a test that needs what the machine lacks (two CPUs, Dask, libseccomp, Chromium)
skips on a developer's machine and fails under CI=true (``tests/conftest.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _pytest(test: str, tmp_path: Path, ci: bool, **kw: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "true" if ci else "", "TWENTYONE_CACHE": str(tmp_path / "cache")}
    env.update({k: str(v) for k, v in kw.items() if k.isupper()})
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=kw.get("preexec"))  # type: ignore[arg-type]


@pytest.mark.slow
def test_the_two_cpu_test_fails_under_ci_on_one_cpu(tmp_path: Path) -> None:
    """Pinned to one CPU, the test that needs two skips, and under CI=true it fails."""
    test = "tests/test_runner.py::test_pool_workers_take_their_own_cpus_after_the_parent_played_sandboxed"
    one = sorted(os.sched_getaffinity(0))[:1]

    def pin() -> None:
        os.sched_setaffinity(0, one)

    quiet = _pytest(test, tmp_path, ci=False, preexec=pin)
    assert quiet.returncode == 0 and "1 skipped" in quiet.stdout and "needs two CPUs" in quiet.stdout, quiet.stdout
    ci = _pytest(test, tmp_path, ci=True, preexec=pin)
    assert ci.returncode == 1 and "1 failed" in ci.stdout and "CI=true" in ci.stdout, ci.stdout


@pytest.mark.slow
def test_the_dask_tests_fail_under_ci_without_dask(tmp_path: Path) -> None:
    """Without dask.distributed (a package that cannot be imported shadows it), the Dask test skips, and under
    CI=true it fails."""
    fake = tmp_path / "nodask" / "dask"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('dask is not installed here')\n")
    test = "tests/test_grading.py::test_unreachable_scheduler_is_one_line"
    path = f"{fake.parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    quiet = _pytest(test, tmp_path, ci=False, PYTHONPATH=path)
    assert quiet.returncode == 0 and "1 skipped" in quiet.stdout, quiet.stdout
    ci = _pytest(test, tmp_path, ci=True, PYTHONPATH=path)
    assert ci.returncode == 1 and "CI=true" in ci.stdout, ci.stdout


def test_require_skips_here_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """conftest.require: a skip outside CI, a failure under CI=true."""
    from tests import conftest

    monkeypatch.setattr(conftest, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match="needs two CPUs"):
        conftest.require(False, "two CPUs")
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        conftest.require(False, "two CPUs")
    conftest.require(True, "anything")  # met: nothing happens
