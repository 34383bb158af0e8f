"""What the report should say about a hand-in's source, where grading plays it differently from the student.

Two things a grade can hide (RULES.md, **grade_what_was_graded**):

- **The student's own main.c** may call a function of their ``mycodes.c`` that is not part of the
  course interface (say ``advantage()``, which resets a count at every reshuffle).  Under the course's
  ``main.c`` that call never happens, so the file plays differently than it did for the student.
- **Statics shared by the function sets**: a file whose sets read and write the same global variables
  (a count kept by ``show1`` and read by ``bet2``, say) plays, in grading, only the graded set, alone in
  its own process; the other sets never touch those variables as they do in the course program.

Both are found from the text (comments, strings and preprocessor lines removed), without compiling.
"""

from __future__ import annotations

import re
from pathlib import Path

from twentyone.handin import HandInFileError, read_file

__all__ = ["source_notes", "outside_calls", "shared_globals", "function_sets", "named"]

# Every pattern here is linear in the student's text: possessive quantifiers, and a comment or a string
# that is never closed ends with its line (a string) or the text (a comment), so no start is scanned twice.
_COMMENT_OR_STRING = re.compile(r'//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/|\Z)'
                                r'|"(?:[^"\\\n]++|\\.?)*+(?:"|(?=\n)|\Z)'
                                r"|'(?:[^'\\\n]++|\\.?)*+(?:'|(?=\n)|\Z)", re.S)
_PREPROCESSOR = re.compile(r"^[ \t]*+#(?:[^\\\n]++|\\\n|\\)*+", re.M)
_DEFINITION = re.compile(r"\b([A-Za-z_]\w*+)\s*+\([^;{}()]*+(?:\([^()]*+\)[^;{}()]*+)*+\)\s*+\{")
_CALL = re.compile(r"\b([A-Za-z_]\w*+)\s*+\(")
_SET = re.compile(r"\b(?:bet|first_action|continue_action|show)([1-5])\b")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "do", "else"})
#: The names the course's main.c calls or provides: the interface and the helpers of twentyone.c.
_COURSE = frozenset({
    "main", "init_cards", "shuffle_cards", "first_deal", "round_init", "getcard", "insurance", "hit", "dbl",
    "surrender", "foul", "calculate", "banker_continue", "judge", "show_result",
    *(f"{f}{k}" for f in ("bet", "first_action", "continue_action", "show") for k in range(1, 6)),
})


def _code(text: str) -> str:
    """C text without comments, string and character literals, and preprocessor lines."""
    text = _COMMENT_OR_STRING.sub(lambda m: " " if m.group().startswith("/") else '""', text)
    return _PREPROCESSOR.sub(" ", text)


def _defined(code: str) -> list[str]:
    return [m.group(1) for m in _DEFINITION.finditer(code) if m.group(1) not in _KEYWORDS]


def function_sets(text: str) -> list[int]:
    """The function sets (1..5) a file defines at least one function of."""
    return sorted({int(m.group(1)) for m in _SET.finditer(" ".join(_defined(_code(text))))})


def outside_calls(mycodes: str, main: str) -> list[str]:
    """The functions of ``mycodes`` (not the course's) that ``main`` calls."""
    called = {m.group(1) for m in _CALL.finditer(_code(main))}
    return [name for name in dict.fromkeys(_defined(_code(mycodes))) if name not in _COURSE and name in called]


def _declared(part: str) -> str | None:
    """The name a declarator declares: its last identifier, before any ``[...]`` (``int a[3][4]`` -> ``a``)."""
    part = part.rstrip()
    while part.endswith("]"):  # a [...] holds no "]": it opens at the first "[" after the "]" before it
        open_at = part.find("[", part.rfind("]", 0, len(part) - 1) + 1)
        if open_at < 0 or open_at == len(part) - 1:
            return None
        part = part[:open_at].rstrip()
    start = len(part)
    while start > 0 and (part[start - 1].isalnum() or part[start - 1] == "_"):
        start -= 1
    return part[start:].lstrip("0123456789") or None


def shared_globals(text: str) -> list[str]:
    """The file-scope variables of a C file (declared outside every function), by name."""
    code = _code(text)
    names: list[str] = []
    depth = 0
    statement: list[str] = []
    for piece in re.finditer(r"[{};]|[^{};]++", code):
        ch = piece.group()
        if ch == "{":
            depth += 1
            statement = []
        elif ch == "}":
            depth -= 1
            statement = []
        elif depth == 0:
            if ch == ";":
                decl = "".join(statement).strip()
                statement = []
                if decl and "(" not in decl.split("=", 1)[0] and not decl.startswith(("typedef", "extern")):
                    for part in decl.split("=", 1)[0].split(","):
                        name = _declared(part)
                        if name and name not in ("int", "char", "static", "double", "float", "long", "unsigned"):
                            names.append(name)
            else:
                statement.append(ch)
    return list(dict.fromkeys(names))


def source_notes(path: Path, main: Path | None, graded_set: int) -> list[str]:
    """The notes the report shows about ``path`` (a C or C++ strategy file) and the ``main.c`` beside it."""
    try:
        text = read_file(path).decode("utf-8", "replace")
        main_text = read_file(main).decode("utf-8", "replace") if main is not None else ""
    except HandInFileError:
        return []
    notes = []
    for name in outside_calls(text, main_text) if main is not None else []:
        notes.append(f"the student's own {main.name if main else 'main.c'} calls {name}() of {path.name}, which "
                     "is not part of the course interface: under the course's main.c, as graded, it is never called")
    sets = function_sets(text)
    shared = shared_globals(text)
    if len(sets) > 1 and shared:
        listed = ", ".join(shared[:5]) + (" ..." if len(shared) > 5 else "")
        notes.append(f"the function sets of {path.name} ({', '.join(map(str, sets))}) share its global and static "
                     f"variables ({listed}); in grading, set {graded_set} played alone (no other set of the file at its "
                     "tables, and in the sandbox a process of its own), so no other set touched them as they do in "
                     "the course program")
    return notes


def named(note: str, name: str, *paths: str) -> str:
    """``note`` as the terminal prints it: it names its student, by one of the submission's ``paths`` (its
    source as given, its strategy file's path) when it says one, else by ``NAME: `` in front (so two students' notes that say
    the same of their own files are two lines, each saying whose it is)."""
    if note.startswith(f"{name}: ") or any(p and p in note for p in paths):
        return note
    return f"{name}: {note}"
