"""Code fingerprints: each file tokenized by a real parser, normalised, and fingerprinted by winnowing.

- **Text.** A file is read as UTF-8 (a BOM dropped), else GBK; line ends become LF.  A GBK/CRLF file and
  its UTF-8/LF copy are the same text, so the same tokens.
- **Tokens.** C by tree-sitter's C grammar, C++ by its C++ grammar (both parse a file as written, with
  ``conio.h`` and ``#ifdef PERSON`` and all, without a preprocessor); Python by the standard ``tokenize``.
  Comments are dropped.  Identifiers become their kind (``ID``, ``FIELD``, ``TYPE``, ``LABEL``) and
  literals theirs (``NUM``, ``STR``, ``CHAR``); keywords and operators stay as they are.  So renaming,
  reformatting and new comments change nothing.
- **Units.** Every top-level definition (a function, a declaration, a directive; in Python a top-level
  statement or a ``def``) is a unit of its own, and no k-gram crosses two units: reordering functions
  changes nothing.  The header every student must write (``int bet1(int N)`` ... ``void show5(...)``, and
  a Python strategy's ``def bet(self, view):``) is dropped; only the body counts.  Prototypes of those
  functions are dropped too.
- **Fingerprints.** Every run of ``K`` tokens (a k-gram) is hashed; winnowing (Schleimer, Wilkerson and
  Aiken, SIGMOD 2003, as MOSS does) keeps the smallest hash of every window of ``W`` consecutive k-grams,
  so every match of at least ``K + W - 1`` tokens is found, and none shorter than ``K``.  (Robust
  winnowing's rule for a window holding its minimum twice chooses a position; the fingerprints are
  compared as a set of hash values, so the choice changes nothing here.)
- **What never counts.** Every k-gram of the course's template (``c_src/mycodes.c``, and ``mycodes.py``
  for Python) is ignored, as is a fingerprint found in more than ``max(10, 10%)`` of the class's files
  (MOSS's rule for code everyone was given or everyone writes).

``code_scores`` scores every pair through an index of fingerprints (fast for a class of 200), or only the
candidate pairs of a larger class (``code_candidates``: ``candidates``);
``matched_regions`` finds the matching stretches of two files for the side-by-side page.
"""

from __future__ import annotations

import io
import keyword
import re
import time
import tokenize
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from twentyone.grading.similarity.candidates import code_need, overlap_pairs
from twentyone.handin import source_text

__all__ = ["K", "W", "MAX_COMPARED", "MAX_REPEATS", "PARSE_SECONDS", "Token", "Source", "CodeScore", "Region",
           "read_text", "language_of", "family", "tokenize_units", "fingerprint", "template_grams", "common_prints",
           "code_scores", "code_candidates", "matched_regions"]

#: Tokens in a k-gram (the noise threshold: shorter matches are never seen).
K = 12
#: Window of the winnowing: a match of at least K + W - 1 tokens is always found.
W = 8
#: A fingerprint in more files than this share of the class (and than ``COMMON_MIN``) is common code.
COMMON_SHARE = 0.1
COMMON_MIN = 10

_MOD = (1 << 61) - 1
_BASE = 1_000_003
#: The functions every student writes: their headers never count.
COURSE_FUNCTION = re.compile(r"(bet|first_action|continue_action|show)[1-5]")
#: The most characters of a file that are fingerprinted (a course hand-in is about 10,000): a longer file is
#: compared on its beginning, so that fingerprinting never takes more than a fraction of a second.
MAX_COMPARED = 50_000
#: A k-gram found more often than this in one file (a line repeated hundreds of times) is no evidence of a
#: shared origin, and matching every copy against every copy would grow with the square of the file.
MAX_REPEATS = 16
#: The CPU seconds a file's parsing or tokenizing may take before it is given up as not comparable.
PARSE_SECONDS = 0.2
_COURSE_BYTES = re.compile(rb"(?:bet|first_action|continue_action|show)[1-5]")
#: A Python strategy's methods, whose headers every student writes too.
STRATEGY_METHODS = frozenset({"bet", "first_action", "continue_action", "show", "show_before_bet", "new_match",
                              "start_match", "__init__"})

