"""Real hand-ins as they arrive (issues 11 and 15): Dev-C++ and Visual Studio projects, zips, Chinese names,
.cpp files, PERSON left on, the students' own headers and main.c, and grades that machine load cannot change.

The fixtures are in tests/fixtures/handins/ (tests/handins.py says how the zips are made).  Most report
checks share one small ``grade`` run of a class of hand-ins (``class_run``); each test asserts one point.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.handins import (CLI, HANDINS, ROOT, SMALL_GRADE, STUDENTS, c_program, chromium_or_skip, cli_env,
                           descendants, mojibake, run_cli, screenshot, strip_players, write_config,
                           zip_folder, zip_tree)

#: End-to-end runs of the command line (sandboxed matches and grades): `make test` runs them, `make test-fast`
#: leaves them out.
pytestmark = pytest.mark.slow

PERSON_ON = HANDINS / "person_on" / "mycodes.c"
REAL = HANDINS / "real_course"
ZHANGSAN = HANDINS / "张三_2023001"
CJK_NAME = "张三_2023001"


@pytest.fixture(scope="session")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One compiled-file cache for every CLI run of this module (TWENTYONE_CACHE)."""
    return tmp_path_factory.mktemp("twentyone-cache")


def _lines_with(text: str, word: str) -> list[str]:
    return [ln for ln in text.splitlines() if word in ln]


# ============================================================================ the class run (issue 15 + 11)

@dataclass
class ClassRun:
    """One ``twentyone grade`` of a class of hand-ins: what it printed and what it wrote."""

    out: Path
    returncode: int
    stdout: str
    stderr: str
    sources: dict[str, Path]
    scores: dict[str, Any] = field(default_factory=dict)

    def student(self, key: str) -> dict[str, Any]:
        """The scores.json entry of the hand-in ``key`` (found by its source path, whatever it is named)."""
        want = str(self.sources[key])
        found = [s for s in self.scores["students"] if s["source"] == want]
        assert len(found) == 1, (want, [s["source"] for s in self.scores["students"]])
        return found[0]

    def page(self, key: str) -> str:
        """The student page of the hand-in ``key``."""
        return (self.out / "students" / f"{self.student(key)['name']}.html").read_text(encoding="utf-8")

    def everything(self) -> str:
        """The terminal output and every text file of the report."""
        texts = [self.stdout, self.stderr]
        for p in sorted(self.out.rglob("*")):
            if p.is_file() and p.suffix in (".html", ".json", ".csv") and "work" not in p.relative_to(self.out).parts:
                texts.append(p.read_text(encoding="utf-8", errors="replace"))
        return "\n".join(texts)


