"""English a run stored, shown in the reader's language: a fault's detail and a note on a submitted file.

The sandbox words a fault when it happens ("segmentation fault (signal SIGSEGV) at mycodes.c:38 in
continue_action1", "no answer within the decision limit of 1 s of CPU time ..."), and the grader notes what it
saw in a file ("zhao/mycodes.c: set 1 uses count, which set 2 also changes; ..."); both are kept in English in
``results.sqlite``, as data, so that every page of a run can be remade later in any language.  ``retold`` puts
such a text in the active language when it is shown: each English form it knows is a message of the catalogue
with named fields (a file and line, a function, a number, a signal's name are kept as they are; a text inside a
text, as the fault under "while loading: ...", is retold in turn).  A text it does not know (an exception's
message, the student's own words) is shown as it is; in English every text is shown as it is, byte for byte.

``fault_name`` is the name of a fault or foul kind (``crash``, ``timeout`` ...) in the active language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Final

from twentyone.i18n import N_, _, current, pgettext

__all__ = ["retold", "fault_name", "RULES"]

#: How each kind of field is read in the English text, and shown (``None``: as it is).
_FIELD_PATTERNS: Final = {
    "sub": r".+", "num": r"\d+(?:\.\d+)?", "signal": r"SIG[A-Z0-9]+", "function": r"[A-Za-z_][\w:~]*",
    "course": r"(?:bet|first_action|continue_action|show)[1-5]",
    "sets": r"sets? [1-5](?:(?:, | and )[1-5])*", "names": r".+?", "text": r".+?",
}

#: Every English form a stored text takes, as a catalogue message: its fields named for their kind
#: (``{detail}`` is retold in turn; ``{line}``, ``{limit}`` ... are numbers; ``{file}`` is kept as it is).
#: The first that matches the whole text is used.  ``_FORMS`` gives a message's English variants.
RULES: Final[tuple[tuple[str, dict[str, str]], ...]] = (
    # --- a fault's detail: where, then what (sandbox.client, sandbox.ends, c.module, legality)
    (N_("while loading (its initialisers): {detail}"), {"detail": "sub"}),
    (N_("while loading: {detail}"), {"detail": "sub"}),
    (N_("the file crashed earlier in this match: {detail}"), {"detail": "sub"}),
    (N_("{detail} at {file}:{line} in {function}"), {"detail": "sub", "line": "num", "function": "function"}),
    (N_("{detail} at line {line} in {function}"), {"detail": "sub", "line": "num", "function": "function"}),
    (N_("{detail} in {function}"), {"detail": "sub", "function": "course"}),
    (N_("its CPU time limit of {limit} s for loading ({used} with its timer disarmed)"),
     {"limit": "num", "used": "sub"}),
    (N_("it used {used} s"), {"used": "num"}),
    (N_("no answer within the decision limit of {limit} s of CPU time (signal {signal})"),
     {"limit": "num", "signal": "signal"}),
    (N_("no answer within the decision limit of {limit} s of CPU time (it used more than {used} s with its own "
        "timer disarmed)"), {"limit": "num", "used": "num"}),
    (N_("no answer within the decision limit of {limit} s of CPU time (it used {used} s with its timer disarmed)"),
     {"limit": "num", "used": "num"}),
    (N_("no answer within the decision limit of {limit} s of wall-clock time (the strategy slept or blocked)"),
     {"limit": "num"}),
    (N_("the match's CPU time limit of {limit} s (it used {used} s; signal {signal})"),
     {"limit": "num", "used": "num", "signal": "signal"}),
    (N_("its CPU time limit of {limit} s for loading (signal {signal})"), {"limit": "num", "signal": "signal"}),
    (N_("{detail} (signal {signal})"), {"detail": "sub", "signal": "signal"}),
    (N_("segmentation fault"), {}),
    (N_("bus error"), {}),
    (N_("arithmetic error"), {}),
    (N_("illegal instruction"), {}),
    (N_("abort"), {}),
    (N_("forbidden system call"), {}),
    (N_("the match's CPU time limit"), {}),
    (N_("no answer within the decision limit of CPU time"), {}),
    (N_("output flood (file size limit)"), {}),
    (N_("killed by the system"), {}),
    (N_("broken pipe"), {}),
    (N_("signal {number}"), {"number": "num"}),
    (N_("exited with status {code}"), {"code": "num"}),
    (N_("loading it took longer than its limit"), {}),
    (N_("the sandbox's process starting took longer than its limit"), {}),
    (N_("blocked for {seconds} s, neither running nor waiting for a CPU (a strategy's sleeps return at once in "
        "the sandbox: it waited on a descriptor, or stopped itself)"), {"seconds": "num"}),
    (N_("the match took longer than its wall-clock backstop of {seconds} s"), {"seconds": "num"}),
    (N_("the strategy's process is not running"), {}),
    (N_("it does not read the engine's requests (its pipe is full)"), {}),
    (N_("malformed reply while loading"), {}),
    (N_("malformed reply: {what}"), {}),
    (N_("bet returned {value}, not an int in {low} .. {high}"), {"low": "num", "high": "num"}),
    (N_("bet returned {value}, not an int"), {}),
    (N_("{function} returned {value}, not one character"), {"function": "function"}),
    # --- a note on a submitted file (grading.notes), and on a time-out a replay cleared (grading.scoring)
    (N_("{file}: the student's own {main} calls {function}(), which is not part of the course interface: under "
        "the course's main.c, which twentyone plays, it is never called"), {"function": "function"}),
    (N_("{file}: {sets} uses {names}, which {writers} also changes; in the course program all the sets of a file "
        "share these variables, but here {writers} does not play, so only the changes of {sets} reach them"),
     {"sets": "sets", "names": "names", "writers": "sets"}),
    (N_("{file}: {sets} at this table share {names}, which one set changes and another uses; in the sandbox each "
        "seat plays in a process of its own, with its own copy of them, not one copy as in the course program; "
        "--trusted plays them in this process with one copy, as the course program does"),
     {"sets": "sets", "names": "names"}),
)

#: The English variants of a message (singular and plural verbs), as the pattern reads them.
_FORMS: Final = {
    " uses ": " (?:uses|use) ",  # english: patterns that read the stored English
    " also changes;": " also (?:changes|change);",  # english: patterns that read the stored English
    " does not play": " (?:does|do) not play",  # english: patterns that read the stored English
}


def _pattern(message: str, kinds: dict[str, str]) -> re.Pattern[str]:
    """The regular expression that reads ``message``'s English, each field a named group of its kind's pattern
    (a field named twice must say the same both times)."""
    out, seen = [], set()
    for literal, field in re.findall(r"([^{]*)(?:\{(\w+)\})?", message):
        part = re.escape(literal)
        for english, variants in _FORMS.items():
            part = part.replace(re.escape(english), variants)
        out.append(part)
        if field:
            out.append(f"(?P={field})" if field in seen else
                       f"(?P<{field}>{_FIELD_PATTERNS[kinds.get(field, 'text')]})")
            seen.add(field)
    return re.compile("".join(out), re.S)


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[re.Pattern[str], str, dict[str, str]], ...]:
    return tuple((_pattern(m, kinds), m, kinds) for m, kinds in RULES)


def _sets(text: str) -> str:
    """``set 1``, ``sets 1 and 3`` in the active language."""
    numbers = re.findall(r"[1-5]", text)
    if len(numbers) == 1:
        return _("set {n}").format(n=numbers[0])
    return _("sets {some} and {last}").format(some=pgettext("list", ", ").join(numbers[:-1]), last=numbers[-1])


def _names(text: str) -> str:
    """``a``, ``a and b``, ``a, b and c`` (variables' names) in the active language."""
    words = re.split(r", | and ", text)
    if len(words) == 1:
        return words[0]
    return _("{some} and {last}").format(some=pgettext("list", ", ").join(words[:-1]), last=words[-1])


_SHOWN: Final[dict[str, Callable[[str], str]]] = {"sub": lambda t: retold(t), "sets": _sets, "names": _names}


def retold(text: str) -> str:
    """``text``, a fault's detail or a note as a run stored it (English), in the active language: the first
    form of ``RULES`` that reads the whole of it, its fields kept (a text inside it retold); itself when none
    does, and always in English."""
    if current() == "en" or not text:
        return text
    for pattern, message, kinds in _compiled():
        m = pattern.fullmatch(text)
        if m is None:
            continue
        fields = {k: _SHOWN[kinds[k]](v) if kinds.get(k) in _SHOWN else v for k, v in m.groupdict().items()}
        return _(message).format(**fields)
    return text


def fault_name(kind: str) -> str:
    """A fault's or a foul's kind as stored (``crash``, ``timeout``, ``error``, ``illegal_action`` ...) in the
    active language; an unknown kind as it is."""
    names = {"illegal_action": pgettext("incident", "illegal_action"),
             "illegal_insurance": pgettext("incident", "illegal_insurance"),
             "unaffordable_insurance": pgettext("incident", "unaffordable_insurance"),
             "unaffordable_double": pgettext("incident", "unaffordable_double"),
             "unaffordable_split": pgettext("incident", "unaffordable_split"),
             "error": pgettext("incident", "error"), "crash": pgettext("incident", "crash"),
             "timeout": pgettext("incident", "timeout")}
    return names.get(kind, kind)
