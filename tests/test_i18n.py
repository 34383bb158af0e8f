"""The language of what a student reads: one gettext catalogue per language, chosen by --lang and the locale.

Every message the code marks is in the Chinese catalogue with a translation that keeps its fields; the French
game's messages are in the French one; a student-facing module builds no sentence outside the catalogue (as far
as reading its code can tell); the catalogues are compiled into the wheel.
"""

from __future__ import annotations

import ast
import gettext
import io
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from twentyone.i18n import (LOCALE_DIR, _, activate, catalogue_path, choose, current, from_environment, html_lang,
                            ngettext, pgettext, translations, using)
from twentyone.i18n.extract import PACKAGE, extract, extract_file, merge, placeholders
from twentyone.i18n.po import compile_po, parse_po, write_po

ROOT = Path(__file__).resolve().parent.parent

#: The modules of the French game and of play: every message of theirs has a French translation too.
FRENCH_MODULES = ("players/terminal.py", "playing.py", "games/commands/__init__.py", "games/solo.py", "games/elimination.py")


def _catalogue(lang: str) -> dict[tuple[str | None, str], object]:
    return {e.key: e for e in parse_po(catalogue_path(lang).read_text(encoding="utf-8")) if e.msgid and not e.obsolete}


def test_every_message_has_a_chinese_translation() -> None:
    """Every message the code marks is in zh's catalogue, translated, not fuzzy, with the same {fields}."""
    zh = _catalogue("zh")
    messages = extract()
    assert len(messages) > 40
    problems = []
    for m in messages:
        e = zh.get(m.key)
        if e is None or not e.translated:  # type: ignore[attr-defined]
            problems.append(f"untranslated: {m.msgid!r} ({m.references[0]})")
            continue
        fields = set(placeholders(m.msgid)) | set(placeholders(m.plural or ""))
        for s in e.msgstr:  # type: ignore[attr-defined]
            if set(placeholders(s)) != fields:
                problems.append(f"fields differ: {m.msgid!r} -> {s!r}")
    assert not problems, "\n".join(problems)


def test_the_french_game_has_every_message_in_french() -> None:
    """play and the French game (solo, elimination) have each of their messages in fr, its fields kept."""
    fr = _catalogue("fr")
    problems = []
    for name in FRENCH_MODULES:
        for m in extract_file(PACKAGE / name):
            e = fr.get(m.key)
            if e is None or not e.translated:  # type: ignore[attr-defined]
                problems.append(f"{name}: untranslated: {m.msgid!r}")
            elif any(set(placeholders(s)) != set(placeholders(m.msgid)) for s in e.msgstr):  # type: ignore[attr-defined]
                problems.append(f"{name}: fields differ: {m.msgid!r}")
    assert not problems, "\n".join(problems)


def test_french_translations_keep_their_fields() -> None:
    """Every French translation there is keeps the message's {fields} (a missing one would raise KeyError)."""
    bad = [e.msgid for e in _catalogue("fr").values() for s in e.msgstr  # type: ignore[attr-defined]
           if s and set(placeholders(s)) != set(placeholders(e.msgid))]  # type: ignore[attr-defined]
    assert not bad


def test_the_catalogues_are_in_step_with_the_code() -> None:
    """Each .po is what `python -m twentyone.i18n.extract --update` makes of it: no message missing, none lost."""
    messages = extract()
    for lang in ("zh", "fr"):
        text = catalogue_path(lang).read_text(encoding="utf-8")
        assert write_po(merge(messages, parse_po(text), lang)) == text, f"run python -m twentyone.i18n.extract --update ({lang})"


