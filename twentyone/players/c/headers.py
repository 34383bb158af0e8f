"""The course's headers, and how a student's own copies of them differ.

A C file is always compiled against the project's headers (``c_src/twentyone.h``, ``c_src/mycodes.h``),
never against a ``twentyone.h`` or ``mycodes.h`` the student keeps beside it: the engine compiles from a
scratch copy, and ``make c-program`` from a copy in ``build/c-program/``.  A student's own header can
still say something else (a ``Player`` with an extra field, another ``TOTAL_MONEY``, a function of their
own), and what their file does may rest on it, so ``own_header_warnings`` names every such header in one
line, with what differs.

Headers are compared by what the compiler sees of the course's interface, not by their text: the
constants (``#define NAME VALUE``), the fields of each ``typedef struct``, and the functions declared (by
name, and by their types without the parameters' names).  Comments, spacing, include guards and
``#include`` lines do not count, so the course's own header, however it is laid out, is not warned about,
and neither is a copy of the project's (with its ``tw_*`` additions).  A declaration the student's header
lacks is not warned about either: their file then compiles against more, never less.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from twentyone.handin import HandInFileError, read_file

__all__ = ["C_SRC", "COURSE_HEADERS", "Interface", "interface", "differences", "own_header_warnings",
           "headers_beside"]

C_SRC = Path(__file__).resolve().parents[3] / "c_src"
#: The course's headers a student's file includes, by the name a student's copy has (any case).
COURSE_HEADERS = ("twentyone.h", "mycodes.h")
#: Type words kept when a parameter's name is dropped (``char* tmpcards`` -> ``char*``).
_TYPE_WORDS = frozenset({"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "const",
                         "volatile", "struct", "union", "enum", "Player", "Banker", "size_t", "bool", "_Bool"})
#: At most this many differences are named in one warning.
MAX_NAMED = 3


@dataclass(frozen=True)
class Interface:
    """What a header declares of the course's interface."""

    #: ``#define NAME VALUE`` with a value, the value without spaces.
    macros: dict[str, str]
    #: ``typedef struct {...} NAME;``: each field's declaration, spaces normalised, in order.
    structs: dict[str, tuple[str, ...]]
    #: Each declared function: its type (return type and parameter types, without names).
    functions: dict[str, str]


