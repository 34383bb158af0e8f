"""The course platforms' result files in words: no internal key, the crash's source line, the bonus said."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from twentyone.grading.commands import Execution, grade
from twentyone.grading.config import config_from_dict
from twentyone.grading.platforms import gradescope_results, match_words, prairielearn_results, student_text
from twentyone.grading.results import StudentScore

ROOT = Path(__file__).resolve().parent.parent
SEGV_C = ROOT / "tests" / "fixtures" / "c" / "hostile" / "segfault_first_action1.c"
BASIC_C = ROOT / "tests" / "fixtures" / "c" / "students" / "basic.c"
#: What a student must never read: a stored match's key, a rubric line's key, a ruling's name.
INTERNAL = re.compile(r"beat_stand|beat_basic|\blegal\||\w\|\w|\|\d|RULES\.md|grade_legal|deal\d|rot\d")
TINY = {"seed": 7, "legal": {"matches": 2},
        "beat_stand": {"batch": 10, "min_matches": 10, "max_matches": 10},
        "beat_basic": {"batch": 10, "min_matches": 10, "max_matches": 10},
        "tournament": {"matches": 2, "max_matches": 2}}
QUIET = Execution(workers=1, progress=False, warn=lambda m: None, info=lambda m: None)


def _text(data: Any) -> str:
    """Every string of a JSON document, keys included, one per line."""
    if isinstance(data, dict):
        return "\n".join(f"{k}\n{_text(v)}" for k, v in data.items())
    if isinstance(data, list):
        return "\n".join(_text(v) for v in data)
    return str(data)


@pytest.fixture(scope="module")
def class_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A class of two, sandboxed: one crashes in first_action1 at line 5, one plays basic strategy."""
    out = tmp_path_factory.mktemp("grades")
    grade([SEGV_C, BASIC_C], config_from_dict(TINY), out, False, QUIET)
    return out


def test_class_result_files_hold_no_internal_key_and_name_the_crash_line(class_run: Path) -> None:
    """grade's gradescope/ and prairielearn/ files name the crash's source line and matches in words, never a
    stored match's key or a rubric line's key."""
    for platform in ("gradescope", "prairielearn"):
        data = json.loads((class_run / platform / "segfault_first_action1" / "results.json").read_text("utf-8"))
        text = _text({k: v for k, v in data.items()})
        assert "segfault_first_action1.c:5 in first_action1" in text, platform
        assert "crashed" in text and re.search(r"round 1 of match \d+ against (basic|stand), (seed \d+, )?seat \d", text), \
            platform
        found = INTERNAL.findall(text.replace("results.json", ""))
        assert not found, (platform, found)
    gs = json.loads((class_run / "gradescope" / "segfault_first_action1" / "results.json").read_text("utf-8"))
    assert gs["output"].splitlines()[1].startswith("What went wrong first: crashed: segmentation fault")
    assert any(t["name"].startswith("Class tournament") and t["max_score"] == 10 for t in gs["tests"])


def test_match_words_name_every_kind_of_match() -> None:
    """Each key grading stores reads as words, numbered as the pages and the store number them (from 0), and an
    unknown one as 'a match', never as itself."""
    assert match_words("beat_basic|li|3|2") == "match 3 against basic, seat 2"
    assert match_words("beat_basic|li|3|2034|2") == "match 3 against basic, seed 2034, seat 2"
    assert match_words("legal|li|0|1") == "legal-play match 0 beside built-in players, seat 1"
    assert match_words("tournament|deal1|table0|rot2") == "class tournament, deal 2, table 1, rotation 3"
    assert match_words("tournament|deal1|li") == "class tournament, deal 2, alone on its seed"
    assert match_words("tournament|li|wang|4") == "tournament match 5 of li and wang"
    assert match_words("something|else") == "a match"


def test_graded_alone_the_bonus_is_pending_and_said(class_run: Path) -> None:
    """Graded alone, the result says the class tournament's bonus comes later and scores the rubric only."""
    from twentyone.grading.scoring import class_report
    from twentyone.grading.store import Store

    with Store.open(class_run) as s:
        st: StudentScore = next(x for x in class_report(s).students if x.name == "basic")
    gs = gradescope_results(st, pending=True, bonus_top=10)
    assert gs["score"] == st.score and gs["extra_data"] == {"tournament_bonus": "pending"}
    pending = [t for t in gs["tests"] if "after the deadline" in t["name"]]
    assert len(pending) == 1 and pending[0]["max_score"] == 0 and "every hand-in is in" in pending[0]["output"]
    pl = prairielearn_results(st, pending=True, bonus_top=10)
    assert pl["score"] == pytest.approx(st.score / st.max_score)
    assert any("up to 10 points" in t["message"] for t in pl["tests"])
    assert "every hand-in is in" in "\n".join(student_text(st, pending=True, bonus_top=10))
