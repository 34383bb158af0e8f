"""C++ solutions of the judge problem in the sandbox (twentyone.judge.boxed): built unchanged with the project's
Blackjack.h, one box a test, every call served by the engine, every illegal call and fault named."""

from __future__ import annotations

from pathlib import Path

import pytest

from twentyone.judge.boxed import JudgeLimits, build, run_test
from twentyone.judge.game import Ending, Game, TestResult
from twentyone.judge.solutions import SAMPLE, Solution, solution

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "judge"
PAD = [10, 8, 10, 7] * 10

pytestmark = pytest.mark.usefixtures("seccomp")


@pytest.fixture(scope="module")
def scenarios() -> Path:
    """The scenarios fixture's box program (built once for the module)."""
    from tests.conftest import require_seccomp

    require_seccomp()
    return build(FIXTURES / "scenarios.cpp")


def same(a: TestResult, b: TestResult) -> None:
    """Two runs of one test ended the same way, hand for hand."""
    assert (a.ending, a.money, a.hands, a.cards, a.curve) == (b.ending, b.money, b.hands, b.cards, b.curve)
    assert (a.illegal.text() if a.illegal else "") == (b.illegal.text() if b.illegal else "")


def test_the_statements_sample_compiles_unchanged_and_gets_a_verdict() -> None:
    """The statement's sample builds as shipped and plays 5 tests in the sandbox exactly as its Python
    transliteration plays them in process: the verdict, and every test's money after each hand."""
    boxed = solution("sample")
    assert boxed.path == SAMPLE and boxed.kind == "cpp"
    local = solution(str(FIXTURES / "sample.py"), trusted=True)
    seeds = [1, 2, 3, 4, 5]
    for got, want in zip(boxed.tests(seeds), local.tests(seeds)):
        same(got, want)
        assert got.ending in (Ending.WON, Ending.ILLEGAL, Ending.BROKE)


@pytest.mark.slow
def test_a_whole_shoe_of_calls_through_the_sandbox_matches_in_process() -> None:
    """A solution betting 1 a hand plays all 260,000 cards (about 50,000 hands) in its box exactly as in process."""
    got = solution(str(FIXTURES / "minbet.cpp")).test(3)
    want = solution(str(FIXTURES / "minbet.py"), trusted=True).test(3)
    same(got, want)
    assert got.ending is Ending.CARDS and got.hands > 40_000


def test_no_solution_finds_the_cards_to_come_in_its_memory(tmp_path: Path) -> None:
    """A solution scanning its loaded segments, heap and stack finds a pattern it placed itself, and not the 24
    cards the shoe deals next: the shoe is never in its address space."""
    mark = [13, 1, 12, 2, 11, 3, 10, 4, 9, 5, 8, 6, 7, 7, 6, 8, 5, 9, 4, 10, 3, 11, 2, 12]
    err = tmp_path / "scan.err"
    r = run_test(build(FIXTURES / "memscan.cpp"), 0, JudgeLimits(), err, Game(cards=PAD + mark))
    report = err.read_text()
    assert "CONTROL FOUND" in report and "MARK MISSING" in report, report
    assert int(report.split("SCANNED ")[1].split()[0]) > 1 << 20  # it looked through megabytes
    assert r.ending is Ending.CARDS and r.hands > 3


def test_a_call_from_a_global_initialiser_is_illegal() -> None:
    """bet_you_have() in a global object's constructor, before the first play(), is an illegal call."""
    r = run_test(build(FIXTURES / "initcall.cpp"), 1)
    assert r.ending is Ending.ILLEGAL and r.illegal is not None
    assert "global initialiser" in r.illegal.why and r.illegal.place == "before the first play()"


