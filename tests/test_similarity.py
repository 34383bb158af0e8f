"""Similar submissions (issue 16): code fingerprints, decision traces, the pair statistic, the pages, the command.

The class is ``tests/fixtures/similar`` (see its README) beside earlier hand-ins: 李雷 plays a strategy of his own,
han_meimei hands in a disguised copy of it, zhou_jie and ``basic.c`` implement the basic chart independently.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_seccomp
from tests.test_report import chromium, png_size, run_chromium
from twentyone.grading.similarity.behaviour import FLAT_BETTORS, Play, compare_plays, plays_of, sign_test
from twentyone.grading.commands import Execution, grade
from twentyone.grading.config import GradingConfig, Similarity, config_from_dict
from twentyone.grading.similarity.fingerprints import code_scores, fingerprint, language_of, read_text, template_grams
from twentyone.grading.outcome import JobInfo, MatchOutcome
from twentyone.grading.similarity.command import similar
from twentyone.grading.similarity.pairs import PairRow, SimilarityReport, build, template_sources
from twentyone.grading.similarity.pages import FOLDER, PAGE, write_similarity
from twentyone.grading.store import SourceRow, Store
from twentyone.grading.similarity.traces import REFERENCES, TraceRound, hand_at

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
LI = FIX / "similar" / "李雷"
HAN = FIX / "similar" / "han_meimei"
ZHOU = FIX / "similar" / "zhou_jie"
BASIC_C = FIX / "c" / "students" / "basic.c"
CLASS = [LI, HAN, ZHOU, BASIC_C, FIX / "handins" / "cstyle_c", FIX / "handins" / "novice"]
TEMPLATE = ROOT / "c_src" / "mycodes.c"
QUIET = Execution(workers=2, progress=False, warn=lambda m: None)


def trusted(**similarity: object) -> GradingConfig:
    """The default configuration, played in process (the files here are the project's own)."""
    return config_from_dict({"isolation": {"trusted": True}, "similarity": dict(similarity)})


@pytest.fixture(scope="module")
def class_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[SimilarityReport, Path]:
    """``similar`` over the class, pages written once for the module."""
    out = tmp_path_factory.mktemp("similar")
    return similar(CLASS, trusted(), out, QUIET), out


def pair(report: SimilarityReport, a: str, b: str) -> PairRow:
    """The row of the pair a, b (either order)."""
    return next(p for p in report.pairs if {p.a, p.b} == {a, b})


def source(path: Path, name: str | None = None) -> SourceRow:
    """A submission's source row, as the store keeps it."""
    return SourceRow(name or path.parent.name, "submission", str(path), language_of(path), read_text(path.read_bytes()))


# ----------------------------------------------------------------------------------------- the issue

@pytest.mark.slow
def test_disguised_copy_ranks_first_on_code_and_on_behaviour(class_report: tuple[SimilarityReport, Path]) -> None:
    """A file and its disguised copy (names, order, comments, layout changed, a helper added) lead both rankings."""
    report, _ = class_report
    top = report.listed()[0]
    assert {top.a, top.b} == {"李雷", "han_meimei"}
    assert top.code_flag and top.play_flag
    assert top.code_score == max(p.code_score for p in report.pairs) and top.code_score > 0.9
    assert top.play_strength == max(p.play_strength for p in report.pairs)
    assert top.play is not None and top.play.agreement == 1.0 and top.play.compared > 1500
    assert top.play.score > 0.1 and top.play.unusual > 50
    others = [p for p in report.pairs if p is not top]
    assert all(not p.flags for p in others)


@pytest.mark.slow
def test_independent_basic_strategies_are_not_flagged(class_report: tuple[SimilarityReport, Path]) -> None:
    """Two basic-chart players written differently agree on nearly every decision, but no more than the chart does."""
    report, _ = class_report
    p = pair(report, "zhou_jie", "basic")
    assert p.play is not None and p.play.compared > 1500 and p.play.agreement > 0.99
    assert p.play.reference in ("basic", "chart") and p.play.score <= 0.005
    assert not p.play_flag and not p.code_flag and p.code_score < 0.3
    closest = {m.name: m.closest for m in report.members}
    assert closest["zhou_jie"] in ("basic", "chart") and closest["basic"] in ("basic", "chart")


def test_template_alone_scores_near_zero_against_every_submission(tmp_path: Path) -> None:
    """The handed-out mycodes.c, handed in untouched (as GBK/CRLF), has no code of its own to share."""
    copy = tmp_path / "lazy" / "mycodes.c"
    copy.parent.mkdir()
    copy.write_bytes(TEMPLATE.read_text(encoding="utf-8").replace("\n", "\r\n").encode("gbk"))
    paths = [copy, *[p if p.suffix else p / "mycodes.c" for p in CLASS],
             FIX / "handins" / "张三_2023001" / "mycodes.c"]
    rows = [source(p, p.stem if p.suffix == ".c" and p.name != "mycodes.c" else None) for p in paths]
    report = build([r.name for r in rows], rows + template_sources(), {}, Similarity(), "t")
    lazy = next(m for m in report.members if m.name == "lazy")
    assert lazy.prints == 0
    assert all(p.code_score <= 0.05 for p in report.pairs if "lazy" in (p.a, p.b))
    ignore = template_grams([(TEMPLATE.read_text(), "c")])
    assert fingerprint("t", read_text(TEMPLATE.read_bytes()), "c", ignore).prints == set()


def test_gbk_crlf_file_and_its_utf8_lf_copy_are_identical(tmp_path: Path) -> None:
    """The same file in GBK with CRLF and in UTF-8 with LF has the same tokens and a code score of 1."""
    raw = (LI / "mycodes.c").read_bytes()
    assert b"\r\n" in raw
    copy = tmp_path / "mycodes.c"
    copy.write_bytes(raw.decode("gbk").replace("\r\n", "\n").encode("utf-8"))
    ignore = template_grams([(TEMPLATE.read_text(), "c")])
    a = fingerprint("gbk", read_text(raw), "c", ignore)
    b = fingerprint("utf8", read_text(copy.read_bytes()), "c", ignore)
    assert [t.kind for t in a.tokens] == [t.kind for t in b.tokens] and a.prints == b.prints and a.prints
    assert code_scores([a, b])[(0, 1)].score == 1.0


@pytest.mark.slow
def test_pair_page_renders_both_files_side_by_side_in_headless_chromium(
        class_report: tuple[SimilarityReport, Path], tmp_path: Path) -> None:
    """Chromium lays the two files out side by side, matches highlighted and linked; the list page sorts."""
    exe = chromium()
    report, out = class_report
    top = report.listed()[0]
    page = out / FOLDER / top.page
    shot = tmp_path / "pair.png"
    r = run_chromium(exe, f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri())
    assert shot.is_file(), r.stderr
    assert png_size(shot) == (1400, 1000) and shot.stat().st_size > 30_000
    r = run_chromium(exe, "--enable-logging=stderr", "--v=0", "--window-size=1400,1000", "--dump-dom", page.as_uri())
    assert "Uncaught" not in r.stderr and "Refused to" not in r.stderr, r.stderr
    dom = r.stdout
    assert 'data-layout="side-by-side"' in dom and 'data-ready="1"' in dom
    assert dom.count('class="file"') == 2 and 'id="a1" href="#b1"' in dom and 'id="b1" href="#a1"' in dom
    assert "jisuan" in dom and "calc_total" in dom  # each side shows its own file
    assert "evidence for a person to weigh, not a verdict" in dom
    listing = (out / PAGE).as_uri() + "?sort=code&dir=desc"
    r = run_chromium(exe, "--enable-logging=stderr", "--v=0", "--dump-dom", listing)
    assert "Uncaught" not in r.stderr and "Refused to" not in r.stderr, r.stderr
    assert 'data-sorted-by="code:desc"' in r.stdout and "not a verdict" in r.stdout


def test_pages_show_student_text_as_text(tmp_path: Path) -> None:
    """Names, paths and code with HTML in them are escaped, and a pair's page name is one safe file name."""
    hostile = "dan&o'hara/<script>alert(1)</script>"
    text = read_text((LI / "mycodes.c").read_bytes()) + "\n/* </pre><script>alert(2)</script> */\n"
    rows = [SourceRow(hostile, "submission", "x/<b>y</b>.c", "c", text), SourceRow("li", "submission", "li.c", "c", text)]
    report = build([hostile, "li"], rows + template_sources(), {}, Similarity(), "class <i>")
    pages = [p for p in write_similarity(report, tmp_path) if p.suffix == ".html"]
    assert len(pages) == 2 and all(p.parent in (tmp_path, tmp_path / FOLDER) for p in pages)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<b>y</b>" not in html and "<i>" not in html
    assert "&lt;script&gt;alert(2)" in (tmp_path / FOLDER / report.listed()[0].page).read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------ fingerprints

SET = """
int bet{k}(int N) {{ return {bet}; }}
char first_action{k}(char* tmpcards, int len)
{{
    int {t} = calculate_two(tmpcards[{a}], tmpcards[{b}]);
    if ({t} >= 17) return 's';
    if ({t} <= 11 && tmpcards[0] >= '3' && tmpcards[0] <= '6') return 'd';
    if ({t} >= 13 && tmpcards[0] >= '2' && tmpcards[0] <= '6') return 's';
    return 'h';
}}
"""


def test_renaming_reordering_comments_and_layout_change_no_fingerprint() -> None:
    """Identifiers, literals, comments, whitespace and the order of functions do not change the fingerprints."""
    one = "/* mine */\n" + "".join(SET.format(k=k, bet=10, t="total", a=2 * k, b=2 * k + 1) for k in (1, 2, 3))
    two = "// someone else's\n" + "".join(
        SET.format(k=k, bet=20, t="points", a=2 * k, b=2 * k + 1).replace("\n    ", "\n\t") for k in (3, 1, 2))
    a, b = fingerprint("a", one, "c"), fingerprint("b", two, "c")
    assert a.prints and a.prints == b.prints


def test_course_function_headers_never_count() -> None:
    """Two files that share only the twenty headers every student writes share no fingerprint."""
    heads = "".join(f"int bet{k}(int N) {{ return {k}; }}\n"
                    f"char first_action{k}(char* tmpcards, int len) {{ return 's'; }}\n"
                    f"char continue_action{k}(Player(*players)[]) {{ return 'h'; }}\n"
                    f"void show{k}(Banker* pbanker, Player(*players)[], int pNum, int N, int pos) {{ }}\n"
                    for k in range(1, 6))
    assert fingerprint("h", heads, "c").prints == set()


def test_python_files_are_tokenized_and_compared() -> None:
    """A Python strategy and its renamed copy are identical; the template mycodes.py counts for nothing."""
    text = (ROOT / "tests" / "fixtures" / "py" / "fouls_py.py").read_text()
    renamed = text.replace("view", "v").replace("#", "# changed:")
    a, b = fingerprint("a", text, "py"), fingerprint("b", renamed, "py")
    assert a.prints == b.prints
    tpl = (ROOT / "mycodes" / "mycodes.py").read_text()
    assert fingerprint("t", tpl, "py", template_grams([(tpl, "py")])).prints == set()


# ------------------------------------------------------------------------------------------- traces

def test_trace_rounds_are_the_round_logs_and_each_reference_is_asked_in_the_same_view() -> None:
    """Bets, cards and actions of the trace are the round log's; hilo agrees with itself, stand with every 's'."""
    from twentyone.grading.similarity.tracer import Tracer, reference_family
    from twentyone.match import Seating, play_match
    from twentyone.players.builtin.course import HiLo, Stand
    from twentyone.roundlog import RoundLog
    from twentyone.rules import COURSE

    tracer = Tracer(HiLo(), reference_family(COURSE, 6))
    log = RoundLog(keep=True)
    play_match([Seating("s", "stand", Stand()), Seating("h", "hilo", tracer)], 6, 11, log=log)
    rounds = [r for r in log.records or [] if r["type"] == "round"]
    trace = tracer.trace()
    assert len(trace) == len(rounds) > 50
    hilo, stand = 1 << REFERENCES.index("hilo"), 1 << REFERENCES.index("stand")
    for t, rec in zip(trace, rounds):
        me = rec["players"][1]
        assert (t.round, t.bet, t.cards, t.actions) == (rec["round"], me["bet"], me["cards"], me["actions"])
        assert t.up == rec["dealer"][0] and t.money[0] == rec["players"][0]["account_before"] - 10
        assert all(m & hilo for m in t.agree)
        assert all(bool(m & stand) == (a == "s") for m, a in zip(t.agree[1:], t.actions))
        for j in range(1, len(t.agree)):
            assert me["cards"].startswith(hand_at(t, j)) and len(hand_at(t, j)) >= 2
    assert trace[0].key == (1, 0, 1, (990, 1000))  # seat 1 has staked its 10 when seat 2 is asked to bet


def round_(pos: int, rnd: int, bet: int, actions: str, agree: tuple[int, ...], money: int = 1000) -> TraceRound:
    """A hand-made trace round."""
    return TraceRound(1, pos, rnd, (money, 1000), bet, "T", "T7" + "5" * actions.count("h"), actions, agree)


def test_plays_are_compared_only_in_the_same_situation_up_to_the_first_difference() -> None:
    """Rounds meet by (match, shoe, cards dealt, round, money); within a round the comparison stops at a difference."""
    all_refs = (1 << len(REFERENCES)) - 1
    a = {(7, 1): [round_(0, 1, 10, "hs", (all_refs, 1, 0)), round_(9, 2, 10, "s", (all_refs, 1))]}
    b = {(7, 1): [round_(0, 1, 10, "hh", (all_refs, 1, 2)), round_(9, 2, 10, "s", (all_refs, 1), money=990)]}
    plays = plays_of({"a": a, "b": b})
    got = compare_plays(plays).pairs[(0, 1)]
    assert (got.compared, got.agreed) == (3, 2)  # the bet, the first h, then s against h; round 2's money differs
    assert isinstance(plays[0], Play) and plays[0].decisions == 5


def _naive(a: dict[tuple[int, int], list[TraceRound]], b: dict[tuple[int, int], list[TraceRound]]
           ) -> tuple[int, int, int, int, int, int]:
    """(compared, agreed, best reference agreement, wins, losses, unusual) of two traces, decision by decision."""
    flat = sum(1 << REFERENCES.index(r) for r in FLAT_BETTORS)

    def masks(t: dict[tuple[int, int], list[TraceRound]], r: TraceRound) -> list[int]:
        bets = [x.bet for rs in t.values() for x in rs if x.bet is not None]
        stake = max(set(bets), key=lambda v: (bets.count(v), -v))  # the usual stake: flat bettors bet it
        return [r.agree[0] & ~flat | (flat if r.bet == stake else 0), *r.agree[1:]]

    rounds_b = {(slot, r.key): r for slot, rs in b.items() for r in rs}
    rows = []  # (same, mask a, mask b)
    for slot, rs in a.items():
        for ra in rs:
            rb = rounds_b.get((slot, ra.key))
            if rb is None or any(r.key == ra.key for r in rs[:rs.index(ra)]):
                continue
            for ca, cb, ma, mb in zip(ra.choices(), rb.choices(), masks(a, ra), masks(b, rb)):
                rows.append((ca == cb, ma, mb))
                if ca != cb:
                    break
    best = (-1, 0, 0)
    for side in (1, 2):
        for r in range(len(REFERENCES)):
            n = sum(1 for row in rows if row[side] >> r & 1)
            if n > best[0]:
                best = (n, side, r)
    _, side, r = best
    wins = sum(1 for row in rows if row[0] and not row[side] >> r & 1)
    losses = sum(1 for row in rows if not row[0] and row[side] >> r & 1)
    unusual = sum(1 for row in rows if row[0] and row[1] == 0 and row[2] == 0)
    return len(rows), sum(1 for row in rows if row[0]), best[0], wins, losses, unusual


@pytest.mark.parametrize("seed", range(12))
def test_the_array_sums_equal_a_decision_by_decision_count(seed: int) -> None:
    """compare_plays (array sums over stretches) gives the counts of a plain walk over every decision."""
    import random

    rng = random.Random(seed)
    masks = [0, 1, 3, 6, 4095, 2048, 5]

    def trace() -> dict[tuple[int, int], list[TraceRound]]:
        out = {}
        for slot in ((1, 1), (1, 2)):
            rounds = []
            for rnd in range(1, 30):
                acts = rng.choice(["s", "hs", "h", "hhs", "d", "u", ""])
                rounds.append(TraceRound(1, rng.choice([rnd * 5, rnd * 5 + 1]), rnd, (rng.choice([1000, 990]), 1000),
                                         rng.choice([10, 10, 20]), "T", "T5" + "4" * acts.count("h"), acts,
                                         tuple(rng.choice(masks) for _ in range(1 + len(acts)))))
            out[slot] = rounds
        return out

    traces = {f"p{k}": trace() for k in range(4)}
    comparison = compare_plays(plays_of(traces))
    assert len(comparison.pairs) == 6 and sum(p.compared for p in comparison.pairs.values()) > 30
    for (i, j), got in comparison.pairs.items():
        want = _naive(traces[f"p{i}"], traces[f"p{j}"])
        detail = comparison.detail(i, j)
        assert (got.compared, got.agreed, got.reference_agreed, got.wins, got.losses, detail.unusual) == want


def test_a_flat_stake_is_a_scale_not_a_strategy() -> None:
    """Two players who bet 20 every round and stand like a reference agree with that reference on their bets too."""
    stand = 1 << REFERENCES.index("stand")
    hilo = 1 << REFERENCES.index("hilo")

    def rounds(bet: int) -> dict[tuple[int, int], list[TraceRound]]:
        return {(1, 1): [TraceRound(1, 5 * k, k, (1000, 1000), bet, "9", "T8", "s", (hilo if bet == 20 else 0, stand))
                         for k in range(1, 40)]}

    plays = plays_of({"a": rounds(20), "b": rounds(20), "c": rounds(30)})
    assert plays[0].stake == 20 and plays[0].closest() == ("stand", 1.0)
    comparison = compare_plays(plays)
    got = comparison.pairs[(0, 1)]
    assert got.agreement == 1.0 and got.score == 0.0 and not got.flagged(0.05, 0.01)
    assert comparison.detail(0, 1).unusual == 0
    assert comparison.pairs[(0, 2)].agreed == 0  # 20 against 30: the first decision differs every round


def test_sign_test() -> None:
    """The one-sided sign test: exact binomial tails of a fair coin."""
    assert sign_test(0, 0) == 1.0 and sign_test(0, 5) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 ** -10)
    assert sign_test(9, 1) == pytest.approx(11 / 1024)
    assert sign_test(2, 2) == pytest.approx(11 / 16)
    assert sign_test(400, 0) < 1e-100


