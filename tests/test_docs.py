"""The README and the manuals name only what exists: every path, link, module and command they cite."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The README and every manual beside the code.
DOCS = [ROOT / "README.md", *sorted((ROOT / "twentyone").rglob("*.md"))]
_TICKED = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.S)
_PATH_HEADS = ("twentyone/", "c_src/", "tests/", "mycodes/", ".ci/")
_MODULE = re.compile(r"^twentyone(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
#: ``twentyone.c`` and ``twentyone.h`` are the course's C files, not modules.
_FILE_SUFFIXES = {"c", "h", "cpp", "py", "md", "jsonl", "sqlite", "toml", "csv", "json", "html", "png"}


def _names(doc: Path) -> list[str]:
    return _TICKED.findall(doc.read_text(encoding="utf-8"))


def _exists(path: str) -> bool:
    """A repository path, a glob (``tests/test_rulings*.py``, ``c_src/tw_rng.[ch]``) or a folder."""
    path = path.rstrip("/").split(":")[0]
    if any(ch in path for ch in "*?["):
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_path_a_document_names_exists(doc: Path) -> None:
    """Each backticked repository path (``twentyone/...``, ``c_src/...``, ``tests/...``) is there."""
    missing = []
    for name in _names(doc):
        for word in name.split():
            word = word.strip("(),;")
            if word.startswith(_PATH_HEADS) and not _exists(word):
                missing.append(word)
    assert not missing, f"{doc.relative_to(ROOT)} names paths that do not exist: {sorted(set(missing))}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_link_leads_somewhere(doc: Path) -> None:
    """Each relative link of a document resolves to a file of the repository."""
    broken = []
    for target in _LINK.findall(doc.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        if not (doc.parent / target.split("#")[0]).resolve().exists():
            broken.append(target)
    assert not broken, f"{doc.relative_to(ROOT)} links to what does not exist: {broken}"


def _importable(name: str) -> bool:
    """A module, or an attribute of one (``twentyone.players.spec.make_strategy``)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            if importlib.util.find_spec(module) is None:
                continue
        except (ModuleNotFoundError, ValueError):
            continue
        obj: object = importlib.import_module(module)
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_module_a_document_names_imports(doc: Path) -> None:
    """Each backticked dotted name ``twentyone.x.y`` is a module or a name in one."""
    missing = [n for n in _names(doc) if _MODULE.match(n) and n.rsplit(".", 1)[1] not in _FILE_SUFFIXES
               and not _importable(n)]
    assert not missing, f"{doc.relative_to(ROOT)} names modules that do not exist: {missing}"


def _commands() -> dict[str, argparse.ArgumentParser]:
    from twentyone.cli import _build_parser

    parser = _build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"": parser, **sub.choices}


def _example_lines(doc: Path) -> list[str]:
    """The command lines of a document's code blocks that run ``twentyone``."""
    lines = []
    for block in _FENCE.findall(doc.read_text(encoding="utf-8")):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("twentyone "):
                lines.append(line)
    return lines


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_command_a_document_shows_parses(doc: Path) -> None:
    """Each ``twentyone ...`` line of a code block names a real command with options it takes, and each
    backticked ``twentyone NAME`` names a real command."""
    from twentyone.cli import _build_parser

    commands = _commands()
    bad = []
    for name in _names(doc):
        m = re.match(r"twentyone ([a-z][a-z-]*)", name)
        if m and m.group(1) not in commands:
            bad.append(name)
    for line in _example_lines(doc):
        if "[" in line or "..." in line:  # a synopsis (``[--seat N]``, ``a.cpp b.cpp ...``), not an example
            continue
        words = shlex.split(re.split(r"\s(?:\||>|>>|&&|;)\s", line)[0], comments=True)
        if any(w.startswith("$") for w in words):
            continue
        parser = _build_parser()
        try:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(words[1:])
        except SystemExit as e:
            if e.code:
                bad.append(line)
    assert not bad, f"{doc.relative_to(ROOT)} shows commands that do not exist or do not parse: {bad}"


def test_the_readme_is_a_guide() -> None:
    """At most 350 lines; the two set-up commands; a link to every manual; one row for every command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 350
    assert "make demo" in text and "make test" in text
    for doc in DOCS[1:]:
        assert str(doc.relative_to(ROOT)) in text, f"the README does not link {doc.relative_to(ROOT)}"
    rows = set(re.findall(r"^\| `([a-z]+)`", text, re.M)) | {
        w for row in re.findall(r"^\| `([a-z]+)`, `([a-z]+)`", text, re.M) for w in row}
    assert set(_commands()) - {""} <= rows, sorted(set(_commands()) - {""} - rows)
