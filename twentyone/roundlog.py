"""The JSONL round log: one compact JSON object per line, as RULES.md specifies.

The C program writes the same bytes for the same match, so the two can be compared line for line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from twentyone.errors import TwentyOneError

__all__ = ["RoundLog", "dumps", "open_log"]


def open_log(path: Path | None) -> IO[str] | None:
    """The file a command's ``--log PATH`` writes (None without one); an unwritable path is one line."""
    if path is None:
        return None
    try:
        return path.open("w", encoding="utf-8")
    except OSError as e:
        raise TwentyOneError(f"cannot write log {str(path)!r}: {e.strerror or e}") from None


def dumps(record: dict[str, Any]) -> str:
    """One record as the log writes it: compact separators, UTF-8 text, keys in insertion order."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


class RoundLog:
    """Write records to a text stream, one per line; keeps them in memory too if asked."""

    def __init__(self, stream: IO[str] | None = None, keep: bool = False, fouls_only: bool = False) -> None:
        self.stream = stream
        self.records: list[dict[str, Any]] | None = [] if keep else None
        #: Only the rounds in which a seat fouled or faulted are written (every other record is): what a
        #: graded match keeps when no page shows its whole log (``grading.runner``); a round record is the
        #: engine's costliest bookkeeping, and most rounds of most matches need none.
        self.fouls_only = fouls_only

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record``."""
        if self.stream is not None:
            self.stream.write(dumps(record))
            self.stream.write("\n")
        if self.records is not None:
            self.records.append(record)

    def shuffle(self, shoe: int, order: str, mid_round: bool) -> None:
        """Append a ``shuffle`` record (the table's ``on_shuffle`` hook)."""
        self.write({"type": "shuffle", "shoe": shoe, "order": order, "mid_round": mid_round})

    def lines(self) -> list[str]:
        """The kept records as log lines."""
        return [dumps(r) for r in self.records or []]
