"""Runnable cells (``derive-cell``): their markup and settings, derive's wheel, and real runs in Chromium.

The Chromium tests serve a tiny built site and the core Pyodide runtime (the npm
package ``pyodide`` of :data:`derive.sphinxext.cells.PYODIDE_VERSION`: taken from
``$DERIVE_PYODIDE_DIR`` or fetched with ``npm pack``) from 127.0.0.1, with every
other host unreachable. The core runtime ships no package files, so the lecture
test adds the PyPI wheels of micropip, sympy and mpmath at the versions of the
runtime's ``pyodide-lock.json`` (``pip download``; their lock entries get the
wheels' sha256) and derive's own wheel from the docs build, then runs the three
cells of the chapters as written: the encoding table (pure Python), the
parameter calculator on ``derive.params`` with sympy, and the NumPy attention
cell, which must say in one line that this runtime has no numpy.

What they cannot cover: numpy cells actually running (the npm package has no
numpy and PyPI has no Pyodide build of it; online readers load it from the
official distribution), the official CDN itself (its address is checked as a
string), Pyodide's own builds of sympy and mpmath (the test uses PyPI's wheels
of the same versions), and download times over a real network.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from derive.sphinxext.cells import DEFAULT_URL, PYODIDE_VERSION  # noqa: E402
from derive.sphinxext.wheel import build_wheel, wheel_name  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs"

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
  var cells = Array.prototype.slice.call(document.querySelectorAll(".derive-cell"));
  var results = [];
  function report() {
    var pre = document.createElement("pre");
    pre.id = "probe";
    pre.textContent = JSON.stringify(results);
    document.body.appendChild(pre);
  }
  function next() {
    var cell = cells.shift();
    if (!cell) { report(); return; }
    var t0 = Date.now();
    cell.querySelector(".derive-cell-run").click();
    var poll = setInterval(function () {
      var state = cell.getAttribute("data-state");
      if (state === "running" && Date.now() - t0 < 200000) { return; }
      clearInterval(poll);
      results.push({state: state, status: cell.querySelector(".derive-cell-status").textContent,
                    output: cell.querySelector(".derive-cell-output").textContent, ms: Date.now() - t0});
      next();
    }, 100);
  }
  next();
});
</script>"""


def _build(root: Path, conf: str = "", page: str = PAGE, extra: dict[str, str] | None = None) -> Path:
    src, out = root / "src", root / "out"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(CONF + conf)
    (src / "index.md").write_text(page)
    for name, text in (extra or {}).items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
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
    # no cell asks for derive, so the build writes no wheel
    assert not list((tmp_path / "out" / "_static").glob("*.whl"))


def _chapter_cells() -> dict[str, str]:
    """The ``derive-cell`` blocks of the chapters as written, by chapter file name."""
    found = {}
    for name in ("positional", "parameters", "attention"):
        text = (DOCS / "chapters" / f"{name}.md").read_text()
        blocks = re.findall(r"^```\{derive-cell\}\n.*?^```$", text, flags=re.S | re.M)
        assert len(blocks) == 1, name
        found[name] = blocks[0]
    return found


def test_the_chapters_have_the_three_practice_cells():
    cells = _chapter_cells()
    assert ":packages: numpy" in cells["attention"] and "import numpy as np" in cells["attention"]
    assert ":packages: derive sympy" in cells["parameters"] and "from derive.params import" in cells["parameters"]
    assert ":packages:" not in cells["positional"] and "import math" in cells["positional"]
    assert all(":prompt: Try it yourself" in block for block in cells.values())


def test_a_derive_cell_links_the_wheel_the_build_writes(tmp_path):
    page = "# Top\n\n```{toctree}\nsub/page\n```\n"
    sub = "# Sub\n\n```{derive-cell}\n:packages: derive\n\nimport derive\n```\n"
    out = _build(tmp_path, page=page, extra={"sub/page.md": sub})
    html = (out / "sub" / "page.html").read_text()
    assert f'data-derive-wheel="../_static/{wheel_name()}"' in html and 'data-packages="derive"' in html
    wheel = out / "_static" / wheel_name()
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        record = archive.read(f"derive-{wheel_name().split('-')[1]}.dist-info/RECORD").decode()
        assert {"derive/__init__.py", "derive/params/shapes.py", "derive/kernel/primitives.py"} <= names
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        # every RECORD hash is the entry's own
        for line in record.splitlines():
            name, digest, size = line.rsplit(",", 2)
            if digest:
                data = archive.read(name)
                assert int(size) == len(data)
                assert digest == "sha256=" + __import__("base64").urlsafe_b64encode(
                    hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert build_wheel(tmp_path / "again").read_bytes() == wheel.read_bytes()  # same sources, same bytes


def test_the_wheel_installs_and_counts_without_numpy_or_sympy(tmp_path):
    wheel = build_wheel(tmp_path / "dist")
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target",
                           str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # a fresh interpreter that sees only the installed wheel (not this checkout) and cannot import numpy or sympy
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('numpy', 'sympy', 'mpmath'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import derive\n"
        "from derive.params import Architecture, breakdown\n"
        "rows = breakdown(Architecture(d_model=512, n_heads=8, d_ff=2048, n_layers=1, causal=False),\n"
        "                 formulas=False)\n"
        "print(derive.__file__, sum(r.count for r in rows))\n")
    # -S: no site-packages, so no editable install of derive either; the working folder holds no derive
    proc = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={"PYTHONPATH": str(target), "PATH": os.environ.get("PATH", "")})
    assert proc.returncode == 0, proc.stderr
    where, count = proc.stdout.split()
    assert Path(where).is_relative_to(target) and count == "3150336"


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


