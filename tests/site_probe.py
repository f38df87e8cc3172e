"""Measure built HTML pages in headless Chromium: display math wider than its column, sideways page scroll.

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
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]

#: For every display formula: its drawn width against the width of the column it sits in.
PROBE_JS = r"""
<script>
(function () {
  function column(el) {
    var box = (el.closest('div.math') || el).parentElement, s = getComputedStyle(box);
    return box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  }
  function run() {
    var wide = [], all = document.querySelectorAll('mjx-container[display="true"]');
    all.forEach(function (c) {
      var m = c.querySelector('mjx-math'), w = m ? m.getBoundingClientRect().width : 0, col = column(c);
      if (w > col + 1) {
        var d = c.closest('.derive-derivation'), id = d ? (d.id || '') : '';
        wide.push({ratio: Math.round(100 * w / col) / 100, id: id});
      }
    });
    var doc = document.documentElement;
    document.body.setAttribute('data-probe', JSON.stringify({
      total: all.length, wide: wide, page_overflow: doc.scrollWidth - window.innerWidth,
      errors: document.querySelectorAll('mjx-merror').length}));
  }
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


def probe_page(page: Path, width: int, height: int, profile: Path) -> dict:
    """Open ``page`` (an HTML file of a built site) at ``width`` x ``height`` px and measure it."""
    copy = page.with_name(page.stem + ".probe.html")
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
    """A PNG of a ``width`` x ``height`` px window on ``page``, element ``anchor`` moved to the top of its page."""
    script = ("<script>window.addEventListener('load', function () { var go = function () {"
              f"var e = document.getElementById({json.dumps(anchor)}); if (!e) return;"
              # drop what precedes the element inside its sections, so it is at the top of the page
              "for (var n = e; n && n.tagName !== 'BODY' && !n.matches('[role=main], .body, article'); "
              "n = n.parentElement) { while (n.previousElementSibling && n.parentElement.tagName === 'SECTION'"
              " || n.previousElementSibling && n === e) n.parentElement.removeChild(n.previousElementSibling); }};"
              "if (window.MathJax && MathJax.startup) MathJax.startup.promise.then(go); else go(); });</script>")
    copy = page.with_name(page.stem + ".shot.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
    try:
        subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                        "--virtual-time-budget=30000", f"--screenshot={out}", copy.as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)
    finally:
        copy.unlink()


def main(argv: list[str]) -> int:
    import tempfile

    site, width = Path(argv[0]), int(argv[1])
    pages = [site / p for p in argv[2:]] or sorted(p for p in site.rglob("*.html")
                                                  if "_static" not in p.parts and "genindex" not in p.name)
    total = wide = 0
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages:
            r = probe_page(page, width, 1000 if width > 600 else 844, Path(tmp))
            total += r["total"]
            wide += len(r["wide"])
            worst = max((w["ratio"] for w in r["wide"]), default=0)
            print(f"{page.relative_to(site)}: {len(r['wide'])}/{r['total']} wide (worst {worst}x), "
                  f"page overflow {r['page_overflow']} px, errors {r['errors']}")
    print(f"TOTAL at {width} px: {wide}/{total} display equations wider than their column")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
