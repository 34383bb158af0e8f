"""A person at a pseudo-terminal: run a command on a pty, wait for what it prints, type lines, Ctrl-C, Ctrl-D."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Terminal:
    """``python -m twentyone ARGS`` on a pseudo-terminal, as a person runs it."""

    def __init__(self, *args: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.screen = ""
        pid, fd = pty.fork()
        if pid == 0:  # the child: the command, with the pty as its terminal
            os.chdir(ROOT)
            # Ctrl-C reaches it as it reaches a person's command, even when the tests were started with
            # SIGINT ignored (a background job of a shell without job control): Python then never raises
            # KeyboardInterrupt.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execv(sys.executable, [sys.executable, "-m", "twentyone", *args])
        self.pid, self.fd = pid, fd
        self.status: int | None = None

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not chunk:
            return False
        self.screen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, pattern: str) -> re.Match[str]:
        """Wait until the screen since the last ``expect`` matches ``pattern``; return the match."""
        start = getattr(self, "_seen", 0)
        deadline = time.monotonic() + self.timeout
        while True:
            m = re.compile(pattern).search(self.screen, start)
            if m:
                self._seen = m.end()
                return m
            if time.monotonic() > deadline or not self._read(0.1):
                m = re.compile(pattern).search(self.screen, start)
                if m:
                    self._seen = m.end()
                    return m
                raise AssertionError(f"{pattern!r} never appeared; the screen:\n{self.screen[-3000:]}")

    def type(self, line: str) -> None:
        """Type ``line`` and Enter."""
        os.write(self.fd, line.encode("utf-8") + b"\r")

    def ctrl(self, key: str) -> None:
        """Ctrl-C (``c``) or Ctrl-D (``d``), once the command waits for the keyboard, as a person presses it: a
        question is on the screen before the command reads its answer, and CPython's ``input()`` loses a SIGINT
        that comes between the two (the signal's flag is set, then the read blocks; a person would press again)."""
        self.waiting()
        os.write(self.fd, {"c": b"\x03", "d": b"\x04"}[key])

    def waiting(self, within: float = 5.0) -> None:
        """Return once the command is asleep (blocked, as on a read of the keyboard) at two looks 20 ms apart, or
        after ``within`` seconds."""
        deadline = time.monotonic() + within
        asleep = 0
        while time.monotonic() < deadline and asleep < 2:
            try:
                with open(f"/proc/{self.pid}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                return
            asleep = asleep + 1 if state == b"S" else 0
            time.sleep(0.02)

    def wait(self) -> int:
        """Read to the end and return the exit status."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and self._read(0.1):
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                while self._read(0.05):
                    pass
                self.status = os.waitstatus_to_exitcode(status)
                os.close(self.fd)
                return self.status
        if self.status is None:
            # The terminal closed: the child is ending.  The deadline passed: fail now, never hang the suite.
            done, status = os.waitpid(self.pid, 0 if time.monotonic() < deadline else os.WNOHANG)
            if not done:
                self.kill()
                raise AssertionError(f"the command still ran {self.timeout:.0f} s later; the screen:\n"
                                     f"{self.screen[-3000:]}")
            self.status = os.waitstatus_to_exitcode(status)
            os.close(self.fd)
        return self.status

    def kill(self) -> None:
        """Stop the child if it still runs."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
