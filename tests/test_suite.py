"""The test suite's own machinery (tests/conftest.py): what `make test` relies on to run in several processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: A test process that needs ``argv[1]`` passable (``make_passable``, ledger ``argv[2]``) until told to leave.
HOLDER = """
import sys
from pathlib import Path
from tests.conftest import make_passable, put_back
make_passable([Path(sys.argv[1])], Path(sys.argv[2]))
print("in", flush=True)
sys.stdin.readline()
put_back(Path(sys.argv[2]))
"""


def _holder(folder: Path, ledger: Path) -> subprocess.Popen[str]:
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(ledger)], cwd=ROOT, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.readline() == "in\n"
    return p


def _leave(p: subprocess.Popen[str]) -> None:
    assert p.stdin is not None
    p.stdin.write("\n")
    p.stdin.flush()
    assert p.wait(timeout=60) == 0


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def test_the_last_process_that_needed_a_folder_passable_puts_its_mode_back(tmp_path: Path) -> None:
    """Two test processes (two workers) make a folder passable: it stays o+x until the second leaves, then has its
    mode again; a holder killed with -9 keeps it passable only until the next process leaves."""
    folder, ledger = tmp_path / "home", tmp_path / "ledger.json"
    folder.mkdir()
    os.chmod(folder, 0o700)
    a, b = _holder(folder, ledger), _holder(folder, ledger)
    assert _mode(folder) == 0o701
    _leave(a)
    assert _mode(folder) == 0o701  # b still runs as the ordinary user
    _leave(b)
    assert _mode(folder) == 0o700 and not ledger.exists()
    c = _holder(folder, ledger)
    os.kill(c.pid, signal.SIGKILL)
    c.wait()
    assert _mode(folder) == 0o701
    _leave(_holder(folder, ledger))
    assert _mode(folder) == 0o700
