"""cffi build script for twentyone._core: the shuffle/generator and the course helpers shared with C.

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
    int tw_calculate(const char *cards, int len);
    """
)
# The exact analyser (c_src/analysis): its header is plain cdef once the preprocessor lines are gone.
ffi.cdef("\n".join(line for line in (C_SRC / "analysis" / "tw_ca.h").read_text().splitlines()
                   if not line.lstrip().startswith("#")))
ffi.set_source(
    "twentyone._core",
    """
    #include "tw_rng.h"
    #include "twentyone.h"
    #include "tw_ca.h"
    /* the course's calculate, on a plain string (the C helpers are the same code the C program links) */
    static int tw_calculate(const char *cards, int len)
    {
        char buf[20] = { 0 };
        memcpy(buf, cards, len < 19 ? (size_t)len : 19);
        return calculate(&buf, len < 19 ? len : 19);
    }
    """,
    sources=[str((C_SRC / name).relative_to(HERE.parent)) for name in ("tw_rng.c", "twentyone.c", "analysis/tw_ca.c",
                                                             "analysis/tw_ca_dealer.c", "analysis/tw_ca_basic.c")],
    include_dirs=[str(C_SRC.relative_to(HERE.parent)), str((C_SRC / "compat").relative_to(HERE.parent)),
                  str((C_SRC / "analysis").relative_to(HERE.parent))],
    extra_compile_args=["-O2", "-std=c99"],
)

if __name__ == "__main__":
    ffi.compile(verbose=True)
