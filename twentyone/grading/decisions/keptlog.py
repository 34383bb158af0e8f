"""The round log a graded match keeps for its review and replay (``outcome.MatchOutcome.log``), packed.

A traced match (``plan.MatchJob.trace``) and a sample match (``bankroll``) keep their whole round log; any
other match in which a seat fouled keeps its match, shuffle and end records and the rounds with a foul (the
shuffle records hold each shoe's order, so those rounds replay with the cards seen before them).  After the
log come the ``review`` records, one per reviewed seat: ``{"type": "review", "seat": S, "scope": "match" or
"incidents", "hands": H, "priced": [...], "bets": [[round, bet, true count], ...]}``, each decision of the
seat in the kept rounds priced by the exact analyser when the match was played (``grading.reviewer``), so
the report side needs no analyser.

Packed as the log's lines, zlib-compressed and base64-encoded: a traced 100-round match of two seats takes
about 6 kB.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Sequence

__all__ = ["pack_log", "unpack_log", "REVIEW", "MATCH_SCOPE", "INCIDENT_SCOPE"]

#: The record type of a seat's priced decisions.
REVIEW = "review"
#: ``scope`` of a review record: every round of the match, or the rounds with a foul only.
MATCH_SCOPE = "match"
INCIDENT_SCOPE = "incidents"


def pack_log(lines: Sequence[str]) -> str:
    """Log lines (JSON objects) as the stored text."""
    if not lines:
        return ""
    data = zlib.compress("\n".join(lines).encode("utf-8"), 6)
    return base64.b64encode(data).decode("ascii")


def unpack_log(text: str) -> list[str]:
    """The lines of a stored text; ValueError if it is not one."""
    if not text:
        return []
    try:
        return zlib.decompress(base64.b64decode(text.encode("ascii"), validate=True)).decode("utf-8").split("\n")
    except (binascii.Error, zlib.error, UnicodeError) as e:
        raise ValueError(f"a kept round log that cannot be unpacked ({e})") from None
