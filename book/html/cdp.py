"""book/html/cdp.py: drive headless Chromium from Python over the DevTools protocol, standard
library only (no Playwright, no websocket): Chromium's --remote-debugging-pipe reads commands on
its file descriptor 3 and writes answers and events on 4, each a JSON text ended by a NUL byte.

    with Browser() as b:
        tab = b.tab(width=390, height=844, mobile=True)
        tab.goto("file:///.../index.html")
        tab.eval("document.title")

The protocol is documented at https://chromedevtools.github.io/devtools-protocol/."""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, chromium=None, timeout=60):
        self.chromium = chromium or shutil.which("chromium") or shutil.which("chromium-browser")
        if not self.chromium:
            raise CDPError("chromium is not installed (sudo make deps)")
        self.timeout = timeout
        self.next_id = 0
        self.buffer = b""
        self.events = []

    def __enter__(self):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="book-chromium-")

        def child():  # the pipe ends become the browser's descriptors 3 and 4
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen(
            [self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--remote-debugging-pipe", "--hide-scrollbars", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--disable-background-networking", "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=child)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close")
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_chrome, self.from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise CDPError("Chromium closed the pipe (did it crash?)")
            self.buffer += chunk
        msg, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=None):
        """A command's result (raises CDPError on an error answer); events that arrive meanwhile
        are kept for wait_event."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise CDPError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session=None, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for k, e in enumerate(self.events):
                if e["method"] == method and (session is None or e.get("sessionId") == session):
                    return self.events.pop(k)
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)

    def drain(self, session):
        """The events of SESSION received so far (removed from the queue)."""
        mine = [e for e in self.events if e.get("sessionId") == session]
        self.events = [e for e in self.events if e.get("sessionId") != session]
        return mine

    def tab(self, width, height, mobile=False, dark=False):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        t = Tab(self, session, target)
        for domain in ("Page", "Runtime", "Network", "Log"):
            t.send(domain + ".enable")
        t.send("Emulation.setDeviceMetricsOverride",
               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        t.send("Emulation.setEmulatedMedia",
               {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
        return t


class Tab:
    def __init__(self, browser, session, target):
        self.browser, self.session, self.target = browser, session, target

    def close(self):
        self.browser.send("Target.closeTarget", {"targetId": self.target})
        self.browser.drain(self.session)

    def send(self, method, params=None, timeout=None):
        return self.browser.send(method, params, self.session, timeout)

    def goto(self, url):
        """Load URL and wait until it and its fonts are loaded and it has been laid out twice.
        Returns the problems seen while loading: exceptions, console errors, failed or network
        requests."""
        self.browser.drain(self.session)
        self.send("Page.navigate", {"url": url})
        self.browser.wait_event("Page.loadEventFired", self.session)
        self.eval("document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(r))))", await_promise=True)
        problems = []
        for e in self.browser.drain(self.session):
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                problems.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append("console error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                             for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                problems.append("log: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                problems.append("failed to load: " + p.get("errorText", "") + " " + p.get("requestId", ""))
            elif m == "Network.requestWillBeSent":
                u = p.get("request", {}).get("url", "")
                if not u.startswith(("file:", "data:", "about:")):
                    problems.append("loads from the network: " + u)
        return problems

    def eval(self, expression, await_promise=False):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CDPError("script failed: " + (d.get("exception", {}).get("description") or d.get("text", "")))
        return r.get("result", {}).get("value")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


def main(argv):
    """cdp.py shoot URL PNG WIDTH HEIGHT [dark]: a screenshot of URL (its #fragment scrolled to)
    in a WIDTH x HEIGHT window, light or dark; prints the problems seen while loading."""
    if len(argv) not in (5, 6) or argv[0] != "shoot":
        print(main.__doc__)
        return 2
    url, png, width, height = argv[1], argv[2], int(argv[3]), int(argv[4])
    with Browser() as b:
        tab = b.tab(width, height, mobile=width < 600, dark=len(argv) == 6 and argv[5] == "dark")
        for p in tab.goto(url):
            print(p)
        if "#" in url:  # where a reader following the link lands
            tab.eval("(() => { const e = document.getElementById(decodeURIComponent(location.hash.slice(1)));"
                     " if (e) e.scrollIntoView(); })()")
            tab.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)
        tab.screenshot(png)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
