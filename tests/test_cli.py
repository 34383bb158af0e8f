"""The command line: a normal match, --json, --log, and one clear error line for every bad input.

Each case runs twice: in process through ``twentyone.cli.main`` (argparse errors arrive as SystemExit),
and as a user runs it, ``python -m twentyone ...`` in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.conftest import default_sigint
from twentyone.cli import main

ROOT = Path(__file__).resolve().parent.parent
MATCH_KEYS = ["type", "seed", "rules", "decks", "seats"]
ROUND_KEYS = ["type", "round", "shoe", "first_card", "dealer", "dealer_bj", "players"]
PLAYER_KEYS = ["seat", "account_before", "bet", "insurance", "actions", "cards", "bj", "doubled", "surrendered",
               "foul", "account_after"]


def in_process(args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``main(args)``; return the exit status, stdout and stderr."""
    try:
        code = main(list(args))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def subprocess_run(args: Sequence[str]) -> tuple[int, str, str]:
    """Run ``python -m twentyone ARGS``; return the exit status, stdout and stderr."""
    r = subprocess.run([sys.executable, "-m", "twentyone", *args], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


RUNNERS = ["in_process", "subprocess"]


def run(how: str, args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the command line one way or the other."""
    return in_process(args, capsys) if how == "in_process" else subprocess_run(args)


@pytest.mark.parametrize("how", RUNNERS)
def test_match_prints_ranking(how: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A normal match exits 0 and prints the ranking table with every seat."""
    code, out, err = run(how, ["match", "-p", "basic", "-p", "stand", "-p", "hilo", "--seed", "4"], capsys)
    assert code == 0, err
    assert "seed 4, 6 decks: 118 rounds in 5 shoes, ended before a 6th shuffle" in out
    for word in ("rank", "money", "basic", "stand", "hilo", "player1", "player2", "player3"):
        assert word in out
    assert "Traceback" not in err


def test_match_names_the_c_output_folder_only_when_a_c_file_played(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """What the players' files printed is named after a match with a file that printed, one file a line, not
    after one of built-ins only (the French AI levels and a chart were taken for C files)."""
    builtins = ["match", "--rules", "french", "-p", "expert", "-p", "amateur", "-p", "intermediate",
                "-p", "chart:french-expert", "--seed", "2", "--output-dir", str(tmp_path)]
    code, out, err = in_process(builtins, capsys)
    assert code == 0, err
    assert "printed" not in out and not list(tmp_path.iterdir())
    printing = str(ROOT / "tests" / "fixtures" / "c" / "students" / "person_on.c")
    files = []
    for _ in range(2):
        code, out, err = in_process(["match", "-p", "basic", "-p", printing, "--seed", "2", "--output-dir",
                                     str(tmp_path)], capsys)
        assert code == 0, err
        named = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("what the players' files printed: ")]
        assert len(named) == 1, out
        files.append(Path(named[0]))
    # each run's files are kept apart (the second run overwrote the first's person_on-set1-match1.out)
    assert files[0] != files[1] and files[0].parent.parent == files[1].parent.parent == tmp_path
    assert all(f.name == "person_on-set1-match1.out" and "first_action1:" in f.read_text() for f in files)


@pytest.mark.parametrize("how", RUNNERS)
def test_match_json(how: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one JSON object with the ranking, richest first."""
    code, out, err = run(how, ["match", "-p", "basic", "-p", "stand", "--json", "--seed", "4", "--decks", "2"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert (data["seed"], data["decks"], data["rules"]) == (4, 2, "course")
    assert data["reason"] in ("broke", "shuffles", "rounds")
    ranking = data["ranking"]
    assert sorted(r["seat"] for r in ranking) == [1, 2]
    assert {r["player"] for r in ranking} == {"basic", "stand"}
    assert [r["rank"] for r in ranking] == sorted(r["rank"] for r in ranking)
    accounts = [r["account"] for r in ranking]
    assert accounts == sorted(accounts, reverse=True)


@pytest.mark.parametrize("how", RUNNERS)
def test_match_log(how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--log writes compact JSONL: the match record first, shuffles and rounds, the end record last."""
    log = tmp_path / "m.jsonl"
    spec = str(ROOT / "mycodes" / "mycodes.py") + ":2"
    code, _, err = run(how, ["match", "-p", "basic", "-p", spec, "--log", str(log), "--seed", "9", "--decks", "1"],
                       capsys)
    assert code == 0, err
    lines = log.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    for line, rec in zip(lines, records):
        assert line == json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
    first = records[0]
    assert list(first) == MATCH_KEYS
    assert first == {"type": "match", "seed": 9, "rules": "course", "decks": 1, "seats": [
        {"seat": 1, "name": "player1", "player": "basic"}, {"seat": 2, "name": "player2", "player": spec}]}
    assert records[1]["type"] == "shuffle" and records[1]["shoe"] == 1
    assert records[-1]["type"] == "end"
    rounds = [r for r in records if r["type"] == "round"]
    assert rounds and records[-1]["rounds"] == len(rounds)
    assert list(rounds[0]) == ROUND_KEYS and list(rounds[0]["players"][0]) == PLAYER_KEYS


def test_same_seed_same_log_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs with one seed write the same log bytes."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for f in (a, b):
        assert in_process(["match", "-p", "hilo", "-p", "basic", "--seed", "12", "--log", str(f)], capsys)[0] == 0
    assert a.read_bytes() == b.read_bytes()


BAD = [
    ("unknown_player", ["-p", "nosuchplayer"], "unknown player 'nosuchplayer'"),
    ("decks_0", ["-p", "stand", "--decks", "0"], "decks out of range: 0 (1 .. 8)"),
    ("decks_9", ["-p", "stand", "--decks", "9"], "decks out of range: 9 (1 .. 8)"),
    ("decks_0_judge", ["-p", "stand", "--decks", "0", "--rules", "judge"], "decks out of range: 0 (1 .. 5000)"),
    ("six_players", ["-p", "stand"] * 6, "too many players: 6"),
    ("missing_py", ["-p", "{tmp}/missing.py"], "cannot read player file"),
    ("py_without_functions", ["-p", "{tmp}/nothing.py"], "has no function set 1"),
    ("function_set_7", ["-p", "{root}/mycodes/mycodes.py:7"], "function set out of range"),
    ("bad_log_path", ["-p", "stand", "--log", "{tmp}/no/such/dir/x.jsonl"], "cannot write log"),
    ("no_players", [], "no players"),
]


@pytest.mark.parametrize("how", RUNNERS)
@pytest.mark.parametrize(("case", "args", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line(how: str, case: str, args: list[str], message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input exits 2 with exactly one 'twentyone: error:' line on stderr and no traceback."""
    (tmp_path / "nothing.py").write_text("x = 1\n", encoding="utf-8")
    argv = ["match"] + [a.format(tmp=tmp_path, root=ROOT) for a in args]
    code, out, err = run(how, argv, capsys)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("twentyone: error:")
    assert message in lines[0]
    assert "Traceback" not in err and "Traceback" not in out
    if case == "bad_log_path":
        assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", ["match -p stand", "play", "tournament basic stand"])
def test_decks_out_of_range_says_the_rules_range(command: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """--decks 0 and --decks 9 get the same message, the rules' range (0 said 1 .. 5000, or was taken as 6)."""
    out = ["--out", str(tmp_path)] if command.startswith("tournament") else []
    for decks in ("0", "9"):
        code, _, err = in_process([*command.split(), "--decks", decks, *out], capsys)
        assert code == 2 and err == f"twentyone: error: decks out of range: {decks} (1 .. 8)\n", err


def test_rules_command(capsys: pytest.CaptureFixture[str]) -> None:
    """twentyone rules prints RULES.md; --presets lists the rule sets."""
    code, out, _ = in_process(["rules"], capsys)
    assert code == 0 and "**bj_payout**" in out
    code, out, _ = in_process(["rules", "--presets"], capsys)
    assert code == 0 and "course-h17" in out


def test_one_description_per_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    """rules --presets describes each preset's game as the analysis commands head their output, then its
    money, bets and seats (unix-bj, montecarlo and judge take one seat)."""
    from twentyone.rules import PRESETS

    code, out, _ = in_process(["rules", "--presets"], capsys)
    lines = dict(line.split(": ", 1) for line in out.splitlines())
    assert code == 0 and list(lines) == list(PRESETS)
    for name in ("unix-bj", "montecarlo", "judge"):
        assert lines[name].endswith(", 1 seat"), lines[name]
    assert lines["course"].endswith(", 1 to 5 seats") and lines["french"].endswith(", 1 to 4 seats")
    for name in ("french", "course", "lianzhong"):
        code, edge, err = in_process(["ev", "T6", "vs", "2", "--rules", name], capsys)
        header = edge.splitlines()[0]
        assert code == 0 and header.startswith(f"rules: {name}: "), err
        assert lines[name].startswith(header[len(f"rules: {name}: "):] + ", money "), (header, lines[name])
    assert "hole card, no peek" in lines["french"] and "Changer" in lines["french"]


def test_play_at_the_terminal() -> None:
    """play asks for bets and decisions, re-asks bad input with a reason, and ends on end of input."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    answers = "abc\n10\nx\ns\n" * 3
    r = subprocess.run([sys.executable, "-m", "twentyone", "play", "--seed", "3", "--with", "basic"],
                       input=answers, capture_output=True, text=True, cwd=root, timeout=60)
    assert "a bet is a whole number" in r.stdout
    assert "'x' is not one of" in r.stdout
    assert "seed 3, 6 decks: 3 rounds in 1 shoe, interrupted" in r.stdout  # the standings, at the end of input
    assert "Traceback" not in r.stderr and r.returncode == 130


def test_play_says_how_to_leave_and_q_leaves_with_the_standings() -> None:
    """The bet prompt says q leaves; q at a bet or at a decision ends the game with the standings, as Ctrl-C does."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    for answers, rounds in (("10\ns\nq\n", "1 round"), ("10\nq\n", "0 rounds")):
        r = subprocess.run([sys.executable, "-m", "twentyone", "play", "--seed", "3"], input=answers,
                           capture_output=True, text=True, cwd=root, timeout=60)
        assert "your bet (10 .. 1000) [10], q to leave: " in r.stdout and "is not" not in r.stdout
        assert f"seed 3, 6 decks: {rounds} in 1 shoe, interrupted" in r.stdout, r.stdout
        assert "Traceback" not in r.stderr and r.returncode == 130


def test_play_words_and_letters() -> None:
    """A person may type the letter or the whole word, in English or Chinese; anything else is re-asked."""
    from twentyone.players.terminal import parse_action

    assert [parse_action(t) for t in ("h", " S ", "hit", "Stand", "停牌", "加倍", "投降", "保险")] == list("hshssdui")
    assert parse_action("hello") == "" and parse_action("") == "" and parse_action("hs") == ""


def test_play_in_chinese_prints_chinese_standings() -> None:
    """--lang zh: the prompts, the re-ask reason and the final standings are in Chinese."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "twentyone", "play", "--seed", "3", "--lang", "zh"],
                       input="10\nhello\n停牌\n", capture_output=True, text=True, cwd=root, timeout=60)
    assert "请下注" in r.stdout and "'hello' 不是可选动作" in r.stdout
    assert "名次" in r.stdout and "赌资" in r.stdout and "中途结束" in r.stdout
    assert "Traceback" not in r.stderr and r.returncode == 130


@pytest.mark.timeout(180)
def test_ctrl_c_mid_round_gives_the_stake_back(tmp_path: Path) -> None:
    """A real SIGINT at a decision: the unfinished round is void, the standings show the money before it."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    log = tmp_path / "m.jsonl"
    p = subprocess.Popen([sys.executable, "-m", "twentyone", "play", "--seed", "3", "--log", str(log)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root,
                         preexec_fn=default_sigint)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b"50\n")
    p.stdin.flush()
    seen = b""
    deadline = time.time() + 60
    while b"surrender" not in seen and time.time() < deadline:
        seen += os.read(p.stdout.fileno(), 4096)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and b"Traceback" not in err
    assert b"1000" in out and b"interrupted" in out
    end = json.loads(log.read_text().splitlines()[-1])
    assert end == {"type": "end", "reason": "interrupted", "rounds": 0,
                   "ranking": [{"rank": 1, "seat": 1, "account": 1000, "rounds": 0}]}


def test_a_tournament_that_cannot_start_leaves_no_run_behind(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A tournament refused before any match (one player, or only one that can play) keeps nothing in --out
    that would make the corrected command ask for --resume."""
    out = tmp_path / "t"
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip")
    code, _, err = in_process(["tournament", "basic", str(bad), "--out", str(out), "--quiet"], capsys)
    assert code == 2 and "fewer than 2 players can play" in err
    code, _, err = in_process(["tournament", "basic", "--out", str(out), "--quiet"], capsys)
    assert code == 2 and "needs at least 2 players" in err
    code, _, err = in_process(["tournament", "basic", "stand", "--matches", "2", "--out", str(out), "--quiet",
                               "--workers", "1"], capsys)
    assert code == 0, err
    assert (out / "results.sqlite").is_file() and (out / "index.html").is_file()


# -- files run in the sandbox by default; shared statics; zip names -------------------------------------------
HOSTILE = ROOT / "tests" / "fixtures" / "c" / "hostile"
REAL = ROOT / "tests" / "fixtures" / "handins" / "real_course" / "mycodes.c"


def test_match_runs_files_in_the_sandbox_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A C file that crashes or loops costs its seat a fault, not the command (it was a 'Segmentation fault'
    of the whole match, or a hang); --trusted runs files in process, and contradicts --sandbox."""
    for name, fault, extra in (("segfault_first_action1.c", "crash", []),
                               ("loop_bet1.c", "timeout", ["--decision-timeout", "0.2"])):
        code, out, err = in_process(["match", "-p", str(HOSTILE / name), "-p", "basic", "--json", "--output-dir",
                                     str(tmp_path), *extra], capsys)
        assert code == 0, err
        seat1 = json.loads(out)["ranking"]
        assert {s["seat"]: s["fault"] for s in seat1}[1] == fault, out
    code, out, err = in_process(["solo", "--player", str(HOSTILE / "segfault_first_action1.c"), "--rounds", "3",
                                 "--json"], capsys)  # the French game's commands too
    assert code == 0 and json.loads(out)["fault"] == "crash", err
    code, _, err = in_process(["match", "-p", "basic", "--sandbox", "--trusted"], capsys)
    assert code == 2 and err.startswith("twentyone: error: --sandbox and --trusted contradict") and err.count("\n") == 1


def test_shared_statics_are_named_once_with_the_way_they_are_played(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Two sets of a file whose sets share a count at one table: a note that sets 3-5 do not play, naming every
    variable, sandboxed or not (both play the sets in one copy of the variables, as the course program does)."""
    seats = ["-p", f"{REAL}:1", "-p", f"{REAL}:2", "--seed", "4", "--output-dir", str(tmp_path)]
    every = ("running_count", "cards_seen", "last_pos", "hot", "up_card")
    for extra, count in (([], 1), (["--trusted"], 1)):
        code, _, err = in_process(["match", *seats, *extra], capsys)
        notes = [line for line in err.splitlines() if "sets 1 and 2" in line]
        assert code == 0 and len(notes) == count, err
        assert "sets 3, 4 and 5 do not play" in notes[0] and all(v in notes[0] for v in every), err
        assert "in the sandbox each seat plays in a process of its own" not in err, err


@pytest.mark.slow
def test_a_set_is_told_about_variables_only_other_sets_change(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """match with one set of a file: a note when another set of the file changes a variable it uses (as grade
    says); none when the other sets never touch it, and none for a constant or for ``using namespace std``."""
    sets = "".join(f"int bet{k}(int N) {{ return 10; }}\nchar first_action{k}(char* t, int n) {{ return 's'; }}\n"
                   f"char continue_action{k}(Player(*p)[]) {{ return 's'; }}\n" for k in (2, 3))
    quiet = tmp_path / "quiet" / "mycodes.cpp"
    quiet.parent.mkdir()
    quiet.write_text('#include "mycodes.h"\nusing namespace std;\nconst int LIMIT = 3;\n'
                     "static int low = 0, high = 0;\n"
                     "int bet1(int N) { low++; return 10 + high; }\nchar first_action1(char* t, int n) "
                     "{ high = low > LIMIT; return 's'; }\nchar continue_action1(Player(*p)[]) { return 's'; }\n"
                     "void show1(Banker* b, Player(*p)[], int n, int N, int pos) { }\n" + sets)
    code, _, err = in_process(["match", "-p", str(quiet), "-p", "basic", "--output-dir", str(tmp_path)], capsys)
    assert code == 0 and "twentyone: warning" not in err, err
    loud = tmp_path / "loud" / "mycodes.cpp"
    loud.parent.mkdir()
    loud.write_text(quiet.read_text().replace("char first_action3(char* t, int n) {",
                                              "char first_action3(char* t, int n) { high = 1; low = 2;"))
    code, _, err = in_process(["match", "-p", str(loud), "-p", "basic", "--output-dir", str(tmp_path)], capsys)
    (note,) = [line for line in err.splitlines() if line.startswith("twentyone: warning:")]
    assert code == 0 and f"{loud}: set 1 uses low and high, which set 3 also changes" in note, err
    assert "std" not in note.split("changes")[0] and "LIMIT" not in note


def test_a_zipped_hand_in_is_named_as_grade_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """match -p li.zip: the warnings name li.zip/li/mycodes.c, never the temporary folder it was unpacked into."""
    from tests.handins import zip_folder

    z = zip_folder(ROOT / "tests" / "fixtures" / "handins" / "person_on", tmp_path / "li.zip", prefix="li/")
    code, _, err = in_process(["match", "-p", str(z), "-p", "basic", "--output-dir", str(tmp_path / "out")], capsys)
    assert code == 0, err
    assert f"{z}/li/mycodes.c: #define PERSON is on" in err and "twentyone-intake" not in err, err


# -- shell habits: --version, completion, examples ------------------------------------------------------------
def test_version_is_the_installed_one(capsys: pytest.CaptureFixture[str]) -> None:
    """twentyone --version prints the version pip installed (setup.py reads twentyone.__version__)."""
    from importlib.metadata import version

    import twentyone

    code, out, _ = in_process(["--version"], capsys)
    assert code == 0 and out == f"twentyone {version('twentyone')}\n" and version("twentyone") == twentyone.__version__


def test_every_command_help_ends_with_examples_that_parse(capsys: pytest.CaptureFixture[str]) -> None:
    """Each command's --help ends with two or three examples of it; each is a command line the parser takes."""
    import argparse
    import shlex

    from twentyone.cli import _build_parser

    parser = _build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, sub in commands.items():
        text = sub.format_help().rstrip("\n").split("\n")
        at = text.index("examples:")
        examples = text[at + 1:]
        assert 2 <= len(examples) <= 3 and at == len(text) - len(examples) - 1, (name, text[at:])
        for line in examples:
            words = shlex.split(line.split(" | ")[0].split(" >")[0])
            assert words[:2] == ["twentyone", name], line
            parser.parse_args(words[1:])  # SystemExit (a failure) if an option is wrong


def _complete(line: str, shell: str, tmp_path: Path) -> list[str]:
    """What the twentyone console script answers to a Tab after ``line`` (argcomplete's protocol)."""
    import os
    import subprocess

    answer = tmp_path / "answer"
    env = dict(os.environ, _ARGCOMPLETE="1", COMP_LINE=line, COMP_POINT=str(len(line)), _ARGCOMPLETE_SHELL=shell,
               _ARGCOMPLETE_STDOUT_FILENAME=str(answer), _ARGCOMPLETE_IFS="\n")
    exe = Path(sys.executable).parent / "twentyone"
    r = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return [w.split(":")[0].strip() for w in answer.read_text().splitlines()]


def test_tab_completion_in_bash_and_zsh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """twentyone completion bash|zsh prints the shell's code; Tab then completes commands, options and players."""
    import os
    import subprocess

    for shell in ("bash", "zsh"):
        code, out, _ = in_process(["completion", shell], capsys)
        assert code == 0 and "_python_argcomplete" in out
        assert "match" in _complete("twentyone ma", shell, tmp_path)
        assert "--trusted" in _complete("twentyone match --tr", shell, tmp_path)
        assert {"basic", "champion"} <= set(_complete("twentyone match -p ", shell, tmp_path))
    (tmp_path / "mycodes.c").write_text("int bet1(int N) { return 10; }\n")
    assert "mycodes.c" in _complete("twentyone match -p my", "bash", tmp_path)
    path = f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"
    r = subprocess.run(["bash", "-c", 'eval "$(twentyone completion bash)" && complete -p twentyone'],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, PATH=path))
    assert r.returncode == 0 and "_python_argcomplete twentyone" in r.stdout, r.stderr
