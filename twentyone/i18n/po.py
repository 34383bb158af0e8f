"""gettext catalogues read and written without any tool beyond Python: ``.po`` text in, ``.mo`` bytes out.

A ``.po`` file is the catalogue a translator reads and edits (``twentyone/i18n/locale/LANG/LC_MESSAGES/``);
a ``.mo`` file is what Python's ``gettext`` module loads.  ``setup.py`` compiles every ``.po`` into its ``.mo``
when the package is built (a wheel, an editable install), with ``compile_po`` below; this module imports
nothing of twentyone, so ``setup.py`` loads it by its path before the package exists.

- ``parse_po``: the entries of a ``.po`` text (context, id, plural id, translations, flags, comments,
  references); ``PoError`` names the line of anything that is not the format.
- ``write_po``: entries back as ``.po`` text (``python -m twentyone.i18n.extract --update`` rewrites the
  catalogues with it).
- ``compile_po``: the ``.mo`` bytes of a ``.po`` text: every translated entry that is not marked ``fuzzy``,
  and the header (which carries ``Plural-Forms``; UTF-8 when there is none).
"""

from __future__ import annotations

import ast
import struct
from dataclasses import dataclass, field

__all__ = ["Entry", "PoError", "parse_po", "write_po", "compile_po", "mo_bytes"]


class PoError(ValueError):
    """A ``.po`` text that is not the gettext format (the message names the line)."""


@dataclass
class Entry:
    """One message of a catalogue: ``msgid`` (English, as the code has it), its translation(s) ``msgstr``
    (one string, or one per plural form when ``plural`` is set), an optional context."""

    msgid: str
    msgstr: list[str] = field(default_factory=lambda: [""])
    plural: str | None = None
    context: str | None = None
    #: ``#,`` flags (``fuzzy``, ``python-brace-format``).
    flags: list[str] = field(default_factory=list)
    #: ``#`` comments of the translator, ``#.`` comments from the code, ``#:`` references (file:line).
    comments: list[str] = field(default_factory=list)
    extracted: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        """What identifies the message: its context and id."""
        return self.context, self.msgid

    @property
    def translated(self) -> bool:
        """Every form has a translation and the entry is not ``fuzzy``."""
        return "fuzzy" not in self.flags and all(s for s in self.msgstr)


def _unquote(text: str, line: int) -> str:
    text = text.strip()
    if len(text) < 2 or not text.startswith('"') or not text.endswith('"'):
        raise PoError(f"line {line}: expected a quoted string, not {text!r}")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise PoError(f"line {line}: bad string {text!r}") from None
    if not isinstance(value, str):
        raise PoError(f"line {line}: bad string {text!r}")
    return value


def parse_po(text: str) -> list[Entry]:
    """The entries of a ``.po`` text, the header (``msgid ""``) first when there is one; PoError otherwise."""
    entries: list[Entry] = []
    cur: Entry | None = None
    field_name = ""  # the keyword the next continuation line adds to
    started = False  # cur has a msgid

    def finish() -> None:
        nonlocal cur, started
        if cur is not None:
            if not started:
                raise PoError(f"an entry without msgid before line {lineno}")
            entries.append(cur)
        cur, started = None, False

    lineno = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            if cur is not None and started:
                finish()
            continue
        if line.startswith("#") and not obsolete:
            if cur is not None and started:
                finish()
            if cur is None:
                cur = Entry("")
            kind, rest = line[1:2], line[2:].strip()
            if kind == ",":
                cur.flags += [f.strip() for f in rest.split(",") if f.strip()]
            elif kind == ".":
                cur.extracted.append(rest)
            elif kind == ":":
                cur.references += rest.split()
            elif kind == "|":
                pass  # the previous msgid of a fuzzy entry: not kept
            else:
                cur.comments.append(line[1:].lstrip() if kind == " " or not kind else line[1:])
            continue
        keyword, _sp, rest = line.partition(" ")
        if line.startswith('"'):
            if cur is None or not field_name:
                raise PoError(f"line {lineno}: a string continues nothing")
            value = _unquote(line, lineno)
            if field_name == "msgctxt":
                cur.context = (cur.context or "") + value
            elif field_name == "msgid":
                cur.msgid += value
            elif field_name == "msgid_plural":
                cur.plural = (cur.plural or "") + value
            else:
                index = int(field_name[7:-1]) if field_name.startswith("msgstr[") else 0
                cur.msgstr[index] += value
            continue
        if keyword in ("msgctxt", "msgid") and cur is not None and started:
            finish()
        if cur is None:
            cur = Entry("")
        cur.obsolete = cur.obsolete or obsolete
        value = _unquote(rest, lineno)
        if keyword == "msgctxt":
            cur.context = value
        elif keyword == "msgid":
            cur.msgid, started = value, True
        elif keyword == "msgid_plural":
            cur.plural = value
        elif keyword == "msgstr":
            cur.msgstr = [value]
        elif keyword.startswith("msgstr[") and keyword.endswith("]") and keyword[7:-1].isdigit():
            index = int(keyword[7:-1])
            if index == 0:
                cur.msgstr = [value]
            elif index == len(cur.msgstr):
                cur.msgstr.append(value)
            else:
                raise PoError(f"line {lineno}: {keyword} out of order")
        else:
            raise PoError(f"line {lineno}: unknown keyword {keyword!r}")
        field_name = keyword
    if cur is not None and started:
        finish()
    return entries


