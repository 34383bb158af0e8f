"""The other tables of the source documents: ``bj``, ``lianzhong`` and ``montecarlo`` played as a person plays
them (on a pseudo-terminal) and unattended, their round logs replayed by the rules checker
(``tests/tablecheck.py``), the Monte Carlo mean against the exact value, and bad input."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from tests.ptyterm import Terminal
from tests.tablecheck import check_bj, check_lianzhong, check_montecarlo, read, total
from twentyone.analysis.report_value import SCORE_PER_BET, report_value
from twentyone.analysis.shoe import Shoe
from twentyone.cli import main
from twentyone.core import Generator
from twentyone.games.bj import BjGame, RandomDeck, StrategyAnswers
from twentyone.games.lianzhong import play_lianzhong
from twentyone.games.montecarlo import play_report, play_runs
from twentyone.match import Seating
from twentyone.players.builtin.course import Basic, HiLo, Mimic
from twentyone.records import SeatView
from twentyone.roundlog import RoundLog
from twentyone.strategy import Strategy

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_C = str(ROOT / "c_src" / "mycodes.c")
QUESTION = r"(Insurance\? |Split pair\? |Double down\? |Hit\? )"
RESULT = r"|You (win \$\d+|lose \$\d+|break even)\n"


class Anything(Strategy):
    """Random answers from every letter a player might give, legal or not, and sometimes a soft dealer's hit."""

    name = "anything"

    def __init__(self, seed: int, letters: str = "hhhhssssddppiu", bets: tuple[int, ...] = (10, 20, 35, 5, 1000)) -> None:
        self.rng = random.Random(seed)
        self.letters = letters
        self.bets = bets

    def bet(self, view: SeatView) -> int:
        return self.rng.choice(self.bets)

    def first_action(self, view: SeatView) -> str:
        return self.rng.choice(self.letters)

    def continue_action(self, view: SeatView) -> str:
        return self.rng.choice(self.letters)

    def dealer_action(self, view: SeatView) -> str:
        return self.rng.choice("hs")


# -- bj ----------------------------------------------------------------------------------------------------
CARD = r"[AKQJT2-9][HSDC]"


def test_bj_person_plays_and_ctrl_c_prints_action_and_standing() -> None:
    """A person answers bj's questions with return and y, each hit's card printed alone; Ctrl-C at a question
    prints a new line, the action and the standing (as bj.s did) and a new line; status 0."""
    t = Terminal("bj", "--seed", "11")
    try:
        t.expect("Black Jack\nnew game\nShuffle\n")
        hits = 0
        for hand in range(4):
            if hand:
                t.expect("new game\n")
            t.expect(rf"{CARD} up\n{CARD}\+{CARD}\n\n")
            while True:
                m = t.expect(QUESTION + RESULT)
                if not m.group(1):
                    break
                hit = m.group(1) == "Hit? " and hand == 1
                t.type("y" if hit else "")
                if hit:
                    t.expect(rf"^y\n{CARD}\n\n|You bust")
                    hits += 1
        assert hits
        t.expect("new game\n")
        m = t.expect(QUESTION + RESULT)
        while not m.group(1):  # a natural: the next hand
            m = t.expect(QUESTION + RESULT)
        t.ctrl("c")
        t.expect(r"\nAction \$\d+\nYou (win \$\d+|lose \$\d+|break even)\n\n")
        assert t.wait() == 0
        assert "Traceback" not in t.screen and "Standing" not in t.screen
    finally:
        t.kill()