# ------------------------------------------------------------------------------------- grade, store

@pytest.mark.slow
def test_grade_report_has_a_similarity_page_remade_from_the_store_alone(tmp_path: Path) -> None:
    """grade keeps the sources and traces; `twentyone report` remakes the same page without loading a player."""
    out = tmp_path / "run"
    cfg = config_from_dict({"legal": {"matches": 2}, "beat_stand": {"batch": 10, "min_matches": 10, "max_matches": 10},
                            "beat_basic": {"batch": 10, "min_matches": 10, "max_matches": 10},
                            "tournament": {"enabled": False}, "isolation": {"trusted": True},
                            "similarity": {"traces": 4}})
    grade([LI, HAN, ZHOU], cfg, out, False, QUIET)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="similarity.html"' in index
    first = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    top = first["pairs"][0]
    assert {top["a"], top["b"]} == {"李雷", "han_meimei"} and top["code_flagged"] and top["behaviour_flagged"]
    with Store.open(out) as store:
        names = {s.name: s.role for s in store.sources()}
    assert names["李雷"] == "submission" and "course template mycodes.c" in names
    (out / "similarity.json").unlink()
    probe = ("import sys; from twentyone.cli import main; code = main(['report', sys.argv[1], '--quiet']); "
             "bad = sorted(m for m in sys.modules if m.startswith(('twentyone.table', 'twentyone.match', "
             "'twentyone.players', 'twentyone.core', 'twentyone._core', 'twentyone.grading.runner', "
             "'twentyone.grading.similarity.tracer', 'twentyone.analysis.exact'))); print(code, bad)")
    proc = subprocess.run([sys.executable, "-c", probe, str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.stdout.strip() == "0 []", proc.stderr
    assert json.loads((out / "similarity.json").read_text(encoding="utf-8")) == first


def test_a_store_without_sources_or_traces_still_reports(tmp_path: Path) -> None:
    """A run stored before similarity existed: the page says code is not compared, and nothing fails."""
    from twentyone.grading.similarity.pairs import similarity_of
    from twentyone.grading.store import EntryRow
    from twentyone.grading.outcome import EntryKind

    with Store.open(tmp_path, create=True) as store:
        store.set_meta("config", GradingConfig().to_dict())
        store.set_entries([EntryRow("a", 0, "a.c", "a.c:1", EntryKind.C, None, ""),
                           EntryRow("b", 1, "b.c", "b.c:1", EntryKind.C, None, "")])
        info = JobInfo("beat_stand", "a", 0, 2026, ("a", "stand (built-in)"), 1)
        store.add_outcome(MatchOutcome("k", info, "rounds", 100, [1000, 1000], [1, 1], [100, 100], [0, 0],
                                       [None, None], ["", ""]))
        report = similarity_of(store)
    assert report.pairs == [] and any("no source files" in n for n in report.notes)
    written = write_similarity(report, tmp_path / "pages")
    assert (tmp_path / "pages" / PAGE) in written


@pytest.mark.slow  # over 10 s (make test runs it; make test-fast does not)
def test_similar_command_line_sandboxed_json(tmp_path: Path) -> None:
    """`twentyone similar --json` plays in the sandbox by default and prints the ranked pairs; bad input is one line."""
    require_seccomp()
    cfg = tmp_path / "c.toml"
    cfg.write_text("[similarity]\ntraces = 2\n")
    cmd = [sys.executable, "-m", "twentyone", "similar", str(LI), str(HAN), "--json", "--config", str(cfg),
           "--out", str(tmp_path / "out"), "-j", "2"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    top = data["pairs"][0]
    assert {top["a"], top["b"]} == {"李雷", "han_meimei"} and top["code_flagged"]
    assert top["behaviour"]["agreement"] == 1.0 and top["behaviour"]["compared"] > 300
    assert data["verdict"].startswith("A score is evidence")
    assert (tmp_path / "out" / PAGE).is_file()
    bad = subprocess.run([sys.executable, "-m", "twentyone", "similar", str(tmp_path / "nothing.c"),
                          str(tmp_path / "nothing2.c"), "--out", str(tmp_path / "o2")], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr


def test_similar_says_why_a_pair_is_not_listed(tmp_path: Path) -> None:
    """Every pair is either in the table or has a reason why not: the template handed in has no fingerprints of
    its own, C and Python are not comparable by code; the page and the JSON say so, pair by pair and counted by
    reason."""
    rows = [SourceRow("copy_of_template", "submission", "t/mycodes.c", "c", read_text(TEMPLATE.read_bytes())),
            source(LI / "mycodes.c", "李雷"), source(ZHOU / "mycodes.c", "zhou_jie"),
            SourceRow("py_student", "submission", "p.py", "py", read_text(FIX.joinpath("py", "fouls_py.py").read_bytes()))]
    names = [r.name for r in rows]
    report = build(names, rows + template_sources(), {}, Similarity(), "reasons")
    unlisted = report.unlisted()
    assert len(report.listed()) + len(unlisted) == 6
    why = {frozenset((a, b)): text for a, b, _, text in unlisted}
    assert why[frozenset(("copy_of_template", "zhou_jie"))].startswith(
        "copy_of_template is the template: no fingerprints of its own")
    assert why[frozenset(("李雷", "py_student"))].startswith("not comparable by code (C or C++ and Python)")
    assert frozenset(("李雷", "zhou_jie")) not in why  # some code in common: listed, below the flag line
    assert {frozenset((p.a, p.b)) for p in report.listed()} == {frozenset(("李雷", "zhou_jie"))}
    counts = dict(report.unlisted_counts())
    assert sum(counts.values()) == len(unlisted)
    write_similarity(report, tmp_path)
    page = (tmp_path / PAGE).read_text(encoding="utf-8")
    assert f"Pairs not listed ({len(unlisted)})" in page and "is the template: no fingerprints of its own" in page
    data = json.loads((tmp_path / "similarity.json").read_text(encoding="utf-8"))
    assert {frozenset((d["a"], d["b"])) for d in data["not_listed"]} == set(why)


def test_a_pair_past_the_listed_ones_says_it_is_below_both_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """With only the strongest pair listed, the others say they are below the code threshold (or share too little)
    and have no evidence by play, with their numbers."""
    from twentyone.grading.similarity import pairs

    monkeypatch.setattr(pairs, "MAX_LISTED", 1)
    rows = [source(LI / "mycodes.c", "李雷"), source(ZHOU / "mycodes.c", "zhou_jie"),
            source(FIX / "handins" / "cstyle_c" / "mycodes.c", "cstyle")]
    report = build([r.name for r in rows], rows + template_sources(), {}, Similarity(), "past")
    assert len(report.listed()) == 1
    unlisted = report.unlisted()
    assert len(unlisted) == 2
    for _, _, kind, why in unlisted:
        assert kind in ("below the code threshold and never in the same situation in play, and weaker than the 1 "
                        "strongest pairs listed", "too little code in common and never in the same situation in "
                        "play, and weaker than the 1 strongest pairs listed"), kind
        assert "code score" in why or "fingerprints, fewer than 10" in why
