"""Measure built HTML pages in headless Chromium: display math wider than its column (and the cue that it
scrolls), sideways page scroll.

Used by ``tests/test_docs_site.py`` and runnable by hand on a built site::

    python tests/site_probe.py _build/html 1400 [PAGE ...]

A copy of each page gets a script that waits for MathJax, then writes its
measurements as JSON into ``<body data-probe=...>``; Chromium's ``--dump-dom``
returns them. Nothing is fetched from the network.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: in the name of a page's copy that a probe opens (left out of :func:`site_text.edition_pages`: tests in other
#: pytest-xdist workers read the site's pages meanwhile)
COPY = "probe-copy-"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]

#: For every display formula: its drawn width against the width of the column it sits in; for a wider one, the
#: box that scrolls it and that box's cue (:func:`cue_problems`).
PROBE_JS = r"""
<script>
(function () {
  function column(el) {
    var box = (el.closest('div.math') || el).parentElement, s = getComputedStyle(box);
    return box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  }
  // how a wide formula shows that it scrolls: the box that scrolls it (overflow-x auto or scroll, content wider
  // than the box), the caption under it, the edge shadow of its background, and where its left end is drawn
  function cue(c, m) {
    var box = c;
    while (box && box !== document.body) {
      var o = getComputedStyle(box).overflowX;
      if ((o === 'auto' || o === 'scroll') && box.scrollWidth > box.clientWidth) break;
      box = box.parentElement;
    }
    if (!box || box === document.body) return {scroller: '', caption: '', shadow: false, left: null};
    box.scrollLeft = 0;
    return {scroller: box.tagName.toLowerCase() + '.' + box.className.split(' ').join('.'),
            caption: getComputedStyle(box, '::after').content.replace(/"/g, ''),
            shadow: /radial-gradient/.test(getComputedStyle(box).backgroundImage),
            left: Math.round(m.getBoundingClientRect().left - box.getBoundingClientRect().left)};
  }
  function run() {
    var wide = [], all = document.querySelectorAll('mjx-container[display="true"]');
    all.forEach(function (c) {
      var m = c.querySelector('mjx-math'), w = m ? m.getBoundingClientRect().width : 0, col = column(c);
      if (w > col + 1) {
        var d = c.closest('.derive-derivation'), id = d ? (d.id || '') : '';
        wide.push(Object.assign({ratio: Math.round(100 * w / col) / 100, id: id}, cue(c, m)));
      }
    });
    // each citation graph: its drawing's width against its box's, and the cue when it scrolls
    var graphs = [];
    document.querySelectorAll('.derive-graph-scroll').forEach(function (box) {
      var svg = box.querySelector('svg'), w = svg ? svg.getBoundingClientRect().width : 0, s = getComputedStyle(box);
      graphs.push({width: Math.round(w),
                   column: box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight),
                   caption: [getComputedStyle(box, '::before'), getComputedStyle(box, '::after')].map(function (p) {
                     return p.display === 'none' ? '' : p.content.replace(/"/g, ''); }).join(' ').trim(),
                   shadow: /radial-gradient/.test(s.backgroundImage), overflow: s.overflowX});
    });
    // tables: a scroll box that scrolls although its table would fit, and number cells set on more than one line
    var tables = {boxes: 0, scrolling: 0, needless: 0, broken: []};
    document.querySelectorAll('div.derive-table-scroll').forEach(function (box) {
      var t = box.querySelector('table'), sc = box.querySelector('div.table-wrapper') || box;  // the one that scrolls
      tables.boxes += 1;
      if (sc.scrollWidth > sc.clientWidth + 1) {
        tables.scrolling += 1;
        if (t) {  // the table at its natural width (its words unbroken), without the phone's minimum width
          var old = [t.style.minWidth, t.style.width];
          t.style.minWidth = '0'; t.style.width = 'max-content';
          var cs = getComputedStyle(sc);
          var room = sc.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
          if (t.getBoundingClientRect().width <= room) tables.needless += 1;
          t.style.minWidth = old[0]; t.style.width = old[1];
        }
      }
      box.querySelectorAll('td').forEach(function (td) {
        if (!/^[\s\d.,%×+−-]+[A-Za-z]{0,2}$/.test(td.textContent.trim())) return;  // a number (124.4M, 3,150,336)
        var tops = {}, walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT), n;
        while ((n = walk.nextNode())) {  // the lines the number's characters are set on
          var r = document.createRange(); r.selectNodeContents(n);
          Array.prototype.forEach.call(r.getClientRects(), function (x) { if (x.width) tops[Math.round(x.top)] = 1; });
        }
        if (Object.keys(tops).length > 1) tables.broken.push(td.textContent.trim());
      });
    });
    var doc = document.documentElement;
    document.body.setAttribute('data-probe', JSON.stringify({
      total: all.length, wide: wide, graphs: graphs, tables: tables, page_overflow: doc.scrollWidth - window.innerWidth,
      errors: document.querySelectorAll('mjx-merror').length}));
  }
  // measured again at another window size (Browser.probe_sizes): after the page's own resize handlers ran
  // (derive-scroll.js marks the formulas that scroll 150 ms after the resize event)
  window.deriveProbeAgain = function () {
    document.body.removeAttribute('data-probe');
    requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(run, 400); }); });
  };
  var tries = 0;
  function start() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(function () { setTimeout(run, 50); });
    } else if (window.MathJax || tries++ < 20) { setTimeout(start, 50); } else { run(); }
  }
  window.addEventListener('load', start);
})();
</script>
"""


def cue_problems(wide: dict) -> list[str]:
    """What a formula wider than its column lacks (``[]``: nothing): a box that scrolls it sideways, the
    "scroll" caption and the edge shadow that show it does, its left end in view (at most 1 px left of the box
    and no more than 16 px right of it, so the left-hand side is on screen before any scrolling)."""
    if not wide.get("scroller"):
        return ["no box scrolls it"]
    problems = []
    if "scroll" not in wide["caption"] and "스크롤" not in wide["caption"]:
        problems.append("no caption")
    if not wide["shadow"]:
        problems.append("no edge shadow")
    if not -1 <= wide["left"] <= 16:
        problems.append(f"left end at {wide['left']} px")
    return problems


class Browser:
    """One headless Chromium for many pages, driven over the DevTools protocol on a pipe.

    ``--remote-debugging-pipe`` makes Chromium read protocol commands from file descriptor 3 and write its
    answers to 4 (JSON messages ending in a NUL byte), so no port and no websocket library is needed.
    Starting Chromium costs about a second of CPU; a test that measures every page of the site at one
    window size starts it once instead of once per page. Use as a context manager.
    """

    def __init__(self, width: int, height: int, profile: Path) -> None:
        import os

        self.width, self.height = width, height
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        def child() -> None:
            # Chromium's ends become its descriptors 3 and 4 (moved out of the way first, in case one of them
            # is 3 or 4 already); they are inheritable, every other descriptor of ours is not (close_fds=False)
            import fcntl

            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome_r, from_chrome_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                                      "--remote-debugging-pipe", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=child, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._id = 0
        targets = self._call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self._session = self._call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self._call("Page.enable", session=True)
        # headless Chromium lays a window narrower than 500 px out at 500 px: the page is given the asked width
        self._call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                   deviceScaleFactor=1, mobile=False)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        import os

        try:
            self._send({"id": 0, "method": "Browser.close"})
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass

    def _send(self, message: dict) -> None:
        import os

        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")

    def _receive(self, deadline: float) -> dict:
        import os
        import select
        import time

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise RuntimeError(f"chromium did not answer in time: {self._stderr()}")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError(f"chromium closed its pipe (exit {self.proc.poll()}): {self._stderr()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _stderr(self) -> str:
        return "" if self.proc.poll() is None else (self.proc.stderr.read() or b"")[-500:].decode("utf-8", "replace")

    def _call(self, method: str, *, session: bool = False, timeout: float = 60, **params: object) -> dict:
        import time

        self._id += 1
        message: dict = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._id:  # events and other answers are not waited for
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def resize(self, width: int, height: int) -> None:
        """Lay the page out in a ``width`` x ``height`` px window from now on (the page shown is not reloaded)."""
        self.width, self.height = width, height
        self._call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                   deviceScaleFactor=1, mobile=False)

    def _wait_for(self, url: str, attribute: str, deadline: float) -> str | None:
        """The value of ``attribute`` on the body of the document at ``url``, once it is set (None: not by the
        deadline)."""
        import time

        while time.monotonic() < deadline:
            # the copy's own document (not the previous page's, still shown while the new one loads)
            got = self._call("Runtime.evaluate", session=True, returnByValue=True, expression=(
                f"document.URL === {json.dumps(url)} && document.body"
                f" && document.body.getAttribute({json.dumps(attribute)})"))["result"].get("value")
            if got:
                return got
            time.sleep(0.1)
        return None

    def _open_until(self, page: Path, script: str, suffix: str, attribute: str, timeout: float) -> str:
        """Open a copy of ``page`` with ``script`` added and wait until its body has ``attribute``; its value."""
        import os
        import time

        # a name of this process's own: tests in other pytest-xdist workers open copies of the same page
        copy = page.with_name(f"{page.stem}.{COPY}{os.getpid()}{suffix}")
        copy.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
        try:
            self._call("Page.navigate", session=True, url=copy.as_uri())
            got = self._wait_for(copy.as_uri(), attribute, time.monotonic() + timeout)
            if got:
                return got
        finally:
            copy.unlink()
        raise RuntimeError(f"{page}: not ready ({attribute}) after {timeout:g} s")

    def probe(self, page: Path, timeout: float = 180) -> dict:
        """Open ``page`` (a copy with :data:`PROBE_JS`) and return its measurements, as :func:`probe_page`."""
        return json.loads(self._open_until(page, PROBE_JS, ".probe.html", "data-probe", timeout))

    def probe_sizes(self, page: Path, sizes: list[tuple[int, int]], timeout: float = 180) -> list[dict]:
        """Measure ``page`` in a window of each of ``sizes`` (``(width, height)`` px), as :meth:`probe` does,
        loading and typesetting it once: it is opened at the first size, then the window is resized and the
        page measured again (after its own resize handlers ran). Leaves the window at the last size."""
        import time

        self.resize(*sizes[0])
        found = [self.probe(page, timeout)]
        url = self._call("Runtime.evaluate", session=True, returnByValue=True,
                         expression="document.URL")["result"]["value"]
        for width, height in sizes[1:]:
            self.resize(width, height)
            self._call("Runtime.evaluate", session=True, expression="window.deriveProbeAgain()")
            got = self._wait_for(url, "data-probe", time.monotonic() + timeout)
            if not got:
                raise RuntimeError(f"{page}: not measured again at {width} px after {timeout:g} s")
            found.append(json.loads(got))
        return found

    def capture(self, page: Path, script: str, out: Path, timeout: float = 120) -> None:
        """Open a copy of ``page`` with ``script`` (which sets ``data-shot`` on the body when the page is ready)
        and write a PNG of the window to ``out``."""
        import base64

        self._open_until(page, script, ".shot.html", "data-shot", timeout)
        png = self._call("Page.captureScreenshot", session=True, format="png")["data"]
        out.write_bytes(base64.b64decode(png))


def probe_page(page: Path, width: int, height: int, profile: Path) -> dict:
    """Open ``page`` (an HTML file of a built site) at ``width`` x ``height`` px and measure it."""
    import os

    copy = page.with_name(f"{page.stem}.{COPY}{os.getpid()}.probe.html")  # a name of this process's own
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE_JS + "</body>"), encoding="utf-8")
    try:
        proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                               "--virtual-time-budget=30000", "--dump-dom", copy.as_uri()],
                              capture_output=True, text=True, timeout=180)
    finally:
        copy.unlink()
    found = re.search(r'data-probe="([^"]*)"', proc.stdout)
    if not found:
        raise RuntimeError(f"{page}: no measurement (chromium exit {proc.returncode}): {proc.stderr[-500:]}")
    import html

    return json.loads(html.unescape(found.group(1)))


def screenshot(page: Path, out: Path, width: int, height: int, profile: Path, anchor: str = "") -> None:
    """A PNG of a ``width`` x ``height`` px window on ``page``, element ``anchor`` moved to the top of its page.

    Taken over the DevTools protocol (:class:`Browser`): ``chromium --screenshot --window-size=390,...`` lays
    the page out 500 px wide and crops the picture, so it does not show a phone."""
    script = ("<script>window.addEventListener('load', function () { var go = function () {"
              f"var e = document.getElementById({json.dumps(anchor)}); if (e) "
              # drop what precedes the element inside its sections, so it is at the top of the page
              "for (var n = e; n && n.tagName !== 'BODY' && !n.matches('[role=main], .body, article'); "
              "n = n.parentElement) { while (n.previousElementSibling && n.parentElement.tagName === 'SECTION'"
              " || n.previousElementSibling && n === e) n.parentElement.removeChild(n.previousElementSibling); }"
              # the page's own scripts measure again after a second (derive-scroll.js): then it is ready
              "setTimeout(function () { document.body.setAttribute('data-shot', '1'); }, 1500); };"
              "if (window.MathJax && MathJax.startup) MathJax.startup.promise.then(go); else go(); });</script>")
    with Browser(width, height, profile) as browser:
        browser.capture(page, script, out)


def main(argv: list[str]) -> int:
    import tempfile

    site, width = Path(argv[0]), int(argv[1])
    pages = [site / p for p in argv[2:]] or sorted(p for p in site.rglob("*.html")
                                                  if "_static" not in p.parts and "genindex" not in p.name)
    total = wide = cued = 0
    with tempfile.TemporaryDirectory() as tmp, Browser(width, 1000 if width > 600 else 844, Path(tmp)) as browser:
        for page in pages:
            r = browser.probe(page)
            total += r["total"]
            wide += len(r["wide"])
            worst = max((w["ratio"] for w in r["wide"]), default=0)
            cued += sum(not cue_problems(w) for w in r["wide"])
            t = r["tables"]
            print(f"{page.relative_to(site)}: {len(r['wide'])}/{r['total']} wide (worst {worst}x), "
                  f"{sum(not cue_problems(w) for w in r['wide'])} with a scroll cue, "
                  f"page overflow {r['page_overflow']} px, errors {r['errors']}"
                  + (f"; tables {t['boxes']}, scrolling {t['scrolling']} (needlessly {t['needless']}), "
                     f"numbers on 2+ lines {len(t['broken'])}" if t["boxes"] else ""))
            for w in r["wide"]:
                if cue_problems(w):
                    print(f"    {w['id'] or '(prose)'} {w['ratio']}x: {', '.join(cue_problems(w))}")
    print(f"TOTAL at {width} px: {wide}/{total} display equations wider than their column, {cued} with a scroll cue")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