@pytest.fixture(scope="module")
def class_run(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> ClassRun:
    """A small sandboxed ``grade`` of seven hand-ins, built as students hand them in."""
    tmp = tmp_path_factory.mktemp("class")
    sources = {
        # five function sets, PERSON on, GBK and CRLF, a Hi-Lo count in shared statics, huge count-driven bets
        "real": REAL,
        # a foul every round ('i' with no A showing), to see what the incidents say
        "insure": HANDINS / "always_insure",
        # its own main.c calls advantage() of its mycodes.c at every reshuffle
        "own_main": HANDINS / "own_main",
        # a zip with mycodes.c at the top and an older backup/mycodes.c that fouls
        "backup": zip_folder(HANDINS / "two_copies", tmp / "2023012.zip"),
        # a zip with two copies equally deep (Windows names a copied folder "... - 副本")
        "same_depth": zip_tree({"21点游戏/mycodes.c": (HANDINS / "two_copies" / "mycodes.c").read_bytes(),
                                "21点游戏 - 副本/mycodes.c": (HANDINS / "two_copies" / "mycodes.c").read_bytes()},
                               tmp / "2023015.zip"),
        # a Chinese student name
        "zhangsan": ZHANGSAN,
        # Windows' zip tool: CP936 entry names without the UTF-8 flag; PERSON on; a backup in 备份/
        "cp936": zip_folder(HANDINS / "cp936_project", tmp / "2023014.zip", cp936=True),
    }
    cfg = write_config(tmp / "grading.toml", SMALL_GRADE)
    out = tmp / "out"
    r = run_cli(["grade", *sources.values(), "--config", cfg, "--out", out], cache, timeout=900)
    run = ClassRun(out, r.returncode, r.stdout, r.stderr, sources)
    assert "Traceback" not in r.stderr, r.stderr
    assert (out / "scores.json").is_file(), r.stderr
    run.scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    return run


# ----------------------------------------------------------------------------------------------- issue 15

def _unaffordable_doubles(log: Path, seat: int) -> int:
    """Rounds in which ``seat`` doubled (or tried to) without the money for the whole double."""
    n = 0
    for line in log.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["type"] != "round":
            continue
        for p in rec["players"]:
            tried = p["doubled"] or p["foul"] == "unaffordable_double"
            if p["seat"] == seat and tried and p["account_before"] - p["bet"] - p["insurance"] < p["bet"]:
                n += 1
    return n


def test_real_submission_loses_no_point_for_doubles_the_course_program_allowed(class_run: ClassRun, cache: Path,
                                                                               tmp_path: Path) -> None:
    """The real submission doubles without the money for it (double for less): legal play keeps all its points."""
    found = 0
    for seed in (4, 6, 7):
        log = tmp_path / f"m{seed}.jsonl"
        r = run_cli(["match", "-p", REAL / "mycodes.c", "-p", "basic", "--seed", seed, "--log", log,
                     "--output-dir", tmp_path / "printed"], cache, timeout=300)
        assert r.returncode == 0, r.stderr
        found += _unaffordable_doubles(log, 1)
    assert found, "the fixture no longer doubles without the money for it: make its bets bigger"
    st = class_run.student("real")
    legal = next(c for c in st["criteria"] if c["name"] == "legal")
    causes = [i["cause"] for i in st["incidents"]]
    assert not any("double" in c for c in causes), causes
    assert legal["status"] == "pass" and legal["points"] == legal["max_points"], legal


def test_every_incident_says_what_the_course_program_did(class_run: ClassRun) -> None:
    """Each incident in the report says whether the course program would have accepted it."""
    st = class_run.student("insure")
    assert st["incident_count"] > 0 and st["incidents"]
    note = re.compile(r"course|课程", re.IGNORECASE)
    in_data = all(note.search(" ".join(str(v) for k, v in inc.items() if k != "excerpt")) for inc in st["incidents"])
    # or on the page: the incidents section mentions the course program at least once per incident shown
    section = class_run.page("insure").split("Incidents", 1)[-1]
    assert in_data or len(note.findall(section)) >= len(st["incidents"]), (st["incidents"][0], section[:1500])


def test_shallowest_mycodes_is_graded_and_the_other_named(class_run: ClassRun) -> None:
    """mycodes.c and backup/mycodes.c in one zip: the top one is graded, the backup named in a warning and report."""
    st = class_run.student("backup")
    assert st["error"] is None, st["error"]
    legal = next(c for c in st["criteria"] if c["name"] == "legal")
    assert legal["status"] == "pass" and st["incident_count"] == 0, legal  # backup/mycodes.c fouls every hand
    warned = [ln for ln in class_run.stderr.splitlines() if "backup/mycodes.c" in ln]
    assert warned, class_run.stderr
    assert "backup/mycodes.c" in class_run.page("backup")


def test_two_equally_shallow_copies_are_refused_naming_both(class_run: ClassRun) -> None:
    """Two mycodes.c at the same depth: the hand-in is refused, and the error names both."""
    st = class_run.student("same_depth")
    assert st["error"], st
    for path in ("21点游戏/mycodes.c", "21点游戏 - 副本/mycodes.c"):
        assert path in st["error"], st["error"]
        assert path in class_run.stderr, class_run.stderr
    assert class_run.returncode == 1  # one hand-in could not be graded; the others were


def test_own_main_calling_outside_the_interface_is_reported(class_run: ClassRun) -> None:
    """The student's main.c calls advantage() of their mycodes.c: the report says the course main.c never does."""
    st = class_run.student("own_main")
    assert st["error"] is None, st["error"]
    page = class_run.page("own_main")
    assert "advantage" in page and "main.c" in page, re.sub(r"(?s)<style>.*?</style>", "", page)[:1500]


def test_shared_statics_say_the_graded_set_played_alone(class_run: ClassRun) -> None:
    """Function sets that share statics: the report says which variables the sets not played would change."""
    note = re.compile(r"also changes?;|独立", re.IGNORECASE)
    page = class_run.page("real")
    assert note.search(page), re.sub(r"(?s)<style>.*?</style>", "", page)[:1500]
    assert not note.search(class_run.page("zhangsan"))  # no static variable in that file


def test_person_note_once_per_file_in_grade(class_run: ClassRun) -> None:
    """Two hand-ins with PERSON on: one note each on the terminal, and one on each of their pages."""
    terminal = _lines_with(class_run.stdout + "\n" + class_run.stderr, "PERSON")
    assert len(terminal) == 2, terminal
    for key in ("real", "cp936"):
        assert "PERSON" in class_run.page(key), key
    assert "PERSON" not in class_run.page("zhangsan")


def test_person_note_once_for_five_sets_in_a_tournament(tmp_path: Path, cache: Path) -> None:
    """A tournament of the five function sets of one PERSON file prints the PERSON note once."""
    r = run_cli(["tournament", *(f"{PERSON_ON}:{k}" for k in range(1, 6)), "--matches", "1", "--format", "table5",
                 "--trusted", "--out", tmp_path / "t", "-j", "1"], cache, timeout=300)
    assert r.returncode == 0, r.stderr
    notes = _lines_with(r.stdout + "\n" + r.stderr, "PERSON")
    assert len(notes) == 1, notes


def test_identical_copies_get_identical_bonuses(tmp_path: Path, cache: Path) -> None:
    """Four copies of one file get the same bonus; a clearly better strategy gets strictly more."""
    novice = (HANDINS / "novice" / "mycodes.c").read_bytes()
    copies = []
    for name in ("liu_yang", "wang_fang", "zhou_jie", "sun_li"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mycodes.c").write_bytes(novice)
        copies.append(tmp_path / name)
    better = tmp_path / "chen_chart"
    better.mkdir()
    shutil.copy(STUDENTS / "basic.c", better / "mycodes.c")  # the basic-strategy chart, flat bets
    cfg = write_config(tmp_path / "g.toml", {"legal": {"matches": 1},
                                            "beat_stand": {"batch": 2, "min_matches": 2, "max_matches": 2},
                                            "beat_basic": {"batch": 2, "min_matches": 2, "max_matches": 2},
                                            "tournament": {"matches": 10}})
    out = tmp_path / "out"
    r = run_cli(["grade", *copies, better, "--config", cfg, "--out", out, "-q"], cache, timeout=900)
    assert r.returncode == 0, r.stderr
    bonus = {s["source"]: s["bonus"] for s in json.loads((out / "scores.json").read_text())["students"]}
    same = {bonus[str(p)] for p in copies}
    assert len(same) == 1, {p.name: bonus[str(p)] for p in copies}
    assert bonus[str(better)] > same.pop(), bonus


def _stall(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


@pytest.mark.slow
def test_load_and_stalls_never_charge_the_sleeper_and_always_the_looper(tmp_path: Path, cache: Path) -> None:
    """Busy cores and 2 s worker stalls: a 1 ms-per-round sleeper is never charged a time-out, a looper always is."""
    # Load: one busy process per core.  Stalls: every 2.5 s, every process below `grade` (the pool workers and
    # the sandboxed players, so whichever one is waiting for a decision) is stopped for 2 s, then continued.
    # A wall-clock decision limit charges the sleeper for the stall (it does on today's code); a CPU-time limit
    # with a wall-clock backstop of 10x, blocking charged from the kernel's figures, and a replay of every wall-clock
    # time-out, must not.  The looper's time-outs are on its box's own CPU clock: they stand, never replayed.
    sleeper, looper = HANDINS / "sleeper", HANDINS / "looper"
    cfg = write_config(tmp_path / "g.toml", {"legal": {"matches": 1},
                                            "beat_stand": {"batch": 4, "min_matches": 4, "max_matches": 4},
                                            "beat_basic": {"batch": 4, "min_matches": 4, "max_matches": 4},
                                            "tournament": {"matches": 1}})
    out = tmp_path / "out"
    for sub in (sleeper, looper):  # compile first, so the stalls fall on matches
        r = run_cli(["match", "-p", sub / "mycodes.c", "--seed", "1", "--sandbox", "--decision-timeout", "0.2",
                     "--output-dir", tmp_path / "printed"], cache, timeout=300)
        assert r.returncode == 0, r.stderr
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    proc = None
    stalls = 0
    try:
        proc = subprocess.Popen(CLI + ["grade", str(sleeper), str(looper), "--config", str(cfg), "--out", str(out),
                                       "--decision-timeout", "0.5", "-q"], env=cli_env(cache), cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(2.5)
            workers = descendants(proc.pid)
            if not workers or proc.poll() is not None:
                continue
            _stall(workers, signal.SIGSTOP)
            time.sleep(2.0)
            _stall(workers, signal.SIGCONT)
            stalls += 1
        _, err = proc.communicate(timeout=60)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        if proc is not None and proc.poll() is None:
            _stall(descendants(proc.pid), signal.SIGCONT)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stderr = err.decode("utf-8", "replace")
    assert proc.returncode == 0, stderr
    assert stalls >= 2, "the run ended before the workers could be stalled twice"
    students = {s["source"]: s for s in json.loads((out / "scores.json").read_text())["students"]}
    slept, looped = students[str(sleeper)], students[str(looper)]
    causes = [i["cause"] for i in slept["incidents"]]
    legal = next(c for c in slept["criteria"] if c["name"] == "legal")
    assert not any("time" in c for c in causes) and legal["status"] == "pass", (causes, legal)
    looped_legal = next(c for c in looped["criteria"] if c["name"] == "legal")
    assert looped_legal["status"] == "fail" and any("time" in i["cause"] for i in looped["incidents"]), looped
    assert {i["cause"] for i in looped["incidents"] if "time" in i["cause"]} == {"timeout"}, looped["incidents"]


# ----------------------------------------------------------------------------------------------- issue 11

def _run_c(exe: Path, *args: object, cwd: Path | None = None, env: dict[str, str] | None = None,
           stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(exe), *map(str, args)], stdin=stdin, capture_output=True, timeout=120, cwd=cwd,
                          env=env)


def test_person_on_c_program_log_is_the_engine_log(tmp_path: Path, cache: Path) -> None:
    """PERSON on: make c-program and twentyone-c --seed write the same log as twentyone match, with one note."""
    exe, made = c_program(PERSON_ON, tmp_path)
    said = made.stdout + made.stderr
    for seed, decks, seats in ((1, 6, 2), (5, 2, 5)):
        clog, pylog = tmp_path / f"c{seed}.jsonl", tmp_path / f"py{seed}.jsonl"
        r = _run_c(exe, "--seed", seed, "--decks", decks, "--seats", seats, "--log", clog, "--quiet",
                   "--source", PERSON_ON)
        text = r.stdout.decode("utf-8", "replace") + r.stderr.decode("utf-8", "replace")
        assert r.returncode == 0, text
        assert len(_lines_with(text, "PERSON")) <= 1, text
        said += text
        specs = [a for k in range(1, seats + 1) for a in ("-p", f"{PERSON_ON}:{k}")]
        p = run_cli(["match", *specs, "--seed", seed, "--decks", decks, "--log", pylog, "--trusted",  # one copy of
                     "--output-dir", tmp_path / "printed"], cache, timeout=300)  # the statics, as the C program
        assert p.returncode == 0, p.stderr
        assert clog.read_bytes() == pylog.read_bytes(), (seed, decks, seats)
    assert _lines_with(said, "PERSON"), "no note that PERSON was switched off"


def test_real_submission_c_program_log_is_the_engine_log(tmp_path: Path, cache: Path) -> None:
    """The real submission (PERSON on, doubles it cannot pay in full) writes the same log from both sides."""
    src = REAL / "mycodes.c"
    exe, _ = c_program(src, tmp_path)
    found = 0
    for seed, seats in ((4, 2), (6, 2), (7, 2), (8, 5)):
        clog, pylog = tmp_path / f"c{seed}.jsonl", tmp_path / f"py{seed}.jsonl"
        r = _run_c(exe, "--seed", seed, "--decks", 6, "--seats", seats, "--log", clog, "--quiet", "--source", src)
        assert r.returncode == 0, r.stderr
        p = run_cli(["match", *(a for k in range(1, seats + 1) for a in ("-p", f"{src}:{k}")), "--seed", seed,
                     "--log", pylog, "--output-dir", tmp_path / "printed", "--trusted"], cache, timeout=300)
        assert p.returncode == 0, p.stderr
        assert clog.read_bytes() == pylog.read_bytes(), seed
        found += sum(_unaffordable_doubles(pylog, k) for k in range(1, seats + 1))
    assert found, "no double without the money for it in these matches"


def test_person_on_c_program_is_still_the_manual_game(tmp_path: Path) -> None:
    """Without arguments the PERSON build still plays by hand: the bets and moves typed are used."""
    exe, _ = c_program(PERSON_ON, tmp_path)
    keys = "2\nLi\n6\n" + "20\ns\n" * 80  # 2 people: the dealer and Li
    r = subprocess.run([str(exe)], input=keys.encode(), capture_output=True, timeout=120)
    out = r.stdout.decode("utf-8")  # the file's GBK prompts come out in UTF-8, as the program's own words
    assert r.returncode == 0, out[-2000:]
    assert "游戏结束" in out and "违规" not in out
    assert "赌注 20，" in out and "玩家1请下注(至少10元)" in out


def _bare_person(src: Path, dest: Path) -> Path:
    """``src`` with every printf of its PERSON branches taken out: the bet read by a bare scanf and the actions
    by a bare getche, as in the real submission from the public record."""
    lines, inside = [], False
    for line in src.read_bytes().decode("gbk").splitlines():
        if line.strip().startswith("#ifdef PERSON"):
            inside = True
        elif line.strip().startswith(("#else", "#endif")):
            inside = False
        lines.append(re.sub(r"printf\(.*\);", ";", line) if inside else line)
    dest.write_text("\n".join(lines) + "\n", encoding="gbk")
    return dest


def _play_by_hand(exe: Path, start: str, answers: dict[str, str | Callable[[str], str]],
                  timeout: float = 120) -> tuple[int, str]:
    """Run the manual game, type ``start``, then answer each question the moment its prompt (a key of
    ``answers``) is on the screen, as a person does; (exit status, what it printed).  An answer may be a function
    of what is on the screen when it is asked."""
    import select

    proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(start.encode())
    proc.stdin.flush()
    seen = b""
    asked = dict.fromkeys(answers, 0)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 5)
        if not ready:
            break
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        seen += chunk
        text = seen.decode("utf-8", "replace")
        for prompt, answer in answers.items():
            n = text.count(prompt)
            if n > asked[prompt]:
                said = answer(text) if callable(answer) else answer
                proc.stdin.write(said.encode() * (n - asked[prompt]))
                proc.stdin.flush()
                asked[prompt] = n
    proc.stdin.close()
    code = proc.wait(timeout=30)
    return code, seen.decode("utf-8")


def _twenty_then_all_in(screen: str) -> str:
    """A bet: 20 in the first eight rounds (the table the test looks for is shown in a round where player 1 has no
    Black Jack and is asked; a round is not such a round about one time in seven, the shoe being the game's own),
    then all the player has, so the game ends once both are out of money, a few rounds later: the real hand-in's
    show waits half a second, as on the student's screen, and 100 rounds took 100 s."""
    if "========== 第 9 局" not in screen:
        return "20\n"
    return re.findall(r"剩余赌资 (\d+) 元，请下注", screen)[-1] + "\n"


@pytest.mark.parametrize("fixture", ["real_course", "bare"])
def test_person_on_manual_game_shows_the_table_in_the_courses_words(fixture: str, tmp_path: Path) -> None:
    """PERSON on, no arguments: before each question the program shows the table as the course's main.c did, in
    its words (the dealer's up card and X, every hand, the money), and each round's results and the ranking;
    a file whose scanf and getche ask without a prompt is playable by hand too."""
    (tmp_path / "bare").mkdir()
    src = _bare_person(PERSON_ON, tmp_path / "bare" / "mycodes.c") if fixture == "bare" else \
        HANDINS / fixture / "mycodes.c"
    if fixture == "bare":
        assert b"printf" not in src.read_bytes().split(b"#else")[0].split(b"#ifdef PERSON")[-1]
    exe, _ = c_program(src, tmp_path / "build")
    code, out = _play_by_hand(exe, "3\n李明\n王芳\n6\n", {"请下注（不低于 10 元）：": _twenty_then_all_in, "），请选择（": "s"})
    assert code == 0, out[-2000:]
    for asked in ("请输入游戏人数（2-6，含庄家）：", "请输入玩家1的名字：", "请输入牌的副数（1-8）：", "========== 第 1 局 ==========",
                  "玩家1 李明，剩余赌资 1000 元，请下注（不低于 10 元）：", "玩家2 王芳，剩余赌资 1000 元，请下注"):
        assert asked in out, asked
    assert re.search(r"庄家：([2-9TJQKA]) X（明牌 \1，暗牌朝下）\n  玩家1 李明：\S \S（\d+点(，黑杰克)?）赌注 20\n"
                     r"  玩家2 王芳：\S \S（\d+点(，黑杰克)?）赌注 20\n玩家1 李明，你的牌：\S \S（\d+点），请选择（", out)
    assert re.search(r"庄家的牌：[2-9TJQKA ]+（\d+点(，爆掉|，黑杰克)?）\n  玩家1 李明：[2-9TJQKA ]+（\d+点）赌注 20，"
                     r"(爆掉，|黑杰克，)?(赢 \+|平局 \+|输 -)\d+，剩余赌资 \d+", out)
    assert "游戏结束：" in out and re.search(r"第 [12] 名：玩家1 李明，剩余赌资 \d+，\d+ 局", out)
    assert "违规" not in out and "round 1:" not in out and "match ended" not in out


def test_person_on_manual_game_counts_the_dealer_and_shows_a_doubled_stake(tmp_path: Path) -> None:
    """The manual game asks how many people play, the dealer included, as the course does (2 to 6: 1 and 7 are
    asked again, 2 is one player); a double's result shows the bet and the stake it became."""
    exe, _ = c_program(PERSON_ON, tmp_path)
    code, out = _play_by_hand(exe, "1\n7\n2\n李明\n6\n", {"请下注（不低于 10 元）：": "20\n", "），请选择（": "d"})
    assert code == 0, out[-2000:]
    assert out.count("请输入游戏人数（2-6，含庄家）：") == 3 and out.count("请输入 2 到 6 之间的整数") == 2
    assert "请输入玩家1的名字：" in out and "玩家2" not in out
    assert re.search(r"玩家1 李明：\S \S \S（\d+点）赌注 20，加倍后 40，(爆掉，)?(赢 \+40|平局 \+0|输 -40)，", out)


def test_own_headers_are_not_used_and_named_in_a_warning(tmp_path: Path, cache: Path) -> None:
    """A folder with its own twentyone.h (an extra Player field): a warning names it; play is as without it."""
    # The student's twentyone.h adds `int insured;` after `state`, so their points/mybets offsets and
    # sizeof(Player) differ from the project's: built against it, the program plays differently (it does today).
    own = HANDINS / "own_headers" / "mycodes.c"
    alone = tmp_path / "alone" / "mycodes.c"
    alone.parent.mkdir()
    shutil.copy(own, alone)
    exe_own, made = c_program(own, tmp_path / "own")
    exe_alone, _ = c_program(alone, tmp_path / "alone-build")
    logs = []
    said = made.stdout + made.stderr
    for exe in (exe_own, exe_alone):
        log = tmp_path / f"{len(logs)}.jsonl"
        r = _run_c(exe, "--seed", 1, "--decks", 6, "--seats", 2, "--log", log, "--quiet", "--source", own)
        assert r.returncode == 0, r.stderr
        said += r.stdout.decode("utf-8", "replace") + r.stderr.decode("utf-8", "replace")
        logs.append(log.read_bytes())
    assert logs[0] == logs[1], "the student's own twentyone.h changed how the program plays"
    p = run_cli(["match", "-p", f"{own}:1", "-p", f"{own}:2", "--seed", 1, "--log", tmp_path / "py.jsonl",
                 "--output-dir", tmp_path / "printed", "--trusted"], cache, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "py.jsonl").read_bytes() == logs[0]
    warned = [ln for ln in said.splitlines() if "twentyone.h" in ln and "warn" in ln.lower()]
    assert warned, said


def test_quiet_c_program_keeps_the_students_printing_off_the_terminal(tmp_path: Path) -> None:
    """./twentyone-c --quiet with a printf-heavy file: under 10 lines on the terminal, the printing in a file."""
    exe, _ = c_program(HANDINS / "printf_debug" / "mycodes.c", tmp_path)
    run, home = tmp_path / "run", tmp_path / "home"
    run.mkdir()
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
               TWENTYONE_CACHE=str(tmp_path / "cache"))
    r = _run_c(exe, "--seed", 1, "--decks", 6, "--seats", 3, "--quiet", cwd=run, env=env)
    out, err = r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    assert r.returncode == 0, err
    assert len(out.splitlines()) < 10, f"{len(out.splitlines())} lines: {out[:500]}"
    assert "[调试]" not in out + err
    assert all(f"player{k}" in out for k in (1, 2, 3)), out  # the final standings are still shown
    # The printing is in a file: under this test's folders, or at a path the program names.
    named = [Path(t) for t in re.findall(r"(/[^\s'\"]+)", out + err)]
    candidates = [p for p in tmp_path.rglob("*") if p.is_file()] + [p for p in named if p.is_file()]
    candidates += [f for p in named if p.is_dir() for f in p.rglob("*") if f.is_file()]
    assert any("[调试]".encode() in p.read_bytes() for p in candidates if p.stat().st_size < 1 << 26), \
        "the student's printing was not found in any file"


def test_tournament_takes_zips_folders_and_builtins(tmp_path: Path, cache: Path) -> None:
    """twentyone tournament a.zip some/folder basic plays all three."""
    z = zip_folder(HANDINS / "cstyle_c", tmp_path / "sun_li.zip", prefix="21点游戏/")
    r = run_cli(["tournament", z, HANDINS / "novice", "basic", "--matches", "2", "--format", "pairs",
                 "--out", tmp_path / "t", "-j", "1"], cache, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "t" / "scores.json").read_text())["standings"]
    assert len(rows) == 3 and all(row["error"] is None and row["matches"] > 0 for row in rows), rows
    assert {row["name"] for row in rows} == {"sun_li", "novice", "basic"}


