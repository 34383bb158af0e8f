"""Identical copies of one hand-in, played once (RULES.md, **grade_copies**).

Hand-ins that are the same program play the same match on the same seeds: a C or C++ file whose box program is
byte for byte another's (so its code, its data and its debug information, which names a crash's line, are the
same: two files apart only by a comment that moves no line), or a Python file byte for byte another's (the box
compiles its text and a strategy can read it, comments included: ``grader.program_key``, on the side that builds).  So the first of them
(in the class's order) plays, and each match it finishes is stored for every copy too, as that copy's match: the
same result under the copy's name, the copy's file named where the match names a file (a fault's line, the kept
round log's players), never the other student's.  The copies then get identical criteria, legal play and (in the
``duplicate`` tournament, where every player plays alone on a deal) identical deals; the pages say a hand-in was
played once with its copies, without naming them (the similarity page, for the instructor, does).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from twentyone.grading.outcome import EntryKind, MatchOutcome
from twentyone.grading.decisions.keptlog import pack_log, unpack_log
from twentyone.grading.store import EntryRow, Store

__all__ = ["copies_of", "mirror", "code_of", "COPY_NOTE"]

#: What a copy's page says (the copies are not named to the students).
COPY_NOTE = ("identical to another hand-in of the class (the same code, line ends aside): it was played once for "
             "both, and each gets the same matches, scores and bonus (RULES.md, grade_copies)")


def code_of(store: Store) -> dict[str, str]:
    """Each graded submission's code, by name: two submissions with the same are identical copies, as the grade
    found them (``grader.program_key``, RULES.md **grade_copies**: a C file by the program it builds, a Python file
    byte for byte), so that a tournament shares places only between the copies that played as one.  A run stored
    before the grade kept its copies falls back on the stored text, line ends made alike."""
    names = [s for s in store.sources() if s.role == "submission"]
    twins = store.meta("copies")
    if isinstance(twins, dict):
        return {s.name: "copy of " + str(twins.get(s.name, s.name)) for s in names}
    return {s.name: s.language + "\n" + s.text.replace("\r\n", "\n") for s in names}


def copies_of(entries: Sequence[EntryRow], code: Mapping[str, str | None]) -> dict[str, str]:
    """Each copy's representative, by the copy's name: the first usable submission in ``entries``' order with the
    same code.  A name with ``|`` in it (a match key's separator) is never mirrored: it plays its own matches."""
    first: dict[str, str] = {}
    out: dict[str, str] = {}
    for e in entries:
        if e.error is not None or e.kind == EntryKind.BUILTIN or code.get(e.name) is None or "|" in e.name:
            continue
        key = code[e.name]
        assert key is not None
        rep = first.setdefault(key, e.name)
        if rep != e.name:
            out[e.name] = rep
    return out


def _swap(text: str, pairs: Sequence[tuple[str, str]]) -> str:
    for old, new in pairs:
        if old and old != new:
            text = text.replace(old, new)
    return text


def _quoted(x: str) -> str:
    return json.dumps(x, ensure_ascii=False)


def mirror(o: MatchOutcome, rep: EntryRow, copy: EntryRow) -> MatchOutcome:
    """The match ``o`` that ``rep`` played, as ``copy``'s: its key and names with the copy's name, and where it
    names ``rep``'s file (its SPEC in the kept log, its file's name in a fault's line), the copy's."""
    key = "|".join(copy.name if part == rep.name else part for part in o.key.split("|"))
    names = tuple(copy.name if n == rep.name else n for n in o.info.names)
    subject = copy.name if o.info.subject == rep.name else o.info.subject
    info = replace(o.info, subject=subject, names=names)
    # In the kept log a seat's SPEC and name are JSON strings: swapped whole, quotes included.
    quoted = [(_quoted(rep.spec), _quoted(copy.spec)), (_quoted(rep.name), _quoted(copy.name))]
    log = o.log
    if log:
        try:
            log = pack_log([_swap(line, quoted) for line in unpack_log(log)])
        except ValueError:
            log = ""
    # A fault's line names the file: "at li.c:12 in bet1", "(at li.py:5 in bet1, li.py:2 in helper)".
    old, new = _file(rep), _file(copy)
    line = re.compile(rf"(?<=[ (,]){re.escape(old)}(?=:\d)")
    details = [line.sub(new, d) if old != new else d for d in o.fault_details]
    return replace(o, key=key, info=info, log=log, fault_details=details)


def _file(e: EntryRow) -> str:
    """The file name a fault's line gives for ``e``: its SPEC's file (``PATH[:K]``), as the box names it."""
    return os.path.basename(re.sub(r":\d+$", "", e.spec))
