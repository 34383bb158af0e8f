"""cffi build script for ``twentyone._core``: the generator and shuffle shared with C, and the course helpers.

setup.py names this file in ``cffi_modules``.  The cdef is read from the C headers themselves
(``c_src/tw_rng.h``, ``c_src/bridge/tw_core.h``, the exact analyser's ``c_src/analysis/tw_ca.h``, the
sandbox's ``c_src/box/tw_confine.h``),
preprocessor lines and comments dropped; the C is
in ``c_src``.  Only ``twentyone.core`` imports the result.
"""

import re
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
C_SRC = ROOT / "c_src"
HEADERS = [C_SRC / "tw_rng.h", C_SRC / "bridge" / "tw_core.h", C_SRC / "analysis" / "tw_ca.h",
           C_SRC / "box" / "tw_confine.h", C_SRC / "fast" / "tw_fast.h"]
SOURCES = [C_SRC / "tw_rng.c", C_SRC / "twentyone.c", C_SRC / "bridge" / "tw_core.c", C_SRC / "box" / "tw_confine.c",
           C_SRC / "fast" / "tw_fast.c",
           *(C_SRC / "analysis" / name for name in ("tw_ca.c", "tw_ca_dealer.c", "tw_ca_basic.c"))]


def cdef_of(header: Path) -> str:
    """A C header as cffi's cdef: comments and preprocessor lines dropped."""
    text = re.sub(r"/\*.*?\*/", "", header.read_text(encoding="utf-8"), flags=re.S)
    return "\n".join(ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#"))


ffi = FFI()
ffi.cdef("\n".join(cdef_of(h) for h in HEADERS))
ffi.set_source(
    "twentyone._core",
    '#include "tw_rng.h"\n#include "tw_core.h"\n#include "tw_ca.h"\n#include "tw_confine.h"\n#include "tw_fast.h"\n',
    sources=[str(p.relative_to(ROOT)) for p in SOURCES],
    include_dirs=[str(p.relative_to(ROOT)) for p in (C_SRC, C_SRC / "compat", C_SRC / "bridge", C_SRC / "analysis", C_SRC / "box",
                                                                   C_SRC / "fast")],
    extra_compile_args=["-O2", "-std=c99"],
)

if __name__ == "__main__":
    ffi.compile(verbose=True)
