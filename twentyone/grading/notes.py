"""What every command says about a student's C or C++ file where it plays differently from the course program.

``source_notes(path, sets)`` is the one source of these notes: ``match``, ``play``, ``tournament``, ``grade``
and ``similar`` all call it (the first two through ``playing``, the others through ``grader.check_player``),
so one file gets the same notes from each (RULES.md, **grade_what_was_graded** and **shared_statics**):

- **The student's own main.c** beside the file (a folder's, a zip's, or a bare file's own folder: the intake
  puts them side by side) may call a function of the file that is not part of the course interface (say
  ``advantage()``, which resets a count at every reshuffle).  Under the course's ``main.c``, which every
  command plays, that call never happens, so the file plays differently than it did for the student.
- **Variables the function sets share**: the course program runs the five sets of one file in one program,
  so a count kept by ``show2`` is read by ``bet1``.  A note is given only when that can change a game: when a
  set at the table reads a file-scope variable that a set *not* at the table writes (``grade`` plays the
  graded set alone), or, with ``separate`` (each seat in a process of its own), one that another set at the
  same table writes.  Every such variable is named.

Both are read from the text (comments, strings and preprocessor lines removed), without compiling: the
file-scope declarations (every declarator, ``const`` ones left out), each function's body, which functions
it calls (a set is its four functions and every function they reach), and which variables it uses and
writes (assigned, incremented, its address taken, an array or object handed to a function or a method).
Every pattern is linear in the text: a hand-in is read in the grader's own process.

The notes are English, as the grader's warnings and ``results.sqlite`` keep them; a page, a ``results.json`` and
``check`` show them in the reader's language through ``twentyone.storedtext``, whose forms read these sentences:
a change of wording here is a change there too (``tests/test_storedtext.py`` grades a file that gets both notes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from twentyone.handin import HandInFileError, read_file, source_text

__all__ = ["source_notes", "outside_calls", "shared_globals", "function_sets", "named", "CFile", "read_c"]

# Every pattern here is linear in the student's text: possessive quantifiers, and a comment or a string
# that is never closed ends with its line (a string) or the text (a comment), so no start is scanned twice.
_COMMENT_OR_STRING = re.compile(r'//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/|\Z)'
                                r'|"(?:[^"\\\n]++|\\.?)*+(?:"|(?=\n)|\Z)'
                                r"|'(?:[^'\\\n]++|\\.?)*+(?:'|(?=\n)|\Z)", re.S)
_PREPROCESSOR = re.compile(r"^[ \t]*+#(?:[^\\\n]++|\\\n|\\)*+", re.M)
_IDENT = re.compile(r"[A-Za-z_]\w*+")
_CALL = re.compile(r"\b([A-Za-z_]\w*+)\s*+\(")
_SET = re.compile(r"(?:bet|first_action|continue_action|show)([1-5])")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "goto", "new",
                       "delete", "throw", "catch", "operator", "decltype", "alignof", "typeid", "static_assert"})
#: Words that are never a variable's name in a declaration.
_TYPE_WORDS = frozenset({"int", "char", "short", "long", "float", "double", "unsigned", "signed", "void", "bool",
                         "_Bool", "static", "const", "volatile", "register", "auto", "extern", "inline", "struct",
                         "union", "enum", "class", "std", "size_t", "mutable", "thread_local", "Player", "Banker"})
#: A declaration statement at file scope that declares no variable of the file.
_NOT_A_VARIABLE = re.compile(r"\s*+(?:typedef|extern|using|template|namespace|friend|static_assert)\b")
#: A local declaration in a function (its first declarator): it hides a file-scope variable of that name.
_LOCAL = re.compile(r"(?:\b(?:int|char|short|long|float|double|unsigned|signed|bool|_Bool|auto|size_t|Player"
                    r"|Banker|const|static|register|struct\s++\w++)\b[\s*&]*+){1,4}+([A-Za-z_]\w*+)\s*+(?=[=;,\[)])")
#: After a variable's name: a (compound) assignment, possibly to an element or a member.
_ASSIGNED = re.compile(r"\s*+(?:(?:\[[^\]\n;]{0,200}+\]|(?:\.|->)\s*+[A-Za-z_]\w*+)\s*+){0,4}+"
                       r"(?:[-+*/%&|^]|<<|>>)?+=(?!=)")
_INCREMENTED_AFTER = re.compile(r"\s*+(?:(?:\[[^\]\n;]{0,200}+\]|(?:\.|->)\s*+[A-Za-z_]\w*+)\s*+){0,4}+(?:\+\+|--)")
#: A method called on it (a C++ object: it may change).
_METHOD = re.compile(r"\s*+(?:\.|->)\s*+[A-Za-z_]\w*+\s*+\(")
#: Before a variable's name: ``++``/``--``, or ``&`` that takes an address (not ``a & b``, not ``&&``).
_BEFORE = re.compile(r"(?:\+\+|--)\s*+$|(?:^|[^\w\s)\]&])\s*+&\s*+$")
#: Handed as a whole to a function: ``f(a, ...)`` or ``f(..., a)`` (an array decays to a pointer it may write).
_ARGUMENT_BEFORE = re.compile(r"[(,]\s*+$")
_ARGUMENT_AFTER = re.compile(r"\s*+[,)]")
#: The course names the course's main.c calls or provides: the interface and the helpers of twentyone.c.
_COURSE = frozenset({
    "main", "init_cards", "shuffle_cards", "first_deal", "round_init", "getcard", "insurance", "hit", "dbl",
    "surrender", "foul", "calculate", "banker_continue", "judge", "show_result",
    *(f"{f}{k}" for f in ("bet", "first_action", "continue_action", "show") for k in range(1, 6)),
})


def _code(text: str) -> str:
    """C text without comments, string and character literals, and preprocessor lines."""
    text = _COMMENT_OR_STRING.sub(lambda m: " " if m.group().startswith("/") else '""', text)
    return _PREPROCESSOR.sub(" ", text)


_BRACES = re.compile(r"[{}]")
_STATEMENT_END = re.compile(r"[{};]")
_INITIALIZER = re.compile(r"=\s*+$")
_OPEN_BLOCK = re.compile(r'\s*+(?:extern\s*+""|namespace\b[\s\w:]*+)\s*+')


def _closing(code: str, at: int) -> int:
    """The index of the brace that closes the one at ``at`` (the text's end when none does)."""
    depth = 0
    for m in _BRACES.finditer(code, at):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return m.start()
    return len(code)


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside ``()``, ``[]`` and ``<>``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _declared(part: str) -> str | None:
    """The name a declarator declares: its last identifier, before any ``[...]`` (``int a[3][4]`` -> ``a``)."""
    part = part.split("=", 1)[0]
    part = part.split("[", 1)[0].rstrip()
    if "(" in part:  # a function's declaration, or an object built with arguments: not read here
        return None
    names = _IDENT.findall(part)
    return names[-1] if names and names[-1] not in _TYPE_WORDS else None


@dataclass
class _Function:
    params: str
    body: str


@dataclass
class CFile:
    """A C or C++ file as these notes read it: its file-scope variables and its functions."""

    #: Every file-scope variable, in order (``const`` ones left out: nothing can change them).
    variables: list[str] = field(default_factory=list)
    functions: dict[str, _Function] = field(default_factory=dict)

    def sets(self) -> list[int]:
        """The function sets (1..5) the file defines at least one function of."""
        return sorted({int(m.group(1)) for name in self.functions if (m := _SET.fullmatch(name))})

    def _reach(self, k: int) -> set[str]:
        """The functions of set ``k`` and every function of the file they call, directly or not."""
        todo = [f"{f}{k}" for f in ("bet", "first_action", "continue_action", "show") if f"{f}{k}" in self.functions]
        seen = set(todo)
        while todo:
            body = self.functions[todo.pop()].body
            for m in _CALL.finditer(body):
                name = m.group(1)
                if name in self.functions and name not in seen:
                    seen.add(name)
                    todo.append(name)
        return seen

    def uses(self, k: int) -> tuple[set[str], set[str]]:
        """(the file-scope variables set ``k`` uses, those it writes)."""
        used: set[str] = set()
        written: set[str] = set()
        for name in self._reach(k):
            u, w = _uses(self.functions[name], set(self.variables))
            used |= u
            written |= w
        return used, written


def _uses(f: _Function, variables: set[str]) -> tuple[set[str], set[str]]:
    """(the variables among ``variables`` that ``f`` uses, those it writes); a local of that name hides one."""
    hidden = set(_IDENT.findall(f.params)) | {m.group(1) for m in _LOCAL.finditer(f.body)}
    used: set[str] = set()
    written: set[str] = set()
    body = f.body
    for m in _IDENT.finditer(body):
        name = m.group()
        if name not in variables or name in hidden:
            continue
        before = body[max(0, m.start() - 3):m.start()]
        if before.rstrip().endswith((".", "->", "::")):
            continue  # a member of something else
        used.add(name)
        if (_ASSIGNED.match(body, m.end()) or _INCREMENTED_AFTER.match(body, m.end()) or _METHOD.match(body, m.end())
                or _BEFORE.search(body[max(0, m.start() - 6):m.start()])
                or (_ARGUMENT_BEFORE.search(body[max(0, m.start() - 6):m.start()])
                    and _ARGUMENT_AFTER.match(body, m.end()))):
            written.add(name)
    return used, written


def read_c(text: str) -> CFile:
    """``text`` (C or C++) read at file scope: its variables, and each function's parameters and body.

    Braces after ``=`` hold an initializer; after a ``(...)`` a function's body (its name the identifier before
    the ``(``); after ``extern "C"`` or ``namespace X`` more of the file; any other (``struct``, ``class``,
    ``enum``) a type's body, after which the declaration goes on (``struct S {...} s;`` declares ``s``)."""
    code = _code(text)
    out = CFile()
    names: list[str] = []
    start = 0  # where the statement being read began
    after_body: int | None = None  # where its declarators begin, after a type's body
    i = 0
    while True:
        m = _STATEMENT_END.search(code, i)
        if m is None:
            break
        ch, at = m.group(), m.start()
        # What came since the statement began, or since the type body it holds: each character is in one head.
        head = code[after_body if after_body is not None else start:at]
        if ch == ";":
            _declarations(head, code[start:at], names)
            start, after_body, i = at + 1, None, at + 1
        elif ch == "}":  # the end of an extern "C" or namespace block
            start, after_body, i = at + 1, None, at + 1
        elif _INITIALIZER.search(head):  # an initializer
            i = _closing(code, at) + 1
        elif "(" in head and "=" not in head.split("(", 1)[0]:
            end = _closing(code, at)
            fname = _IDENT.findall(head.split("(", 1)[0])
            if fname and fname[-1] not in _KEYWORDS:
                params = head.split("(", 1)[1]
                out.functions.setdefault(fname[-1], _Function(params, code[at + 1:end]))
            start, after_body, i = end + 1, None, end + 1
        elif _OPEN_BLOCK.fullmatch(head):
            start, after_body, i = at + 1, None, at + 1
        else:  # a struct, class, union or enum body
            end = _closing(code, at)
            after_body, i = end + 1, end + 1
    out.variables = list(dict.fromkeys(names))
    return out


def _declarations(declarators: str, statement: str, names: list[str]) -> None:
    """Add the variables a file-scope declaration ``statement`` declares (``declarators``: where they are)."""
    kind = statement.split("{", 1)[0].split("=", 1)[0]  # the type, before any type body or initializer
    if not statement.strip() or _NOT_A_VARIABLE.match(kind):
        return
    words = set(_IDENT.findall(kind))
    if "constexpr" in words or ("const" in words and "*" not in kind):
        return  # a constant: no set can change it
    for part in _split_top(declarators):
        name = _declared(part)
        if name is not None:
            names.append(name)


def function_sets(text: str) -> list[int]:
    """The function sets (1..5) a file defines at least one function of."""
    return read_c(text).sets()


def shared_globals(text: str) -> list[str]:
    """The file-scope variables of a C file (declared outside every function), by name; not the constants."""
    return read_c(text).variables


def outside_calls(mycodes: str | CFile, main: str) -> list[str]:
    """The functions of ``mycodes`` (its text, or as ``read_c`` reads it) that are not the course's and that
    ``main`` calls."""
    called = {m.group(1) for m in _CALL.finditer(_code(main))}
    c = read_c(mycodes) if isinstance(mycodes, str) else mycodes
    return [name for name in c.functions if name not in _COURSE and name in called]


def _and(items: Iterable[object]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = [str(x) for x in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _sets(ks: Sequence[int]) -> str:
    return f"set{'s' if len(ks) > 1 else ''} {_and(ks)}"


def _shared_notes(c: CFile, name: str, seated: Sequence[int], separate: bool) -> list[str]:
    """The notes on the variables the sets share, when that can change a game at a table of ``seated``."""
    defined = c.sets()
    here = sorted(set(seated) & set(defined))
    if not here or len(defined) < 2:
        return []
    use = {k: c.uses(k) for k in defined}
    notes = []
    away = [k for k in defined if k not in here]
    # A set at the table reads what a set that is not there writes.
    missed = sorted({v for k in here for v in use[k][0] if any(v in use[j][1] for j in away)}, key=c.variables.index)
    if missed:
        writers = [j for j in away if use[j][1] & set(missed)]
        notes.append(f"{name}: {_sets(here)} {'uses' if len(here) == 1 else 'use'} {_and(missed)}, which "
                     f"{_sets(writers)} also change{'s' if len(writers) == 1 else ''}; in the course program all the "
                     f"sets of a file share these variables, but here {_sets(writers)} "
                     f"{'does' if len(writers) == 1 else 'do'} not play, so only the changes of {_sets(here)} "
                     "reach them")
    if separate and len(here) > 1:
        apart = sorted({v for k in here for v in use[k][0] if any(v in use[j][1] for j in here if j != k)},
                       key=c.variables.index)
        if apart:
            notes.append(f"{name}: {_sets(here)} at this table share {_and(apart)}, which one set changes and "
                         "another uses; in the sandbox each seat plays in a process of its own, with its own copy "
                         "of them, not one copy as in the course program; --trusted plays them in this process "
                         "with one copy, as the course program does")
    return notes


def source_notes(path: Path, seated: Sequence[int] = (1,), separate: bool = False, shown: str | None = None,
                 main: Path | None = None) -> list[str]:
    """The notes on the C or C++ file ``path`` played as the function sets ``seated`` at one table (``grade``:
    the graded set alone); ``separate``: each seat has its own copy of the file's variables (a sandbox box
    each).  ``main`` is the student's own ``main.c``, by default the one beside ``path`` (``intake.beside``).
    Each note begins with ``shown`` (the file as people know it; default: ``path``)."""
    from twentyone.players.files.intake import beside

    name = shown if shown is not None else str(path)
    try:
        text = source_text(read_file(path, name))
        if main is None:
            main = beside(path)[1]
        main_text = source_text(read_file(main)) if main is not None else ""
    except HandInFileError:
        return []
    c = read_c(text)
    notes = []
    for f in outside_calls(c, main_text) if main is not None else []:
        notes.append(f"{name}: the student's own {main.name if main else 'main.c'} calls {f}(), which is not part of "
                     "the course interface: under the course's main.c, which twentyone plays, it is never called")
    return notes + _shared_notes(c, name, seated, separate)


def named(note: str, name: str, *paths: str) -> str:
    """``note`` as the terminal prints it: it names its student, by one of the submission's ``paths`` (its
    source as given, its strategy file's path) when it says one, else by ``NAME: `` in front (so two students' notes that say
    the same of their own files are two lines, each saying whose it is)."""
    if note.startswith(f"{name}: ") or any(p and p in note for p in paths):
        return note
    return f"{name}: {note}"
