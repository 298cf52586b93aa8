"""Headless Chromium driven over the DevTools protocol, for the browser tests of the replay viewer
(tests/test_replay_html.py), the play page (tests/test_web.py) and the docs site (tests/test_docs_site.py).

It talks to Chromium over a websocket on the loopback interface (``websocket-client`` from the
dev extra): it navigates, presses keys, clicks, reads the page's state and takes screenshots. It
needs Debian's ``chromium`` (``apt-get install chromium``), which ``.ci/run`` installs; under CI a
missing browser is a failure (:func:`require_chromium`), elsewhere the test is skipped.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--window-size=1400,1000",
                  "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--remote-allow-origins=*"]


def chromium() -> str | None:
    """The path of a Chromium-like browser, or ``None``."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    """The browser's path; skips the test without one (fails it under CI, where .ci/run installs it)."""
    browser = chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it with apt-get")
        pytest.skip("chromium not installed (apt-get install chromium)")
    return browser


class Page:
    """A page of a headless Chromium, driven over the DevTools protocol; ``ready`` is a JavaScript
    expression that is true once the page has loaded."""

    def __init__(self, browser: str, url: str, profile: Path,
                 ready: str = "window.replay !== undefined && document.body.dataset.step !== undefined"):
        # its own process group, so that close() ends the browser and every helper process it started
        self.proc = subprocess.Popen([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.ws = None
        try:
            self._connect(profile, url, ready)
        except BaseException:
            self.close()
            raise

    def _connect(self, profile: Path, url: str, ready: str) -> None:
        import websocket  # websocket-client (dev extra)

        port_file = profile / "DevToolsActivePort"
        for _ in range(600):  # the browser writes its port when it is ready
            if port_file.exists() and port_file.read_text().strip():
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.proc.returncode}")
            time.sleep(0.1)
        else:
            raise RuntimeError("chromium did not open its DevTools port")
        port = int(port_file.read_text().split()[0])
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
        with direct.open(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        ws_url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)  # ours: no proxy from the environment
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True, socket=sock)
        self.ids = 0
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Page.navigate", url=url)
        self.wait_for(ready)

    def send(self, method: str, **params):
        self.ids += 1
        self.ws.send(json.dumps({"id": self.ids, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.ids:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expr: str):
        res = self.send("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expr}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_for(self, expr: str, tries: int = 300):
        """The first truthy value of ``expr``, evaluated every 0.1 s (``AssertionError`` after ``tries``)."""
        for _ in range(tries):
            try:
                value = self.eval(expr)
                if value:
                    return value
            except RuntimeError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"the page never satisfied {expr}")

    def goto(self, url: str) -> None:
        """Navigate to ``url`` and wait until it has loaded."""
        self.send("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused element, one key at a time."""
        for ch in text:
            self.send("Input.dispatchKeyEvent", type="keyDown", key=ch, text=ch)
            self.send("Input.dispatchKeyEvent", type="keyUp", key=ch)

    def key(self, key: str, code: int, text: str | None = None) -> None:
        for kind in ("keyDown", "keyUp"):
            extra = {"text": text} if text and kind == "keyDown" else {}
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code, **extra)

    def click(self, selector: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).scrollIntoView({{block: 'center'}})")
        box = self.eval(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                        " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            if self.ws is not None:
                self.ws.close()
        finally:
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=wait)
                    os.killpg(self.proc.pid, 0)  # helpers still there?
                except subprocess.TimeoutExpired:
                    continue
                except ProcessLookupError:
                    break
                time.sleep(0.5)