@pytest.mark.parametrize(("first", "ending", "words"), [
    ((2, 2), Ending.ILLEGAL, "wrote to standard output"),
    ((2, 3), Ending.ILLEGAL, "read from standard input"),
    ((2, 4), Ending.FAULT, "segmentation fault"),
    ((2, 6), Ending.FAULT, "forbidden system call"),
    ((2, 7), Ending.ILLEGAL, "hit(): after the hand ended with stand()"),
    ((3, 3), Ending.ILLEGAL, "hit_2(): before stand_1()"),
    ((2, 8), Ending.ILLEGAL, "play() returned with the hand unfinished"),
    ((2, 9), Ending.FAULT, "the program ended (exit status 0) inside play()"),
    ((4, 4), Ending.FAULT, "an exception left play()"),
    ((4, 5), Ending.ILLEGAL, "wrote to standard output"),
    ((4, 6), Ending.ILLEGAL, "read from standard input"),
])
def test_each_illegal_call_and_fault_is_named_with_its_place(scenarios: Path, first: tuple[int, int], ending: Ending,
                                                              words: str) -> None:
    """What a solution does wrong in the sandbox ends its test, named, in hand 1."""
    r = run_test(scenarios, 0, JudgeLimits(), None, Game(cards=[*first, 10, 7, 5, 5] + PAD))
    assert r.ending is ending
    assert words in r.reason()
    assert "hand 1" in r.reason()


def test_a_test_has_a_cpu_budget(scenarios: Path) -> None:
    """A solution that computes past the test's CPU seconds is stopped, and the fault says so."""
    r = run_test(scenarios, 0, JudgeLimits(cpu_seconds=1), None, Game(cards=[2, 5, 10, 7] + PAD))
    assert r.ending is Ending.FAULT and "CPU time limit of 1 s" in r.reason()


def test_standard_error_past_its_cap_is_dropped_without_a_fault(scenarios: Path, tmp_path: Path) -> None:
    """Megabytes written to standard error: the file stops at its cap and the test plays on."""
    err = tmp_path / "chatty.err"
    r = run_test(scenarios, 0, JudgeLimits(stderr_bytes=1 << 16), err, Game(cards=[4, 2, 10, 7] + PAD))
    assert err.stat().st_size == 1 << 16
    assert r.ending is Ending.CARDS and r.hands > 5


def test_the_helpers_in_the_box_agree_with_python(scenarios: Path, tmp_path: Path) -> None:
    """is_blackjack, cal_max_point, cal_point and win computed in the box give hands.py's answers."""
    from twentyone.judge import hands

    err = tmp_path / "helpers.err"
    run_test(scenarios, 0, JudgeLimits(), err, Game(cards=[4, 3, 10, 7] + [10, 8, 10, 7]))
    cases = [[13, 3, 6], [1, 5], [11, 13, 2], [1, 10, 8], [1, 1], [1, 13], [12, 1], [1, 1, 9], [0, 14], [7, 7, 7]]
    lines = [ln.split()[1:] for ln in err.read_text().splitlines() if ln.startswith("H ")][:10]
    assert len(lines) == 10
    for v, line in zip(cases, lines):
        bj, best, n, *rest = (int(x) for x in line)
        points, wins = rest[:n], rest[n:]
        assert (bool(bj), best, points) == (hands.is_blackjack(v), hands.cal_max_point(v), hands.cal_point(v))
        assert wins == [hands.win(v, w) for w in cases]


def test_a_solution_that_does_not_compile_says_where() -> None:
    """A compile error is one line and the compiler's messages about the solution's own file."""
    from twentyone.errors import CompileError

    bad = FIXTURES.parent.parent / "fixtures" / "judge" / "minbet.py"  # Python is not C++
    sol = Solution("bad", str(bad), "cpp", bad)
    with pytest.raises(CompileError) as e:
        sol.prepare()
    assert "does not compile" in str(e.value) and str(bad) in e.value.messages


def test_a_solution_that_does_not_link_shows_the_linkers_message() -> None:
    """A link error whose message names no line of the file shows the linker's own words, trimmed (the helper it
    lacks), not just "the linker refused it"."""
    from twentyone.errors import CompileError

    bad = FIXTURES.parent.parent / "fixtures" / "judge" / "nolink.cpp"
    sol = Solution("nolink", str(bad), "cpp", bad)
    with pytest.raises(CompileError) as e:
        sol.prepare()
    messages = e.value.messages
    assert "undefined reference to `tools::decide(int)'" in messages, messages
    assert "tw-build-" not in messages and "/usr/" not in messages, messages
