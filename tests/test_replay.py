"""The replay page: one self-contained file, every student text set as data; stepped through in headless Chromium
with real key presses and clicks, it shows the cards, the caption, the money and each decision's EVs as the
review computed them, with no script error, no CSP refusal and no request but the page itself."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from tests.browser import Browser
from tests.test_report import chromium
from twentyone.i18n import using
from twentyone.review.costs import LETTERS
from twentyone.review.pricing import MatchReview, review_match
from twentyone.review.replay import REPLAY_JS, render_replay
from twentyone.review.logs import parse_log, read_log

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
READY = "document.getElementById('replay') && document.getElementById('replay').dataset.ready === '1'"
HOSTILE = '<img src=x onerror="window.pwned=1">&amp;'


def write(tmp: Path, log: Path, seat: int, lines: list[str] | None = None) -> tuple[Path, MatchReview]:
    """The replay of ``log`` (or of ``lines``) for ``seat``, written in ``tmp``."""
    match = parse_log(lines, log.name) if lines is not None else read_log(log)
    review = review_match(match, seat)
    page = tmp / "replay.html"
    page.write_text(render_replay(match, review.plays, review.priced, [seat], f"Replay of {log.name}"),
                    encoding="utf-8")
    return page, review


def test_the_page_stands_alone(tmp_path: Path) -> None:
    """The page loads nothing: no src or href to another file or the network, a strict CSP that allows only
    its own script by hash, its data one JSON block."""
    page, _ = write(tmp_path, GOLDEN / "builtins3.jsonl", 1)
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", html)
    assert "http://" not in html and "https://" not in html
    digest = base64.b64encode(hashlib.sha256(REPLAY_JS.encode()).digest()).decode()
    assert f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'" in html
    assert html.count("<script") == 2 and f"<script>{REPLAY_JS}</script>" in html


def test_student_text_is_data(tmp_path: Path) -> None:
    """A name from the log is escaped in the header and reaches the page only as JSON (no markup)."""
    lines = (GOLDEN / "builtins3.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["seats"][0]["name"] = HOSTILE + "</script><script>window.pwned=2</script>"
    lines[0] = json.dumps(first)
    page, _ = write(tmp_path, GOLDEN / "builtins3.jsonl", 1, lines)
    html = page.read_text(encoding="utf-8")
    assert "<img src=x" not in html and "</script><script>" not in html
    assert "&lt;img src=x onerror=" in html  # the header, escaped


def _cards(b: Browser, selector: str) -> list[str]:
    return b.eval(f"Array.prototype.map.call(document.querySelectorAll({json.dumps(selector)}), "  # type: ignore[no-any-return]
                  "function (c) { return c.classList.contains('back') ? '?' : c.textContent; })")


def _face(cards: str) -> list[str]:
    return ["10" if c == "T" else c for c in cards]


def _where(b: Browser) -> tuple[int, int]:
    return int(b.eval("document.getElementById('replay').dataset.round")), int(
        b.eval("document.getElementById('replay').dataset.step"))


def _round(review: MatchReview, n: int) -> dict[str, Any]:
    return next(r.record for r in review.match.rounds if r.number == n)


def test_stepping_through_a_match_in_chromium(tmp_path: Path) -> None:
    """Opened at #round-3, the page shows round 3's deal (the hole card face down, the reviewed seat marked);
    the right arrow steps to each step's caption, the last shows the dealer's hand and the money after; the down
    arrow and the buttons change round, n jumps to the next priced decision and shows its options' EVs, the
    address follows."""
    exe = chromium()
    page, review = write(tmp_path, GOLDEN / "fouls_in_process.jsonl", 1)
    with Browser(exe) as b:
        b.open(page.as_uri() + "#round-3", READY)
        assert _where(b) == (3, 0)
        rec = _round(review, 3)
        assert _cards(b, "#dealer-cards .card") == [*_face(rec["dealer"][0]), "?"]
        for p in rec["players"]:
            want = _face(p["cards"][:2])
            assert _cards(b, f".seat[data-seat='{p['seat']}'] .card") == want
        assert b.eval("document.querySelector('.seat.mine').dataset.seat") == "1"
        steps = review.plays[3].steps
        for k in range(1, len(steps)):
            b.key("ArrowRight")
            assert _where(b) == (3, k)
            assert b.eval("document.getElementById('caption').textContent") == steps[k].text
        assert _cards(b, "#dealer-cards .card") == _face(rec["dealer"])  # the dealer's whole hand, shown
        for p in rec["players"]:
            money = b.eval(f"document.querySelector(\".seat[data-seat='{p['seat']}'] .money\").textContent")
            assert money.startswith(f"money {p['account_after']} ")
        assert b.eval("window.location.hash") == f"#round-3-step-{len(steps) - 1}"
        b.key("ArrowRight")  # past the last step: the next round's deal
        assert _where(b) == (4, 0)
        b.key("ArrowDown")
        assert _where(b) == (5, 0)
        b.click("#prev-round")
        assert _where(b) == (4, 0)
        b.click("#next-step")
        assert _where(b) == (4, 1)
        b.key("ArrowLeft")
        assert _where(b) == (4, 0)
        b.key("n")  # the next step with a priced decision of seat 1
        r, k = _where(b)
        mine = [p for p in review.priced if (p.round, p.step) == (r, k)]
        first = min((p for p in review.priced if (p.round, p.step) >= (4, 1)), key=lambda p: (p.round, p.step))
        assert mine and (first.round, first.step) == (r, k)
        rows = b.eval("Array.prototype.map.call(document.querySelectorAll('#decision tr[data-option]'), "
                      "function (tr) { return [tr.dataset.option, tr.cells[1].textContent]; })")
        want = [[LETTERS[a], "not valued" if v is None else ("+" if round(v, 4) > 0 else "") + f"{round(v, 4):.3f}"]
                for a, v in mine[-1].options]
        assert rows[-len(want):] == want
        shown = b.eval("document.querySelector('#decision .lost').dataset.loss")
        assert shown == ("" if mine[-1].loss is None else repr(round(mine[-1].loss, 4)).rstrip("0").rstrip("."))
        b.click("#last-round")
        assert _where(b)[0] == review.match.rounds[-1].number
        b.key("Home")
        assert _where(b) == (review.match.rounds[0].number, 0)
    assert not b.errors, b.errors
    assert all(u.startswith("file:") for u in b.requests), b.requests


def test_a_chinese_replay_in_chromium(tmp_path: Path) -> None:
    """Written in Chinese, the page says so (<html lang="zh-CN">) and what its script writes is Chinese: the seats,
    the money, the position, each step's caption and a decision's panel; data-option keeps the English name."""
    exe = chromium()
    with using("zh"):
        page, review = write(tmp_path, GOLDEN / "fouls_in_process.jsonl", 1)
    html = page.read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in html and "庄家" in html and "按键：" in html
    with Browser(exe) as b:
        b.open(page.as_uri() + "#round-3", READY)
        assert b.eval("document.querySelector('.seat.mine h3').textContent").startswith("座位 1：")
        assert b.eval("document.querySelector('.seat.mine .money').textContent").startswith("赌资 ")
        assert b.eval("document.getElementById('where').textContent").startswith("第 3 局（")
        steps = review.plays[3].steps
        assert steps[0].text.startswith("第 3 局：下注完毕")
        b.key("ArrowRight")
        assert b.eval("document.getElementById('caption').textContent") == steps[1].text
        b.key("n")
        head = b.eval("document.querySelector('#decision h3').textContent")
        assert "的决策" in head or "的保险" in head
        options = b.eval("Array.prototype.map.call(document.querySelectorAll('#decision tr[data-option]'), "
                         "function (tr) { return [tr.dataset.option, tr.cells[0].textContent]; })")
        assert options and all(o[0] in LETTERS.values() for o in options) and any(o[0] != o[1] for o in options)
        assert "所选" in b.eval("document.querySelector('#decision .lost').textContent")
    assert not b.errors, b.errors


def test_a_fault_is_shown_where_it_happened_in_chromium(tmp_path: Path) -> None:
    """A sandboxed C file's crash: the replay's fault step names its line and function, the seat's cards on the
    table beside it."""
    exe = chromium()
    log = GOLDEN / "faults_sandboxed.jsonl"
    match = read_log(log)
    seat, rnd = next((f["seat"], r.number) for r in match.rounds for f in r.record.get("faults", [])
                     if "SIGSEGV" in f["detail"])
    page, review = write(tmp_path, log, seat)
    k = next(i for i, s in enumerate(review.plays[rnd].steps) if any(e[0] == "foul" for e in s.events))
    with Browser(exe) as b:
        b.open(page.as_uri() + f"#round-{rnd}-step-{k}", READY)
        assert _where(b) == (rnd, k)
        text = b.eval(f"document.querySelector(\".seat[data-seat='{seat}'] .foul\").textContent")
        assert text.startswith("crash: segmentation fault (signal SIGSEGV) at ") and " in " in text
        cards = next(p["cards"] for p in _round(review, rnd)["players"] if p["seat"] == seat)
        assert _cards(b, f".seat[data-seat='{seat}'] .card") == _face(cards)
    assert not b.errors, b.errors


def test_hostile_names_do_not_run_in_chromium(tmp_path: Path) -> None:
    """A name that is markup shows as text and runs nothing."""
    exe = chromium()
    lines = (GOLDEN / "builtins3.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["seats"][0]["name"] = HOSTILE
    lines[0] = json.dumps(first)
    page, _ = write(tmp_path, GOLDEN / "builtins3.jsonl", 1, lines)
    with Browser(exe) as b:
        b.open(page.as_uri(), READY)
        assert b.eval("typeof window.pwned") == "undefined"
        assert HOSTILE in b.eval("document.querySelector('.seat.mine h3').textContent")
    assert not b.errors, b.errors