def test_match_takes_a_zip_and_a_folder(tmp_path: Path, cache: Path) -> None:
    """twentyone match -p x.zip -p folder/ plays the files inside, exactly as when they are named directly."""
    z = zip_folder(HANDINS / "cstyle_c", tmp_path / "sun_li.zip", prefix="21点游戏/")
    logs = []
    direct = [HANDINS / "cstyle_c" / "mycodes.c", HANDINS / "novice" / "mycodes.c"]
    for specs in ([z, f"{HANDINS / 'novice'}/"], direct):
        log = tmp_path / f"{len(logs)}.jsonl"
        r = run_cli(["match", "-p", specs[0], "-p", specs[1], "--seed", 3, "--log", log,
                     "--output-dir", tmp_path / "printed"], cache, timeout=300)
        assert r.returncode == 0, r.stderr
        logs.append(strip_players(log.read_text(encoding="utf-8")))
    assert logs[0] == logs[1]


def test_cpp_c_style_hand_in_plays_like_its_c_twin(tmp_path: Path, cache: Path) -> None:
    """mycodes.cpp (a C-style Dev-C++ C++ project, with main.cpp) plays the same matches as its C twin."""
    cpp, c = HANDINS / "cstyle_cpp" / "mycodes.cpp", HANDINS / "cstyle_c" / "mycodes.c"
    runs = {"cpp": [f"{cpp}:1", f"{cpp}:3", "basic"], "c": [f"{c}:1", f"{c}:3", "basic"],
            "folder": [f"{HANDINS / 'cstyle_cpp'}/", "basic"], "c1": [f"{c}:1", "basic"]}
    logs: dict[str, list[str]] = {}
    for seed in (1, 2):
        for what, specs in runs.items():
            log = tmp_path / f"{what}{seed}.jsonl"
            r = run_cli(["match", *(a for s in specs for a in ("-p", s)), "--seed", seed, "--log", log,
                         "--output-dir", tmp_path / "printed"], cache, timeout=300)
            assert r.returncode == 0, (what, r.stderr)
            logs[what] = strip_players(log.read_text(encoding="utf-8"))
        assert logs["cpp"] == logs["c"], seed
        assert logs["folder"] == logs["c1"], seed  # the folder's mycodes.cpp is played, not main.cpp


