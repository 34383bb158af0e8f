"""``twentyone review``: every kind of round log replays card by card and is priced; the command's text, JSON and
replay page; bad input is one line; analyser results are cached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from twentyone.cli import main
from twentyone.review.costs import SITUATIONS, UPS, Priced, costliest
from twentyone.review.pricing import _values, review_match
from twentyone.review.logs import LogError, parse_log, read_log
from twentyone.review.rounds import rounds_of

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
VARIANTS_PY = ROOT / "tests" / "fixtures" / "py" / "variants_py.py"


def game_logs(tmp: Path) -> list[Path]:
    """Round logs of the games (bj, lianzhong, montecarlo, solo with its Changer, elimination) and of a 5-seat
    1-deck match that refills its shoe in the middle of rounds, with splits to 4 hands."""
    runs = [["bj", "-p", "basic", "--seed", "3", "--rounds", "40"],
            ["lianzhong", "-p", "basic", "-p", "stand", "-p", "hilo", "--seed", "3", "--rounds", "12"],
            ["montecarlo", "-p", "basic", "--seed", "3"],
            ["solo", "-p", str(VARIANTS_PY), "--seed", "4", "--rounds", "40", "--trusted"],
            ["elimination", "-p", "basic", "--seed", "3"],
            ["match", *[a for _ in range(5) for a in ("-p", str(VARIANTS_PY))], "--rules", "s17-3to2-6d",
             "--decks", "1", "--seed", "16", "--trusted", "--rule", "rounds_per_seat=12", "--rule", "max_shoes=none"]]
    out = []
    for k, argv in enumerate(runs):
        path = tmp / f"{argv[0]}-{k}.jsonl"
        assert main([*argv, "--log", str(path), "--json"]) == 0
        out.append(path)
    return out


@pytest.mark.slow
def test_every_kind_of_log_replays_and_is_priced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The golden logs (course, its variants, split games, sandboxed C files, the C students' 1-deck match, a
    mid-round refill) and the games' logs replay with their cards checked, and every seat's decisions price."""
    logs = sorted(GOLDEN.glob("*.jsonl")) + game_logs(tmp_path)
    capsys.readouterr()
    refills = 0
    for path in logs:
        match = read_log(path)
        for rnd, play in rounds_of(match):
            assert not isinstance(play, LogError), f"{path.name}: {play}"
            refills += rnd.refill_at >= 0
        for seat in match.seats:
            review = review_match(match, seat.seat)
            assert not review.skipped, f"{path.name} seat {seat.seat}: {review.skipped}"
            assert all(p.loss is None or p.loss >= 0 for p in review.priced)
    assert refills >= 2  # the 1-deck logs refilled in the middle of rounds


def test_the_c_programs_log_is_reviewed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The course's C program (twentyone-c, the basic.c fixture at 5 seats on one deck) writes a log that
    ``twentyone review`` reviews for every seat, no round left out."""
    import subprocess

    src = ROOT / "c_src"
    exe = tmp_path / "twentyone-c"
    subprocess.run(["gcc", "-O2", "-std=gnu99", f"-I{src}", f"-I{src / 'compat'}", str(src / "main.c"),
                    str(src / "twentyone.c"), str(src / "tw_rng.c"), str(ROOT / "tests" / "fixtures" / "c" /
                                                                          "students" / "basic.c"), "-o", str(exe)],
                   check=True)
    log = tmp_path / "c.jsonl"
    subprocess.run([str(exe), "--seed", "2", "--decks", "1", "--seats", "5", "--log", str(log), "--quiet"],
                   check=True, capture_output=True)
    for seat in range(1, 6):
        assert main(["review", str(log), "--seat", str(seat), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["decisions"] and data["not_reviewed"] == [] and data["player"] == f"mycodes.c:{seat}"


def test_a_log_that_does_not_follow_its_shoe_is_named() -> None:
    """A round whose cards are not the ones its shoe deals is a LogError naming the round and the seat."""
    lines = (GOLDEN / "builtins3.jsonl").read_text(encoding="utf-8").splitlines()
    k = next(i for i, line in enumerate(lines) if '"round":2,' in line)
    rec = json.loads(lines[k])
    rec["players"][0]["cards"] = "AA" if rec["players"][0]["cards"][:2] != "AA" else "KK"
    lines[k] = json.dumps(rec)
    match = parse_log(lines, "tampered.jsonl")
    bad = [play for rnd, play in rounds_of(match) if rnd.number == 2][0]
    assert isinstance(bad, LogError) and "round 2: seat 1 holds" in str(bad)
    review = review_match(match, 1)
    assert any(s.startswith("round 2:") for s in review.skipped) and 2 not in review.plays


def test_analyser_results_are_cached() -> None:
    """Pricing a match twice asks the analyser nothing new the second time."""
    match = read_log(GOLDEN / "h17.jsonl")
    review_match(match, 1)
    misses = _values.misses
    review_match(match, 1)
    assert _values.misses == misses


def test_a_review_hashes_its_analysis_options_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The options' Fractions are hashed and compared once a review, not for every decision priced (the cache
    looks the options' table up by identity)."""
    from twentyone.analysis.options import AnalysisRules

    match = read_log(GOLDEN / "h17.jsonl")
    review = review_match(match, 1)
    hashed = [0]
    real = AnalysisRules.__hash__

    def counted(self: AnalysisRules) -> int:
        hashed[0] += 1
        return real(self)

    monkeypatch.setattr(AnalysisRules, "__hash__", counted)
    again = review_match(match, 1)
    assert again.priced == review.priced and len(review.priced) > 20
    assert hashed[0] <= 1


