"""A tiny W3C WebDriver client over Debian's chromium-driver (chromedriver), standard library only:
enough to open a page in headless Chromium, press keys, click, run a script and read the console.
Used by the browser tests to drive pages as a user would (no downloads, no Selenium)."""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

DRIVER = shutil.which("chromedriver")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

# W3C key codes of the keys the pages use.
KEYS = {"ArrowRight": "\ue014", "ArrowLeft": "\ue012", "Home": "\ue011", "End": "\ue010", " ": " "}


class WebDriverError(RuntimeError):
    pass


class Browser:
    """One chromedriver and one headless Chromium session; use as a context manager."""

    def __init__(self):
        if not DRIVER or not BROWSER:
            raise WebDriverError("chromium and chromium-driver are needed (scripts/setup-deps browser)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.profile = tempfile.mkdtemp(prefix="chorus_wd_")
        self.proc = subprocess.Popen([DRIVER, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while True:
            try:
                self._call("GET", "/status")
                break
            except (OSError, WebDriverError):
                if time.time() > deadline or self.proc.poll() is not None:
                    self.close()
                    raise WebDriverError("chromedriver did not start within 20 s")
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"binary": BROWSER, "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--window-size=1280,900",
                f"--user-data-dir={self.profile}"]}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                out = json.load(r)
        except urllib.error.HTTPError as e:
            raise WebDriverError(f"{method} {path}: {e.code} {e.read()[:300]!r}") from None
        return out.get("value", out)

    def _s(self, method, path, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, path):
        self._s("POST", "/url", {"url": "file://" + os.path.abspath(path)})

    def script(self, js, *args):
        return self._s("POST", "/execute/sync", {"script": js, "args": list(args)})

    def press(self, key, times=1):
        """Key presses sent to the page, as a keyboard would."""
        k = KEYS[key]
        actions = []
        for _ in range(times):
            actions += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
        self._s("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": actions}]})
        self._s("DELETE", "/actions")

    def click(self, css):
        el = self._s("POST", "/element", {"using": "css selector", "value": css})
        self._s("POST", f"/element/{list(el.values())[0]}/click", {})

    def screenshot(self, path):
        """The viewport as a PNG file."""
        import base64
        with open(path, "wb") as f:
            f.write(base64.b64decode(self._s("GET", "/screenshot")))

    def console(self):
        """The browser console's messages since the last call (level, text)."""
        return [(m["level"], m["message"]) for m in self._s("POST", "/se/log", {"type": "browser"})]

    def close(self):
        try:
            if getattr(self, "session", None):
                self._s("DELETE", "")
        except (OSError, WebDriverError):
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