def _quote(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return f'"{out}"'


def _field(keyword: str, value: str, prefix: str, width: int = 79) -> list[str]:
    """``keyword "value"``, split after each newline and at spaces when it is longer than ``width``, as msgcat
    writes it (the pieces joined are the value)."""
    one = f"{prefix}{keyword} {_quote(value)}"
    if len(one) <= width and "\n" not in value[:-1]:
        return [one]
    pieces: list[str] = []
    for part in value.splitlines(keepends=True):
        words = part.split(" ")
        chunk = ""
        for i, word in enumerate(words):
            token = word + (" " if i < len(words) - 1 else "")
            if chunk and len(prefix) + len(_quote(chunk + token)) > width:
                pieces.append(chunk)
                chunk = token
            else:
                chunk += token
        if chunk:
            pieces.append(chunk)
    return [f'{prefix}{keyword} ""'] + [prefix + _quote(p) for p in pieces]


def write_po(entries: list[Entry]) -> str:
    """Entries as ``.po`` text (references and flags kept, obsolete entries as ``#~`` at the end)."""
    blocks = []
    for e in sorted(entries, key=lambda e: e.obsolete):
        prefix = "#~ " if e.obsolete else ""
        lines = [f"# {c}".rstrip() for c in e.comments]
        lines += [f"#. {c}" for c in e.extracted]
        if e.references and not e.obsolete:
            lines.append("#: " + " ".join(e.references))
        if e.flags:
            lines.append("#, " + ", ".join(e.flags))
        if e.context is not None:
            lines += _field("msgctxt", e.context, prefix)
        lines += _field("msgid", e.msgid, prefix)
        if e.plural is not None:
            lines += _field("msgid_plural", e.plural, prefix)
            for k, s in enumerate(e.msgstr):
                lines += _field(f"msgstr[{k}]", s, prefix)
        else:
            lines += _field("msgstr", e.msgstr[0] if e.msgstr else "", prefix)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def mo_bytes(messages: dict[str, str]) -> bytes:
    """A GNU ``.mo`` file of ``messages`` (key -> translation, keys and values already joined as gettext stores
    them: ``context\\x04id``, ``id\\0plural``, forms joined by ``\\0``), little-endian, without a hash table."""
    keys = sorted(messages)
    ids = [k.encode("utf-8") for k in keys]
    strs = [messages[k].encode("utf-8") for k in keys]
    n = len(keys)
    header = 7 * 4
    ids_table = header
    strs_table = ids_table + 8 * n
    data = strs_table + 8 * n
    offsets: list[int] = []
    blob = b""
    for s in ids + strs:
        offsets += [len(s), data + len(blob)]
        blob += s + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, n, ids_table, strs_table, 0, data)
    out += struct.pack(f"<{4 * n}I", *offsets)
    return out + blob


def compile_po(text: str) -> bytes:
    """The ``.mo`` bytes of a ``.po`` text: its header and every translated, non-fuzzy, non-obsolete entry."""
    messages: dict[str, str] = {}
    for e in parse_po(text):
        if e.obsolete or (e.msgid and not e.translated):
            continue
        key = e.msgid if e.plural is None else f"{e.msgid}\0{e.plural}"
        if e.context is not None:
            key = f"{e.context}\x04{key}"
        messages[key] = "\0".join(e.msgstr)
    messages.setdefault("", "Content-Type: text/plain; charset=UTF-8\n")  # gettext reads a .mo without it as ASCII
    return mo_bytes(messages)
