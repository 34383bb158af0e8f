"""Headless Chromium driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``): real key
presses and clicks on a page, its DOM read back, and every console error, CSP refusal and network request seen.

No library is needed: Chromium reads commands on file descriptor 3 and writes replies on 4, one JSON object
each, ended by a NUL byte.  ``Browser`` opens one tab; ``open(url)`` loads a page and waits for it;
``key("ArrowRight")`` presses a key; ``click("#next-step")`` clicks an element where it is drawn; ``eval(js)``
returns a value.  ``errors`` collects exceptions, console errors and CSP refusals; ``requests`` every URL the
page asked for.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

__all__ = ["Browser", "KEYS"]

#: Windows key codes of the keys the replay uses.
KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "ArrowUp": 38, "ArrowDown": 40, "Home": 36, "End": 35,
        "PageUp": 33, "PageDown": 34, "n": 78, "p": 80}


class Browser:
    """One headless Chromium with one tab, driven over the DevTools pipe."""

    def __init__(self, exe: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="twentyone-cdp-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child() -> None:  # the pipe ends become fds 3 (commands in) and 4 (replies out)
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={self._profile}", "--window-size=1280,1000"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=child,
            close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self._events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    # -- the protocol ---------------------------------------------------------------------------------
    def _read(self) -> None:
        ready, _, _ = select.select([self._from_chrome], [], [], self.timeout)
        if not ready:
            raise TimeoutError("chromium did not answer")
        chunk = os.read(self._from_chrome, 1 << 20)
        if not chunk:
            raise EOFError("chromium closed the pipe")
        self._buf += chunk
        while b"\0" in self._buf:
            raw, self._buf = self._buf.split(b"\0", 1)
            msg = json.loads(raw)
            if "id" not in msg:
                self._note(msg)
            self._events.append(msg)

    def _note(self, msg: dict[str, Any]) -> None:
        method, params = msg.get("method", ""), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(json.dumps(params.get("args", []))[:500])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(params["entry"].get("text", "")[:500])
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))

    def _call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        want = self._id
        while True:
            for m in self._events:
                if m.get("id") == want:
                    self._events.remove(m)
                    if "error" in m:
                        raise RuntimeError(f"{method}: {m['error']}")
                    return dict(m.get("result", {}))
            self._read()

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a command to the tab and return its result."""
        return self._call(method, params, session=True)

    # -- what tests use ----------------------------------------------------------------------------------
    def open(self, url: str, ready: str = "true") -> None:
        """Load ``url`` and wait until the JavaScript expression ``ready`` is true."""
        self.send("Page.navigate", {"url": url})
        self.wait(ready)

    def wait(self, expression: str) -> None:
        """Wait until ``expression`` is true in the page."""
        end = time.monotonic() + self.timeout
        while time.monotonic() < end:
            try:
                if self.eval(expression):
                    return
            except RuntimeError:
                pass
            time.sleep(0.05)
        raise TimeoutError(f"never true: {expression}")

    def eval(self, expression: str) -> Any:
        """The value of ``expression`` in the page."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails'].get('text', '')}")
        return r.get("result", {}).get("value")

    def key(self, key: str) -> None:
        """Press and release ``key`` (one of ``KEYS``) in the page."""
        code = KEYS[key]
        name = key if len(key) > 1 else f"Key{key.upper()}"
        for kind in ("keyDown", "keyUp"):
            params: dict[str, Any] = {"type": kind, "key": key, "code": name, "windowsVirtualKeyCode": code}
            if len(key) == 1 and kind == "keyDown":
                params["text"] = key
            self.send("Input.dispatchKeyEvent", params)

    def click(self, selector: str) -> None:
        """Click the middle of the element ``selector`` with the mouse."""
        box = self.eval(f"(function(){{var e=document.querySelector({json.dumps(selector)});e.scrollIntoView("
                        "{block: 'center'});var r=e.getBoundingClientRect();"
                        "return [r.left + r.width / 2, r.top + r.height / 2];})()")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def close(self) -> None:
        """Close the browser and remove its profile."""
        try:
            self._call("Browser.close")
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
