"""The package's layers at run time: what a command loads (the import graph itself is held by lint-imports)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_report_loads_neither_table_nor_sandbox_nor_c_bridge(tmp_path: Path) -> None:
    """`twentyone report` remakes a run's reports from its database without importing the engine's writing side."""
    out = tmp_path / "run"
    play = [sys.executable, "-m", "twentyone", "tournament", "basic", "stand", "--matches", "2", "--out", str(out),
            "--quiet", "--workers", "1"]
    assert subprocess.run(play, cwd=ROOT, capture_output=True, timeout=300).returncode == 0
    probe = ("import sys; from twentyone.cli import main; code = main(['report', sys.argv[1], '--quiet']); "
             "bad = sorted(m for m in sys.modules if m.startswith(('twentyone.table', 'twentyone.match', "
             "'twentyone.players', 'twentyone.core', 'twentyone._core', 'twentyone.grading.runner', "
             "'twentyone.grading.grader'))); print(code, bad)")
    proc = subprocess.run([sys.executable, "-c", probe, str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.stdout.strip() == "0 []", proc.stderr
    assert (out / "index.html").is_file()