def test_real_cpp_hand_in_compiles_and_plays(tmp_path: Path, cache: Path) -> None:
    """A real C++ mycodes.cpp (class, std::vector, std::string, iostream) plays, in process and sandboxed."""
    # In process (--trusted) several matches run in one process, so the file's statics (a global object holding
    # a vector) are put back between matches: that must neither crash nor foul.
    src = HANDINS / "real_cpp" / "mycodes.cpp"
    r = run_cli(["tournament", src, "basic", "stand", "--matches", "4", "--format", "pairs", "--trusted",
                 "--out", tmp_path / "t", "-j", "1"], cache, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "t" / "scores.json").read_text())["standings"]
    mine = [row for row in rows if row["name"] not in ("basic", "stand")]
    assert len(mine) == 1 and mine[0]["error"] is None and mine[0]["matches"] >= 8, rows
    assert mine[0]["fouls"] == 0 and mine[0]["faults"] == 0, mine
    m = run_cli(["match", "-p", f"{src}:2", "-p", "basic", "--sandbox", "--seed", 5, "--json",
                 "--output-dir", tmp_path / "printed"], cache, timeout=300)
    assert m.returncode == 0, m.stderr
    result = json.loads(m.stdout.splitlines()[-1])
    assert result["rounds"] > 10 and all(s["fault"] is None and s["fouls"] == 0 for s in result["ranking"])


