"""The Jupyter display of a derivation, in a real notebook: executed by a kernel (nbclient), converted to
HTML (nbconvert), opened in headless Chromium with the network off. The HTML repr carries the verdict and
the chain as a table of MathML cells, so the relation signs line up in one column without any script."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def test_html_repr_has_the_verdict_and_one_row_per_line_of_the_chain():
    from derive import registry

    registry.load_catalog()
    d = registry.get("softmax.jacobian")
    html = d._repr_html_()
    assert "derive-nb-verdict derive-proved" in html and "✓ proved</span>: 3 of 3 steps proved symbolically" in html
    assert html.count("<td class='derive-nb-no'>(") == 3  # steps (1) (2) (3), each with its number
    assert html.count("class='derive-nb-why'") == 3
    assert "$" not in re.sub(r"<math.*?</math>", "", html, flags=re.S)  # every $...$ became MathML
    md = d._repr_markdown_()
    assert "**✓ proved**: 3 of 3 steps proved symbolically" in md
    assert md.count(r"\text{(") == 3 and r"\begin{aligned}" in md
    assert d._repr_latex_().startswith("$$\\begin{aligned}")


_PROBE = """<script>
window.addEventListener("load", function () {
  var out = [];
  var v = document.querySelector(".derive-nb-verdict");
  out.push("verdict|" + (v ? v.textContent : "none") + "|" + (v ? v.getBoundingClientRect().width : 0));
  document.querySelectorAll("td.derive-nb-rhs").forEach(function (td) {
    var m = td.querySelector("math");
    if (!m) return;
    var first = m.querySelector("mo, mi, mn");
    out.push("rhs|" + td.getBoundingClientRect().left.toFixed(1) + "|" + first.getBoundingClientRect().left.toFixed(1)
             + "|" + first.textContent + "|" + m.getBoundingClientRect().width.toFixed(1));
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = out.join("\\n");
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium package is not installed")
def test_a_notebook_shows_the_verdict_and_an_aligned_chain(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nbconvert = pytest.importorskip("nbconvert")
    pytest.importorskip("ipykernel")

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from derive import registry\nregistry.load_catalog()\n"
                                          "registry.get('softmax.jacobian')")]
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + env_path if env_path else "")
    try:
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
    outputs = nb.cells[0].outputs
    assert outputs and outputs[0]["output_type"] == "execute_result"
    data = outputs[0]["data"]
    assert {"text/html", "text/markdown", "text/latex"} <= set(data)
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    page = tmp_path / "notebook.html"
    page.write_text(body.replace("</body>", _PROBE + "</body>"))
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(tmp_path / "profile"),
         "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--window-size=1200,1000",
         "--virtual-time-budget=15000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, flags=re.S)
    assert found, proc.stderr[-2000:]
    lines = found.group(1).splitlines()
    verdict = lines[0].split("|")
    assert verdict[1] == "✓ proved" and float(verdict[2]) > 20  # shown, not collapsed
    rhs = [line.split("|") for line in lines[1:]]
    assert len(rhs) == 3
    assert [r[3] for r in rhs] == ["=", "=", "="]
    lefts = {round(float(r[2])) for r in rhs}
    assert max(lefts) - min(lefts) <= 1, f"the = signs are not in one column: {lefts}"
    assert all(float(r[4]) > 50 for r in rhs)  # the MathML was laid out (not an empty box)