def _decode(raw: bytes) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    for encoding in ("utf-8", "gbk"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            pass
    return raw.decode("utf-8", errors="replace")


def _tight(text: str) -> str:
    """Spaces collapsed, and none around punctuation: ``Player ( *players ) [ ]`` -> ``Player(*players)[]``."""
    text = re.sub(r"\s++", " ", text).strip()
    return re.sub(r" ?([^\w\s]) ?", r"\1", text)


_IDENT = re.compile(r"[A-Za-z_]\w*+")
_PARAM_TOKEN = re.compile(r"[A-Za-z_]\w*+|\d++|[^\w\s]")
# Every pattern below is linear in the header's text (possessive quantifiers, no two that can share a
# character side by side): a student's header is read in the grader's own process.
_DEFINE = re.compile(r"\s*+#\s*+define\s++(\w++)(\([^)]*+\))?+\s*+(.*)")
_STRUCT = re.compile(r"typedef\s++struct\b\s*+\w*+\s*+\{([^{}]*+)\}\s*+(\w++)\s*+;")
_EXTERN_C = re.compile(r'extern\s*+"C"\s*+\{')
_TYPE_CHARS = re.compile(r"[\w\s*]*+")
_LINE_COMMENT = re.compile(r"//[^\n]*+")


def _param_type(param: str) -> str:
    """A parameter without its name: the last identifier goes when another identifier is left before it."""
    tokens = _PARAM_TOKEN.findall(param)
    idents = [i for i, t in enumerate(tokens) if _IDENT.fullmatch(t)]
    if len(idents) >= 2 and tokens[idents[-1]] not in _TYPE_WORDS:
        del tokens[idents[-1]]
    return _tight(" ".join(tokens))


def _without_comments(text: str) -> str:
    """``text`` with each ``/* */`` comment made one space (one left open stays), then each ``//`` comment
    removed: by ``str.find``, never a pattern that could rescan the text from every ``/*``."""
    out, at = [], 0
    while True:
        block = text.find("/*", at)
        close = text.find("*/", block + 2) if block >= 0 else -1
        if close < 0:  # no more comments that are closed
            out.append(text[at:])
            break
        out.append(text[at:block] + " ")
        at = close + 2
    return _LINE_COMMENT.sub("", "".join(out))


def _function(decl: str) -> tuple[str, str] | None:
    """(name, type) of a function declaration ``TYPE NAME(PARAMS)`` (``extern`` allowed), or None."""
    open_at = decl.find("(")
    tail = decl[open_at + 1:].rstrip()
    if open_at < 0 or not tail.endswith(")"):
        return None
    head = decl[:open_at].rstrip()
    start = len(head)
    while start > 0 and (head[start - 1].isalnum() or head[start - 1] == "_"):
        start -= 1
    name, kind = head[start:], head[:start]
    if not name or not kind:  # a type (or at least a space) before the name, as in ``int f(...)``
        return None
    kind = kind.lstrip()
    if kind.startswith("extern") and kind[6:7].isspace() and kind[7:]:
        kind = kind[7:]
    if _TYPE_CHARS.fullmatch(kind) is None:
        return None
    params = ",".join(_param_type(p) for p in tail[:-1].split(","))
    return name, f"{_tight(kind)}({params})"


def interface(text: str) -> Interface:
    """The course's interface as the header ``text`` declares it (in time linear in the text)."""
    text = _without_comments(text)
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    macros: dict[str, str] = {}
    body = []
    for line in text.splitlines():
        m = _DEFINE.match(line)
        if m and m.group(3).strip():
            macros[m.group(1) + (m.group(2) or "")] = "".join(m.group(3).split())
        if not line.lstrip().startswith("#"):
            body.append(line)
    code = "\n".join(body)
    structs: dict[str, tuple[str, ...]] = {}

    def struct(m: re.Match[str]) -> str:
        fields = tuple(_tight(f) for f in m.group(1).split(";") if f.strip())
        structs[m.group(2)] = fields
        return ";"

    code = _STRUCT.sub(struct, code)
    code = _EXTERN_C.sub(" ", code).replace("}", " ")
    functions: dict[str, str] = {}
    for decl in code.split(";"):
        found = _function(decl)
        if found is not None:
            functions[found[0]] = found[1]
    return Interface(macros, structs, functions)


def _course(name: str) -> Interface:
    """The course's interface of ``name``, as the project's header declares it (its ``tw_*`` additions
    included, so a copy of the project's own header is not warned about)."""
    return interface((C_SRC / name).read_text(encoding="utf-8"))


def differences(own: Interface, course: Interface) -> list[str]:
    """What ``own`` says differently from ``course``, one short phrase each (empty: the same interface)."""
    out: list[str] = []
    for name, fields in course.structs.items():
        theirs = own.structs.get(name)
        if theirs is None or theirs == fields:
            continue
        added = [f for f in theirs if f not in fields]
        lacking = [f for f in fields if f not in theirs]
        what = [f"adds `{f}`" for f in added] + [f"lacks `{f}`" for f in lacking]
        out.append(f"{name} {', '.join(what) if what else 'has its fields in another order'}")
    out += [f"a struct {name} of its own" for name in own.structs if name not in course.structs]
    for name, value in course.macros.items():
        if name in own.macros and own.macros[name] != value:
            out.append(f"{name} is {own.macros[name]} (the course's: {value})")
    for name, proto in own.functions.items():
        if name not in course.functions:
            out.append(f"declares {name}(), which the course's does not")
        elif course.functions[name] != proto:
            out.append(f"declares {name} as {proto} (the course's: {course.functions[name]})")
    return out


def headers_beside(path: Path) -> list[Path]:
    """The student's copies of the course's headers in the folder of ``path`` (any case), sorted."""
    try:
        return sorted(p for p in path.parent.iterdir() if p.name.lower() in COURSE_HEADERS and p.is_file())
    except OSError:
        return []


def own_header_warnings(headers: Iterable[tuple[str, Path]], who: str) -> list[str]:
    """One warning per header that differs from the course's: ``headers`` is (the name shown, the file) pairs.

    Only copies of the course's headers (``twentyone.h``, ``mycodes.h``, any case) are compared; a
    header that cannot be read is said to be not used, without a comparison.
    """
    out = []
    for shown, path in headers:
        course = path.name.lower()
        if course not in COURSE_HEADERS:
            continue
        try:
            own = interface(_decode(read_file(path, shown)))
        except HandInFileError as e:
            out.append(f"{who}: its own {shown} cannot be read ({e}); it is not used: the file is "
                       f"compiled against the course's {course}")
            continue
        diff = differences(own, _course(course))
        if not diff:
            continue
        named = "; ".join(diff[:MAX_NAMED]) + (f"; and {len(diff) - MAX_NAMED} more" if len(diff) > MAX_NAMED else "")
        out.append(f"{who}: its own {shown} differs from the course's {course} ({named}); it is not used: the "
                   f"file is compiled against the course's {course}")
    return out
