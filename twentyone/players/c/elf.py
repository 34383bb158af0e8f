"""The section headers of a relocatable ELF object, read from its bytes (not from a tool's listing).

The build decides from them what may run before the box is confined: a listing splits a name with a space or an
``=`` in it, or shows a control byte as ``^A``, so that a name read off it is not the name the linker matches
(tests/test_audit4.py).  Only x86-64's ELF64 little-endian objects, which the build's compiler makes, are read.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Section", "ElfError", "sections", "INIT_TYPES", "PLAIN_NAME"]

#: Section types the loader runs: SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY.
INIT_TYPES = frozenset({14, 15, 16})
#: The names a compiler gives sections (``.text.startup``, ``.rodata.str1.1``, ``.note.GNU-stack``, C++'s
#: ``.text._ZN...``): anything else is refused, so that no tool reads a name another way than the linker does.
PLAIN_NAME = re.compile(rb"[A-Za-z0-9._$-]*\Z")


class ElfError(ValueError):
    """The file is not an ELF64 little-endian relocatable object whose section headers can be read whole."""


@dataclass(frozen=True)
class Section:
    name: bytes
    type: int
    flags: int


def sections(path: Path) -> list[Section]:
    """Every section of the object at ``path`` (index 0, the null section, left out)."""
    data = path.read_bytes()
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ElfError("not an ELF64 little-endian object")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0:
        return []
    if shentsize != 64 or shoff + 64 > len(data):
        raise ElfError("section headers out of the file")
    if shnum == 0 or shstrndx == 0xFFFF:  # the real figures in section 0 (SHN_XINDEX)
        size0, link0 = struct.unpack_from("<QI", data, shoff + 0x20)
        shnum = shnum or int(size0)
        shstrndx = int(link0) if shstrndx == 0xFFFF else shstrndx
    if shoff + 64 * shnum > len(data) or not 0 < shstrndx < shnum:
        raise ElfError("section headers out of the file")
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + 64 * i) for i in range(shnum)]
    _, _, _, _, str_off, str_size = headers[shstrndx]
    if str_off + str_size > len(data):
        raise ElfError("section names out of the file")
    names = data[str_off:str_off + str_size]
    out = []
    for name_off, kind, flags, _, _, _ in headers[1:]:
        if name_off >= len(names):
            raise ElfError("a section name out of the file")
        end = names.find(b"\0", name_off)
        if end < 0:
            raise ElfError("a section name without its end")
        out.append(Section(names[name_off:end], kind, flags))
    return out