def test_bj_strategy_transcript_is_a_persons_typing_the_same_answers() -> None:
    """stand answers every question with return: a person pressing return on the same seed sees the same lines;
    the end of input (Ctrl-D) ends the game with a new line, no action or standing."""
    done = subprocess.run([sys.executable, "-m", "twentyone", "bj", "--player", "stand", "--seed", "5", "--rounds",
                           "3"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    transcript, end = done.stdout.split("Action")
    assert re.fullmatch(r" \$6\nYou (win \$\d+|lose \$\d+|break even)\n", end)  # three hands of $2
    t = Terminal("bj", "--seed", "5")
    try:
        hands = 0
        while hands < 3:
            m = t.expect(QUESTION + RESULT)
            if m.group(1):
                t.type("")
            else:
                hands += 1
        t.expect(QUESTION)
        t.ctrl("d")
        assert t.wait() == 0
    finally:
        t.kill()
    assert transcript.count("new game") == 3 and t.screen[: len(transcript)] == transcript
    assert t.screen.endswith("? \n") and "Action" not in t.screen


def test_bj_a_last_answer_without_its_newline_ends_the_game() -> None:
    """Piped answers: y and yes are yes, Y and x no; a last line without its newline ends the game as the end of
    input does (a new line), whatever it says."""
    done = subprocess.run([sys.executable, "-m", "twentyone", "bj", "--seed", "5", "--json"], input=b"Y\nx\ny",
                          capture_output=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    result = json.loads(lines[-1])
    assert [line for line in lines if line.startswith("Hit? ")] == ["Hit? You have 15", "Hit? You have 12", "Hit? "]
    assert (result["hands"], result["reason"]) == (2, "end of input")  # Y and x stood; the last y never acted


def test_bj_logs_replay_under_the_rules_checker(tmp_path: Path) -> None:
    """Every kind of answer (insure, split, double, illegal ones) over 3000 hands: the checker replays the log."""
    kinds: set[str] = set()
    for seed, letters in ((1, "hhhhssssddppiu"), (2, "hsdpi"), (3, "hhhhhhhhs")):
        log = RoundLog(keep=True)
        game = BjGame(StrategyAnswers(Anything(seed, letters)), RandomDeck(Generator(seed)),
                      strategy=Anything(seed + 10, letters), say=lambda s: None, log=log)
        game.answers = StrategyAnswers(game.seat.strategy)
        game.play(1000, seed)
        records = log.records or []
        check_bj(records)
        rounds = [r for r in records if r["type"] == "round"]
        end = records[-1]
        assert len(rounds) == 1000 or (end["reason"] == "broke" and 1000 + end["standing"] < 9)
        if "p" in letters:
            kinds.update(k for r in rounds for k in ("hands", "insurance", "foul") if r["players"][0].get(k))
    assert kinds == {"hands", "insurance", "foul"}  # splits, insurance and fouls were all replayed
    log_file = tmp_path / "bj.jsonl"
    code = main(["bj", "--player", "basic", "--seed", "9", "--rounds", "200", "--log", str(log_file), "--json"])
    assert code == 0
    check_bj(read(log_file))


def test_bj_logs_replay_in_the_review_in_bjs_order(tmp_path: Path) -> None:
    """A bj log with splits (each hand dealt its second card in turn), doubles, insurance and hits at 21 replays
    card by card in ``twentyone review`` (the dealer's cards dealt first), every round, none skipped."""
    from twentyone.review.logs import LogError, read_log
    from twentyone.review.pricing import review_match
    from twentyone.review.rounds import rounds_of

    log_file = tmp_path / "bj.jsonl"
    assert main(["bj", "--player", str(ROOT / "tests/fixtures/py/bj_every_answer.py"), "--seed", "20", "--rounds",
                 "300", "--trusted", "--log", str(log_file), "--json"]) == 0
    records = read(log_file)
    check_bj(records)
    rounds = [r for r in records if r["type"] == "round"]
    assert any(r["players"][0].get("hands") for r in rounds)
    hands = [h for r in rounds for h in r["players"][0].get("hands") or [r["players"][0]]]
    assert any(len(h["cards"]) > 2 and total(h["cards"]) == 21 and h["actions"].endswith("hs") for h in hands)
    match = read_log(log_file)
    played = [play for _, play in rounds_of(match)]
    assert len(played) == 300 and not [p for p in played if isinstance(p, LogError)]
    assert not review_match(match, 1).skipped


def test_bj_c_player_answers_and_never_splits(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The course's C template answers bj's questions unattended; it is never asked to split (no split in C)."""
    log_file = tmp_path / "c.jsonl"
    assert main(["bj", "--player", TEMPLATE_C, "--seed", "4", "--rounds", "150", "--log", str(log_file)]) == 0
    out = capsys.readouterr().out
    assert "Split pair?" not in out and out.count("new game") == 150
    check_bj(read(log_file))


# -- Lianzhong ------------------------------------------------------------------------------------------------
def test_lianzhong_person_bets_plays_times_out_and_ends_on_end_of_input() -> None:
    """A person in Chinese: bets, plays, leaves a question unanswered (托管 plays it), Ctrl-D ends with the standings."""
    t = Terminal("lianzhong", "-p", "human", "-p", "basic", "-p", "hilo", "--seed", "2", "--timeout", "3")
    try:
        t.expect(r"第 1 局，庄家：座位 [23]（\w+）\n")  # who deals is said before the bets
        t.expect(r"请下注（10 \.\. 1000）\[10\]，q 退出：")
        t.type("50")
        t.expect(r"(拿牌|停牌)[^\n]*：")
        t.type("s")
        t.expect(r"座位 1（你）：\w+ = \d+|庄家 座位 1（你）")
        t.expect(r"托管")  # nobody answers the next question: it is played automatically
        t.ctrl("d")
        t.expect(r"联众 21 点，种子 2：\d+ 局 （中断）\n名次 座位 名字 玩家 赌资 得分\n")
        assert t.wait() == 130
        assert "Traceback" not in t.screen
    finally:
        t.kill()


def test_lianzhong_person_deals_and_chooses_on_a_soft_total() -> None:
    """As the dealer on a soft total a person is asked h or s (in English), and Ctrl-C ends the game."""
    for seed in range(1, 200):  # a seed where seat 1 deals first and holds a soft 17 to 20
        gen = Generator(seed)
        if gen.below(2) != 0:
            continue
        shoe = gen.shoe(1).decode()
        player, dealer = shoe[:2], shoe[2:4]
        natural = "A" in player and any(c in "TJQK" for c in player)
        if "A" in dealer and 6 <= sum(1 if c == "A" else 10 if c in "TJQK" else int(c) for c in dealer) - 1 <= 9 \
                and not natural:
            break
    else:
        pytest.fail("no seed below 200 gives seat 1 a soft 17 to 20 as the first dealer")
    t = Terminal("lianzhong", "-p", "human", "-p", "stand", "--seed", str(seed), "--lang", "en")
    try:
        t.expect(r"round 1, dealer: seat 1 \(you\)\n")  # before the round: the person knows he deals
        t.expect(r"you deal: \w+ = \d+ \(soft\)\n  h hit, s stand: ")
        t.type("s")
        t.expect(r"round 2, dealer: seat 2 \(stand\)\n")
        # Ctrl-C once the next question waits, as a person presses it.
        t.expect(r"your bet \(\d+ \.\. \d+\) \[\d+\], q to leave: ")
        t.ctrl("c")
        assert t.wait() == 130
        assert "Lianzhong, seed" in t.screen and "Traceback" not in t.screen
    finally:
        t.kill()


def test_lianzhong_unattended_logs_replay_under_the_rules_checker(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Five seats (built-ins, the C template, random players) for 300 rounds: the checker replays the log."""
    log_file = tmp_path / "lz.jsonl"
    assert main(["lianzhong", "-p", "basic", "-p", TEMPLATE_C, "-p", "hilo", "-p", "expert", "-p", "mimic",
                 "--seed", "6", "--rounds", "300", "--log", str(log_file), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "seat 2 (mycodes.c) is a course C player with no dealer function" in out
    records = read(log_file)
    check_lianzhong(records)
    assert any(r.get("dealer_auto") for r in records if r["type"] == "round")
    for seed in (1, 2, 3):
        log = RoundLog(keep=True)
        seats = [Seating(f"r{i}", "anything", Anything(seed * 10 + i, "hhhhsssssdpppu", (5, 10, 20))) for i in range(4)]
        play_lianzhong(seats, seed, 300, log=log)
        records = log.records or []
        check_lianzhong(records)
        rounds = [r for r in records if r["type"] == "round"]
        assert any("h" in r["dealer_actions"] for r in rounds) and any(
            p.get("hands") for r in rounds for p in r["players"])


def test_lianzhong_python_strategy_file_deals_through_dealer_action(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A .py file defining a Strategy sits at the table through --player and decides as the dealer (it hits every
    soft total it may choose on); the log shows its hits and replays under the checker."""
    player = tmp_path / "dealer.py"
    player.write_text("from twentyone.strategy import Strategy\n\n\nclass Hitter(Strategy):\n"
                      "    def dealer_action(self, view):\n        return 'h'\n\n\nSTRATEGY = Hitter\n",
                      encoding="utf-8")
    log_file = tmp_path / "lz.jsonl"
    assert main(["lianzhong", "--trusted", "-p", str(player), "-p", "basic", "--seed", "1", "--rounds", "400", "--log",
                 str(log_file), "--json"]) == 0
    records = read(log_file)
    check_lianzhong(records)
    mine = [r for r in records if r["type"] == "round" and r["dealer_seat"] == 1]
    assert any("h" in r["dealer_actions"] for r in mine) and all("s" not in r["dealer_actions"] for r in mine)
    assert json.loads(capsys.readouterr().out)["rounds"] == 400


def test_basic_deals_by_the_stakes_on_the_table() -> None:
    """basic as the dealer hits a soft 17 against an 18 (standing loses for sure) and stands on a soft 18
    against a 17 (standing wins for sure); it stands on a soft 17 against a lone 16."""
    from tests.scripted import Scripted
    from twentyone.core import StackedGenerator

    def dealer_plays(cards: str) -> str:
        log = RoundLog(keep=True)
        play_lianzhong([Seating("d", "basic", Basic()), Seating("p", "s", Scripted("s"))], 0, 1, log=log,
                       generator=StackedGenerator([cards + "9" * (52 - len(cards))]), first_dealer=1)
        (r,) = [r for r in log.records or [] if r["type"] == "round"]
        return str(r["dealer_actions"])

    assert dealer_plays("T8" "A6") == "h"
    assert dealer_plays("T7" "A7") == "s"
    assert dealer_plays("T6" "A6") == "s"


def test_lianzhong_json_ranks_by_money_and_scores_sum_to_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """--json ranks the players by money; the scores (money won or lost) add up to zero."""
    assert main(["lianzhong", "-p", "basic", "-p", "amateur", "-p", "intermediate", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rounds"] == 30 and sum(r["score"] for r in data["ranking"]) == 0
    money = [r["account"] for r in data["ranking"]]
    assert money == sorted(money, reverse=True)


# -- the Monte Carlo report --------------------------------------------------------------------------------------
def test_montecarlo_prints_twelve_games_and_the_total(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Twelve games, each with its cards and score, then the total, in Chinese; the checker replays the log."""
    log_file = tmp_path / "mc.jsonl"
    assert main(["montecarlo", "--seed", "7", "--log", str(log_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    games = [ln for ln in lines if ln.startswith("第 ")]
    assert len(games) == 12 and all(re.search(r"得分 [+-][023]$", g) for g in games)
    total = sum(int(g.rsplit(" ", 1)[1]) for g in games)
    assert lines[-1] == f"总成绩：{total:+d}"
    check_montecarlo(read(log_file), mimic=True)


def test_montecarlo_person_hits_and_stands_at_a_terminal() -> None:
    """A person plays the report's games in English: only hit and stand are offered; each game prints its score."""
    t = Terminal("montecarlo", "--player", "human", "--games", "3", "--seed", "4", "--lang", "en")
    try:
        for game in range(1, 4):
            m = t.expect(r"h hit, s stand: |game \d+: [^\n]*score [+-]\d\n")
            while m.group(0).startswith("h hit"):
                t.type("h" if game == 1 else "s")
                m = t.expect(r"h hit, s stand: |game \d+: [^\n]*score [+-]\d\n")
        t.expect(r"total: [+-]\d+\n")
        assert t.wait() == 0
    finally:
        t.kill()


def test_montecarlo_person_ends_on_end_of_input() -> None:
    """Ctrl-D at a decision ends the report after the last whole game, with the total so far and status 130."""
    t = Terminal("montecarlo", "--player", "human", "--seed", "4")
    try:
        t.expect(r"h 拿牌，s 停牌：")
        t.ctrl("d")
        t.expect(r"总成绩：\+0 （中断）\n")
        assert t.wait() == 130 and "Traceback" not in t.screen
    finally:
        t.kill()


def test_montecarlo_logs_of_any_player_replay(tmp_path: Path) -> None:
    """Random players (fouls included) and basic over many games: the checker replays every log."""
    for seed, strategy in ((1, Anything(1, "hhsss")), (2, Anything(2, "hsdu")), (3, Basic()), (4, HiLo())):
        log = RoundLog(keep=True)
        play_report(Seating("me", "x", strategy), seed, games=400, log=log)
        check_montecarlo(log.records or [])


def test_montecarlo_runs_mean_agrees_with_the_exact_value() -> None:
    """The mean of 24,000 mimic games lies within 4 standard errors of the exact value (a false alarm 1 in 16,000)."""
    summary = play_runs(Seating("me", "mimic", Mimic()), 2026, 2000)
    exact = report_value().score
    assert summary.games == 24_000 and summary.se > 0
    assert abs(summary.mean - exact) < 4 * summary.se, (summary.mean, exact, summary.se)


def test_montecarlo_runs_show_progress_and_ctrl_c_gives_a_partial_result() -> None:
    """--runs 10000000 on a terminal: a bar with the runs done and the time left; Ctrl-C prints the summary of the
    whole runs done so far, marked partial, and exits 130 (issue 35)."""
    t = Terminal("montecarlo", "--runs", "10000000", "--seed", "1", "--lang", "en")
    try:
        t.expect(r"[1-9]\d*/10000000")  # some runs are done
        t.expect(r"eta")
        t.ctrl("c")
        m = t.expect(r"Monte Carlo, seed 1: (\d+) runs of 12 games \(mimic\) \(interrupted after (\d+) of 10000000 runs: "
                     r"a partial result\)\nmean score per game [+-]\d\.\d{4}, 95% interval [^\n]* \((\d+) games\)\n")
        assert m.group(1) == m.group(2) and int(m.group(3)) == 12 * int(m.group(1)) > 0
        t.expect(r"exact value [^\n]*\ntwelve-game totals: mean ")
        assert t.wait() == 130 and "Traceback" not in t.screen
    finally:
        t.kill()


def test_montecarlo_runs_cut_by_ctrl_c_keep_the_whole_runs_done() -> None:
    """Ctrl-C in the third run: the summary holds the two whole runs (24 games), marked interrupted; before the
    first run ends, no game at all."""

    class CutAt(Mimic):
        def __init__(self, n: int) -> None:
            super().__init__()
            self.n = n

        def bet(self, view: SeatView) -> int:
            self.n -= 1
            if self.n == 0:
                raise KeyboardInterrupt
            return super().bet(view)

    s = play_runs(Seating("me", "mimic", CutAt(30)), 5, 100)
    whole = play_runs(Seating("me", "mimic", Mimic()), 5, 2)
    assert s.interrupted and (s.runs, s.games) == (2, 24) and not whole.interrupted
    assert (s.mean, s.se, s.totals) == (whole.mean, whole.se, whole.totals)
    s = play_runs(Seating("me", "mimic", CutAt(5)), 5, 100)
    assert s.interrupted and (s.runs, s.games, s.mean) == (0, 0, 0.0)


def test_montecarlo_runs_are_quiet_off_a_terminal_and_with_json() -> None:
    """No progress when stderr is not a terminal, nor with --json on one: the result alone."""
    done = subprocess.run([sys.executable, "-m", "twentyone", "montecarlo", "--runs", "300", "--seed", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stderr == "" and "蒙特卡洛模拟，种子 1：300 次" in done.stdout
    t = Terminal("montecarlo", "--runs", "3000", "--seed", "1", "--json")
    try:
        assert t.wait() == 0
        assert json.loads(t.screen.strip().splitlines()[-1])["runs"] == 3000 and "eta" not in t.screen
    finally:
        t.kill()


def _report_exact(counts: tuple[int, ...]) -> Fraction:
    """The report's game computed on its own: every final hand of the player, then every final hand of the
    dealer from what is left, each scored by the report's text (no analyser, no correction)."""
    values = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)

    def tot(h: tuple[int, ...]) -> int:
        hard = sum(n * v for n, v in zip(h, values))
        return hard + 10 if h[0] and hard <= 11 else hard

    def finals(shoe: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
        out: dict[tuple[int, ...], Fraction] = {}

        def walk(h: tuple[int, ...], p: Fraction) -> None:
            if sum(h) >= 2 and tot(h) >= 17:
                out[h] = out.get(h, Fraction(0)) + p
                return
            left = sum(shoe) - sum(h)
            for i in range(10):
                k = shoe[i] - h[i]
                if k:
                    walk(h[:i] + (h[i] + 1,) + h[i + 1:], p * Fraction(k, left))

        walk((0,) * 10, Fraction(1))
        return out

    ev = Fraction(0)
    for me, p in finals(counts).items():
        t = tot(me)
        if t > 21:
            ev += p * -2
            continue
        nat = sum(me) == 2 and me[0] == 1 and me[9] == 1
        rest = tuple(c - h for c, h in zip(counts, me))
        for d, q in finals(rest).items():
            dt = tot(d)
            score = (3 if nat else 2) if dt > 21 or t > dt else 0 if t == dt else -2
            ev += p * q * score
    return ev


@pytest.mark.slow
def test_montecarlo_exact_value_matches_a_direct_computation() -> None:
    """On a small shoe, the analyser's value corrected for the report's 21s equals the report's game computed
    directly, hand by hand."""
    counts = (2, 1, 1, 1, 1, 2, 2, 2, 2, 8)
    direct = _report_exact(counts)
    value = report_value(shoe=Shoe(counts))
    assert value.score == pytest.approx(float(direct), abs=1e-12)
    assert SCORE_PER_BET * value.analyser_ev != pytest.approx(float(direct), abs=1e-6)  # the correction matters


def test_montecarlo_runs_command_prints_the_interval_exact_value_and_histogram(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--runs 300 --png: the mean with its 95% interval, the exact value -0.1171 per game, and a PNG file."""
    png = tmp_path / "totals.png"
    assert main(["montecarlo", "--runs", "300", "--seed", "3", "--png", str(png), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"mean score per game [+-]\d\.\d{4}, 95% interval [+-]\d\.\d{4} \.\. [+-]\d\.\d{4} \(3600 games\)",
                     out)
    assert "exact value (the analyser, the report's scoring): -0.1171 per game (-5.8566% of the bet)" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["montecarlo", "--runs", "50", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 50 and sum(data["totals"].values()) == 50 and data["low"] < data["mean"] < data["high"]


# -- bad input ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["lianzhong", "-p", "basic"], "players out of range: 1 (give --player 2 to 5 times"),
    (["lianzhong", "-p", "basic", "-p", "basic", "--timeout", "0"], "timeout out of range"),
    (["lianzhong", "-p", "basic", "-p", "nobody"], "unknown player 'nobody'"),
    (["lianzhong", "-p", "basic", "-p", "basic", "--rounds", "0"], "rounds out of range"),
    (["montecarlo", "--runs", "5", "--player", "human"], "--runs plays unattended"),
    (["montecarlo", "--png", "x.png"], "--png draws the totals of --runs N"),
    (["montecarlo", "--runs", "0"], "runs out of range"),
    (["montecarlo", "--games", "0"], "games out of range"),
    (["montecarlo", "--rule", "max_seats=0"], "bad value for max_seats"),
    (["bj", "--rounds", "0", "--player", "basic"], "rounds out of range"),
    (["bj", "--player", "chart:{tmp}/none.csv"], "chart"),
    (["bj", "--seed", "-1", "--player", "basic"], "seed out of range"),
])
def test_bad_input_is_one_line(argv: list[str], message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input to the three commands: status 2, one 'twentyone: error:' line naming it, no traceback."""
    code = main([a.format(tmp=tmp_path) for a in argv])
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("twentyone: error:") and message in lines[0], (out, err)
