"""Golden round logs: the same seed and players give the same log, byte for byte, whatever the code's layout.

The logs under ``tests/golden/`` were written by the engine before the package was split into layers
(issue 10); every later change must keep them, except a deliberate change of a ruling, which
regenerates them (``python -m tests.test_golden``) in a commit that says which ruling changed.
Each scenario seats a different mix: built-in players, course C files at other seats than their
function set, Python function sets, sandboxed C and Python players, faulting players, one-rule variants.
The bj transcripts (``bj_*.txt``) are what ``twentyone bj`` prints on a fixed seed, answered by a player
that gives every kind of answer and by a person's typing piped in (issue 34: bj(6) as ``bj.s`` behaved).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
STUDENTS = "tests/fixtures/c/students"
HOSTILE = "tests/fixtures/c/hostile"

#: name -> (player SPECs, decks, seed, rules, sandboxed)
SCENARIOS: dict[str, tuple[list[str], int, int, str, bool]] = {
    "builtins3": (["basic", "hilo", "stand"], 6, 1, "course", False),
    "demo5": (["basic", "hilo", "stand", "c_src/mycodes.c:4", "mycodes/mycodes.py:5"], 6, 2026, "course", False),
    "c_students_1deck": ([f"{STUDENTS}/copy_paste5.c:3", f"{STUDENTS}/static_counter.c", f"{STUDENTS}/bet_grows.c",
                          f"{STUDENTS}/basic.c:2", f"{STUDENTS}/crlf_gbk.c"], 1, 7, "course", False),
    "sandboxed": ([f"{STUDENTS}/copy_paste5.c:2", "tests/fixtures/py/stand_py.py", f"{STUDENTS}/sloppy.c", "hilo"],
                  6, 3, "course", True),
    "faults_sandboxed": ([f"{HOSTILE}/segfault_first_action3.c:3", "basic", f"{HOSTILE}/abort_bet1.c",
                          "tests/fixtures/py/fouls_py.py"], 4, 9, "course", True),
    "fouls_in_process": (["tests/fixtures/py/fouls_py.py", f"{STUDENTS}/utf8_chinese.c", "hilo"], 2, 5, "course",
                         False),
    "mid_round_refill": (["basic", "hilo", "basic", "hilo", f"{STUDENTS}/bet_grows.c"], 1, 29, "course", False),
    "h17": (["basic", "hilo"], 8, 11, "course-h17", False),
    "three_to_two": (["hilo", "stand", "basic"], 6, 12, "course-3to2", False),
    "no_surrender": (["basic", f"{STUDENTS}/helpers.c"], 6, 13, "course-nosurrender", False),
    # Rule variants (issue 17), saved when they were added: split hands, the Changer, a hole card without a peek.
    "split_s17": (["tests/fixtures/py/variants_py.py", "chart:french-expert", "intermediate", f"{STUDENTS}/basic.c"],
                  6, 21, "s17-3to2-6d", False),
    "french": (["tests/fixtures/py/variants_py.py", "expert", "amateur", "intermediate"], 1, 22, "french", False),
}


#: name -> (arguments of ``twentyone bj``, what is typed on its input: answers, the last one without its newline)
BJ_TRANSCRIPTS: dict[str, tuple[list[str], bytes]] = {
    "bj_seed20": (["--player", "tests/fixtures/py/bj_every_answer.py", "--seed", "20", "--rounds", "30",
                   "--trusted"], b""),
    "bj_person_seed7": (["--seed", "7"], b"y\n\nY\nyes\nx\n\ny\n" * 4 + b"y"),
}


def bj_transcript(name: str) -> bytes:
    """What ``twentyone bj`` prints in scenario ``name``, run from the repository root."""
    args, typed = BJ_TRANSCRIPTS[name]
    proc = subprocess.run([sys.executable, "-m", "twentyone", "bj", *args], cwd=ROOT, input=typed,
                          capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"bj scenario {name} exited with {proc.returncode}: {proc.stderr[-2000:]!r}")
    return proc.stdout


def write_log(name: str, out: Path, output_dir: Path) -> None:
    """Play scenario ``name`` from the repository root and write its round log to ``out``."""
    specs, decks, seed, rules, sandboxed = SCENARIOS[name]
    argv = ["match", "--decks", str(decks), "--seed", str(seed), "--rules", rules, "--log", str(out),
            "--json", "--output-dir", str(output_dir)]
    for s in specs:
        argv += ["--player", s]
    argv.append("--sandbox" if sandboxed else "--trusted")  # the sandbox is the default; in process on request
    # A process of its own, as a user runs it: nothing loaded by other tests is shared.
    proc = subprocess.run([sys.executable, "-m", "twentyone", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"scenario {name} exited with {proc.returncode}: {proc.stderr[-2000:]}")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.slow
def test_round_log_is_golden(name: str, tmp_path: Path) -> None:
    """The scenario's round log is byte-identical to the one saved before the package was split."""
    out = tmp_path / f"{name}.jsonl"
    write_log(name, out, tmp_path / "output")
    assert out.read_bytes() == (GOLDEN / f"{name}.jsonl").read_bytes()


@pytest.mark.parametrize("name", sorted(BJ_TRANSCRIPTS))
def test_bj_transcript_is_golden(name: str) -> None:
    """twentyone bj prints, byte for byte, the transcript saved when it was made to behave as bj.s."""
    assert bj_transcript(name) == (GOLDEN / f"{name}.txt").read_bytes()


if __name__ == "__main__":  # regenerate: only for a deliberate change of a ruling
    import tempfile

    GOLDEN.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in sorted([*SCENARIOS, *BJ_TRANSCRIPTS]) if len(sys.argv) < 2 else sys.argv[1:]:
            if scenario in BJ_TRANSCRIPTS:
                (GOLDEN / f"{scenario}.txt").write_bytes(bj_transcript(scenario))
                print(f"wrote {GOLDEN / scenario}.txt")
                continue
            write_log(scenario, GOLDEN / f"{scenario}.jsonl", Path(tmp))
            print(f"wrote {GOLDEN / scenario}.jsonl")

