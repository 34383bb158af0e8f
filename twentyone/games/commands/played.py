"""How every game command plays its game: to the end, or to Ctrl-C with what was played so far."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO, Any, TypeVar

__all__ = ["play_to_end"]

R = TypeVar("R")


def play_to_end(play: Callable[[], R], interrupted: type[BaseException], partial: Callable[[Any], R],
                strategies: Iterable[Any], stream: IO[str] | None) -> tuple[R, int]:
    """``play()``'s result and exit status 0; on ``interrupted`` (Ctrl-C, raised by the game with its partial
    result) a new line, ``partial(exception)`` and 130.  Either way every strategy is closed (its box ended, its
    output complete) and the round log ``stream``."""
    try:
        try:
            return play(), 0
        except interrupted as e:
            print()
            return partial(e), 130
    finally:
        for strategy in strategies:
            strategy.close()
        if stream is not None:
            stream.close()
