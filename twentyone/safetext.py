"""Text that came from a submission, made safe to show: capped, with every control character made visible.

A student's exception message, a compiler message quoting their file, a name in their zip: any of it may
hold terminal escapes (``ESC ] 0 ; title BEL`` sets the window title, ``ESC [ 2 J`` clears the screen,
``ESC ] 52`` writes the clipboard), a carriage return that overwrites the line before it, a Unicode
direction override that reorders what is read, or a lone surrogate that no UTF-8 file can hold.
``visible`` is the one function that turns such text into something shown as it is: each of those
characters becomes an escape of plain ASCII (``\\x1b``, ``\\u202e``, ``\\udc80``), and the text is cut to a
length.  Every place that shows a submission's text (the terminal, the HTML pages, CSV, JSON, the
Gradescope and PrairieLearn files) shows ``visible`` text.

``returned_text`` describes what a strategy returned (for a fault's detail) without calling any of the
value's own code and without ever growing with it.
"""

from __future__ import annotations

__all__ = ["visible", "visible_data", "returned_text", "MAX_SHOWN", "UNSAFE"]

#: The most characters of a submission's text shown in one place (one line, one cell, one message).
MAX_SHOWN = 2000

#: Code points shown as escapes: C0 controls, DEL and C1 controls, surrogates, and the characters that
#: move or reorder text (line and paragraph separators, bidirectional marks, embeddings and isolates).
UNSAFE: frozenset[int] = frozenset([*range(0x00, 0x20), *range(0x7F, 0xA0), *range(0xD800, 0xE000), 0x061C,
                                    0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F),
                                    *range(0x2066, 0x206A)])


def _escape(cp: int) -> str:
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


_ONE_LINE: dict[int, str] = {cp: _escape(cp) for cp in UNSAFE if cp != 0x09}
_LINES: dict[int, str] = {cp: e for cp, e in _ONE_LINE.items() if cp != 0x0A}


def visible(text: str, limit: int = MAX_SHOWN, *, lines: bool = False) -> str:
    """``text`` safe to show: every character of ``UNSAFE`` written as an escape (``\\x1b``, ``\\u202e``) but
    tabs, and newlines when ``lines``; at most ``limit`` characters, a cut one ending in ``…``."""
    table = _LINES if lines else _ONE_LINE
    shown = text[:limit + 1].translate(table)
    if len(shown) <= limit and len(text) <= limit:
        return shown
    return shown[:max(limit - 1, 0)] + "\u2026"


def visible_data(value: object, limit: int = MAX_SHOWN) -> object:
    """``value`` (JSON-like data: dicts, lists, strings, numbers) with every string in it made ``visible``."""
    if isinstance(value, str):
        return visible(value, limit)
    if isinstance(value, dict):
        return {visible(str(k), limit): visible_data(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [visible_data(v, limit) for v in value]
    return value


#: The most characters of a returned string quoted in a fault's detail.
_QUOTED = 40


def returned_text(value: object) -> str:
    """What a strategy returned, for a fault's detail: a short, safe description that never runs the value's
    own code (``repr`` of builtin values only) and stays short whatever the value (a long string, a huge int)."""
    cls = type(value)
    if cls is str or cls is bytes or cls is bytearray:
        seq: str | bytes | bytearray = value  # type: ignore[assignment]
        head = visible(repr(seq[:_QUOTED]))
        return head if len(seq) <= _QUOTED else f"{head} cut, {len(seq)} {'characters' if cls is str else 'bytes'}"
    if cls is int:
        n: int = value  # type: ignore[assignment]
        return repr(n) if -10**18 < n < 10**18 else f"an int of {n.bit_length()} bits"
    if cls is bool or cls is float or value is None:
        return repr(value)
    return f"a {visible(cls.__name__, 80)} object"