def test_review_text(capsys: pytest.CaptureFixture[str]) -> None:
    """The text names the seat and lists every priced decision, the situation table, the ten costliest, the
    bets' note and EV lost per 100 hands, which is 100 x the EV lost over the hands."""
    assert main(["review", str(GOLDEN / "demo5.jsonl"), "--seat", "2"]) == 0
    out = capsys.readouterr().out
    review = review_match(read_log(GOLDEN / "demo5.jsonl"), 2)
    assert out.startswith("Review of seat 2 (")
    assert out.count("\nround ") == len(review.priced)
    assert "EV lost by situation" in out and "The ten costliest decisions:" in out and "Bets: " in out
    assert f"{100 * review.ev_lost / review.hands:.2f} per 100 hands." in out
    worst = costliest(review.priced)[0]
    assert f"round {worst.round:>4}: {worst.cards} vs {worst.up}" in out


def test_review_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    """--lang zh gives the whole review in Chinese: each decision, the situations, the costliest, the bets and the
    EV lost per 100 hands, with no English sentence left."""
    assert main(["review", str(GOLDEN / "demo5.jsonl"), "--seat", "2", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    review = review_match(read_log(GOLDEN / "demo5.jsonl"), 2)
    assert out.startswith("复盘：") and "损失最大的十个决策：" in out and "下注：" in out and "每 100 手" in out
    assert out.count("\n第 ") == len(review.priced) and ("硬牌 " in out or "软牌 " in out)
    for english in ("Review of seat", "EV lost", "instead of", "Bets:", "per 100 hands", "hard ", "costliest"):
        assert english not in out


def test_review_json(capsys: pytest.CaptureFixture[str]) -> None:
    """--json gives every decision with its options' EVs, the totals by situation and dealer's card (which add
    up to the EV lost), the costliest and the bets."""
    assert main(["review", str(GOLDEN / "split_s17.jsonl"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seat"] == 1 and data["rules"] == "s17-3to2-6d"
    assert data["decisions"] and all(set(d["options"]) >= {"stand"} or d["kind"] == "insurance"
                                     for d in data["decisions"])
    total = sum(c["ev_lost"] for c in data["by_situation"])
    assert total == pytest.approx(data["ev_lost"], abs=1e-4)
    assert {c["situation"] for c in data["by_situation"]} <= set(SITUATIONS)
    assert {c["up"] for c in data["by_situation"]} <= set(UPS)
    assert any(d["situation"].startswith("pair ") for d in data["decisions"])  # the rules split
    assert len(data["costliest"]) <= 10 and "note" in data["bets"]


def test_review_html_writes_a_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--html writes one page holding every round of the log, the seat marked, and says where."""
    page = tmp_path / "replay.html"
    assert main(["review", str(GOLDEN / "fouls_in_process.jsonl"), "--seat", "1", "--html", str(page)]) == 0
    err = capsys.readouterr().err
    assert f"replay written to {page}" in err
    html = page.read_text(encoding="utf-8")
    data = json.loads(html.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    assert [r["n"] for r in data["rounds"]] == [r.number for r in read_log(GOLDEN / "fouls_in_process.jsonl").rounds]
    assert [s["mine"] for s in data["seats"]][:2] == [True, False]


@pytest.mark.parametrize("argv, message", [
    (["review", "nowhere.jsonl"], "cannot read log 'nowhere.jsonl'"),
    (["review", "{bad}"], "line 1: not a JSON object"),
    (["review", "{golden}", "--seat", "4"], "has no seat 4"),
    (["review", "{nomatch}"], "a round log starts with its match record"),
])
def test_bad_input_is_one_line(argv: list[str], message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file, a file that is not a log, a seat the match does not have: one line, exit 2."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    nomatch = tmp_path / "nomatch.jsonl"
    nomatch.write_text('{"type":"round"}\n', encoding="utf-8")
    args = [a.format(bad=bad, golden=GOLDEN / "builtins3.jsonl", nomatch=nomatch) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("twentyone: error: ") and message in err and err.count("\n") == 1


def test_names_reach_the_terminal_as_plain_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A name holding terminal escapes and newlines is printed on one line with its control characters escaped,
    and cut to 200 characters."""
    lines = (GOLDEN / "builtins3.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["seats"][0]["name"] = "\x1b[2J\x1b]0;pwned\x07li\nsi" + "x" * 300
    lines[0] = json.dumps(first)
    log = tmp_path / "odd.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["review", str(log)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "\x1b" not in head and "\x07" not in head and "\\x1b[2J\\x1b]0;pwned\\x07li si" in head
    assert len(read_log(log).seats[0].name) == 200


def test_the_costliest_decisions_come_costliest_first() -> None:
    """costliest() lists the decisions that lost EV from the costliest down (ties by round), at most n, none that
    lost nothing or was not priced."""
    def p(rnd: int, loss: float | None) -> Priced:
        return Priced(rnd, 1, 0, 0, "play", 0, "T6", "T", "hard 16", (("s", -0.5), ("h", -0.4)), "s", "", "h", loss,
                      4, 10)

    decisions = [p(1, 0.1), p(2, 0.5), p(3, None), p(4, 0.0), p(5, 0.3), p(6, 0.5)]
    assert [(x.round, x.loss) for x in costliest(decisions)] == [(2, 0.5), (6, 0.5), (5, 0.3), (1, 0.1)]
    assert [x.round for x in costliest(decisions, 2)] == [2, 6]
    review = review_match(read_log(GOLDEN / "demo5.jsonl"), 2)
    worst = costliest(review.priced)
    assert worst[0].loss == max(x.loss or 0.0 for x in review.priced)
    losses = [x.loss for x in worst]
    assert None not in losses and losses == sorted((x.loss or 0.0 for x in worst), reverse=True)


def test_a_fault_at_settlement_says_what_it_was() -> None:
    """A fault whose record gives no detail is told by its cause ("faults in show: crash"), never by an empty
    reason."""
    lines = (GOLDEN / "builtins3.jsonl").read_text(encoding="utf-8").splitlines()
    k = next(i for i, line in enumerate(lines) if '"round":2,' in line)
    rec = json.loads(lines[k])
    rec["faults"] = [{"seat": 1, "cause": "crash", "detail": ""}]
    lines[k] = json.dumps(rec)
    match = parse_log(lines, "fault.jsonl")
    ((_, play),) = [(rnd, play) for rnd, play in rounds_of(match) if rnd.number == 2]
    assert not isinstance(play, LogError)
    text = " ".join(step.text for step in play.steps)
    assert "faults in show: crash" in text and "faults in show: ." not in text and "show: ;" not in text


def test_a_binary_file_is_not_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    """review of a file that is not text says so in one line, not with Python's codec message."""
    assert main(["review", "/bin/sh"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("twentyone: error: '/bin/sh' is not a round log: it is not text") and err.count("\n") == 1
    assert "codec" not in err and "decode" not in err
