"""What a run stored in English, read in Chinese: a rubric line's detail and why, the notes on a file, the titles of
the bankroll samples and replays, and the sandbox's fault details (twentyone/storedtext.py and the catalogue).

One real class is graded once, sandboxed and in English: li's file loops in bet1, wang's crashes in first_action1,
zhao's shares a variable between two function sets and comes with its own main.c that calls a function outside the
course interface.  ``twentyone report DIR --lang zh`` then remakes its pages in Chinese from results.sqlite alone,
as an instructor does for a run stored before; ``--lang en`` remakes them byte for byte.
"""

from __future__ import annotations

import filecmp
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
CLI = [sys.executable, "-m", "twentyone"]
RUBRIC = ('[legal]\nmatches = 2\n[beat_stand]\nbatch = 10\nmin_matches = 10\nmax_matches = 10\n'
          '[beat_basic]\nbatch = 10\nmin_matches = 10\nmax_matches = 10\n[tournament]\nmatches = 2\nmax_matches = 2\n')
ZHAO_C = ('#include "mycodes.h"\nstatic int count; /* shared */\nvoid reset(void) { count = 0; }\n'
          "int bet1(int N) { return 10 + (count & 1); }\n"
          "char first_action1(char* tmpcards, int len) { return 's'; }\n"
          "char continue_action1(Player(*players)[]) { return 's'; }\n"
          "void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) { }\n"
          "int bet2(int N) { return 10; }\n"
          "void show2(Banker* b, Player(*p)[], int n, int N, int pos) { count++; }\n")