@pytest.fixture(scope="module")
def wheels(runtime, tmp_path_factory) -> dict[str, Path]:
    """PyPI wheels of micropip, sympy and mpmath at the versions the runtime's lock file names."""
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    python = ".".join(lock["info"]["python"].split(".")[:2])
    pins = {name: lock["packages"][name]["version"] for name in ("micropip", "sympy", "mpmath")}
    given = os.environ.get("DERIVE_PYODIDE_WHEELS")
    where = Path(given) if given else tmp_path_factory.mktemp("wheels")
    if not given:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                               "--python-version", python, "-d", str(where),
                               *(f"{name}=={version}" for name, version in pins.items())],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.skip(f"pip download of {', '.join(pins)} failed (is PyPI reachable?): {proc.stderr.strip()[-300:]}")
    found = {}
    for name, version in pins.items():
        matches = list(where.glob(f"{name}-{version}-py3-none-any.whl"))
        if not matches:
            pytest.skip(f"no wheel {name}-{version}-py3-none-any.whl in {where}")
        found[name] = matches[0]
    return found


def _self_hosted(runtime: Path, wheels: dict[str, Path], folder: Path) -> None:
    """The core runtime plus ``wheels``, their lock entries pointing at those files (a self-hosted runtime)."""
    shutil.copytree(runtime, folder)
    lock = json.loads((folder / "pyodide-lock.json").read_text())
    for name, wheel in wheels.items():
        shutil.copy(wheel, folder / wheel.name)
        entry = lock["packages"][name]
        entry["file_name"] = wheel.name
        entry["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (folder / "pyodide-lock.json").write_text(json.dumps(lock))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path):
    """An HTTP server on 127.0.0.1 over ``tmp_path / 'www'``; yields (root folder, base URL)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _run_probe(site: Path, www: Path, base: str, tmp: Path) -> list[dict]:
    """Click Run on every cell of the page in turn; one dict (state, status, output, ms) per cell."""
    shutil.copytree(site, www / "site")
    page = www / "site" / "index.html"
    page.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    started = time.perf_counter()
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + str(tmp / "profile"),
         # only the local server is reachable: every other host resolves nowhere, any proxy use fails
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--proxy-server=127.0.0.1:9",
         "--proxy-bypass-list=127.0.0.1", "--virtual-time-budget=300000", "--dump-dom", base + "site/index.html"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, flags=re.S)
    assert found, "the probe did not finish"
    import html

    results = json.loads(html.unescape(found.group(1)))
    print(f"chromium: {time.perf_counter() - started:.1f} s wall for {len(results)} cells;",
          [(r["state"], r["ms"]) for r in results])
    return results


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_chromium_runs_a_cell_on_a_local_runtime(runtime, served, tmp_path):
    www, base = served
    shutil.copytree(runtime, www / "pyodide")
    site = _build(tmp_path / "b", f'derive_pyodide_url = "{base}pyodide/"\n')
    pure, numpy = _run_probe(site, www, base, tmp_path)
    assert (pure["state"], pure["status"], pure["output"]) == ("done", "Done.", "64 1048576")
    # the core runtime has no numpy: one sentence, no output, no hang
    assert numpy["state"] == "offline" and numpy["output"] == ""
    assert numpy["status"] == (f"numpy could not be loaded from {base}pyodide/ (offline, or a runtime without it; "
                               "the official full Pyodide distribution has it).")


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_chromium_runs_the_chapters_cells_with_derive_installed_by_micropip(runtime, wheels, served, tmp_path):
    www, base = served
    _self_hosted(runtime, wheels, www / "pyodide")
    cells = _chapter_cells()
    page = "# The chapters' cells\n\n" + "\n\n".join(cells[n] for n in ("positional", "parameters", "attention"))
    site = _build(tmp_path / "b", f'derive_pyodide_url = "{base}pyodide/"\n', page=page)
    table, calculator, attention = _run_probe(site, www, base, tmp_path)
    assert table["state"] == "done", table
    assert table["output"].splitlines()[1] == "1 [0.8415, 0.5403, 0.01, 1.0] pairs on the unit circle: True"
    assert calculator["state"] == "done", calculator
    assert calculator["output"].splitlines() == [  # lecture 000, STEP 6: the table and its totals
        "d_k = 64",
        "self-attention   1,048,576  = 4·d_model²",
        "FFN (relu)       2,099,712  = 2·d_ff·d_model + d_ff + d_model",
        "LayerNorm × 2        2,048  = 4·d_model",
        "per layer        3,150,336",
        "6 layers: 18,902,016",
    ]
    assert attention["state"] == "offline" and attention["status"].startswith(f"numpy could not be loaded from {base}")


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_chromium_says_when_the_runtime_cannot_be_loaded(served, tmp_path):
    www, base = served
    site = _build(tmp_path / "b", 'derive_pyodide_url = "https://pyodide.invalid/full/"\n')
    for cell in _run_probe(site, www, base, tmp_path):
        assert (cell["state"], cell["output"]) == ("offline", "")
        assert cell["status"] == ("The Python runtime could not be loaded from https://pyodide.invalid/full/ "
                                  "(no network? a site can self-host it: derive_pyodide_url).")
