"""What every box is configured with: the empty root it takes, and its settings for a set of limits."""

from __future__ import annotations

import os
from pathlib import Path

from twentyone.errors import PlayerSpecError
from twentyone.players.sandbox.box import BoxSettings
from twentyone.players.sandbox.limits import Limits
from twentyone.players.sandbox.seccomp import build_filter

__all__ = ["box_root", "box_settings", "settings"]

def box_root() -> Path:
    """The empty folder every box takes as its root: made once, owned by the engine's user, mode 0555."""
    from twentyone.players.c.build import cache_dir

    root = cache_dir().parent / "box-root"
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        root.parent.mkdir(parents=True, exist_ok=True)
        try:
            root.mkdir(mode=0o555)
        except FileExistsError:
            pass
        st = os.lstat(root)
    import stat

    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or any(os.scandir(root)):
        raise PlayerSpecError(f"the sandbox's empty root {str(root)!r} is not an empty folder of this user's; "
                              "remove it")
    if stat.S_IMODE(st.st_mode) != 0o555:
        os.chmod(root, 0o555)
    return root


_FILTERS: dict[bool, bytes] = {}


def box_settings(limits: Limits, python: bool) -> BoxSettings:
    """What every box of these ``limits`` is configured with (``python``: a Python box's filter, whose calls on
    files fail instead of killing it); PlayerSpecError (one line) where no filter can be built.  The judge's boxes
    use it too."""
    return settings(limits, python)


def settings(limits: Limits, python: bool) -> BoxSettings:
    bpf = _FILTERS.get(python)
    if bpf is None:
        bpf = build_filter(python=python)
        if bpf is None:
            raise PlayerSpecError("this machine cannot confine unread code: no system-call filter can be built "
                                  "for its architecture; run with --trusted only for code you have read")
        _FILTERS[python] = bpf
    return BoxSettings(limits.memory_bytes, limits.output_bytes, limits.cpu_seconds, limits.open_files,
                       int(limits.decision_timeout * 1e6), box_root(), bpf)