_KINDS = {"identifier": "ID", "field_identifier": "FIELD", "type_identifier": "TYPE", "statement_identifier": "LABEL",
          "namespace_identifier": "ID", "number_literal": "NUM", "char_literal": "CHAR", "string_literal": "STR",
          "raw_string_literal": "STR", "concatenated_string": "STR", "system_lib_string": "STR",
          "preproc_arg": "ARG", "user_defined_literal": "NUM"}
#: Nodes read as one token (their inside is a literal's).
_WHOLE = frozenset({"char_literal", "string_literal", "raw_string_literal", "concatenated_string",
                    "system_lib_string", "user_defined_literal"})
_CONTAINERS = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
                         "linkage_specification", "declaration_list"})


class Token(NamedTuple):
    """A normalised token and where it stands in the file's text (character offsets).  A named tuple: a class's
    files hold millions, which the garbage collector then stops walking."""

    kind: str
    start: int
    end: int


@dataclass
class Source:
    """One file, tokenized and fingerprinted."""

    name: str
    #: ``c`` (C and C++ are compared with each other) or ``py``.
    family: str
    text: str
    tokens: list[Token]
    #: The hash of the k-gram starting at each token, or -1 where none starts (too near a unit's end).
    grams: list[int]
    #: The winnowed fingerprints, the template's and common ones left out.
    prints: set[int] = field(default_factory=set)
    #: Why the file could not be read as code ('' when it could).
    error: str = ""
    #: True when only the first ``MAX_COMPARED`` characters were fingerprinted.
    cut: bool = False


@dataclass(frozen=True)
class CodeScore:
    """The code similarity of two files: fingerprints in common and each file's count."""

    shared: int
    a: int
    b: int

    @property
    def score(self) -> float:
        """2 x shared / (a + b): 1 for the same code (a Dice coefficient), 0 for nothing in common."""
        return 2 * self.shared / (self.a + self.b) if self.a + self.b else 0.0


@dataclass(frozen=True)
class Region:
    """A stretch of matching tokens: ``[a_start, a_end)`` of the first file matches ``[b_start, b_end)`` of the
    second (character offsets), ``tokens`` long."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    tokens: int


# ------------------------------------------------------------------------------------------------ text

def read_text(raw: bytes) -> str:
    """A source file's text: UTF-8 (BOM dropped), else GBK, else UTF-8 with replacements; LF line ends."""
    return source_text(raw).replace("\r\n", "\n").replace("\r", "\n")