#: Two English words in a row: what a sentence left untranslated looks like once markup is taken out.
ENGLISH = re.compile(r"[A-Za-z]{2,}[ ,:;]+[A-Za-z]{2,}")
HAN = re.compile(r"[\u4e00-\u9fff]")


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(CLI + args, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The class graded in English ('en'), and its pages remade by report --lang zh ('zh') and --lang en
    ('again'); 'class' holds the hand-ins and the rubric."""
    base = tmp_path_factory.mktemp("stored")
    cls = base / "class"
    for name, fixture in (("li", "loop_bet1.c"), ("wang", "segfault_first_action1.c")):
        (cls / name).mkdir(parents=True)
        shutil.copy(FIX / "c" / "hostile" / fixture, cls / name / "mycodes.c")
    (cls / "zhao").mkdir()
    (cls / "zhao" / "mycodes.c").write_text(ZHAO_C, encoding="utf-8")
    (cls / "zhao" / "main.c").write_text('#include "mycodes.h"\nint main(void) { reset(); return bet1(6); }\n',
                                         encoding="utf-8")
    (cls / "rubric.toml").write_text(RUBRIC, encoding="utf-8")
    en = base / "en"
    _run(["grade", *(str(cls / n) for n in ("li", "wang", "zhao")), "--config", str(cls / "rubric.toml"),
          "--out", str(en), "--seed", "7", "-j", "2", "-q"])
    out = {"class": cls, "en": en}
    for name, lang in (("zh", "zh"), ("again", "en")):
        shutil.copytree(en, base / name)
        _run(["report", str(base / name), "--lang", lang])
        out[name] = base / name
    return out


def _text(path: Path, keep_record: bool = False) -> str:
    """A page's text as a reader sees it: no style, no script, no markup; the round records (JSON, one click away)
    left out unless ``keep_record``."""
    page = path.read_text(encoding="utf-8")
    page = re.sub(r"<style>.*?</style>|<script>.*?</script>", "", page, flags=re.S)
    if not keep_record:
        page = re.sub(r"<details>.*?</details>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "\n", page))


def _block(page: str, start: str, end: str) -> str:
    """The part of ``page`` from the first ``start`` to the next ``end``."""
    i = page.index(start)
    return page[i:page.index(end, i)]


def _english(text: str) -> list[str]:
    """The lines of ``text`` with an English sentence left (the reference to RULES.md aside)."""
    return [line for line in text.splitlines() if ENGLISH.search(line.replace("RULES.md", ""))]


@pytest.mark.slow
def test_a_rubric_lines_detail_and_why_in_chinese(runs: dict[str, Path]) -> None:
    """report --lang zh words each rubric line's detail (the verdict, the legal-play count, the tournament place)
    and its why (the counts, the interval, the rule that decided) in Chinese, no English sentence left."""
    for name in ("li", "wang", "zhao"):
        page = (runs["zh"] / "students" / f"{name}.html").read_text(encoding="utf-8")
        rubric = _text_of(_block(page, '<table id="rubric">', "</table>"))
        why = _text_of(page[page.index('<div class="why"'):page.index("</main>")])
        assert HAN.search(rubric) and HAN.search(why)
        assert not _english(rubric), (name, _english(rubric))
        assert not _english(why), (name, _english(why))
        assert "班级锦标赛 3 人中" in rubric and "置信区间" in why
    li = _text_of((runs["zh"] / "students" / "li.html").read_text(encoding="utf-8"))
    assert "未通过：对 stand 的前 2 场每场都崩溃、超时或出错。" in li
    assert "前 2 场后即判定：它每场都出错" in li and "（RULES.md，grade_faults）" in li
    assert re.search(r"\d+ 场中计入 \d+ 次事件：超时", li)
    zhao = _text_of((runs["zh"] / "students" / "zhao.html").read_text(encoding="utf-8"))
    assert re.search(r"\d+ 场中没有任何事件", zhao) and "序贯检验" in zhao


def _text_of(fragment: str) -> str:
    fragment = re.sub(r"<style>.*?</style>|<script>.*?</script>|<details>.*?</details>", "", fragment, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "\n", fragment))


@pytest.mark.slow
def test_the_notes_on_a_file_in_chinese(runs: dict[str, Path]) -> None:
    """The grader's notes on zhao's file (its own main.c calls reset(); set 1 reads count, which set 2 changes),
    stored in English, are Chinese on the student page and in the platforms' results.json of report --lang zh."""
    page = (runs["zh"] / "students" / "zhao.html").read_text(encoding="utf-8")
    notes = _text_of(_block(page, '<ul class="notes">', "</ul>"))
    assert "学生自己的 main.c 调用了 reset()，它不属于课程接口" in notes
    assert "第 1 组函数用到了 count，而第 2 组函数也会修改" in notes
    assert not _english(notes), _english(notes)
    results = json.loads((runs["zh"] / "gradescope" / "zhao" / "results.json").read_text(encoding="utf-8"))
    said = [line for line in results["output"].splitlines() if line.startswith("说明：")]
    assert len(said) == 2 and not any(_english(line) for line in said), said
    english = (runs["en"] / "students" / "zhao.html").read_text(encoding="utf-8")
    assert "set 1 uses count, which set 2 also changes" in english  # stored and shown in English as before


@pytest.mark.slow
def test_the_bankroll_samples_and_replays_titled_in_chinese(runs: dict[str, Path]) -> None:
    """The bankroll samples' titles and the replays' titles (its links, the costliest decisions' matches) are
    Chinese: "对 basic，第 0 场，座位 1", never "vs basic, match 0, seat 1"."""
    for name in ("li", "wang", "zhao"):
        page = (runs["zh"] / "students" / f"{name}.html").read_text(encoding="utf-8")
        assert "赌资曲线：对 basic，第 0 场，座位 1" in page, name
        assert f"{name} — 对 stand，第 0 场，座位 1" in page, name
        assert not re.search(r"vs (stand|basic), match|legal play, match|tournament, match", page), name
    replay = (runs["zh"] / "students" / "zhao" / "replays" / "beat_basic-0.html").read_text(encoding="utf-8")
    assert "对 basic，第 0 场，座位 1" in replay and "vs basic, match" not in replay


@pytest.mark.slow
def test_the_sandboxs_fault_details_in_chinese(runs: dict[str, Path]) -> None:
    """A loop's and a crash's details, stored in English, are Chinese where a student reads them (the student
    page, the replay page, Gradescope's and PrairieLearn's results.json, check's lines), the source line kept;
    report --lang en remakes every page byte for byte."""
    loop = "在每次决策 0.25 秒 CPU 时间的限制内没有回答（信号 SIGPROF），位于 mycodes.c:4 的 bet1 函数"
    crash = "段错误（信号 SIGSEGV），位于 mycodes.c:5 的 first_action1 函数"
    for name, said, english in (("li", loop, "no answer within"), ("wang", crash, "segmentation fault")):
        page = _text(runs["zh"] / "students" / f"{name}.html")
        assert said in page and english not in page, name
        assert english in _text(runs["zh"] / "students" / f"{name}.html", keep_record=True)  # the record is data
        replay = (runs["zh"] / "students" / name / "replays" / "beat_stand-0.html").read_text(encoding="utf-8")
        assert said in replay and english not in replay, name
        assert "（超时）" in replay or "（崩溃）" in replay
        for platform in ("gradescope", "prairielearn"):
            text = (runs["zh"] / platform / name / "results.json").read_text(encoding="utf-8")
            assert said in json.loads(text)["output"] and english not in text, (name, platform)
    r = _run(["check", str(runs["class"] / "li" / "mycodes.c"), "--config", str(runs["class"] / "rubric.toml"),
              "-q", "--lang", "zh"])
    first = r.stdout.splitlines()[1]
    assert first.startswith("最先出的问题：没有按时回答") and loop in first, r.stdout
    assert "no answer within" not in r.stdout
    same = filecmp.dircmp(runs["en"], runs["again"])
    assert _differ(same) == [], "report --lang en changed the English pages"


def _differ(d: filecmp.dircmp[str]) -> list[str]:
    """Every file that differs, or is on one side only, under ``d``."""
    out = [*d.left_only, *d.right_only]
    _, mismatch, errors = filecmp.cmpfiles(d.left, d.right, d.common_files, shallow=False)
    out += mismatch + errors
    for sub in d.subdirs.values():
        out += _differ(sub)
    return out


#: Each form a fault's detail takes as the sandbox, the C bridge and the engine word it, and its Chinese.
FAULTS = [
    ("no answer within the decision limit of 1 s of CPU time (signal SIGPROF) at mycodes.c:38 in continue_action1",
     "在每次决策 1 秒 CPU 时间的限制内没有回答（信号 SIGPROF），位于 mycodes.c:38 的 continue_action1 函数"),
    ("no answer within the decision limit of 2.5 s of wall-clock time (the strategy slept or blocked)",
     "在每次决策 2.5 秒实际时间的限制内没有回答（策略在睡眠或被阻塞）"),
    ("no answer within the decision limit of 1 s of CPU time (it used 3.4 s with its timer disarmed)",
     "在每次决策 1 秒 CPU 时间的限制内没有回答（它关掉了计时器，用了 3.4 秒）"),
    ("no answer within the decision limit of 0.25 s of CPU time (it used more than 0.6 s with its own timer "
     "disarmed)", "在每次决策 0.25 秒 CPU 时间的限制内没有回答（它关掉了自己的计时器，用了超过 0.6 秒）"),
    ("it does not read the engine's requests (its pipe is full)", "它不读取引擎的请求（管道已满）"),
    ("forbidden system call (signal SIGSYS) at mycodes.c:12 in bet1",
     "禁止的系统调用（信号 SIGSYS），位于 mycodes.c:12 的 bet1 函数"),
    ("while loading (its initialisers): segmentation fault (signal SIGSEGV) at mycodes.c:3 in grab",
     "加载时（运行初始化代码）：段错误（信号 SIGSEGV），位于 mycodes.c:3 的 grab 函数"),
    ("while loading: blocked for 2 s, neither running nor waiting for a CPU (a strategy's sleeps return at once "
     "in the sandbox: it waited on a descriptor, or stopped itself)", "加载时：阻塞了 2 秒，既没有运行也没有等待 CPU"),
    ("the match's CPU time limit of 30 s (it used 30.2 s; signal SIGKILL)",
     "超出本场 30 秒的 CPU 时间限制（用了 30.2 秒；信号 SIGKILL）"),
    ("the match took longer than its wall-clock backstop of 120 s", "本场超过了 120 秒的实际时间上限"),
    ("output flood (file size limit) (signal SIGXFSZ)", "输出过多（超出文件大小限制）（信号 SIGXFSZ）"),
    ("exited with status 3", "以状态 3 退出"),
    ("the file crashed earlier in this match: arithmetic error (signal SIGFPE) in bet2",
     "本场早些时候文件已经崩溃：算术错误（如除以零）（信号 SIGFPE），在 bet2 函数中"),
    ("bet returned 'ten', not an int", "bet 返回了 'ten'，不是整数"),
    ("continue_action1 returned 'hs', not one character", "continue_action1 返回了 'hs'，不是单个字符"),
]


@pytest.mark.parametrize("english, chinese", FAULTS, ids=[f[0][:40] for f in FAULTS])
def test_every_form_of_a_fault_is_retold(english: str, chinese: str) -> None:
    """Each form of a fault's detail the sandbox and the engine store is retold in Chinese, its file:line, function
    and numbers kept and no English sentence left; in English it is shown byte for byte."""
    from twentyone.i18n import using
    from twentyone.storedtext import retold

    with using("zh"):
        said = retold(english)
    assert said.startswith(chinese) and not ENGLISH.search(said), said
    assert retold(english) == english
    with using("zh"):  # the student's own words (an exception's message) are theirs: shown as they are
        assert retold("ValueError: my table is wrong") == "ValueError: my table is wrong"
