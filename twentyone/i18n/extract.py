"""Every message of the code, found by reading it, and the catalogues kept in step with them.

``python -m twentyone.i18n.extract`` prints the template (``.pot``) of every message the package marks:
the literal first arguments of ``_``, ``N_``, ``ngettext`` (both forms) and ``pgettext`` (context and
message), each with the places it is used.  ``--update`` merges them into each language's ``.po``: a
translation already there is kept, a new message comes in untranslated, and a message the code no longer
has is kept at the end as obsolete (``#~``), so that no translator's work is lost.  ``--check`` exits 1 and
names what is missing when a catalogue is behind the code or lacks a Chinese translation.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from twentyone.i18n import LANGUAGES, catalogue_path
from twentyone.i18n.po import Entry, parse_po, write_po

__all__ = ["extract", "extract_file", "merge", "HEADERS", "main", "PACKAGE", "placeholders"]

#: The package's folder: every ``.py`` under it is read.
PACKAGE = Path(__file__).resolve().parent.parent
#: Each catalogue's header (``Plural-Forms`` is what gettext needs from it).
HEADERS = {
    "zh": "Project-Id-Version: twentyone\nLanguage: zh_CN\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
          "Plural-Forms: nplurals=1; plural=0;\n",
    "fr": "Project-Id-Version: twentyone\nLanguage: fr\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
          "Plural-Forms: nplurals=2; plural=(n > 1);\n",
}
_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:[:!][^{}]*)?\}")


def placeholders(text: str) -> list[str]:
    """The named fields of a message, sorted (``{seat}``, ``{money:+d}`` -> seat, money)."""
    return sorted(_FIELD.findall(text))


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extract_file(path: Path, root: Path = PACKAGE.parent) -> list[Entry]:
    """The marked messages of one file, in the order they appear (each once per use, with its reference)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = path.resolve().relative_to(root.resolve()).as_posix()
    out: list[Entry] = []
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name, args = node.func.id, node.args
        ref = [where]  # the file, not its line: a catalogue does not change each time code moves
        if name in ("_", "N_") and args and _literal(args[0]) is not None:
            out.append(Entry(str(_literal(args[0])), references=ref))
        elif name == "ngettext" and len(args) >= 2 and _literal(args[0]) is not None and _literal(args[1]) is not None:
            out.append(Entry(str(_literal(args[0])), ["", ""], plural=_literal(args[1]), references=ref))
        elif name == "pgettext" and len(args) >= 2 and _literal(args[0]) is not None and _literal(args[1]) is not None:
            out.append(Entry(str(_literal(args[1])), context=_literal(args[0]), references=ref))
    return out


def extract(files: Iterable[Path] | None = None) -> list[Entry]:
    """Every marked message of ``files`` (the package's), one entry per message with all its references."""
    if files is None:
        files = sorted(p for p in PACKAGE.rglob("*.py") if "i18n" not in p.relative_to(PACKAGE).parts[:1])
    found: dict[tuple[str | None, str], Entry] = {}
    for path in files:
        for e in extract_file(path):
            had = found.get(e.key)
            if had is None:
                if placeholders(e.msgid) or e.plural and placeholders(e.plural):
                    e.flags.append("python-brace-format")
                found[e.key] = e
            elif e.references[0] not in had.references:
                had.references += e.references
    return list(found.values())


def merge(messages: Sequence[Entry], old: Sequence[Entry], lang: str) -> list[Entry]:
    """The catalogue of ``lang`` for ``messages``: the header, each message with the translation ``old`` has
    for it (a new one untranslated, with as many forms as the language has), then ``old``'s messages that the
    code no longer has, obsolete."""
    by_key = {e.key: e for e in old if e.msgid}
    forms = 1 if lang == "zh" else 2
    out = [Entry("", [HEADERS[lang]])]
    for m in messages:
        had = by_key.pop(m.key, None)
        strs = list(had.msgstr) if had is not None else [""]
        if m.plural is not None and len(strs) != forms:
            strs = (strs + [""] * forms)[:forms]
        if m.plural is None:
            strs = strs[:1]
        flags = [f for f in (had.flags if had else []) if f == "fuzzy"] + m.flags
        out.append(Entry(m.msgid, strs, m.plural, m.context, flags, list(had.comments) if had else [], [],
                         m.references))
    for e in by_key.values():
        out.append(Entry(e.msgid, e.msgstr, e.plural, e.context, [], e.comments, [], [], obsolete=True))
    return out


def _missing(messages: Sequence[Entry], lang: str) -> list[str]:
    path = catalogue_path(lang)
    have = {e.key: e for e in parse_po(path.read_text(encoding="utf-8"))} if path.is_file() else {}
    out = []
    for m in messages:
        e = have.get(m.key)
        if e is None:
            out.append(f"{lang}: not in the catalogue: {m.msgid!r} ({m.references[0]})")
        elif lang == "zh" and not e.translated:
            out.append(f"{lang}: not translated: {m.msgid!r} ({m.references[0]})")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m twentyone.i18n.extract [--update | --check]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m twentyone.i18n.extract", description=__doc__.split("\n\n")[0])
    p.add_argument("--update", action="store_true", help="merge the messages into every language's .po")
    p.add_argument("--check", action="store_true", help="exit 1 when a catalogue is behind the code")
    args = p.parse_args(argv)
    messages = extract()
    if args.update:
        for lang in LANGUAGES:
            if lang == "en":
                continue
            path = catalogue_path(lang)
            old = parse_po(path.read_text(encoding="utf-8")) if path.is_file() else []
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(write_po(merge(messages, old, lang)), encoding="utf-8")
            print(f"{path}: {len(messages)} messages")
        return 0
    if args.check:
        problems = [line for lang in LANGUAGES if lang != "en" for line in _missing(messages, lang)]
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    template = [Entry("", ["Content-Type: text/plain; charset=UTF-8\n"])] + messages
    print(write_po(template), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