def language_of(path: str | Path) -> str:
    """``c``, ``cpp`` or ``py`` by the file's suffix ('' for anything else)."""
    suffix = Path(path).suffix.lower()
    return {".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".py": "py"}.get(suffix, "")


def family(language: str) -> str:
    """The languages compared with each other: C with C++, Python with Python."""
    return "py" if language == "py" else "c"


# -------------------------------------------------------------------------------------------- tokens

@lru_cache(maxsize=2)
def _parser(language: str) -> Any:
    from tree_sitter import Language, Parser

    if language == "cpp":
        import tree_sitter_cpp

        return Parser(Language(tree_sitter_cpp.language()))
    import tree_sitter_c

    return Parser(Language(tree_sitter_c.language()))


def _char_offsets(text: str, data: bytes) -> list[int] | None:
    """Character offset of every UTF-8 byte offset of ``text`` (None when the text is ASCII: the same)."""
    if len(data) == len(text):
        return None
    out = [0] * (len(data) + 1)
    b = 0
    for i, ch in enumerate(text):
        n = len(ch.encode("utf-8"))
        for j in range(n):
            out[b + j] = i
        b += n
    out[b] = len(text)
    return out


def _function_name(node: Any, data: bytes) -> str:
    """The name a function definition or declaration declares ('' if none); ``data`` is the parsed text."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "field_identifier"):
        if d.type == "function_declarator" or d.child_by_field_name("declarator") is not None:
            d = d.child_by_field_name("declarator")
        else:
            return ""
    return data[d.start_byte:d.end_byte].decode("utf-8", errors="replace") if d is not None else ""


def _parse(data: bytes, language: str) -> Any:
    """tree-sitter's tree of ``data``, or ValueError when parsing takes more than ``PARSE_SECONDS`` of CPU time
    (its error recovery grows faster than the text on some inputs: 15 KB of ``/* /* /*`` took 12 s)."""
    start = time.process_time()

    def give_up(*_: Any) -> bool:
        return time.process_time() - start > PARSE_SECONDS

    try:  # the progress callback is only called when the text is read through a callback
        return _parser(language).parse(lambda at, _point: data[at:at + 65536], progress_callback=give_up)
    except ValueError:
        raise ValueError(f"cannot parse it within {PARSE_SECONDS:g} s") from None


def _c_units(text: str, language: str) -> list[list[Token]]:
    data = text.encode("utf-8")
    tree = _parse(data, language)
    chars = _char_offsets(text, data)

    def at(b: int) -> int:
        return b if chars is None else chars[b]

    def leaves(root: Any, out: list[Token]) -> None:
        stack = [root]  # depth first, left to right, without recursion: nesting is as deep as the file makes it
        while stack:
            node = stack.pop()
            t = node.type
            if t == "comment":
                continue
            if node.child_count == 0 or t in _WHOLE:
                kind = _KINDS.get(t) or (t if not node.is_named or t in ("primitive_type", "true", "false", "null",
                                                                          "nullptr", "this", "auto")
                                         else data[node.start_byte:node.end_byte].decode("utf-8", errors="replace"))
                if kind:
                    out.append(Token(kind, at(node.start_byte), at(node.end_byte)))
                continue
            stack.extend(reversed(node.children))

    units: list[list[Token]] = []
    # Each frame: a node's children still to see, whether it is the file itself, and its directive's own tokens
    # (#ifdef NAME, #else, #endif, or extern "C" {}), a unit once its children are done.
    frames: list[tuple[Iterator[Any], bool, list[Token]]] = [(iter(tree.root_node.children), True, [])]
    while frames:
        children, top, head = frames[-1]
        child = next(children, None)
        if child is None:
            frames.pop()
            if head:
                units.append(head)
            continue
        t = child.type
        if t in _CONTAINERS:
            frames.append((iter(child.children), False, []))
        elif not top and (not child.is_named or t in ("identifier", "preproc_arg", "string_literal")):
            leaves(child, head)
        elif (t in ("function_definition", "declaration") and _COURSE_BYTES.search(data, child.start_byte, child.end_byte)
              and COURSE_FUNCTION.fullmatch(_function_name(child, data))):
            body = child.child_by_field_name("body")
            if body is not None:  # a course function: its body counts, never its header
                unit: list[Token] = []
                leaves(body, unit)
                units.append(unit)
            # a prototype of one adds nothing
        else:
            unit = []
            leaves(child, unit)
            if unit:
                units.append(unit)
    return units


def _py_units(text: str) -> list[list[Token]]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def at(pos: tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1] if pos[0] - 1 < len(starts) else len(text)

    units: list[list[Token]] = []
    unit: list[Token] = []
    skip_header = False
    depth = 0
    line_start = True
    toks = []
    start = time.process_time()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        toks.append(tok)
        if len(toks) % 256 == 0 and time.process_time() - start > PARSE_SECONDS:
            raise ValueError(f"cannot tokenize it within {PARSE_SECONDS:g} s")
    for i, tok in enumerate(toks):
        typ, s = tok.type, tok.string
        if typ in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        layout = typ in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        # a new unit at every def and class, and at every top-level statement
        if (typ == tokenize.NAME and s in ("def", "class")) or (line_start and not layout and tok.start[1] == 0):
            if unit:
                units.append(unit)
            unit = []
            if s == "def" and i + 1 < len(toks):
                name = toks[i + 1].string
                skip_header = bool(COURSE_FUNCTION.fullmatch(name)) or name in STRATEGY_METHODS
        line_start = layout
        if typ == tokenize.OP and s in "([{":
            depth += 1
        elif typ == tokenize.OP and s in ")]}":
            depth = max(0, depth - 1)
        if skip_header:  # a header every student writes: from def to its colon
            if typ == tokenize.OP and s == ":" and depth == 0:
                skip_header = False
            continue
        if typ == tokenize.NAME:
            kind = s if keyword.iskeyword(s) or s in ("True", "False", "None") else "ID"
        elif typ == tokenize.NUMBER:
            kind = "NUM"
        elif typ == tokenize.STRING:
            kind = "STR"
        elif typ == tokenize.NEWLINE:
            kind = ";"
        elif typ == tokenize.INDENT:
            kind = "{"
        elif typ == tokenize.DEDENT:
            kind = "}"
        else:
            kind = s
        unit.append(Token(kind, at(tok.start), at(tok.end)))
    if unit:
        units.append(unit)
    return units


def tokenize_units(text: str, language: str) -> list[list[Token]]:
    """The normalised tokens of ``text``, unit by unit (see the module docstring).

    Raises ValueError when Python text cannot be tokenized (C and C++ always can: a parse error is kept as
    its tokens), or when parsing or tokenizing takes more than ``PARSE_SECONDS``.
    """
    if language == "py":
        try:
            return _py_units(text)
        except (tokenize.TokenError, IndentationError, SyntaxError) as e:
            raise ValueError(f"cannot tokenize: {e}") from None
    return _c_units(text, language)


# ------------------------------------------------------------------------------------ fingerprints

@lru_cache(maxsize=4096)
def _token_id(kind: str) -> int:
    return zlib.crc32(kind.encode("utf-8")) + 1


def _grams(units: Sequence[Sequence[Token]]) -> list[int]:
    """The k-gram hash at every token position of the units laid end to end (-1 where no k-gram of one unit
    starts)."""
    top = pow(_BASE, K - 1, _MOD)
    out: list[int] = []
    for unit in units:
        ids = [_token_id(t.kind) for t in unit]
        n = len(ids)
        if n < K:
            out += [-1] * n
            continue
        h = 0
        for x in ids[:K]:
            h = (h * _BASE + x) % _MOD
        hashes = [h]
        for i in range(K, n):
            h = ((h - ids[i - K] * top) * _BASE + ids[i]) % _MOD
            hashes.append(h)
        out += hashes + [-1] * (K - 1)
    return out


def _winnow(grams: Sequence[int]) -> set[int]:
    """Winnowing of each run of k-gram hashes (runs are split where no k-gram starts): the smallest hash of
    every window of ``W`` consecutive k-grams (of the whole run when it is shorter).

    Robust winnowing also says *which* position to select when a window holds its minimum twice; fingerprints
    are compared here as a set of hash values, where the position makes no difference, so every window's
    minimum is simply kept."""
    selected: set[int] = set()
    run: list[int] = []
    for h in [*grams, -1]:
        if h >= 0:
            run.append(h)
            continue
        if run:
            selected.update(min(run[i:i + W]) for i in range(max(1, len(run) - W + 1)))
            run = []
    return selected


def fingerprint(name: str, text: str, language: str, ignore: frozenset[int] = frozenset()) -> Source:
    """Tokenize and fingerprint one file (its first ``MAX_COMPARED`` characters); the hashes in ``ignore`` (the
    template's) are left out."""
    cut = len(text) > MAX_COMPARED
    try:
        units = tokenize_units(text[:MAX_COMPARED] if cut else text, language)
    except ValueError as e:
        return Source(name, family(language), text, [], [], set(), str(e), cut)
    grams = _grams(units)
    tokens = [t for unit in units for t in unit]
    return Source(name, family(language), text, tokens, grams, _winnow(grams) - ignore, cut=cut)


def template_grams(texts: Iterable[tuple[str, str]]) -> frozenset[int]:
    """Every k-gram hash of the template files ((text, language) pairs): code the course handed out."""
    out: set[int] = set()
    for text, language in texts:
        try:
            out.update(h for h in _grams(tokenize_units(text, language)) if h >= 0)
        except ValueError:
            continue
    return frozenset(out)


def common_prints(sources: Sequence[Source]) -> frozenset[int]:
    """Fingerprints in more than ``max(COMMON_MIN, COMMON_SHARE x files)`` files of one language family."""
    out: set[int] = set()
    for fam in {s.family for s in sources}:
        group = [s for s in sources if s.family == fam]
        limit = max(COMMON_MIN, COMMON_SHARE * len(group))
        counts: dict[int, int] = defaultdict(int)
        for s in group:
            for h in s.prints:
                counts[h] += 1
        out.update(h for h, n in counts.items() if n > limit)
    return frozenset(out)


def code_scores(sources: Sequence[Source],
                pairs: Iterable[tuple[int, int]] | None = None) -> dict[tuple[int, int], CodeScore]:
    """The code score of every pair (i, j), i < j, of ``sources`` of one language family that share a
    fingerprint; the class's common fingerprints are left out first (pairs sharing nothing are absent).  With
    ``pairs``, only those (the candidates of a large class, ``code_candidates``)."""
    common = common_prints(sources)
    prints = [s.prints - common for s in sources]
    if pairs is not None:
        out = {}
        for i, j in pairs:
            if sources[i].family == sources[j].family:
                n = len(prints[i] & prints[j])
                if n:
                    out[(i, j)] = CodeScore(n, len(prints[i]), len(prints[j]))
        return out
    index: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, (s, p) in enumerate(zip(sources, prints)):
        for h in p:
            index[(s.family, h)].append(i)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for owners in index.values():
        for x in range(len(owners)):
            for y in range(x + 1, len(owners)):
                shared[(owners[x], owners[y])] += 1
    return {(i, j): CodeScore(n, len(prints[i]), len(prints[j])) for (i, j), n in shared.items()}


def code_candidates(sources: Sequence[Source], code_flag: float, min_shared: int) -> set[tuple[int, int]]:
    """The pairs (i, j), i < j, of ``sources`` of one language family that share enough fingerprints (the common
    ones left out) for a flag at ``code_flag`` with ``min_shared`` in common (``candidates``): the pairs of a
    large class that are scored."""
    common = common_prints(sources)
    prints = [sorted(s.prints - common) for s in sources]
    out: set[tuple[int, int]] = set()
    for fam in sorted({s.family for s in sources}):
        members = [i for i, s in enumerate(sources) if s.family == fam]
        sets = [prints[i] for i in members]
        need = [code_need(len(p), code_flag, min_shared) for p in sets]
        for x, y in overlap_pairs(sets, sets, need):
            if x < y:
                out.add((members[x], members[y]))
    return out


# ------------------------------------------------------------------------------------------ regions

def _runs(a: Source, b: Source, ignore: frozenset[int]) -> Iterator[tuple[int, int, int]]:
    """Maximal diagonal runs of equal k-grams: (start in a, start in b, k-grams).  A k-gram repeated more than
    ``MAX_REPEATS`` times in either file never matches, so the work stays linear in the files."""
    where: dict[int, list[int]] = defaultdict(list)
    for j, h in enumerate(b.grams):
        if h >= 0 and h not in ignore:
            where[h].append(j)
    in_a: dict[int, int] = defaultdict(int)
    for h in a.grams:
        in_a[h] += 1
    open_runs: dict[int, tuple[int, int]] = {}  # diagonal -> (start i, last i)
    for i, h in enumerate(a.grams):
        if h < 0 or h in ignore or in_a[h] > MAX_REPEATS or len(where.get(h, ())) > MAX_REPEATS:
            continue
        for j in where.get(h, ()):
            d = i - j
            run = open_runs.get(d)
            if run is not None and run[1] == i - 1:
                open_runs[d] = (run[0], i)
            else:
                if run is not None:
                    yield run[0], run[0] - d, run[1] - run[0] + 1
                open_runs[d] = (i, i)
    for d, (start, last) in open_runs.items():
        yield start, start - d, last - start + 1


def matched_regions(a: Source, b: Source, ignore: frozenset[int] = frozenset()) -> list[Region]:
    """The matching stretches of ``a`` and ``b``, longest first, no token used twice on either side (greedy
    string tiling over the k-gram matches); the k-grams in ``ignore`` (template, common code) never match."""
    runs = sorted(_runs(a, b, ignore), key=lambda r: (-r[2], r[0], r[1]))
    used_a = [False] * len(a.tokens)
    used_b = [False] * len(b.tokens)
    out: list[Region] = []
    for i, j, n in runs:
        length = n + K - 1
        # trim the run to the tokens still free on both sides, keeping its longest free stretch
        best, start = (0, 0), None
        for t in range(length + 1):
            free = t < length and not used_a[i + t] and not used_b[j + t]
            if free and start is None:
                start = t
            elif not free and start is not None:
                if t - start > best[1] - best[0]:
                    best = (start, t)
                start = None
        lo, hi = best
        if hi - lo < K:
            continue
        for t in range(lo, hi):
            used_a[i + t] = used_b[j + t] = True
        out.append(Region(a.tokens[i + lo].start, a.tokens[i + hi - 1].end, b.tokens[j + lo].start,
                          b.tokens[j + hi - 1].end, hi - lo))
    out.sort(key=lambda r: r.a_start)
    return out
