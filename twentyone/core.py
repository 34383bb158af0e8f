"""The only importer of the compiled ``twentyone._core``: the generator and shuffle shared with C.

``c_src/tw_rng.c`` is one implementation of SplitMix64, Lemire's bounded draw and a
Fisher-Yates shuffle; the C program links the same file, so one seed gives the same shoes
on both sides.
"""

from __future__ import annotations

from collections.abc import Sequence

from twentyone._core import ffi, lib
from twentyone.cards import check_cards
from twentyone.errors import BadCardsError
from twentyone.rules import MAX_SEED

__all__ = ["Generator", "StackedGenerator", "new_shoe", "init_cards", "shuffle_cards", "c_calculate", "MAX_SEED",
           "ca_ffi", "ca_lib", "fast_ffi", "fast_lib", "confine", "landlock_abi"]

#: The exact analyser's C functions (``c_src/analysis/tw_ca.c``), bound in ``twentyone.analysis._ca``.
ca_ffi, ca_lib = ffi, lib
#: A plain match's rounds in C (``c_src/fast/tw_fast.c``), played by ``twentyone.grading.fast``.
fast_ffi, fast_lib = ffi, lib


class Generator:
    """A seeded SplitMix64 stream; every shoe of a match is drawn from one of these."""

    __slots__ = ("_state", "_buf", "_size")

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed out of range: {seed!r} (0 .. 2**64-1)")
        self._state = ffi.new("tw_rng *")
        lib.tw_rng_seed(self._state, seed)
        self._buf = ffi.new("char[]", 8 * 52)
        self._size = 8 * 52

    def next64(self) -> int:
        """Return the next 64 random bits."""
        return int(lib.tw_rng_next(self._state))

    def below(self, bound: int) -> int:
        """Return a uniform integer in ``[0, bound)``."""
        if not 1 <= bound <= 2**32 - 1:
            raise ValueError(f"bound out of range: {bound!r}")
        return int(lib.tw_rng_below(self._state, bound))

    def shoe(self, decks: int) -> bytes:
        """Return a freshly shuffled shoe of ``decks`` decks as card-code bytes, dealing order."""
        n = decks * 52
        if n > self._size:  # grows once for a large shoe (a rule set may allow thousands of decks)
            self._buf = ffi.new("char[]", n)
            self._size = n
        lib.tw_init_cards(self._buf, decks)
        lib.tw_shuffle(self._state, self._buf, n)
        return bytes(ffi.unpack(self._buf, n))


def new_shoe(decks: int) -> bytes:
    """Return an unshuffled shoe: deck by deck, suit by suit, ``A23456789TJQK``."""
    buf = ffi.new("char[]", decks * 52)
    lib.tw_init_cards(buf, decks)
    return bytes(ffi.unpack(buf, decks * 52))


def init_cards(decks: int) -> str:
    """The course's ``init_cards``: the ``decks`` decks of a new shoe in order, before shuffling."""
    return new_shoe(decks).decode("ascii")


def shuffle_cards(generator: Generator, decks: int) -> str:
    """The course's ``shuffle_cards``: a new shoe of ``decks`` decks shuffled from ``generator``.

    The shuffle is the one ``c_src/tw_rng.c`` does for both the engine and the C program
    (``init_cards`` then a Fisher-Yates shuffle); ``Table.shuffle_cards`` deals from it.
    """
    return generator.shoe(decks).decode("ascii")


def confine(config: bytes, root: bytes, bpf: bytes) -> tuple[int, str]:
    """Confine this process as a sandboxed match's box (``c_src/box/tw_confine.c``, the same code as a compiled
    submission's box): ``config`` is the box's ``wire.CONFIG`` header.  Returns (the layers that hold, ""), or
    (-1, why) when the minimum cannot be had."""
    cfg = ffi.new("tw_box_config *")
    ffi.memmove(cfg, config, ffi.sizeof("tw_box_config"))
    why = ffi.new("char[]", 256)
    layers = int(lib.tw_confine(cfg, root + b"\0", bpf, len(bpf), why, 256))
    return layers, ffi.string(why).decode("utf-8", "replace")


def landlock_abi() -> int:
    """The kernel's Landlock ABI (0: none), asked the way a box asks it."""
    return int(lib.tw_landlock_abi())


def c_calculate(cards: str) -> int:
    """The C program's ``calculate`` (c_src/twentyone.c) on ``cards``: a cross-check of the Python one."""
    data = cards.encode("ascii")
    return int(lib.tw_calculate(data, len(data)))


class StackedGenerator:
    """A stand-in for ``Generator`` that deals chosen shoes, for scenario tests and audits.

    Each call to ``shoe`` returns the next stacked string; when they run out it repeats the last.
    """

    def __init__(self, shoes: Sequence[str]) -> None:
        if not shoes:
            raise BadCardsError("a stacked shoe needs at least one card string")
        self._shoes = [check_cards(s) for s in shoes]
        self._i = 0

    def shoe(self, decks: int) -> bytes:
        """Return the next stacked shoe."""
        s = self._shoes[min(self._i, len(self._shoes) - 1)]
        self._i += 1
        return s.encode("ascii")