def test_the_locale_is_read_as_gettext_reads_it() -> None:
    """LANGUAGE, then LC_ALL, LC_MESSAGES, LANG: the first set decides; C and POSIX say nothing; --lang wins."""
    assert from_environment({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert from_environment({"LANG": "zh_CN.UTF-8", "LC_ALL": "fr_FR.UTF-8"}) == "fr"
    assert from_environment({"LANG": "fr_FR", "LC_MESSAGES": "en_US.UTF-8"}) == "en"
    assert from_environment({"LANG": "en_US", "LANGUAGE": "de:zh_TW"}) == "zh"  # a list: the first we have
    assert from_environment({"LANG": "C.UTF-8"}) is None and from_environment({"LC_ALL": "POSIX", "LANG": "zh_CN"}) is None
    assert from_environment({"LANG": "de_DE.UTF-8"}) is None and from_environment({}) is None
    assert choose(None, "fr", {"LANG": "C.UTF-8"}) == "fr" and choose(None, "fr", {"LANG": "zh_CN.UTF-8"}) == "zh"
    assert choose("en", "fr", {"LANG": "zh_CN.UTF-8"}) == "en"


def test_messages_forms_and_contexts_in_each_language() -> None:
    """_, ngettext and pgettext give the catalogue's words in the active language and English outside it."""
    with using("zh"):
        assert _("hit") == "拿牌" and ngettext("{n} round", "{n} rounds", 3).format(n=3) == "3 局"
        assert pgettext("column", "money") == "赌资" and current() == "zh" and html_lang() == "zh-CN"
    with using("fr"):
        assert ngettext("{n} round", "{n} rounds", 1) == "{n} manche" and ngettext("{n} round", "{n} rounds", 2) == "{n} manches"
    assert current() == "en" and _("hit") == "hit" and ngettext("{n} round", "{n} rounds", 2) == "{n} rounds"
    with pytest.raises(ValueError):
        activate("de")


def test_po_text_compiles_into_what_gettext_reads() -> None:
    """compile_po's .mo is read by Python's gettext: plain, context, plural and multi-line messages, fuzzy left out."""
    po = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n'
          '#: a.py\nmsgid "hit"\nmsgstr "tirer"\n\nmsgctxt "column"\nmsgid "money"\nmsgstr "budget"\n\n'
          'msgid "{n} round"\nmsgid_plural "{n} rounds"\nmsgstr[0] "{n} manche"\nmsgstr[1] "{n} manches"\n\n'
          'msgid ""\n"two "\n"lines\\n"\nmsgstr "deux \\"lignes\\"\\n"\n\n#, fuzzy\nmsgid "stand"\nmsgstr "rester"\n')
    t = gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    assert t.gettext("hit") == "tirer" and t.pgettext("column", "money") == "budget" and t.gettext("money") == "money"
    assert t.ngettext("{n} round", "{n} rounds", 0) == "{n} manche" and t.ngettext("{n} round", "{n} rounds", 5) == "{n} manches"
    assert t.gettext("two lines\n") == 'deux "lignes"\n' and t.gettext("stand") == "stand"
    assert parse_po(write_po(parse_po(po))) == parse_po(po)


def test_a_po_that_is_not_the_format_names_its_line() -> None:
    """A broken catalogue is refused with the line at fault."""
    from twentyone.i18n.po import PoError

    with pytest.raises(PoError, match="line 2"):
        parse_po('msgid "a"\nmsgstr b\n')


def test_a_catalogue_newer_than_its_mo_is_read_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A translator's edit of a .po is what the next command shows, before any rebuild of the .mo."""
    import twentyone.i18n as i18n

    po = tmp_path / "zh" / "LC_MESSAGES" / "twentyone.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "hit"\nmsgstr "要牌"\n', encoding="utf-8")
    mo = po.with_suffix(".mo")
    mo.write_bytes(compile_po('msgid "hit"\nmsgstr "拿牌"\n'))
    os.utime(po, (mo.stat().st_mtime + 10, mo.stat().st_mtime + 10))
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    translations.cache_clear()
    try:
        assert translations("zh").gettext("hit") == "要牌"
        os.utime(mo, (po.stat().st_mtime + 10, po.stat().st_mtime + 10))
        translations.cache_clear()
        assert translations("zh").gettext("hit") == "拿牌"
    finally:
        translations.cache_clear()


def test_no_module_that_translates_shadows_the_underscore() -> None:
    """A module that imports _ never assigns _ (a throwaway `_` would make _("...") fail in that function)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = any(isinstance(n, ast.ImportFrom) and n.module == "twentyone.i18n" and
                      any(a.name == "_" for a in n.names) for n in ast.walk(tree))
        if not imports:
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store):
                bad.append(f"{path.relative_to(PACKAGE)}:{n.lineno}")
    assert not bad


def test_the_locale_chooses_the_language_of_a_command() -> None:
    """LANG=zh_CN.UTF-8 makes play speak Chinese; --lang en beats it; LANG=C leaves the command's own (en)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}

    def play(lang_env: str, *extra: str) -> str:
        r = subprocess.run([sys.executable, "-m", "twentyone", "play", "--seed", "3", *extra], input="q\n",
                           capture_output=True, text=True, env={**env, "LANG": lang_env}, cwd=ROOT, timeout=120)
        return r.stdout

    assert "请下注" in play("zh_CN.UTF-8")
    assert "your bet" in play("zh_CN.UTF-8", "--lang", "en")
    assert "your bet" in play("C.UTF-8")
    assert "votre mise" in play("fr_FR.UTF-8")


@pytest.mark.slow
def test_the_wheel_carries_the_compiled_catalogues(tmp_path: Path) -> None:
    """pip's wheel holds each language's .mo, compiled from its .po, and gettext reads Chinese from it."""
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                        "--wheel-dir", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next(tmp_path.glob("twentyone-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        zh = z.read("twentyone/i18n/locale/zh/LC_MESSAGES/twentyone.mo")
    assert "twentyone/i18n/locale/fr/LC_MESSAGES/twentyone.mo" in names
    assert not any(n.endswith(".po") for n in names)  # the .mo is what is installed
    assert gettext.GNUTranslations(io.BytesIO(zh)).gettext("hit") == "拿牌"
    assert zh == compile_po(catalogue_path("zh").read_text(encoding="utf-8"))
    assert LOCALE_DIR.is_dir()


#: The modules whose output a student reads, whole (None) or only the named functions (the rest is the instructor's).
STUDENT_MODULES: dict[str, tuple[str, ...] | None] = {
    "players/terminal.py": None, "playing.py": None, "games/commands/__init__.py": None, "games/people.py": None,
    "games/commands/lianzhong.py": None, "games/commands/montecarlo.py": None, "review/commands.py": None, "review/costs.py": None,
    "review/rounds.py": None, "review/replay.py": None, "review/pricing.py": None, "analysis/commands.py": None,
    "analysis/charts.py": None, "rules.py": ("describe_game",), "analysis/exact.py": ("describe", "_fixed_chart"),
    "grading/report.py": None, "grading/incidents.py": None, "grading/platforms.py": None, "grading/charts.py": None,
    "grading/decisions/pages.py": None, "grading/autograder/run.py": ("_failed", "_refused", "run_platform"),
    "grading/autograder/commands.py": ("_check",), "grading/verdicts.py": None, "storedtext.py": None,
    "grading/scoring.py": ("_win_criterion", "_deals_why", "_incidents", "_samples", "grade_student"),
    "grading/results.py": ("cause_words", "replay_words", "match_title"),
}
#: Two words or more of English: what a sentence for a person looks like once markup is taken out.
_WORDS = re.compile(r"[A-Za-z]{2,}[ ,:;]+[A-Za-z]{2,}")
_MARKUP = re.compile(r"<[^>]*>|&\w+;")
#: Names of matplotlib's legend corners (code, not words).
_CORNERS = {"upper left", "upper right", "lower left", "lower right", "lower center"}
#: Code that reads as words: a Content-Security-Policy, an inline style.
_CODE = re.compile(r"default-src|rgba\(")
#: Tables of keys, not sentences: the statuses a badge is coloured by, the kinds of file a chart cannot be read from
#: (named in an error, which stays English).
_KEY_TABLES = {"STATUSES", "_NOT_TEXT"}


def _stray_strings(path: Path, functions: tuple[str, ...] | None) -> list[str]:
    """The English sentences ``path`` builds outside the catalogue: every string literal or f-string of two words or
    more (markup aside) that is not a docstring, a message given to _, N_, ngettext or pgettext, an error raised
    (the command line's errors stay English), argparse's help, a pattern, a CSS or JS block, a comparison, a key (of a dict,
    a table of keys, given to a ``*_word`` function), a line of the command line's own (``twentyone: ...``), or
    marked ``# english:`` with the reason."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    parent: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[child] = node
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and not isinstance(parent.get(node), ast.JoinedStr):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        else:
            continue
        text = _MARKUP.sub(" ", text)
        if (not _WORDS.search(text) or text.strip() in _CORNERS or text.startswith("twentyone: ")
                or _CODE.search(text)):
            continue
        if "# english:" in lines[node.lineno - 1]:
            continue
        up, exempt = node, False
        while up in parent and not exempt:
            above = parent[up]
            exempt = (
                (isinstance(above, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                 and above.body and isinstance(above.body[0], ast.Expr) and above.body[0] is up)
                or (isinstance(above, ast.Call) and isinstance(above.func, ast.Name)
                    and above.func.id in ("_", "N_", "ngettext", "pgettext"))
                or isinstance(above, ast.Raise)
                or (isinstance(above, ast.keyword) and above.arg in ("help", "description", "metavar"))
                or (isinstance(above, ast.Call) and isinstance(above.func, ast.Attribute)
                    and above.func.attr in ("add_argument", "add_parser", "add_argument_group", "compile"))
                or (isinstance(above, (ast.Assign, ast.AnnAssign)) and any(
                    isinstance(t, ast.Name) and (t.id.endswith(("CSS", "JS", "FONTS")) or t.id in _KEY_TABLES)
                    for t in (above.targets if isinstance(above, ast.Assign) else [above.target])))
                or (isinstance(above, ast.Call) and isinstance(above.func, ast.Name)
                    and above.func.id.endswith(("_word", "_words")))  # a key, put in words by the catalogue
                or (isinstance(above, ast.comprehension) and above.iter is up)
                or isinstance(above, ast.Compare)
                or (isinstance(above, ast.Dict) and up in above.keys)
                or (isinstance(above, ast.Subscript) and above.slice is up))
            up = above
        if exempt:
            continue
        if functions is not None and not any(_within(tree, node, f) for f in functions):
            continue
        out.append(f"{path.name}:{node.lineno}: {text.strip()[:80]!r}")
    return out


def _within(tree: ast.Module, node: ast.AST, function: str) -> bool:
    """``node`` is inside the top-level function ``function`` of ``tree``."""
    for f in tree.body:
        if isinstance(f, ast.FunctionDef) and f.name == function:
            return any(n is node for n in ast.walk(f))
    return False


def test_no_student_facing_module_builds_english_outside_the_catalogue() -> None:
    """Every sentence a student reads goes through the catalogue: no module a student's output comes from builds an
    English sentence of its own (as far as reading its code can tell: see _stray_strings)."""
    stray = [line for name, functions in STUDENT_MODULES.items()
             for line in _stray_strings(PACKAGE / name, functions)]
    assert not stray, "\n".join(stray)


def test_the_stray_string_check_finds_a_stray_string(tmp_path: Path) -> None:
    """The check above is not blind: an f-string sentence, a plain one and one in a table are found; the catalogue's
    calls, a docstring, an error and a key are not."""
    module = tmp_path / "stray_example.py"
    module.write_text('"""A docstring, not read."""\nfrom twentyone.i18n import _\n\n\n'
                      'TABLE = {"win": "you win the round"}\n\n\n'
                      'def f(n: int) -> str:\n    """Its docstring."""\n    if n == "not played":\n'
                      '        raise ValueError("bad value here")\n'
                      '    return f"round {n} is over" + _("a translated one") + "plain old text"\n', encoding="utf-8")
    found = _stray_strings(module, None)
    assert {line.split(": ", 1)[1] for line in found} == {"'you win the round'", "'round  is over'", "'plain old text'"}
