"""Runnable cells (``derive-cell``): their markup and settings, and real runs in headless Chromium.

The Chromium tests serve a tiny built site and the core Pyodide runtime (the npm
package ``pyodide`` of :data:`derive.sphinxext.cells.PYODIDE_VERSION`: taken from
``$DERIVE_PYODIDE_DIR`` or fetched with ``npm pack``) from 127.0.0.1, with every
other host unreachable. They run a pure-Python cell and check that a page whose
runtime location cannot be reached says so instead of hanging. They cannot
cover numpy cells (the npm package has no numpy; online readers load it from the
official distribution) nor the official CDN itself.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from derive.sphinxext.cells import DEFAULT_URL, PYODIDE_VERSION  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

CONF = """\
extensions = ["myst_parser", "derive"]
derive_require_all = False
bibtex_bibfiles = []
"""

PAGE = """\
# Cells

```{derive-cell}
:prompt: Try it yourself: change `d_model`.

d_model, n_heads = 512, 8
print(d_model // n_heads, 4 * d_model**2)
```

```{derive-cell}
:packages: numpy

import numpy as np
print(np.ones(2) & 1 < 2)
```
"""

PROBE = """<script>
window.addEventListener("load", function () {
  var cell = document.querySelector(".derive-cell");
  cell.querySelector(".derive-cell-run").click();
  var t0 = Date.now();
  var poll = setInterval(function () {
    var out = cell.querySelector(".derive-cell-output");
    var status = cell.querySelector(".derive-cell-status").textContent;
    if (!out.hidden || /could not|did not/.test(status) || Date.now() - t0 > 100000) {
      clearInterval(poll);
      var pre = document.createElement("pre");
      pre.id = "probe";
      pre.textContent = status + "|" + out.textContent;
      document.body.appendChild(pre);
    }
  }, 100);
});
</script>"""


def _build(root: Path, conf: str = "") -> Path:
    src, out = root / "src", root / "out"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(CONF + conf)
    (src / "index.md").write_text(PAGE)
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html",
                           str(src), str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


def test_cell_markup_and_default_runtime_location(tmp_path):
    html = (_build(tmp_path) / "index.html").read_text()
    cells = re.findall(r'<div class="derive-cell"[^>]*>', html)
    assert len(cells) == 2
    assert f'data-pyodide="{DEFAULT_URL}"' in cells[0] and DEFAULT_URL.endswith(f"/v{PYODIDE_VERSION}/full/")
    assert 'data-packages="numpy"' in cells[1] and "data-packages" not in cells[0]
    assert '<textarea class="derive-cell-code"' in html and "d_model, n_heads = 512, 8" in html
    assert "print(np.ones(2) &amp; 1 &lt; 2)" in html  # code is escaped
    assert 'class="derive-cell-run">Run</button>' in html and 'aria-live="polite"' in html
    assert "Try it yourself: change <code" in html
    # nothing is loaded before a reader presses Run: no script tag points at the runtime
    assert "pyodide.js" not in html.replace('data-pyodide="', "")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory) -> Path:
    """The folder of the core Pyodide runtime (``pyodide.js``, ``pyodide.asm.wasm``, the stdlib)."""
    given = os.environ.get("DERIVE_PYODIDE_DIR")
    if given:
        return Path(given)
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed and DERIVE_PYODIDE_DIR is not set")
    where = tmp_path_factory.mktemp("pyodide")
    proc = subprocess.run([npm, "pack", f"pyodide@{PYODIDE_VERSION}"], cwd=where, capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"npm pack pyodide@{PYODIDE_VERSION} failed: {proc.stderr.strip()[-300:]}")
    with tarfile.open(next(where.glob("pyodide-*.tgz"))) as archive:
        archive.extractall(where, filter="data")
    return where / "package"


@pytest.fixture
def served(tmp_path):
    """An HTTP server on 127.0.0.1 over ``tmp_path / 'www'``; yields (root folder, base URL)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _run_probe(site: Path, www: Path, base: str, tmp: Path) -> str:
    shutil.copytree(site, www / "site")
    page = www / "site" / "index.html"
    page.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(tmp / "profile"),
         # only the local server is reachable: every other host resolves nowhere, any proxy use fails
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--proxy-server=127.0.0.1:9",
         "--proxy-bypass-list=127.0.0.1", "--virtual-time-budget=120000", "--dump-dom", base + "site/index.html"],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, flags=re.S)
    assert found, "the probe did not finish"
    return found.group(1)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_chromium_runs_a_cell_on_a_local_runtime(runtime, served, tmp_path):
    www, base = served
    shutil.copytree(runtime, www / "pyodide")
    site = _build(tmp_path / "b", f'derive_pyodide_url = "{base}pyodide/"\n')
    assert _run_probe(site, www, base, tmp_path) == "Done.|64 1048576"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_chromium_says_when_the_runtime_cannot_be_loaded(served, tmp_path):
    www, base = served
    site = _build(tmp_path / "b", 'derive_pyodide_url = "https://pyodide.invalid/full/"\n')
    status = _run_probe(site, www, base, tmp_path)
    assert status == ("The Python runtime could not be loaded from https://pyodide.invalid/full/ (no network? "
                      "a site can self-host it: derive_pyodide_url).|")