def test_cpp_iostream_output_stays_off_the_terminal(tmp_path: Path, cache: Path) -> None:
    """What a C++ file writes to std::cout goes to the per-match output file, as printf does, not the terminal."""
    src = HANDINS / "real_cpp" / "mycodes.cpp"
    printed = tmp_path / "printed"
    r = run_cli(["match", "-p", f"{src}:1", "-p", "basic", "--seed", 4, "--output-dir", printed], cache, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "[HiLo]" not in r.stdout + r.stderr
    assert any("[HiLo]" in p.read_text(encoding="utf-8", errors="replace") for p in printed.rglob("*") if p.is_file())


def test_cp936_zip_paths_are_readable(class_run: ClassRun) -> None:
    """A zip made by Windows (CP936 names, no UTF-8 flag): paths read 21点游戏, never cp437 mojibake."""
    st = class_run.student("cp936")
    assert st["error"] is None, st["error"]
    everything = class_run.everything()
    for name in ("21点游戏", "王小明", "备份", "说明"):
        assert mojibake(name) not in everything, name
    shown = class_run.stdout + class_run.stderr + class_run.page("cp936")
    assert "21点游戏" in shown, "no path inside the zip is shown (the backup in 备份/ should be named)"


def test_chinese_name_brings_no_library_warning_to_the_terminal(class_run: ClassRun) -> None:
    """A Chinese student name: charts are drawn in the page, the name in them as text, and no warning of any
    library is printed."""
    st = class_run.student("zhangsan")
    assert st["error"] is None and st["name"].startswith("张三"), st["name"]
    page = class_run.page("zhangsan")
    charts = re.findall(r"<svg\b.*?</svg>", page, re.S)
    assert charts and any(f">{st['name']}</text>" in c for c in charts), "no chart names the student"
    assert "Glyph" not in class_run.stderr and "missing from font" not in class_run.stderr, class_run.stderr
    assert not re.search(r"\w+Warning:", class_run.stderr), class_run.stderr


def test_chinese_name_renders_in_the_browser(class_run: ClassRun, tmp_path: Path) -> None:
    """Headless Chromium renders the student page of 张三_2023001 with real glyphs, not tofu."""
    # The page is rendered from copies in its own folder (so its charts load): the name as 张张 twice, then as
    # 三三.  The two 张张 screenshots must be identical (rendering is deterministic) and the 三三 one must
    # differ: tofu boxes are the same for both characters.  (Checked both ways: with a fontconfig that holds
    # only DejaVu the screenshots are identical; with Noto Sans CJK installed they differ.)
    exe = chromium_or_skip()
    from PIL import Image, ImageChops

    folder = class_run.out / "students"
    name = class_run.student("zhangsan")["name"]
    html = (folder / f"{name}.html").read_text(encoding="utf-8")
    shots = []
    for tag, twin in (("a", "张张"), ("a2", "张张"), ("b", "三三")):
        twin_name = name.replace("张三", twin)
        if (folder / name).is_dir() and not (folder / twin_name).exists():
            shutil.copytree(folder / name, folder / twin_name)  # charts linked by a raw path still load
        page = folder / f"_tofu_{tag}.html"
        page.write_text(html.replace("张三", twin), encoding="utf-8")
        shots.append(Image.open(screenshot(exe, page, tmp_path / f"{tag}.png")).convert("RGB"))
    assert ImageChops.difference(shots[0], shots[1]).getbbox() is None, "the page does not render the same twice"
    assert ImageChops.difference(shots[0], shots[2]).getbbox() is not None, "张 and 三 render alike: tofu"



# ------------------------------------------------------------- what the course's Windows compilers allow

GLIBC_NAMES = STUDENTS / "glibc_names.c"
SLEEP_SHOW = STUDENTS / "sleep_show.c"


def test_glibc_named_globals_build_the_c_program_and_match_the_engine(tmp_path: Path, cache: Path) -> None:
    """Globals index, random, pause, link and sleep: make c-program builds (the student's file compiled as twentyone
    match compiles it), twentyone-c --seed writes the same log as twentyone match --trusted (one copy of the
    statics, as the C program), and the sandboxed match (a copy per seat) is legal too."""
    exe, made = c_program(GLIBC_NAMES, tmp_path)
    assert "redeclared" not in made.stdout + made.stderr
    clog, pylog = tmp_path / "c.jsonl", tmp_path / "py.jsonl"
    r = _run_c(exe, "--seed", 3, "--decks", 6, "--seats", 5, "--log", clog, "--quiet", "--source", GLIBC_NAMES)
    assert r.returncode == 0, r.stderr
    specs = [a for k in range(1, 6) for a in ("-p", f"{GLIBC_NAMES}:{k}")]
    p = run_cli(["match", *specs, "--seed", 3, "--decks", 6, "--log", pylog, "--trusted",
                 "--output-dir", tmp_path / "printed"], cache, timeout=300)
    assert p.returncode == 0, p.stderr
    assert clog.read_bytes() == pylog.read_bytes()
    p = run_cli(["match", *specs, "--seed", 3, "--decks", 6, "--sandbox", "--json",
                 "--output-dir", tmp_path / "printed"], cache, timeout=300)
    assert p.returncode == 0, p.stderr
    ranking = json.loads(p.stdout)["ranking"]
    assert len(ranking) == 5 and all(s["fault"] is None and s["fouls"] == 0 for s in ranking), ranking


def test_sleep_in_show_costs_a_sandboxed_match_no_time(tmp_path: Path, cache: Path) -> None:
    """Sleep(1000) in every show: twentyone match --sandbox of two such seats ends in seconds, with no time-out
    (sleeping, its 100 rounds would take 200 s, past the 60 s match limit)."""
    warm = run_cli(["match", "-p", SLEEP_SHOW, "--seed", 1, "--sandbox", "--output-dir", tmp_path / "printed"],
                   cache, timeout=300)  # compiles the file, so the time below is the match's
    assert warm.returncode == 0, warm.stderr
    start = time.monotonic()
    r = run_cli(["match", "-p", SLEEP_SHOW, "-p", f"{SLEEP_SHOW}:2", "--seed", 2, "--sandbox", "--json",
                 "--output-dir", tmp_path / "printed"], cache, timeout=300)
    took = time.monotonic() - start
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert [s["fault"] for s in result["ranking"]] == [None, None], result
    shows = sum(s["rounds"] for s in result["ranking"])
    # Each seat's show runs once a round, a second of sleep each: sleeping, the match would take `shows` seconds
    # (about 200).  The run (a fresh process, the engine imported, two boxes started, the module cached) takes a
    # few seconds on a busy 2-core machine; 20 s leaves ample room and is a tenth of the sleeps.
    assert shows >= 100, result
    assert took < 20, f"{took:.1f} s for a match with {shows} Sleep(1000) calls"


def test_every_page_of_the_class_fits_1400_and_800_pixels(class_run: ClassRun) -> None:
    """The class page, every student's page and the similarity page of a real grade: at 1,400 pixels every column
    is in view and nothing is cut off, squeezed or drawn over; at 800 pixels the page never scrolls sideways (a
    wide table scrolls in its own frame).  Measured in Chromium (``tests.pagefit``)."""
    from tests.browser import Browser
    from tests.pagefit import fit

    pages = [class_run.out / "index.html", class_run.out / "similarity.html",
             *sorted((class_run.out / "students").glob("*.html"))]
    with Browser(chromium_or_skip()) as b:
        for page in pages:
            assert fit(b, page, 1400) == [], page
            assert [p for p in fit(b, page, 800) if p[0] != "hidden"] == [], page


def test_incidents_are_titled_in_words(class_run: ClassRun) -> None:
    """Every incident of a real grade is titled with its round and its match in words ("round 7 of match 3
    against basic, seat 2"), never with a stored key such as beat_basic|insure|3|2."""
    page = class_run.page("insure")
    titles = re.findall(r'<div class="incident"><h3>(.*?)</h3>', page)
    words = (r"[^|]+ \u00b7 round \d+ of ((match \d+ against (stand|basic)|legal-play match \d+ beside built-in "
             r"players), seat \d|class tournament, deal \d+, (table \d+, rotation \d+|alone on its seed))")
    assert titles and all(re.fullmatch(words, t) for t in titles), [t for t in titles if not re.fullmatch(words, t)]
    assert not re.search(r"(beat_stand|beat_basic|legal)\|", page)


def test_the_tournament_line_is_the_pairwise_record_its_rate_is_made_of(class_run: ClassRun) -> None:
    """Each student's tournament line gives the pairwise wins, ties and losses its win rate is made of (not
    "0 wins, 0 ties, 0 losses" beside a rate), and the matches it sat in."""
    seen = 0
    for key in class_run.sources:
        st = class_run.student(key)
        crit = next((c for c in st["criteria"] if c["name"] == "tournament"), None)
        if crit is None or not crit["matches"]:
            continue
        seen += 1
        wins, ties, losses = crit["wins"], crit["ties"], crit["losses"]
        assert wins + ties + losses > 0 and crit["rate"] == pytest.approx((wins + ties / 2) / (wins + ties + losses))
        line = f"{wins:g} wins, {ties} ties, {losses} losses against the others at its tables, in the " \
               f"{crit['matches']} matches it sat in"
        assert line in class_run.page(key), key
    assert seen >= 3
