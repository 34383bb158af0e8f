"""cffi build script for twentyone._core: the shared shuffle/generator and the course helpers.

setup.py names this file in ``cffi_modules``.  Only ``twentyone.core`` imports the result.
"""

from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
C_SRC = HERE.parent / "c_src"

ffi = FFI()
ffi.cdef(
    """
    typedef struct { uint64_t state; } tw_rng;
    void tw_rng_seed(tw_rng *rng, uint64_t seed);
    uint64_t tw_rng_next(tw_rng *rng);
    uint32_t tw_rng_below(tw_rng *rng, uint32_t bound);
    void tw_init_cards(char *cards, int decks);
    void tw_shuffle(tw_rng *rng, char *cards, int n);
    """
)
ffi.set_source(
    "twentyone._core",
    '#include "tw_rng.h"',
    sources=[str((C_SRC / "tw_rng.c").relative_to(HERE.parent))],
    include_dirs=[str(C_SRC.relative_to(HERE.parent))],
    extra_compile_args=["-O2", "-std=c99"],
)

if __name__ == "__main__":
    ffi.compile(verbose=True)
